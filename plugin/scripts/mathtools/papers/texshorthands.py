"""Shorthands in a paper's LaTeX source, expanded before its statements are read (theorems.py):
a paper macro whose body opens or closes an environment or a section
(`\\def\\bthm{\\begin{theorem}}`, `\\newcommand{\\thm}[1]{\\begin{theorem}#1\\end{theorem}}`)
is expanded where it is used, as TeX would.
"""

from __future__ import annotations

import bisect
import re

from . import texmacros, texsource
from .texmacros import Definition
from .texsource import Document

MAX_EXPANSION_PASSES = 5
MAX_GROWTH = 2

_STRUCTURAL = re.compile(
    r"\\(?:begin|end)\s*\{|\\(?:part|chapter|section|subsection|subsubsection|appendix)"
    r"(?![A-Za-z@])"
)


class DefinitionSpans:
    """The spans of macro definitions: nothing inside one is expanded or read as an event."""

    def __init__(self, found: list[Definition]):
        self.spans = sorted((d.start, d.end) for d in found)
        self.starts = [start for start, _ in self.spans]

    def __contains__(self, offset: int) -> bool:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index >= 0 and self.spans[index][0] <= offset < self.spans[index][1]


def expand_shorthands(document: Document) -> list[Definition]:
    """Expand, in `document.text`, every use of a paper macro whose body opens or closes an
    environment or a section; the definitions of the expanded text are returned. A macro that
    uses itself is expanded MAX_EXPANSION_PASSES times at most, and never past MAX_GROWTH times
    the text's length."""
    limit = MAX_GROWTH * len(document.text) + (1 << 20)
    for _ in range(MAX_EXPANSION_PASSES):
        found = texmacros.definitions(document)
        structural: dict[str, list[Definition]] = {}
        for definition in found:
            macro = definition.macro
            name = macro["name"]
            if (
                macro["kind"] != "let"
                and re.fullmatch(r"\\[A-Za-z@]+", name)
                and _STRUCTURAL.search(macro["body"])
            ):
                structural.setdefault(name, []).append(definition)
        if not structural:
            return found
        protected = DefinitionSpans(found)
        names = "|".join(re.escape(name[1:]) for name in sorted(structural, key=len, reverse=True))
        use = re.compile(rf"\\({names})(?![A-Za-z@])")
        text = document.text
        out: list[str] = []
        position = 0
        changed = False
        for match in use.finditer(text):
            if match.start() < position or match.start() in protected:
                continue
            expanded = _expansion(text, match, structural["\\" + match.group(1)])
            if expanded is None:
                continue
            replacement, end = expanded
            out.append(text[position : match.start()])
            out.append(_keep_lines(replacement, text[match.start() : end]))
            position = end
            changed = True
        out.append(text[position:])
        expanded_text = "".join(out)
        if not changed or len(expanded_text) > limit:
            return found
        document.text = expanded_text
        document.reindex()
    return texmacros.definitions(document)


def _expansion(
    text: str, match: re.Match[str], versions: list[Definition]
) -> tuple[str, int] | None:
    """The replacement text of one macro use and where the use ends (its arguments read)."""
    before = [d for d in versions if d.start < match.start()]
    macro = (before[-1] if before else versions[0]).macro
    position = match.end()
    arguments: list[str] = []
    count = macro["arguments"]
    if count and macro["default"] is not None:
        optional = texsource.read_optional(text, position)
        if optional is None:
            arguments.append(macro["default"])
        else:
            arguments.append(optional[0])
            position = optional[1]
    while len(arguments) < count:
        argument = texsource.read_argument(text, position)
        if argument is None:
            return None
        arguments.append(argument[0])
        position = argument[1]
    body = " ".join(macro["body"].split("\n")) if not count else macro["body"]

    def parameter(found: re.Match[str]) -> str:
        if found.group() == "##":
            return "#"
        index = int(found.group()[1]) - 1
        return arguments[index] if index < len(arguments) else ""

    return re.sub(r"##|#\d", parameter, body), position


def _keep_lines(replacement: str, original: str) -> str:
    """`replacement` with as many line breaks as `original`: the lines after it keep their
    numbers (extra breaks become spaces, missing ones are added at the end)."""
    wanted = original.count("\n")
    have = replacement.count("\n")
    if have > wanted:
        head, *rest = replacement.split("\n")
        keep = rest[len(rest) - wanted :] if wanted else []
        flattened = " ".join([head, *rest[: len(rest) - wanted]])
        return "\n".join([flattened, *keep])
    return replacement + "\n" * (wanted - have)
