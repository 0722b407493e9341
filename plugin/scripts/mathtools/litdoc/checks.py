"""LITERATURE.md's rules (protocol section 8 and the anti-hallucination rules): `validate` lists
every violation of the schema, the entry rules, the Synthesis citation tiers, the quotes of [V]
claims (quotes.py) and the Search History table; literature.py parses the document it checks."""

from __future__ import annotations

import re
from pathlib import Path

from ..core import BadInput, is_digits, read_text, schema_errors
from . import quotes
from .literature import (
    CITATION,
    CODE_FENCE,
    HISTORY_COLUMNS,
    RESULTS,
    SYNTHESIS,
    UREF_STATUS,
    LiteratureDoc,
    current_row,
    parse_literature,
)
from .refentry import entry_number

_TIER = re.compile(r"\[(V|S|~)\]", re.I)
_UNIT_START = re.compile(r"\s*([-*+]|\d+[.)]|#+)\s")  # a bullet, numbered item or heading
# protocols/confidence-tiers.md, "The speculative-steps warning": finish puts it atop a Synthesis
# with [~] claims, numbered, so the model never copies it.
SPECULATIVE_WARNING = """\
> **Warning: this document contains speculative steps.**
> The steps marked [~] (here: {steps}) are conjectures or heuristics,
> not established mathematics. Everything that depends on them is speculative too. Do not cite
> this result as proven until each [~] step is replaced by a verified [V] or supported [S]
> argument."""
_WARNING_FIRST_LINE = SPECULATIVE_WARNING.splitlines()[0]


def validate(path_or_text: Path | str) -> list[str]:
    """Every violation of the schema and the anti-hallucination rules (empty list: valid).

    A str containing a newline is document text; anything else is a path.
    """
    folder = None
    if isinstance(path_or_text, str) and "\n" in path_or_text:
        text, name = path_or_text, "LITERATURE.md"
    else:
        text, name = read_text(path_or_text, "LITERATURE.md"), str(path_or_text)
        folder = Path(path_or_text).resolve().parent
    try:
        doc = parse_literature(text, name)
    except BadInput as exc:
        return [exc.message]
    found = _violations(doc)
    slug = doc.frontmatter.get("problem")
    if folder is not None and is_problem_folder(folder) and slug != folder.name:
        found.insert(
            0,
            f"frontmatter: problem is {slug!r} but the file is in the folder of problem "
            f"{folder.name!r} (the slug must match the folder's name)",
        )
    return found


def is_problem_folder(folder: Path) -> bool:
    """A problem's folder: it holds PROBLEM.md, or it sits in a `problems/` folder."""
    return (folder / "PROBLEM.md").exists() or folder.parent.name == "problems"


def _violations(doc: LiteratureDoc) -> list[str]:
    found = [f"frontmatter line {number}: {e}" for number, e in doc.frontmatter_errors()]
    if problem := doc.state_problem():
        found.append(problem)
    counts = {
        "confirmed_count": len(doc.confirmed),
        "unconfirmed_count": len(doc.unconfirmed),
        "total_papers": len(doc.confirmed) + len(doc.unconfirmed),
    }
    for key, actual in counts.items():
        if key in doc.frontmatter and doc.frontmatter[key] != actual:
            found.append(
                f"frontmatter: {key} is {doc.frontmatter[key]!r} but the body has {actual}"
            )

    numbers: dict[str, int] = {}
    for entry in doc.confirmed + doc.unconfirmed:
        where = f"{entry.entry_number} (line {entry.line_no})"
        if entry.entry_number in numbers:
            found.append(f"{where}: number used twice (also on line {numbers[entry.entry_number]})")
        numbers.setdefault(entry.entry_number, entry.line_no)
        if entry.kind == "REF" and not entry.verified_at:
            found.append(f"{where}: no 'Verified: <ISO timestamp> via <URL>' line")
        elif entry.kind == "REF" and not entry.verified_via:
            found.append(f"{where}: the Verified line names no URL")
        year = entry.field("Year")
        if entry.kind == "REF" and year is not None and not is_digits(year):
            found.append(f"{where}: Year {year!r} is not a year")
        if entry.kind == "REF" and not entry.assessed:
            found.append(
                f"{where}: confidence {entry.confidence or '(none)'!r} has no tier; give it "
                "[V], [S] or [~] (the relevance file of lit_update.py merge, or by hand)"
            )
        if entry.kind == "UREF" and entry.status != UREF_STATUS:
            found.append(f"{where}: no 'Status: {UREF_STATUS}' line")
        schema = "literature_ref" if entry.kind == "REF" else "literature_uref"
        found += [
            f"{where}: {e}"
            for e in schema_errors(schema, entry.to_dict())
            if not e.startswith(("verified_at", "verified_via", "status", "confidence"))  # above
        ]

    for number, cited, tier in synthesis_citations(doc):
        if cited.startswith("UREF") and tier == "[V]":
            found.append(
                f"Synthesis line {number}: {cited} is unconfirmed and cited as [V]; "
                "unconfirmed references are never verified sources"
            )
        if cited not in numbers:
            found.append(f"Synthesis line {number}: cites {cited}, which is not an entry")

    found += quote_violations(doc)

    for number, cells in doc.history_rows():
        cells = current_row(cells)  # a two-source table's row as it will be written
        if len(cells) != len(HISTORY_COLUMNS):
            found.append(
                f"Search History line {number}: {len(cells)} cells; the columns are "
                + " | ".join(HISTORY_COLUMNS)
            )
        elif not is_digits(cells[3]) or not RESULTS.fullmatch(cells[2]):
            found.append(
                f"Search History line {number}: Results are each source's count "
                "(`arXiv 12, Semantic Scholar 3`, or `none`); New Confirmed, a whole number"
            )
    return found


def speculative_claims(text: str) -> list[int]:
    """The numbers of the [~] claims of a Synthesis: its claims (bullets and numbered items
    carrying a tier) counted from 1, in order."""
    claims, current = [], ""
    for line in [*text.splitlines(), "- "]:
        start = _UNIT_START.match(line)
        if start or not line.strip():
            if _TIER.search(current):
                claims.append("[~]" in current)
            current = ""
        current += " " + line
    return [number for number, speculative in enumerate(claims, 1) if speculative]


def without_warning(text: str) -> str:
    """The Synthesis without the speculative-steps warning at its top."""
    lines = text.strip("\n").splitlines()
    if lines and lines[0] == _WARNING_FIRST_LINE:
        end = next((i for i, line in enumerate(lines) if not line.startswith(">")), len(lines))
        lines = lines[end:]
        while lines and not lines[0].strip():
            lines = lines[1:]
    return "\n".join(lines)


def with_warning(text: str) -> str:
    """The Synthesis with the speculative-steps warning first when it has [~] claims (an old
    warning replaced, so its numbers stay right), without it when it has none."""
    body = without_warning(text)
    numbers = speculative_claims(body)
    if not numbers:
        return body + "\n"
    named = ", ".join(map(str, numbers[:-1])) + " and " if len(numbers) > 1 else ""
    word = "claims" if len(numbers) > 1 else "claim"
    block = SPECULATIVE_WARNING.format(steps=f"{word} {named}{numbers[-1]}")
    return block + "\n\n" + body + "\n"


def quote_violations(doc: LiteratureDoc) -> list[str]:
    """Every [V] claim of the Key Results and the Synthesis whose quote is not in its source (a
    [V] citing a UREF in the Synthesis is the citation rule's, above, not repeated here)."""
    entries = {entry.entry_number: entry for entry in doc.confirmed + doc.unconfirmed}
    found = []
    for entry in doc.confirmed:
        for quote in quotes.quotes(entry.key_results or ""):
            if why := quotes.check(quote, entries, own=entry):
                found.append(f"{entry.entry_number} (line {entry.line_no}) Key Results: {why}")
    section = doc.section(SYNTHESIS)
    lines, in_fence = [], False
    for line in section.lines()[1:]:  # code and the warning are no claims: blanked, numbers kept
        fence = bool(CODE_FENCE.match(line.lstrip()))
        in_fence ^= fence
        lines.append("\n" if fence or in_fence or line.startswith(">") else line)
    for quote in quotes.quotes("".join(lines), section.line_no + 1):
        if quote.ref and quote.ref.upper().startswith("UREF"):
            continue
        if why := quotes.check(quote, entries):
            found.append(f"Synthesis line {quote.line}: {why}")
    return found


def synthesis_citations(doc: LiteratureDoc) -> list[tuple[int, str, str | None]]:
    """(line, entry number, tier) for every REF/UREF citation in the Synthesis, in any letter case.

    A claim unit is a whole bullet, numbered item or paragraph, its continuation lines included;
    within a unit claims are split only at tier markers. A unit that opens with a marker
    (`- [V] The bound holds; see UREF-001.`) gives each marker the text after it; otherwise
    (`- The bound (see UREF-001) holds [V].`) each marker closes the text before it, and text
    after the last marker belongs to that marker. A citation in a unit without a marker has no tier.
    """
    section = doc.section(SYNTHESIS)
    units: list[list[tuple[int, str]]] = [[]]
    in_fence = False
    for offset, line in enumerate(section.lines()[1:], start=1):
        fence = bool(CODE_FENCE.match(line.lstrip()))
        in_fence ^= fence
        start = _UNIT_START.match(line)
        if not line.strip() or fence or in_fence or start:
            units.append([])  # a blank line, code or a new item ends the unit; code is no claim
        if line.strip() and not fence and not in_fence:
            units[-1].append((section.line_no + offset, line.rstrip("\n")))
        if start and start.group(1).startswith("#"):
            units.append([])  # a heading is a unit of its own
    found = []
    for unit in units:
        text, starts = "", []
        for number, line in unit:
            starts.append((len(text), number))
            text += line + " "
        markers = [(m.start(), m.end(), f"[{m.group(1).upper()}]") for m in _TIER.finditer(text)]
        opening = _UNIT_START.match(text)
        leading = (
            bool(markers) and not text[opening.end() if opening else 0 : markers[0][0]].strip()
        )
        for match in CITATION.finditer(text):
            at = match.start()
            if leading:  # the last marker before the citation
                tier = next((tier for start, _, tier in reversed(markers) if start < at), None)
            else:  # the first marker after it, else the last one
                after = [tier for _, end, tier in markers if end > at]
                tier = after[0] if after else markers[-1][2] if markers else None
            number = next(n for start, n in reversed(starts) if start <= at)
            found.append((number, entry_number(match.group(1).upper(), int(match.group(2))), tier))
    return found


REPLACES = " (replaces)"  # a synthesis.md heading ending so replaces that Synthesis section
_HEADING = re.compile(r"^### (.+?)\s*$")


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """A Synthesis as (heading, its lines) in order, the lines before the first `###` under
    the heading "" (the speculative-steps warning left out: with_warning makes it)."""
    body = without_warning(text)
    parts: list[tuple[str, list[str]]] = [("", [])]
    for line in body.splitlines():
        heading = _HEADING.match(line)
        if heading:
            parts.append((heading.group(1), []))
        else:
            parts[-1][1].append(line)
    return parts


def extended_synthesis(current: str, written: str) -> str:
    """The Synthesis `current` extended by what the model `written` (synthesis.md): each of its
    sections' lines not already there are added to the section of that heading (a new heading
    after the others), so no section and no claim is lost by accident; a heading ending
    REPLACES replaces that section. The speculative-steps warning is made again
    (with_warning): a [~] claim kept keeps it."""
    merged = _sections(current)
    for heading, lines in _sections(written):
        name = heading.removesuffix(REPLACES.strip()).rstrip()
        at = next((i for i, (h, _) in enumerate(merged) if h == name), None)
        if at is None:
            merged.append((name, lines))
        elif name != heading:
            merged[at] = (name, lines)
        else:
            kept = merged[at][1]
            while kept and not kept[-1].strip():
                kept.pop()
            said = {line.strip() for line in kept}
            kept += [line for line in lines if line.strip() not in said or not line.strip()]
    text = "\n".join(
        "\n".join(([f"### {h}"] if h else []) + lines).strip("\n") + "\n"
        for h, lines in merged
        if h or any(line.strip() for line in lines)
    )
    return with_warning(text.replace("\n### ", "\n\n### ").replace("\n\n\n", "\n\n"))
