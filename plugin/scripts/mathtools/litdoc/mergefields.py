"""What a merge writes into LITERATURE.md's fields from a verification result (merging.py applies
it): the Source, Venue and Corrected lines, the note a Verified line takes when a service was
down, the Search History's result counts, and what a candidate cites that identifies it."""

from __future__ import annotations

from ..core import NAMES, PaperDict, VerificationDocument, VerificationResult
from .literature import BOTH

SOURCE_ORDER = ("arxiv", "semantic_scholar")


def source_field(sources: set[str]) -> str:
    """The Source field, `arXiv`, `Semantic Scholar` or `both`, for a set of sources (ids or
    display names)."""
    names = {NAMES.get(s, s) for s in sources if s}
    if BOTH in names or len(names & set(NAMES.values())) > 1:
        return BOTH
    return next(iter(names & set(NAMES.values())), BOTH)


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
    errors = verified.get("source_errors") or {}
    return [source for source in SOURCE_ORDER if source in errors] + sorted(
        set(errors) - set(SOURCE_ORDER)
    )


def degraded_note(verified: VerificationDocument) -> str:
    """What a Verified line adds when a service was down (protocol section 10):
    ` (checked against arXiv only; Semantic Scholar unavailable)`; "" when none was."""
    down = unavailable(verified)
    if not down:
        return ""
    checked = [NAMES.get(s, s) for s in verified["sources_queried"] if s not in down]
    missing = " and ".join(NAMES.get(s, s) for s in down)
    return f" (checked against {' and '.join(checked) or 'no service'} only; {missing} unavailable)"


def result_counts(verified: VerificationDocument) -> tuple[int, int]:
    """(arXiv results, S2 results) counted from the results: `both` counts for each source, a
    result no source returned (source null) for neither."""
    arxiv = sum(1 for r in verified["results"] if r.get("source") in ("arxiv", BOTH))
    s2 = sum(1 for r in verified["results"] if r.get("source") in ("semantic_scholar", BOTH))
    return arxiv, s2
