#!/usr/bin/env python3
"""Keep a problem's LITERATURE.md and the run store of its searches.

Subcommands:
  merge       merge a verify_batch.py result into LITERATURE.md (created from the template when
              absent): CONFIRMED and CORRECTED -> REF-NNN (CORRECTED with a Corrected: line saying
              how the citation was wrong; protocols/matching-rules.md), UNCONFIRMED -> UREF-NNN,
              duplicates updated in place, a confirmed UREF moved to a new REF, numbers never
              reused, one Search History row, counts recomputed. --relevance fills Relevance / Key
              Results / Confidence (only where still unassessed). The Search History row's Query
              Summary and arXiv and S2 Results come from the search's runs in the run store
              (--runs), else from --query-summary, --arxiv-results and --s2-results (which also
              override --runs), else the results are counted by source (a result both sources
              confirmed counts for each). Prints one line per entry added, updated, moved or skipped
              (--json: the full report). The same merge twice changes nothing; --dry-run prints the
              unified diff and writes nothing.
  validate    check LITERATURE.md against the schema and the anti-hallucination rules; exit 1
              listing every violation
  record-run  store search runs (problem, iteration, feedback memo) with the papers of their
              search_result files: one run per source of the files (or --source), its query
              the labels of the calls that wrote them (or --query). --results takes files or a
              pattern such as 'RUN/i1-*.json'; --feedback takes @FILE. Prints the run ids
  judge       store labels strong|partial|irrelevant for papers of a run, by key (metadata comes
              from the run's results; confidence is clamped to [0, 1]); prints the counts and
              how many of the run's papers are judged ("judged 5 of 8", naming the rest)
  runs        list runs (of one problem) as JSON, or --table
  judgements  show one run's judgements as JSON, or --table

The run store is .math/literature.db, or --db, or $MATH_LITERATURE_DB. record-run creates it;
the other commands never do: they refuse a run store that does not exist (exit 2, naming it),
except that `runs` lists no runs when the workspace has none yet (no --db given).

Example:
  lit_update.py record-run --problem spectral-gap --iteration 1 --results 'RUN/i1-*.json'
  lit_update.py judge --run 1 --judgements judgements.json
  lit_update.py merge --literature .math/problems/spectral-gap/LITERATURE.md \\
      --verified verified.json --relevance relevance.json --runs 1 2

Exit codes: 0 ok, 1 validate found violations, 2 bad input (a malformed LITERATURE.md is named
with its line and left untouched), 4 environment (the run store is unusable, dependencies could
not be installed, LITERATURE.md locked by another process), 5 internal error.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools import bootstrap, errors, files

bootstrap.ensure()

from mathtools import cli, config  # noqa: E402
from mathtools.store import LABELS  # noqa: E402


def main(argv):
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()

    db_parent = cli.run_store_option()

    merge = commands.add_parser(
        "merge", parents=[db_parent], help="merge verified results into LITERATURE.md"
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
    merge.add_argument("--arxiv-results", type=int, help="arXiv Results (default: counted)")
    merge.add_argument("--s2-results", type=int, help="S2 Results (default: counted)")
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
        choices=["arxiv", "semantic_scholar", "zbmath", "crossref"],
        help="one run of this source (default: one run per source of the files)",
    )
    record.add_argument("--feedback", help="the feedback memo that shaped the query (or @FILE)")

    judge = commands.add_parser("judge", parents=[db_parent], help="store paper judgements")
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


def do_merge(args):
    from mathtools import litmerge

    verified = files.read_json(args.verified, "verification")
    relevance = files.read_json(args.relevance, "relevance") if args.relevance else None
    history = {}
    if args.runs:
        with open_store(args, create=False) as store:
            history = store.history_row(args.runs)
    given = {
        "summary": args.query_summary,
        "arxiv_results": args.arxiv_results,
        "s2_results": args.s2_results,
    }
    history.update({name: value for name, value in given.items() if value is not None})
    report, diff = litmerge.merge_file(
        Path(args.literature),
        verified,
        relevance,
        dry_run=args.dry_run,
        problem=args.problem,
        title=args.title,
        **history,
    )
    if args.dry_run:
        sys.stdout.write(diff or "no changes\n")
    elif args.json:
        cli.emit(report)
    else:
        sys.stdout.write("".join(line + "\n" for line in litmerge.summary_lines(report)))


def do_validate(args):
    from mathtools import litcheck

    violations = litcheck.validate(Path(args.path))  # a Path: never taken as the text itself
    cli.acknowledge({"valid": not violations, "violations": violations})
    return errors.EXIT_VIOLATIONS if violations else errors.EXIT_OK


def open_store(args, create=True):
    from mathtools import store

    return store.open_store(args.db, create)


def do_record_run(args):
    from mathtools import schemas

    runs: dict[str, list[dict]] = {}  # source -> its search results, in the order given
    for name in result_files(args.results):
        data = files.read_json(name, "search result")
        problems = schemas.errors("search_result", data)
        if problems:
            raise errors.BadInput(f"{name} is not a search result: {problems[0]}")
        if not (args.query or data.get("label")):
            raise errors.BadInput(f"{name} does not say which call made it: give --query")
        runs.setdefault(args.source or data["source"], []).append(data)
    if not runs:
        if not args.source or not args.query:
            raise errors.BadInput(
                "a run without --results needs --source and --query", code="usage"
            )
        runs[args.source] = []
    feedback = cli.text_arg(args.feedback)
    recorded = []
    with open_store(args) as store:
        for source, results in runs.items():
            query = args.query or "; ".join(dict.fromkeys(r["label"] for r in results))
            run = store.record_run(args.problem, query, source, args.iteration, feedback, results)
            recorded.append({k: run[k] for k in ("run_id", "source", "result_count")})
    # The model needs the run ids (to judge each run) and how many papers each holds.
    cli.acknowledge({"runs": recorded})


def result_files(values):
    """The --results files: each value a path, or a pattern (`RUN/i1-*.json`) when the shell
    did not expand it; a pattern matching nothing is an error, never an empty run."""
    import glob
    import re

    def natural(name):  # i1-arxiv-2 before i1-arxiv-10
        return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]

    names = []
    for value in values:
        if glob.has_magic(value) and not Path(value).exists():
            found = sorted(glob.glob(value), key=natural)
            if not found:
                raise errors.BadInput(
                    f"no search result file matches {value}", code="file_not_found"
                )
            names += found
        else:
            names.append(value)
    return list(dict.fromkeys(names))


def do_judge(args):
    from mathtools import schemas

    judgements = files.read_json(args.judgements, "judgements")
    if not isinstance(judgements, list):
        raise errors.BadInput(f"{args.judgements}: judgements must be a JSON list")
    problems = [p for p in schemas.errors("judgements", judgements) if "label" not in p]
    if problems:  # unknown labels get the store's clearer message
        raise errors.BadInput(f"{args.judgements}: {problems[0]}")
    with open_store(args, create=False) as store:  # its runs must be recorded first
        stored = store.record_judgements(args.run, judgements)
        unjudged = store.unjudged(args.run)
    # The model wrote these judgements: acknowledge them by count, do not echo them back (the
    # keys are in its file; `judgements RUN --table` shows what the run store holds). Papers
    # still unjudged are named (a few): refine.py feedback waits for every one.
    by_label = {label: sum(j["label"] == label for j in stored) for label in LABELS}
    done = {"judged": f"{len(stored)} of {len(stored) + len(unjudged)}"}
    if unjudged:
        more = (
            [f"and {len(unjudged) - SHOWN_UNJUDGED} more"] if len(unjudged) > SHOWN_UNJUDGED else []
        )
        done["unjudged"] = unjudged[:SHOWN_UNJUDGED] + more
    cli.acknowledge({"run_id": args.run, "recorded": len(stored), **by_label, **done})


SHOWN_UNJUDGED = 5


RUN_COLUMNS = [
    ("run", lambda r: r["run_id"]),
    ("problem", lambda r: r["problem"]),
    ("iter", lambda r: r["iteration"]),
    ("source", lambda r: r["source"]),
    ("results", lambda r: r["result_count"]),
    ("s/p/i", lambda r: "/".join(str(n) for n in r["judged"].values())),
    ("time", lambda r: r["created_at"]),
    ("query", lambda r: r["query"]),
]
JUDGEMENT_COLUMNS = [
    ("key", lambda j: j["key"]),
    ("label", lambda j: j["label"]),
    ("conf", lambda j: f"{j['confidence']:.2f}"),
    ("title", lambda j: j["record"].get("title", "")),
    ("rationale", lambda j: j["rationale"]),
]


def do_runs(args):
    if args.db is None and not config.literature_db().exists():
        found = []  # nothing searched in this workspace yet; a --db naming no store is refused
    else:
        with open_store(args, create=False) as store:
            found = store.runs(args.problem)
    show(found, RUN_COLUMNS, args.table)


def do_judgements(args):
    with open_store(args, create=False) as store:
        show(store.judgements(args.run), JUDGEMENT_COLUMNS, args.table)


def show(items, columns, table, width=48):
    """JSON, or with `table` one padded row per item, long cells cut at `width` characters."""
    if not table:
        return cli.emit(items)

    def cut(value):
        text = " ".join(str(value).split())
        return text if len(text) <= width else text[: width - 1] + "…"

    cells = [[name for name, _ in columns]]
    cells += [[cut(value(item)) for _, value in columns] for item in items]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    for n, row in enumerate(cells):
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    if not items:
        print("(none)")


COMMANDS = {
    "merge": do_merge,
    "validate": do_validate,
    "record-run": do_record_run,
    "judge": do_judge,
    "runs": do_runs,
    "judgements": do_judgements,
}

if __name__ == "__main__":
    cli.run(main)
