"""What check_refs.py is given, read: local files (bibliography/loading.load), one arXiv
paper (paperbibliography.py: its LaTeX source fetched) or one PDF (pdfreferences.py: its reference
list as written), with the statements its LaTeX cites by number (citedstatements.py), and, once the
gate has checked the entries, those statements looked up in the cited papers' arXiv LaTeX sources.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..bibliography import Bibliography, group_end, keep_cited, load_bibliography, plain_text
from ..core import (
    BadInput,
    CheckDocument,
    InputFile,
    PdfSplit,
    UnexpandedVenue,
    normalise_title,
)
from ..services import LatexSourceClient
from .citedstatements import CitationsRead, check_statements, statement_citations
from .journalmacros import definitions, expand_venues
from .localpaper import local_document
from .paperbibliography import arxiv_argument, read_arxiv_paper
from .papertheorems import paper_theorems
from .pdfreferences import read_pdf_references
from .texsource import Document

_TITLE = re.compile(r"\\title\s*(?:\[[^\]]*\]\s*)?\{")


@dataclass
class PaperInput:
    bibliography: Bibliography
    cited: CitationsRead = field(default_factory=CitationsRead)
    pdf: PdfSplit | None = None
    use_cache: bool = True
    unexpanded: list[UnexpandedVenue] = field(default_factory=list)
    under_review: set[str] = field(default_factory=set)  # its arXiv id, its title normalised


def read_paper_input(
    paths: list[str], cited_only: bool = False, use_cache: bool = True
) -> PaperInput:
    """The bibliography (and cited statements) of local files, one arXiv paper or one PDF;
    BadInput before any check for what cannot be used."""
    papers = [(path, arxiv_argument(path)) for path in paths]
    remote = [(path, found) for path, found in papers if found is not None]
    pdfs = [path for path in paths if path.lower().endswith(".pdf")]
    if (remote or pdfs) and len(paths) > 1:
        raise BadInput("give one arXiv id or one PDF alone (not with other files)", code="usage")
    if remote:
        arxiv_id, version = remote[0][1]
        return _arxiv_input(arxiv_id, version, cited_only, use_cache)
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
    documents = {
        path: local_document(Path(path)) for path in paths if path.lower().endswith(".tex")
    }
    spliced = {path: (d.text, _origin(d)) for path, d in documents.items()}
    bibliography = load_bibliography(paths, cited_only=cited_only, spliced=spliced)
    cited = CitationsRead()
    unexpanded: list[UnexpandedVenue] = []
    under_review: set[str] = set()
    for path, document in documents.items():
        folder = Path(path).parent
        under_review |= own_title(document.text)
        cited += statement_citations(document.text, _in_folder(document, folder))
        missing = [m["name"] for m in document.missing]
        own = [r for r in bibliography.references if Path(r.file).parent == folder]
        unexpanded += expand_venues(own, definitions(document), missing)
    return PaperInput(
        bibliography, cited, use_cache=use_cache, unexpanded=unexpanded, under_review=under_review
    )


def _in_folder(document: Document, folder: Path) -> Callable[[int], tuple[str, int]]:
    """A line of a local paper's spliced text -> (its file's path, line)."""
    origin = _origin(document)

    def where(line: int) -> tuple[str, int]:
        file, number = origin(line)
        return str(folder / file), number

    return where


def _origin(document: Document) -> Callable[[int], tuple[str, int]]:
    """A line of the document's spliced text -> (file, line) in the paper's folder."""
    origins = document.origins
    return lambda line: origins[min(max(line, 1), len(origins)) - 1]


def _arxiv_input(
    arxiv_id: str, version: int | None, cited_only: bool, use_cache: bool
) -> PaperInput:
    """One arXiv paper: its source fetched, its bibliography with its journal macros expanded,
    and the statements its text cites."""
    paper = read_arxiv_paper(arxiv_id, version, LatexSourceClient(use_cache=use_cache))
    if cited_only:
        keep_cited(paper.bibliography)
    origin = _origin(paper.document)

    def where(line: int) -> tuple[str, int]:
        file, number = origin(line)
        return f"{paper.label}/{file}", number

    citations = statement_citations(paper.document.text, where)
    missing = [m["name"] for m in paper.document.missing]
    unexpanded = expand_venues(paper.bibliography.references, definitions(paper.document), missing)
    own = {arxiv_id} | own_title(paper.document.text)
    return PaperInput(
        paper.bibliography, citations, use_cache=use_cache, unexpanded=unexpanded, under_review=own
    )


def own_title(text: str) -> set[str]:
    """The paper's `\\title{...}`, normalised, as a one-element set (empty without one)."""
    found = _TITLE.search(text)
    if not found:
        return set()
    title = normalise_title(plain_text(text[found.end() : group_end(text, found.end() - 1) - 1]))
    return {title} if title else set()


def drop_own_suggestions(document: CheckDocument, under_review: set[str]) -> None:
    """No entry is offered the paper under review as a suggestion (a reference of a paper that
    names its own subject comes close to its title): such a suggestion is taken out."""
    for entry in document["entries"]:
        result = entry["verification"]
        suggestion = result.get("suggestion")
        if suggestion and (
            suggestion.get("arxiv_id") in under_review
            or normalise_title(suggestion.get("title") or "") in under_review
        ):
            del result["suggestion"]


def add_statements(
    document: CheckDocument, paper: PaperInput, progress: Callable[[str], None]
) -> None:
    """Look the cited statements up in the cited papers' arXiv LaTeX sources (one fetch per paper)
    and put them, the PDF's split and the venues left as journal macros into the document; take
    out any suggestion that is the paper under review."""
    drop_own_suggestions(document, paper.under_review)
    if paper.pdf is not None:
        document["pdf"] = paper.pdf
    if paper.unexpanded:
        document["unexpanded_venues"] = paper.unexpanded
    if paper.cited.ambiguous:
        document["ambiguous_statements"] = paper.cited.ambiguous
    citations = paper.cited.citations
    if not citations:
        return
    client = LatexSourceClient(use_cache=paper.use_cache)
    papers = {c["key"] for c in citations}
    progress(f"looking up {len(citations)} cited statements of {len(papers)} references")
    checked = check_statements(
        citations,
        document["entries"],
        lambda arxiv_id: paper_theorems(arxiv_id, None, client),
    )
    document["statements"] = checked
    document["summary"]["statements"] = len(checked)
    document["summary"]["statements_flagged"] = sum(
        c["status"] in ("not_in_version", "other_kind") for c in checked
    )
