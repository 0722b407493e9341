"""A paper's LaTeX source as one document: the main file found, its inputs spliced in, comments
and dead branches gone, every line still knowing where it came from (its own macros are read from
it by texmacros.py).

Pure functions over the archive's members (file name -> bytes), as latex_source.py unpacks them:

- Text: UTF-8 (a byte-order mark dropped), else Latin-1, which reads any byte (older papers are
  Latin-1: `[latin1]{inputenc}`); CRLF and lone CR become LF before lines are counted.
- Comments: `%` to the end of the line, except `\\%` (an escaped backslash before it does not
  protect it: `\\\\%` starts a comment) and inside `\\verb|...|`. The comment package's
  `\\begin{comment}...\\end{comment}`, `\\iffalse ... \\fi` (its `\\else` branch kept, nested
  conditionals counted) and the `\\else` branch of `\\iftrue` are dropped, as is everything
  after `\\endinput` (TeX finishes that line). Removed text keeps its line breaks, so a line's
  number stays the one an editor shows.
- The main file: the one with `\\documentclass` or `\\documentstyle` (older papers hide the
  latter behind `\\ifx\\documentclass\\undefined`), preferring one with `\\begin{document}` and
  one no other file inputs; without any, the largest TeX file.
- Inputs: `\\input{x}`, `\\input{x.tex}`, `\\input x`, `\\include{x}`, `\\subfile{x}` and
  `\\import{dir/}{x}`, resolved against the main file's folder (then the including file's), with
  `.tex` added when the name has none. A target the archive lacks is listed as missing (`\\input
  xy` loads a package; figures and the `.bbl` are often left out) and the document goes on. A
  package the paper ships (`\\usepackage{mymacros}` with `mymacros.sty` in the archive) is read
  where it is loaded: its theorem declarations count; a system package is not missing.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TypedDict

TEX_SUFFIXES = (".tex", ".ltx", ".latex")
MAX_INPUT_DEPTH = 20  # \input nested deeper than this is a loop or a trap: not followed
MAX_MISSING = 100  # missing inputs listed at most (a hostile source could name thousands)
MAX_OPTIONAL_CHARS = 4000  # a [...] argument longer than this is taken as unclosed

CONTROL_WORD_END = r"(?![A-Za-z@])"  # a control word ends where its letters do
_COMMENT_SCAN = re.compile(r"\\verb\*?([^A-Za-z\s*]).*?\1|\\.|%", re.S)
_CONDITIONAL = re.compile(r"\\(?:(iffalse|iftrue)|(if[A-Za-z@]*)|(else)|(fi))" + CONTROL_WORD_END)
# \if... words that are not TeX conditionals (no \fi ends them): `\iff` is a math symbol, the
# others are macros taking arguments (ifthen, etoolbox, xifthen).
_NOT_CONDITIONALS = frozenset(
    {
        "iff",
        "ifthenelse",
        "ifstrequal",
        "ifbool",
        "iftoggle",
        "ifdef",
        "ifundef",
        "ifcsdef",
        "ifcsundef",
        "ifdefmacro",
        "ifdefempty",
        "ifstrempty",
        "ifblank",
        "ifnumequal",
        "ifnumcomp",
        "ifdimcomp",
        "ifdefstring",
        "ifcsstring",
        "ifboolexpr",
        "ifpackageloaded",
        "ifclassloaded",
    }
)
_COMMENT_ENV = re.compile(r"\\begin\s*\{comment\}.*?(?:\\end\s*\{comment\}|\Z)", re.S)
_ENDINPUT = re.compile(r"\\endinput" + CONTROL_WORD_END + r"[^\n]*(?:\n|\Z)")
_DOCUMENTCLASS = re.compile(r"\\document(?:class|style)" + CONTROL_WORD_END)
BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_INPUT = re.compile(
    r"\\(?P<command>input|include|subfile|import|subimport|subinputfrom|inputfrom"
    r"|usepackage|RequirePackage)" + CONTROL_WORD_END
)
_INPUT_BARE_NAME = re.compile(r"[ \t]*([^\s{}\\%]+)")
_BRACE = re.compile(r"\\.|[{}]", re.S)
_OPTIONAL_STOP = re.compile(r"\\.|[{\]]", re.S)
_TOKEN = re.compile(r"\\(?:[A-Za-z@]+|.)", re.S)


class MissingInput(TypedDict):
    """An input the archive does not hold (a package read with `\\input xy`, a left-out file)."""

    name: str
    command: str
    source_file: str
    source_line: int


@dataclass
class Document:
    """The main file with its inputs spliced in. `text` keeps one line per line of `origins`."""

    main_file: str | None
    text: str
    origins: list[tuple[str, int]]  # (file, line number) of each line of text
    missing: list[MissingInput] = field(default_factory=list)
    files_read: list[str] = field(default_factory=list)
    _starts: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.reindex()

    def reindex(self) -> None:
        """Recount line starts after `text` changed (its line breaks must be the same ones)."""
        self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]

    def where(self, offset: int) -> tuple[str, int]:
        """(file, line) of the character at `offset` of text."""
        index = bisect.bisect_right(self._starts, offset) - 1
        return self.origins[min(max(index, 0), len(self.origins) - 1)]


# --- text --------------------------------------------------------------------------------------


def decode(data: bytes) -> str:
    """UTF-8 (BOM dropped), else Latin-1; line ends as LF."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def strip_comment(line: str) -> str:
    """`line` without its `%` comment (`\\%` is a percent sign; `\\verb` is left alone)."""
    if "%" not in line:
        return line
    for match in _COMMENT_SCAN.finditer(line):
        if match.group() == "%":
            return line[: match.start()]
    return line


def strip_dead_code(text: str) -> str:
    """Comment-free text (strip_comment per line) without \\iffalse blocks, the \\else branch of
    \\iftrue, comment environments and what follows \\endinput; one pass, nested conditionals
    counted."""
    text = _COMMENT_ENV.sub(lambda m: "\n" * m.group().count("\n"), text)
    end = _ENDINPUT.search(text)
    if end:
        text = text[: end.end()] + "\n" * text.count("\n", end.end())
    removed: list[tuple[int, int]] = []
    frames: list[str] = []  # "false", "false-else", "true", "other": the open conditionals
    skip_from = -1  # where the skipped text began, while skipping
    nested = 0  # conditionals opened inside the skipped text
    for match in _CONDITIONAL.finditer(text):
        mine, word, is_else, is_fi = match.groups()
        if word and word in _NOT_CONDITIONALS:
            continue
        if skip_from >= 0:
            if mine or word:
                nested += 1
            elif is_fi and nested:
                nested -= 1
            elif is_fi or (is_else and not nested and frames[-1] == "false"):
                removed.append((skip_from, match.end()))
                skip_from = -1
                frames[-1] = "false-else"
                if is_fi:
                    frames.pop()
            continue
        if mine:
            frames.append("false" if mine == "iffalse" else "true")
            removed.append((match.start(), match.end()))
            if mine == "iffalse":
                skip_from, nested = match.end(), 0
        elif word:
            frames.append("other")
        elif is_else and frames and frames[-1] == "true":
            skip_from, nested = match.start(), 0
        elif is_fi and frames and frames.pop() in ("true", "false-else"):
            removed.append((match.start(), match.end()))
    if skip_from >= 0:  # no \fi: TeX skips to the end of the file
        removed.append((skip_from, len(text)))
    pieces = []
    position = 0
    for start, stop in removed:
        pieces.append(text[position:start])
        pieces.append("\n" * text.count("\n", start, stop))
        position = stop
    pieces.append(text[position:])
    return "".join(pieces)


def clean(data: bytes) -> str:
    """A member's bytes as text ready to read: decoded, comments and dead code gone."""
    lines = decode(data).split("\n")
    return strip_dead_code("\n".join(strip_comment(line) for line in lines))


# --- groups --------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _closing_braces(text: str) -> dict[int, int]:
    """Offset of each `{` of `text` -> offset of the `}` closing it (one pass; `\\{` and `\\}`
    are characters, not braces)."""
    closing: dict[int, int] = {}
    opened: list[int] = []
    for match in _BRACE.finditer(text):
        brace = match.group()
        if brace == "{":
            opened.append(match.start())
        elif brace == "}" and opened:
            closing[opened.pop()] = match.start()
    return closing


def read_group(text: str, position: int) -> tuple[str, int] | None:
    """The content of the brace group opening at `position` (a `{`) and the offset after it;
    None when it is not one or does not close."""
    if position >= len(text) or text[position] != "{":
        return None
    close = _closing_braces(text).get(position)
    if close is None:
        return None
    return text[position + 1 : close], close + 1


def read_optional(text: str, position: int, allow_newline: bool = True) -> tuple[str, int] | None:
    """The content of a `[...]` argument after `position` (spaces, and one line break unless not
    `allow_newline`, skipped first), `]` inside braces not closing it; None when there is none."""
    index = skip_spaces(text, position, allow_newline)
    if index >= len(text) or text[index] != "[":
        return None
    limit = min(len(text), index + MAX_OPTIONAL_CHARS)
    closing = _closing_braces(text)
    cursor = index + 1
    while True:
        stop = _OPTIONAL_STOP.search(text, cursor, limit)
        if stop is None:
            return None
        token = stop.group()
        if token == "]":
            return text[index + 1 : stop.start()], stop.end()
        if token == "{":
            if stop.start() not in closing:
                return None
            cursor = closing[stop.start()] + 1
        else:
            cursor = stop.end()


def skip_spaces(text: str, position: int, allow_newline: bool = True) -> int:
    """The offset of the next character that is not a space (at most one line break crossed, as
    TeX reads one as a space; a blank line is a paragraph and ends the search)."""
    newlines = 0
    while position < len(text) and text[position] in " \t\n":
        if text[position] == "\n":
            newlines += 1
            if newlines > 1 or not allow_newline:
                break
        position += 1
    return position


def read_argument(text: str, position: int) -> tuple[str, int] | None:
    """A macro argument after `position`: a brace group's content, or one token (a control word
    or a character)."""
    index = skip_spaces(text, position)
    if index >= len(text):
        return None
    if text[index] == "{":
        return read_group(text, index)
    word = _TOKEN.match(text, index)
    if word:
        return word.group(), word.end()
    if text[index] in "}":
        return None
    return text[index], index + 1


# --- the document --------------------------------------------------------------------------------


def is_tex_name(name: str) -> bool:
    return name.lower().endswith(TEX_SUFFIXES)


def main_file(texts: Mapping[str, str]) -> str | None:
    """The main file of the cleaned TeX `texts` (see the module docstring), None when none."""
    if not texts:
        return None
    included = {target for text in texts.values() for target in input_names(text)}
    candidates = [name for name, text in texts.items() if _DOCUMENTCLASS.search(text)]
    if not candidates:
        return max(texts, key=lambda name: (len(texts[name]), name))

    def rank(name: str) -> tuple[bool, bool, int, str]:
        stem = posixpath.splitext(name)[0]
        return (
            not BEGIN_DOCUMENT.search(texts[name]),
            name in included or stem in included,
            name.count("/"),
            name,
        )

    return min(candidates, key=rank)


def input_names(text: str) -> set[str]:
    """The files `text` inputs (\\input, \\include, \\usepackage's .sty...), each as written and
    without its suffix: {"macros.tex", "macros"} for `\\input macros.tex`."""
    names = set()
    for match in _INPUT.finditer(text):
        found = _input_targets(text, match)
        for written in found[0] if found else []:
            name = posixpath.normpath(written.strip().strip('"'))
            names.update({name, posixpath.splitext(name)[0]})
    return names


def _input_targets(text: str, match: re.Match[str]) -> tuple[list[str], int] | None:
    """(file names as written, end offset) of the input command `match` found: one file, or
    for \\usepackage the `.sty` files of the packages it names."""
    command = match.group("command")
    position = match.end()
    if command in ("usepackage", "RequirePackage"):
        options = read_optional(text, position)
        names = read_argument(text, options[1] if options else position)
        if names is None:
            return None
        packages = [name.strip() for name in names[0].split(",") if name.strip()]
        return [f"{name}.sty" for name in packages], names[1]
    if command in ("import", "subimport", "inputfrom", "subinputfrom"):
        folder = read_argument(text, position)
        if folder is None:
            return None
        name = read_argument(text, folder[1])
        if name is None:
            return None
        return [posixpath.join(folder[0].strip(), name[0].strip())], name[1]
    index = skip_spaces(text, position)
    if index < len(text) and text[index] == "{":
        group = read_group(text, index)
        return ([group[0].strip()], group[1]) if group else None
    if command != "input":
        return None
    bare = _INPUT_BARE_NAME.match(text, position)
    return ([bare.group(1)], bare.end()) if bare else None


def _resolve(name: str, including: str, main: str, members: Mapping[str, bytes]) -> str | None:
    name = name.strip().strip('"')
    if not name or name.startswith("/"):
        return None
    for folder in dict.fromkeys((posixpath.dirname(main), posixpath.dirname(including))):
        path = posixpath.normpath(posixpath.join(folder, name))
        for candidate in (path, path + ".tex"):
            if candidate in members:
                return candidate
    return None


def build(members: Mapping[str, bytes], main: str | None = None) -> Document:
    """The document of an archive's `members`: main file found (or the `main` given: then only
    the files it inputs are read), inputs spliced in."""
    if main is None:
        texts = {name: clean(data) for name, data in members.items() if is_tex_name(name)}
        main = main_file(texts)
    else:
        texts = {main: clean(members[main])}
    if main is None:
        return Document(None, "", [("", 0)])
    lines: list[str] = []
    origins: list[tuple[str, int]] = []
    missing: list[MissingInput] = []
    read: list[str] = []

    def splice(name: str, stack: tuple[str, ...]) -> None:
        if name not in texts:  # an input that is not TeX (a .sty, a .pdf_tex): read as is
            texts[name] = clean(members[name])
        read.append(name)
        text = texts[name]
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        position = 0
        for match in _INPUT.finditer(text):
            if match.start() < position:
                continue
            targets = _input_targets(text, match)
            if targets is None:
                continue
            written, end = targets
            command = match.group("command")
            found = [_resolve(target, name, main, members) for target in written]
            if command not in ("usepackage", "RequirePackage") and found == [None]:
                if len(missing) < MAX_MISSING:
                    missing.append(
                        MissingInput(
                            name=written[0],
                            command=command,
                            source_file=name,
                            source_line=bisect.bisect_right(starts, match.start()),
                        )
                    )
                continue
            spliced = [path for path in found if path and path not in stack]
            if not spliced or len(stack) >= MAX_INPUT_DEPTH:
                continue
            _emit(text[position : match.start()], name, starts, position, lines, origins)
            for path in spliced:
                splice(path, (*stack, path))
            position = end
        _emit(text[position:], name, starts, position, lines, origins)

    splice(main, (main,))
    return Document(main, "\n".join(lines), origins, missing, read)


def _emit(
    piece: str,
    name: str,
    starts: list[int],
    offset: int,
    lines: list[str],
    origins: list[tuple[str, int]],
) -> None:
    """Append `piece` (found at `offset` of `name`, whose line starts are `starts`) as lines
    with their origins."""
    first_line = bisect.bisect_right(starts, offset)
    for number, line in enumerate(piece.split("\n")):
        lines.append(line)
        origins.append((name, first_line + number))
