"""PROOF.md's gaps: its `### Gap N: description` blocks (agents/proof.md; read at any heading
depth and under any section, blocks.py), which gap a literature search takes next, and the line
that marks a gap searched.

A block is its heading and the `**Field:** value` lines right under it (Type, Blocking, Suggested
resolution). `literature.py discover --gap` takes the first `reference-needed` gap that carries no
`**Searched:**` line, searches its Suggested resolution, and adds

    **Searched:** 2026-11-24T03:00:00Z · literature run 3

under the gap's fields, so the next search takes the next gap instead of the same one forever.
The mark is added to the file as it is on disk, under its lock: every other byte (hand edits,
CRLF line ends, a byte-order mark) stays as it was. The gap is marked after its search; while it
runs the search holds the gap's own lock (claimed), so gap searches of one problem started at
the same moment each take another gap.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..core import (
    MAX_INPUT_BYTES,
    BadInput,
    atomic_write,
    held_if_free,
    locked,
    plain_line,
    read_text,
    shown,
    stamp,
    too_large,
)
from . import blocks

REFERENCE_NEEDED = "reference-needed"
SEARCHED = "Searched"
# A line and its end as written: LF, CRLF or a lone CR (each ends a line, as read_text reads it).
RAW_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@dataclass
class Gap:
    """One gap block: its number, description and fields, and the index of its last field line
    (where a Searched line goes after)."""

    number: int
    description: str
    fields: dict[str, str] = field(default_factory=dict)
    searched: list[str] = field(default_factory=list)  # the Searched lines' values
    last_line: int = 0

    @property
    def type(self) -> str:
        return self.fields.get("Type", "").strip().lower()

    @property
    def blocking(self) -> str:
        return self.fields.get("Blocking", "")

    @property
    def resolution(self) -> str:
        return self.fields.get("Suggested resolution", "")

    @property
    def name(self) -> str:
        return f"Gap {self.number}: {self.description}"

    def focus(self) -> str:
        """The Suggested resolution as search words: LaTeX stripped, spacing collapsed."""
        words = plain_line(self.resolution)
        if not words:
            raise BadInput(
                f"PROOF.md's Gap {self.number} has no **Suggested resolution:** to search for: "
                "write what to search for there, in words",
                code="gap_without_resolution",
            )
        return words


def parse(text: str) -> list[Gap]:
    """The gaps of PROOF.md, in order: every `Gap N:` block at any heading depth (blocks.py),
    under `## Gaps` or any other section (blocks.misplaced reports one standing elsewhere), so
    that no open gap goes unseen. A gap's fields are the `**Field:** value` lines right under its
    heading (text as read_text reads it)."""
    all_lines = blocks.lines(text)
    found: list[Gap] = []
    for block in blocks.parse(text)[0]:
        numbered = blocks.GAP_NUMBERED.match(block.title)
        if block.is_request or not block.is_gap or not numbered:
            continue
        gap = Gap(int(numbered.group("number")), numbered.group("description"))
        gap.last_line = block.start
        for index in range(block.start + 1, block.end):
            named = blocks.FIELD.match(all_lines[index])
            if named is None:
                break
            name, value = named.group("key").strip(), named.group("value")
            if name == SEARCHED:
                gap.searched.append(value)
            else:
                gap.fields.setdefault(name, value)
            gap.last_line = index
        found.append(gap)
    return found


def read(path: Path) -> list[Gap]:
    return parse(read_text(path, "PROOF.md"))


def next_to_search(path: Path, skip: Collection[int] = ()) -> tuple[Gap | None, list[Gap]]:
    """(the first reference-needed gap not yet searched and not numbered in `skip`, or None when
    there is none; the reference-needed gaps). BadInput when PROOF.md has no reference-needed gap
    at all, or when the gap to take has no Suggested resolution."""
    wanted = [gap for gap in read(path) if gap.type == REFERENCE_NEEDED]
    if not wanted:
        raise BadInput(
            f"{shown(str(path))} has no `reference-needed` gap (`### Gap N:` under `## Gaps` "
            "with **Type:** reference-needed): search with focus words instead",
            code="no_gaps",
        )
    gap = next((gap for gap in wanted if not gap.searched and gap.number not in skip), None)
    if gap is not None:
        gap.focus()  # a gap without words to search is an error before any search runs
    return gap, wanted


@contextlib.contextmanager
def claimed(path: Path) -> Iterator[tuple[Gap | None, list[Gap], list[int]]]:
    """next_to_search for a search that takes a while: the gap comes with its own lock, held
    until the block ends, so that concurrent `discover --gap` runs each take another gap (one
    another run holds is passed over; one marked searched meanwhile is not taken again). Yields
    (the gap, or None when none is left; the reference-needed gaps; the numbers of the gaps
    other runs hold)."""
    busy: list[int] = []
    while True:
        gap, wanted = next_to_search(path, busy)
        if gap is None:
            yield None, wanted, busy
            return
        with held_if_free(path.with_name(f"{path.name}.gap-{gap.number}")) as held:
            if held:  # read again: a run that held it until now may have marked it
                now = next((g for g in read(path) if g.number == gap.number), None)
                if now is not None and not now.searched:
                    yield gap, wanted, busy
                    return
            else:
                busy.append(gap.number)


def none_left(wanted: list[Gap], slug: str, busy: Collection[int] = ()) -> str:
    """The one line discover --gap prints when every reference-needed gap was searched, or
    (`busy`) the ones left are being searched by other runs."""
    if busy:
        names = ", ".join(f"Gap {number}" for number in busy)
        return (
            f"no gap to search now: every reference-needed gap of PROOF.md not yet searched "
            f"({names}) is being searched by another run; nothing was searched. Wait for it, or "
            f"give words to search: literature.py discover {slug} <focus words>"
        )
    names = ", ".join(f"Gap {gap.number}" for gap in wanted)
    return (
        f"no gap to search: every reference-needed gap of PROOF.md ({names}) has been searched; "
        f"nothing was searched. Report it; to search one again, give its words: "
        f"literature.py discover {slug} <focus words>"
    )


def searched_line(run: str, moment: str | None = None) -> str:
    return f"**{SEARCHED}:** {moment or stamp()} · literature run {run}"


def mark(path: Path, number: int, run: str, moment: str | None = None) -> None:
    """Add the Searched line under Gap `number`'s fields in the file as it is now (re-read
    under its lock, so two searches marking two gaps at once both land). Only the new line is
    written: it takes the line end of the line above it."""
    with locked(path):
        gap = next((g for g in read(path) if g.number == number), None)
        if gap is None:
            raise BadInput(
                f"{shown(str(path))} no longer has Gap {number}: it was not marked searched",
                code="gap_gone",
            )
        lines = RAW_LINE.findall(_read_raw(path))
        above = lines[gap.last_line]
        end = above[len(above.rstrip("\r\n")) :]
        if not end:  # the gap's last field ends the file without a line end
            end = _first_line_end(lines)
            lines[gap.last_line] = above + end
        lines.insert(gap.last_line + 1, searched_line(run, moment) + end)
        atomic_write(path, "".join(lines).encode("utf-8"))


def _read_raw(path: Path) -> str:
    """The file's text exactly as stored (line ends and byte-order mark kept); read_text has
    already checked that it is readable UTF-8 within the size bound."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise too_large(f"PROOF.md {shown(str(path))}")
    return data.decode("utf-8")


def _first_line_end(lines: list[str]) -> str:
    for line in lines:
        ending = line[len(line.rstrip("\r\n")) :]
        if ending:
            return ending
    return "\n"
