#!/usr/bin/env python3
"""Tool calls and characters for /math:check-refs to hand the model each cited statement's use.

commands/check-refs.md is played as the model would (tools/check_refs_runbook.py: its one Bash
call made as a subprocess, step 3's answer written by a STAND-IN judging from an answer key) on
2405.16513 from ../shared/recordings/arxiv-src with two planted misuses of Bezdek and Bezdek's
lemmas: Lemma 2.1 cited for more than it says, and Lemma 2.3 cited for what Lemma 2.2 says. The
services are the stand-in (tests/support/standin.py), intervals 0, a fresh cache.

Printed: the tool calls, the characters of output the model reads, the `use N:` blocks shown, the
planted misuses named (reported first), and the characters of the answer. Target: both named, in
at most 3 tool calls.

Run: .venv/bin/python bench/bench_check_refs_uses.py
"""

from __future__ import annotations

import subprocess
import sys

from standin_calls import PLUGIN, ROOT, standin_scratch

sys.path.insert(0, str(ROOT / "tools"))
from check_refs_runbook import MISMATCHES, PLANTED, planted_paper, play

MAX_CALLS = 3


def main() -> int:
    from mathtools.papers import texsource
    from mathtools.services.latex_source import read_body
    from support import shared
    from support.arxiv_src import MAIN_2405, REFERENCES_BIB, body

    if not shared.present("recordings", "arxiv-src"):
        print(
            f"bench_check_refs_uses: {shared.missing_message('recordings/arxiv-src')}",
            file=sys.stderr,
        )
        return 0
    outcome = read_body(body("2405.16513"))
    source = texsource.decode(outcome.members[MAIN_2405])  # type: ignore[union-attr]
    with standin_scratch() as (standin, scratch):
        planted_paper(scratch, source, REFERENCES_BIB)

        def run(command: str) -> tuple[int, str]:
            done = subprocess.run(
                ["bash", "-c", command.replace("python3 ", f"{sys.executable} ", 1)],
                cwd=scratch,
                capture_output=True,
                text=True,
                check=False,
            )
            return done.returncode, done.stdout

        played = play(run, "paper.tex", str(PLUGIN))
        api_calls = sum(standin.counts.values())
    named = [m for m in played.marks.values() if m in MISMATCHES]
    print("/math:check-refs on 2405.16513 with 2 planted misuses (the stand-in, intervals 0)")
    print(f"{'tool calls':>10} {'chars read':>10} {'uses shown':>10} {'named':>6} {'answer':>7}")
    print(
        f"{len(played.calls):>10} {len(played.output):>10} {len(played.marks):>10} "
        f"{len(named)}/{len(PLANTED):<4} {len(played.answer):>7}"
    )
    print(f"API calls to the stand-in: {api_calls}")
    met = len(named) == len(PLANTED) and len(played.calls) <= MAX_CALLS
    print(f"target: both misuses named in <= {MAX_CALLS} tool calls: {'met' if met else 'NOT met'}")
    print()
    print(played.answer.split("```")[0].rstrip())
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
