"""The heading blocks of PROOF.md and REVIEW.md: one parser for every reader of steps, gaps,
requests and verdicts, so that no heading depth or section name hides a block.

The rule (agents/proof.md, "The schema"): a heading of depth 3 to 6 (`###` to `######`, up to
three spaces before it) starts a block, wherever it stands in the body; the block runs to the
next such heading or the next `## ` section. A `## ` heading names the section the blocks under it
belong to. Headings inside fenced code (``` or ~~~) and the frontmatter are text, not headings.
A block's fields are its `**Key:** value` lines, the first of each key counting.

What a block is (a step, a gap, a request) is decided by the readers (review.py, gaps.py) from
its heading and fields; `misplaced` says which step-like or gap-like blocks, or field lines, stand
where the schema does not put them, so that the proof agent moves them instead of leaving them
unseen by a reader that expects them elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LINE_END = re.compile(r"\r\n|\r|\n")
HEADING = re.compile(r"^ {0,3}(?P<hashes>#{3,6})[ \t]+(?P<title>.*?)(?:[ \t]+#+)?[ \t]*$")
SECTION = re.compile(r"^ {0,3}##[ \t]+(?P<title>.*?)(?:[ \t]+#+)?[ \t]*$")
FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")
FIELD = re.compile(r"^\*\*(?P<key>[A-Za-z][A-Za-z ]*):\*\*[ \t]*(?P<value>.*?)\s*$")

PROOF_STRUCTURE = "Proof Structure"
GAPS = "Gaps"
# The fields that make a block a step (agents/proof.md) or a gap, wherever it stands.
STEP_FIELDS = ("Status", "Depends on", "Confidence")
GAP_FIELDS = ("Type", "Blocking", "Suggested resolution", "Resolved", "Searched")
GAP_HEADING = re.compile(r"^Gap\b", re.IGNORECASE)
GAP_NUMBERED = re.compile(r"^Gap (?P<number>\d+):\s*(?P<description>.*?)\s*$")
REQUEST_HEADING = re.compile(r"^Request\b", re.IGNORECASE)
REQUEST_NUMBERED = re.compile(r"^Request (\d+)\b", re.IGNORECASE)
# The line compute.py writes under a COMPUTATION.md run made for a request (computation.section).
ANSWERED = re.compile(r"^\*\*Request from:\*\* PROOF\.md, Request (\d+)\s*$", re.MULTILINE)


@dataclass
class Block:
    """One heading block: its heading's depth and title, the `## ` section it is under ('' for
    none), its lines (0-based indices into the text's lines: heading .. end exclusive), its text
    and its fields."""

    depth: int
    title: str
    section: str
    start: int
    end: int
    text: str
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The heading's name: its title up to a colon ('Lemma 2: $f$ is bounded' -> 'Lemma 2')."""
        return self.title.split(":", 1)[0].strip()

    @property
    def is_gap(self) -> bool:
        return bool(GAP_HEADING.match(self.title)) or any(k in self.fields for k in GAP_FIELDS)

    @property
    def is_request(self) -> bool:
        return bool(REQUEST_HEADING.match(self.title))

    @property
    def is_step_like(self) -> bool:
        return any(k in self.fields for k in STEP_FIELDS)


def lines(text: str) -> list[str]:
    """The text's lines, split at LF, CRLF or a lone CR (as gaps.mark counts them)."""
    return LINE_END.split(text)


def _body_start(all_lines: list[str]) -> int:
    """The index of the first line after the frontmatter (0 when there is none)."""
    if all_lines and all_lines[0].lstrip("\ufeff") == "---":
        for index in range(1, len(all_lines)):
            if all_lines[index] == "---":
                return index + 1
    return 0


def _fields(block_lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in block_lines:
        if match := FIELD.match(line):
            found.setdefault(match.group("key").strip(), match.group("value"))
    return found


def in_fences(text_lines: list[str]) -> list[bool]:
    """For each line: whether it belongs to fenced code (``` or ~~~, the fence lines included),
    where a line starting with `#` is code or output, not a heading."""
    inside, fence = [], ""
    for line in text_lines:
        if fenced := FENCE.match(line):
            mark = fenced.group("fence")
            if not fence:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = ""
            inside.append(True)
            continue
        inside.append(bool(fence))
    return inside


def section_text(text: str, heading: str) -> str:
    """The text under the line `heading` (e.g. `### Code`) up to the next heading of its level
    or higher, headings inside fenced code not counting: a snippet's `# comment` or an output
    line `# table` is part of the block, not its end. '' when there is no such heading."""
    all_lines = lines(text)
    code = in_fences(all_lines)
    level = len(heading) - len(heading.lstrip("#"))
    ends = re.compile(rf"^#{{1,{level}}} ")
    start = next(
        (i for i, line in enumerate(all_lines) if not code[i] and line.rstrip() == heading), None
    )
    if start is None:
        return ""
    end = next(
        (i for i in range(start + 1, len(all_lines)) if not code[i] and ends.match(all_lines[i])),
        len(all_lines),
    )
    return "\n".join(all_lines[start + 1 : end]).strip()


def parse(text: str) -> tuple[list[Block], list[tuple[str, int, str]]]:
    """(every heading block of `text`, in order; the field lines that stand outside any block,
    as (section, line index, key))."""
    all_lines = lines(text)
    found: list[Block] = []
    loose: list[tuple[str, int, str]] = []
    section = ""
    open_block: tuple[int, str, int] | None = None  # depth, title, start

    def close(end: int) -> None:
        nonlocal open_block
        if open_block is not None:
            depth, title, start = open_block
            own = all_lines[start:end]
            found.append(Block(depth, title, section, start, end, "\n".join(own), _fields(own[1:])))
        open_block = None

    first = _body_start(all_lines)
    code = in_fences(all_lines[first:])
    for index in range(first, len(all_lines)):
        line = all_lines[index]
        if code[index - first]:
            continue
        if heading := HEADING.match(line):
            close(index)
            open_block = (len(heading.group("hashes")), heading.group("title").strip(), index)
        elif section_match := SECTION.match(line):
            close(index)
            section = section_match.group("title").strip()
        elif open_block is None and (named := FIELD.match(line)):
            loose.append((section, index, named.group("key").strip()))
    close(len(all_lines))
    return found, loose


def requests(text: str) -> dict[int, str]:
    """PROOF.md's `### Request N` blocks, whole (a fenced snippet in one included), by number."""
    found: dict[int, str] = {}
    for block in parse(text)[0]:
        number = REQUEST_NUMBERED.match(block.title)
        if block.is_request and number:
            found.setdefault(int(number.group(1)), block.text.strip())
    return found


def misplaced(text: str) -> list[str]:
    """Where PROOF.md breaks the schema so that a reader could miss a block: a step-like block
    (Status, Depends on or Confidence lines) outside `## Proof Structure`, a gap-like block (headed
    `Gap`, or with Type, Blocking or Resolved lines) outside `## Gaps` or not headed
    `Gap N: description`, a block under `## Gaps` that is no gap, and step or gap field lines
    under no `###` heading."""
    found, loose = parse(text)
    errors = []
    for block in found:
        where = f"`## {block.section}`" if block.section else "no `## ` section"
        heading = f"`{'#' * block.depth} {block.title}`"
        if block.is_request:
            continue
        if block.is_gap:
            if not GAP_NUMBERED.match(block.title):
                errors.append(f"the gap headed {heading} must be headed `### Gap N: description`")
            if block.section != GAPS:
                errors.append(f"{block.name} is a gap under {where}: move it under ## Gaps")
        elif block.section == GAPS:
            errors.append(
                f"{heading} under ## Gaps is no gap (`### Gap N: description` with its "
                "**Type:** line): move it where it belongs"
            )
        elif block.is_step_like and block.section != PROOF_STRUCTURE:
            errors.append(f"{block.name} is a step under {where}: move it under ## Proof Structure")
    wanted = set(STEP_FIELDS) | set(GAP_FIELDS)
    for section, index, key in loose:
        if key in wanted:
            where = f"`## {section}`" if section else "the top of the body"
            errors.append(
                f"line {index + 1}: a **{key}:** line under {where}, in no `### ` block: "
                "give the step or gap its own `### ` heading"
            )
    return errors
