#!/usr/bin/env python3
"""Write a problem's references.bib from the CONFIRMED references of its LITERATURE.md only.

Confirmed references are the REF entries: verify_batch.py's CONFIRMED and CORRECTED results (a
CORRECTED one carries the API's metadata, not the miscitation; docs/matching-rules.md).

Unconfirmed references (UREF-NNN), and confirmed entries without a verification stamp, are left
out and listed in the output. Keys are stable across runs (`family` + `year` + first title word,
a letter added by REF order when two collide); arXiv papers carry eprint, archivePrefix and
primaryClass; DOIs, zbMATH's Zbl numbers (`zbl`) and MSC codes (`msc2020`) are included where
known; a book is a @book, everything else @misc. Every value is escaped: a title cannot add a field
or a command. The same references always give the same file, byte for byte.

Entries, @string and @preamble blocks and comments added to references.bib by hand are kept, as
written, after the exported entries (`kept_by_hand` lists their keys; latex.py check still fails
when OUTPUT.tex cites one that is not a confirmed reference). A hand-added entry whose key the
export now gives a confirmed reference, or a file that does not parse, is refused, naming it, and
the file is left alone.

example:
  bib_export.py --problem twin-primes

Exit codes: 0 written (or already up to date), 2 bad input (no problem, a malformed
LITERATURE.md, a references.bib whose hand-added entries cannot be kept), 4 environment
(dependencies could not be installed, LITERATURE.md locked by another process), 5 internal
error.
"""

import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.litdoc import export  # noqa: E402
from mathtools.research import add_arguments, resolve  # noqa: E402


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    add_arguments(parser)
    args = parser.parse_args(argv)
    _, folder = resolve(args.problem, args.dir)
    result = export(folder)
    cli.emit(result)


if __name__ == "__main__":
    cli.run(main)
