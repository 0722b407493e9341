#!/usr/bin/env python3
"""Search and look up papers in the Semantic Scholar Graph API; print a search_result JSON.

Subcommands:
  search --query TEXT     relevance search (GET /paper/search): --limit <= 100 and
                          --offset + --limit <= 1000; filters --fields-of-study (default
                          Mathematics; --any-field drops it), --year 2010-2020, --venue,
                          --publication-types, --min-citations, --open-access, --publication-date;
                          --relax asks again in looser forms when nothing is found
  bulk --query TEXT       bulk search (GET /paper/search/bulk), following the continuation token
                          up to --max papers; --sort citationCount:desc
  match --title TEXT      the best title match (GET /paper/search/match); no match -> not_found
  get ID [ID ...]         look papers up one by one (GET /paper/{id}); unknown ids -> not_found
  batch ID [ID ...]       look papers up 500 at a time (POST /paper/batch); ids also from
                          --ids-file FILE or '-' (stdin); unknown ids -> not_found
  references ID           the papers ID cites, paged (--limit, --page-size)
  citations ID            the papers citing ID, paged (--limit, --page-size)

`get` and `batch` are both look-ups; batch stays a command of its own (get does not switch to it)
because each command names one endpoint, so what a call costs is plain: get sends one request
per id, batch one request per 500 ids and reads ids from a file or stdin. Use batch for more
than a few ids. Paging: --limit (papers wanted, or per page for search), --offset (first paper),
--max (bulk's total), as in the other look-up scripts.

Ids: ARXIV:, DOI:, CorpusId:, MAG:, PMID:, URL: prefixes, a 40-hex paperId (bare or S2:), or a
bare arXiv id or DOI (the prefix is inferred); so every record's `key` is an id. Every
subcommand takes --fields (the API's field names, comma separated), --out FILE (full JSON to
FILE, a compact summary on stdout) and --no-cache. The JSON's `query_line` is the call in Search
History form (`s2 --query "fixed point"`), which lit_update.py record-run stores.

The API key comes from SEMANTIC_SCHOLAR_API_KEY or .math/config.json semantic_scholar_api_key and
is never printed. Example:
  s2_lookup.py search --query "Kakeya sets over finite fields" --year 2008-2024 --limit 20

Exit codes: 0 success, 2 bad input (ids, limits, fields the API rejects), 3 the service still
failing after retries, 4 environment (dependencies, cache folder), 5 internal error (a bug).
Errors are one JSON line {"error": {"code", "message"}}.
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
from mathtools.core import SearchResult  # noqa: E402
from mathtools.search import query_line  # noqa: E402
from mathtools.services import (  # noqa: E402
    S2Client,
    check_bulk_max,
    check_graph_window,
    check_search_filters,
    check_search_window,
    s2_id,
)


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    common = cli.lookup_options()
    common.add_argument("--fields", help="API fields to request, comma separated")
    commands = parser.add_commands()

    search = commands.add_parser("search", parents=[common], help="relevance search")
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
    search.add_argument(
        "--relax", action="store_true",
        help="if nothing is found, ask again without quotes, without the last word, then with "
        "the first two words; the JSON's relaxation says which form answered",
    )  # fmt: skip

    bulk = commands.add_parser("bulk", parents=[common], help="bulk search, token-paged")
    bulk.add_argument("--query", required=True)
    bulk.add_argument("--sort", help="e.g. citationCount:desc, publicationDate:asc")
    bulk.add_argument("--max", type=int, default=1000, help="papers to collect (default 1000)")

    match = commands.add_parser("match", parents=[common], help="best title match")
    match.add_argument("--title", required=True)

    get = commands.add_parser(
        "get", parents=[common], help="look papers up, a request each (GET /paper/{id})"
    )
    get.add_argument("ids", nargs="+", metavar="ID")

    batch = commands.add_parser(
        "batch", parents=[common], help="look papers up 500 a request (POST /paper/batch)"
    )
    batch.add_argument("ids", nargs="*", metavar="ID", help="ids, or '-' to read them from stdin")
    batch.add_argument("--ids-file", metavar="FILE", help="one id a line ('-' for stdin)")

    for edge in ("references", "citations"):
        graph = commands.add_parser(edge, parents=[common], help=f"the paper's {edge}, paged")
        graph.add_argument("id", metavar="ID")
        graph.add_argument("--limit", type=int, default=100, help="papers to collect (100)")
        graph.add_argument("--page-size", type=int, default=100, help="per request, 1..1000")

    args = parser.parse_args(argv)
    check_input(args)
    client = S2Client(use_cache=not args.no_cache)
    result = run_command(client, args)
    cli.emit_search_result(result, query_line("semantic_scholar", list(argv)), args.out)


def check_input(args: argparse.Namespace) -> None:
    """Refuse bad input before the client exists (creating it prints the no-key note): limits,
    filters and every id; batch ids are read from stdin or --ids-file here, once."""
    if args.command == "search":
        check_search_window(args.limit, args.offset)
        check_search_filters(args.year, args.min_citations)
    elif args.command == "bulk":
        check_bulk_max(args.max)
    elif args.command in ("references", "citations"):
        check_graph_window(args.limit, args.page_size)
    if args.command == "batch":
        args.ids = batch_ids(args)
    for paper_id in [args.id] if "id" in args else getattr(args, "ids", []):
        if paper_id.strip():
            s2_id(paper_id)


def run_command(client: S2Client, args: argparse.Namespace) -> SearchResult:
    if args.command == "search":
        from mathtools.search import search_s2

        options = dict(
            limit=args.limit,
            offset=args.offset,
            fields=args.fields,
            fields_of_study=None if args.any_field else args.fields_of_study,
            year=args.year,
            venue=args.venue,
            publication_types=args.publication_types,
            min_citations=args.min_citations,
            open_access=args.open_access,
            publication_date=args.publication_date,
        )
        if args.relax:
            return search_s2(client, args.query, **options)
        return client.search(args.query, **options)
    if args.command == "bulk":
        return client.bulk(args.query, sort=args.sort, max_results=args.max, fields=args.fields)
    if args.command == "match":
        return client.match(args.title, fields=args.fields)
    if args.command == "get":
        return client.get(args.ids, fields=args.fields)
    if args.command == "batch":
        return client.batch(args.ids, fields=args.fields).to_search_result()
    graph = client.references if args.command == "references" else client.citations
    return graph(args.id, limit=args.limit, fields=args.fields, page_size=args.page_size)


def batch_ids(args: argparse.Namespace) -> list[str]:
    ids = list(args.ids)
    if ids == ["-"]:
        ids = cli.read_items("-", s2_id, "ids file")
    if args.ids_file:
        ids += cli.read_items(args.ids_file, s2_id, "ids file")
    if not ids:
        raise BadInput("batch needs ids: as arguments, --ids-file FILE or '-'", code="bad_id")
    return ids


if __name__ == "__main__":
    cli.run(main)
