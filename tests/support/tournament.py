"""A research run shaped like the tournament one (every tournament has a Hamiltonian path; their
number is odd, Rédei), for bench/bench_research_turns.py and tests/test_research_briefs_e2e.py:
the problem, its confirmed references, a failed first strategy, a proof with two computation
requests, the two snippets, the finished proof, a referee's review and a write-up.

These are synthesized inputs written as the agents would write them (the references' records are
the papers' real metadata). Each text carries a MARKER a test can look for in what an agent read.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mathtools.core.files import atomic_write
from mathtools.litdoc import literature, merging

from support.claude_code import ROOT
from support.verified import confirmed, paper, unconfirmed, verification

SCRIPTS = ROOT / "plugin" / "scripts"

SLUG = "tournament-paths"
TITLE = "Hamiltonian paths in tournaments"
TAGS = "tournaments,hamiltonian-path,redei"
STATEMENT = (
    "Every tournament $T$ on $n \\ge 1$ vertices has a Hamiltonian path, and the number $h(T)$ "
    "of its Hamiltonian paths is odd (MARKER-PROBLEM-STATEMENT)."
)
NOTATION = "the number of Hamiltonian paths of $T$ (MARKER-NOTATION)"  # a custom symbol
REF_KEY_RESULT = (
    '[V] "Every tournament has an odd number of Hamiltonian paths." (Theorem 1) '
    "MARKER-REF-KEY-RESULT"
)
REF_STATEMENT = (
    "Every finite tournament has an odd number of Hamiltonian paths (MARKER-REF-STATEMENT)."
)
# An unconfirmed paper, as a search leaves one: the writer says it is reported, never cites it.
UREF_TITLE = "Hamiltonian paths counted mod 4 (MARKER-UREF)"
# What a brief must carry whole: the Strategy's symbols, and each run's code and output, whose
# `# ` lines (a comment, a printed table heading) are code and output, not Markdown headings.
STRATEGY_MARKER = "MARKER-STRATEGY"
CODE_MARKER = "MARKER-CODE"
OUTPUT_MARKER = "MARKER-OUTPUT"
DEAD_END_INSIGHT = "MARKER-DEAD-END: the score cases do not close beyond n = 5"
NOW = "2026-11-26T10:00:00Z"


def script(cwd: Path, name: str, *args: str) -> str:
    """Run plugin/scripts/<name> in `cwd` with this interpreter; its stdout (AssertionError with
    its output when it fails)."""
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / name), *args], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == 0, (
        f"{name} {args}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    )
    return done.stdout


def new_problem(cwd: Path) -> Path:
    """The workspace and the problem as /math:init, /math:problem and /math:notation leave them;
    returns the problem folder."""
    cwd.mkdir(parents=True, exist_ok=True)
    script(cwd, "workspace.py", "init")
    script(
        cwd, "workspace.py", "new-problem", "--title", TITLE, "--slug", SLUG,
        "--domain", "combinatorics", "--tags", TAGS, "--statement", STATEMENT,
    )  # fmt: skip
    script(cwd, "workspace.py", "notation", "--problem", SLUG, "--add", "h(T)", NOTATION)
    return cwd / ".math" / "problems" / SLUG


def failed_strategy(cwd: Path) -> None:
    """The journal's PROOF entry for the abandoned case analysis: a dead end."""
    script(
        cwd, "journal.py", "add", "--problem", SLUG, "--category", "PROOF",
        "--strategy", "case-analysis", "--outcome", "FAILED", "--title", "score cases",
        "--tags", "tournaments,score-sequence", "--tried", "a case analysis on the scores",
        "--insight", DEAD_END_INSIGHT, "--agent", "proof",
    )  # fmt: skip


def compute(cwd: Path, folder: Path, request: int) -> dict:
    """Run a request's snippet through compute.py (this interpreter) and write its
    Interpretation, as the computation agent does; returns compute.py's answer."""
    snippet = folder / "computations" / f"request-{request}.py"
    snippet.parent.mkdir(exist_ok=True)
    snippet.write_text(SNIPPETS[request], encoding="utf-8")
    run_args = ["run", str(snippet), "--request", str(request), "--title"]
    run_args += [f"h(T), request {request}", "--python", sys.executable, "--problem", SLUG]
    run = json.loads(script(cwd, "compute.py", *run_args))
    script(
        cwd, "compute.py", "interpret", str(run["recorded"]["computation"]),
        "--text", INTERPRETATIONS[request], "--result", "all odd", "--implication",
        "supports Step 2", "--problem", SLUG,
    )  # fmt: skip
    return run


def write_literature(folder: Path) -> None:
    """LITERATURE.md with two confirmed references, as a search would leave it."""
    redei = paper(
        1,
        title="Ein kombinatorischer Satz",
        authors=["László Rédei"],
        year=1934,
        abstract="Jedes vollständige gerichtete Paar-Graph hat einen Hamiltonschen Weg.",
    )
    moon = paper(2, title="Topics on Tournaments", authors=["John W. Moon"], year=1968)
    ghost = unconfirmed({"key": "remembered-1", "title": UREF_TITLE, "authors": ["A. Nonymous"]})
    merging.merge_file(
        folder / "LITERATURE.md", verification([confirmed(redei), confirmed(moon), ghost])
    )
    document = literature.load_literature(folder / "LITERATURE.md")
    first, second = document.confirmed
    first.set_field("Key Results", REF_KEY_RESULT)
    first.set_statements("https://export.arxiv.org/src/2101.00001", {"Theorem 1": REF_STATEMENT})
    first.set_field("Confidence", "[V]")
    first.set_field("Relevance", "proves the parity of h(T), the second half of the problem")
    second.set_field("Key Results", "[S] a survey of tournaments: kings, scores, paths")
    second.set_field("Confidence", "[S]")
    second.set_field("Relevance", "background on score sequences")
    document.frontmatter["last_search"] = "2026-11-25T00:00:00Z"
    atomic_write(folder / "LITERATURE.md", document.render())


FAILED_PROOF = """---
problem: tournament-paths
status: in-progress
approach: case-analysis
confidence: low
computation_needed: false
literature_needed: false
---

# Proof Development: Hamiltonian paths in tournaments

## Strategy

**Approach:** case analysis on the score sequence.

## Proof Structure

### Step 1: a case analysis on the score sequence
**Status:** abandoned
**Depends on:** none
**Confidence:** [~]
**Updated:** {now}

The cases multiply with $n$ and do not close beyond $n = 5$: abandoned.
"""

PROOF = """---
problem: tournament-paths
status: {status}
approach: induction
confidence: {confidence}
computation_needed: {needed}
literature_needed: false
---

# Proof Development: Hamiltonian paths in tournaments

## Strategy

**Approach:** induction on $n$, inserting a vertex into a path; the case analysis failed
(PROOF-001). Throughout, $P_w$ is the path of $T - w$ that Lemma 1 extends (MARKER-STRATEGY).

## Proof Structure

### Step 1: a case analysis on the score sequence
**Status:** abandoned
**Depends on:** none
**Confidence:** [~]
**Updated:** {now}

The cases multiply with $n$ and do not close beyond $n = 5$: abandoned.

### Lemma 1: a vertex can be inserted into a directed path
**Status:** complete
**Depends on:** none
**Confidence:** [S]
**Updated:** {now}

Let $v_1 \\to \\dots \\to v_k$ be a path and $w$ a vertex off it (MARKER-PROOF-LEMMA). If
$w \\to v_1$ or $v_k \\to w$, extend the path at an end. Otherwise $v_1 \\to w$ and $w \\to v_k$,
so there is a least $i$ with $w \\to v_{{i+1}}$, and $v_i \\to w$: insert $w$ between $v_i$ and
$v_{{i+1}}$.

### Step 2: the small tournaments
**Status:** {status2}
**Depends on:** Computation 1, Computation 2
**Confidence:** [S]
**Updated:** {now}

For $n \\le 5$ every tournament has a Hamiltonian path and $h(T)$ is odd (Computation 1); so do
40 random tournaments on 6 and 7 vertices each (Computation 2).

### Main Theorem
**Status:** {status2}
**Depends on:** Lemma 1, REF-001
**Confidence:** [S]
**Updated:** {now}

By induction on $n$ with Lemma 1, every tournament has a Hamiltonian path; $h(T)$ is odd by
REF-001 (Theorem 1), whose hypothesis (a finite tournament) holds.

## Gaps

### Gap 1: the small cases, checked by machine (MARKER-PROOF-GAP)
**Type:** computation-needed
**Blocking:** Step 2
**Suggested resolution:** Requests 1 and 2
{resolved}
## Computation Requests

### Request 1: h(T) for every tournament on n <= 5 vertices
**Purpose:** the parity and existence claims on all small tournaments
**Input:** every orientation of $K_n$, $1 \\le n \\le 5$
**Expected output:** the least $h(T)$ and whether every $h(T)$ is odd, for each $n$
**Tool:** python

### Request 2: h(T) for random tournaments on 6 and 7 vertices (MARKER-REQUEST-2)
**Purpose:** evidence beyond the exhaustive range
**Input:** 40 tournaments per $n$ from a fixed seed
**Expected output:** whether every $h(T)$ is odd and positive
**Tool:** python
"""

RESOLVED = "**Resolved:** Computations 1 and 2 answer it\n"

SNIPPETS = {
    1: """# MARKER-CODE: h(T) for every tournament on n <= 5 vertices
from itertools import combinations, permutations, product

def h(n, arcs):
    return sum(all((p[i], p[i + 1]) in arcs for i in range(n - 1)) for p in permutations(range(n)))

print("# n, least h(T), all odd (MARKER-" + "OUTPUT)")  # the marker only in the output
for n in range(1, 6):
    pairs = list(combinations(range(n), 2))
    counts = [h(n, {(a, b) if o else (b, a) for (a, b), o in zip(pairs, bits)})
              for bits in product((0, 1), repeat=len(pairs))]
    print(f"n={n}: least h(T) = {min(counts)}, all odd: {all(c % 2 for c in counts)}")
""",
    2: """# MARKER-CODE: h(T) for 40 random tournaments on 6 and 7 vertices
import random
from itertools import combinations, permutations

def h(n, arcs):
    return sum(all((p[i], p[i + 1]) in arcs for i in range(n - 1)) for p in permutations(range(n)))

rng = random.Random(2026)
print("# n, least h(T), all odd (MARKER-" + "OUTPUT)")  # the marker only in the output
for n in range(6, 8):
    counts = [h(n, {(a, b) if rng.random() < 0.5 else (b, a) for a, b in combinations(range(n), 2)})
              for _ in range(40)]
    print(f"n={n}: least h(T) = {min(counts)}, all odd: {all(c % 2 for c in counts)}")
""",
}
INTERPRETATIONS = {
    1: "every tournament on n <= 5 vertices has h(T) >= 1, all odd (MARKER-INTERPRETATION)",
    2: "the random tournaments on 6 and 7 vertices all have an odd, positive h(T)",
}

REVIEW = """# Referee Report: Hamiltonian paths in tournaments

### Lemma 1
**Verdict:** checked
**Not computable:** an insertion into any path of any length, argued not sampled

The insertion: when neither end extends, $v_1 \\to w$ and $w \\to v_k$, so the least $i$ with
$w \\to v_{i+1}$ exists and $v_i \\to w$ by its minimality; each case of the lemma is covered.

### Step 2
**Verdict:** checked
**Tested by:** Computation 1, Computation 2

Computation 1's output gives least $h(T) \\ge 1$ and all odd for $n \\le 5$, Computation 2 the
random cases; the step claims no more than these finite checks show.

### Main Theorem
**Verdict:** checked
**Sources:** REF-001 (Theorem 1): hypotheses hold - $T$ is a finite tournament
**Not computable:** the claim is for every $n$; Step 2 holds the finite cases

The induction on $n$ applies Lemma 1 to a path of $T - w$; the parity is REF-001's Theorem 1.
"""

TEX = r"""\documentclass{article}
\usepackage{amsthm}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}{Lemma}
\newtheorem{proposition}{Proposition}
\begin{document}
\begin{lemma}\label{pf:lemma-1}A vertex can be inserted into a directed path.\end{lemma}
\begin{proposition}\label{pf:step-2}Small tournaments have an odd number of Hamiltonian
paths.\textsuperscript{[S]}\end{proposition}
\begin{theorem}\label{pf:main-theorem}Every tournament has a Hamiltonian path, and their
number is odd \cite{KEY}.\end{theorem}
\bibliographystyle{plain}
\bibliography{references}
\end{document}
"""


def proof(stage: str, now: str) -> str:
    """PROOF.md after the first pass ("asking": the two requests open) or the last ("done")."""
    done = stage == "done"
    return PROOF.format(
        status="complete" if done else "in-progress",
        confidence="high" if done else "medium",
        needed="false" if done else "true",
        status2="complete" if done else "in-progress",
        resolved=RESOLVED if done else "",
        now=now,
    )
