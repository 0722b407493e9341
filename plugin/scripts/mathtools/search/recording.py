"""The end of a literature search, in two calls: merge, then finish.

merge   the search folder's verified.json and relevance.json into LITERATURE.md (merging.py, the
        Search History row from the search's runs), keeps in each REF every statement of its
        paper's source that verify listed, and any other a [V] claim quotes (statements.json, as
        verify read them), and
        validates in the same call (a [V] quote not in its source is a violation naming the
        closest passage); it names what the model must still write: the Synthesis (into
        `synthesis.md` in the search folder), and the tier of any REF still unassessed.
finish  puts `synthesis.md` in LITERATURE.md's `## Synthesis` section: the whole of it on a first
        search, else the Synthesis extended by it, every section and claim kept unless
        synthesis.md names a section it replaces (with the speculative-steps warning first
        when a claim is [~]); keeps the statements its [V] claims quote, validates
        the file, and only when it is valid records the search: the LIT journal entry (strategy,
        what was tried and the artifacts filled in from the search) and the search in STATE.md.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..core import NAMES, BadInput, atomic_write, locked, read_json, read_text
from ..litdoc import (
    REPLACES,
    SYNTHESIS,
    LatexSourceText,
    LiteratureDoc,
    correct_file,
    extended_synthesis,
    keep_quoted,
    load_literature,
    merge_file,
    merge_summary_lines,
    parse_literature,
    validate,
    with_warning,
)
from ..research import add, record_merge, record_search, resolve
from .searchfolder import STATEMENTS, VERIFIED, PaperStatements, Search, listed_statements
from .store import open_store

RELEVANCE = "relevance.json"
SYNTHESIS_FILE = "synthesis.md"
CORRECTIONS = "corrections.json"  # the model's corrections of entries merge wrote
SYNTHESIS_PLACEHOLDER = "(No synthesis yet"
# The Synthesis of a search that confirmed no reference (merge writes it; the model may extend it).
NO_PRIOR_WORK = (
    "### Prior Work\n\nNo prior work found: the search ({runs} runs) confirmed no reference on "
    "the problem, so the proof starts from PROBLEM.md alone.\n"
)
SYNTHESIS_BEFORE = "synthesis-before.md"  # the Synthesis as this search found it: what it extends
# The one wording of how a follow-up extends the Synthesis (the runbook's step 7 says the same).
EXTEND = (
    "to extend: the Synthesis below; write in {file} only its new lines, under the headings"
    " they extend (a heading ending '{replaces}' replaces that section); nothing new: write"
    " nothing. Now:"
)


def merge_search(search: Search) -> tuple[dict[str, object], list[str]]:
    """Merge and validate; (the merge report with the violations, the lines to print)."""
    folder = search.folder
    if not (folder / VERIFIED).exists():
        raise BadInput(f"no {folder / VERIFIED}: run `literature.py verify` first", code="usage")
    verified = read_json(str(folder / VERIFIED), "verification")
    relevance_path = folder / RELEVANCE
    relevance = read_json(str(relevance_path), "relevance") if relevance_path.exists() else None
    with open_store(create=False) as store:
        history = store.history_row(search.run_ids()) if search.run_ids() else None
    report, _ = merge_file(
        Path(search.literature),
        verified,
        relevance,
        problem=search.problem,
        summary=history["summary"] if history else None,
        results=history["results"] if history else None,
    )
    if not report["already_merged"]:
        record_merge(Path(search.literature), f"merge {report['merge_id']}")
    kept = keep_statements(search)
    out = merge_summary_lines(report) + kept
    doc = load_literature(search.literature)
    written = folder / SYNTHESIS_FILE
    if not doc.confirmed and doc.synthesis.startswith(SYNTHESIS_PLACEHOLDER):
        # an empty search is an outcome: LITERATURE.md says so, and finish records it
        before = folder / SYNTHESIS_BEFORE
        no_prior_work = NO_PRIOR_WORK.format(runs=len(search.run_ids()))
        install_synthesis(Path(search.literature), no_prior_work, before)
        doc = load_literature(search.literature)
        atomic_write(before, doc.synthesis)  # what a synthesis.md of the model's extends
        if not written.exists():
            out.append(
                "no prior work found: LITERATURE.md's Synthesis says so; finish records the "
                f"search (write {written} only to say more)"
            )
            return {**report, "violations": validate(search.literature)}, out
    violations = validate(search.literature)
    # A REF without a tier is named once, by the summary's "not yet assessed" line.
    unassessed = {entry.entry_number for entry in doc.confirmed if not entry.assessed}
    out += [v for v in violations if v.split(" ", 1)[0] not in unassessed]
    current = doc.synthesis
    if current.startswith(SYNTHESIS_PLACEHOLDER):
        out.append(f"to write: the Synthesis, in {folder / SYNTHESIS_FILE}")
    else:
        out.append(EXTEND.format(file=folder / SYNTHESIS_FILE, replaces=REPLACES.strip()))
        out += current.splitlines()
    # The model edits the Synthesis in synthesis.md, else reads it as printed above.
    if written.exists():
        out = in_synthesis_file(out, doc, read_text(written, SYNTHESIS_FILE), str(written))
    else:
        out = in_synthesis_file(out, doc, current, "Synthesis (printed below)")
    return {**report, "violations": violations}, out


def correct_search(search: Search) -> list[str]:
    """Apply R/corrections.json to LITERATURE.md's entries (a quote merge found not in its
    source, corrected with no Read of the file) and validate; the lines to print."""
    path = search.folder / CORRECTIONS
    if not path.exists():
        raise BadInput(f"no {path}: write the corrections first", code="usage")
    out = correct_file(Path(search.literature), read_json(str(path), "corrections"))
    violations = validate(search.literature)
    return out + (violations or ["LITERATURE.md valid"])


# A line naming a line of LITERATURE.md's Synthesis (a violation, a citation to update).
SYNTHESIS_LINE = re.compile(r"^Synthesis line (\d+)\b")


def in_synthesis_file(lines: list[str], doc: LiteratureDoc, text: str, name: str) -> list[str]:
    """`lines` with each `Synthesis line N` (a line of LITERATURE.md) renamed `<name> line K`,
    K the line of `text` (synthesis.md, which the model edits) that holds the same words; left
    as it is when `text` no longer holds them."""
    rendered = doc.render().splitlines()
    start = doc.section(SYNTHESIS).line_no
    own = text.splitlines()

    def renamed(line: str) -> str:
        match = SYNTHESIS_LINE.match(line)
        if match is None or not 0 < int(match.group(1)) <= len(rendered):
            return line
        number = int(match.group(1))
        said = rendered[number - 1].strip()
        nth = [x.strip() for x in rendered[start : number - 1]].count(said)
        at = [i for i, x in enumerate(own, 1) if x.strip() == said]
        if len(at) <= nth:
            return line
        return f"{name} line {at[nth]}" + line[match.end() :]

    return [renamed(line) for line in lines]


def keep_statements(search: Search) -> list[str]:
    """Keep in LITERATURE.md's REFs, from the search folder's statements.json (under the file's
    lock), every statement verify listed for the REF's paper and any other its [V] claims quote,
    so that any later search may quote them; what could not be kept."""
    source = search.folder / STATEMENTS
    if not source.exists():
        return []
    read: dict[str, PaperStatements] = read_json(str(source), "statements")
    papers = {
        arxiv_id: LatexSourceText(
            record["src"],
            {s["printed"]: s["text"] for s in record["statements"]},
            [s["printed"] for s in listed_statements(record)],
            record["missing"],
        )
        for arxiv_id, record in read.items()
    }
    path = Path(search.literature)
    with locked(path):
        text = read_text(path, "LITERATURE.md")
        doc = parse_literature(text, str(path))
        said = keep_quoted(doc, papers)
        if doc.render() != text:
            atomic_write(path, doc.render())
    return said


def install_synthesis(path: Path, text: str, before: Path) -> None:
    """Put the model's `text` in LITERATURE.md's `## Synthesis` at `path` (under its lock):
    the Synthesis as this search found it (kept in `before` at its first finish, so that a
    finish run again after a fix starts from it too) extended by `text` (extended_synthesis),
    with the speculative-steps warning first when a claim is [~]."""
    with locked(path):
        doc = parse_literature(read_text(path, "LITERATURE.md"), str(path))
        if not before.exists():
            atomic_write(before, doc.synthesis)
        found = read_text(before, SYNTHESIS_BEFORE)
        fresh = found.startswith(SYNTHESIS_PLACEHOLDER) or not found.strip()
        text = with_warning(text) if fresh else extended_synthesis(found, text)
        section = doc.section(SYNTHESIS)
        section.intro = ["\n", *(line + "\n" for line in text.strip("\n").splitlines()), "\n"]
        section.blocks = []
        atomic_write(path, doc.render())


def finish_search(
    search: Search,
    *,
    outcome: str,
    title: str,
    reasoning: str,
    insight: str,
    tags: list[str],
    strategy: str | None = None,
) -> dict[str, object]:
    """Put the Synthesis in, validate, and when valid record the journal entry and the state."""
    path = Path(search.literature)
    synthesis = search.folder / SYNTHESIS_FILE
    if synthesis.exists():
        install_synthesis(
            path, read_text(synthesis, SYNTHESIS_FILE), search.folder / SYNTHESIS_BEFORE
        )
    elif load_literature(path).synthesis.startswith(SYNTHESIS_PLACEHOLDER):
        raise BadInput(f"write the Synthesis to {synthesis} first", code="no_synthesis")
    unkept = keep_statements(search)
    violations = unkept + validate(path)
    if synthesis.exists():  # named by the lines of the file the model edits
        text = read_text(synthesis, SYNTHESIS_FILE)
        violations = in_synthesis_file(violations, load_literature(path), text, str(synthesis))
    if violations:
        return {"valid": False, "violations": violations, "recorded": False}
    if search.journal:  # finished before: the Synthesis is updated, nothing recorded twice
        return {"valid": True, "journal": search.journal, "already_recorded": True}
    failed = _failed(search)
    run_ids = [run_id for item in search.iterations for run_id in item["runs"]]
    with open_store(create=False) as store:
        sources = dict.fromkeys(store.run(run_id)["source"] for run_id in run_ids)
    named = [NAMES.get(source, source) for source in sources] or ["no service"]
    names = ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]
    tried = f"{len(run_ids)} runs on {names}, {search.iteration} iteration(s)" + (
        f"; unavailable: {', '.join(NAMES.get(s, s) for s in failed)}" if failed else ""
    )
    entry = add(
        category="LIT",
        strategy=strategy or ("broad-survey" if search.first_search else "targeted-search"),
        outcome=outcome,
        title=title,
        tried=tried,
        insight=insight,
        problem=search.problem,
        tags=tags,
        reasoning=reasoning,
        artifacts=["LITERATURE.md"],
        related=["PROBLEM.md"],
        agent="literature-search",
    )
    search.journal = entry["id"]
    search.save()
    counts = load_literature(path).frontmatter
    slug, folder = resolve(search.problem)
    moved = record_search(
        folder, slug, f"{entry['id']}: {counts.get('confirmed_count', 0)} confirmed references"
    )
    return {
        "valid": True,
        "journal": entry["id"],
        "confirmed": counts.get("confirmed_count"),
        "unconfirmed": counts.get("unconfirmed_count"),
        "state": moved,
    }


def _failed(search: Search) -> list[str]:
    """Every source that failed in the search, in discovery or in verification (verified.json's
    `source_errors`), in source order."""
    failed = set(search.failed())
    path = search.folder / VERIFIED
    if path.exists():
        verified = read_json(str(path), "verification")
        if isinstance(verified, dict) and isinstance(verified.get("source_errors"), dict):
            failed |= set(verified["source_errors"])
    return [source for source in NAMES if source in failed] + sorted(failed - set(NAMES))
