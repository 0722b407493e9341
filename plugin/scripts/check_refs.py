#!/usr/bin/env python3
"""Check the bibliography of an existing paper against arXiv, Semantic Scholar, zbMATH Open,
Crossref and OpenAlex.

FILE is a .bib, a .bbl, an amsrefs .ltb, or a .tex, read with the files it inputs (\\input,
\\include, \\subfile, \\import, in its folder): the .bib files its \\bibliography{...} /
\\addbibresource{...} name, else the NAME.bbl beside it when they are not there, else its
\\bibitems; or one arXiv id or URL (arXiv:2405.16513:
the paper's LaTeX source is fetched and its own bibliography checked, with the keys its text
cites); or one PDF (its reference list, read with pdftotext from poppler-utils, each entry kept
as written and checked as a free-text citation; the table says how sure the split was).

Every entry goes through the verification gate (verify_batch.py's: one batch per source for the
entries with an arXiv id, DOI or Zbl number, a title search for the others) and is
reported, by key, as:
  CONFIRMED    the sources hold this paper as cited;
  CORRECTED    a real paper, cited wrong: each field that differs (title, authors, year, venue,
               volume, pages, DOI, a published version of a preprint), as cited -> as recorded;
  UNCONFIRMED  not found as cited: the reason, and any real paper a title search suggests.
Also reported: two entries for one work (the same DOI, arXiv id or title, a key used twice, a
preprint and its journal version) and keys the .tex cites that no bibliography holds.

Output: a table on stdout (progress on stderr); --json prints the full JSON instead
(schemas/check_refs.schema.json); --out FILE writes it to FILE; --report FILE writes a Markdown
report; --fix OUT.bib writes a corrected copy of the .bib, edited in place: only the corrected
values (from the sources' records) change, and each UNCONFIRMED entry gets a field
`checkrefs = {UNCONFIRMED: why}` that no bibliography style prints (the user's note is left as
written), plus one comment line at the top; layout,
`@type {`, line ends (CRLF stays CRLF) and every other byte are as they were. The input files
are never modified. Responses are cached (MATH_CACHE_DIR), so a second run asks the services
nothing.

Examples:
  check_refs.py paper.tex
  check_refs.py refs.bib --fix refs.checked.bib --report check.md
  check_refs.py paper.tex --cited-only --json
  check_refs.py arXiv:2405.16513
  check_refs.py submission.pdf --report check.md

Cited statements: each statement cited by number (Theorem, Lemma, Proposition, Corollary,
Definition, Remark; "Thm. 2.3", "Lemmas 4.1 and 4.2"), in a citation's note (\\cite[Theorem
2.3]{key}, amsrefs' \\cite{key}*{Theorem 2.3}) or in prose ("Theorem 2.3 of \\cite{key}", "by
\\cite{key}, Theorem 2.3,", "In \\cite{key} (Theorem 2.3)"; marked "in prose"), whose entry is
confirmed with an arXiv id, is looked up in that paper's arXiv LaTeX source (a Section or
equation number, "§3", is listed as not checked: those numbers are not read from sources): the
row shows the statement (number, note, first words; --json carries its text), or says that the
arXiv version read has no such number and names its nearest numbers (a journal version may
number differently: never called wrong). One cited of several keys at once ("Section 3
of~\\cite{a,b}") is named "ambiguous", not checked. --decisions prints each statement found as a
`use N:` block, the sentence citing it (file, line) beside the statement's text, for the model to
judge (commands/check-refs.md); entries a failing service left unchecked are one `pending:` line
with the next step.

Every run ends with "checked N of M entries (K cited)": the entries checked, those read, and the
keys the paper cites (when a paper was read).

--strict (for CI and before submission): exit 1 when any entry is UNCONFIRMED or pending (a
service was unavailable), a cited key is in no bibliography, a statement cited by number is not
found as numbered, or nothing was checked, after writing every output as without it;
--strict=corrected: also when any entry is CORRECTED.

Exit codes: 0 checked (UNCONFIRMED entries included, unless --strict), 1 with --strict: what it
fails on (above), 2 bad input (a missing, empty, binary or unparsable file, named with its line;
an output path that is an input, a file we did not write, or in a folder that does not exist; a
corrected copy older than its original, for --adopt; an arXiv paper without a LaTeX source),
3 a service failing, 4 environment (pdftotext missing for a PDF), 5 internal error.
"""

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import (  # noqa: E402
    EXIT_VIOLATIONS,
    BadInput,
    distinct_outputs,
    dumps,
    ensure,
    marked,
    write_file,
)

ensure()

from mathtools import cli  # noqa: E402


def main(argv: Sequence[str]) -> int | None:
    parser = cli.ArgumentParser(description=__doc__)
    # nargs="*", not "+": an unknown option is then reported before a missing FILE
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="a .bib, .bbl, .ltb, .tex or .pdf file, or one arXiv id or URL (arXiv:2405.16513)",
    )
    parser.add_argument(
        "--cited-only", action="store_true", help="check only the keys the .tex cites"
    )
    parser.add_argument("--json", action="store_true", help="print the full JSON, not the table")
    parser.add_argument("--out", metavar="FILE", help="write the full JSON to FILE")
    parser.add_argument("--report", metavar="FILE", help="write a Markdown report to FILE")
    parser.add_argument(
        "--fix",
        metavar="OUT.bib",
        nargs="?",
        const="",
        help="write a corrected copy of the .bib to OUT.bib (alone: NAME.checked.bib beside it, "
        "when there is one .bib and something to correct)",
    )
    parser.add_argument(
        "--strict",
        action="store_const",
        const="unconfirmed",
        help="exit 1 when any entry is UNCONFIRMED or pending, a cited key is missing, a cited "
        "statement is not found or nothing was checked (for CI, before submission); "
        "--strict=corrected: also when any entry is CORRECTED",
    )
    parser.add_argument("--strict-corrected", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--decisions",
        action="store_true",
        help="print only the rows that need a decision (UNCONFIRMED, CORRECTED, duplicates, "
        "missing, never cited, statements not found as numbered), each with its next step; "
        "the whole table goes to --report",
    )
    parser.add_argument(
        "--adopt",
        metavar="COPY.bib",
        help="make a corrected copy the .bib it corrects (the original kept as "
        "NAME.before-check-refs.bib; refused when the .bib changed after the copy was "
        "written); nothing is checked",
    )
    parser.add_argument("--no-cache", action="store_true", help="ask the APIs even when cached")
    levels = {"--strict=unconfirmed": "--strict", "--strict=corrected": "--strict-corrected"}
    args = parser.parse_args([levels.get(arg, arg) for arg in argv])
    if args.adopt:
        from mathtools.gate import adopt_corrected_copy

        original, backup = adopt_corrected_copy(args.adopt)
        print(f"adopted: {original} now holds the corrected copy; the original is {backup}")
        return None
    if not args.files:
        parser.error("give the .bib, .bbl, .tex or .pdf file, or the arXiv id, to check")
    strict = "corrected" if args.strict_corrected else args.strict

    from mathtools.bibliography import corrected_copy
    from mathtools.gate import (
        FIX_MARK,
        REPORT_MARK,
        Verifier,
        check_bibliography,
        check_output,
        checked_line,
        decision_lines,
        default_fix_path,
        fix_header,
        fix_lines,
        fix_updates,
        is_marked,
        output_folder,
        report_markdown,
        strict_failures,
        table_lines,
    )
    from mathtools.papers import add_statements, read_paper_input

    def progress(message: str) -> None:
        print(f"check_refs: {message}", file=sys.stderr, flush=True)

    started = time.monotonic()
    paper = read_paper_input(args.files, cited_only=args.cited_only, use_cache=not args.no_cache)
    found = paper.bibliography
    inputs = [Path(name) for name in args.files] + [bib.path for bib in found.bibs]
    fix = args.fix
    if fix == "":  # --fix alone: beside the one .bib, else no copy (the table says why)
        fix = str(default_fix_path(found.bibs[0])) if len(found.bibs) == 1 else None
    elif fix is not None and len(found.bibs) != 1:
        raise BadInput(
            f"--fix needs exactly one .bib to correct; these files give {len(found.bibs)}",
            code="usage",
        )
    distinct_outputs({"--fix": fix, "--report": args.report, "--out": args.out})
    if fix:
        check_output(fix, "--fix", inputs, FIX_MARK)
    if args.report:
        check_output(args.report, "--report", inputs, REPORT_MARK)
    if args.out:
        output_folder(args.out, "--out")
    if len(found.files) == 1:
        files_read = Path(found.files[0]["file"]).name
    else:
        files_read = ", ".join(f"{Path(f['file']).name} ({f['entries']})" for f in found.files)
    progress(f"read {len(found.references)} entries from {files_read}")
    for warning in found.warnings:
        progress(f"warning: {warning}")

    document = check_bibliography(found, Verifier(use_cache=not args.no_cache), progress)
    add_statements(document, paper, progress)
    if fix:
        bib = found.bibs[0]
        updates = fix_updates(document, bib)
        written = fix if updates or args.fix else None  # --fix alone: no copy of a clean .bib
        if written:
            header = fix_header(bib, updates)
            text = corrected_copy(bib, updates, header, FIX_MARK)
            write_file(written, text)
        corrected = sum(not is_marked(changes) for changes in updates.values())
        document["fix"] = {
            "file": written,
            "entries_changed": sorted(updates),
            "corrected": corrected,
        }
    if args.report:
        write_file(args.report, report_markdown(document))
    progress(f"done in {time.monotonic() - started:.1f} s")
    if args.out:
        write_file(args.out, dumps(marked(document)))  # a later --out may replace it
    if args.json:
        progress(checked_line(document))  # the table's last lines say it; JSON holds the counts
        sys.stdout.write(dumps(document))
    else:
        shown = decision_lines(document, args.report) if args.decisions else table_lines(document)
        lines = shown + fix_lines(document, args.fix)
        sys.stdout.write("\n".join(lines) + "\n")
    failures = strict_failures(document, strict) if strict else []
    if failures:
        option = "--strict=corrected" if strict == "corrected" else "--strict"
        progress(f"{option}: {'; '.join(failures)} (exit 1)")
        return EXIT_VIOLATIONS
    return None


if __name__ == "__main__":
    cli.run(main)
