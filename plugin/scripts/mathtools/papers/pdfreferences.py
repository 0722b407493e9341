"""The references of a paper given as a PDF (a referee's submission), each kept as written: what
/math:check-refs checks when it has no LaTeX.

The text comes from `pdftotext` (poppler-utils, a Debian package: chosen over refextract and
GROBID because it needs no Python package, no Java service and no model, and on the PDFs
compiled from the shared arXiv LaTeX sources it keeps each reference's words in order, which is all
the split needs). The reference list is what follows the last "References" or "Bibliography"
heading; it is split into entries by how they are labelled, which also says how sure the split
is:

- `labels` (sure): every entry opens with a label, `[12]`, `[BG89]` or `12.`, numbered labels in
  order;
- `paragraphs` (unsure): no labels; entries are the blank-line-separated paragraphs, or, in one
  block, the lines that start like a name (`Family, A.` / `A. Family`).

Each entry becomes a BibliographyEntry (entry_type "pdf", the text as written in `text`) whose
fields come from bibliography/freetext.free_text_fields; they name the entry in the report, while
the gate checks the text whole, as a free-text citation (BibliographyEntry.candidate in
bibliography/bibentry.py, gate/citations.py).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..bibliography import BibliographyEntry, free_text_fields
from ..core import BadInput, EnvironmentProblem

PDFTOTEXT_SECONDS = 120
MAX_PDF_BYTES = 100 << 20
_HEADING = re.compile(
    r"^\s*(?:\d+\.?\s*)?(references|bibliography|literature|literatur|références|"
    r"bibliographie|works cited)\s*$",
    re.I | re.M,
)
_LABEL = re.compile(r"^\s*(\[[^\]\s]{1,12}\]|\d{1,3}\.)\s+(?=\S)")
_NAME_START = re.compile(
    r"^(?:[A-Z][\w'’-]+(?:\s[A-Z][\w'’-]+)?,\s*(?:[A-Z]\.|[A-Z][a-z]+)|(?:[A-Z]\.\s?)+[A-Z][\w'’-]+)"
)
_PAGE_NUMBER = re.compile(r"^\s*\d{1,4}\s*$")

Split = Literal["labels", "paragraphs"]


@dataclass
class PdfReferences:
    """The reference list of one PDF: its entries and how they were split."""

    path: Path
    references: list[BibliographyEntry] = field(default_factory=list)
    split: Split = "labels"
    heading_found: bool = True


def pdf_text(path: Path) -> str:
    """The PDF's text as pdftotext reads it (reading order); EnvironmentProblem when pdftotext
    is missing, BadInput when the file is not a PDF it can read."""
    if not path.is_file():
        raise BadInput(f"PDF {path}: not found", code="file_not_found")
    with open(path, "rb") as handle:
        if not handle.read(1024).lstrip().startswith(b"%PDF-"):
            raise BadInput(f"{path} is not a PDF file (it does not start with %PDF-)", "not_pdf")
    if path.stat().st_size > MAX_PDF_BYTES:
        raise BadInput(f"PDF {path} is larger than {MAX_PDF_BYTES >> 20} MB", code="too_large")
    program = shutil.which("pdftotext")
    if program is None:
        raise EnvironmentProblem(
            "pdftotext is not installed, and a PDF's references are read with it: install "
            "poppler-utils (Debian/Ubuntu: sudo apt install poppler-utils; macOS: brew install "
            "poppler), or give the paper's .tex, .bib or arXiv id",
            code="pdftotext_missing",
        )
    # its own process group: at the deadline it goes with every process it started
    with subprocess.Popen(
        [program, "-enc", "UTF-8", str(path), "-"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=PDFTOTEXT_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.kill()
            raise BadInput(
                f"pdftotext took over {PDFTOTEXT_SECONDS} s on {path}", "pdf_timeout"
            ) from None
    if proc.returncode != 0:
        said = " ".join(err.decode("utf-8", "replace").split())[:200]
        raise BadInput(f"pdftotext cannot read {path}: {said}", code="bad_pdf")
    # NFC: pdftotext writes an accent as a letter and a combining mark ("La\u0301ngi")
    return unicodedata.normalize("NFC", out.decode("utf-8", "replace"))


def read_pdf_references(path: str | Path) -> PdfReferences:
    """The references of the PDF at `path` (see the module docstring); BadInput when it holds
    no reference list."""
    path = Path(path)
    text = pdf_text(path)
    return split_references(text, path)


def split_references(text: str, path: Path) -> PdfReferences:
    """The entries of the reference list in `text` (pdftotext's output of `path`)."""
    headings = list(_HEADING.finditer(text))
    if not headings:
        raise BadInput(
            f"{path}: no References or Bibliography heading found in its text", "no_entries"
        )
    start = headings[-1].end()
    block = text[start:].replace("\f", "\n")
    lines = [line for line in block.split("\n") if not _PAGE_NUMBER.match(line)]
    labelled = [i for i, line in enumerate(lines) if _LABEL.match(line)]
    result = PdfReferences(path)
    if len(labelled) >= 2:
        chunks = _labelled(lines, labelled)
    else:
        result.split = "paragraphs"
        chunks = _paragraphs(lines)
    for number, (line, chunk) in enumerate(chunks, 1):
        written = _joined(chunk)
        label = _LABEL.match(written)
        key = label.group(1).strip("[].") if label else str(number)
        body = written[label.end() :] if label else written
        fields = free_text_fields(body)
        line_number = text.count("\n", 0, start) + line + 1
        result.references.append(BibliographyEntry(key, str(path), line_number, "pdf", fields))
    if not result.references:
        raise BadInput(f"{path}: its reference list holds no entry", code="no_entries")
    return result


def _labelled(lines: list[str], starts: list[int]) -> list[tuple[int, list[str]]]:
    chunks = []
    for position, first in enumerate(starts):
        stop = starts[position + 1] if position + 1 < len(starts) else len(lines)
        chunk = lines[first:stop]
        if position + 1 == len(starts):  # the last entry ends at its paragraph's end
            blank = next((i for i, line in enumerate(chunk) if not line.strip()), len(chunk))
            chunk = chunk[:blank]
        chunks.append((first, chunk))
    return chunks


def _paragraphs(lines: list[str]) -> list[tuple[int, list[str]]]:
    chunks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    first = 0
    for index, line in enumerate(lines):
        starts_entry = bool(_NAME_START.match(line.strip())) and bool(current)
        if not line.strip() or starts_entry:
            if current:
                chunks.append((first, current))
            current = [line] if line.strip() else []
            first = index
        else:
            if not current:
                first = index
            current.append(line)
    if current:
        chunks.append((first, current))
    return [chunk for chunk in chunks if len(_joined(chunk[1])) >= 20]


def _joined(lines: list[str]) -> str:
    """An entry's lines as one line: a word hyphenated at a line end joined again."""
    text = ""
    for line in (line.strip() for line in lines):
        if text.endswith("-") and line[:1].islower() and text[-2:-1].isalpha():
            text = text[:-1] + line
        else:
            text = f"{text} {line}".strip()
    return text
