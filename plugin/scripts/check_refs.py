#!/usr/bin/env python3
"""Check the bibliography of an existing paper against arXiv, Semantic Scholar, zbMATH Open,
Crossref and OpenAlex.

FILE is a .bib, a .bbl, an amsrefs .ltb, or a .tex, read with the files it inputs (\\input,
\\include, \\subfile, \\import, in its folder): the .bib files its \\bibliography{...} /
\\addbibresource{...} name, else the NAME.bbl beside it when they are not there, else its
\\bibitems; or one arXiv id or URL (arXiv:2405.16513: the paper's LaTeX source is fetched and its
own bibliography checked, with the keys its text cites); or one PDF (its reference list, read with
pdftotext from poppler-utils, each entry kept as written and checked as a free-text citation; the
table says how sure the split was).

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
written), plus one comment line at the top; layout, `@type {`, line ends (CRLF stays CRLF) and
every other byte are as they were. The input files are never modified. Responses are cached
(MATH_CACHE_DIR), so a second run asks the services nothing.

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

import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import EXIT_VIOLATIONS, ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402


def progress(message: str) -> None:
    print(f"check_refs: {message}", file=sys.stderr, flush=True)


def main(argv: Sequence[str]) -> int | None:
    from mathtools.gate import parse_refs_options

    options = parse_refs_options(cli.ArgumentParser(description=__doc__), argv)
    from mathtools.papers import check_refs  # after parsing: --help reads no more

    run = check_refs(options, progress)
    sys.stdout.write(run.output)
    return EXIT_VIOLATIONS if run.failure else None


if __name__ == "__main__":
    cli.run(main)
