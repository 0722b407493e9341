"""The clients of the scholarly services (arXiv, Semantic Scholar, zbMATH Open, Crossref) over one
HTTP layer: rate limits across processes, cache, deadlines, retries. Imports only core."""

__all__ = [
    "arxiv",
    "crossref",
    "http",
    "latex_source",
    "s2records",
    "semantic_scholar",
    "transport",
    "zbmath",
]
