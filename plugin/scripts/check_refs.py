#!/usr/bin/env python3
"""Check the bibliography of an existing paper against arXiv, Semantic Scholar, zbMATH Open and
Crossref.

FILE is a .bib, a .bbl, or a .tex (its \\bibitems, or the .bib files its \\bibliography{...} /
\\addbibresource{...} name). Every entry goes through the verification gate (verify_batch.py's:
one batch per source for the entries with an arXiv id, DOI or Zbl number, a title search for the
others) and is reported, by key, as:
  CONFIRMED    the sources hold this paper as cited;
  CORRECTED    a real paper, cited wrong: each field that differs (title, authors, year, venue,
               volume, pages, DOI, a published version of a preprint), as cited -> as recorded;
  UNCONFIRMED  not found as cited: the reason, and any real paper a title search suggests.
Also reported: two entries for one work (the same DOI, arXiv id or title, a key used twice, a
preprint and its journal version) and keys the .tex cites that no bibliography holds.

Output: a table on stdout (progress on stderr); --json prints the full JSON instead
(schemas/check_refs.schema.json); --out FILE writes it to FILE; --report FILE writes a Markdown
report; --fix OUT.bib writes a corrected copy of the .bib, edited in place: only the corrected
values (from the sources' records) and the note of each UNCONFIRMED entry (note = {UNCONFIRMED:
... -- the user's own note, as written}) change, plus one comment line at the top; layout,
`@type {`, line ends (CRLF stays CRLF) and every other byte are as they were. The input files
are never modified. Responses are cached (MATH_CACHE_DIR), so a second run asks the services
nothing.

Examples:
  check_refs.py paper.tex
  check_refs.py refs.bib --fix refs.checked.bib --report check.md
  check_refs.py paper.tex --cited-only --json

--strict (for CI and before submission): exit 1 when any entry is UNCONFIRMED or pending (a
service was unavailable), after writing every output as without it.

Exit codes: 0 checked (UNCONFIRMED entries included, unless --strict), 1 with --strict: an entry
UNCONFIRMED or pending, 2 bad input (a missing, empty, binary or
unparsable file, named with its line; an output path that is an input or a file we did not
write), 4 environment, 5 internal error.
"""

import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import bootstrap, errors, files

bootstrap.ensure()

from mathtools import cli  # noqa: E402


def main(argv: Sequence[str]) -> int | None:
    parser = cli.ArgumentParser(description=__doc__)
    # nargs="*", not "+": an unknown option is then reported before a missing FILE
    parser.add_argument("files", nargs="*", metavar="FILE", help="a .bib, .bbl or .tex file")
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
        action="store_true",
        help="exit 1 when any entry is UNCONFIRMED or pending (for CI, before submission)",
    )
    parser.add_argument("--no-cache", action="store_true", help="ask the APIs even when cached")
    args = parser.parse_args(argv)
    if not args.files:
        parser.error("give the .bib, .bbl or .tex file to check")

    from mathtools.gate import bibcopy, refcheck
    from mathtools.gate.verification import Verifier

    def progress(message: str) -> None:
        print(f"check_refs: {message}", file=sys.stderr, flush=True)

    started = time.monotonic()
    found = refcheck.load(args.files, cited_only=args.cited_only)
    inputs = [Path(name) for name in args.files] + [bib.path for bib in found.bibs]
    fix = args.fix
    if fix == "":  # --fix alone: beside the one .bib, else no copy (the table says why)
        fix = str(refcheck.default_fix_path(found.bibs[0])) if len(found.bibs) == 1 else None
    elif fix is not None and len(found.bibs) != 1:
        raise errors.BadInput(
            f"--fix needs exactly one .bib to correct; these files give {len(found.bibs)}",
            code="usage",
        )
    files.distinct_outputs({"--fix": fix, "--report": args.report, "--out": args.out})
    if fix:
        refcheck.check_output(fix, "--fix", inputs, refcheck.FIX_MARK)
    if args.report:
        refcheck.check_output(args.report, "--report", inputs, refcheck.REPORT_MARK)
    if len(found.files) == 1:
        read = Path(found.files[0]["file"]).name
    else:
        read = ", ".join(f"{Path(f['file']).name} ({f['entries']})" for f in found.files)
    progress(f"read {len(found.references)} entries from {read}")
    for warning in found.warnings:
        progress(f"warning: {warning}")

    document = refcheck.check(found, Verifier(use_cache=not args.no_cache), progress)
    if fix:
        bib = found.bibs[0]
        updates = refcheck.fix_updates(document, bib)
        written = fix if updates or args.fix else None  # --fix alone: no copy of a clean .bib
        if written:
            header = refcheck.fix_header(bib, updates)
            text = bibcopy.corrected_copy(bib, updates, header, refcheck.FIX_MARK)
            files.write_file(written, text)
        document["fix"] = {"file": written, "entries_changed": sorted(updates)}
    if args.report:
        files.write_file(args.report, refcheck.markdown(document))
    progress(f"done in {time.monotonic() - started:.1f} s")
    if args.out:
        files.write_file(
            args.out, files.dumps(files.marked(document))
        )  # a later --out may replace it
    if args.json:
        sys.stdout.write(files.dumps(document))
    else:
        lines = refcheck.table_lines(document) + refcheck.fix_lines(document, args.fix)
        sys.stdout.write("\n".join(lines) + "\n")
    failing = document["summary"]["unconfirmed"]  # a pending entry is UNCONFIRMED too
    if args.strict and failing:
        entries = "entry" if failing == 1 else "entries"
        progress(f"--strict: {failing} {entries} UNCONFIRMED or pending (exit 1)")
        return errors.EXIT_VIOLATIONS
    return None


if __name__ == "__main__":
    cli.run(main)
