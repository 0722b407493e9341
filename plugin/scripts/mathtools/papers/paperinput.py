"""What check_refs.py is given, read: local files (gate/refcheck.load), one arXiv paper
(paperbibliography.py: its LaTeX source fetched) or one PDF (pdfreferences.py: its reference list as
written), with the statements its LaTeX cites by number (citedstatements.py), and, once the
gate has checked the entries, those statements looked up in the cited papers' arXiv LaTeX sources.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.errors import BadInput
from ..core.records import CheckDocument, InputFile, PdfSplit, StatementCitation
from ..core.tex import strip_comments
from ..gate.bibentry import read_file
from ..gate.refcheck import Bibliography, keep_cited, load
from ..services.latex_source import LatexSourceClient
from .citedstatements import check_statements, statement_citations
from .paperbibliography import arxiv_argument, read_arxiv_paper
from .papertheorems import paper_theorems
from .pdfreferences import read_pdf_references


@dataclass
class PaperInput:
    bibliography: Bibliography
    citations: list[StatementCitation] = field(default_factory=list)
    pdf: PdfSplit | None = None
    use_cache: bool = True


def read(paths: list[str], cited_only: bool = False, use_cache: bool = True) -> PaperInput:
    """The bibliography (and cited statements) of local files, one arXiv paper or one PDF;
    BadInput before any check for what cannot be used."""
    papers = [(path, arxiv_argument(path)) for path in paths]
    remote = [(path, found) for path, found in papers if found is not None]
    pdfs = [path for path in paths if path.lower().endswith(".pdf")]
    if (remote or pdfs) and len(paths) > 1:
        raise BadInput("give one arXiv id or one PDF alone (not with other files)", code="usage")
    if remote:
        arxiv_id, version = remote[0][1]
        paper = read_arxiv_paper(arxiv_id, version, LatexSourceClient(use_cache=use_cache))
        if cited_only:
            keep_cited(paper.bibliography)
        origins = paper.document.origins

        def where(line: int) -> tuple[str, int]:
            file, number = origins[min(max(line, 1), len(origins)) - 1]
            return f"{paper.label}/{file}", number

        citations = statement_citations(paper.document.text, where)
        return PaperInput(paper.bibliography, citations, use_cache=use_cache)
    if pdfs:
        if cited_only:
            raise BadInput("--cited-only needs the .tex file that cites, not a PDF", "usage")
        found = read_pdf_references(pdfs[0])
        files: list[InputFile] = [
            {"file": pdfs[0], "kind": "pdf", "entries": len(found.references)}
        ]
        bibliography = Bibliography(files=files, references=found.references)
        split: PdfSplit = {"file": pdfs[0], "split": found.split, "entries": len(found.references)}
        return PaperInput(bibliography, pdf=split, use_cache=use_cache)
    bibliography = load(paths, cited_only=cited_only)
    cited: list[StatementCitation] = []
    for path in paths:
        if path.lower().endswith(".tex"):
            text = strip_comments(read_file(path, "LaTeX file"))
            cited += statement_citations(text, _in_file(path))
    return PaperInput(bibliography, cited, use_cache=use_cache)


def _in_file(path: str) -> Callable[[int], tuple[str, int]]:
    return lambda line: (path, line)


def add_statements(
    document: CheckDocument, paper: PaperInput, progress: Callable[[str], None]
) -> None:
    """Look the cited statements up in the cited papers' arXiv LaTeX sources (one fetch per paper)
    and put them, and the PDF's split, into the document."""
    if paper.pdf is not None:
        document["pdf"] = paper.pdf
    if not paper.citations:
        return
    client = LatexSourceClient(use_cache=paper.use_cache)
    papers = {c["key"] for c in paper.citations}
    progress(f"looking up {len(paper.citations)} cited statements of {len(papers)} references")
    checked = check_statements(
        paper.citations,
        document["entries"],
        lambda arxiv_id: paper_theorems(arxiv_id, None, client),
    )
    document["statements"] = checked
    document["summary"]["statements"] = len(checked)
    document["summary"]["statements_flagged"] = sum(
        c["status"] in ("not_in_version", "other_kind") for c in checked
    )
