"""Bibliographies as people write them, read and written back: the one home of BibTeX syntax.

Reading: a `.bib` file with bibtexparser 2 (it keeps every block, comments, `@string` and
`@preamble` included, with its raw text and line); `@string` macros and `#` concatenation are
evaluated here. A `.bbl` file or the `thebibliography` of a `.tex` is read entry by entry from its
`\\bibitem`s.
Every file is refused before any work when it is missing, empty, binary, not UTF-8 or too large,
and a `.bib` that does not parse is refused naming the line.

Writing: `bibtex_text` and friends turn data (a record's title, a person's name, a reason) into
BibTeX values that can neither break the file nor run anything in LaTeX; `corrected_copy` writes
a `.bib` with some entries' fields replaced and every other byte of the file as it was.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import BadInput
from ..core.identifiers import ARXIV_ID_CITED, DOI_CITED, normalise_arxiv_id
from ..core.text import latex_to_unicode, strip_latex

MAX_FILE_BYTES = 20 * 1024 * 1024  # a bibliography of 100,000 entries is under 20 MB
MONTHS = {
    name: str(number)
    for number, name in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)  # noqa: SIM905
}
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
_VOLUME_PAGES = re.compile(r"\b(\d+)\s*(?:\(\d+\))?\s*:\s*(\d+(?:\s*-+\s*\d+)?)")  # 6(2):290--297
_VOLUME = re.compile(r"\bvol(?:ume)?\.?\s*(\d+)", re.I)
_PAGES = re.compile(r"\bpp?\.\s*(\d+(?:\s*-+\s*\d+)?)")
_VENUE_END = re.compile(
    r"\b\d+\s*(?:\(\d+\))?\s*:\s*\d+|\bvol(?:ume)?\.?\s*\d+|\bpp?\.\s*\d+|\(?\b(?:1[5-9]|20)\d\d\b",
    re.I,
)
_BIBITEM = re.compile(r"\\bibitem\s*(?:\[(?:[^\[\]]|\[[^\]]*\])*\])?\s*\{([^}]+)\}")

# ----------------------------------------------------------------------------- writing values

_MATH = re.compile(r"(\$[^$]*\$)")
# Control words that read or write files, define or redefine commands, or change how TeX reads
# what follows: data (a title, a name, a reason) never brings one into a .bib, even inside $...$.
UNSAFE_COMMANDS = frozenset(
    """input include includeonly endinput InputIfFileExists IfFileExists openin openout closein
    closeout read readline write immediate special shipout def edef gdef xdef let futurelet global
    long outer protected newcommand renewcommand providecommand DeclareRobustCommand
    NewDocumentCommand RenewDocumentCommand ProvideDocumentCommand DeclareDocumentCommand csname
    endcsname expandafter noexpand unexpanded detokenize scantokens string meaning catcode lccode
    uccode lowercase uppercase usepackage RequirePackage documentclass begin end makeatletter
    makeatother directlua latelua pdfshellescape pdfprimitive primitive ShellEscape verbatiminput
    lstinputlisting jobname everypar everymath everyjob output afterassignment aftergroup loop
    ExplSyntaxOn AtBeginDocument AtEndDocument message errmessage batchmode nonstopmode
    scrollmode errorstopmode dump bye""".split()  # noqa: SIM905
)
_UNSAFE = re.compile(r"\\(" + "|".join(sorted(UNSAFE_COMMANDS)) + r")(?![A-Za-z])")
_TEXT_SPECIALS = {
    "\\": r"\textbackslash{}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "{": r"\textbraceleft{}",  # an unpaired brace only: paired ones group, as the source meant
    "}": r"\textbraceright{}",
    **{ch: "\\" + ch for ch in "&%#_$"},
}
_IDENTIFIER = re.compile(r"[^\s{}\\%\"]+")


def unsafe_commands(text: str) -> list[str]:
    """The control words of UNSAFE_COMMANDS in `text` (`\\input`, `\\write`, ...), in order."""
    return ["\\" + name for name in _UNSAFE.findall(text)]


def bibtex_text(text: str) -> str:
    """Text (a title, a name, a venue, a reason) as the inside of a braced BibTeX value that can
    neither break the file nor run anything in LaTeX.

    LaTeX accents become the letters they write (text.latex_to_unicode); `$...$` math is kept
    as written when its braces pair up, none is escaped (`\\{`), and it holds no unsafe command,
    no `%`, `#`, `@` or `^^`
    (TeX's way of writing any character); everywhere else `\\`, `~`, `^`, `& % # _ $` and
    unpaired braces are written as the characters they are (`\\textbackslash{}`, `\\&`, ...).
    Braces that pair up are kept: `{W}eb` protects a capital. BibTeX counts every brace, escaped
    or not, so the value's braces always pair up: `} , note = {z` stays inside its field."""
    text = " ".join(text.split())
    return "".join(part if _safe_math(part) else _plain(part) for part in _MATH.split(text))


def bibtex_identifier(text: str) -> str | None:
    """A DOI, arXiv id, category or URL as a BibTeX value, written verbatim (DOIs hold `_` and
    `<>`, which escaping would break), or None when it holds whitespace, a brace, a backslash, a
    `%` or a quote: no real identifier does, and such a value is not written."""
    text = text.strip()
    return text if _IDENTIFIER.fullmatch(text) else None


def bibtex_names(names: list[str]) -> str:
    """Author names joined with " and "; a name that itself holds the word "and" (a
    collaboration) is braced, so that BibTeX reads it as one name."""
    return " and ".join(
        "{" + bibtex_text(name) + "}" if re.search(r"\band\b", name, re.I) else bibtex_text(name)
        for name in names
    )


def _safe_math(part: str) -> bool:
    inner = part[1:-1]
    return (
        len(part) > 2
        and part[0] == part[-1] == "$"
        and {i for i, ch in enumerate(inner) if ch in "{}"} <= _paired(inner)
        and not re.search(r"[%#@]|\^\^", inner)
        and not re.search(r"\\[{}]", inner)  # BibTeX parsers skip an escaped brace when pairing
        and not unsafe_commands(inner)
    )


def _paired(text: str) -> set[int]:
    """The positions of the braces in `text` that pair up."""
    opened, paired = [], set()
    for position, ch in enumerate(text):
        if ch == "{":
            opened.append(position)
        elif ch == "}" and opened:
            paired |= {opened.pop(), position}
    return paired


def _plain(text: str) -> str:
    text = re.sub(r"\\([&%#_$])", r"\1", latex_to_unicode(text))  # escaped once, below
    paired = _paired(text)
    return "".join(
        ch if ch in "{}" and position in paired else _TEXT_SPECIALS.get(ch, ch)
        for position, ch in enumerate(text)
    )


# ----------------------------------------------------------------------------- reading files


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
class Reference:
    """One entry of a bibliography: its key, where it is, and its fields as written (LaTeX and
    all; `@string` macros and `#` concatenations evaluated), field names in lower case."""

    key: str
    file: str
    line: int  # 1-based
    entry_type: str  # "article", "misc", ..., "bibitem"
    fields: dict[str, str] = field(default_factory=dict)

    def candidate(self) -> dict[str, Any]:
        """What the verification gate is given (schemas/candidates.schema.json)."""
        fields = self.fields
        authors = split_names(fields.get("author", ""))
        if authors and _cut_short(fields.get("author", "")):
            authors.append("et al.")  # "and others": the gate reads the list as incomplete
        year = _YEAR.search(fields.get("year") or fields.get("date") or "")
        found = {
            "key": self.key,
            "title": fields.get("title"),
            "authors": authors or None,
            "year": int(year.group(1)) if year else None,
            "arxiv_id": self.arxiv_id(),
            "doi": self.doi(),
            "venue": fields.get("journal") or fields.get("booktitle"),
            "volume": fields.get("volume"),
            "pages": fields.get("pages"),
        }
        return {name: value for name, value in found.items() if value not in (None, "")}

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
            return self.fields["doi"].strip()
        for name in ("url", "note", "text"):
            found = DOI_CITED.search(self.fields.get(name) or "")
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
        cited.pop("key")
        return cited


def plain_text(value: str) -> str:
    """A LaTeX field value as a person reads it: `Erd{\\H{o}}s` is `Erdős`, `{W}eb` is `Web`."""
    return " ".join(strip_latex(value).split())


def _cut_short(value: str) -> bool:
    """Whether a BibTeX name list ends in "and others" (a list cut short)."""
    return bool(re.search(r"\band\s+others\s*$", value.strip(), re.I))


def split_names(value: str) -> list[str]:
    """The names of a BibTeX name list ("A and B and others"), braces respected, "others" kept
    out (it marks a list cut short)."""
    from bibtexparser.middlewares.names import split_multiple_persons_names

    names = split_multiple_persons_names(" ".join(value.split())) if value.strip() else []
    return [name for name in names if name.strip().lower() not in ("others", "et al.", "et al")]


@dataclass
class BibFile:
    """A parsed .bib file: its text, its blocks (bibtexparser, raw values) and its entries."""

    path: Path
    text: str
    library: Any  # bibtexparser.Library, parsed without middlewares: values as written
    references: list[Reference]
    repeated_keys: list[tuple[str, int]]  # (key, 1-based line) of a second entry with a used key


def parse_bibtex(text: str) -> Any:
    """bibtexparser's blocks for `text`, values as written (no middleware: `@string` references,
    braces and quotes kept, so that a block can be written back as it was)."""
    from bibtexparser.entrypoint import parse_string

    logging.getLogger("bibtexparser").setLevel(logging.ERROR)  # the caller says what failed
    return parse_string(text, parse_stack=[])


def read_bib(path: str | Path) -> BibFile:
    """Parse a .bib file; BadInput naming the line of the first block that does not parse, or
    when the file holds no entry."""
    from bibtexparser.model import DuplicateBlockKeyBlock, Entry, String

    path = Path(path)
    text = read_file(path, "bibliography")
    library = parse_bibtex(text)
    failed = [b for b in library.failed_blocks if not isinstance(b, DuplicateBlockKeyBlock)]
    if failed:
        block = failed[0]
        detail = " ".join(
            (getattr(block.error, "abort_reason", None) or str(block.error) or "syntax").split()
        )
        raise BadInput(
            f"{path}: line {(block.start_line or 0) + 1}: this entry cannot be parsed ({detail})",
            code="bad_bib",
        )
    strings: dict[str, str] = dict(MONTHS)
    references, repeated = [], []
    for block in library.blocks:
        if isinstance(block, String):
            strings[block.key.lower()] = evaluate(block.value, strings)
        elif isinstance(block, DuplicateBlockKeyBlock):
            repeated.append((block.key, (block.start_line or 0) + 1))
        elif isinstance(block, Entry):
            fields = {f.key.lower(): evaluate(f.value, strings) for f in block.fields}
            references.append(
                Reference(
                    block.key, str(path), (block.start_line or 0) + 1, block.entry_type, fields
                )
            )
    if not references:
        raise BadInput(f"{path} holds no BibTeX entry (@article{{...}}, ...)", code="no_entries")
    return BibFile(path, text, library, references, repeated)


def evaluate(raw: str, strings: dict[str, str]) -> str:
    """A field's value as BibTeX reads it: `{...}` and `"..."` unwrapped, numbers as they are,
    `@string` macros (and the month names) replaced, `#` concatenations joined."""
    parts, depth, quoted, start = [], 0, False, 0
    for position, ch in enumerate(raw):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == "#" and depth == 0 and not quoted:
            parts.append(raw[start:position])
            start = position + 1
    parts.append(raw[start:])
    values = []
    for part in (p.strip() for p in parts):
        if len(part) >= 2 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
            values.append(part[1:-1])
        else:
            values.append(strings.get(part.lower(), part))
    return " ".join("".join(values).split())


def read_bibitems(path: str | Path, text: str | None = None) -> list[Reference]:
    """The `\\bibitem`s of a .bbl file or of a .tex's thebibliography, as references: the first
    `\\newblock` is the authors, the second the title, the rest the venue (else the title is the
    `\\emph`/`\\textit` part or the quoted part); year, arXiv id and DOI are found in the text."""
    path = Path(path)
    text = read_file(path, "bibliography") if text is None else text
    body = re.sub(r"(?<!\\)%[^\n]*\n?", "", text)  # comments, and the line breaks they join
    body = body.split("\\end{thebibliography}", 1)[0]
    items = list(_BIBITEM.finditer(body))
    references = []
    for number, item in enumerate(items):
        end = items[number + 1].start() if number + 1 < len(items) else len(body)
        line = text.count("\n", 0, text.find(item.group(0))) + 1
        fields = _bibitem_fields(body[item.end() : end])
        references.append(Reference(item.group(1).strip(), str(path), line, "bibitem", fields))
    return references


def _bibitem_fields(text: str) -> dict[str, str]:
    text = " ".join(re.sub(r"(?<!\\)~", " ", text).split())  # ties are spaces
    fields = {"text": text}
    blocks = [b.strip(" .,") for b in re.split(r"\\newblock\b", text) if b.strip(" .,")]
    if len(blocks) >= 2:
        authors, title, rest = blocks[0], blocks[1], " ".join(blocks[2:])
    else:
        quoted = re.search(
            r"\\(?:emph|textit|textsl)\s*\{((?:[^{}]|\{[^{}]*\})+)\}"
            r"|\{\\(?:em|it|sl)\s+((?:[^{}]|\{[^{}]*\})+)\}|``(.+?)''|\"(.+?)\"",
            text,
        )
        if not quoted:
            return fields
        title = next(group for group in quoted.groups() if group)
        authors, rest = text[: quoted.start()], text[quoted.end() :]
    fields["title"] = title.strip(" .,")
    fields["author"] = " and ".join(_bibitem_names(authors))
    rest = ARXIV_ID_CITED.sub(" ", DOI_CITED.sub(" ", rest))  # an id's digits are no year
    year = _YEAR.findall(rest) or _YEAR.findall(ARXIV_ID_CITED.sub(" ", authors))
    if year:
        fields["year"] = year[-1]
    rest = " ".join(re.sub(r"\\url\s*\{[^}]*\}|\\href\s*\{[^}]*\}", " ", rest).split())
    numbers = _VOLUME_PAGES.search(rest)
    if numbers:
        fields["volume"], fields["pages"] = numbers.group(1), numbers.group(2)
    else:
        for name, pattern in (("volume", _VOLUME), ("pages", _PAGES)):
            found = pattern.search(rest)
            if found:
                fields[name] = found.group(1)
    # the venue is what comes before its volume, pages or year: "Adv. Math. 6:290--297, 1959"
    first_number = _VENUE_END.search(rest)
    venue = (rest[: first_number.start()] if first_number else rest).strip(" .,;:(")
    if re.search(r"[^\W\d_]", venue):
        fields["journal"] = venue
    return fields


def _bibitem_names(text: str) -> list[str]:
    """Names from the author part of a \\bibitem: "A. One, B. Two, and C. Three", "One, A. and
    Two, B.", "A.~One and B.~Two"."""
    text = re.sub(r"\s*,?\s+(?:and|\\&|&)\s+", " and ", text.replace("~", " ").strip(" ,"))
    text = re.sub(r"(?<=\w\w)\.$", "", text)  # the sentence's period, not an initial's
    if " and " in text and all("," in part for part in text.split(" and ")):
        return [part.strip() for part in text.split(" and ")]  # "Family, Given" names
    return [name.strip() for name in re.split(r",| and ", text) if name.strip(" .")]


# ----------------------------------------------------------------------------- writing a copy


def corrected_copy(bib: BibFile, updates: dict[str, dict[str, str | None]], header: str) -> str:
    """The .bib text with, for each key in `updates`, its entry's fields replaced (name -> new raw
    value, already a valid BibTeX value; None removes the field; a new name is appended after
    the entry's fields). Every other byte of the file (comments, `@string`, `@preamble`, other
    entries, blank lines) is kept; the edited entry keeps its key, type and field order.
    `header` (comment lines) goes first."""
    from bibtexparser.model import Entry

    starts = [0] + [m.end() for m in re.finditer("\n", bib.text)]
    pieces, cursor = [header], 0
    done: set[str] = set()
    for block in bib.library.blocks:
        if not isinstance(block, Entry) or block.key not in updates or block.key in done:
            continue
        if block.raw is None:  # never so for a parsed entry; a built one has no text to replace
            continue
        done.add(block.key)  # a repeated key: only the first entry was checked
        begin = bib.text.index(block.raw, max(cursor, starts[block.start_line or 0]))
        pieces += [bib.text[cursor:begin], _entry_text(block, updates[block.key])]
        cursor = begin + len(block.raw)
    pieces.append(bib.text[cursor:])
    return "".join(pieces)


def _entry_text(block: Any, changes: dict[str, str | None]) -> str:
    layout = re.search(r"\n([ \t]+)([\w-]+)([ \t]*)=", block.raw)
    indent = layout.group(1) if layout else "  "
    # the column of the `=` the entry's first field uses, so that aligned values stay aligned
    aligned = layout and len(layout.group(3)) > 1
    width = len(layout.group(2) + layout.group(3)) - 1 if layout and aligned else 0
    written_type = re.match(r"@\s*(\w+)", block.raw)
    entry_type = written_type.group(1) if written_type else block.entry_type
    pending = {name.lower(): (name, value) for name, value in changes.items()}
    lines = []
    for item in block.fields:
        _, value = pending.pop(item.key.lower(), (item.key, item.value))
        if value is not None:
            lines.append(f"{indent}{item.key:<{width}} = {value}")
    lines += [f"{indent}{name:<{width}} = {value}" for name, value in pending.values() if value]
    return f"@{entry_type}{{{block.key},\n" + ",\n".join(lines) + ",\n}"
