"""What a merge writes into LITERATURE.md's fields from a verification result (merging.py applies
it): the Source, Venue and Corrected lines, the note a Verified line takes when a service was
down, the Search History's Results, and what a candidate cites that identifies it."""

from __future__ import annotations

import re

from ..core import NAMES, SOURCES, PaperDict, VerificationDocument, VerificationResult, ordered

BOTH = "both"  # the Source field of a paper both sources confirmed, when there were two
CODES = {name: code for code, name in NAMES.items()}


def source_field(sources: set[str]) -> str:
    """The Source field: the sources' names in the registry's order (`arXiv, Crossref`), for a
    set of source codes, names or earlier Source fields; a field naming no source is kept as it
    is. An earlier field's `both`, written when there were two sources, is arXiv and Semantic
    Scholar."""
    codes: set[str] = set()
    unknown = []
    for given in filter(None, sources):
        for part in filter(None, (p.strip() for p in re.split(r",| and ", given))):
            if part == BOTH:
                codes |= {"arxiv", "semantic_scholar"}
            elif part in NAMES or part in CODES:
                codes.add(CODES.get(part, part))
            else:
                unknown.append(given)
    return ", ".join(NAMES[code] for code in ordered(codes)) or (unknown or ["unknown"])[0]


def venue_text(paper: PaperDict) -> str:
    """`Journal of Number Theory 169, 86-102`: the API's venue, volume and pages ("" when the
    API knows no venue)."""
    venue = paper.get("venue")
    if not venue:
        return ""
    text = venue + (f" {paper['volume']}" if paper.get("volume") else "")
    return text + (f", {paper['pages']}" if paper.get("pages") else "")


def corrected_text(result: VerificationResult) -> str:
    """A CORRECTED result's line: how the citation was wrong, field by field ("" otherwise)."""
    if result["status"] != "CORRECTED":
        return ""
    wrong = "; ".join(f"{d['field']}: {d['note']}" for d in result.get("discrepancies", []))
    return f"cited wrongly as {result['key']} ({wrong}); this entry is the API's record"


def unavailable(verified: VerificationDocument) -> list[str]:
    """The sources that failed during the verification (`source_errors`), in source order."""
    return ordered(verified.get("source_errors") or {})


def degraded_note(verified: VerificationDocument) -> str:
    """What a Verified line adds when a service was down (protocol section 10):
    ` (checked against arXiv only; Semantic Scholar unavailable)`; "" when none was."""
    down = unavailable(verified)
    if not down:
        return ""
    checked = [NAMES.get(s, s) for s in verified["sources_queried"] if s not in down]
    missing = " and ".join(NAMES.get(s, s) for s in down)
    return f" (checked against {' and '.join(checked) or 'no service'} only; {missing} unavailable)"


def confirmed_by(verified: VerificationDocument) -> dict[str, int]:
    """The Search History's Results when no run store counted the search's results: the
    verified papers each source confirmed (a result's `sources`; a paper several confirmed
    counts for each), in the registry's order."""
    counts = {source: 0 for source in SOURCES}
    for result in verified["results"]:
        for source in result.get("sources") or []:
            counts[source] = counts.get(source, 0) + 1
    return counts
