"""The gate's answers as they are written: each candidate's Outcome, its entry of the
verification document (schemas/verification.schema.json), and the compact view the model reads
(verification_summary_lines). verification.py and identification.py judge; this module only
writes what they decided."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core import (
    IDENTIFIED,
    NAMES,
    Paper,
    PaperDict,
    Verdict,
    VerificationDocument,
    VerificationResult,
    summary_line,
)
from .candidates import Candidate
from .matching import Match

PENDING = "API error - verification pending"


@dataclass
class Outcome:
    """The gate's answer for one candidate: its verdict, why, the records behind it."""

    status: Verdict
    reason: str
    source: str | None = None
    urls: list[str] = field(default_factory=list)
    match: Match | None = None
    paper: Paper | None = None  # the identified paper's record: CONFIRMED and CORRECTED only
    resolved_to: Paper | None = None  # the different paper a cited identifier points to
    suggestion: Paper | None = None
    sources: list[str] = field(default_factory=list)  # CONFIRMED, CORRECTED: who agreed
    how: str = ""  # CONFIRMED, CORRECTED: how the paper was identified, the reason's opening


def retracted_note(paper: PaperDict) -> str:
    """`; RETRACTED (notice DOI:...)` for a retracted paper's record, else "": said wherever the
    paper is, and it is never a [V] source."""
    notice = paper.get("retraction_notice")
    return f"; RETRACTED (notice DOI:{notice})" if notice else ""


def result_of(candidate: Candidate, outcome: Outcome) -> VerificationResult:
    """One candidate's entry of the verification document (schemas/verification.schema.json)."""
    match = outcome.match or Match()
    result: VerificationResult = {
        "key": candidate.key,
        "status": outcome.status,
        "reason": outcome.reason,
        "source": outcome.source,
        "verified_via": outcome.urls,
        "checks": match.checks(),
        "paper": outcome.paper.to_dict() if outcome.paper else None,
        "sources": list(outcome.sources),
        "candidate": candidate.given,
    }
    if outcome.status == "CORRECTED":
        result["discrepancies"] = list(match.discrepancies)
    if outcome.resolved_to is not None:
        result["resolved_to"] = outcome.resolved_to.to_dict()
    if outcome.suggestion is not None:
        result["suggestion"] = outcome.suggestion.to_dict()
    return result


def verification_summary_lines(document: VerificationDocument) -> list[str]:
    """The compact view for the model: counts, one line per result, the service errors.

    A confirmed candidate's line is its key alone when the paper is as the candidate gave it
    (same key, year, first author and title: the caller has that line already), `KEY =
    PAPER-KEY` when it is a paper shown above, else `KEY = key | year | first author | title`.
    A CORRECTED line names the paper the same way, then each discrepancy: `field: note`."""
    summary = document["summary"]
    head = (
        f"verified {summary['total']}: {summary['confirmed']} CONFIRMED, "
        f"{summary['corrected']} CORRECTED, {summary['unconfirmed']} UNCONFIRMED"
    )
    if summary.get("pending"):
        head += f" ({summary['pending']} pending: API error)"
    lines = [head]
    shown: set[str] = set()  # paper keys whose line the caller has
    for result in document["results"]:
        status, key, paper = result["status"], result["key"], result["paper"]
        if status in IDENTIFIED and paper is not None:  # the schema: an identified one has it
            candidate = {**(result.get("candidate") or {}), "key": key}
            if key == paper["key"] and summary_line(paper) == summary_line(candidate):
                line = f"{status} {key}"
            elif paper["key"] in shown:
                line = f"{status} {key} = {paper['key']}"
            else:
                line = f"{status} {key} = {summary_line(paper)}"
            shown.add(paper["key"])
            fixes = "; ".join(f"{d['field']}: {d['note']}" for d in result.get("discrepancies", []))
            fixes = fixes if len(fixes) <= 200 else fixes[:199] + "…"
            fixes = "; ".join(x for x in (retracted_note(paper).lstrip("; "), fixes) if x)
            lines.append(f"{line} -- {fixes}" if fixes else line)
        else:
            reason = result["reason"]
            reason = reason if len(reason) <= 200 else reason[:199] + "…"
            lines.append(f"UNCONFIRMED {result['key']}: {reason}")
    for source, message in document.get("source_errors", {}).items():
        lines.append(f"{NAMES[source]} unavailable: {message}")
    return lines
