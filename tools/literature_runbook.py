"""The literature-search runbook (agents/literature-search.md) as a program, with a STAND-IN model.

`runbook(...)` is a generator that yields, turn by turn, exactly the tool calls the runbook
prescribes — script calls and the file writes (judgements, relevance, Synthesis) — and
receives each call's output. Whoever drives it decides how the calls are
carried out:

- tools/demo_pipeline.py runs the scripts as subprocesses (`bash tools/run-demo`);
- tests/test_literature_e2e.py hands them to the real Claude Code as Bash and Write tool calls
  of a scripted model.

So one program checks the runbook both ways. Everything the runbook leaves to the model's
judgement — labelling candidates, proposing a refined query, recalling papers, writing relevance
and Synthesis prose, the journal entry — is done by `StandInModel`, a deterministic STAND-IN that
says so in everything it writes. It sees only what a model would see: the scripts' printed
output (titles, abstract gists and excerpts) and the files it reads.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

STAND_IN = "STAND-IN"  # marks every text the deterministic stand-in writes in the model's place
# A paper discover listed: key | year | first author | title [sources] — gist
LISTED_LINE = re.compile(
    r"^((?:arXiv|DOI|S2):\S+) \| (\S+) \| ([^|]*) \| (.*) \[([^\]]+)\] — (.*)$"
)
# A statement verify listed to quote from: `    Theorem 1.1 (its note): its first words…`
STATEMENT_LINE = re.compile(
    r"^    ([A-Z][\w-]*(?: [A-Z][\w-]*)*(?: [A-Z]?\d[\w.]*)?)(?: \(.*?\))?: (.*)$"
)
PARTIAL_AT = 2  # shared title words that make a paper partial (the rubric: one word is noise)
NO_ABSTRACT = "(none)"  # what verify prints for a paper whose record has no abstract
STOP = frozenset("a an and the of on in for to with by from is are its via as at or".split())  # noqa: SIM905


# --- the calls ---------------------------------------------------------------------------------


@dataclass
class Script:
    """`python3 "${CLAUDE_PLUGIN_ROOT}/scripts/<name>" <args>`: one Bash call."""

    name: str
    args: list[str]

    def command(self, plugin_root: str) -> str:
        return f'python3 "{plugin_root}/scripts/{self.name}" {shlex.join(self.args)}'.rstrip()


@dataclass
class Write:
    path: str  # relative to the workspace
    content: str


Call = Script | Write
Turn = list[Call]


# --- the stand-in model ------------------------------------------------------------------------


@dataclass
class StandInModel:
    """Deterministic STAND-IN for the model's judgement steps (clearly not a model).

    Judging: a candidate whose title and abstract gist share `strong_at[i]` or more of the problem
    title's content words (compared by their first five letters) is `strong` in iteration i + 1
    (the last value holds for later iterations), one or more shared words make it `partial`, none
    `irrelevant`.
    Refining: the next of `proposals`, else the head of the problem title's key phrase.
    Recalling: `recalled` papers go to verification as memory candidates (planted fabrications
    in the demo: the gate must reject them).
    """

    strong_at: tuple[int, ...] = (3,)
    proposals: tuple[str, ...] = ()
    recalled: tuple[dict, ...] = ()
    problem_words: list[str] = field(default_factory=list)
    proposed: int = 0

    def learn_problem(self, problem_md: str) -> None:
        title = re.search(r'^title:\s*"?(.*?)"?\s*$', problem_md, re.M)
        self.problem_words = content_words(title.group(1) if title else "")

    def judge(self, title: str, gist: str, iteration: int) -> dict[str, Any]:
        shared = sorted({w for w in content_words(f"{title} {gist}") if w in self.problem_words})
        needed = self.strong_at[min(iteration, len(self.strong_at)) - 1]
        partial = min(needed, PARTIAL_AT)  # one shared word is a word with another meaning
        label = (
            "strong" if len(shared) >= needed
            else "partial" if len(shared) >= partial
            else "irrelevant"
        )  # fmt: skip
        rationale = (
            f"{STAND_IN} judgement: title and gist share {len(shared)} of the problem title's"
            " words" + (f" ({', '.join(shared)})" if shared else "")
        )
        confidence = round(min(1.0, 0.3 + 0.2 * len(shared)), 2)
        return {"label": label, "confidence": confidence, "rationale": rationale}

    def refined_query(self, memo: str) -> str:
        self.proposed += 1
        if self.proposed <= len(self.proposals):
            return self.proposals[self.proposed - 1]
        return " ".join(self.problem_words[-2:])

    def relevance(self, label: str, paper: ReadPaper) -> dict[str, str]:
        """Relevance from the label, Key Results quoting the paper's first statement verify
        listed (its number named), else its abstract: a quote the scripts check."""
        if paper.statements:  # a theorem first, as a reader would
            theorems = [s for s in paper.statements if s[0].startswith("Theorem")]
            printed, words = (theorems or paper.statements)[0]
            quoted = f'[V] "{quote_of(words)}" ({printed})'
        elif quote_of(paper.text.split()):
            quoted = f'[V] "{quote_of(paper.text.split())}" (abstract)'
        else:
            quoted = f"{STAND_IN}: no abstract to read."
        return {
            "relevance": f"{STAND_IN} assessment: judged {label} from its title and abstract.",
            "key_results": f"{STAND_IN}, quoting the paper: {quoted}",
            "confidence": "[S]",
        }

    def synthesis(self, refs: list[str], urefs: list[str], abstract: str = "") -> str:
        """The Synthesis; `abstract` is the first REF's, which its first claim quotes (finish puts
        the speculative-steps warning atop it: claims 2 and 3 are [~])."""
        first = refs[0] if refs else None
        quoted = quote_of(abstract.split())
        applicable = (
            f'- [V] "{quoted}" ({first}, abstract) ({STAND_IN} claim 1).'
            if first and quoted
            else f"- [S] {first} is the closest confirmed work to the problem ({STAND_IN} claim 1)."
            if first
            else f"- [~] No confirmed paper applies directly ({STAND_IN} claim 1)."
        )
        lines = [
            f"_{STAND_IN} Synthesis, written by the deterministic demo model, not by a model._",
            "",
            "### Applicable Theorems",
            applicable,
            "",
            "### Technique Connections",
            f"- [~] The methods of {', '.join(refs[:3]) or 'the confirmed papers'} may transfer"
            f" to the problem's setting ({STAND_IN} claim 2).",
            "",
            "### Gaps in Literature",
            f"- [~] The unconfirmed references ({', '.join(urefs) or 'none'}) could not be"
            f" verified and are not evidence ({STAND_IN} claim 3).",
            "",
            "### Suggested Reading Order",
            *(f"{n}. {ref}" for n, ref in enumerate(refs, 1)),
        ]
        return "\n".join(lines).rstrip() + "\n"

    def extension(self, refs: list[str]) -> str:
        """A follow-up's new Synthesis lines, under the headings they extend (finish keeps
        every other section and claim)."""
        return (
            "\n".join(
                [
                    "### Technique Connections",
                    f"- [S] The new references {', '.join(refs)} add to the methods above"
                    f" ({STAND_IN} claim).",
                    "",
                    "### Suggested Reading Order",
                    *(f"- {ref}, after the earlier ones" for ref in refs),
                ]
            )
            + "\n"
        )


def unjudged(key: str) -> str:
    """What a confirmed paper nobody judged is: a remembered paper or a PROBLEM.md reference."""
    return "remembered, not listed" if key.startswith("memory-") else "a PROBLEM.md reference"


def quote_of(words: list[str], most: int = 12) -> str:
    """The first words of a text verify printed, as a quote: whole words, never past a cut."""
    if words and words[-1].endswith("…"):
        words = words[:-1]
    return " ".join(words[:most])


def content_words(text: str) -> list[str]:
    """Five-letter stems of a title's content words ("Testing" and "tests" are one word)."""
    words = re.findall(r"[a-z]+", text.lower())
    return list(dict.fromkeys(w[:5] for w in words if w not in STOP and len(w) > 2))


# --- the runbook -------------------------------------------------------------------------------


def runbook(
    slug: str,
    model: StandInModel,
    focus: str | None = None,
    per_query: int | None = None,
    gap: bool = False,
) -> Generator[Turn, list[str], dict[str, Any]]:
    """agents/literature-search.md steps 1-7, one turn of calls at a time; returns a summary.

    Each `yield` hands over a turn (calls that may run together); the driver sends back their
    outputs as text, in order: a script's stdout (and stderr, as a Bash result carries both), a
    file's content, "" for a write. `per_query` is discover's --per-query (results per search),
    which the runbook leaves at its default: benchmarks set it to scale a run's candidates.
    `gap`: the task is PROOF.md's reference-needed gaps (`discover --gap` takes the next one)."""

    # 1. Discover: it prints the problem's title and statement, no read needed.
    discover_args = ["discover", slug, *(["--gap"] if gap else focus.split() if focus else [])]
    discover_args += ["--per-query", str(per_query)] if per_query else []
    (listing,) = yield [Script("literature.py", discover_args)]
    model.learn_problem("title: " + re.search(r"^problem: (.*?) — ", listing, re.M).group(1))
    searched_gap = re.search(r"^gap: (.+)$", listing, re.M)
    search_folder = re.search(r"^search folder: (.+)$", listing, re.M).group(1)
    first_search = bool(re.search(r"^\S+, first search, iteration", listing, re.M))

    # 2. Judge every listed paper (and recall papers no search returned); the script decides.
    # An iteration that lists no new paper comes with the decision already.
    labels: dict[str, str] = {}  # key -> its label
    iteration = 1
    while True:
        decision = decision_in(listing)
        verified = listing  # at the decision stop, verify's lines follow it in the same output
        if decision is None:
            judged = [
                {"key": key, **model.judge(title, gist, iteration)}
                for key, (title, gist) in listed_papers(listing).items()
            ]
            labels.update({item["key"]: item["label"] for item in judged})
            content: Any = judged
            if iteration == 1 and model.recalled:
                content = {"judgements": judged, "remembered": list(model.recalled)}
            path = f"{search_folder}/judgements-i{iteration}.json"
            yield [Write(path, json.dumps(content, indent=1) + "\n")]
            (verified,) = yield [Script("literature.py", ["judge", search_folder])]
            decision = json_of(verified)
        if decision["decision"] == "stop":
            break
        # 3. Refine: one query aimed at what the memo says the partial matches lack. It stops
        # (a query repeated) or lists the next iteration's new papers.
        query = model.refined_query(decision["memo"])
        (listing,) = yield [Script("literature.py", ["refine", search_folder, "--query", query])]
        if decision_in(listing) is None or "iteration" in decision_in(listing):
            iteration += 1

    # 4. Verify: done by the call that printed the decision stop; its lines are `verified`.
    confirmed = confirmed_papers(verified)
    unconfirmed = re.findall(r"^UNCONFIRMED (\S+)", verified, re.M)
    papers = re.findall(r"^(?:CONFIRMED|CORRECTED) (\S+)(?: = (\S+))?", verified, re.M)
    seen = {*labels, *(paper or key for key, paper in papers), *unconfirmed}

    nothing_new = bool(re.search(r"^nothing new: ", verified, re.M))  # merged already: finish
    # 5. Relevance, Key Results and a tier for every confirmed paper not recorded already, from
    # what verify printed; nothing to write when every paper is recorded.
    recorded = set(
        re.findall(r"^(?:CONFIRMED|CORRECTED) (\S+) = REF-\d+ \(recorded\)", verified, re.M)
    )
    relevance = {
        key: model.relevance(labels.get(key, unjudged(key)), paper)
        for key, paper in confirmed.items()
        if key not in recorded
    }
    relevance.update(
        {
            key: {"relevance": f"{STAND_IN}: recalled from memory; not verified."}
            for key in unconfirmed
            if key.startswith("memory-")
        }
    )
    if relevance and not nothing_new:
        yield [Write(f"{search_folder}/relevance.json", json.dumps(relevance, indent=1) + "\n")]

    # 6. Merge (validated in the same call), then the Synthesis: the whole of it on a first
    # search, its new lines on a follow-up (merge says "to extend:"), nothing when nothing is new.
    merged = verified
    if not nothing_new:
        (merged,) = yield [Script("literature.py", ["merge", search_folder])]
    added = re.findall(r"^(REF-\d+) added: (\S+)", merged, re.M)
    refs = [ref for ref, _ in added]
    urefs = re.findall(r"^(UREF-\d+) added:", merged, re.M)
    first = confirmed.get(added[0][1]) if added else None
    if nothing_new:
        pass
    elif not re.search(r"^to extend: ", merged, re.M):
        synthesis = model.synthesis(refs, urefs, first.text if first and first.whole else "")
        yield [Write(f"{search_folder}/synthesis.md", synthesis)]
    elif refs:
        yield [Write(f"{search_folder}/synthesis.md", model.extension(refs))]

    # 7. Finish: the Synthesis goes in, the file is validated, the journal entry and the state
    # are recorded.
    outcome = "SUCCEEDED" if refs else "FAILED"
    finish_args = [
        "finish", search_folder, "--outcome", outcome,
        "--title", f"{STAND_IN} literature search ({iteration} iteration(s))",
        "--reasoning", f"{len(confirmed)} papers confirmed ({len(refs)} new REFs), "
        f"{len(unconfirmed)} unconfirmed ({len(urefs)} new UREFs)",
        "--insight", f"{STAND_IN}: {len(refs)} new references; see LITERATURE.md Synthesis",
    ]  # fmt: skip
    (finished,) = yield [Script("literature.py", finish_args)]
    return {
        "search_folder": search_folder,
        "gap": searched_gap.group(1) if searched_gap else None,
        "first_search": first_search,
        "iterations": iteration,
        "listed": len(labels),
        "labels": labels,
        "seen": len(seen),  # distinct papers the model read about (a resolved reference once)
        "confirmed": list(confirmed),
        "unconfirmed": unconfirmed,
        "refs": refs,
        "urefs": urefs,
        "finish": json_of(finished),
    }


def decision_in(output: str) -> dict[str, Any] | None:
    """The loop's decision a call printed as a JSON line, if it printed one."""
    line = next((x for x in output.splitlines() if x.startswith('{"')), None)
    return json.loads(line) if line and '"decision"' in line else None


def listed_papers(listing: str) -> dict[str, tuple[str, str]]:
    """key -> (title, gist) from the lines discover (or refine) printed."""
    found = {}
    for line in listing.splitlines():
        if match := LISTED_LINE.match(line.strip()):
            found[match.group(1)] = (match.group(4), match.group(6))
    return found


@dataclass
class ReadPaper:
    """What verify printed under a confirmed paper: its whole abstract (`whole`) or an excerpt,
    and the statements of its LaTeX source it listed, (printed name, first words)."""

    text: str = ""
    whole: bool = False
    statements: list[tuple[str, list[str]]] = field(default_factory=list)


def confirmed_papers(verified: str) -> dict[str, ReadPaper]:
    """key -> what verify printed under it (a CONFIRMED or CORRECTED paper)."""
    found: dict[str, ReadPaper] = {}
    key, part = None, "excerpt"
    for line in verified.splitlines():
        if match := re.match(r"^(?:CONFIRMED|CORRECTED) (\S+)", line):
            key, part = match.group(1), "excerpt"
            found[key] = ReadPaper()
        elif key is None or not line.startswith("  "):
            key = None
        elif line.startswith(("  abstract: ", "  statements, from ")):
            part = "abstract" if line.startswith("  abstract: ") else "statements"
            found[key].whole = found[key].whole or part == "abstract"
            if part == "abstract":
                said = line.removeprefix("  abstract: ")
                found[key].text = "" if said == NO_ABSTRACT else said
        elif part == "statements" and (statement := STATEMENT_LINE.match(line)):
            found[key].statements.append((statement.group(1), statement.group(2).split()))
        elif part != "statements" and not line.startswith("  corrected "):
            found[key].text = (found[key].text + " " + line.strip()).strip()
    return found


def json_of(output: str) -> Any:
    """The JSON document a script printed (a tool result may carry stderr lines around it)."""
    start = min((i for i in (output.find("{"), output.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ValueError(f"no JSON in script output: {output[:200]!r}")
    return json.JSONDecoder().raw_decode(output[start:])[0]
