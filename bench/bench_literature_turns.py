#!/usr/bin/env python3
"""Tool calls and turns /math:literature needs, from the command's start to the agent's report,
side by side with the runbook as it was before the one-call phases (issue 19).

The runbook is played as the demo plays it (tools/literature_runbook.py: every call the agent's
runbook prescribes, with the deterministic STAND-IN judging), offline, on the demo's sample
problem, three times: a search that stops after its first iteration, one whose first iteration
finds no strong hit, so that the loop refines once, and a search for PROOF.md's next
reference-needed gap (bench/data/gap-search/PROOF.md), the task after a proof loop. A call is
one tool call (a script, a read, a write); a turn is the calls that may run together, counted
once. The command's hand-off to the agent (one Agent call) is counted too.

  .venv/bin/python bench/bench_literature_turns.py [--live]

Then two follow-up searches (focus words) after a first one, each counted from its command's
start.

Targets: at most 10 tool calls for one iteration (Synthesis and journal entry included), 14 with
one refinement; a gap search is one iteration too; each follow-up at most 10.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from demo_pipeline import (  # noqa: E402
    PLANTED,
    SAMPLE,
    papers_twice,
    refining_model,
    run_demo,
    sections_lost,
    unseen_follow_ups,
)
from literature_runbook import StandInModel  # noqa: E402

# The runbook before the one-call phases (main at 344b41c: plan_queries.py, one call per search,
# record-run, a judgements file and a judge call per run, refine.py feedback/next/keep,
# verify_batch.py, lit_update.py merge, a read and an edit for the Synthesis, validate,
# journal.py), played the same way on the same problem: (tool calls, turns), hand-off included.
# A real model following it took 31 calls (issue 19): it also read .math/config.json and
# LITERATURE.md more than once.
# A gap search before `discover --gap`: the same calls, after a read of PROOF.md in a turn of its
# own (the model took the first open gap's Suggested resolution as its focus words), measured
# when the PROBLEM.md read shared discover's turn (before issue 50).
BEFORE = {"one iteration": (29, 17), "one refinement": (38, 23), "a gap search": (11, 10)}
TARGET = {"one iteration": 10, "one refinement": 14, "a gap search": 10}
# Two follow-up searches after a first one (issue 37), each with its focus words; each is held
# to the target of one iteration.
FOLLOW_UPS = ("uniformity testing", "Good-Turing estimation")
FOLLOW_UP_TARGET = 10
NOTHING_NEW_TARGET = 6  # a follow-up that adds no REF (issue 50)
PROOF = ROOT / "bench" / "data" / "gap-search" / "PROOF.md"


def runs() -> dict[str, tuple[StandInModel, Path | None]]:
    """Each run's STAND-IN and the PROOF.md whose next gap it searches (None: the problem)."""
    return {
        "one iteration": (StandInModel(recalled=PLANTED), None),
        "one refinement": (refining_model(), None),
        "a gap search": (StandInModel(recalled=PLANTED), PROOF),
    }


def unseen(live: bool) -> bool:
    """Issue 50: the two problems of bench/data/followups, a first search and two follow-ups
    (a plain rerun, then focus words), arXiv and Semantic Scholar answering alone: each
    follow-up's calls, and a follow-up that adds no REF held to NOTHING_NEW_TARGET."""
    met = True
    print("follow-ups on problems no other bench holds (zbMATH, Crossref, OpenAlex, LaTeX down):")
    for name, figures in unseen_follow_ups(live):
        texts = [figures["first_literature"], *(x["literature"] for x in figures["follow_ups"])]
        for number, later in enumerate(figures["follow_ups"], 1):
            nothing_new = not later["summary"]["refs"]
            target = NOTHING_NEW_TARGET if nothing_new else FOLLOW_UP_TARGET
            twice, lost = papers_twice(texts[number]), sections_lost(texts[0], texts[number])
            ok = later["tool_calls"] <= target and not twice and not lost
            met = met and ok
            print(
                f"  {name} follow-up {number} ({later['focus'] or 'plain rerun'}):"
                f" {later['tool_calls']} calls in {later['turns']} turns,"
                f" {len(later['summary']['refs'])} new REF; papers twice {twice},"
                f" Synthesis lines lost {lost}; target <= {target} calls"
                f" {'met' if ok else 'NOT met'}"
            )
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--live", action="store_true", help="the real APIs instead of recordings")
    args = parser.parse_args()
    print(f"/math:literature on {SAMPLE.parent.name}, from the command's start to the report:")
    print(f"{'':16}{'before':>14}{'now':>14}{'iterations':>12}{'target':>14}")
    met = True
    for name, (model, proof) in runs().items():
        with tempfile.TemporaryDirectory(prefix="math-bench-") as folder:
            figures = run_demo(
                Path(folder) / "ws", SAMPLE, args.live, lambda _l: None, None, model, proof
            )
        calls, turns = figures["tool_calls"], figures["turns"]
        ok = calls <= TARGET[name]
        met = met and ok
        was = BEFORE[name]
        before = f"{was[0]} in {was[1]}"
        print(
            f"{name:16}{before:>14}{f'{calls} in {turns}':>14}"
            f"{figures['summary']['iterations']:>12}"
            f"{f'<= {TARGET[name]} calls':>14} {'met' if ok else 'NOT met'}"
        )
    with tempfile.TemporaryDirectory(prefix="math-bench-") as folder:
        figures = run_demo(
            Path(folder) / "ws", SAMPLE, args.live, lambda _l: None, None,
            StandInModel(recalled=PLANTED), follow_ups=FOLLOW_UPS,
        )  # fmt: skip
    for number, later in enumerate(figures["follow_ups"], 1):
        calls, turns = later["tool_calls"], later["turns"]
        ok = calls <= FOLLOW_UP_TARGET
        met = met and ok
        print(
            f"{f'follow-up {number}':16}{'—':>14}{f'{calls} in {turns}':>14}"
            f"{later['summary']['iterations']:>12}"
            f"{f'<= {FOLLOW_UP_TARGET} calls':>14} {'met' if ok else 'NOT met'}"
        )
    print(f"(the follow-ups: a first search, then the focus words {', '.join(FOLLOW_UPS)})")
    met = unseen(args.live) and met
    print("(calls in turns: calls that may run together count as one turn; a gap search before")
    print(" `discover --gap` read PROOF.md first, in a turn of its own)")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
