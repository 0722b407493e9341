#!/usr/bin/env python3
"""The referee's REVIEW.md: check it against PROOF.md and seal it, so the research loop can route
on it.

The referee (agents/referee.md) writes one `### <step name>` block per PROOF.md step, each with
**Verdict:** checked | gap | wrong, a **Note:** for a gap or a wrong step, for a step that rests
on a REF a **Sources:** line saying whether that statement's hypotheses hold where the step uses
it, and under a checked verdict the text of what was checked, naming the step's content and its
inference (not only its symbols or its heading restated), and either **Tested by:** Computation
N (a run compute.py recorded that names the step) or **Not computable:** why no small case can
test it; a step a recorded run's Interpretation says it refutes is never checked. `seal` refuses
a review that misses a step, a field or that text (naming each step); otherwise it writes
REVIEW.md's frontmatter (verdict pass or revise, the counts, the digest of the PROOF.md it judged,
`proved`: each step it gave [P] with its digest) and, on a pass, gives tier [P] ("proved here in
full") to each checked step that rests on no computation and only on [P] or [V] steps and REF
entries, and takes it from every other step.

subcommands:
  seal    validate REVIEW.md, write its verdict; on a pass mark the [P] steps in PROOF.md
  show    what the router sees: the review's verdict and counts, or why it cannot be used

example:
  review.py seal --problem derangements

Exit codes: 0 ok, 2 bad input (an incomplete review: code bad_review), 4 environment,
5 internal error.
"""

import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.research import current, parse_problem_command, seal  # noqa: E402


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()
    commands.add_parser("seal", help="validate REVIEW.md and write its verdict")
    commands.add_parser("show", help="the review's verdict, or why it cannot be used")
    args, slug, folder = parse_problem_command(parser, commands, argv)
    if args.command == "seal":
        cli.emit(seal(folder, slug))
    else:
        summary, errors = current(folder)
        cli.emit({"review": summary, "errors": errors})


if __name__ == "__main__":
    cli.run(main)
