"""The literature-search runbook (agents/literature-search.md) as a program, with a STAND-IN model.

`runbook(...)` is a generator that yields, turn by turn, exactly the tool calls the runbook
prescribes — script calls, file reads, file writes and the Synthesis edit — and receives each
call's output. Whoever drives it decides how the calls are carried out:

- tools/demo_pipeline.py runs the scripts as subprocesses (the README's `bash tools/run-demo`);
- tests/test_literature_e2e.py hands them to the real Claude Code as Bash, Read, Write and Edit
  tool calls of a scripted model.

So one program checks the runbook both ways. Everything the runbook leaves to the model's
judgement — labelling candidates, proposing a refined query, recalling papers, writing relevance
and Synthesis prose, the journal entry — is done by `StandInModel`, a deterministic STAND-IN that
says so in everything it writes. It sees only what a model would see: the scripts' printed
output and the files it reads.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

STAND_IN = "STAND-IN"  # marks every text the deterministic stand-in writes in the model's place
SUMMARY_LINE = re.compile(r"^((?:arXiv|DOI|S2):\S+) \| (\S+) \| ([^|]*) \| (.*)$")
SCRIPTS = ("plan_queries.py", "arxiv_query.py", "s2_lookup.py", "lit_update.py", "refine.py")
SYNTHESIS_SECTION = re.compile(r"(## Synthesis\n)(.*?)(?=\n## Unconfirmed References)", re.S)
# protocols/confidence-tiers.md, "The speculative-steps warning", verbatim.
SPECULATIVE_WARNING = """\
> **Warning: this document contains speculative steps.**
> The steps marked [~] (here: {steps}) are conjectures or heuristics,
> not established mathematics. Everything that depends on them is speculative too. Do not cite
> this result as proven until each [~] step is replaced by a verified [V] or supported [S]
> argument."""
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
class Read:
    path: str  # relative to the workspace


@dataclass
class Write:
    path: str  # relative to the workspace
    content: str


@dataclass
class Edit:
    path: str
    old: str
    new: str


Call = Script | Read | Write | Edit
Turn = list[Call]


# --- the stand-in model ------------------------------------------------------------------------


@dataclass
class StandInModel:
    """Deterministic STAND-IN for the model's judgement steps (clearly not a model).

    Judging: a candidate whose title shares `strong_at[i]` or more of the problem title's content
    words (compared by their first five letters) is `strong` in iteration i + 1 (the last value
    holds for later iterations), one or more shared words make it `partial`, none `irrelevant`.
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

    def judge(self, title: str, iteration: int) -> dict[str, Any]:
        shared = sorted({w for w in content_words(title) if w in self.problem_words})
        needed = self.strong_at[min(iteration, len(self.strong_at)) - 1]
        label = "strong" if len(shared) >= needed else "partial" if shared else "irrelevant"
        rationale = (
            f"{STAND_IN} judgement: the title shares {len(shared)} of the problem title's words"
            + (f" ({', '.join(shared)})" if shared else "")
        )
        confidence = round(min(1.0, 0.3 + 0.2 * len(shared)), 2)
        return {"label": label, "confidence": confidence, "rationale": rationale}

    def refined_query(self, memo: str) -> str:
        self.proposed += 1
        if self.proposed <= len(self.proposals):
            return self.proposals[self.proposed - 1]
        return " ".join(self.problem_words[-2:])

    def relevance(self, label: str) -> dict[str, str]:
        return {
            "relevance": f"{STAND_IN} assessment: judged {label} for the problem from its title.",
            "key_results": f"{STAND_IN}: not read; see the abstract.",
            "confidence": "[S]",
        }

    def synthesis(self, refs: list[str], urefs: list[str]) -> str:
        first = refs[0] if refs else None
        lines = [
            *SPECULATIVE_WARNING.format(steps=f"{STAND_IN} claims 2 and 3").splitlines(),
            "",
            f"_{STAND_IN} Synthesis, written by the deterministic demo model, not by a model._",
            "",
            "### Applicable Theorems",
            f"- [S] {first} is the closest confirmed work to the problem ({STAND_IN} claim 1)."
            if first
            else f"- [~] No confirmed paper applies directly ({STAND_IN} claim 1).",
            "",
            "### Technique Connections",
            f"- [~] The methods of {', '.join(refs[:3]) or 'the confirmed papers'} may transfer"
            f" to the tolerant regime ({STAND_IN} claim 2).",
            "",
            "### Gaps in Literature",
            f"- [~] The unconfirmed references ({', '.join(urefs) or 'none'}) could not be"
            f" verified and are not evidence ({STAND_IN} claim 3).",
            "",
            "### Suggested Reading Order",
            *(f"{n}. {ref}" for n, ref in enumerate(refs, 1)),
        ]
        return "\n".join(lines).rstrip() + "\n"


def content_words(text: str) -> list[str]:
    """Five-letter stems of a title's content words ("Testing" and "tests" are one word)."""
    words = re.findall(r"[a-z]+", text.lower())
    return list(dict.fromkeys(w[:5] for w in words if w not in STOP and len(w) > 2))


# --- the runbook -------------------------------------------------------------------------------


def runbook(
    slug: str, model: StandInModel, focus: str | None = None, per_query: int | None = None
) -> Generator[Turn, list[str], dict[str, Any]]:
    """agents/literature-search.md steps 1-9, one turn of calls at a time; returns a summary.

    Each `yield` hands over a turn (calls that may run together); the driver sends back their
    outputs as text, in order: a script's stdout, a file's content, "" for a write or edit.
    `per_query` is plan_queries.py's --per-query (results per search), which the runbook leaves
    at its default: benchmarks set it to scale a run's candidates."""
    problem_dir = f".math/problems/{slug}"
    literature = f"{problem_dir}/LITERATURE.md"

    # 1. Read the problem (and LITERATURE.md: the plan skips what its Search History lists).
    problem_md, _ = yield [Read(f"{problem_dir}/PROBLEM.md"), Read(literature)]
    model.learn_problem(problem_md)

    # 2. Plan.
    plan_args = ["--problem", slug, "--new-run"] + (["--focus", focus] if focus else [])
    plan_args += ["--per-query", str(per_query)] if per_query else []
    (plan,) = yield [Script("plan_queries.py", plan_args)]
    run_dir = re.search(r"^run folder: (.+)$", plan, re.M).group(1)
    searches, records = [], []
    for line in plan.splitlines():
        name, _, rest = line.partition(" ")
        if name in ("arxiv_query.py", "s2_lookup.py"):
            searches.append(Script(name, shlex.split(rest)))
        elif name == "lit_update.py":
            records.append(Script(name, shlex.split(rest)))
    references = re.search(r"references to verify: (\S+)$", plan, re.M)
    first_search = "first search" in plan.splitlines()[0]

    # 3-4. Discover, record, judge; refine while the rules say so.
    run_ids: list[int] = []
    labels: dict[str, str] = {}  # key -> the best label any run gave it
    iteration = 1
    while True:
        outputs = yield searches
        seen = {"arxiv": _summary_keys(outputs, searches, "arxiv_query.py")}
        seen["semantic_scholar"] = _summary_keys(outputs, searches, "s2_lookup.py")
        recorded = yield records
        runs = {run["source"]: run["run_id"] for out in recorded for run in json_of(out)["runs"]}
        run_ids += runs.values()
        writes, judges = [], []
        for source, run_id in runs.items():
            judged = [
                {"key": key, **model.judge(title, iteration)} for key, title in seen[source].items()
            ]
            for item in judged:
                if labels.get(item["key"]) != "strong":
                    labels[item["key"]] = item["label"]
            tag = {"arxiv": "arxiv", "semantic_scholar": "s2"}[source]
            path = f"{run_dir}/judgements-{tag}" + (f"-i{iteration}" if iteration > 1 else "")
            writes.append(Write(f"{path}.json", json.dumps(judged, indent=1) + "\n"))
            judges.append(
                Script(
                    "lit_update.py", ["judge", "--run", str(run_id), "--judgements", f"{path}.json"]
                )
            )
        yield writes
        yield judges
        ids = [str(run_id) for run_id in runs.values()]
        (feedback,) = yield [Script("refine.py", ["feedback", "--runs", *ids])]
        decision = json_of(feedback)
        if decision["decision"] == "stop":
            break
        query = model.refined_query(decision["memo"])
        (step,) = yield [
            Script("refine.py", ["next", "--runs", *ids, "--query", query, "--run-dir", run_dir])
        ]
        step = json_of(step)
        if step["decision"] == "stop":
            break
        iteration = step["next_iteration"]
        searches = [_script_line(line) for line in step["commands"] if "record-run" not in line]
        records = [_script_line(line) for line in step["commands"] if "record-run" in line]

    # Memory candidates (written before verification; verified like any other candidate).
    extra = [references.group(1)] if references else []
    if model.recalled:
        yield [Write(f"{run_dir}/memory.json", json.dumps(list(model.recalled), indent=1) + "\n")]
        extra.append(f"{run_dir}/memory.json")

    # 5. Keep the strong and partial papers; verify them with the other candidates.
    keep_args = ["keep", "--runs", *map(str, run_ids), "--out", f"{run_dir}/candidates.json"]
    (kept,) = yield [Script("refine.py", keep_args)]
    kept = json_of(kept)
    verify_args = [f"{run_dir}/candidates.json", *extra, "--out", f"{run_dir}/verified.json"]
    (verified,) = yield [Script("verify_batch.py", verify_args)]
    confirmed = re.findall(r"^(?:CONFIRMED|CORRECTED) (\S+)", verified, re.M)
    unconfirmed = re.findall(r"^UNCONFIRMED (\S+):", verified, re.M)

    # 6. Relevance for what was confirmed (and for the recalled candidates).
    relevance = {
        key: model.relevance(labels.get(key, "a PROBLEM.md reference")) for key in confirmed
    }
    relevance.update(
        {
            key: {"relevance": f"{STAND_IN}: recalled from memory; not verified."}
            for key in unconfirmed
            if key.startswith("memory-")
        }
    )
    yield [Write(f"{run_dir}/relevance.json", json.dumps(relevance, indent=1) + "\n")]

    # 7. Merge.
    merge_args = [
        "merge", "--literature", literature, "--verified", f"{run_dir}/verified.json",
        "--relevance", f"{run_dir}/relevance.json", "--runs", *map(str, run_ids),
    ]  # fmt: skip
    (merged,) = yield [Script("lit_update.py", merge_args)]
    refs = re.findall(r"^(REF-\d+) added:", merged, re.M)
    urefs = re.findall(r"^(UREF-\d+) added:", merged, re.M)

    # 8. Synthesis, then validate.
    (document,) = yield [Read(literature)]
    current = SYNTHESIS_SECTION.search(document).group(2)
    heading = "## Synthesis\n"
    yield [Edit(literature, heading + current, heading + "\n" + model.synthesis(refs, urefs))]
    (validation,) = yield [Script("lit_update.py", ["validate", literature])]

    # 9. Journal entry.
    outcome = "SUCCEEDED" if refs else "FAILED"
    journal_args = [
        "add", "--problem", slug, "--category", "LIT",
        "--strategy", "broad-survey" if first_search else "targeted-search",
        "--outcome", outcome, "--agent", "literature-search",
        "--title", f"{STAND_IN} literature search ({iteration} iteration(s))",
        "--tags", "literature",
        "--tried", f"{len(run_ids)} runs on arXiv and Semantic Scholar, {iteration} iteration(s)",
        "--reasoning", f"{len(confirmed)} candidates confirmed ({len(refs)} new REFs; the rest "
        f"were papers already there or the same paper twice), {len(unconfirmed)} unconfirmed "
        f"({len(urefs)} new UREFs)",
        "--artifacts", "LITERATURE.md", "--related", "PROBLEM.md",
        "--insight", f"{STAND_IN}: {len(refs)} new references; see LITERATURE.md Synthesis",
    ]  # fmt: skip
    (journal,) = yield [Script("journal.py", journal_args)]
    return {
        "run_dir": run_dir,
        "iterations": iteration,
        "run_ids": run_ids,
        "confirmed": confirmed,
        "unconfirmed": unconfirmed,
        "refs": refs,
        "urefs": urefs,
        "validation": json_of(validation),
        "journal": json_of(journal),
        "kept": kept,
    }


def _summary_keys(outputs: list[str], calls: list[Script], script: str) -> dict[str, str]:
    """key -> title from the summary lines the given script's calls printed."""
    found: dict[str, str] = {}
    for output, call in zip(outputs, calls, strict=True):
        if call.name == script:
            for line in output.splitlines():
                if match := SUMMARY_LINE.match(line.strip()):
                    found.setdefault(match.group(1), match.group(4))
    return found


def _script_line(line: str) -> Script:
    name, _, rest = line.partition(" ")
    return Script(name, shlex.split(rest))


def json_of(output: str) -> Any:
    """The JSON document a script printed (a tool result may carry stderr lines after it)."""
    start = min((i for i in (output.find("{"), output.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ValueError(f"no JSON in script output: {output[:200]!r}")
    return json.JSONDecoder().raw_decode(output[start:])[0]
