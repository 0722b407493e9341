"""One entry of a bibliography as read (BibliographyEntry: its key, where it is, its fields as
written, and the candidate it gives the verification gate), and what every reader of a
bibliography shares: the refusal of a file that is missing, empty, binary, not UTF-8 or too
large (`read_file`), LaTeX groups, `%` comments, commands that write nothing, BibTeX name lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import ARXIV_ID_CITED, DOI_CITED, ZBL, BadInput, normalise_arxiv_id, strip_latex
from .bibvalues import MATH

MAX_FILE_BYTES = 20 * 1024 * 1024  # a bibliography of 100,000 entries is under 20 MB
YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def read_file(path: str | Path, what: str) -> str:
    """The text of a bibliography or LaTeX file; BadInput (one line, naming it) when it is
    missing, not a regular file, empty, binary, not UTF-8 or larger than MAX_FILE_BYTES."""
    path = Path(path)
    name = str(path) if len(str(path)) <= 200 else str(path)[:199] + "…"  # one line, always
    try:
        if not path.is_file():
            if path.exists():
                raise BadInput(f"{what} {name}: not a regular file", code="not_a_file")
            raise BadInput(f"{what} {name}: not found", code="file_not_found")
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise BadInput(f"cannot read {what} {name}: {exc.strerror}", code="unreadable") from None
    except ValueError:  # a path holding a NUL character
        raise BadInput(f"{what}: not a usable path: {str(path)!r:.80}", code="bad_path") from None
    if len(data) > MAX_FILE_BYTES:
        raise BadInput(f"{what} {name} is larger than {MAX_FILE_BYTES} bytes", code="too_large")
    if b"\0" in data:
        raise BadInput(f"{what} {name} is a binary file, not text", code="binary_file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise BadInput(
            f"{what} {name} is not UTF-8 text (line {line}); convert it, e.g. "
            f"iconv -f latin1 -t utf-8",
            code="not_utf8",
        ) from None
    if not text.strip():
        raise BadInput(f"{what} {name} is empty", code="empty_file")
    return text


@dataclass
class BibliographyEntry:
    """One entry of a bibliography: its key, where it is, and its fields as written (LaTeX and
    all; `@string` macros and `#` concatenations evaluated), field names in lower case."""

    key: str
    file: str
    line: int  # 1-based
    entry_type: str  # "article", "misc", ..., "bibitem"
    fields: dict[str, str] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)  # a .bib field's value exactly as written

    def candidate(self) -> dict[str, Any]:
        """What the verification gate is given (schemas/candidates.schema.json)."""
        fields = self.fields
        authors = split_names(fields.get("author", ""))
        if authors and _cut_short(fields.get("author", "")):
            authors.append("et al.")  # "and others": the gate reads the list as incomplete
        year = YEAR.search(fields.get("year") or fields.get("date") or "")
        title = drop_commands(fields.get("title") or "")
        found = {
            "key": self.key,
            "title": title or None,
            "authors": authors or None,
            "year": int(year.group(1)) if year else None,
            "arxiv_id": self.arxiv_id(),
            "doi": self.doi(),
            "venue": fields.get("journal") or fields.get("booktitle"),
            "volume": fields.get("volume"),
            "pages": fields.get("pages"),
            "zbl": self.zbl(),
        }
        if self.entry_type == "pdf" and fields.get("text"):
            # A PDF's reference is checked as written, whole (gate/citations.py: Crossref's and
            # Semantic Scholar's citation matching): the split into fields is a guess, so it
            # only names the row, as PROBLEM.md's references are never split either.
            found = {**found, "title": None, "authors": None, "citation": fields["text"]}
        return {name: value for name, value in found.items() if value not in (None, "")}

    def zbl(self) -> str | None:
        """The Zbl number the entry gives (`zbl`, `zbmath`, or `Zbl ...` in `reviews`), which the
        gate asks zbMATH Open for."""
        for name in ("zbl", "zbmath", "reviews"):
            found = ZBL.search(self.fields.get(name) or "")
            if found and (name != "reviews" or "zbl" in self.fields[name].lower()):
                return found.group(1)
        return None

    def mr_number(self) -> str | None:
        """The MathSciNet number the entry gives (`mrnumber`, MathSciNet's export): kept and shown,
        never verified, since MathSciNet has no public API."""
        found = _MR_NUMBER.search(self.fields.get("mrnumber") or "")
        return f"MR{found.group(1).zfill(7)}" if found else None

    def arxiv_id(self) -> str | None:
        fields = self.fields
        prefix = fields.get("archiveprefix", fields.get("eprinttype", "arxiv")).lower()
        direct = [fields.get("arxiv"), fields.get("arxivid")]
        if prefix == "arxiv":
            direct.insert(0, fields.get("eprint"))
        for value in direct:
            if value:
                try:
                    return normalise_arxiv_id(value)[0]
                except BadInput:
                    pass
        for name in ("url", "journal", "note", "howpublished", "publisher", "text"):
            found = ARXIV_ID_CITED.search(fields.get(name) or "")
            if found:
                return normalise_arxiv_id(found.group(1))[0]
        return None

    def doi(self) -> str | None:
        if self.fields.get("doi"):
            return _unescaped(self.fields["doi"].strip())
        for name in ("url", "note", "text"):
            found = DOI_CITED.search(_unescaped(self.fields.get(name) or ""))
            if found:
                return found.group(1).rstrip(".")
        return None

    def plain(self) -> dict[str, Any]:
        """The cited fields as a person reads them (LaTeX rendered as text): for reports."""
        cited = self.candidate()
        for name in ("title", "venue", "volume", "pages"):
            if name in cited:
                cited[name] = plain_text(cited[name])
        if "authors" in cited:
            cited["authors"] = [plain_text(name) for name in cited["authors"]]
        cited.pop("key", None)  # `@article{, title={x}}` has none
        if mr := self.mr_number():
            cited["mr"] = mr
        return cited


def _unescaped(identifier: str) -> str:
    """A DOI as written in LaTeX (`10.1007/978-3-642-39634-2\\_14`: MathSciNet's exports escape
    the underscore) as the DOI itself."""
    return re.sub(r"\\([_&%#$])", r"\1", identifier)


_MR_NUMBER = re.compile(r"^\s*(?:MR\s*)?(\d{4,8})\b", re.IGNORECASE)  # "0075938 (17,823a)"


def plain_text(value: str) -> str:
    """A LaTeX field value as a person reads it: `Erd{\\H{o}}s` is `Erdős`, `{W}eb` is `Web`;
    `$...$` math is kept as written (`$\\GL_2(\\Qp)$`, `$\\frac12$`): text cannot render it."""
    parts = MATH.split(drop_commands(value))
    return " ".join(
        "".join(part if _is_math(part) else strip_latex(part) for part in parts).split()
    )


def _is_math(part: str) -> bool:
    return len(part) > 2 and part[0] == part[-1] == "$"


_DROPPED = re.compile(r"\\(?:index|label|MR|mrnumber|protect)\b\s*")


def drop_commands(text: str) -> str:
    """`text` without the commands that write nothing in place (`\\index{...}`, `\\label{...}`,
    `\\MR{...}`, `\\protect`), their braced argument included."""
    out, cursor = [], 0
    for found in _DROPPED.finditer(text):
        if found.start() < cursor:
            continue
        out.append(text[cursor : found.start()])
        cursor = found.end()
        if text.startswith("{", cursor):
            cursor = group_end(text, cursor)
    out.append(text[cursor:])
    return " ".join("".join(out).split())


def keyed_entry(
    found: re.Match[str], text: str, path: str | Path, fields: dict[str, str]
) -> BibliographyEntry:
    """The entry a `\\cmd{key}{type}` opened at `found` (biber's `\\entry`, amsrefs' `\\bib`) in
    `text`, with `fields` read from its body and a subtitle joined to its title."""
    if "subtitle" in fields and "title" in fields:
        fields["title"] += ": " + fields.pop("subtitle")
    line = text.count("\n", 0, found.start()) + 1
    return BibliographyEntry(
        found.group(1).strip(), str(path), line, found.group(2).strip(), fields
    )


def group_end(text: str, start: int) -> int:
    """The position after the group opening at `start`: the `}` closing a `{`, or the `"` closing
    a `"` outside braces (BibTeX's two delimiters of a value). Braces nest, escaped characters
    are skipped, and a group that never closes ends with the text."""
    quoted = text.startswith('"', start)
    depth, position = 0, start + 1 if quoted else start
    while position < len(text):
        ch = text[position]
        if ch == "\\":
            position += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and not quoted:
                return position + 1
        elif ch == '"' and depth == 0 and quoted:
            return position + 1
        position += 1
    return len(text)


def _cut_short(value: str) -> bool:
    """Whether a BibTeX name list ends in "and others" (a list cut short)."""
    return bool(re.search(r"\band\s+others\s*$", value.strip(), re.I))


def split_names(value: str) -> list[str]:
    """The names of a BibTeX name list ("A and B and others"), braces respected, "others" kept
    out (it marks a list cut short)."""
    from bibtexparser.middlewares.names import split_multiple_persons_names

    # TeX's spacing inside a name is a space ("Mac\\,Lane" is Mac Lane, never "Mac,Lane"), and a
    # list left ending in "and" ("Bayer, Dave and Eisenbud, David and ") names no one more.
    value = " ".join(re.sub(r"\\[,;:! ]|~", " ", value).split())
    value = re.sub(r"^(?:and\s+)+|(?:\s+and)+$", "", value, flags=re.IGNORECASE)
    names = split_multiple_persons_names(value) if value else []
    return [name for name in names if name.strip().lower() not in ("others", "et al.", "et al")]


def without_comments(text: str) -> str:
    """`text` with its `%` comments blanked, every other character where it was."""
    return re.sub(r"(?<!\\)%[^\n]*", lambda m: " " * len(m.group()), text)
