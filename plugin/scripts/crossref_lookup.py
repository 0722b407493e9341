#!/usr/bin/env python3
"""Search and look up works in Crossref, the registry behind every DOI; print a search_result JSON.

A script of its own (not a subcommand of zbmath_lookup.py) because it is a different service with
its own limits and ids, like arxiv_query.py and s2_lookup.py: each script's output names one
`source`, which the run store and Search History count.

Subcommands:
  search --query TEXT     GET /works?query.bibliographic=TEXT (title, authors, venue and year
                          words of a citation); --author NAME, --year 2019 or 2010-2020,
                          --type (journal-article, book, book-chapter, proceedings-article, ...),
                          --limit 1..1000 (10), --offset (first work, from 0; --rows is a
                          deprecated alias of --limit). A real-word query matches millions of
                          works and the first can be another paper: compare titles.
  get DOI [DOI ...]       the works behind DOIs, in one filter=doi:A,doi:B request (50 a call);
                          DOIs Crossref does not know -> not_found

Crossref's polite pool (higher limits) is used when you give an address: MATH_CONTACT_EMAIL or
`contact_email` in .math/config.json (sent in the User-Agent, never printed). Requests are spaced
for the pool's published limits across processes (MATH_CROSSREF_MIN_INTERVAL overrides). Base
URL: MATH_CROSSREF_API_URL. Every subcommand takes --out FILE and --no-cache. Example:
  crossref_lookup.py get 10.1007/BF02551274 10.2307/2306804

Exit codes: 0 success, 2 bad input, 3 the service still failing after retries, 4 environment,
5 internal error (a bug). Errors are one JSON line {"error": {"code", "message"}}.
"""

import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.core import (  # noqa: E402
    SearchResult,
    normalise_doi,
)
from mathtools.search import query_line  # noqa: E402
from mathtools.services import CROSSREF_SOURCE, CrossrefClient, check_window  # noqa: E402


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    common = cli.lookup_options()
    commands = parser.add_commands()

    search = commands.add_parser("search", parents=[common], help="bibliographic search")
    search.add_argument("--query", required=True)
    search.add_argument("--author", help="an author's name (query.author)")
    search.add_argument("--year", help="2019, 2010-2020, 2010- or -2015")
    search.add_argument("--type", dest="work_type", help="journal-article, book, ...")
    search.add_argument(
        "--limit", "--rows", dest="limit", type=int, default=10,
        help="works to return, 1..1000 (default 10; --rows: deprecated alias)",
    )  # fmt: skip
    search.add_argument("--offset", type=int, default=0, help="first work, from 0")

    get = commands.add_parser("get", parents=[common], help="look works up by DOI")
    get.add_argument("dois", nargs="+", metavar="DOI")

    args = parser.parse_args(argv)
    if args.command == "search":
        check_window(args.limit, args.offset)
    dois = [normalise_doi(doi) for doi in args.dois] if args.command == "get" else []
    client = CrossrefClient(use_cache=not args.no_cache)
    if args.command == "search":
        result = client.search(
            args.query,
            rows=args.limit,
            offset=args.offset,
            author=args.author,
            year=args.year,
            work_type=args.work_type,
        )
    else:
        found, urls = client.works(dois)
        result = SearchResult(
            source=CROSSREF_SOURCE,
            command="get",
            request_urls=urls,
            papers=[found[doi] for doi in dict.fromkeys(dois) if doi in found],
            not_found=[
                asked for asked, doi in zip(args.dois, dois, strict=True) if doi not in found
            ],
        )
    cli.emit_search_result(result, query_line("crossref", list(argv)), args.out)


if __name__ == "__main__":
    cli.run(main)
