"""What the Semantic Scholar Graph API accepts of a request: the windows of its relevance search
and its citation graph, a bulk search's maximum and the forms of the search filters. Each check
refuses, before anything is sent, what the API would reject (BadInput, naming the option)."""

from __future__ import annotations

import re

from ..core import BadInput

SEARCH_MAX_LIMIT = 100  # /paper/search: limit <= 100 ...
SEARCH_MAX_WINDOW = 1000  # ... and offset + limit <= 1000
GRAPH_MAX_PAGE = 1000  # /paper/{id}/citations and /references: limit <= 1000

YEAR_RANGE = re.compile(r"(\d{4})|(\d{4})?-(\d{4})?")  # 2019 | 2010-2020, 2010-, -2015


def check_search_window(limit: int, offset: int) -> None:
    """Refuse what /paper/search would reject: limit 1..100, offset >= 0, offset + limit <= 1000."""
    if not 1 <= limit <= SEARCH_MAX_LIMIT:
        raise BadInput(
            f"--limit must be 1..{SEARCH_MAX_LIMIT} for a relevance search (got {limit}); "
            "for more results use `bulk`",
            code="bad_limit",
        )
    if offset < 0:
        raise BadInput(f"--offset must be 0 or more (got {offset})", code="bad_limit")
    if offset + limit > SEARCH_MAX_WINDOW:
        raise BadInput(
            f"--offset + --limit must be at most {SEARCH_MAX_WINDOW} for a relevance search "
            f"(got {offset} + {limit} = {offset + limit}): the API serves only the first "
            f"{SEARCH_MAX_WINDOW} matches; use `bulk` to go further",
            code="bad_limit",
        )


def check_search_filters(year: str | None, min_citations: int | None) -> None:
    """Refuse a --year that is not 2019, 2010-2020, 2010- or -2015 or that runs backwards, and
    a negative --min-citations."""
    if year is not None:
        match = YEAR_RANGE.fullmatch(year)
        if not match or not any(match.groups()):
            raise BadInput(
                f"--year must look like 2019, 2010-2020, 2010- or -2015 (got {year!r})",
                code="bad_year",
            )
        single, first, last = match.groups()
        if not single and first and last and int(first) > int(last):
            raise BadInput(f"--year {year} runs backwards: write {last}-{first}", code="bad_year")
    if min_citations is not None and min_citations < 0:
        raise BadInput(f"--min-citations must be 0 or more (got {min_citations})", "bad_limit")


def check_bulk_max(max_results: int) -> None:
    if max_results < 1:
        raise BadInput(f"--max must be at least 1 (got {max_results})", code="bad_limit")


def check_graph_window(limit: int, page_size: int) -> None:
    if limit < 1:
        raise BadInput(f"--limit must be at least 1 (got {limit})", code="bad_limit")
    if not 1 <= page_size <= GRAPH_MAX_PAGE:
        raise BadInput(
            f"--page-size must be 1..{GRAPH_MAX_PAGE} (got {page_size})", code="bad_limit"
        )
