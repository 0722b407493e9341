"""The clients of the scholarly services (one per source of core/sources.py) over one
HTTP layer: rate limits across processes, cache, deadlines, retries. Imports only core."""

__all__ = [
    "arxiv",
    "crossref",
    "http",
    "latex_source",
    "openalex",
    "s2records",
    "semantic_scholar",
    "transport",
    "zbmath",
]
