"""How /math:check-refs shows a checked bibliography (refcheck.check's document): the terminal
table, the summary line, the Markdown report.
"""

from __future__ import annotations

from pathlib import Path

from ..core import NAMES, CheckDocument, CheckedEntry, Discrepancy, plural, summary_line
from .verdicts import PENDING, retracted_note

REPORT_MARK = "<!-- check_refs.py report -->"
MAX_MISSING_LINES = 10  # more missing keys are listed on one line
MAX_NEVER_CITED_KEYS = 30
SUGGESTION_FLOOR = 0.75  # a suggestion sharing no author with the entry is shown from this score
# No suggestion is shown below this title score, even sharing an author: a referee trying the
# command was shown suggestions scoring 0.32-0.44, none the paper meant.
SUGGESTION_TITLE_MIN = 0.5
SPLIT_MEANING = {
    "labels": "sure: every entry opens with its label, as many entries as labels",
    "unsure labels": "unsure: more labels than entries, or numbers that skip; check the count",
    "indents": "unsure: no labels, entries split at their hanging indents; check the count",
    "paragraphs": "unsure: no labels, entries split at paragraphs and names; check the count",
}


def pdf_line(document: CheckDocument) -> str:
    """Which entries came from a PDF, and how sure their split was."""
    pdf = document["pdf"]
    return (
        f"from a PDF: {pdf['entries']} entries of {Path(pdf['file']).name}, each checked as "
        f"written (split by {pdf['split']}: {SPLIT_MEANING.get(pdf['split'], pdf['split'])})"
    )


def statement_lines(document: CheckDocument, key: str) -> list[str]:
    """What the entry's cited statements are in the cited paper's arXiv LaTeX source: one line each
    (`Theorem 2.3 (note): "first words"`), or one line naming those that were not checked."""
    cited = [c for c in document.get("statements", []) if c["key"] == key]
    unchecked = [c for c in cited if c["status"] == "no_latex_source"]
    lines = []
    for citation in cited:
        if citation["status"] == "no_latex_source":
            continue
        asked = f"cites {citation['kind']} {citation['number']}{citation['part'] or ''}"
        if citation["read_from"] == "prose":  # "Theorem 2.3 of \\cite{key}": say where
            asked += f" (in prose, line {citation['line']})"
        statement = citation["statement"]
        if citation["status"] == "found" and statement:
            note = f" ({statement['note']})" if statement["note"] else ""
            lines.append(f'{asked}: {citation["message"]}{note}: "{statement["first_words"]}"')
        else:
            flag = "check: " if citation["status"] in ("not_in_version", "other_kind") else ""
            lines.append(f"{asked}: {flag}{citation['message']}")
    if unchecked:
        named = ", ".join(dict.fromkeys(f"{c['kind']} {c['number']}" for c in unchecked))
        lines.append(
            f"cites {named}: not checked (not confirmed with an arXiv id: no LaTeX source to read)"
        )
    return lines


JUDGED = ("found", "other_kind")  # statuses whose statement text is there to compare
MAX_STATEMENT_CHARS = 700  # a longer statement is cut; --json carries it whole
MARKS = "as stated / stronger than stated / other statement / can't tell"


def use_lines(document: CheckDocument) -> list[str]:
    """What the model judges (commands/check-refs.md): each cited statement whose text was read,
    the sentence citing it (file and line) beside the statement's text, numbered `use N:`."""
    uses = [
        (use, statement)
        for use in document.get("statements", [])
        if use["status"] in JUDGED and (statement := use["statement"]) is not None
    ]
    if not uses:
        return []
    lines = [f"uses to judge: {len(uses)}; mark each {MARKS}"]
    shown: dict[tuple[str, str, str], int] = {}  # (key, message, text) -> the use showing it
    for number, (use, statement) in enumerate(uses, 1):
        text = " ".join(statement["text"].split())
        if len(text) > MAX_STATEMENT_CHARS:
            text = text[: MAX_STATEMENT_CHARS - 1] + "… (whole: --json)"
        note = f" ({statement['note']})" if statement["note"] else ""
        lines += [
            f"use {number}: {Path(use['file']).name or 'the paper'} line {use['line']} cites "
            f"{use['kind']} {use['number']}{use['part'] or ''} of {use['key']}",
            f"  sentence: {use['sentence']}",
        ]
        first = shown.setdefault((use["key"], use["message"], text), number)
        if first == number:
            lines.append(f"  statement: {use['message']}{note}: {text}")
        else:  # the same statement cited again: its text once
            lines.append(f"  statement: {use['message']}: as in use {first}")
    return lines


def pending_lines(document: CheckDocument, keys: list[str]) -> list[str]:
    """The entries no answering service could check, on one line with their next step: not
    checked, so never suspect."""
    if not keys:
        return []
    failed = [NAMES.get(s, s) for s in document.get("source_errors", {})]
    who = " and ".join(failed) if failed else "a service"
    verb = "were" if len(failed) > 1 else "was"
    shown = ", ".join(keys[:MAX_NEVER_CITED_KEYS]) + (
        ", …" if len(keys) > MAX_NEVER_CITED_KEYS else ""
    )
    return [
        f"pending: {len(keys)} {'entry' if len(keys) == 1 else 'entries'} not checked, "
        f"{who} {verb} unavailable: {shown}",
        f"  next: run the same command again later (what answered is cached), or look "
        f"{'it' if len(keys) == 1 else 'them'} up on {who}",
    ]


def venue_lines(document: CheckDocument, key: str) -> list[str]:
    """The entry's venue when it is a journal macro defined nowhere in the source (`\\ANNMAone`
    of `\\input mrabbrev`): shown as written, not compared."""
    return [
        f"venue: {v['venue']} (a journal macro, unexpanded: not compared)"
        for v in document.get("unexpanded_venues", [])
        if v["key"] == key
    ]


def macro_venues_line(document: CheckDocument) -> list[str]:
    """One line counting the venues left as journal macros, naming the inputs missing."""
    unexpanded = document.get("unexpanded_venues", [])
    if not unexpanded:
        return []
    inputs = sorted({name for v in unexpanded for name in v["missing_inputs"]})
    where = (
        f"{', '.join(inputs)} (input by the paper) is not there"
        if inputs
        else "no file of the source defines them"
    )
    return [
        f"journal macros: {plural(len(unexpanded), 'entry names', 'entries name')} their "
        "journal by a macro whose "
        f"definition is not read ({where}): venues shown unexpanded, not compared"
    ]


def ambiguous_lines(document: CheckDocument) -> list[str]:
    """The statements cited of several references at once (`Section 3 of~\\cite{a,b}`), one
    line each: not checked, since the text does not say whose."""
    return [
        f"ambiguous: {a['written']} ({Path(a['file']).name} line {a['line']}) names "
        f"{' and '.join(a['statements'])} of {len(a['keys'])} references at once "
        f"({', '.join(a['keys'])}): not checked; cite the one meant"
        for a in document.get("ambiguous_statements", [])
    ]


def closing_lines(document: CheckDocument) -> list[str]:
    """What ends both views: the ambiguous statement citations, the venues left as journal
    macros, the PDF's split, the services that failed, warnings, the counts."""
    lines = ambiguous_lines(document) + macro_venues_line(document)
    lines += [pdf_line(document)] if "pdf" in document else []
    for source, message in document.get("source_errors", {}).items():
        lines.append(f"{NAMES.get(source, source)} unavailable: {message}")
    lines += [f"warning: {warning}" for warning in document.get("warnings", [])]
    return [*lines, checked_line(document), summary_text(document)]


def checked_line(document: CheckDocument) -> str:
    """`checked N of M entries (K cited)`: what was checked of the bibliography read, and how
    many keys the paper cites (when a paper was read)."""
    s = document["summary"]
    read = s["entries"] + len(document["not_cited"])
    cited = f" ({s['cited']} cited)" if "cited" in s else ""
    return f"checked {s['entries']} of {plural(read, 'entry', 'entries')}{cited}"


def table_lines(document: CheckDocument) -> list[str]:
    """The terminal view: one row per entry (KEY  STATUS  what was found), the corrections and
    suggestions indented below their row, then duplicates, missing keys and the counts."""
    entries = document["entries"]
    width = min(max((len(e["key"]) for e in entries), default=3), 28)
    lines = [f"{'KEY':<{width}}  {'STATUS':<11}  DETAILS"]
    for entry in entries:
        key = entry["key"] if len(entry["key"]) <= width else entry["key"][: width - 1] + "…"
        head = f"{key:<{width}}  {entry['status']:<11}  "
        details = _details(entry) + venue_lines(document, entry["key"])
        details += statement_lines(document, entry["key"])
        lines.append(head + details[0])
        lines += [" " * (width + 15) + line for line in details[1:]]
    for group in document["duplicates"]:
        lines.append(f"duplicate: {', '.join(group['keys'])}: {group['why']}")
    missing = document["missing"]
    if len(missing) > MAX_MISSING_LINES:
        keys = ", ".join(item["key"] for item in missing)
        lines.append(f"missing: {len(missing)} keys are cited but in no bibliography: {keys}")
    for item in missing if len(missing) <= MAX_MISSING_LINES else []:
        lines.append(
            f"missing: {item['key']} is cited ({Path(item['file']).name} line {item['line']}) "
            "but in no bibliography"
        )
    lines += never_cited_line(document)
    lines += closing_lines(document)
    return lines


def decision_lines(document: CheckDocument, table_file: str | None) -> list[str]:
    """What a referee acts on (--decisions): only the rows that need a decision, each with its
    next step, then the counts and where the whole table is. CONFIRMED entries, and entries the
    paper never cites, are not rows here (the latter are counted on one line)."""
    entries = document["entries"]
    cited = {e["key"] for e in entries} - set(document.get("never_cited") or [])
    lines = use_lines(document)
    pending: list[str] = []
    for entry in entries:
        if entry["key"] not in cited or entry["status"] == "CONFIRMED":
            flagged = [
                line for line in statement_lines(document, entry["key"]) if ": check: " in line
            ]
            if flagged and entry["key"] in cited:  # every flagged statement, one line each
                lines.append(f"{entry['key']}: CONFIRMED; {flagged[0]}")
                lines += [f"  {line}" for line in flagged[1:]]
                lines.append("  next: compare the numbers with the published version")
            continue
        if entry["reason"].startswith(PENDING):
            pending.append(entry["key"])
            continue
        details = _details(entry) + [
            line for line in statement_lines(document, entry["key"]) if ": check: " in line
        ]
        lines.append(f"{entry['key']}: {entry['status']} {details[0]}")
        lines += [f"  {line}" for line in details[1:]]
        lines.append(f"  next: {_next_step(entry)}")
    lines += pending_lines(document, pending)
    for group in document["duplicates"]:
        lines.append(f"duplicate: {', '.join(group['keys'])}: {group['why']}")
        lines.append("  next: keep one entry and cite it by one key")
    for item in document["missing"][:MAX_MISSING_LINES]:
        lines.append(
            f"missing: {item['key']} is cited ({Path(item['file']).name} line {item['line']}) "
            "but in no bibliography"
        )
    if document["missing"]:
        more = len(document["missing"]) - MAX_MISSING_LINES
        lines += [f"missing: {more} more keys"] if more > 0 else []
        lines.append("  next: add the missing entries, or correct the keys in the .tex")
    never = never_cited_line(document)
    lines += never + (["  next: cite them where they are used, or remove them"] if never else [])
    lines += closing_lines(document)
    if table_file:
        lines.append(f"the whole table: {table_file}")
    return lines


def _next_step(entry: CheckedEntry) -> str:
    if entry["status"] == "CORRECTED":
        return "take the corrected values (the corrected copy), or correct the entry by hand"
    if worth_suggesting(entry):
        return "see whether the suggestion is the paper meant; else find the paper or drop it"
    return "find the paper (title, authors, year) or drop the citation: it may not exist"


def summary_text(document: CheckDocument) -> str:
    s = document["summary"]
    text = (
        f"{plural(s['entries'], 'entry', 'entries')}: {s['confirmed']} CONFIRMED, "
        f"{s['corrected']} CORRECTED, "
        f"{s['unconfirmed']} UNCONFIRMED"
    )
    if s["pending"]:
        text += f" ({s['pending']} pending: a service was unavailable)"
    text += f"; {s['duplicates']} duplicate(s), {s['missing']} cited but missing"
    if document["not_cited"]:
        text += f"; {len(document['not_cited'])} not cited, not checked"
    if s.get("statements"):
        text += (
            f"; {s['statements']} cited statement(s), {s.get('statements_flagged', 0)} not "
            "found as numbered"
        )
    return text


def _details(entry: CheckedEntry) -> list[str]:
    result = entry["verification"]
    paper = result["paper"]  # CONFIRMED and CORRECTED: always a record (the schema)
    if entry["status"] in ("CONFIRMED", "CORRECTED") and paper is not None:
        retracted = retracted_note(paper).lstrip("; ")
        diffs = result.get("discrepancies") or []
        lines = [summary_line(paper, width=70)] + ([retracted] if retracted else [])
        return lines + [_diff_line(d) for d in diffs] + _mr_line(entry)
    reason = entry["reason"]
    lines = [reason if len(reason) <= 160 else reason[:159] + "…"]
    if worth_suggesting(entry):
        lines.append(f"suggestion: {summary_line(result['suggestion'], width=70)}")
    return lines + _mr_line(entry)


def worth_suggesting(entry: CheckedEntry) -> bool:
    """Whether an UNCONFIRMED entry's suggestion is shown: its title scores at least
    SUGGESTION_TITLE_MIN, and it shares an author with the entry or its title scores at least
    SUGGESTION_FLOOR (a 1966 topology paper is never offered
    "Sparticle Reconstruction at LHC"). --json keeps every suggestion."""
    result = entry["verification"]
    checks = result["checks"]
    score = checks.get("title_score") or 0.0
    return (
        bool(result.get("suggestion"))
        and score >= SUGGESTION_TITLE_MIN
        and (bool(checks.get("matched_authors")) or score >= SUGGESTION_FLOOR)
    )


def never_cited_line(document: CheckDocument) -> list[str]:
    """The entries a paper's .tex never cites (checked all the same), on one line."""
    keys = document.get("never_cited") or []
    if not keys:
        return []
    shown = ", ".join(keys[:MAX_NEVER_CITED_KEYS]) + (
        ", …" if len(keys) > MAX_NEVER_CITED_KEYS else ""
    )
    return [
        f"never cited: {plural(len(keys), 'entry', 'entries')} the paper does not cite: {shown}"
    ]


def _mr_line(entry: CheckedEntry) -> list[str]:
    """The entry's MathSciNet number, kept and shown: no public API can verify it."""
    mr = entry["cited"].get("mr")
    return [f"{mr}: kept, not verified (MathSciNet has no public API)"] if mr else []


def _diff_line(discrepancy: Discrepancy) -> str:
    """`field: as cited -> as recorded`, or `field: note` when the record has no value (a
    journal cited for a paper the record knows only as a preprint, an id that does not exist)."""
    name, record = discrepancy["field"], discrepancy.get("record")
    if record in (None, "", []):
        return f"{name}: {_shown(discrepancy.get('note') or 'not in the record', width=160)}"
    return f"{name}: {_shown(discrepancy.get('cited'))} -> {_shown(record)}"


def _shown(value: object, width: int = 80) -> str:
    if value is None or value == "" or value == []:
        return "(none)"
    if isinstance(value, list):
        value = "; ".join(str(v) for v in value)  # names may hold commas ("Family, Given")
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def report_markdown(document: CheckDocument) -> str:
    """The Markdown report: counts, one table row per entry, each correction as a field table,
    each unconfirmed entry's reason and suggestion, duplicates and missing keys."""
    cell = _cell
    lines = [
        REPORT_MARK,
        "# Reference check",
        "",
        f"Checked {document['checked_at']}: "
        + ", ".join(
            f"`{Path(f['file']).name}` ({f['entries']} entries)" for f in document["inputs"]
        )
        + ".",
        "",
        summary_text(document) + ".",
        "",
        "| Key | Status | Record or reason |",
        "| --- | --- | --- |",
    ]
    for entry in document["entries"]:
        paper = entry["verification"]["paper"]
        # an entry without a record: its reason is under "Unconfirmed", said once
        shown = summary_line(paper) + retracted_note(paper) if paper else _unconfirmed_cell(entry)
        lines.append(f"| `{cell(entry['key'])}` | {entry['status']} | {cell(shown)} |")
    corrected = [e for e in document["entries"] if e["status"] == "CORRECTED"]
    if corrected:
        lines += ["", "## Corrections", ""]
        for entry in corrected:
            lines += [
                f"### `{cell(entry['key'])}` ({Path(entry['file']).name} line {entry['line']})",
                "",
                "| Field | Cited | Record | Note |",
                "| --- | --- | --- | --- |",
            ]
            for d in entry["verification"].get("discrepancies") or []:
                lines.append(
                    f"| {d['field']} | {cell(_shown(d.get('cited')))} | "
                    f"{cell(_shown(d.get('record')))} | {cell(d.get('note') or '')} |"
                )
            lines.append("")
    unconfirmed = [e for e in document["entries"] if e["status"] == "UNCONFIRMED"]
    if unconfirmed:
        lines += ["", "## Unconfirmed", ""]
        for entry in unconfirmed:
            lines.append(f"- `{cell(entry['key'])}`: {cell(entry['reason'])}")
            suggestion = entry["verification"].get("suggestion")
            if suggestion and worth_suggesting(entry):
                lines.append(f"  - suggestion: {cell(summary_line(suggestion))}")
    if document["duplicates"]:
        lines += ["", "## Duplicates", ""]
        lines += [
            f"- {', '.join(f'`{cell(k)}`' for k in g['keys'])}: {cell(g['why'])}"
            for g in document["duplicates"]
        ]
    if document["missing"]:
        lines += ["", "## Cited but missing", ""]
        lines += [
            f"- `{cell(m['key'])}` ({Path(m['file']).name} line {m['line']})"
            for m in document["missing"]
        ]
    never = never_cited_line(document)
    if never:
        lines += ["", "## Never cited", "", never[0]]
    statements = [
        (entry["key"], line)
        for entry in document["entries"]
        for line in statement_lines(document, entry["key"])
    ]
    ambiguous = ambiguous_lines(document)
    if statements or ambiguous:
        lines += ["", "## Cited statements", ""]
        lines += [f"- `{cell(key)}` {cell(line)}" for key, line in statements]
        lines += [f"- {cell(line)}" for line in ambiguous]
    macros = macro_venues_line(document)
    if macros:
        lines += ["", "## Venues left as journal macros", "", macros[0], ""]
        lines += [
            f"- `{cell(v['key'])}` {cell(v['venue'])}"
            for v in document.get("unexpanded_venues", [])
        ]
    if "pdf" in document:
        lines += ["", pdf_line(document)]
    return "\n".join(lines) + "\n"


def _unconfirmed_cell(entry: CheckedEntry) -> str:
    """The table's cell for an entry no record identified: what it is, the reason below it."""
    if entry["reason"].startswith(PENDING):
        return "not checked: a service was unavailable (see Unconfirmed)"
    return "not found as cited (see Unconfirmed)"


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell: one line, no pipe, no raw HTML."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text.replace("<", "&lt;").replace(">", "&gt;").replace("`", "'")
