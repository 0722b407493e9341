#!/usr/bin/env python3
"""Verify candidate references against arXiv and Semantic Scholar: the anti-hallucination gate.

A reference is CONFIRMED only when an API returned, in this run (or from the response cache within
its TTL), a record whose title, authors and year match what the candidate says; the API's record
then replaces the candidate's metadata. Everything else is UNCONFIRMED with a reason: an
identifier that belongs to a different paper is named; a title search that finds a different
paper offers it as a `suggestion`, never promoted. The rules: protocols/matching-rules.md.

Input: JSON files ('-' or none: stdin), each either a list of candidates
(schemas/candidates.schema.json: optional key, and any of title, authors, year, arxiv_id, doi,
s2_paper_id, source) or an `--out` file of arxiv_query.py / s2_lookup.py, taken as it is.

Calls: all arXiv ids in one arXiv id_list look-up, all identifiers in one Semantic Scholar
/paper/batch (500 a call); title searches only for candidates without a resolvable identifier.
A service that keeps failing is reported in `source_errors` and the other one verifies alone.

Output: schemas/verification.schema.json, one result per candidate in input order; with --out FILE
the JSON goes to FILE and stdout gets one line per result: `CONFIRMED KEY` when the paper is as
the candidate gave it, `CONFIRMED KEY = key | year | first author | title` when the candidate
turned out to be that paper (`= key` alone when its line is above), `UNCONFIRMED KEY: reason`.

Example:
  verify_batch.py candidates.json arxiv-hits.json --out verification.json

Exit codes: 0 verified (UNCONFIRMED results included), 2 bad input (candidates, an --out that
cannot be written), 4 environment (dependencies could not be installed, the cache folder is
unusable), 5 internal error.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools import bootstrap

bootstrap.ensure()

from mathtools import cli  # noqa: E402


def main(argv):
    parser = cli.ArgumentParser(description=__doc__)
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help="candidates or search-result JSON ('-': stdin)"
    )
    parser.add_argument("--out", metavar="FILE", help="write the JSON here; print a summary")
    parser.add_argument("--no-cache", action="store_true", help="ask the APIs even when cached")
    args = parser.parse_args(argv)

    from mathtools.verification import Verifier, load_candidates, summary_lines

    candidates, inputs = load_candidates(args.files or ["-"])
    document = Verifier(use_cache=not args.no_cache).verify(candidates, inputs)
    cli.emit(document, args.out, summary_lines(document))


if __name__ == "__main__":
    cli.run(main)
