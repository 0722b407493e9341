"""The clients of the scholarly services (arXiv, Semantic Scholar, zbMATH Open, Crossref,
OpenAlex) over one HTTP layer: rate limits across processes, cache, deadlines, retries. Imports
only core.

This file is the wing's face: the names other wings, cli.py, the scripts and the hooks may
import from it, loaded when first used (CONTRIBUTING.md, "Layout")."""

from typing import TYPE_CHECKING

from ..core import face_attribute

if TYPE_CHECKING:
    from .arxiv import FIELD_PREFIX, ArxivClient, build_query, field_term
    from .crossref import CROSSREF_SOURCE, CrossrefClient, check_window
    from .http import RequestRejected
    from .latex_source import LatexSourceAnswer, LatexSourceClient, NoLatexSource
    from .openalex import OpenalexClient
    from .s2limits import (
        check_bulk_max,
        check_graph_window,
        check_search_filters,
        check_search_window,
    )
    from .s2records import s2_id
    from .semantic_scholar import S2Client, audit_url
    from .zbmath import (
        DOCUMENT_TYPE_CODES,
        MAX_PER_PAGE,
        QUERY_SYNTAX,
        Identifier,
        ZbmathClient,
        check_page,
        search_query,
        zbmath_identifier,
    )

__all__ = [
    "CROSSREF_SOURCE",
    "DOCUMENT_TYPE_CODES",
    "FIELD_PREFIX",
    "MAX_PER_PAGE",
    "QUERY_SYNTAX",
    "ArxivClient",
    "CrossrefClient",
    "Identifier",
    "LatexSourceAnswer",
    "LatexSourceClient",
    "NoLatexSource",
    "OpenalexClient",
    "RequestRejected",
    "S2Client",
    "ZbmathClient",
    "audit_url",
    "build_query",
    "check_bulk_max",
    "check_graph_window",
    "check_page",
    "check_search_filters",
    "check_search_window",
    "check_window",
    "field_term",
    "s2_id",
    "search_query",
    "zbmath_identifier",
]


# Out of mypy's sight, so that a name off the face (a typo) is an error where it is imported,
# not an `object` (core/faces.py says why faces are lazy at all).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        return face_attribute(__name__, name)
