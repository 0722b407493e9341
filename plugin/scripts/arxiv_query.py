#!/usr/bin/env python3
"""Search arXiv, look papers up by id, or read a paper's theorems from its LaTeX source, as JSON.

  search   build a query from options (terms AND-ed, categories OR-ed) and page through results
  get      look ids up with id_list; ids arXiv silently dropped are listed in "not_found"
           (`ids`, its former name, still works: a deprecated alias)
  theorems the theorem-like statements of a paper's LaTeX source (from arXiv's /src,
           MATH_ARXIV_SRC_URL), numbered as the PDF prints them, with the paper's macros;
           "status" is ok, or no_latex_source with a "reason" (unknown_id, withdrawn, pdf_only, ...)

Examples:
  arxiv_query.py search --title "heat-bath random walk" --domain combinatorics --limit 20
  arxiv_query.py search --query 'au:del_maestro ANDNOT ti:checkerboard' --sort submittedDate
  arxiv_query.py search --all "Links-Gould invariant" --domain topology --relax
  arxiv_query.py get 2104.12255v1 math.AG/0601001 arXiv:1605.08386 --out found.json
  arxiv_query.py get --ids-file candidates.txt          (or `-` to read ids from stdin)
  arxiv_query.py theorems 2008.10111 --version 2

Paging: --limit papers from --offset (0-based); their former names --max-results and --start
still work as deprecated aliases. With --out FILE the full JSON goes to FILE and stdout gets one
short line per paper (id | year | first author | title). The JSON's `query_line` is the call in
Search History form (`arxiv --all "fixed point" --domain analysis`), which lit_update.py
record-run stores.
With --relax (every search a plan prints carries it) an empty search is asked again in looser
forms: without quotes, without its weakest term, then with its words OR-ed; the JSON's
`relaxation` names the form that answered. Requests are cached (--no-cache asks arXiv again)
and spaced at least 3 s apart across all running scripts (MATH_ARXIV_MIN_INTERVAL).

Exit codes: 0 success (a paper without source too), 2 bad input (arguments, ids, a query arXiv
rejects, an --out that cannot be written), 3 arXiv still failing after retries, or a source
archive that cannot be read safely (a bomb, links, paths leaving it, ...), 4 environment
(dependencies could not be installed, the cache folder is unusable), 5 internal error.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import BadInput, ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.core import DOMAINS, categories, domain_name  # noqa: E402
from mathtools.search import query_line  # noqa: E402


def build_parser() -> cli.ArgumentParser:
    parser = cli.ArgumentParser(description=__doc__)
    common = cli.lookup_options("ask arXiv even if cached")
    commands = parser.add_commands()

    search = commands.add_parser("search", parents=[common], help="search with a built query")
    search.add_argument("--query", metavar="TEXT", help="raw arXiv query syntax, passed through")
    for name, what in (("title", "title"), ("abstract", "abstract"), ("author", "author")):
        search.add_argument(
            f"--{name}", action="append", default=[], metavar="TERM", help=f"{what} term or phrase"
        )
    search.add_argument(
        "--all", dest="all_terms", action="append", default=[], metavar="TERM",
        help="term or phrase in any field",
    )  # fmt: skip
    search.add_argument(
        "--category", action="append", default=[], metavar="CAT", help="arXiv category (repeatable)"
    )
    search.add_argument(
        "--domain", choices=list(DOMAINS), type=lambda name: domain_name(name) or name,
        help="the protocol domain's categories (a common name of the field too: pde, optimization)",
    )  # fmt: skip
    search.add_argument("--secondary", action="store_true", help="add the domain's secondary ones")
    search.add_argument("--submitted", metavar="FROM..TO", help="e.g. 2020..2024-06, ..2019-12-31")
    search.add_argument(
        "--relax", action="store_true",
        help="if nothing is found, ask again without quotes, without the weakest term, then with "
        "the words OR-ed; the JSON's relaxation says which form answered",
    )  # fmt: skip
    search.add_argument(
        "--limit", "--max-results", dest="limit", type=int, default=10, metavar="N",
        help="papers to return (default %(default)s); offset + N may not pass 30,000, arXiv's "
        "cap (--max-results: deprecated alias)",
    )  # fmt: skip
    search.add_argument(
        "--offset", "--start", dest="offset", type=int, default=0, metavar="N",
        help="0-based position of the first result (default %(default)s); --start: deprecated "
        "alias",
    )  # fmt: skip
    search.add_argument(
        "--sort", default="relevance", choices=["relevance", "lastUpdatedDate", "submittedDate"],
        help="result order (default %(default)s)",
    )  # fmt: skip
    search.add_argument(
        "--order", default="descending", choices=["ascending", "descending"],
        help="sort direction (default %(default)s)",
    )  # fmt: skip

    get = commands.add_parser(
        "get", aliases=["ids"], parents=[common],
        help="look papers up by arXiv id (ids: deprecated alias)",
    )  # fmt: skip
    get.add_argument("ids", nargs="*", metavar="ID", help="arXiv ids, or - to read them from stdin")
    get.add_argument("--ids-file", metavar="FILE", help="read ids from FILE (one or more a line)")

    theorems = commands.add_parser(
        "theorems", parents=[common],
        help="the theorem-like statements of a paper's LaTeX source, as JSON",
    )  # fmt: skip
    theorems.add_argument("id", metavar="ID", help="arXiv id (a vN suffix asks for that version)")
    theorems.add_argument(
        "--version", type=int, metavar="N", help="the version to read (default: the latest)"
    )
    return parser


def main(argv: Sequence[str]) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "theorems":
        _theorems(args)
        return
    from mathtools.services import ArxivClient

    client = ArxivClient(use_cache=not args.no_cache)
    if args.command == "search":
        wanted = list(args.category)
        if args.domain:
            wanted += categories(args.domain, args.secondary)
        elif args.secondary:
            raise BadInput("--secondary needs --domain", code="usage")
        from mathtools.search import ArxivRequest, search_arxiv

        request = ArxivRequest(
            terms=[(name, term) for name in ("title", "abstract", "all_terms")
                   for term in getattr(args, name)],
            authors=args.author,
            categories=wanted,
            raw=args.query,
            submitted=args.submitted,
            max_results=args.limit,
        )  # fmt: skip
        if args.relax:
            result = search_arxiv(client, request, args.offset, args.sort, args.order)
        else:
            query = request.query()
            result = client.search(query, args.offset, args.limit, args.sort, args.order)
    else:
        result = client.fetch_ids(_asked_ids(args))
    cli.emit_search_result(result, query_line("arxiv", list(argv)), args.out)


def _theorems(args: argparse.Namespace) -> None:
    from mathtools.core import normalise_arxiv_id
    from mathtools.papers import paper_theorems, theorems_summary_lines
    from mathtools.services import LatexSourceClient

    arxiv_id, version = normalise_arxiv_id(args.id)
    if args.version is not None:
        if args.version < 1 or (version is not None and version != args.version):
            raise BadInput(f"--version {args.version} does not fit {args.id!r}", code="bad_version")
        version = args.version
    if version is not None and version < 1:
        raise BadInput(f"no version {version} of an arXiv paper", code="bad_version")
    record = paper_theorems(arxiv_id, version, LatexSourceClient(use_cache=not args.no_cache))
    cli.emit(record, args.out, theorems_summary_lines(record))


def _asked_ids(args: argparse.Namespace) -> list[str]:
    """Ids from --ids-file, the arguments and `-` (stdin); a file line may hold several."""
    asked = _ids_in(args.ids_file) if args.ids_file else []
    for arg in args.ids:
        asked += _ids_in("-") if arg == "-" else [arg]
    if not asked:
        raise BadInput("no ids: give ID arguments, --ids-file FILE or -", code="no_ids")
    return asked


def _ids_in(source: str) -> list[str]:
    from mathtools.core import normalise_arxiv_id

    return cli.read_items(source, normalise_arxiv_id, "ids file", split=True)


if __name__ == "__main__":
    cli.run(main)
