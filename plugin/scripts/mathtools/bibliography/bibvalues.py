"""Data written into BibTeX: `bibtex_text` and friends turn a record's title, a person's name or
a reason into BibTeX values that can neither break the file nor run anything in LaTeX
(`unsafe_commands` finds the control words that would).
"""

from __future__ import annotations

import re

from ..core import latex_to_unicode

# A `$...$` math part of a text (the group makes re.split keep it): kept as written.
MATH = re.compile(r"(\$[^$]*\$)")
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
    return "".join(part if _safe_math(part) else _plain(part) for part in MATH.split(text))


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
