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
_VOLUME_PAGES = re.compile(  # 6(2):290--297, 19(1-2):57--70
    r"\b(\d+)\s*(?:\(\d+(?:\s*[-–]+\s*\d+)?\))?\s*:\s*(\d+(?:\s*-+\s*\d+)?)"
)
_VOLUME = re.compile(r"\bvol(?:ume)?\.?\s*(\d+)", re.I)
_PAGES = re.compile(r"\b(?:pp?\.|pages)\s*(\d+(?:\s*-+\s*\d+)?)")
_VOLUME_YEAR_PAGES = re.compile(  # amsplain: "Ann. of Math. 72 (1960), 20-103"
    r"\b(\d+)\s*\(\s*(?:1[5-9]|20)\d\d\s*\)\s*,?\s*(?:no\.\s*\d+\s*,\s*)?(?:pp?\.\s*)?"
    r"(\d+(?:\s*-+\s*\d+)?)"
)
_VOLUME_COMMA_PAGES = re.compile(r"\b(\d+)\s*,\s*(?:pp?\.\s*)?(\d+\s*-+\s*\d+)")  # 19, 1655--1664
_VENUE_END = re.compile(
    r"\b\d+\s*,\s*(?:pp?\.\s*)?\d+\s*-+\s*\d+|\b\d+\s*\(\s*(?:1[5-9]|20)\d\d\s*\)"
    r"|\b\d+\s*(?:\(\d+(?:\s*[-–]+\s*\d+)?\))?\s*:\s*\d+|\bvol(?:ume)?\.?\s*\d+|\bpp?\.\s*\d+"
    r"|,?\s*\bpages\s+\d+|\(?\b(?:1[5-9]|20)\d\d\b",
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
    raw: dict[str, str] = field(default_factory=dict)  # a .bib field's value exactly as written

    def candidate(self) -> dict[str, Any]:
        """What the verification gate is given (schemas/candidates.schema.json)."""
        fields = self.fields
        authors = split_names(fields.get("author", ""))
        if authors and _cut_short(fields.get("author", "")):
            authors.append("et al.")  # "and others": the gate reads the list as incomplete
        year = _YEAR.search(fields.get("year") or fields.get("date") or "")
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
    """A LaTeX field value as a person reads it: `Erd{\\H{o}}s` is `Erdős`, `{W}eb` is `Web`;
    `$...$` math is kept as written (`$\\GL_2(\\Qp)$`, `$\\frac12$`): text cannot render it."""
    parts = _MATH.split(drop_commands(value))
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


def group_end(text: str, start: int) -> int:
    """The position after the `}` closing the `{` at `start` (escaped braces skipped; the end of
    the text when it never closes)."""
    depth, position = 0, start
    while position < len(text):
        ch = text[position]
        if ch == "\\":
            position += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
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
    warnings: list[str] = field(default_factory=list)  # what BibTeX would warn about, read anyway


def parse_bibtex(text: str) -> Any:
    """bibtexparser's blocks for `text`, values as written (no middleware: `@string` references,
    braces and quotes kept, so that a block can be written back as it was)."""
    from bibtexparser.entrypoint import parse_string

    logging.getLogger("bibtexparser").setLevel(logging.ERROR)  # the caller says what failed
    return parse_string(text, parse_stack=[])


def entry_blocks(library: Any) -> list[tuple[Any, Any]]:
    """(block, entry) for every entry of `library` in file order: an entry repeating a field
    (BibTeX and biber only warn) is a failed block of bibtexparser's whose entry is kept."""
    from bibtexparser.model import DuplicateFieldKeyBlock, Entry

    found: list[tuple[Any, Any]] = []
    for block in library.blocks:
        if isinstance(block, Entry):
            found.append((block, block))
        elif isinstance(block, DuplicateFieldKeyBlock) and isinstance(
            block.ignore_error_block, Entry
        ):
            found.append((block, block.ignore_error_block))
    return found


def read_bib(path: str | Path) -> BibFile:
    """Parse a .bib file as BibTeX reads it; BadInput naming the line of the first block that does
    not parse, or when the file holds no entry. A field given twice in one entry keeps its first
    value, as BibTeX does, with a warning."""
    path = Path(path)
    return read_bib_text(read_file(path, "bibliography"), path)


def read_bib_text(text: str, path: Path) -> BibFile:
    """read_bib for the text of `path`, already read."""
    from bibtexparser.model import (
        DuplicateBlockKeyBlock,
        DuplicateFieldKeyBlock,
        Entry,
        String,
    )

    library = parse_bibtex(text)
    failed = [
        b
        for b in library.failed_blocks
        if not isinstance(b, (DuplicateBlockKeyBlock, DuplicateFieldKeyBlock))
    ]
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
    references, repeated, warnings = [], [], []
    for block in library.blocks:
        if isinstance(block, String):
            strings[block.key.lower()] = evaluate(block.value, strings)
        elif isinstance(block, DuplicateBlockKeyBlock):
            repeated.append((block.key, (block.start_line or 0) + 1))
        elif isinstance(block, (Entry, DuplicateFieldKeyBlock)):
            entry: Any = block if isinstance(block, Entry) else block.ignore_error_block
            if not isinstance(entry, Entry):
                continue
            line = (block.start_line or 0) + 1
            raw: dict[str, str] = {}
            for item in entry.fields:
                name = item.key.lower()
                if name in raw:
                    warnings.append(
                        f"{path.name} line {line}: {entry.key} gives the field {name} twice; "
                        "the first is used, as BibTeX does"
                    )
                else:
                    raw[name] = item.value
            fields = {name: evaluate(value, strings) for name, value in raw.items()}
            references.append(Reference(entry.key, str(path), line, entry.entry_type, fields, raw))
    if not references:
        raise BadInput(f"{path} holds no BibTeX entry (@article{{...}}, ...)", code="no_entries")
    return BibFile(path, text, library, references, repeated, warnings)


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


def read_items(path: str | Path, text: str | None = None) -> list[Reference]:
    """The entries of a bibliography that is not a .bib, whichever way it is written, in file
    order: `\\bibitem`s (a .bbl of amsalpha, plain or an author-year style, a .tex's
    thebibliography), biblatex/biber's `\\entry{key}{type}` (.bbl), amsrefs' `\\bib{key}{type}{...}`
    (a .ltb database, or inside a .tex)."""
    path = Path(path)
    text = read_file(path, "bibliography") if text is None else text
    found = read_bibitems(path, text) + read_biblatex_bbl(path, text) + read_amsrefs(path, text)
    return sorted(found, key=lambda reference: reference.line)


def _without_comments(text: str) -> str:
    """`text` with its `%` comments blanked, every other character where it was."""
    return re.sub(r"(?<!\\)%[^\n]*", lambda m: " " * len(m.group()), text)


def read_bibitems(path: str | Path, text: str | None = None) -> list[Reference]:
    """The `\\bibitem`s of a .bbl file or of a .tex's thebibliography, as references: the first
    `\\newblock` is the authors, the second the title, the rest the venue (else the title is the
    `\\emph`/`\\textit`/`{\\bf ...}` part or the quoted part, or, in an author-year style, the
    sentence after the year); year, arXiv id and DOI are found in the text."""
    path = Path(path)
    text = read_file(path, "bibliography") if text is None else text
    body = _without_comments(text)
    end = body.find("\\end{thebibliography}")
    body = body if end < 0 else body[:end]
    items = list(_BIBITEM.finditer(body))
    references = []
    for number, item in enumerate(items):
        stop = items[number + 1].start() if number + 1 < len(items) else len(body)
        line = text.count("\n", 0, item.start()) + 1
        fields = _bibitem_fields(body[item.end() : stop])
        references.append(Reference(item.group(1).strip(), str(path), line, "bibitem", fields))
    return references


_TITLE = re.compile(
    r"\\(?:emph|textit|textsl)\s*\{((?:[^{}]|\{[^{}]*\})+)\}"
    r"|\{\\(?:em|it|itshape|sl|slshape)\b\s*((?:[^{}]|\{[^{}]*\})+)\}"
    r"|``(.+?)''|\"(.+?)\"|“(.+?)”"
    r"|\\textbf\s*\{((?:[^{}]|\{[^{}]*\})+)\}|\{\\(?:bf|bfseries)\b\s*((?:[^{}]|\{[^{}]*\})+)\}"
)
_NAME_STYLE = re.compile(
    r"\{\\(?:sc|scshape|textsc|bf|bfseries|rm|upshape)\b\s*((?:[^{}]|\{[^{}]*\})*)\}"
    r"|\\(?:textsc|textbf|textrm)\s*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
_AUTHOR_YEAR = re.compile(
    r"([^(){}\\`'\"“]{3,300}?)\(\s*((?:1[5-9]|20)\d\d)[a-z]?\s*\)[.:,]?\s+(.+)", re.S
)
_PAGE_RANGE = re.compile(r"\b\d+\s*(?:-+|–|—)\s*\d+\b")
_YEAR_IN_PARENTHESES = re.compile(r"\(\s*(?:[^()]*?\s)?((?:1[5-9]|20)\d\d)[a-z]?\s*\)")


def _bibitem_fields(text: str) -> dict[str, str]:
    text = " ".join(re.sub(r"(?<!\\)~", " ", text).split())  # ties are spaces
    text = drop_commands(text)
    fields = {"text": text}
    blocks = [b.strip(" .,") for b in re.split(r"\\newblock\b", text) if b.strip(" .,")]
    author_year = _AUTHOR_YEAR.match(text)
    if len(blocks) >= 2:
        authors, title, rest = blocks[0], blocks[1], " ".join(blocks[2:])
    elif author_year and not _TITLE.match(author_year.group(3)):
        # "Alexander, D. H., J. Novembre, and K. Lange (2009). Title. \emph{Journal} 19, 1--2."
        authors, after = author_year.group(1) + f" ({author_year.group(2)})", author_year.group(3)
        title, _, rest = after.partition(". ")
    else:
        quoted = next(
            (
                found
                for found in _TITLE.finditer(text)
                if re.search(r"[^\W\d_]{2}", next(g for g in found.groups() if g))
                # bold opening the entry is its authors ("{\bf A. One}, \emph{Title}")
                and (not (found.group(6) or found.group(7)) or text[: found.start()].strip(" ,."))
            ),
            None,
        )
        if not quoted:
            return fields
        title = next(group for group in quoted.groups() if group)
        authors, rest = text[: quoted.start()], text[quoted.end() :]
    authors = _NAME_STYLE.sub(lambda m: m.group(1) or m.group(2) or "", authors)
    # an author-year style: "Alexander, D. H., J. Novembre, and K. Lange (2009)"
    year_given = _YEAR_IN_PARENTHESES.search(authors) or _YEAR_IN_PARENTHESES.search(rest)
    authors = _YEAR_IN_PARENTHESES.sub(" ", authors)
    title_year = re.search(r",\s*((?:1[5-9]|20)\d\d)\W*$", title)
    if title_year and not rest.strip():  # "\newblock Enumerating longest ..., 2000."
        title, rest = title[: title_year.start()], title_year.group(1)
    fields["title"] = title.strip(" .,")
    fields["author"] = " and ".join(_bibitem_names(authors))
    rest = ARXIV_ID_CITED.sub(" ", DOI_CITED.sub(" ", rest))  # an id's digits are no year
    if year_given:
        fields["year"] = year_given.group(1)
    else:
        year = _YEAR.findall(_PAGE_RANGE.sub(" ", rest)) or _YEAR.findall(
            ARXIV_ID_CITED.sub(" ", authors)
        )
        if year:
            fields["year"] = year[-1]
    rest = " ".join(re.sub(r"\\url\s*\{[^}]*\}|\\href\s*\{[^}]*\}", " ", rest).split())
    numbers = (
        _VOLUME_PAGES.search(rest)
        or _VOLUME_YEAR_PAGES.search(rest)
        or _VOLUME_COMMA_PAGES.search(rest)
    )
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
    if re.search(r"[^\W\d_]", plain_text(venue)):  # not a lone journal macro (\ANNMAone)
        fields["journal"] = venue
    return fields


_INITIALS = re.compile(r"(?:[^\W\d_]{1,2}\.\s*-?\s*)+|[A-Z]{1,2}")


def _bibitem_names(text: str) -> list[str]:
    """Names from the author part of a \\bibitem: "A. One, B. Two, and C. Three", "One, A. and
    Two, B.", "A.~One and B.~Two", "One, A. B., C. Two, and D. Three"."""
    text = re.sub(r"\s*,?\s+(?:and|\\&|&)\s+", " and ", text.replace("~", " ").strip(" ,"))
    text = re.sub(r"(?<=\w\w)\.$", "", text.strip(" ,"))  # the sentence's period, not an initial's
    if " and " in text and all(part.count(",") == 1 for part in text.split(" and ")):
        return [part.strip() for part in text.split(" and ")]  # "Family, Given" names
    parts = [name.strip() for name in re.split(r",| and ", text) if name.strip(" .")]
    names: list[str] = []
    for part in parts:
        # "Family, A. B.": initials after a one-word family name belong to it
        if names and _INITIALS.fullmatch(part) and " " not in names[-1] and "," not in names[-1]:
            names[-1] += ", " + part
        else:
            names.append(part)
    return names


# biblatex/biber .bbl: \entry{key}{type}{options} ... \endentry
_BBL_ENTRY = re.compile(r"\\entry\s*\{([^{}]+)\}\s*\{([^{}]+)\}")
_BBL_FIELDS = {
    "journaltitle": "journal",
    "journal": "journal",
    "booktitle": "booktitle",
    "title": "title",
    "subtitle": "subtitle",
    "year": "year",
    "date": "date",
    "volume": "volume",
    "number": "number",
    "pages": "pages",
    "eprint": "eprint",
    "eprinttype": "eprinttype",
    "eprintclass": "primaryclass",
    "doi": "doi",
    "url": "url",
    "note": "note",
    "howpublished": "howpublished",
}


def read_biblatex_bbl(path: str | Path, text: str) -> list[Reference]:
    """The `\\entry`s of a .bbl biber wrote for biblatex: `\\field{title}{...}`,
    `\\name{author}{n}{}{{{hash=...}{family={...}, given={...}}}...}`, `\\list{publisher}`,
    `\\range{pages}`, `\\verb{doi} \\verb ... \\endverb`."""
    body = _without_comments(text)
    references = []
    for found in _BBL_ENTRY.finditer(body):
        stop = body.find("\\endentry", found.end())
        if stop < 0:  # not biber's: every entry it writes ends so
            continue
        chunk = body[found.end() : stop]
        fields: dict[str, str] = {}
        for command in re.finditer(r"\\(field|range|name|list|verb)\s*\{([^{}]+)\}", chunk):
            kind, name = command.group(1), command.group(2).lower()
            cursor = command.end()
            if kind == "verb":
                value = chunk[cursor:].split("\\endverb", 1)[0]
                value = " ".join(re.sub(r"\\verb\b", " ", value).split())
            else:
                if kind in ("name", "list"):  # {count}{options} before the value
                    for _ in range(2):
                        cursor = _skip_group(chunk, cursor)
                start = chunk.find("{", cursor)
                if start < 0:
                    continue
                value = chunk[start + 1 : group_end(chunk, start) - 1]
            if kind == "name" and name == "author":
                fields["author"] = " and ".join(_biber_names(value))
            elif kind == "list" and name in ("publisher", "location", "institution"):
                fields[name] = "; ".join(_top_groups(value))
            elif kind in ("field", "range", "verb") and name in _BBL_FIELDS:
                value = re.sub(r"\\bibrangedash\b\s*", "--", value)
                value = re.sub(r"\\bibrangessep\b\s*", ", ", value)
                fields.setdefault(_BBL_FIELDS[name], " ".join(value.split()))
        if "subtitle" in fields and "title" in fields:
            fields["title"] += ": " + fields.pop("subtitle")
        line = text.count("\n", 0, found.start()) + 1
        references.append(
            Reference(found.group(1).strip(), str(path), line, found.group(2).strip(), fields)
        )
    return references


def _skip_group(text: str, cursor: int) -> int:
    """The position after the `{...}` that follows `cursor` (whitespace and `%` skipped)."""
    start = cursor
    while start < len(text) and text[start] in " \t\r\n%":
        start += 1
    return group_end(text, start) if text.startswith("{", start) else cursor


def _top_groups(text: str) -> list[str]:
    """The contents of the top-level `{...}` groups of `text`."""
    groups: list[str] = []
    position = 0
    while True:
        start = text.find("{", position)
        if start < 0:
            return groups
        position = group_end(text, start)
        groups.append(" ".join(text[start + 1 : position - 1].split()))


def _biber_names(value: str) -> list[str]:
    names = []
    for person in re.split(r"\{\s*hash=", value)[1:]:
        parts = {}
        for part in re.finditer(r"\b(family|given|prefix|suffix)=\{", person):
            start = part.end() - 1
            parts[part.group(1)] = person[start + 1 : group_end(person, start) - 1]
        family = " ".join(p for p in (parts.get("prefix"), parts.get("family")) if p)
        name = ", ".join(p for p in (family, parts.get("suffix"), parts.get("given")) if p)
        name = re.sub(r"\\bibnamedelim[a-z]?|\\bibinitdelim", " ", name)
        name = re.sub(r"\\bibinitperiod", ".", name).replace("\\bibinithyphendelim", "-")
        if name.strip():
            names.append(" ".join(name.split()))
    return names


# amsrefs: \bib{key}{type}{field={value}, ...}, \bib*{key}{type}{...} (in a .ltb or a .tex)
_AMSREFS_ENTRY = re.compile(r"\\bib\*?\s*\{([^{}]+)\}\s*\{([^{}]+)\}\s*\{")
_AMSREFS_FIELDS = {
    "title": "title",
    "subtitle": "subtitle",
    "journal": "journal",
    "volume": "volume",
    "number": "number",
    "pages": "pages",
    "date": "year",
    "year": "year",
    "doi": "doi",
    "eprint": "eprint",
    "arxiv": "arxiv",
    "booktitle": "booktitle",
    "publisher": "publisher",
    "series": "series",
    "note": "note",
    "url": "url",
    "review": "review",
}


def read_amsrefs(path: str | Path, text: str) -> list[Reference]:
    """The amsrefs entries of a .ltb database or a .tex: `\\bib{key}{type}{title={...},
    author={Family, Given}, author={...}, journal={...}, date={1999}, ...}`; an inner
    `book={title={...}, ...}` or `conference={...}` gives the booktitle."""
    body = _without_comments(text)
    references = []
    for found in _AMSREFS_ENTRY.finditer(body):
        start = found.end() - 1
        inner = body[start + 1 : group_end(body, start) - 1]
        fields: dict[str, str] = {}
        authors: list[str] = []
        for name, value in _amsrefs_pairs(inner):
            if name == "author":
                authors.append(value)
            elif name in ("book", "conference") and "booktitle" not in fields:
                book = dict(_amsrefs_pairs(value))
                if book.get("title"):
                    fields["booktitle"] = book["title"]
            elif name in _AMSREFS_FIELDS:
                fields.setdefault(_AMSREFS_FIELDS[name], value)
        if authors:
            fields["author"] = " and ".join(authors)
        if "subtitle" in fields and "title" in fields:
            fields["title"] += ": " + fields.pop("subtitle")
        line = text.count("\n", 0, found.start()) + 1
        references.append(
            Reference(found.group(1).strip(), str(path), line, found.group(2).strip(), fields)
        )
    return references


def _amsrefs_pairs(text: str) -> list[tuple[str, str]]:
    """The `name={value}` pairs of an amsrefs entry's body, in order, names in lower case."""
    pairs: list[tuple[str, str]] = []
    position = 0
    pattern = re.compile(r"([A-Za-z]+)\s*=\s*")
    while True:
        found = pattern.search(text, position)
        if not found:
            return pairs
        start = found.end()
        if text.startswith("{", start):
            position = group_end(text, start)
            value = text[start + 1 : position - 1]
        else:
            end = text.find(",", start)
            position = len(text) if end < 0 else end
            value = text[start:position]
        value = re.sub(r"\\ndash\b\s*", "--", re.sub(r"\\mdash\b\s*", "---", value))
        pairs.append((found.group(1).lower(), " ".join(value.split())))


# ----------------------------------------------------------------------------- writing a copy


def corrected_copy(
    bib: BibFile, updates: dict[str, dict[str, str | None]], header: str, mark: str = ""
) -> str:
    """The .bib text with, for each key in `updates`, its entry's fields edited in place (name ->
    new raw value, already a valid BibTeX value; None removes the field; a new name is added
    after the entry's last field, laid out as that field is). Only those values change: the
    entry's type as written (`@book {MR...,`), its alignment and spacing, every other field and
    every other byte of the file (comments, `@string`, `@preamble`, other entries, blank lines,
    CRLF line ends) stay as they were. `header` (comment lines) goes first, in the file's line
    ends, replacing a first line that starts with `mark` (the header of an earlier copy)."""
    newline = "\r\n" if "\r\n" in bib.text else "\n"
    starts = [0] + [m.end() for m in re.finditer("\n", bib.text)]
    cursor = len(bib.text.split("\n", 1)[0]) + 1 if mark and bib.text.startswith(mark) else 0
    pieces = [header.replace("\n", newline)]
    done: set[str] = set()
    for block, entry in entry_blocks(bib.library):
        if entry.key not in updates or entry.key in done or block.raw is None:
            continue
        done.add(entry.key)  # a repeated key: only the first entry was checked
        begin = bib.text.index(block.raw, max(cursor, starts[block.start_line or 0]))
        pieces += [bib.text[cursor:begin], edited_entry(block.raw, updates[entry.key], newline)]
        cursor = begin + len(block.raw)
    pieces.append(bib.text[cursor:])
    return "".join(pieces)


@dataclass
class _FieldSpan:
    name: str
    line_start: int  # where the field's line starts (its indentation included)
    name_start: int
    equals: int  # the position of its `=`
    value_start: int
    value_end: int


def field_spans(raw: str) -> list[_FieldSpan]:
    """Where each field of one entry's text is: its name, its `=` and its value (a braced or
    quoted value, a number, a macro, or a `#` concatenation of them)."""
    opening = re.match(r"@\s*\w+\s*[{(]", raw)
    if not opening:
        return []
    position = raw.find(",", opening.end())
    spans: list[_FieldSpan] = []
    name_pattern = re.compile(r"[\s,]*([^\s=,{}()\"#%]+)\s*=\s*")
    while position >= 0:
        found = name_pattern.match(raw, position)
        if not found:
            break
        value_start = cursor = found.end()
        while True:
            if raw.startswith("{", cursor):
                cursor = group_end(raw, cursor)
            elif raw.startswith('"', cursor):
                cursor = _quoted_end(raw, cursor)
            else:
                bare = re.match(r"[^\s,#{}()\"]+", raw[cursor:])
                cursor += bare.end() if bare else 0
            more = re.match(r"\s*#\s*", raw[cursor:])
            if not more:
                break
            cursor += more.end()
        name_start = found.start(1)
        line_start = raw.rfind("\n", 0, name_start) + 1
        if raw[line_start:name_start].strip():
            line_start = name_start
        equals = raw.index("=", found.end(1))
        spans.append(
            _FieldSpan(found.group(1), line_start, name_start, equals, value_start, cursor)
        )
        position = cursor
    return spans


def _quoted_end(text: str, start: int) -> int:
    depth, position = 0, start + 1
    while position < len(text):
        ch = text[position]
        if ch == "\\":
            position += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == '"' and depth == 0:
            return position + 1
        position += 1
    return len(text)


def edited_entry(raw: str, changes: dict[str, str | None], newline: str = "\n") -> str:
    """One entry's text with `changes` made in place (see corrected_copy)."""
    spans = field_spans(raw)
    by_name: dict[str, _FieldSpan] = {}
    for span in spans:
        by_name.setdefault(span.name.lower(), span)  # a repeated field: BibTeX reads the first
    edits: list[tuple[int, int, str]] = []  # (start, end, new text), applied from the end
    added: list[tuple[str, str]] = []
    for name, value in changes.items():
        found = by_name.get(name.lower())
        if found is None:
            if value is not None:
                added.append((name, value))
        elif value is not None:
            edits.append((found.value_start, found.value_end, value))
        else:
            span = found
            index = spans.index(span)
            if index > 0:  # from the end of the value before it: ",\n  name = value"
                edits.append((spans[index - 1].value_end, span.value_end, ""))
            elif index + 1 < len(spans):
                edits.append((span.line_start, spans[index + 1].line_start, ""))
            else:
                edits.append((span.name_start, span.value_end, ""))
    if added:
        edits.append(_added_fields(raw, spans, added, newline))
    for start, end, text in sorted(edits, reverse=True):
        raw = raw[:start] + text + raw[end:]
    return raw


def _added_fields(
    raw: str, spans: list[_FieldSpan], added: list[tuple[str, str]], newline: str
) -> tuple[int, int, str]:
    """The insertion of new fields after the entry's last field, laid out as it is: its
    indentation, the column of its `=` (left- or right-aligned names), the case of its name."""
    if not spans:
        after_key = raw.find(",")
        at = after_key + 1 if after_key >= 0 else raw.rfind("}")
        return (
            at,
            at,
            "".join(f"{newline}  {name} = {value}," for name, value in added) + newline,
        )
    last = spans[-1]
    indent = raw[last.line_start : last.name_start]
    gap = raw[last.name_start + len(last.name) : last.equals]
    separator = raw[last.equals : last.value_start]
    column = len(indent) + len(last.name) + len(gap)
    indents = {len(raw[s.line_start : s.name_start]) for s in spans}
    right_aligned = len(indents) > 1 and len({s.line_start < s.name_start for s in spans}) == 1
    lines = []
    for name, value in added:
        written = name.upper() if last.name.isupper() else name
        if right_aligned:
            prefix = " " * max(column - len(gap) - len(written), 1) + written + gap
        elif len(gap) > 1 or "\t" in gap:
            prefix = indent + written + " " * max(column - len(indent) - len(written), 1)
        else:
            prefix = indent + written + gap
        if last.line_start == last.name_start and not indent:
            prefix = written + gap  # fields on one line
        lines.append((prefix, separator + value))
    trailing = re.match(r"[ \t]*,", raw[last.value_end :])
    one_line = "\n" not in raw[spans[0].name_start : last.value_end] and len(spans) > 1
    joint = " " if one_line else newline
    first = spans[0]
    if not trailing and not one_line and first.line_start < first.name_start:
        # the last field ends without a comma: the new lines go first, so that no line of the
        # user's changes (a comma added to the last one would change it)
        at = first.line_start
        return at, at, "".join(f"{prefix}{value},{newline}" for prefix, value in lines)
    if trailing:
        at = last.value_end + trailing.end()
        text = "".join(f"{joint}{prefix}{value}," for prefix, value in lines)
    else:
        at = last.value_end
        text = "".join(f",{joint}{prefix}{value}" for prefix, value in lines)
    return at, at, text
