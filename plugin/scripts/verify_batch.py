#!/usr/bin/env python3
"""Verify candidate references against arXiv, Semantic Scholar, zbMATH Open, Crossref and
OpenAlex: the anti-hallucination gate.

Each candidate comes out CONFIRMED, CORRECTED (a real paper, miscited: `discrepancies` says what
was wrong, field by field) or UNCONFIRMED; what the three outcomes mean, and every rule behind
them: docs/matching-rules.md. The API's record replaces the candidate's metadata.

Input: JSON files ('-' or none: stdin), each either a list of candidates
(schemas/candidates.schema.json: optional key, and any of title, authors, year, arxiv_id, doi,
s2_paper_id, zbl, venue, volume, pages, source; or, instead of a title, a whole free-text
citation) or an `--out` file of a search script, taken as it is. A candidate that cannot be
verified (an impossible year, a malformed identifier, nothing to verify) gets its own UNCONFIRMED
result; the others go on.

Calls: all arXiv ids in one arXiv id_list look-up, all identifiers in one Semantic Scholar
/paper/batch (500 a call), all DOIs in one Crossref filter=doi: request, Zbl numbers and whatever
the others did not return in one zbMATH Open search, the DOIs still unidentified in one OpenAlex
filter=doi: request; title searches (S2, arXiv, zbMATH, Crossref,
each only for what the one before did not match) for candidates without a resolvable identifier;
a free-text citation goes whole to Crossref, then Semantic Scholar's match (docs/matching-rules.md
section 10).
Any source whose record identifies the paper verifies it; `sources` names all that agreed.
A service that keeps failing is reported in `source_errors` and the others verify without it.

Output: schemas/verification.schema.json, one result per candidate in input order; with --out FILE
the JSON goes to FILE and stdout gets one line per result: `CONFIRMED KEY` when the paper is as
the candidate gave it, `CONFIRMED KEY = key | year | first author | title` when the candidate
turned out to be that paper (`= key` alone when its line is above), `CORRECTED KEY = ... -- field:
note; ...`, `UNCONFIRMED KEY: reason`.

Example:
  verify_batch.py candidates.json arxiv-hits.json --out verification.json

Exit codes: 0 verified (UNCONFIRMED results included), 2 bad input (input that is not a list
of candidates at all, an --out that cannot be written), 4 environment (dependencies could not be
installed, the cache folder is unusable), 5 internal error.
"""

import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help="candidates or search-result JSON ('-': stdin)"
    )
    parser.add_argument("--out", metavar="FILE", help="write the JSON here; print a summary")
    parser.add_argument("--no-cache", action="store_true", help="ask the APIs even when cached")
    args = parser.parse_args(argv)

    from mathtools.gate import Verifier, load_candidates, verification_summary_lines

    candidates, inputs = load_candidates(args.files or ["-"])
    document = Verifier(use_cache=not args.no_cache).verify(candidates, inputs)
    cli.emit(document, args.out, verification_summary_lines(document))


if __name__ == "__main__":
    cli.run(main)
