"""One /math:check-refs run, as check_refs.py's options ask it (refoptions.py): the outputs checked
before any network call, the bibliography checked (refcheck.py), the paper's cited statements
added by the caller (the papers wing, which stands on this one), the corrected copy and the report
written, and what is printed (refreport.py): RefsRun.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ..bibliography import Bibliography, corrected_copy
from ..core import BadInput, CheckDocument, distinct_outputs, dumps, marked, write_file
from .refcheck import (
    FIX_MARK,
    adopt_corrected_copy,
    check_bibliography,
    check_output,
    default_fix_path,
    fix_header,
    fix_lines,
    fix_updates,
    is_marked,
    output_folder,
    strict_failures,
)
from .refoptions import RefsOptions, RefsRun
from .refreport import REPORT_MARK, checked_line, decision_lines, report_markdown, table_lines
from .verification import Verifier

Progress = Callable[[str], None]


def adopt_run(copy: str) -> RefsRun:
    """--adopt: the corrected copy made the .bib it corrects (refcheck.adopt_corrected_copy)."""
    original, backup = adopt_corrected_copy(copy)
    adopted = f"adopted: {original} now holds the corrected copy; the original is {backup}\n"
    return RefsRun(None, adopted)


def run_check(
    options: RefsOptions,
    bibliography: Bibliography,
    add_statements: Callable[[CheckDocument], None],
    progress: Progress,
    started: float,
) -> RefsRun:
    """Check what the paper's files gave (`bibliography`), let `add_statements` put the cited
    statements in (the papers wing), write --fix, --report and --out and say what stdout shows.
    `started`: time.monotonic() when the paper began to be read. BadInput, before any check, for
    an output that cannot be written."""
    found = bibliography
    inputs = [Path(name) for name in options.files] + [bib.path for bib in found.bibs]
    fix = options.fix
    if fix == "":  # --fix alone: beside the one .bib, else no copy (the table says why)
        fix = str(default_fix_path(found.bibs[0])) if len(found.bibs) == 1 else None
    elif fix is not None and len(found.bibs) != 1:
        raise BadInput(
            f"--fix needs exactly one .bib to correct; these files give {len(found.bibs)}",
            code="usage",
        )
    distinct_outputs({"--fix": fix, "--report": options.report, "--out": options.out})
    if fix:
        check_output(fix, "--fix", inputs, FIX_MARK)
    if options.report:
        check_output(options.report, "--report", inputs, REPORT_MARK)
    if options.out:
        output_folder(options.out, "--out")
    if len(found.files) == 1:
        files_read = Path(found.files[0]["file"]).name
    else:
        files_read = ", ".join(f"{Path(f['file']).name} ({f['entries']})" for f in found.files)
    progress(f"read {len(found.references)} entries from {files_read}")
    for warning in found.warnings:
        progress(f"warning: {warning}")

    document = check_bibliography(found, Verifier(use_cache=options.use_cache), progress)
    add_statements(document)
    if fix:
        _write_fix(document, found, fix, options.fix)
    if options.report:
        write_file(options.report, report_markdown(document))
    progress(f"done in {time.monotonic() - started:.1f} s")
    if options.out:
        write_file(options.out, dumps(marked(document)))  # a later --out may replace it
    if options.json:
        progress(checked_line(document))  # the table's last lines say it; JSON holds the counts
        output = dumps(document)
    else:
        shown = (
            decision_lines(document, options.report) if options.decisions else table_lines(document)
        )
        output = "\n".join(shown + fix_lines(document, options.fix)) + "\n"
    failures = strict_failures(document, options.strict) if options.strict else []
    if not failures:
        return RefsRun(document, output)
    option = "--strict=corrected" if options.strict == "corrected" else "--strict"
    failure = f"{option}: {'; '.join(failures)} (exit 1)"
    progress(failure)
    return RefsRun(document, output, failure)


def _write_fix(document: CheckDocument, found: Bibliography, fix: str, asked: str | None) -> None:
    """The corrected copy of the one .bib, written to `fix` (not for a clean .bib when --fix came
    alone), and the document's `fix` part saying what it holds."""
    bib = found.bibs[0]
    updates = fix_updates(document, bib)
    written = fix if updates or asked else None  # --fix alone: no copy of a clean .bib
    if written:
        write_file(written, corrected_copy(bib, updates, fix_header(bib, updates), FIX_MARK))
    corrected = sum(not is_marked(changes) for changes in updates.values())
    document["fix"] = {"file": written, "entries_changed": sorted(updates), "corrected": corrected}
