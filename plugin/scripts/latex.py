#!/usr/bin/env python3
"""Check a problem's OUTPUT.tex before it goes out, and compile it to OUTPUT.pdf.

subcommands:
  check     fails (exit 1) when OUTPUT.tex cites a key that is not in references.bib, or one
            that is not a confirmed, verified reference of LITERATURE.md (every key of the .bib
            with \\nocite{*}), when references.bib holds a command LaTeX would run (\\input,
            \\write, \\def, ...), when a theorem-like environment (theorem, lemma, proposition,
            corollary, or one declared with \\newtheorem that is not a conjecture, remark,
            definition or example) lacks a \\label{pf:<step>} naming a PROOF.md step that is
            not [~] and does not depend, directly or through other steps, on one that is (or is
            marked \\speculative or [~]), or when the document is not a complete article
            (--compile: then, when it passes, compile as below, in the same call)
  compile   runs latexmk (else pdflatex + bibtex) in the problem folder when installed; otherwise
            says how to compile it (exit 0 either way unless LaTeX itself fails: exit 1)

example:
  latex.py check --problem twin-primes && latex.py compile --problem twin-primes

Exit codes: 0 ok, 1 violations or a failed compilation (listed in the output), 2 bad input,
4 environment (dependencies could not be installed), 5 internal error.
"""

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import bootstrap, errors

bootstrap.ensure()

from mathtools import cli  # noqa: E402
from mathtools.core.tex import cited_keys  # noqa: E402
from mathtools.research import latex, problemdir, sandbox  # noqa: E402

sandbox.without_secrets()  # LaTeX could \input /proc/<our pid>/environ: no key there


def check(folder: Path, then_compile: bool = False) -> int:
    tex, violations = latex.check_folder(folder)
    answer: dict[str, Any] = {
        "file": str(folder / "OUTPUT.tex"),
        "ok": not violations,
        "cited": cited_keys(tex),
        "violations": violations,
    }
    if then_compile and not violations:
        answer["compile"] = latex.compile_pdf(folder)
        built = answer["compile"]
        if not (built["compiled"] or "how" in built):
            cli.emit(answer)
            return errors.EXIT_VIOLATIONS
    cli.emit(answer)
    return errors.EXIT_VIOLATIONS if violations else errors.EXIT_OK


def main(argv: Sequence[str]) -> int | None:
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()
    checking = commands.add_parser("check", help="check citations, [~] claims and completeness")
    checking.add_argument(
        "--compile", action="store_true", help="when the check passes, compile (as `compile`)"
    )
    build = commands.add_parser("compile", help="compile OUTPUT.tex to OUTPUT.pdf")
    build.add_argument("--timeout", type=float, default=300, help="seconds per LaTeX run")
    args, _, folder = problemdir.parse(parser, commands, argv)
    if args.command == "check":
        return check(folder, args.compile)
    if not (folder / "OUTPUT.tex").exists():
        raise errors.BadInput(f"{folder / 'OUTPUT.tex'} does not exist yet", code="file_not_found")
    result = latex.compile_pdf(folder, args.timeout)
    cli.emit(result)
    return errors.EXIT_OK if result["compiled"] or "how" in result else errors.EXIT_VIOLATIONS


if __name__ == "__main__":
    cli.run(main)
