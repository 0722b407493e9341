"""The references of a paper given as a PDF (a referee's submission), each kept as written: what
/math:check-refs checks when it has no LaTeX.

The text comes from `pdftotext` (poppler-utils, a Debian package: chosen over refextract and
GROBID because it needs no Python package, no Java service and no model, and on the PDFs
compiled from the shared arXiv LaTeX sources it keeps each reference's words in order, which is all
the split needs). The reference list is what follows the last "References" or "Bibliography"
heading; it is split into entries by how they are labelled, which also says how sure the split
is:

- `labels` (sure): every entry opens with a label, on its line or alone on the line above it, as
  the common .bst files print them: `[12]` (plain, abbrv, unsrt), `12.` (amsplain), `[BG89]`,
  `[Iri15]`, `[HKO+ 24]` (alpha, amsalpha: pdftotext writes `$^+$` as "+ "); the labels found
  anywhere in the list (one pdftotext ran into the line before counts too, and is split there)
  are as many as the entries, and numbered ones run 1, 2, 3, ...;
- `unsure labels`: labelled, but the labels found are more than the entries, or the numbers
  skip or repeat: check the count;
- `indents` (unsure): no labels (natbib's author-year styles: plainnat, abbrvnat); entries are
  the lines that open at the list's left margin, the lines indented under them (the hanging
  indent, read from pdftotext -layout) their continuation;
- `paragraphs` (unsure): no labels and no hanging indent; entries are the blank-line-separated
  paragraphs, or, in one block, the lines that start like a name (`Family, A.` / `A. Family`).

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
from typing import Literal, overload

from ..bibliography import BibliographyEntry, free_text_fields
from ..core import BadInput, EnvironmentProblem

PDFTOTEXT_SECONDS = 120
MAX_PDF_BYTES = 100 << 20
_HEADING = re.compile(
    r"^\s*(?:\d+\.?\s*)?(references|bibliography|literature|literatur|références|"
    r"bibliographie|works cited)\s*$",
    re.I | re.M,
)
# A label as the .bst files print it, at a line's start, followed by the entry or alone on its
# line: "[12]", "12.", "[BG89]", "[HKO+ 24]" (the "+" of alpha's et-al. label is a superscript,
# after which pdftotext writes a space).
_LABEL_TEXT = r"\[(?:[^\]\s+]|\+\s?){1,14}\]"
_LABEL = re.compile(rf"^\s*({_LABEL_TEXT}|\d{{1,3}}\.)(?:\s+(?=\S)|\s*$)")
# An alphabetic label (letters, then a two-digit year) run into the end of the line before it:
# "... 739–830. [Iri15] Kei Irie, ..."; a number in brackets inside an entry may be anything.
_ALPHA = r"\[[A-Za-z]+(?:\+\s?)?\d{2}[a-z]?\]"
_ALPHA_LABEL = re.compile(rf"(?<=\s){_ALPHA}(?=\s)")
_NAME_START = re.compile(
    r"^(?:[A-Z][\w'’-]+(?:\s[A-Z][\w'’-]+)?,\s*(?:[A-Z]\.|[A-Z][a-z]+)|(?:[A-Z]\.\s?)+[A-Z][\w'’-]+)"
)
_PAGE_NUMBER = re.compile(r"^\s*\d{1,4}\s*$")

Split = Literal["labels", "unsure labels", "indents", "paragraphs"]
SURE_SPLIT: Split = "labels"


@dataclass
class PdfReferences:
    """The reference list of one PDF: its entries and how they were split."""

    path: Path
    references: list[BibliographyEntry] = field(default_factory=list)
    split: Split = "labels"
    heading_found: bool = True


def pdf_text(path: Path, layout: bool = False) -> str:
    """The PDF's text as pdftotext reads it (reading order; with `layout`, each line as it is
    placed on the page, indents kept); EnvironmentProblem when pdftotext is missing, BadInput
    when the file is not a PDF it can read."""
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
        [program, *(["-layout"] if layout else []), "-enc", "UTF-8", str(path), "-"],
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
    no reference list. Without labels, the hanging indents pdftotext -layout keeps split it."""
    path = Path(path)
    found = split_references(pdf_text(path), path)
    if found.split == "paragraphs":
        return split_references(pdf_text(path, layout=True), path, by_indents=True) or found
    return found


@overload
def split_references(text: str, path: Path) -> PdfReferences: ...
@overload
def split_references(text: str, path: Path, by_indents: bool) -> PdfReferences | None: ...
def split_references(text: str, path: Path, by_indents: bool = False) -> PdfReferences | None:
    """The entries of the reference list in `text` (pdftotext's output of `path`); with
    `by_indents` (the text of pdftotext -layout), split at the hanging indents, or None when
    the list has none."""
    headings = list(_HEADING.finditer(text))
    if not headings:
        raise BadInput(
            f"{path}: no References or Bibliography heading found in its text", "no_entries"
        )
    start = headings[-1].end()
    first_line = text.count("\n", 0, start)  # the block's first line is the heading's
    block = text[start:].replace("\f", "\n")
    lines = [
        (index, line)
        for index, line in enumerate(block.split("\n"))
        if not _PAGE_NUMBER.match(line)
    ]
    result = PdfReferences(path)
    if by_indents:
        indented = _indented(lines)
        if indented is None:
            return None
        result.split, chunks = "indents", indented
    else:
        found = _labels_found(lines)
        lines = _label_runs_split(lines)
        labelled = [i for i, (_, line) in enumerate(lines) if _LABEL.match(line)]
        if len(labelled) >= 2:
            chunks = _labelled(lines, labelled)
            labels = [_label_of(_joined(chunk)) for _, chunk in chunks]
            result.split = SURE_SPLIT if _labels_sure(labels, found) else "unsure labels"
        else:
            result.split, chunks = "paragraphs", _paragraphs(lines)
    for number, (line, chunk) in enumerate(chunks, 1):
        written = _joined(chunk)
        label = _LABEL.match(written)
        key = _label_of(written) or str(number)
        body = written[label.end() :] if label else written
        fields = free_text_fields(body)
        result.references.append(
            BibliographyEntry(key, str(path), first_line + line + 1, "pdf", fields)
        )
    if not result.references:
        raise BadInput(f"{path}: its reference list holds no entry", code="no_entries")
    return result


Lines = list[tuple[int, str]]  # (line index in the block, the line)
Chunks = list[tuple[int, list[str]]]  # (first line index, the entry's lines)


def _label_of(written: str) -> str:
    """An entry's label without brackets, dot or the space after a "+" ("HKO+24"), or ""."""
    found = _LABEL.match(written)
    return "".join(found.group(1).strip("[].").split()) if found else ""


def _label_runs_split(lines: Lines) -> Lines:
    """The lines, each alphabetic label that pdftotext ran into a line's text ("... 739–830.
    [Iri15] Kei Irie") opening a line of its own; only in a list whose line-start labels are
    alphabetic."""
    starts = [_LABEL.match(line) for _, line in lines]
    alphabetic = [m for m in starts if m and re.fullmatch(_ALPHA, m.group(1))]
    if len(alphabetic) < 2:
        return lines
    out: Lines = []
    for index, line in lines:
        cuts = [m.start() for m in _ALPHA_LABEL.finditer(line) if line[: m.start()].strip()]
        pieces = [line[a:b] for a, b in zip([0, *cuts], [*cuts, len(line)], strict=True)]
        out += [(index, piece) for piece in pieces]
    return out


def _labels_found(lines: Lines) -> int:
    """The labels in the list: one opening a line, and an alphabetic one inside a line."""
    return sum(
        bool(_LABEL.match(line))
        + sum(bool(line[: m.start()].strip()) for m in _ALPHA_LABEL.finditer(line))
        for _, line in lines
    )


def _labels_sure(labels: list[str], found: int) -> bool:
    """Sure: the entries are as many as the labels found, each opening with one, all numbers
    running 1, 2, 3, ... or none a number."""
    if len(labels) != found or not all(labels):
        return False
    numbers = [int(label) for label in labels if re.fullmatch(r"[0-9]+", label)]
    return not numbers or numbers == list(range(1, len(labels) + 1))


def _labelled(lines: Lines, starts: list[int]) -> Chunks:
    chunks = []
    for position, first in enumerate(starts):
        stop = starts[position + 1] if position + 1 < len(starts) else len(lines)
        chunk = [line for _, line in lines[first:stop]]
        if position + 1 == len(starts):  # the last entry ends at its paragraph's end
            label = _LABEL.match(chunk[0])
            label_alone = bool(label) and not chunk[0][label.end() if label else 0 :].strip()
            body = next((i for i, line in enumerate(chunk) if i and line.strip()), len(chunk))
            opened = body if label_alone else 0  # a label alone on its line: its text below
            blank = next(
                (i for i, line in enumerate(chunk) if i > opened and not line.strip()), len(chunk)
            )
            chunk = chunk[:blank]
        chunks.append((lines[first][0], chunk))
    return chunks


# Continuation lines sit this many columns right of an entry's first line, at most (natbib's
# \bibhang is 1em: two or three columns of pdftotext -layout).
MAX_HANG = 8


def _indented(lines: Lines) -> Chunks | None:
    """Entries as the lines at the list's left margin, each with the lines indented under it;
    None when the list shows no hanging indent (every line at the margin, or columns side by
    side: a wide gap inside most lines)."""
    text_lines = [(index, line) for index, line in lines if line.strip()]
    if not text_lines:
        return None
    margin = min(len(line) - len(line.lstrip()) for _, line in text_lines)
    gapped = sum(bool(re.search(r"\S\s{4,}\S", line)) for _, line in text_lines)
    if gapped * 5 > len(text_lines):
        return None
    chunks: Chunks = []
    hanging = 0
    for index, line in text_lines:
        indent = len(line) - len(line.lstrip())
        if indent == margin or not chunks:
            chunks.append((index, [line]))
        elif indent - margin <= MAX_HANG:
            chunks[-1][1].append(line)
            hanging += 1
        else:  # a centred line (a running head, a page's number): no entry's text
            continue
    if len(chunks) < 2 or hanging == 0:
        return None
    return chunks


def _paragraphs(lines: Lines) -> Chunks:
    chunks: Chunks = []
    current: list[str] = []
    first = 0
    for index, line in lines:
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
