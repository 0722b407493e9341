"""An arXiv paper's bibliography, for /math:check-refs run on an arXiv id: the paper's LaTeX source
is fetched (services/latex_source.py, never written to disk), its document built (texsource.py:
main file, inputs spliced in, comments and dead branches gone) and its bibliography read as a
local paper's would be (bibliography/loading.load_source: the .bib files it names, else the
.bbl it ships, else its thebibliography or amsrefs entries), with the keys its text cites.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..bibliography import Bibliography, load_source
from ..core import BadInput, arxiv_id_text, normalise_arxiv_id
from ..services import LatexSourceClient, NoLatexSource
from . import texsource

BIBLIOGRAPHY_SUFFIXES = (".bib", ".bbl")


@dataclass
class ArxivPaper:
    """One arXiv paper's LaTeX source, read: its document and its bibliography."""

    arxiv_id: str
    version: int | None  # the version asked for; None: the latest
    url: str
    document: texsource.Document
    bibliography: Bibliography

    @property
    def label(self) -> str:
        return f"arXiv:{arxiv_id_text(self.arxiv_id, self.version)}"


def arxiv_argument(text: str) -> tuple[str, int | None] | None:
    """(id, version) when `text` names an arXiv paper (`arXiv:2405.16513`, `2405.16513v2`, an
    abs or pdf URL) rather than a file; None otherwise."""
    lowered = text.strip().lower()
    if not (lowered.startswith(("arxiv:", "http://", "https://")) or "/" not in lowered):
        return None
    if lowered.startswith(("http://", "https://")) and "arxiv.org/" not in lowered:
        return None
    try:
        return normalise_arxiv_id(text)
    except BadInput:
        if lowered.startswith("arxiv:") or "arxiv.org/" in lowered:
            raise
        return None


def read_arxiv_paper(
    arxiv_id: str, version: int | None, client: LatexSourceClient | None = None
) -> ArxivPaper:
    """The paper's LaTeX source and bibliography; BadInput (one line) when arXiv holds no LaTeX
    source for it (an unknown id, a PDF-only submission, a withdrawn version)."""
    answer = (client or LatexSourceClient()).fetch(arxiv_id, version)
    label = f"arXiv:{arxiv_id_text(arxiv_id, version)}"
    if isinstance(answer.outcome, NoLatexSource):
        hint = (
            ": check its PDF instead (check_refs.py paper.pdf)"
            if answer.outcome.reason == "pdf_only"
            else ""
        )
        raise BadInput(answer.outcome.message + hint, code=f"no_source_{answer.outcome.reason}")
    members = answer.outcome.members
    document = texsource.build(members)
    if document.main_file is None:
        raise BadInput(f"{label}: its LaTeX source holds no LaTeX file", code="no_entries")
    texts = {
        name: texsource.decode(data)
        for name, data in members.items()
        if name.lower().endswith(BIBLIOGRAPHY_SUFFIXES)
    }
    origins = document.origins

    def where(line: int) -> tuple[str, int]:  # a line of the spliced text -> (file, line)
        return origins[min(max(line, 1), len(origins)) - 1]

    bibliography = load_source(label, document.main_file, document.text, texts, where)
    return ArxivPaper(arxiv_id, version, answer.url, document, bibliography)
