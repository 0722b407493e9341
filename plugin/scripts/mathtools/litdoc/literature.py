"""LITERATURE.md as a structured document and back (protocol sections 4 and 8).

`parse_literature` splits the file into frontmatter, a preamble, and sections; the Confirmed and
Unconfirmed References sections are split further into REF-NNN / UREF-NNN entries. Every part keeps
its original lines, and `render` joins them again, so a file nobody changed comes back byte for byte
and everything the scripts do not own (Synthesis prose, notes under an entry, extra sections, a
person's own `###` subsections) survives every update. Only the lines a merge changes are
re-rendered.

Two invisible HTML comments carry what the protocol's fields cannot (the frontmatter keeps exactly
the protocol's six fields):

    <!-- lit_update: last REF-012, last UREF-003; merges: 1a2b3c4d5e6f ... -->
        in the preamble: the highest numbers ever used (so a number is never reused, even after
        the last entry is deleted by hand; without it, the highest number the file mentions and
        the Search History's New Confirmed total stand in) and the fingerprints of the merges
        applied (so the same merge applied twice changes nothing); a damaged or second comment
        stops every merge (naming its line) and is a violation, so that no record is lost;
    <!-- ids: arXiv:2104.12255 DOI:10.1/x S2:649def34 arXivClass:math.PR -->
        the last line of an entry: every identifier the APIs gave, for de-duplication across runs
        (the S2 paperId has no visible field), and the arXiv primary category (for BibTeX).

    >>> doc = load(".math/problems/spectral-gap/LITERATURE.md")
    >>> [(e.number, e.title, e.arxiv_id) for e in doc.confirmed]
    [(1, 'Polynomial-time ...', '2104.12255')]
    >>> validate(".math/problems/spectral-gap/LITERATURE.md")
    []
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import (
    FRONTMATTER_FENCE,
    NAMES,
    BadInput,
    as_int,
    ordered,
    read_text,
    schema_errors,
    split_frontmatter,
)
from .refentry import ENTRY_HEADING, Entry, entry_number, one_line

SEARCH_HISTORY = "Search History"
CONFIRMED = "Confirmed References"
SYNTHESIS = "Synthesis"
UNCONFIRMED = "Unconfirmed References"
SECTIONS = (SEARCH_HISTORY, CONFIRMED, SYNTHESIS, UNCONFIRMED)
ENTRY_SECTION = {"REF": CONFIRMED, "UREF": UNCONFIRMED}

HISTORY_COLUMNS = ("Date", "Query Summary", "Results", "New Confirmed")
# A Search History written when there were two sources: its rows still read (as the columns
# above), and the table takes the columns above when the next row is added.
TWO_SOURCE_COLUMNS = ("Date", "Query Summary", "arXiv Results", "S2 Results", "New Confirmed")
_NAME = "|".join(re.escape(name) for name in NAMES.values())
# A Results cell: each source's count, `arXiv 12, Semantic Scholar 3`; `none`
RESULTS = re.compile(rf"none|(?:{_NAME}) \d+(?:, (?:{_NAME}) \d+)*")

FRONTMATTER_FIELDS = (
    "problem",
    "total_papers",
    "confirmed_count",
    "unconfirmed_count",
    "last_search",
    "sources_queried",
)
UREF_STATUS = "Unconfirmed -- do not cite as established reference"
# A UREF's Authors when its heading is a free-text citation, whole as written (PROBLEM.md's):
# the names are in it, never split out.
AS_CITED = "as cited"
NOT_ASSESSED = "(not yet assessed)"
UNKNOWN = "unknown"  # a UREF's Authors or Year that its citation did not give
PLACEHOLDERS = {
    CONFIRMED: "(No confirmed references yet)",
    UNCONFIRMED: "(No unconfirmed references yet)",
}
TEMPLATE = Path(__file__).resolve().parents[3] / "templates" / "LITERATURE.md"

_SECTION_HEADING = re.compile(r"## (?P<name>.+?)\s*$")
_ENTRY_LIKE = re.compile(r"###\s*U?REF\b")
_STATE = re.compile(
    r"<!-- lit_update: last REF-(?P<ref>\d+), last UREF-(?P<uref>\d+); merges:(?P<merges>[ \w]*)-->"
)
_STATE_LIKE = re.compile(r"<!--\s*lit_update(?![.\w])")  # a state comment, readable or not
CODE_FENCE = re.compile(r"(```|~~~)")
CITATION = re.compile(r"\b(U?REF)-(\d{3,})\b", re.I)


@dataclass
class Section:
    """A `## ` section: its heading line, its intro (the raw lines before any `### ` heading)
    and the blocks after it (entries, or the raw lines from a `### ` heading that is no entry)."""

    name: str
    heading: str
    line_no: int
    intro: list[str] = field(default_factory=list)
    blocks: list[list[str] | Entry] = field(default_factory=list)

    def entries(self) -> list[Entry]:
        return [block for block in self.blocks if isinstance(block, Entry)]

    def lines(self) -> list[str]:
        out = [self.heading, *self.intro]
        for block in self.blocks:
            out += block.lines if isinstance(block, Entry) else block
        return out

    def add_entry(self, entry: Entry) -> None:
        """Add after the section's last entry (so a closing note stays last), replacing the
        "(No ... yet)" placeholder; a blank line always separates it from what comes before."""
        intro = self.intro
        placeholder = PLACEHOLDERS[self.name]
        for i, line in enumerate(intro):
            if line.strip() == placeholder:
                del intro[i : i + 2 if intro[i + 1 : i + 2] == ["\n"] else i + 1]
                break
        last_entry = next(
            (i for i in range(len(self.blocks) - 1, -1, -1) if isinstance(self.blocks[i], Entry)),
            None,
        )
        at = len(self.blocks) if last_entry is None else last_entry + 1
        before = self.blocks[at - 1] if at else intro
        before_lines = before.lines if isinstance(before, Entry) else before
        if not self.heading.endswith("\n"):
            self.heading += "\n"
        if before_lines and not before_lines[-1].endswith("\n"):
            before_lines[-1] += "\n"
        if not before_lines or before_lines[-1].strip():
            before_lines.append("\n")
        self.blocks.insert(at, entry)

    def remove_entry(self, entry: Entry) -> None:
        self.blocks.remove(entry)
        if not self.entries() and not any(line.strip() for line in self.intro):
            self.intro[:] = ["\n", PLACEHOLDERS[self.name] + "\n", "\n"]


class LiteratureDoc:
    """A parsed LITERATURE.md; `render()` gives the text back."""

    def __init__(
        self,
        name: str,
        fm_raw: str,
        fm: dict[str, Any],
        preamble: list[str],
        sections: list[Section],
    ) -> None:
        self.name = name
        self.frontmatter: dict[str, Any] = fm
        self._fm_raw = fm_raw
        self._fm_original = copy.deepcopy(fm)
        self.preamble: list[str] = preamble
        self.sections: list[Section] = sections

    def section(self, name: str) -> Section:
        return next(s for s in self.sections if s.name == name)

    @property
    def confirmed(self) -> list[Entry]:
        return self.section(CONFIRMED).entries()

    @property
    def unconfirmed(self) -> list[Entry]:
        return self.section(UNCONFIRMED).entries()

    @property
    def synthesis(self) -> str:
        return "".join(self.section(SYNTHESIS).lines()[1:]).strip()

    @property
    def history(self) -> list[dict[str, str]]:
        """The Search History rows (header and separator excluded), column name -> cell text;
        a row of a two-source table as the row it becomes (current_row)."""
        rows = self.history_rows()
        return [dict(zip(HISTORY_COLUMNS, current_row(cells), strict=False)) for _, cells in rows]

    def history_rows(self) -> list[tuple[int, list[str]]]:
        section = self.section(SEARCH_HISTORY)
        rows = []
        for offset, line in enumerate(section.lines()[1:], start=1):
            if line.lstrip().startswith("|"):
                cells = table_cells(line)
                if cells and not all(set(c) <= set("-: ") for c in cells) and cells[0] != "Date":
                    rows.append((section.line_no + offset, cells))
        return rows

    def append_history(self, cells: list[str]) -> None:
        """Add a row after the last line of the Search History table (a header if none). A
        two-source table (TWO_SOURCE_COLUMNS) takes the current columns first, each row's counts
        kept in its Results cell; any other line stays as it is."""
        block = self.section(SEARCH_HISTORY).intro
        last = max(
            (i for i, line in enumerate(block) if line.lstrip().startswith("|")), default=None
        )
        if last is None:
            while block and not block[-1].strip():
                block.pop()
            block += ["\n", _row(HISTORY_COLUMNS), SEPARATOR, _row(cells), "\n"]
            return
        for i, line in enumerate(block):
            old = table_cells(line) if line.lstrip().startswith("|") else []
            if len(old) == len(TWO_SOURCE_COLUMNS):
                separator = all(set(c) <= set("-: ") for c in old)
                block[i] = SEPARATOR if separator else _row(current_row(old))
        if not block[last].endswith("\n"):
            block[last] += "\n"
        block.insert(last + 1, _row(cells))

    # The numbering high-water marks and the applied merges, from the preamble's state comment.
    def _state(self) -> tuple[int | None, re.Match[str] | None]:
        """The state comment's preamble index and match; BadInput when it cannot be read (a
        merge would then add a second comment and forget which merges were applied)."""
        problem = self.state_problem()
        if problem:
            raise BadInput(problem, code="malformed_literature")
        for i, line in enumerate(self.preamble):
            match = _STATE.search(line)
            if match:
                return i, match
        return None, None

    def state_problem(self) -> str | None:
        """Why the state comment cannot be read (a hand-damaged or second comment), or None."""
        first_line = self._fm_raw.count("\n") + 1
        seen = None
        for number, line in enumerate(self.preamble, start=first_line):
            if not _STATE_LIKE.search(line):
                continue
            if not _STATE.search(line):
                shown = one_line(line)
                shown = shown if len(shown) <= 100 else shown[:99] + "…"
                return (
                    f"{self.name} line {number}: unreadable state comment {shown!r}; write it "
                    "as '<!-- lit_update: last REF-NNN, last UREF-NNN; merges: ID ... -->', "
                    "or delete the line (earlier merges are then no longer known as repeats)"
                )
            if seen is not None:
                return (
                    f"{self.name} line {number}: a second lit_update state comment (the first "
                    f"is on line {seen}); keep one, with the merges of both"
                )
            seen = number
        return None

    def high_water(self, kind: str) -> int:
        """The highest number ever used for `kind` (REF or UREF): never reused.

        The state comment records it, but a person may delete that comment and the last entry;
        so every number the file mentions counts too (a Synthesis citation, a `Moved from:`
        line), and for REF the Search History's New Confirmed column, which adds up to the REF
        numbers given out."""
        _, match = self._state()
        recorded = int(match.group(kind.lower())) if match else 0
        body = "".join([*self.preamble, *(line for s in self.sections for line in s.lines())])
        mentioned = [int(n) for k, n in CITATION.findall(body) if k.upper() == kind]
        given_out = 0
        if kind == "REF":
            cells = [row.get("New Confirmed", "") for row in self.history]
            given_out = sum(as_int(cell) or 0 for cell in cells)
        return max([recorded, given_out, *mentioned])

    @property
    def merges(self) -> list[str]:
        _, match = self._state()
        return match.group("merges").split() if match else []

    def set_state(self, merges: list[str], used: dict[str, int]) -> None:
        """Record the merges applied and the numbers used (`used`: the highest each merge gave
        out, which may belong to an entry it has since moved or removed)."""
        ref, uref = (max(self.high_water(kind), used.get(kind, 0)) for kind in ("REF", "UREF"))
        line = (
            f"<!-- lit_update: last {entry_number('REF', ref)}, last {entry_number('UREF', uref)}; "
            f"merges: {' '.join(merges)} -->\n"
        )
        index, _ = self._state()
        if index is not None:
            self.preamble[index] = line
            return
        end = len(self.preamble)
        while end and not self.preamble[end - 1].strip():
            end -= 1
        if end and not self.preamble[end - 1].endswith("\n"):
            self.preamble[end - 1] += "\n"
        self.preamble[end:] = ["\n", line, "\n"]

    def frontmatter_errors(self) -> list[tuple[int, str]]:
        """(line, message) for every schema violation of the frontmatter: the line of the key
        concerned, else 1 (a required key that is missing)."""
        lines = self._fm_raw.splitlines()
        found = []
        for error in schema_errors("literature_frontmatter", self.frontmatter):
            key = error.split("/", 1)[0].split(":", 1)[0]
            unexpected = re.search(r"\('([^']+)'.* unexpected\)", error)
            key = unexpected.group(1) if key == "(top)" and unexpected else key
            number = next(
                (n for n, line in enumerate(lines, 1) if re.match(rf"{re.escape(key)}\s*:", line)),
                1,
            )
            found.append((number, error))
        return found

    def check_frontmatter(self) -> None:
        """BadInput naming the line when the frontmatter breaks its schema (before a merge, which
        would otherwise carry the damage on: `sources_queried: arxiv` read as letters)."""
        errors = self.frontmatter_errors()
        if errors:
            number, error = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise BadInput(
                f"{self.name} line {number}: frontmatter {error}{more}; the frontmatter holds "
                "exactly problem, total_papers, confirmed_count, unconfirmed_count, last_search "
                "and sources_queried (schemas/literature_frontmatter.schema.json)",
                code="malformed_literature",
            )

    def render(self) -> str:
        # Untouched frontmatter keeps its exact bytes (quotes, comments); changed, it is rendered
        # in the template's layout.
        changed = self.frontmatter != self._fm_original
        head = render_frontmatter(self.frontmatter) if changed else self._fm_raw
        parts = [head, *self.preamble]
        for section in self.sections:
            parts += section.lines()
        return "".join(parts)


def render_frontmatter(fields: dict[str, Any]) -> str:
    """The frontmatter as templates/LITERATURE.md lays it out: the protocol's six fields in its
    order, strings quoted, lists inline (`sources_queried: ["arxiv", "semantic_scholar"]`). Each
    value is written as JSON, which YAML reads back as the same value."""
    names = [*FRONTMATTER_FIELDS, *(name for name in fields if name not in FRONTMATTER_FIELDS)]
    lines = [
        f"{name}: {json.dumps(fields[name], ensure_ascii=False)}\n"
        for name in names
        if name in fields
    ]
    return f"{FRONTMATTER_FENCE}\n{''.join(lines)}{FRONTMATTER_FENCE}\n"


SEPARATOR = "|" + "|".join("-" * (len(c) + 2) for c in HISTORY_COLUMNS) + "|\n"


def _row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |\n"


def results_text(counts: Mapping[str, int]) -> str:
    """A Results cell: each source's count, in the registry's order, `arXiv 12, Semantic
    Scholar 3` (a source that found nothing left out); `none`."""
    named = [f"{NAMES.get(s, s)} {counts[s]}" for s in ordered(counts) if counts[s]]
    return ", ".join(named) or "none"


def current_row(cells: list[str]) -> list[str]:
    """A Search History row in the current columns: a two-source row's arXiv and S2 Results in
    one Results cell (the header's names in the header's); any other row as it is."""
    if len(cells) != len(TWO_SOURCE_COLUMNS):
        return cells
    if cells == list(TWO_SOURCE_COLUMNS):
        return list(HISTORY_COLUMNS)
    date, summary, arxiv, s2, new = cells
    counts = {"arxiv": as_int(arxiv), "semantic_scholar": as_int(s2)}
    if None in counts.values():  # a hand edit: its words kept, side by side
        return [date, summary, f"{arxiv}; {s2}", new]
    return [date, summary, results_text({s: n or 0 for s, n in counts.items()}), new]


def table_cells(line: str) -> list[str]:
    """The cells of one Markdown table row (`\\|` is a literal bar inside a cell)."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


def parse_literature(text: str, name: str = "LITERATURE.md") -> LiteratureDoc:
    """Parse LITERATURE.md text. Raises BadInput naming the line when the structure is broken."""
    if not text.startswith(FRONTMATTER_FENCE + "\n"):
        raise BadInput(
            f"{name} line 1: a LITERATURE.md starts with '---' and the YAML frontmatter",
            code="malformed_literature",
        )
    fm, body = split_frontmatter(text, name)
    fm_raw = text[: len(text) - len(body)]
    first_body_line = fm_raw.count("\n") + 1
    lines = body.splitlines(keepends=True)

    preamble: list[str] = []
    sections: list[Section] = []
    in_fence = False
    for number, line in enumerate(lines, start=first_body_line):
        if CODE_FENCE.match(line.lstrip()):
            in_fence = not in_fence
        heading = None if in_fence else _SECTION_HEADING.match(line)
        if heading:
            sections.append(Section(heading.group("name"), line, number))
        elif sections:
            sections[-1].intro.append(line)
        else:
            preamble.append(line)

    _check_sections(sections, name)
    for section in sections:
        if section.name in (CONFIRMED, UNCONFIRMED):
            section.intro, section.blocks = _split_entries(section, name)
    return LiteratureDoc(name, fm_raw, fm, preamble, sections)


def _check_sections(sections: list[Section], name: str) -> None:
    seen: dict[str, Section] = {}
    for section in sections:
        if section.name not in SECTIONS:
            continue
        if section.name in seen:
            raise BadInput(
                f"{name} line {section.line_no}: a second '## {section.name}' "
                f"(the first is on line {seen[section.name].line_no})",
                code="malformed_literature",
            )
        for later in SECTIONS[SECTIONS.index(section.name) + 1 :]:
            if later in seen:
                raise BadInput(
                    f"{name} line {section.line_no}: '## {section.name}' must come before "
                    f"'## {later}' (line {seen[later].line_no}); the order is "
                    + ", ".join(SECTIONS),
                    code="malformed_literature",
                )
        seen[section.name] = section
    missing = [s for s in SECTIONS if s not in seen]
    if missing:
        raise BadInput(
            f"{name}: no '## {missing[0]}' section; the sections are, in order: "
            + ", ".join(SECTIONS),
            code="malformed_literature",
        )


def _split_entries(section: Section, name: str) -> tuple[list[str], list[list[str] | Entry]]:
    """Cut a references section's lines at its `### ` headings: (the intro, the raw blocks and
    entries after it)."""
    expected = "REF" if section.name == CONFIRMED else "UREF"
    intro: list[str] = []
    blocks: list[list[str] | Entry] = []
    in_fence = False
    for number, line in enumerate(section.intro, start=section.line_no + 1):
        if CODE_FENCE.match(line.lstrip()):
            in_fence = not in_fence
        if not in_fence and line.startswith("###") and not line.startswith("####"):
            heading = ENTRY_HEADING.match(line)
            if heading is None and _ENTRY_LIKE.match(line):
                raise BadInput(
                    f"{name} line {number}: malformed entry heading {line.strip()!r}; "
                    f"write it as '### {expected}-001: Title'",
                    code="malformed_literature",
                )
            if heading is None:
                blocks.append([line])
                continue
            if heading.group("kind") != expected:
                raise BadInput(
                    f"{name} line {number}: {heading.group('kind')} entry in "
                    f"'## {section.name}'; {heading.group('kind')} entries belong in "
                    f"'## {ENTRY_SECTION[heading.group('kind')]}'",
                    code="malformed_literature",
                )
            blocks.append(Entry(expected, int(heading.group("number")), [line], number))
            continue
        last = blocks[-1] if blocks else intro
        (last.lines if isinstance(last, Entry) else last).append(line)
    return intro, blocks


def template(slug: str, title: str | None = None) -> str:
    """A new, empty LITERATURE.md for problem `slug` from templates/LITERATURE.md."""
    text = TEMPLATE.read_text(encoding="utf-8")
    # A JSON string is a valid YAML double-quoted scalar, so any slug stays one YAML string.
    text = text.replace('"{PROBLEM_SLUG}"', json.dumps(slug, ensure_ascii=False))
    return text.replace("{PROBLEM_TITLE}", one_line(title or slug))


def load_literature(path: Path | str) -> LiteratureDoc:
    """Read and parse a LITERATURE.md (BadInput naming the line when it is malformed)."""
    return parse_literature(read_text(path, "LITERATURE.md"), str(path))
