#!/usr/bin/env python3
"""Tool calls /math:research needs on a problem shaped like the derangements one (issue: "D_n is
the integer nearest n!/e", 83 tool calls), from the command's start to DONE.

The runbooks are played as written (commands/research.md and agents/proof.md, computation.md,
referee.md, latex-writer.md): every call they prescribe, run for real against the plugin's
scripts in a temporary workspace, with the agents' writing played by this script. The run: the
literature was searched before (/math:literature), the proof agent's first strategy (induction)
fails and its second (direct) asks for one computation, the computation agent answers it, the
proof agent finishes, the referee checks every step, the writer writes, checks and compiles.
A call is one tool call (a script, a Read, a Write, an Edit, an Agent hand-off); attached files
are not read again. The figure is printed beside the target and the issue's run.

  .venv/bin/python bench/bench_research_turns.py

Target: at most 50 tool calls.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "plugin" / "scripts"
sys.path[:0] = [str(SCRIPTS), str(ROOT / "tests")]

from mathtools.core import frontmatter  # noqa: E402
from mathtools.litdoc import merging  # noqa: E402
from support.verified import confirmed, paper, verification  # noqa: E402

TARGET = 50
ISSUE_RUN = 83  # the derangements run the issue describes
SLUG = "derangements"
METHOD = "derangements,inclusion-exclusion,alternating-series,error-term"

FAILED_PROOF = """---
problem: derangements
status: in-progress
approach: induction
confidence: low
computation_needed: false
literature_needed: false
---

# Proof Development: derangements

## Strategy

**Approach:** induction on $D_n = (n-1)(D_{n-1} + D_{n-2})$.

## Proof Structure

### Step 1: the recurrence preserves nearness to $n!/e$
**Status:** abandoned
**Depends on:** none
**Confidence:** [~]
**Updated:** {now}

The error term does not shrink under the recurrence: abandoned.
"""

PROOF = """---
problem: derangements
status: {status}
approach: direct
confidence: {confidence}
computation_needed: {needed}
literature_needed: false
---

# Proof Development: derangements

## Strategy

**Approach:** direct, by inclusion-exclusion; induction failed (PROOF-001).

## Proof Structure

### Step 1: the recurrence preserves nearness to $n!/e$
**Status:** abandoned
**Depends on:** none
**Confidence:** [~]
**Updated:** {now}

The error term does not shrink under the recurrence: abandoned.

### Lemma 1: $D_n = n! \\sum_{{k=0}}^n (-1)^k / k!$
**Status:** complete
**Depends on:** none
**Confidence:** [S]
**Updated:** {now}

Inclusion-exclusion over the fixed points.

### Lemma 2: $|n!/e - D_n| < 1/2$ for $n \\ge 1$
**Status:** {status2}
**Depends on:** Lemma 1, REF-001
**Confidence:** [S]
**Updated:** {now}

$n!/e - D_n = n! \\sum_{{k > n}} (-1)^k / k!$, an alternating series with decreasing terms, so
its absolute value is below $1/(n+1) \\le 1/2$ (REF-001).

### Step 2: the small cases agree
**Status:** {status2}
**Depends on:** Computation 1
**Confidence:** [S]
**Updated:** {now}

$D_n = \\mathrm{{round}}(n!/e)$ for $1 \\le n \\le 20$ (Computation 1).

### Main Theorem
**Status:** {status2}
**Depends on:** Lemma 1, Lemma 2
**Confidence:** [S]
**Updated:** {now}

By Lemmas 1 and 2, $D_n$ is the integer nearest $n!/e$.

## Computation Requests

### Request 1: $D_n$ against round(n!/e) for n <= 20
**Purpose:** check Lemma 2 on small cases
**Tool:** sympy
"""

REVIEW = """# Referee Report: derangements

### Lemma 1
**Verdict:** checked

Inclusion-exclusion over the n fixed-point events, each term counted correctly.

### Lemma 2
**Verdict:** checked
**Sources:** REF-001 (Theorem 1): hypotheses hold - the terms 1/k! decrease to 0

The tail $n! \\sum_{k > n} (-1)^k / k!$ alternates with decreasing terms, so it is below
$1/(n+1) \\le 1/2$.

### Step 2
**Verdict:** checked

Computation 1's output shows 20 matches; the step claims no more than n <= 20.

### Main Theorem
**Verdict:** checked

Lemma 1 writes $D_n$ as the partial sum and Lemma 2 puts it within 1/2 of $n!/e$: nearest.
"""

SNIPPET = """import sympy as sp
ok = all(sp.subfactorial(n) == sp.floor(sp.factorial(n) / sp.E + sp.Rational(1, 2))
         for n in range(1, 21))
print("D_n = round(n!/e) for 1 <= n <= 20:", ok)
"""

TEX = r"""\documentclass{article}
\usepackage{amsthm}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}{Lemma}
\begin{document}
\begin{lemma}\label{pf:lemma-1}$D_n = n!\sum_{k=0}^n (-1)^k/k!$.\end{lemma}
\begin{lemma}\label{pf:lemma-2}$|n!/e - D_n| < 1/2$, by \cite{KEY}.\end{lemma}
\begin{theorem}\label{pf:main-theorem}$D_n$ is the integer nearest $n!/e$.\end{theorem}
\bibliographystyle{plain}
\bibliography{references}
\end{document}
"""


class Player:
    """Runs the calls the runbooks prescribe and counts them, by who made them."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.calls: dict[str, int] = {}
        self.who = "orchestrator"

    def count(self) -> None:
        self.calls[self.who] = self.calls.get(self.who, 0) + 1

    def bash(self, name: str, *args: str, ok: tuple[int, ...] = (0,)) -> dict:
        self.count()
        run = subprocess.run(
            [sys.executable, str(SCRIPTS / name), *args],
            cwd=self.cwd,
            capture_output=True,
            text=True,
            check=False,
        )
        if run.returncode not in ok:
            raise SystemExit(f"{name} {' '.join(args)}: exit {run.returncode}\n{run.stdout}")
        return json.loads(run.stdout) if run.stdout.strip().startswith("{") else {}

    def write(self, path: Path, text: str) -> None:
        self.count()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def read(self, path: Path) -> str:
        self.count()
        return path.read_text(encoding="utf-8")

    def date(self) -> str:
        self.count()
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def journal(p: Player, category: str, strategy: str, outcome: str, agent: str, tags: str) -> None:
    p.bash(
        "journal.py", "add", "--problem", SLUG, "--category", category, "--strategy", strategy,
        "--outcome", outcome, "--title", f"{strategy}: {outcome.lower()}", "--tags",
        tags, "--tried", "see PROOF.md",
        "--insight", "the error term needs the alternating series bound", "--agent", agent,
    )  # fmt: skip


def proof_agent(p: Player, folder: Path) -> None:
    if not (folder / "PROOF.md").exists():  # the first pass: induction fails, then direct
        now = p.bash(
            "journal.py", "check", "--problem", SLUG, "--strategy", "induction",
            "--tags", "derangements,recurrence,induction",
        )["now"]  # fmt: skip
        p.write(folder / "PROOF.md", FAILED_PROOF.replace("{now}", now))
        journal(p, "PROOF", "induction", "FAILED", "proof", "derangements,recurrence,induction")
        p.bash(
            "journal.py", "check", "--problem", SLUG, "--strategy", "direct",
            "--tags", METHOD,
        )  # fmt: skip
        text = PROOF.format(
            status="in-progress", confidence="medium", needed="true", status2="in-progress",
            now=now,
        )  # fmt: skip
        p.write(folder / "PROOF.md", text)
        journal(p, "PROOF", "direct", "PARTIAL", "proof", METHOD)
        return
    p.read(folder / "PROOF.md")  # Claude Code's Edit/Write of an existing file wants a Read first
    now = p.date()
    text = PROOF.format(
        status="complete", confidence="high", needed="false", status2="complete", now=now
    )
    p.write(folder / "PROOF.md", text)
    journal(p, "PROOF", "direct", "SUCCEEDED", "proof", METHOD)


def computation_agent(p: Player, folder: Path) -> None:
    snippet = folder / "computations" / "request-1.py"
    p.write(snippet, SNIPPET)
    run = p.bash(
        "compute.py", "run", str(snippet), "--request", "1", "--title", "D_n for n <= 20",
        "--python", sys.executable, "--problem", SLUG,
    )  # fmt: skip
    number = str(run["recorded"]["computation"])
    p.bash(
        "compute.py", "interpret", number, "--text", "all 20 cases agree: " + run["stdout"].strip(),
        "--result", "20 of 20 agree", "--implication", "Step 2 holds", "--problem", SLUG,
    )  # fmt: skip
    journal(p, "COMP", "exhaustive-search", "SUCCEEDED", "computation", "derangements,rounding")


def referee_agent(p: Player, folder: Path) -> None:
    p.write(folder / "REVIEW.md", REVIEW)
    p.bash("review.py", "seal", "--problem", SLUG)


def writer_agent(p: Player, folder: Path) -> None:
    entries = p.bash("bib_export.py", "--problem", SLUG)["entries"]
    p.write(folder / "OUTPUT.tex", TEX.replace("KEY", entries[0]["key"]))
    p.bash("latex.py", "check", "--compile", "--problem", SLUG)


AGENTS = {
    "math:proof": proof_agent,
    "math:computation": computation_agent,
    "math:referee": referee_agent,
    "math:latex-writer": writer_agent,
}


def setup(cwd: Path) -> Path:
    """A workspace whose problem was defined and searched (/math:problem, /math:literature)."""
    cwd.mkdir(parents=True)
    for args in (
        ("workspace.py", "init"),
        ("workspace.py", "new-problem", "--title", "Derangements", "--slug", SLUG,
         "--domain", "combinatorics", "--tags", "derangements",
         "--statement", "$D_n$ is the integer nearest $n!/e$ for $n \\ge 1$."),
    ):  # fmt: skip
        subprocess.run([sys.executable, str(SCRIPTS / args[0]), *args[1:]], cwd=cwd, check=True,
                       capture_output=True)  # fmt: skip
    folder = cwd / ".math" / "problems" / SLUG
    merging.merge_file(folder / "LITERATURE.md", verification([confirmed(paper(1))]))
    lit = folder / "LITERATURE.md"
    data, body = frontmatter.split(lit.read_text())
    lit.write_text(frontmatter.render({**data, "last_search": "2026-11-25T00:00:00Z"}, body))
    return folder


def play(cwd: Path) -> tuple[Player, list[str], str]:
    folder = setup(cwd)
    p = Player(cwd)
    spawned = []
    for _ in range(12):
        p.who = "orchestrator"
        step = p.bash("state.py", "advance", "--problem", SLUG)
        if step["action"] != "spawn":
            break
        p.count()  # the Agent call
        spawned.append(step["spawn"])
        p.who = step["spawn"]
        time.sleep(0.01)  # what the agent writes is newer than the state's entry
        AGENTS[step["spawn"]](p, folder)
    return p, spawned, step["state"]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="math-bench-") as tmp:
        p, spawned, state = play(Path(tmp) / "ws")
    total = sum(p.calls.values())
    print("/math:research on the derangements problem (one failed strategy, one computation,")
    print("review, write-up), from the command's start to DONE:")
    print(f"{'':24}{'issue run':>12}{'now':>8}{'target':>14}")
    ok = total <= TARGET and state == "DONE"
    print(
        f"{'tool calls':24}{ISSUE_RUN:>12}{total:>8}{f'<= {TARGET}':>14} "
        f"{'met' if ok else 'NOT met'}"
    )
    print(f"{total} tool calls (target <= {TARGET}); ended in {state}")
    for who, n in p.calls.items():
        print(f"  {who:22}{n:>4}")
    print("  agents run: " + ", ".join(spawned))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
