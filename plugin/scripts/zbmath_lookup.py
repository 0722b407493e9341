#!/usr/bin/env python3
"""Search and look up documents in zbMATH Open (mathematics' own index); print a search_result JSON.

Subcommands:
  search                  GET /document/_search: --query in zbMATH's syntax (`ti: au: py: so:
                          cc: dt: an: doi: arxiv:` terms, `&`, `|`, `!`, quoted phrases,
                          parentheses) and/or --title, --author, --msc (an MSC class or code:
                          11, 11R, 11R27; repeatable), --year (2016 or 2010-2020) and --type
                          (j journal article, a book article, b book), joined with `&`;
                          --limit 1..100 per --page (from 0)
  get ID [ID ...]         look documents up by Zbl number (Zbl 1409.11141 or Zbl:1409.11141),
                          zbMATH's internal number (zbMATH:6617923), DOI or arXiv id: one
                          `|`-joined search for all of them; ids no record carries -> not_found
  references ID           the documents ID cites, from its zbMATH reference list (--limit, 20):
                          citation chasing for papers Semantic Scholar's graph lacks

Every paper carries `zbl` (the Zbl number), `msc` (MSC 2020 codes) and `document_type`
(journal-article, book-chapter, book). Fields zbMATH withholds for licence reasons ("zbMATH Open
Web Interface contents unavailable due to conflicting licenses.") are left empty. Every subcommand
takes --out FILE (full JSON to FILE, a compact summary on stdout) and --no-cache. The JSON's
`query_line` is the call in Search History form (`zbmath --query "p-adic regulators" --msc 11`).
Base URL: MATH_ZBMATH_API_URL; requests are spaced by MATH_ZBMATH_MIN_INTERVAL (1 s) across
processes. Example:
  zbmath_lookup.py search --title "cyclic cubic fields" --msc 11R --year 2010-2020 --limit 20

Exit codes: 0 success, 2 bad input, 3 the service still failing after retries, 4 environment,
5 internal error (a bug). Errors are one JSON line {"error": {"code", "message"}}.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.search import query_line  # noqa: E402
from mathtools.services import (  # noqa: E402
    DOCUMENT_TYPE_CODES,
    ZbmathClient,
    check_page,
    search_query,
    zbmath_identifier,
)


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    common = cli.lookup_options()
    commands = parser.add_commands()

    search = commands.add_parser("search", parents=[common], help="search documents")
    search.add_argument("--query", help="a search string in zbMATH's syntax")
    search.add_argument("--title", help="words of the title (ti:)")
    search.add_argument("--author", help="an author's name (au:)")
    search.add_argument("--msc", action="append", default=[], help="an MSC class or code (cc:)")
    search.add_argument("--year", help="2016 or 2010-2020 (py:)")
    search.add_argument("--type", choices=sorted(DOCUMENT_TYPE_CODES), help="document type (dt:)")
    search.add_argument("--limit", type=int, default=10, help="1..100 (default 10)")
    search.add_argument("--page", type=int, default=0, help="page number, from 0")

    get = commands.add_parser("get", parents=[common], help="look documents up by identifier")
    get.add_argument("ids", nargs="+", metavar="ID")

    references = commands.add_parser("references", parents=[common], help="what ID cites")
    references.add_argument("id", metavar="ID")
    references.add_argument("--limit", type=int, default=20, help="documents to fetch (20)")

    args = parser.parse_args(argv)
    query = search_string(args) if args.command == "search" else ""
    if args.command == "search":
        check_page(args.limit, args.page)
    asked = [zbmath_identifier(i) for i in args.ids] if args.command == "get" else []
    if args.command == "references":
        zbmath_identifier(args.id)
    client = ZbmathClient(use_cache=not args.no_cache)
    if args.command == "search":
        result = client.search(query, limit=args.limit, page=args.page)
    elif args.command == "get":
        result = client.lookup(asked).to_search_result(list(args.ids))
    else:
        result = client.references(args.id, limit=args.limit)
    cli.emit_search_result(result, query_line("zbmath", list(argv)), args.out)


def search_string(args: argparse.Namespace) -> str:
    """--query and the field options as one search string (zbmath.search_query)."""
    return search_query(args.query, args.title, args.author, args.msc, args.year, args.type)


if __name__ == "__main__":
    cli.run(main)
