"""Run /math:literature's whole pipeline on a bundled sample problem, as the agent's runbook does.

    python3 tools/demo_pipeline.py [--workspace DIR | --keep] [--problem PROBLEM.md]
                                   [--world recorded|invented | --live] [--readme]

It creates a fresh workspace (workspace.py init, new-problem from the sample PROBLEM.md), then
plays agents/literature-search.md step by step (tools/literature_runbook.py), running every
script as a subprocess with exactly the arguments the runbook gives (literature.py discover,
judge, verify, merge, finish). The model's judgement steps
are a deterministic STAND-IN, marked as such in everything it writes. By default the
services are a local stand-in server (tests/support/standin.py), so the demo runs offline,
answering from the recorded world (../shared/recordings) when it is beside the clone, else from
the repository's invented world (examples/invented-world/); the header names the world. --live
uses the real services. A temporary workspace is removed at the end unless --keep.

At the end it prints where LITERATURE.md, JOURNAL.md, the run store and the search folder are, and
how many tool calls and turns the run took, and what it cost in model-read tokens: the bytes of
everything the runbook's script calls printed, stdout and stderr (a Bash tool result carries
both), divided by 4, per distinct paper the model read about, against
the raw Atom/JSON pages the same run fetched (what a model calling the APIs with a web-fetch tool
would read instead).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path[:0] = [str(PLUGIN / "scripts"), str(ROOT / "tests"), str(ROOT / "tools")]

from literature_runbook import (  # noqa: E402
    STAND_IN,
    Script,
    StandInModel,
    Write,
    runbook,
)
from support.shared import SharedMissing  # noqa: E402
from support.worlds import INVENTED, RECORDED, world_available  # noqa: E402

SAMPLE = ROOT / "examples" / "sample-problem" / "PROBLEM.md"  # the benchmarks' sample
# The demo's: papers with recorded arXiv LaTeX sources, so Key Results quote the papers' statements.
DEMO_SAMPLE = ROOT / "examples" / "viterbo" / "PROBLEM.md"
REMEMBERED = "remembered.json"  # beside a sample's PROBLEM.md: what the STAND-IN "remembers"
TARGET_READ_CHARS = 20_000  # everything the model reads in one run: prompt, outputs, files
AGENT = PLUGIN / "agents" / "literature-search.md"
HANDOFF = 1  # commands/literature.md's one call: the Agent tool starting literature-search
# What the STAND-IN model "remembers": planted fabrications the verification gate must reject.
PLANTED = (
    {
        "key": "memory-1",
        "title": "Tolerant Uniformity Testing via Good-Turing Estimates",
        "authors": ["Orlitsky"],
        "year": 2017,
        "source": "memory (planted fabrication: an invented title)",
    },
    {
        "key": "memory-2",
        "title": "Optimal Tolerant Uniformity Testing",
        "authors": ["Canonne"],
        "year": 2016,
        "arxiv_id": "1605.08386",
        "source": "memory (planted fabrication: a real arXiv id of another paper)",
    },
)
# Real classics the STAND-IN also "remembers": older work only the mathematical and DOI sources
# confirm, through Crossref (a DOI-only article) and zbMATH Open (a record whose title zbMATH
# withholds under its licence).
CLASSICS = (
    {
        "key": "memory-3",
        "title": "Approximation by superpositions of a sigmoidal function",
        "authors": ["Cybenko"],
        "year": 1989,
        "doi": "10.1007/BF02551274",
        "source": "memory (a real classic: Crossref holds it)",
    },
    {
        "key": "memory-4",
        "title": "A 1952 note in the American Mathematical Monthly",
        "authors": ["Ore"],
        "year": 1952,
        "doi": "10.2307/2306804",
        "source": "memory (a real classic: zbMATH Open holds it, licence-restricted)",
    },
)


# The README's session is what `bash tools/run-demo` prints in a clone without ../shared.
README_WORLD = INVENTED
# Issue 50: two problems no other bench holds, each searched, rerun plainly, then with focus
# words, with arXiv and Semantic Scholar answering and the other services down.
UNSEEN = {
    ROOT / "bench" / "data" / "followups" / "turing-complete-euler" / "PROBLEM.md": (
        "",
        "undecidable fluid dynamics",
    ),
    ROOT / "bench" / "data" / "followups" / "binary-hypothesis-testing" / "PROBLEM.md": (
        "",
        "Chernoff-Stein exponent",
    ),
}
UNSEEN_DOWN = ("zbmath", "crossref", "openalex", "arxiv src")


def unseen_follow_ups(live: bool) -> list[tuple[str, dict]]:
    """Each UNSEEN problem's run with its follow-ups (run_demo's figures), by problem name."""
    done = []
    for problem, focuses in UNSEEN.items():
        with tempfile.TemporaryDirectory(prefix="math-bench-") as folder:
            figures = run_demo(
                Path(folder) / "ws", problem, live, say=lambda _line: None,
                follow_ups=focuses, down=() if live else UNSEEN_DOWN,
            )  # fmt: skip
        done.append((problem.parent.name, figures))
    return done


def papers_twice(text: str) -> int:
    """Entries of LITERATURE.md that are a paper another entry already is (by its identity
    keys and the title and authors a whole citation gives)."""
    from mathtools.litdoc import Index, parse_literature

    doc = parse_literature(text)
    index = Index(parse_literature(text))
    twice = 0
    for entry in doc.confirmed + doc.unconfirmed:
        for kind in ("REF", "UREF"):
            other = index.cited(kind, {"title": entry.title, "authors": entry.authors})
            if other is not None and other.entry_number != entry.entry_number:
                twice += 1
    return twice // 2


def sections_lost(before: str, after: str) -> int:
    """Synthesis headings, claims and the warning of `before` no longer in `after`."""
    from mathtools.litdoc import parse_literature

    old = parse_literature(before).synthesis if before else ""
    new = parse_literature(after).synthesis
    lines = [x.strip() for x in old.splitlines() if x.strip().startswith(("### ", "- ", "> **"))]
    return sum(line not in {x.strip() for x in new.splitlines()} for line in lines)


def default_world() -> str:
    """The recorded world when ../shared/recordings is beside the clone, else the invented one."""
    return RECORDED if world_available(RECORDED) else INVENTED


def remembered(problem_file: Path) -> tuple[dict, ...]:
    """What the STAND-IN recalls for a sample: its remembered.json (planted fabrications the gate
    must reject), else the tolerant-testing sample's fabrications and classics."""
    path = problem_file.parent / REMEMBERED
    if path.exists():
        return tuple(json.loads(path.read_text(encoding="utf-8")))
    return PLANTED + CLASSICS


def refining_model() -> StandInModel:
    """A STAND-IN whose search refines once: no strong hit in iteration 1 (it would need 99 shared
    words), then one word makes a new paper strong, and its one refined query finds one in the
    recordings."""
    return StandInModel(strong_at=(99, 1), proposals=("tolerant testing",), recalled=PLANTED)


class DemoError(RuntimeError):
    pass


class Workspace:
    """A fresh workspace folder and the environment the scripts run in."""

    def __init__(self, folder: Path, env: dict[str, str]):
        self.folder = folder
        self.env = env
        # Bytes the model reads back, stdout and stderr, by script and subcommand (runbook calls).
        self.output_bytes: Counter[str] = Counter()
        self.read_chars = 0  # characters the model reads back: script outputs and files read
        self.calls = 0  # script calls
        self.tool_calls = 0  # every call of the runbook: scripts, reads, writes
        self.turns = 0  # turns of calls (calls that run together count once)

    def run_script(self, name: str, args: list[str], counted: bool = True) -> str:
        proc = subprocess.run(
            [sys.executable, str(PLUGIN / "scripts" / name), *args],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if counted:
            command = args[0] if args and not args[0].startswith(("-", ".")) else ""
            printed = len(proc.stdout.encode("utf-8")) + len(proc.stderr.encode("utf-8"))
            self.output_bytes[f"{name} {command}".strip()] += printed
            self.read_chars += len(proc.stdout) + len(proc.stderr)
            self.calls += 1
        if proc.returncode not in (0, 1):  # 1: validate found violations (checked by the caller)
            raise DemoError(f"{name} {' '.join(args)}: exit {proc.returncode}\n{proc.stdout}")
        return proc.stdout

    def carry_out(self, call) -> str:
        """What one runbook call does, and the text the model would get back."""
        if isinstance(call, Script):
            return self.run_script(call.name, call.args)
        path = self.folder / call.path
        from mathtools.core.files import atomic_write

        assert isinstance(call, Write)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, call.content)
        return ""


def problem_parts(problem_file: Path) -> tuple[dict, str]:
    """(frontmatter, body) of a PROBLEM.md; a plain file without frontmatter is all body, its
    title the first heading or line, its slug made from the title."""
    from mathtools.core import frontmatter
    from mathtools.core.slugs import slugify

    meta, body = frontmatter.split_frontmatter(
        problem_file.read_text(encoding="utf-8"), str(problem_file)
    )
    if not meta.get("title"):
        first = next((line for line in body.splitlines() if line.strip()), "")
        meta["title"] = first.lstrip("#").strip() or problem_file.stem
        if first.startswith("#"):
            body = body.replace(first, "", 1)
    if "# Problem Statement" not in body:  # a plain file is the statement itself
        body = "# Problem Statement\n\n" + body.strip() + "\n"
    meta.setdefault("slug", slugify(str(meta["title"])))
    return meta, body


def create_problem(workspace: Workspace, problem_file: Path) -> str:
    """workspace.py init and new-problem from a PROBLEM.md (the user's intake, not counted)."""
    meta, body = problem_parts(problem_file)
    body_file = workspace.folder / ".demo-problem-body.md"
    body_file.write_text(body, encoding="utf-8")
    workspace.run_script("workspace.py", ["init"], counted=False)
    created = workspace.run_script(
        "workspace.py",
        [
            "new-problem",
            "--title", str(meta["title"]),
            "--slug", str(meta["slug"]),
            "--domain", str(meta.get("domain") or "other"),
            "--subdomain", str(meta.get("subdomain") or ""),
            "--type", str(meta.get("type") or "exploration"),
            "--output-type", str(meta.get("output_type") or "note"),
            "--tags", ",".join(meta.get("tags") or []),
            "--body", f"@{body_file}",
        ],
        counted=False,
    )  # fmt: skip
    body_file.unlink()
    return json.loads(created)["slug"] if created.strip().startswith("{") else str(meta["slug"])


def play(
    workspace: Workspace,
    slug: str,
    model: StandInModel,
    say=print,
    per_query: int | None = None,
    gap: bool = False,
    focus: str | None = None,
) -> dict:
    """Drive the runbook to its end, carrying out each call; returns its summary."""
    steps = runbook(slug, model, focus=focus, per_query=per_query, gap=gap)
    outputs = None
    while True:
        try:
            turn = steps.send(outputs) if outputs is not None else next(steps)
        except StopIteration as done:
            return done.value
        for call in turn:
            say(f"  {describe(call)}")
        workspace.turns += 1
        workspace.tool_calls += len(turn)
        outputs = [workspace.carry_out(call) for call in turn]


def describe(call) -> str:
    if isinstance(call, Script):
        text = f"$ {call.name} {' '.join(call.args)}"
        return text if len(text) <= 110 else text[:109] + "…"
    return f"{type(call).__name__.lower()} {call.path}"


def raw_page_bytes(cache_dir: Path) -> tuple[int, int]:
    """(responses, body bytes) the run fetched: every answer the HTTP layer cached."""
    path = cache_dir / "http-cache.sqlite"
    if not path.exists():
        return 0, 0
    with contextlib.closing(sqlite3.connect(path)) as db:
        query = "SELECT COUNT(*), COALESCE(SUM(LENGTH(body)), 0) FROM responses"
        count, size = db.execute(query).fetchone()
    return count, size


def run_demo(
    folder: Path,
    problem_file: Path,
    live: bool,
    say=print,
    per_query: int | None = None,
    model: StandInModel | None = None,
    proof: Path | None = None,
    world: str = RECORDED,
    follow_ups: tuple[str, ...] = (),
    down: tuple[str, ...] = (),
    follow_up_model: StandInModel | None = None,
) -> dict:
    """The whole demo in `folder`; returns the figures (also used by bench/). `per_query` is
    discover's results per search (default: the runbook's); `model` the STAND-IN to play (default:
    one that recalls the planted fabrications); `proof` a PROOF.md whose next reference-needed gap
    the search takes (the runbook's task after a proof loop); `follow_ups` the focus words of
    follow-up searches played after it, each measured on its own (`follow_ups` in the figures:
    its focus, tool calls, turns and characters read, from the command's start; "" a plain
    rerun), each played by a copy of `follow_up_model` (default: a fresh STAND-IN recalling what
    the first did); `down` the stand-in's services that fail all along (StandIn.fail's names)."""
    import os

    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        raise DemoError(f"{folder} is not empty: the demo needs a fresh workspace folder")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MATH_")}
    env["MATH_CACHE_DIR"] = str(folder / ".demo-http-cache")  # fresh: every page is fetched
    with contextlib.ExitStack() as stack:
        if not live:
            from support.standin import StandIn

            standin = stack.enter_context(StandIn(world=world))
            env.update(standin.env())
            env["MATH_ARXIV_MIN_INTERVAL"] = env["MATH_S2_MIN_INTERVAL"] = "0"  # a local server
            for service in down:
                standin.fail(service)
            if down:  # what the model reads is counted, not seconds: retry lines kept, waits short
                env["MATH_HTTP_BACKOFF"] = "0.1"
            # The rate limits' state of this run alone (the stand-in is no real service to spare):
            # the user's other processes (tests, other runs) made its limiter wait, and say so,
            # at random.
            runtime = folder / ".demo-runtime"
            runtime.mkdir(mode=0o700)
            env["XDG_RUNTIME_DIR"] = str(runtime)
        workspace = Workspace(folder, env)
        slug = create_problem(workspace, problem_file)
        model = model or StandInModel(recalled=remembered(problem_file))
        started = time.monotonic()
        if proof:
            shutil.copyfile(proof, folder / ".math" / "problems" / slug / "PROOF.md")
        summary = play(workspace, slug, model, say, per_query, gap=proof is not None)
        elapsed = time.monotonic() - started
        first = (workspace.tool_calls, workspace.turns, workspace.read_chars)
        first_literature = literature_text(folder, slug)
        later = []
        for focus in follow_ups:
            before = (workspace.tool_calls, workspace.turns, workspace.read_chars)
            again = (
                dataclasses.replace(follow_up_model)
                if follow_up_model
                else StandInModel(recalled=remembered(problem_file))
            )
            done = play(workspace, slug, again, say, per_query, focus=focus)
            later.append(
                {
                    "focus": focus,
                    "summary": done,
                    "tool_calls": workspace.tool_calls - before[0] + HANDOFF,
                    "turns": workspace.turns - before[1] + HANDOFF,
                    "read_chars": agent_prompt_chars() + workspace.read_chars - before[2],
                    "literature": literature_text(folder, slug),
                }
            )
    responses, raw = raw_page_bytes(folder / ".demo-http-cache")
    printed = sum(workspace.output_bytes.values())
    problem_dir = folder / ".math" / "problems" / slug
    verified = json.loads((folder / summary["search_folder"] / "verified.json").read_text())
    return {
        "verified": verified,
        "confirmed_by": {
            source: [r["key"] for r in verified["results"] if source in r.get("sources", [])]
            for source in ("zbmath", "crossref")
        },
        "workspace": str(folder),
        "literature": str(problem_dir / "LITERATURE.md"),
        "journal": str(problem_dir / "JOURNAL.md"),
        "run_store": str(folder / ".math" / "literature.db"),
        "search_folder": str(folder / summary["search_folder"]),
        "summary": summary,
        "script_calls": workspace.calls,
        # From the command's start: its hand-off to the agent is one more call and turn.
        "tool_calls": first[0] + HANDOFF,
        "turns": first[1] + HANDOFF,
        "seconds": round(elapsed, 1),
        "candidates": summary["seen"],  # distinct papers the model read about
        "output_bytes": dict(workspace.output_bytes),
        "output_tokens": printed // 4,
        "raw_responses": responses,
        "read_chars": agent_prompt_chars() + first[2],
        "raw_tokens": raw // 4,
        "follow_ups": later,
        "first_literature": first_literature,
    }


def literature_text(folder: Path, slug: str) -> str:
    """The problem's LITERATURE.md as a search left it ("" before the first merge)."""
    path = folder / ".math" / "problems" / slug / "LITERATURE.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def agent_prompt_chars() -> int:
    """The literature-search agent's prompt as the model gets it: its body (the frontmatter is
    Claude Code's), with the command's hand-off prompt."""
    from mathtools.core import frontmatter

    _, body = frontmatter.split_frontmatter(AGENT.read_text(encoding="utf-8"), str(AGENT))
    command = (PLUGIN / "commands" / "literature.md").read_text(encoding="utf-8")
    handoff = "\n".join(line for line in command.splitlines() if line.startswith("> "))
    return len(body) + len(handoff)


def findings(figures: dict) -> list[str]:
    """What the search found, as a mathematician reads it: each confirmed paper's title, why each
    unconfirmed one is not cited, and the Key Results quoted from the papers' own sources."""
    from mathtools.litdoc import literature

    out = ["", "confirmed:"]
    for result in figures["verified"]["results"]:
        paper = result.get("paper") or {}
        if result["status"] in ("CONFIRMED", "CORRECTED") and paper:
            year = paper.get("year") or "????"
            out.append(f"  {result['status']} {result['key']} ({year}) {paper.get('title')}")
    out.append("not cited (UNCONFIRMED):")
    for result in figures["verified"]["results"]:
        if result["status"] == "UNCONFIRMED":
            given = (result.get("candidate") or {}).get("title") or result["key"]
            out.append(f'  {result["key"]} "{given}": {" ".join(str(result["reason"]).split())}')
    quoted = [
        e for e in literature.load_literature(figures["literature"]).confirmed if e.statements()
    ]
    if quoted:
        out.append("Key Results quoted from the papers' own LaTeX sources:")
    for entry in quoted:
        out.append(f"  {entry.entry_number} {entry.title}")
        out.append(f"    Key Results: {entry.key_results}")
        for printed, text in entry.statements().items():
            words = text.split()
            said = " ".join(words[:24]) + ("…" if len(words) > 24 else "")
            out.append(f"    {printed} (from {entry.statements_source}): {said}")
    return out


def report(figures: dict) -> list[str]:
    summary = figures["summary"]
    n = max(figures["candidates"], 1)
    valid = "valid" if summary["finish"].get("valid") else "INVALID"
    per_read = figures["output_tokens"] / n
    return [
        *findings(figures),
        "",
        "results:",
        f"  LITERATURE.md  {figures['literature']}",
        f"                 {len(summary['refs'])} new REF, {len(summary['urefs'])} new UREF;"
        f" {valid}",
        f"  JOURNAL.md     {figures['journal']}  ({summary['finish'].get('journal', 'no entry')})",
        f"  run store      {figures['run_store']}  ({summary['iterations']} iteration(s))",
        f"  search folder     {figures['search_folder']}",
        f"  zbMATH Open    confirmed {', '.join(figures['confirmed_by']['zbmath']) or 'none'}",
        f"  Crossref       confirmed {', '.join(figures['confirmed_by']['crossref']) or 'none'}",
        "",
        f"{figures['tool_calls']} tool calls in {figures['turns']} turns from the command's start"
        f" ({figures['script_calls']} script calls)",
        f"tokens the model reads, per distinct paper ({figures['candidates']} papers):",
        f"  script output / 4  {figures['output_tokens']:>7} tokens {per_read:>7.1f} per paper",
        f"model reads in all: {figures['read_chars']} characters (target <= {TARGET_READ_CHARS}:"
        f" {'met' if figures['read_chars'] <= TARGET_READ_CHARS else 'NOT met'})",
        f"  raw API pages / 4  {figures['raw_tokens']:>7} tokens"
        f" {figures['raw_tokens'] / n:>7.1f} per paper"
        f"  ({figures['raw_responses']} responses a web-fetch model would read)",
        "  output bytes (stdout + stderr) by call: "
        + ", ".join(f"{k} {v}" for k, v in sorted(figures["output_bytes"].items())),
    ]


def session_example(figures: dict) -> list[str]:
    """The README session's `/math:literature` lines this run bears out: the papers judged, what
    was confirmed and by whom, the fabrications left unconfirmed, the first quoted Key Result,
    the journal entry, the tool calls. `tools/demo_pipeline.py --readme` writes them into
    README.md; tests/test_demo.py keeps them equal to a run on the invented world, what
    `bash tools/run-demo` prints in a clone (README_WORLD)."""
    from mathtools.litdoc import literature

    summary = figures["summary"]
    rounds = summary["iterations"]
    found = (
        f"searched: {summary['listed']} papers found, each judged from its title and abstract"
        f" ({rounds} iteration{'' if rounds == 1 else 's'})"
    )
    confirmed = []
    for result in figures["verified"]["results"]:
        paper = result.get("paper") or {}
        if result["status"] in ("CONFIRMED", "CORRECTED") and paper:
            names = [str(a).split()[-1] for a in paper.get("authors") or []]
            who = " and ".join(names) if len(names) <= 2 else f"{names[0]} et al."
            confirmed.append(f'{who}, "{paper.get("title")}"')
    fabricated = [r for r in figures["verified"]["results"] if r["key"].startswith("memory-")]
    verified = (
        f"verified: {len(summary['refs'])} confirmed → {', '.join(summary['refs'])}"
        f" ({'; '.join(confirmed)}); {len(summary['urefs'])} remembered but fabricated"
        f" → {', '.join(summary['urefs'])}"
        if len(fabricated) == len(summary["urefs"])
        else f"verified: {len(summary['refs'])} confirmed, {len(summary['urefs'])} unconfirmed"
    )
    items = [found, verified]
    quoted = [
        e for e in literature.load_literature(figures["literature"]).confirmed if e.statements()
    ]
    if quoted:
        claim = quoted[0].key_results.split("quoting the paper: ", 1)[-1]
        items.append(f"Key Results quote the papers' own statements, checked: {claim}")
    journal = summary["finish"].get("journal", "no entry")
    items.append(f"LITERATURE.md with a Synthesis marked [V]/[S]/[~]; JOURNAL.md: {journal}")
    items.append(
        f"{figures['tool_calls']} tool calls from the command's start to the agent's report"
    )
    return [
        line
        for item in items
        for line in textwrap.wrap(
            item, width=96, initial_indent="  → ", subsequent_indent="    ", break_long_words=False
        )
    ]


def readme_with_session(readme: str, lines: list[str]) -> str:
    """README.md with its session's generated `/math:literature` lines (every line after
    `> /math:literature`, to the tool calls) replaced by `lines`."""
    generated = re.compile(
        r"(?<=^> /math:literature\n)  → .*?tool calls from the command's start[^\n]*\n",
        re.M | re.S,
    )
    if not generated.search(readme):
        raise DemoError("README.md has no lines under '> /math:literature' to the tool calls")
    return generated.sub(lambda _: "\n".join(lines) + "\n", readme, count=1)


def world_line(world: str | None) -> str:
    """What the services are in this run, as the demo's header says it."""
    from mathtools.core.sources import NAMES

    services = ", ".join(NAMES.values())
    if world is None:
        return f"the LIVE services ({services})"
    if world == INVENTED:
        return (
            f"the INVENTED world: a local stand-in serving {services} from papers this"
            " repository made up (examples/invented-world/; none of them exists)"
        )
    return (
        f"the RECORDED world: a local stand-in serving recorded answers of {services}"
        " (../shared/recordings) and the Viterbo sample's records (examples/viterbo/)"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="run-demo", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--workspace", type=Path, help="a new or empty folder, kept (default: a temporary one)"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary workspace (default: removed)"
    )
    parser.add_argument(
        "--problem",
        type=Path,
        default=DEMO_SAMPLE,
        help="the PROBLEM.md to search (a plain"
        " markdown file will do: its first line is the title)",
    )
    parser.add_argument(
        "--world",
        choices=(RECORDED, INVENTED),
        help="the stand-in's world: the recordings in ../shared (the default when they are"
        " there) or the repository's invented papers (the default without them)",
    )
    parser.add_argument("--live", action="store_true", help="use the real services instead")
    parser.add_argument(
        "--readme",
        action="store_true",
        help="write this run's lines into README.md's session example (maintainers: after a"
        " change of what the demo prints; a run on the invented world, which every clone has)",
    )
    args = parser.parse_args(argv)
    if args.live and args.world:
        parser.error("--live uses the real services: no --world")
    if args.readme and (args.live or args.world not in (None, README_WORLD)):
        parser.error(f"--readme writes a run on the {README_WORLD} world: no --live or --world")
    world = None if args.live else args.world or (README_WORLD if args.readme else default_world())
    temporary = args.workspace is None
    folder = args.workspace or Path(tempfile.mkdtemp(prefix="math-demo-"))
    print(f"math demo: /math:literature on {args.problem} in {folder}")
    print(f"  services: {world_line(world)}")
    print(f"  NOTE: the model's judgement steps are a deterministic {STAND_IN}"
          " (tools/literature_runbook.py), not a model; its texts say so.")  # fmt: skip
    try:
        figures = run_demo(folder, args.problem, args.live, world=world or RECORDED)
        print("\n".join(report(figures)))
        if args.readme:
            readme = ROOT / "README.md"
            text = readme.read_text(encoding="utf-8")
            readme.write_text(readme_with_session(text, session_example(figures)), "utf-8")
            print("README.md: the session example's /math:literature lines written")
    except DemoError as exc:
        print(f"demo failed: {exc}", file=sys.stderr)
        return 1
    except SharedMissing as exc:  # --world recorded without ../shared/recordings
        print(f"demo: {exc}", file=sys.stderr)
        return 4
    finally:
        removed = temporary and not args.keep
        if removed:
            shutil.rmtree(folder, ignore_errors=True)
        print(f"workspace {folder}: " + ("removed (--keep keeps it)" if removed else "kept"))
    return 0 if figures["summary"]["finish"].get("valid") else 1


if __name__ == "__main__":
    raise SystemExit(main())
