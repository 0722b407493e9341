#!/usr/bin/env python3
"""Check a problem's OUTPUT.tex before it goes out, and compile it to OUTPUT.pdf.

subcommands:
  check     fails (exit 1) when OUTPUT.tex cites a key that is not in references.bib, or one
            that is not a confirmed, verified reference of LITERATURE.md (every key of the .bib
            with \\nocite{*}), when references.bib holds a command LaTeX would run (\\input,
            \\write, \\def, ...), when an environment that prints as a theorem, lemma,
            proposition or corollary (a \\newtheorem or \\newenvironment of one included; not a
            conjecture, remark, definition or example) lacks a \\label{pf:<step>} naming a
            PROOF.md step that is not [~] and does not depend, directly or through other steps, on
            one that is (or is marked \\speculative or [~]), when the abstract announces a result
            the article states as no such theorem, when a file it \\input's is outside the
            problem folder, or when the document is not a complete article or has an empty
            bibliography (the files it \\input's are checked with it)
            (--compile: then, when it passes, compile as below, in the same call, and read the
            PDF's text (pdftotext): each Theorem, Lemma, Proposition, Corollary or Claim it
            prints, numbered or not, must state a step the referee's seal gave [P], or show its
            lower tier ([V], [S], [~]); kind unproved_claim_in_pdf, as the move to DONE checks it)
  compile   runs latexmk (else pdflatex + bibtex) in the problem folder, with no shell escape and
            TeX's files confined to the folder, within --timeout seconds in all; prints the first
            LaTeX error when it fails (exit 1), and records in OUTPUT.compile.json the digests of
            the sources it compiled and of the PDF it made: the move to DONE needs that record to
            match OUTPUT.tex and OUTPUT.pdf as they are then. Without TeX it says how to install
            it (exit 0), or, with "tex_only": true in .math/config.json, marks OUTPUT.tex as not
            compiled and records that instead

example:
  latex.py check --problem twin-primes && latex.py compile --problem twin-primes

Exit codes: 0 ok, 1 violations or a failed compilation (listed in the output), 2 bad input,
4 environment (dependencies could not be installed), 5 internal error.
"""

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import EXIT_OK, EXIT_VIOLATIONS, ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.core import cited_keys  # noqa: E402
from mathtools.research import (  # noqa: E402
    check_folder,
    compile_pdf,
    parse_problem_command,
    pdf_claim_violations,
)
from mathtools.sandbox import without_secrets  # noqa: E402

without_secrets()  # LaTeX could \input /proc/<our pid>/environ: no key there


def check(folder: Path, then_compile: bool = False) -> int:
    tex, violations = check_folder(folder)
    answer: dict[str, Any] = {
        "file": str(folder / "OUTPUT.tex"),
        "ok": not violations,
        "cited": cited_keys(tex),
        "violations": violations,
    }
    if then_compile and not violations:
        answer["compile"] = compile_pdf(folder)
        if "error" in answer["compile"]:
            cli.emit(answer)
            return EXIT_VIOLATIONS
        if answer["compile"].get("compiled"):  # the claims the PDF prints, as a reader sees them
            violations = answer["violations"] = pdf_claim_violations(folder)
            answer["ok"] = not violations
    cli.emit(answer)
    return EXIT_VIOLATIONS if violations else EXIT_OK


def main(argv: Sequence[str]) -> int | None:
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()
    checking = commands.add_parser("check", help="check citations, [~] claims and completeness")
    checking.add_argument(
        "--compile", action="store_true", help="when the check passes, compile (as `compile`)"
    )
    build = commands.add_parser("compile", help="compile OUTPUT.tex to OUTPUT.pdf")
    build.add_argument(
        "--timeout", type=float, default=300, help="seconds for the whole compilation"
    )
    args, _, folder = parse_problem_command(parser, commands, argv)
    if args.command == "check":
        return check(folder, args.compile)
    result = compile_pdf(folder, args.timeout)
    cli.emit(result)
    return EXIT_VIOLATIONS if "error" in result else EXIT_OK


if __name__ == "__main__":
    cli.run(main)
