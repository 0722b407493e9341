"""One search of one source, from the argument list a plan gives it: the per-source dispatch.

A planned query is the argument list of a search script (`arxiv_query.py search --title ...`,
`s2_lookup.py search --query ...`; mathtools/planning.py writes them). The options each source's
`search` takes are defined here once, and arxiv_query.py and s2_lookup.py build their `search`
subcommands from the same definitions, so a query runs the same in a script and in
`literature.py discover`. A new source is one entry in SOURCES: its options and its search.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import domains
from .cli import BadInput
from .paper import SearchResult


def add_arxiv_options(search: argparse.ArgumentParser) -> None:
    """arxiv_query.py search's options: terms AND-ed, categories OR-ed."""
    search.add_argument("--query", metavar="TEXT", help="raw arXiv query syntax, passed through")
    for name in ("title", "abstract", "author"):
        search.add_argument(
            f"--{name}", action="append", default=[], metavar="TERM", help=f"{name} term or phrase"
        )
    search.add_argument(
        "--all", dest="all_terms", action="append", default=[], metavar="TERM",
        help="term or phrase in any field",
    )  # fmt: skip
    search.add_argument(
        "--category", action="append", default=[], metavar="CAT", help="arXiv category (repeatable)"
    )
    search.add_argument(
        "--domain", choices=list(domains.DOMAINS), help="the protocol domain's categories"
    )
    search.add_argument("--secondary", action="store_true", help="add the domain's secondary ones")
    search.add_argument("--submitted", metavar="FROM..TO", help="e.g. 2020..2024-06, ..2019-12-31")
    search.add_argument(
        "--max-results", type=int, default=10, metavar="N",
        help="papers to return (default %(default)s); start + N may not pass 30,000, arXiv's cap",
    )  # fmt: skip
    search.add_argument(
        "--start", type=int, default=0, metavar="N",
        help="0-based position of the first result (default %(default)s)",
    )  # fmt: skip
    search.add_argument(
        "--sort", default="relevance", choices=["relevance", "lastUpdatedDate", "submittedDate"],
        help="result order (default %(default)s)",
    )  # fmt: skip
    search.add_argument(
        "--order", default="descending", choices=["ascending", "descending"],
        help="sort direction (default %(default)s)",
    )  # fmt: skip


def arxiv_search(client: Any, args: argparse.Namespace) -> SearchResult:
    from .arxiv import build_query

    categories = list(args.category)
    if args.domain:
        categories += domains.categories(args.domain, args.secondary)
    elif args.secondary:
        raise BadInput("--secondary needs --domain", code="usage")
    query = build_query(
        raw=args.query,
        title=args.title,
        abstract=args.abstract,
        author=args.author,
        all_terms=args.all_terms,
        categories=categories,
        submitted=args.submitted,
    )
    return client.search(query, args.start, args.max_results, args.sort, args.order)


def add_s2_options(search: argparse.ArgumentParser) -> None:
    """s2_lookup.py search's options (GET /paper/search)."""
    search.add_argument("--query", required=True)
    search.add_argument("--limit", type=int, default=10, help="1..100 (default 10)")
    search.add_argument("--offset", type=int, default=0, help="offset + limit <= 1000")
    search.add_argument("--fields-of-study", default="Mathematics", help="default Mathematics")
    search.add_argument("--any-field", action="store_true", help="no fields-of-study filter")
    search.add_argument("--year", help="2019, 2010-2020, 2010- or -2015")
    search.add_argument("--venue", help="comma-separated venue names")
    search.add_argument("--publication-types", help="e.g. JournalArticle,Conference")
    search.add_argument("--min-citations", type=int)
    search.add_argument("--open-access", action="store_true", help="only papers with a free PDF")
    search.add_argument("--publication-date", help="2020-01-01:2020-06-30, 2023:, :2024-12-31")


def s2_search(client: Any, args: argparse.Namespace) -> SearchResult:
    return client.search(
        args.query,
        limit=args.limit,
        offset=args.offset,
        fields=getattr(args, "fields", None),
        fields_of_study=None if args.any_field else args.fields_of_study,
        year=args.year,
        venue=args.venue,
        publication_types=args.publication_types,
        min_citations=args.min_citations,
        open_access=args.open_access,
        publication_date=args.publication_date,
    )


def _arxiv_client() -> Any:
    from .arxiv import ArxivClient

    return ArxivClient()


def _s2_client() -> Any:
    from .semantic_scholar import S2Client

    return S2Client()


@dataclass(frozen=True)
class Source:
    name: str  # what the user reads: "arXiv"
    add_options: Callable[[argparse.ArgumentParser], None]
    search: Callable[[Any, argparse.Namespace], SearchResult]
    client: Callable[[], Any]


SOURCES: dict[str, Source] = {
    "arxiv": Source("arXiv", add_arxiv_options, arxiv_search, _arxiv_client),
    "semantic_scholar": Source("Semantic Scholar", add_s2_options, s2_search, _s2_client),
}


class _Refusal(argparse.ArgumentParser):
    """A parser of planned arguments: a bad one is BadInput, never an exit."""

    def error(self, message: str):  # type: ignore[override]
        raise BadInput(f"a planned search has bad arguments: {message}", code="usage")


def parse(api: str, args: list[str]) -> argparse.Namespace:
    """A planned query's arguments (`search ...`, --out allowed) as its source reads them."""
    if api not in SOURCES:
        raise BadInput(f"no such source: {api!r}; known: {', '.join(SOURCES)}", code="usage")
    parser = _Refusal(prog=api, add_help=False)
    SOURCES[api].add_options(parser)
    parser.add_argument("--out")
    return parser.parse_args(args[1:] if args[:1] == ["search"] else args)


def run(api: str, args: list[str], clients: dict[str, Any]) -> SearchResult:
    """Run one planned query of source `api`; `clients` keeps one client per source (made on
    first use), so every query of a source shares its rate limit and cache. The result carries
    the query's label, as the search scripts' --out files do."""
    from .planning import label

    options = parse(api, args)
    if api not in clients:
        clients[api] = SOURCES[api].client()
    result = SOURCES[api].search(clients[api], options)
    result.label = label(api, list(args))
    return result
