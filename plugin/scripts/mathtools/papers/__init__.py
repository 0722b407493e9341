"""What a paper says in its own words: its arXiv LaTeX source read into the statements LaTeX
numbers (Theorem 2.3), with their notes, labels and text; and, for /math:check-refs, a paper as
a referee gets it (an arXiv id, a PDF) read into its bibliography, with the statements it cites
by number checked against the cited papers' sources. Imports core, bibliography, services and
gate."""

__all__ = [
    "citedstatements",
    "citinggrammar",
    "journalmacros",
    "paperbibliography",
    "paperinput",
    "papertheorems",
    "pdfreferences",
    "texcounters",
    "texsource",
    "theorems",
]
