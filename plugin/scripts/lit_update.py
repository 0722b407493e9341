#!/usr/bin/env python3
"""Keep a problem's LITERATURE.md and the run store of its searches.

Subcommands (merge and judge are deprecated: `literature.py merge` and `literature.py judge` do
both within a search, and these two go in the next release):
  merge       (deprecated) merge a verify_batch.py result into LITERATURE.md (created from the
              template when absent): CONFIRMED and CORRECTED -> REF-NNN (CORRECTED with a Corrected:
              line saying how the citation was wrong; docs/matching-rules.md), UNCONFIRMED ->
              UREF-NNN, duplicates updated in place, a confirmed UREF moved to a new REF, numbers
              never reused, one Search History row, counts recomputed. --relevance fills Relevance /
              Key Results / Confidence (only where still unassessed). The Search History row's Query
              Summary and Results come from the search's runs in the run store (--runs), else
              from --query-summary and --results (which also override --runs), else the results
              are counted by source (a result several sources confirmed counts for each). Prints
              one line per entry added, updated, moved or skipped (--json: the full report). The
              same merge twice changes nothing; --dry-run prints the unified diff and writes
              nothing.
  validate    check LITERATURE.md against the schema and the anti-hallucination rules; exit 1
              listing every violation
  record-run  store search runs (problem, iteration, feedback memo) with the papers of their
              search_result files: one run per source of the files (or --source), its query
              the labels of the calls that wrote them (or --query). --results takes files or a
              pattern such as 'RUN/i1-*.json'; --feedback takes @FILE. Prints the run ids
  judge       (deprecated) store labels strong|partial|irrelevant for papers of a run, by key
              (metadata comes from the run's results; confidence is clamped to [0, 1]); prints
              the counts and how many of the run's papers are judged ("judged 5 of 8", naming
              the rest)
  runs        list runs (of one problem) as JSON, or --table
  judgements  show one run's judgements as JSON, or --table

The run store is .math/literature.db, or --db, or $MATH_LITERATURE_DB. record-run creates it;
the other commands never do: they refuse a run store that does not exist (exit 2, naming it),
except that `runs` lists no runs when the workspace has none yet (no --db given).

Example:
  lit_update.py record-run --problem spectral-gap --iteration 1 --results 'RUN/i1-*.json'
  lit_update.py runs --problem spectral-gap --table
  lit_update.py validate .math/problems/spectral-gap/LITERATURE.md

Exit codes: 0 ok, 1 validate found violations, 2 bad input (a malformed LITERATURE.md is named
with its line and left untouched), 4 environment (the run store is unusable, dependencies could
not be installed, LITERATURE.md locked by another process), 5 internal error.
"""

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import EXIT_OK, EXIT_VIOLATIONS, BadInput, ensure, read_json  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.core import (  # noqa: E402
    RUNS,
    SOURCES,
    as_int,
    literature_db,
)
from mathtools.search import (  # noqa: E402
    JUDGEMENT_COLUMNS,
    RUN_COLUMNS,
    Columns,
    RunStore,
    check_judgements,
    record_judgements,
    record_runs,
    runs_of,
    table,
)


def main(argv: Sequence[str]) -> int | None:
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()

    db_parent = cli.run_store_option()

    merge = commands.add_parser(
        "merge", parents=[db_parent], help="deprecated: literature.py merge"
    )
    merge.add_argument("--literature", required=True, help="the LITERATURE.md to update")
    merge.add_argument("--verified", required=True, help="verify_batch.py output ('-' = stdin)")
    merge.add_argument("--relevance", help="the model's relevance JSON, keyed by candidate key")
    merge.add_argument(
        "--runs",
        type=int,
        nargs="+",
        metavar="ID",
        help="the search's runs: the Search History row's queries and result counts",
    )
    merge.add_argument("--query-summary", help="the Search History row's Query Summary")
    merge.add_argument(
        "--results",
        nargs="+",
        metavar="SOURCE=N",
        help="the Results: each source's count, arxiv=40 semantic_scholar=12 (default: counted)",
    )
    merge.add_argument("--problem", help="slug for a new file (default: its folder's name)")
    merge.add_argument("--title", help="problem title for a new file's heading")
    merge.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    merge.add_argument("--json", action="store_true", help="print the full JSON report")

    validate = commands.add_parser("validate", help="check a LITERATURE.md")
    validate.add_argument("path")

    record = commands.add_parser("record-run", parents=[db_parent], help="store search runs")
    record.add_argument("--problem", required=True)
    record.add_argument("--iteration", required=True, type=int)
    record.add_argument(
        "--results", nargs="*", default=[], help="search_result JSON files, or a pattern"
    )
    record.add_argument("--query", help="the run's query (default: the files' call labels)")
    record.add_argument(
        "--source",
        choices=RUNS,
        help="one run of this source (default: one run per source of the files)",
    )
    record.add_argument("--feedback", help="the feedback memo that shaped the query (or @FILE)")

    judge = commands.add_parser(
        "judge", parents=[db_parent], help="deprecated: literature.py judge"
    )
    judge.add_argument("--run", required=True, type=int)
    judge.add_argument("--judgements", required=True, help="JSON list ('-' = stdin)")

    runs = commands.add_parser("runs", parents=[db_parent], help="list runs")
    runs.add_argument("--problem")
    runs.add_argument("--table", action="store_true", help="a readable table instead of JSON")

    shown = commands.add_parser("judgements", parents=[db_parent], help="show a run's judgements")
    shown.add_argument("run", type=int)
    shown.add_argument("--table", action="store_true", help="a readable table instead of JSON")

    args = parser.parse_args(argv)
    return COMMANDS[args.command](args)


def _counts(given: list[str] | None) -> dict[str, int] | None:
    """--results' SOURCE=N pairs as {source: count}; BadInput for anything else."""
    if given is None:
        return None
    counts = {}
    for pair in given:
        source, _, text = pair.partition("=")
        count = as_int(text)
        if source not in SOURCES or count is None:
            raise BadInput(
                f"--results takes SOURCE=N with SOURCE one of {', '.join(SOURCES)} "
                f"and N a whole number, not {pair!r}",
                code="usage",
            )
        counts[source] = count
    return counts


def do_merge(args: argparse.Namespace) -> None:
    from mathtools.litdoc import merge_file, merge_summary_lines

    verified = read_json(args.verified, "verification")
    relevance = read_json(args.relevance, "relevance") if args.relevance else None
    history: dict[str, object] = {}
    if args.runs:
        with open_run_store(args, create=False) as store:
            history.update(store.history_row(args.runs))
    given = {"summary": args.query_summary, "results": _counts(args.results)}
    history.update({name: value for name, value in given.items() if value is not None})
    report, diff = merge_file(
        Path(args.literature),
        verified,
        relevance,
        dry_run=args.dry_run,
        problem=args.problem,
        title=args.title,
        **history,
    )
    if not args.dry_run and not report["already_merged"]:
        from mathtools.research import (
            record_merge,  # as merging above: only this subcommand needs it
        )

        record_merge(Path(args.literature), f"merge {report['merge_id']}")
    if args.dry_run:
        sys.stdout.write(diff or "no changes\n")
    elif args.json:
        cli.emit(report)
    else:
        sys.stdout.write("".join(line + "\n" for line in merge_summary_lines(report)))


def do_validate(args: argparse.Namespace) -> int:
    from mathtools.litdoc import validate

    violations = validate(Path(args.path))  # a Path: never taken as the text itself
    cli.acknowledge({"valid": not violations, "violations": violations})
    return EXIT_VIOLATIONS if violations else EXIT_OK


def open_run_store(args: argparse.Namespace, create: bool = True) -> RunStore:
    from mathtools.search import open_store

    return open_store(args.db, create)


def do_record_run(args: argparse.Namespace) -> None:
    runs = runs_of(args.results, args.source, args.query)
    feedback = cli.text_arg(args.feedback)
    with open_run_store(args) as store:
        recorded = record_runs(store, args.problem, args.iteration, runs, args.query, feedback)
    # The model needs the run ids (to judge each run) and how many papers each holds.
    cli.acknowledge({"runs": recorded})


def do_judge(args: argparse.Namespace) -> None:
    judgements = read_json(args.judgements, "judgements")
    judgements = check_judgements(judgements, args.judgements)
    with open_run_store(args, create=False) as store:  # its runs must be recorded first
        done = record_judgements(store, args.run, judgements)
    # The model wrote these judgements: acknowledge them by count, do not echo them back (the
    # keys are in its file; `judgements RUN --table` shows what the run store holds). Papers
    # still unjudged are named (a few): refine.py feedback waits for every one.
    cli.acknowledge(done)


def do_runs(args: argparse.Namespace) -> None:
    if args.db is None and not literature_db().exists():
        found = []  # nothing searched in this workspace yet; a --db naming no store is refused
    else:
        with open_run_store(args, create=False) as store:
            found = store.runs(args.problem)
    show(found, RUN_COLUMNS, args.table)


def do_judgements(args: argparse.Namespace) -> None:
    with open_run_store(args, create=False) as store:
        show(store.judgements(args.run), JUDGEMENT_COLUMNS, args.table)


def show(items: Sequence[Mapping[str, Any]], columns: Columns, as_table: bool) -> None:
    """JSON, or with `as_table` the readable table."""
    if not as_table:
        cli.emit(items)
        return
    sys.stdout.write("".join(line + "\n" for line in table(items, columns)))


COMMANDS: dict[str, Callable[[argparse.Namespace], int | None]] = {
    "merge": do_merge,
    "validate": do_validate,
    "record-run": do_record_run,
    "judge": do_judge,
    "runs": do_runs,
    "judgements": do_judgements,
}

if __name__ == "__main__":
    cli.run(main)
