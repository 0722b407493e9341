#!/usr/bin/env python3
"""Tokens a model reads during one /math:literature run, per distinct paper, side by side with
what a model fetching the raw API pages would read (CONTRIBUTING.md's demo pipeline, run quietly).

"Read through the scripts" is the bytes of everything the runbook's script calls print, stdout
and stderr (the model gets both back from a Bash call), divided by 4. "Raw pages" is the bytes of
every Atom/JSON response the same run fetched (the HTTP cache holds each one), divided by 4: what
a model calling arXiv and Semantic Scholar with a web-fetch tool would have read to do the same
work.

Three runs by default: the demo's sample problem (few candidates: the recordings hold few
papers on it); the same problem with one refinement (the STAND-IN of bench_literature_turns.py,
which finds no strong hit in iteration 1 and refines once); and a bigger one,
bench/data/turing-patterns/PROBLEM.md with 10 results per search, which the recorded Semantic
Scholar records answer with a few dozen candidates. Part of what the scripts print is paid once
per run (the plan, the acknowledgements), part once per candidate; the bigger run shows what a
realistic search costs per candidate. A refinement adds a cost per iteration: `judge` answers
`refine` with the memo, which gives back the partial matches' rationales (up to eight) so that
the model aims its query at what they lack, and `refine` prints its listing's header.

  .venv/bin/python bench/bench_literature_tokens.py [--live] [--problem PROBLEM.md]
      [--per-query N]

A distinct paper is one the model read about, counted once: a paper both services returned, or
a PROBLEM.md reference that is a paper the search listed, is one; a remembered paper that is
unconfirmed is one more. Abstract gists and excerpts are included.

First, two follow-up searches of the sample after a first one (issue 37): each follow-up's
characters read and tool calls, against at most 20,000 characters and 10 calls each.

It also prints what the model reads in all, in characters: the agent's prompt (with the command's
hand-off), every script output and every file the runbook has it read; the Viterbo sample
(examples/viterbo) adds a run whose confirmed papers have arXiv LaTeX sources, so verify prints
whole abstracts and source statements. Target: at most 20,000 characters per run (about 50,000
before the runbook stopped sending the model to the protocols).

The former target, at most 150 tokens per distinct paper through the scripts, is retired: the
model now reads the whole abstract of each paper judged strong or partial before it writes about
it, so a run's cost is measured whole, against the 20,000 characters above. Tokens per paper are
still printed. Before the one-call phases
(issue 19), with the plan of that time, the sample run cost 1162 tokens for its 6 distinct
papers, 193.7 each (145.2 when its 8 candidate lines were counted, duplicates included), and
showed no abstract. A run with one refinement was not measured then (about 173 per distinct
paper was estimated before the plan changes of issue 21).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from demo_pipeline import (  # noqa: E402
    SAMPLE,
    TARGET_READ_CHARS,
    refining_model,
    run_demo,
    unseen_follow_ups,
)

BIGGER = (ROOT / "bench" / "data" / "turing-patterns" / "PROBLEM.md", 10)
VITERBO = ROOT / "examples" / "viterbo" / "PROBLEM.md"  # papers with recorded sources
BEFORE = {"sample-problem": 1162 / 6}  # tokens per distinct paper, main at 344b41c
FOLLOW_UPS = ("uniformity testing", "Good-Turing estimation")  # the follow-ups' focus words
TARGET_CALLS = 10  # tool calls a follow-up of one iteration may take


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--live", action="store_true", help="the real APIs instead of recordings")
    parser.add_argument("--problem", type=Path, help="only this PROBLEM.md (default: both runs)")
    parser.add_argument("--per-query", type=int, help="results per search (plan_queries.py)")
    args = parser.parse_args()
    # (problem, results per search, whether the STAND-IN refines once)
    runs = [(args.problem, args.per_query, False)]
    if not args.problem:
        runs = [(SAMPLE, args.per_query, False), (SAMPLE, args.per_query, True)]
        runs += [(VITERBO, args.per_query, False), (*BIGGER, False)]
    met = True
    if not args.problem:
        met = follow_ups(args.live, args.per_query) and unseen(args.live)
    for problem, per_query, refines in runs:
        with tempfile.TemporaryDirectory(prefix="math-bench-") as folder:
            figures = run_demo(
                Path(folder) / "ws",
                problem,
                args.live,
                say=lambda _line: None,
                per_query=per_query,
                model=refining_model() if refines else None,
            )
        met = report(problem, per_query, figures, refines) and met
    return 0 if met else 1


def follow_ups(live: bool, per_query: int | None) -> bool:
    """A first search of the sample, then two follow-ups with focus words (issue 37): each
    follow-up's characters read and tool calls, from its command's start, side by side with the
    targets."""
    with tempfile.TemporaryDirectory(prefix="math-bench-") as folder:
        figures = run_demo(
            Path(folder) / "ws", SAMPLE, live, say=lambda _line: None, per_query=per_query,
            follow_ups=FOLLOW_UPS,
        )  # fmt: skip
    print(f"two follow-up searches of {SAMPLE.parent.name}, after a first one:")
    print(f"{'':40}{'characters':>12}{'target':>10}{'tool calls':>12}{'target':>8}")
    met = True
    for number, later in enumerate(figures["follow_ups"], 1):
        ok = later["read_chars"] <= TARGET_READ_CHARS and later["tool_calls"] <= TARGET_CALLS
        met = met and ok
        name = f"follow-up {number} ({later['focus']})"
        print(
            f"{name:40}{later['read_chars']:>12}{f'<= {TARGET_READ_CHARS}':>10}"
            f"{later['tool_calls']:>12}{f'<= {TARGET_CALLS}':>8} {'met' if ok else 'NOT met'}"
        )
    print()
    return met


NOTHING_NEW_CHARS = 10_000  # a follow-up that adds no REF (issue 50)


def unseen(live: bool) -> bool:
    """Issue 50: each follow-up's characters read on the two problems of bench/data/followups
    (a plain rerun, then focus words; arXiv and Semantic Scholar answering alone)."""
    met = True
    print("follow-ups on problems no other bench holds (zbMATH, Crossref, OpenAlex, LaTeX down):")
    for name, figures in unseen_follow_ups(live):
        for number, later in enumerate(figures["follow_ups"], 1):
            target = NOTHING_NEW_CHARS if not later["summary"]["refs"] else TARGET_READ_CHARS
            ok = later["read_chars"] <= target
            met = met and ok
            print(
                f"  {name} follow-up {number} ({later['focus'] or 'plain rerun'}):"
                f" {later['read_chars']} characters;"
                f" target <= {target} {'met' if ok else 'NOT met'}"
            )
    print()
    return met


def report(problem: Path, per_query: int | None, figures: dict, refines: bool = False) -> bool:
    n = max(figures["candidates"], 1)
    per = f" (--per-query {per_query})" if per_query else ""
    kind = ", with one refinement" if refines else ""
    print(f"one /math:literature run on {problem.parent.name}{per}{kind}:")
    print(
        f"  {figures['candidates']} distinct papers, {figures['script_calls']} script calls,"
        f" {figures['raw_responses']} API responses,"
        f" {figures['summary']['iterations']} iteration(s)"
    )
    print(f"{'':24}{'tokens':>10}{'per paper':>16}")
    for name, tokens in (
        ("through the scripts", figures["output_tokens"]),
        ("raw Atom/JSON pages", figures["raw_tokens"]),
    ):
        print(f"{name:24}{tokens:>10}{tokens / n:>16.1f}")
    ratio = figures["raw_tokens"] / max(figures["output_tokens"], 1)
    before = BEFORE.get(problem.parent.name)
    if before and per_query is None and not refines:
        print(f"{'before (no abstracts)':24}{'':>10}{before:>16.1f}")
    print(f"raw / scripts {ratio:.1f}x")
    sample = problem in (SAMPLE, VITERBO)  # the target is a sample run's; a bigger run informs
    met = figures["read_chars"] <= TARGET_READ_CHARS or not sample
    verdict = ("met" if met else "NOT met") if sample else "no target for a bigger run"
    print(
        f"model reads in all: {figures['read_chars']} characters (the agent's prompt, every"
        f" script output, every file read); target <= {TARGET_READ_CHARS}: {verdict}"
    )
    for script, size in sorted(figures["output_bytes"].items(), key=lambda item: -item[1]):
        print(f"  {script:26} {size // 4:>7} tokens")
    print()
    return met


if __name__ == "__main__":
    raise SystemExit(main())
