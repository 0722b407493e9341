#!/usr/bin/env python3
"""Tool calls and characters the model reads in /math:research on a run shaped like the
tournament one (every tournament has a Hamiltonian path; their number is odd), from the
command's start to DONE, as the real host (Claude Code) needs them.

The runbooks are played as written (commands/research.md and agents/literature-search.md,
proof.md, computation.md, referee.md, latex-writer.md): every call they prescribe, run for real
against the plugin's scripts in a temporary workspace, with the agents' writing played by this
script (tests/support/tournament.py). The run: the literature stage (the recorded pipeline of
bash tools/run-demo on the benchmarks' sample, tools/demo_pipeline.py, whose calls and reads
stand in for the search, since no service recording holds the tournament papers); the proof
agent's first strategy (a case analysis) fails and its second (induction) asks for two
computations; the computation agent answers both; the proof agent finishes; the referee checks
every step; the writer writes, checks and compiles.

Claude Code attaches no file to an agent's prompt, so each agent reads its inputs: its first
call is `state.py brief` (the writer's also writes references.bib), and it Reads only the file it
Edits (PROOF.md on the proof agent's second pass, whose brief holds only what revising it needs;
Claude Code wants a Read before an Edit of a file the agent did not write). The proof agent runs
no `journal.py check` while the brief says no dead end is recorded, and journals a dropped
strategy and the next in one `journal.py add`; the computation agent runs both requests in one
`compute.py run` and interprets and journals them in one `compute.py interpret` (--and). After
each agent the plugin's PostToolUse hook runs the orchestrator's step 1 (hooks/after_agent.py):
its line (`state.py advance`'s, with the hook's one-line head) is read, and no call made. A
call is one tool call (a script, a Read, a Write, an Agent hand-off). The characters read are
every agent's runbook (its system prompt) and prompt, the command's body, every script's stdout
and stderr, every file Read (with Claude Code's line-number prefix, 7 characters a line), each
Write's acknowledgement and each agent's report as the orchestrator gets it. A reference the
runbooks read on demand (protocols/research-stops.md at a stop, computation-outcomes.md after a
run that is not ok, latex-outcomes.md after a compile with no PDF) is Read only when they say.

  .venv/bin/python bench/bench_research_turns.py [--calls]

--calls lists each call and text counted (the brief way), with its characters.
Targets (issue 51): at most 40 tool calls and 90,000 characters read.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
SCRIPTS = PLUGIN / "scripts"
sys.path[:0] = [str(SCRIPTS), str(ROOT / "tests"), str(ROOT / "tools")]

from mathtools.core import frontmatter  # noqa: E402
from mathtools.research.afteragent import CONTEXT_HEAD  # noqa: E402
from mathtools.research.statechanges import record_search  # noqa: E402
from support import tournament as t  # noqa: E402

TARGET_CALLS = 40  # issue 51's
TARGET_CHARS = 90_000
# The issue's walk of the tournament run, played to the letter with the runbooks of that time:
# agents Reading the inputs their prompt's @ lines never attached, and the protocols whole.
ISSUE_RUN = {"calls": 75, "chars": 219_000}
REPORT = "A three-to-six-line report of the pass: status, flags, what changed, what is open. " * 3


def runbook(kind: str, name: str) -> str:
    """A command's or agent's body as the model gets it (the frontmatter is Claude Code's)."""
    path = PLUGIN / kind / f"{name}.md"
    return frontmatter.split_frontmatter(path.read_text(encoding="utf-8"), str(path))[1]


class Player:
    """Runs the calls the runbooks prescribe and counts them, and what they print, by agent."""

    def __init__(self, cwd: Path, mode: str) -> None:
        self.cwd = cwd
        self.mode = mode
        self.calls: dict[str, int] = {}
        self.chars: dict[str, int] = {}
        self.who = "orchestrator"
        self.log: list[tuple[str, int, int, str]] = []  # (who, calls, chars, what): --calls

    def count(self, calls: int = 0, chars: int = 0, what: str = "") -> None:
        self.calls[self.who] = self.calls.get(self.who, 0) + calls
        self.chars[self.who] = self.chars.get(self.who, 0) + chars
        self.log.append((self.who, calls, chars, what))

    def bash(self, name: str, *args: str, head: str | None = None) -> str:
        """A script's call; with `head`, its line as the plugin's hook hands it on after an agent
        (under that head): read, and no call made."""
        run = subprocess.run(
            [sys.executable, str(SCRIPTS / name), *args],
            cwd=self.cwd,
            capture_output=True,
            text=True,
            check=False,
        )
        read = len(run.stdout) + len(run.stderr)
        if head is None:
            self.count(1, read, f"{name} {args[0]}")
        else:
            self.count(0, len(head) + 1 + read, "hook: advance's line")
        if run.returncode:
            raise SystemExit(f"{name} {' '.join(args)}: exit {run.returncode}\n{run.stdout}")
        return run.stdout

    def json(self, name: str, *args: str, head: str | None = None) -> dict:
        return json.loads(self.bash(name, *args, head=head))

    def write(self, path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.count(1, len(f"File created successfully at: {path}"), f"Write {path.name}")

    def read(self, path: Path) -> str:
        text = path.read_text(encoding="utf-8")
        self.count(1, len(text) + 7 * text.count("\n"), f"Read {path.name}")
        return text


def journal(
    p: Player, category: str, strategy: str, outcome: str, agent: str, then: str = ""
) -> None:
    """One journal.py add; with `then`, the PARTIAL entry of the strategy that followed, after
    --and in the same call (agents/proof.md § 4)."""
    after = ["--and", "--strategy", then, "--outcome", "PARTIAL", "--title", f"{then}: partial",
             "--insight", "insertion does it"] if then else []  # fmt: skip
    p.bash(
        "journal.py", "add", "--problem", t.SLUG, "--category", category, "--strategy", strategy,
        "--outcome", outcome, "--title", f"{strategy}: {outcome.lower()}", "--tags", t.TAGS,
        "--tried", "see PROOF.md", "--reasoning", "see PROOF.md",
        "--insight", t.DEAD_END_INSIGHT if outcome == "FAILED" else "insertion does it",
        "--artifacts", "PROOF.md", "--agent", agent, *after,
    )  # fmt: skip


# The other way measured: each agent Reads its input files whole (those of the five the old
# @ lines named that exist) and the protocols and templates its runbook then sent it to.
READS = {
    "proof": ("PROBLEM.md", "LITERATURE.md", "PROOF.md", "COMPUTATION.md", "REVIEW.md",
              "JOURNAL.md", "NOTATION.md", "protocols/journal-protocol.md",
              "protocols/confidence-tiers.md", "protocols/proof-format.md",
              "templates/PROOF.md"),
    "computation": ("PROBLEM.md", "PROOF.md", "COMPUTATION.md", "protocols/journal-protocol.md"),
    "referee": ("PROBLEM.md", "PROOF.md", "LITERATURE.md", "COMPUTATION.md", "REVIEW.md",
                "templates/REVIEW.md"),
    "latex-writer": ("PROBLEM.md", "LITERATURE.md", "PROOF.md", "REVIEW.md", "COMPUTATION.md",
                     "NOTATION.md", "references.bib", "templates/OUTPUT.tex",
                     "protocols/confidence-tiers.md"),
}  # fmt: skip
MODES = ("brief", "reads")


def brief(p: Player, agent: str) -> str:
    """The agent's inputs: its brief (one call), or in the `reads` mode every file Read whole
    (the template of a file that exists is not read)."""
    if p.mode == "brief":
        return p.bash("state.py", "brief", "--for", agent, "--problem", t.SLUG)
    folder = p.cwd / ".math" / "problems" / t.SLUG
    for name in READS[agent]:
        path = PLUGIN / name if "/" in name else folder / name
        if path.exists() and not (name.startswith("templates/") and (folder / path.name).exists()):
            p.read(path)
    return f"now: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"


def literature_agent(p: Player, folder: Path) -> None:
    """The literature stage: the recorded pipeline's calls and reads (its runbook and hand-off
    included), then the tournament's LITERATURE.md, recorded as `literature.py finish` does."""
    from demo_pipeline import HANDOFF, SAMPLE, run_demo

    with tempfile.TemporaryDirectory(prefix="math-bench-lit-") as tmp:
        figures = run_demo(Path(tmp) / "ws", SAMPLE, live=False, say=lambda *_: None)
    p.count(figures["tool_calls"] - HANDOFF, figures["read_chars"], "the recorded pipeline")
    t.write_literature(folder)
    record_search(folder, t.SLUG, "LIT-001: 2 confirmed references")


def proof_agent(p: Player, folder: Path) -> None:
    p.count(0, len(runbook("agents", "proof")), "agents/proof.md")
    text = brief(p, "proof")
    now = text.split("now: ", 1)[1].split()[0]
    if not (folder / "PROOF.md").exists():  # the first pass: the case analysis fails
        # no check when the brief's dead ends say "none recorded" (agents/proof.md § 2)
        for strategy in () if "none recorded" in text else ("case-analysis", "induction"):
            p.bash(
                "journal.py", "check", "--problem", t.SLUG, "--strategy", strategy,
                "--tags", t.TAGS,
            )  # fmt: skip
        p.write(folder / "PROOF.md", t.proof("asking", now))
        journal(p, "PROOF", "case-analysis", "FAILED", "proof", then="induction")
        return
    if p.mode == "brief":  # read whole above otherwise
        p.read(folder / "PROOF.md")  # Claude Code's Edit of a file wants a Read first
    p.write(folder / "PROOF.md", t.proof("done", now))
    journal(p, "PROOF", "induction", "SUCCEEDED", "proof")


def computation_agent(p: Player, folder: Path) -> None:
    """Both requests' snippets written, then run in one call and interpreted (with their
    journal entries) in one call, each after --and (agents/computation.md § 2)."""
    p.count(0, len(runbook("agents", "computation")), "agents/computation.md")
    brief(p, "computation")
    shared = ["--python", sys.executable, "--problem", t.SLUG]  # the first's, taken by the next
    run_args: list[str] = []
    for request in (1, 2):
        snippet = folder / "computations" / f"request-{request}.py"
        p.write(snippet, t.SNIPPETS[request])
        run_args += [
            *(["--and"] if run_args else []), str(snippet), "--request", str(request),
            "--title", f"h(T), request {request}", "--purpose", "the parity of h(T)",
            *([] if run_args else shared),
        ]  # fmt: skip
    runs = json.loads(p.bash("compute.py", "run", *run_args))
    if any(run.get("outcome") != "ok" for run in runs):  # § 2 step 3: then its reference
        p.read(PLUGIN / "protocols" / "computation-outcomes.md")
    said: list[str] = []
    for request, run in enumerate(runs, 1):
        said += [
            *(["--and"] if said else []), str(run["recorded"]["computation"]),
            "--text", t.INTERPRETATIONS[request], "--refutes", "none", "--result", "all odd",
            "--implication", "supports Step 2", "--strategy", "exhaustive-search",
            "--outcome", "SUCCEEDED", *([] if said else ["--tags", t.TAGS, "--problem", t.SLUG]),
        ]  # fmt: skip
    p.bash("compute.py", "interpret", *said)


def referee_agent(p: Player, folder: Path) -> None:
    p.count(0, len(runbook("agents", "referee")), "agents/referee.md")
    brief(p, "referee")
    p.write(folder / "REVIEW.md", t.REVIEW)
    p.bash("review.py", "seal", "--problem", t.SLUG)


def writer_agent(p: Player, folder: Path) -> None:
    p.count(0, len(runbook("agents", "latex-writer")), "agents/latex-writer.md")
    if p.mode == "reads":  # the bibliography is its own call there; the brief writes it
        p.json("bib_export.py", "--problem", t.SLUG)
    brief(p, "latex-writer")
    bib = (folder / "references.bib").read_text(encoding="utf-8")
    key = bib.split("{", 1)[1].split(",", 1)[0]  # REF-001's, the first entry
    p.write(folder / "OUTPUT.tex", t.TEX.replace("KEY", key))
    checked = json.loads(p.bash("latex.py", "check", "--compile", "--problem", t.SLUG))
    if not (checked.get("compile") or {}).get("compiled"):  # § 3: then its reference
        p.read(PLUGIN / "protocols" / "latex-outcomes.md")


AGENTS = {
    "math:literature-search": literature_agent,
    "math:proof": proof_agent,
    "math:computation": computation_agent,
    "math:referee": referee_agent,
    "math:latex-writer": writer_agent,
}


def play(cwd: Path, mode: str) -> tuple[Player, list[str], str]:
    folder = t.new_problem(cwd)  # /math:init, /math:problem, /math:notation: not counted
    p = Player(cwd, mode)
    p.count(0, len(runbook("commands", "research")), "commands/research.md")
    spawned = []
    for _ in range(12):
        p.who = "orchestrator"
        # after an agent the plugin's hook runs step 1: its line is read, no call made
        step = p.json(
            "state.py", "advance", "--problem", t.SLUG, head=CONTEXT_HEAD if spawned else None
        )
        if step["action"] == "ask_user":  # step 5: the stops are read only then
            p.read(PLUGIN / "protocols" / "research-stops.md")
        if step["action"] != "spawn":
            break
        # step 3's Agent call: the slug, the folder and the task; then the agent's report
        prompt = f"Problem `{step['problem']}`, folder {step['dir']}\nTask: {step['task']}"
        p.count(1, len(REPORT), f"Agent {step['spawn']}: its report")
        spawned.append(step["spawn"])
        p.who = step["spawn"]
        p.count(0, len(prompt), "its prompt")
        time.sleep(0.01)  # what the agent writes is newer than the state's entry
        AGENTS[step["spawn"]](p, folder)
    return p, spawned, step["state"]


def main() -> int:
    figures = {}
    try:
        for mode in MODES:
            with tempfile.TemporaryDirectory(prefix="math-bench-") as tmp:
                figures[mode] = play(Path(tmp) / "ws", mode)
    except RuntimeError as exc:  # support.shared: no recordings beside the clone
        if "needs ../shared/" not in str(exc):
            raise
        print(f"bench_research_turns: {exc}", file=sys.stderr)
        return 0
    p, spawned, state = figures["brief"]
    reads = figures["reads"][0]
    calls, chars = sum(p.calls.values()), sum(p.chars.values())
    print("/math:research on the tournament problem (the literature stage, one failed strategy,")
    print("two computations, a review, a write-up), from the command's start to DONE:")
    print(f"{'':20}{'issue run':>11}{'Reads':>10}{'brief':>10}{'target':>12}")
    met = True
    for label, key, now, target in (
        ("tool calls", "calls", calls, TARGET_CALLS),
        ("characters read", "chars", chars, TARGET_CHARS),
    ):
        ok = now <= target and state == "DONE"
        met = met and ok
        other = sum(getattr(reads, key).values())
        print(
            f"{label:20}{ISSUE_RUN[key]:>11,}{other:>10,}{now:>10,}{f'<= {target:,}':>12} "
            f"{'met' if ok else 'NOT met'}"
        )
    print(f"{calls} tool calls (target <= {TARGET_CALLS}); ended in {state}")
    print(f"  {'by (brief; Reads)':22}{'calls':>12}{'characters':>18}")
    for who, n in p.calls.items():
        print(f"  {who:22}{n:>6};{reads.calls[who]:>4}{p.chars[who]:>10,};{reads.chars[who]:>8,}")
    print("  agents run: " + ", ".join(spawned))
    if "--calls" in sys.argv[1:]:  # where the characters go, call by call (brief)
        for who, n, size, what in p.log:
            print(f"    {who:22}{n:>3}{size:>8,}  {what}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
