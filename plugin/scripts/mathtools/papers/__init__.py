"""What a paper says in its own words: its arXiv LaTeX source read into the statements LaTeX
numbers (Theorem 2.3), with their notes, labels and text. Imports core and services."""

__all__ = [
    "papertheorems",
    "texcounters",
    "texsource",
    "theorems",
]
