#!/usr/bin/env python3
"""The refinement loop's rules: stop, or search a refined query, decided by script.

After an iteration's runs are recorded (lit_update.py record-run) and judged (lit_update.py
judge), `feedback` reads them from the run store and decides:

  stop     a strong hit was found, or 3 iterations have run;
  refine   otherwise: it prints the feedback memo built from the partial (else irrelevant)
           judgements, and the model proposes ONE refined query.

`next` checks that refined query: it stops the loop when the query is empty or repeats an
earlier query of the problem (case, accents, quotes and spacing ignored), and otherwise prints
the next iteration's command lines: its searches (arxiv_query.py and s2_lookup.py) and the
lit_update.py record-run that stores them with the memo (written to R/feedback-i<N>.md
with --search-folder, whose searches write R/i<N>-arxiv-1.json and R/i<N>-s2-1.json).

`keep`, once the loop has stopped, writes the papers judged strong or partial in a search's
runs as a verify_batch.py candidate list (records from the run store, so nothing is retyped and
irrelevant papers never reach LITERATURE.md), and prints how many it kept.

Each prints one line of JSON.

Subcommands:
  feedback --runs ID [ID ...]                 decide after an iteration; print the memo
  next --runs ID [ID ...] --query TEXT        check a refined query; print the next searches
  keep --runs ID [ID ...] --out FILE          the kept papers, as candidates to verify

Example:
  refine.py feedback --runs 3 4
  refine.py next --runs 3 4 --query "Opial property nonexpansive" --search-folder R
  refine.py keep --runs 3 4 5 6 --out R/candidates.json

Exit codes: 0 decided (see "decision"), 2 bad input (unknown run, no run store there, a paper
of the runs not judged, an --out that cannot be written), 4 environment (dependencies could not
be installed, the run store is unusable), 5 internal error.
"""

import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.search import (  # noqa: E402
    check_per_query,
    keep,
    next_refinement_step,
    open_store,
)


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()
    db_parent = cli.run_store_option()
    feedback = commands.add_parser(
        "feedback", parents=[db_parent], help="stop or refine after an iteration"
    )
    feedback.add_argument("--runs", type=int, nargs="+", required=True, metavar="ID")
    following = commands.add_parser(
        "next", parents=[db_parent], help="check a refined query; the next searches"
    )
    following.add_argument("--runs", type=int, nargs="+", required=True, metavar="ID")
    following.add_argument("--query", required=True, help="the refined query the model proposes")
    following.add_argument("--per-query", type=int, default=5, help="results per search (5)")
    following.add_argument(
        "--search-folder",
        "--run-dir",  # its former name, a deprecated alias
        dest="search_folder",
        help="folder the searches' --out files go to (--run-dir: deprecated alias)",
    )
    keep_command = commands.add_parser(
        "keep", parents=[db_parent], help="write the strong and partial papers to verify"
    )
    keep_command.add_argument("--runs", type=int, nargs="+", required=True, metavar="ID")
    keep_command.add_argument("--out", required=True, help="the candidate list to write")
    args = parser.parse_args(argv)
    if args.command == "next":
        check_per_query(args.per_query)
    with open_store(args.db, create=False) as store:
        if args.command == "keep":
            return cli.acknowledge(keep(store, args.runs, Path(args.out)))
        if args.command == "feedback":
            return cli.acknowledge(next_refinement_step(store, args.runs))
        step = next_refinement_step(
            store, args.runs, args.query, args.per_query, args.search_folder
        )
    cli.acknowledge(step)


if __name__ == "__main__":
    cli.run(main)
