#!/usr/bin/env python3
"""Plan the discovery queries for a problem: 3-5 per API, from PROBLEM.md, new ones only.

Reads PROBLEM.md (frontmatter: domain, tags; sections: Problem Statement, Known Results,
References) and proposes queries from the literature protocol's five sources (key terms, tags,
known results, reference authors, category browse), each as the exact arguments of
`arxiv_query.py` or `s2_lookup.py`. Queries already searched for the problem (the run store's
runs, or labels in LITERATURE.md's Search History) are skipped.
References (by arXiv id, DOI or title, with their authors and year) come back as candidates
to verify.

PROBLEM may be a path to PROBLEM.md or a problem slug of the current workspace
(.math/problems/SLUG/PROBLEM.md); without --problem, the current problem of .math/config.json.
LITERATURE.md defaults to the one next to PROBLEM.md.

With --new-run, a search folder PROBLEM_DIR/literature-runs/<N>/ is created (N = 1, 2, ...); every
query then writes its results there (--out i1-arxiv-1.json, ...), the references to verify go to
problem-references.json in it, and the plan itself to plan.json in it (unless --out says
otherwise). The last command line records all of the searches in the run store, one run per API:
`lit_update.py record-run ... --results 'R/i1-*.json'`.

Example:
  plan_queries.py --problem banach-fixed-points --new-run --out plan.json
  plan_queries.py --problem .math/problems/x/PROBLEM.md --focus "spectral radius"

Exit codes: 0 plan printed, 2 bad input (no such PROBLEM.md, bad frontmatter, an --out that
cannot be written), 4 environment (dependencies could not be installed), 5 internal error.
"""

import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.core import PLANNED  # noqa: E402
from mathtools.research import current_slug, problem_file  # noqa: E402
from mathtools.search import (  # noqa: E402
    Plan,
    check_per_query,
    command_lines,
    given_search_folder,
    new_search_folder,
    plan,
    read_problem,
    searched_query_lines,
    stored_query_lines,
    write_json,
)


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--problem", help="path to PROBLEM.md, or a problem slug (default: the current problem)"
    )
    parser.add_argument("--literature", help="LITERATURE.md (default: next to PROBLEM.md)")
    parser.add_argument("--focus", nargs="+", help="extra focus words from the user (a query)")
    parser.add_argument("--per-query", type=int, default=5, help="results per query (default 5)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--search-folder",
        "--run-dir",  # its former name, a deprecated alias
        dest="search_folder",
        help="folder the queries' --out files go to (--run-dir: deprecated alias)",
    )
    where.add_argument(
        "--new-run", action="store_true", help="create PROBLEM_DIR/literature-runs/<N>/"
    )
    parser.add_argument("--out", help="write the full JSON here and print a compact summary")
    args = parser.parse_args(argv)
    check_per_query(args.per_query)

    problem_path = problem_file(args.problem or current_slug())
    literature = Path(args.literature) if args.literature else problem_path.parent / "LITERATURE.md"
    search_folder = (
        new_search_folder(problem_path.parent)
        if args.new_run
        else args.search_folder and given_search_folder(problem_path.parent, args.search_folder)
    )
    problem = read_problem(problem_path)
    planned = plan(
        problem,
        searched=searched_query_lines(literature) | stored_query_lines(problem.slug),
        focus=" ".join(args.focus) if args.focus else None,
        per_query=args.per_query,
        search_folder=str(search_folder) if search_folder else None,
    )
    planned["search_folder"] = str(search_folder) if search_folder else None
    planned["reference_candidates_file"] = None
    if search_folder and planned["reference_candidates"]:
        path = Path(search_folder) / "problem-references.json"
        write_json(path, planned["reference_candidates"])
        planned["reference_candidates_file"] = str(path)
    out = args.out or (str(Path(search_folder) / "plan.json") if args.new_run else None)
    cli.emit(planned, out, summary_lines(planned))


def summary_lines(plan: Plan) -> list[str]:
    """The plan as the model reads it: a header, the search folder once, the command lines."""
    counts = {api: len(plan["queries"][api]) for api in PLANNED}
    lines = [
        f"plan for {plan['problem']} ({'first search' if plan['first_search'] else 'follow-up'}):"
        f" {counts['arxiv']} arXiv + {counts['semantic_scholar']} Semantic Scholar"
        f" + {counts['zbmath']} zbMATH Open queries,"
        f" {len(plan['skipped'])} skipped (in Search History)"
    ]
    if plan["search_folder"]:
        lines.append(f"search folder: {plan['search_folder']}")
    lines += plan["notes"]
    lines += command_lines(plan)
    if plan["reference_candidates_file"]:
        lines.append(
            f"{len(plan['reference_candidates'])} PROBLEM.md references to verify: "
            f"{plan['reference_candidates_file']}"
        )
    return lines


if __name__ == "__main__":
    cli.run(main)
