"""A corrected copy of a `.bib`: `corrected_copy` writes the file with some entries' fields
replaced and every other byte of it as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .bibentry import group_end
from .bibtexfile import BibFile, entry_blocks


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
            if raw.startswith(("{", '"'), cursor):
                cursor = group_end(raw, cursor)
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
    own_line = (
        first.line_start < first.name_start or raw[first.line_start - 1 : first.line_start] == "\n"
    )
    if not trailing and not one_line and own_line:
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
