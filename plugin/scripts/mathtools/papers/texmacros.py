"""A paper's own macros, read from its document (texsource.py): every `\\newcommand`,
`\\renewcommand`, `\\providecommand` (starred too), `\\def` (and `\\gdef`, `\\edef`, `\\xdef`),
`\\let` and `\\DeclareMathOperator` of the document, in order, with where each is;
definitions() also gives the text each spans (theorems.py looks for no statement there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypedDict

from .texsource import (
    CONTROL_WORD_END,
    Document,
    read_argument,
    read_group,
    read_optional,
    skip_spaces,
)

_ARGUMENT_COUNT = re.compile(r"\s*\[\s*(\d)\s*\]")
_DEFINED_NAME = re.compile(r"\s*(\\(?:[A-Za-z@]+|.))", re.S)
_LET_TARGET = re.compile(r"\s*=?\s*(\\(?:[A-Za-z@]+|.)|[^\s\\])", re.S)
_PARAMETERS = re.compile(r"[^{}]{0,40}(?=\{)")
_DEFINITION = re.compile(
    r"\\(?P<kind>(?:new|renew|provide)command|DeclareMathOperator|[gex]?def|let)" + CONTROL_WORD_END
)


class Macro(TypedDict):
    """One macro definition of the paper, as written."""

    name: str  # with its backslash: "\\R"
    kind: str  # newcommand, renewcommand, providecommand, def, gdef, edef, xdef, let,
    # DeclareMathOperator
    arguments: int
    default: str | None  # the optional first argument's default (\newcommand{\x}[2][d]{...})
    body: str
    source_file: str
    source_line: int


@dataclass(frozen=True)
class Definition:
    macro: Macro
    start: int
    end: int


def definitions(document: Document) -> list[Definition]:
    """Every macro definition in the document's text, in order, with the text it spans."""
    text = document.text
    found: list[Definition] = []
    position = 0
    while True:
        match = _DEFINITION.search(text, position)
        if match is None:
            return found
        parsed = _definition(text, match)
        if parsed is None:
            position = match.end()
            continue
        name, arguments, default, body, end = parsed
        file, line = document.where(match.start())
        kind = match.group("kind")
        macro = Macro(
            name=name,
            kind=kind,
            arguments=arguments,
            default=default,
            body=body,
            source_file=file,
            source_line=line,
        )
        found.append(Definition(macro, match.start(), end))
        position = end


def _definition(text: str, match: re.Match[str]) -> tuple[str, int, str | None, str, int] | None:
    """(name, argument count, default, body, end) of the definition `match` starts."""
    kind = match.group("kind")
    position = match.end()
    if kind.endswith("command") and text.startswith("*", position):
        position += 1
    if kind == "DeclareMathOperator" and text.startswith("*", position):
        position += 1
    if kind in ("def", "gdef", "edef", "xdef", "let"):
        name = _DEFINED_NAME.match(text, position)
        if name is None:
            return None
        position = name.end()
        if kind == "let":
            target = _LET_TARGET.match(text, position)
            if target is None:
                return None
            return name.group(1), 0, None, target.group(1), target.end()
        parameters = _PARAMETERS.match(text, position)
        spec = parameters.group() if parameters else ""
        if parameters is None or "\n\n" in spec:
            return None
        position = parameters.end()
        body = read_group(text, position)
        if body is None:
            return None
        arguments = max((int(digit) for digit in re.findall(r"#(\d)", spec)), default=0)
        return name.group(1), arguments, None, body[0], body[1]
    head = read_argument(text, position)
    if head is None or not head[0].strip().startswith("\\"):
        return None
    name_text = head[0].strip()
    position = head[1]
    arguments = 0
    default = None
    if kind != "DeclareMathOperator":
        count = _ARGUMENT_COUNT.match(text, position)
        if count is not None:
            arguments = int(count.group(1))
            position = count.end()
            optional = read_optional(text, position, allow_newline=True)
            if optional is not None:
                default, position = optional
    body = read_group(text, skip_spaces(text, position))
    if body is None:
        return None
    return name_text, arguments, default, body[0], body[1]
