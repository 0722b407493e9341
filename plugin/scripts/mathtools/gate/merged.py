"""The sources' records of one cited identifier, weighed (weigh(): when they disagree, the
sources that agree with each other decide), and those of the identified paper merged into one:
the record of the first source (in SOURCES order) that has a title, its empty fields completed
from the others'. The gate (verification.py) compares the candidate with it again."""

from __future__ import annotations

from typing import Any

from ..core import SOURCES, Paper, named
from .lookups import ComparedRecord
from .matching import compare, describe

COMPLETED_FIELDS = (
    "doi",
    "s2_paper_id",
    "corpus_id",
    "venue",
    "volume",
    "pages",
    "journal",
    "publication_date",
    "citation_count",
    "open_access_pdf",
    "zbl",
    "document_type",
    "journal_ref",
    "retraction_notice",
)


def canonical(findings: list[ComparedRecord]) -> Paper:
    """The identifying record of the first source in SOURCES order that has a title (arXiv's
    when it identified the paper; a licence-restricted zbMATH record has none), its empty fields
    completed from the other sources' records: authors and year, identifiers, venue, Zbl number
    and MSC codes (all records the APIs returned)."""
    first: dict[str, ComparedRecord] = {}
    for finding in findings:
        first.setdefault(finding.source, finding)
    ordered = sorted(first.values(), key=lambda f: (not f.paper.title, SOURCES.index(f.source)))
    paper, others = ordered[0].paper, [f.paper for f in ordered[1:]]
    if not others:
        return paper
    merged = Paper.from_dict(paper.to_dict())
    for other in others:
        # a record without usable authors or year (matching.compare: no evidence) takes them
        # from the first record that has them
        merged.authors = merged.authors or list(other.authors)
        merged.year = merged.year if merged.year is not None else other.year
        for name in COMPLETED_FIELDS:
            if getattr(merged, name) is None:
                setattr(merged, name, getattr(other, name))
        merged.external_ids = {**other.external_ids, **merged.external_ids}
        merged.venue_aliases = list(dict.fromkeys([*merged.venue_aliases, *other.venue_aliases]))
        merged.fields_of_study = merged.fields_of_study or list(other.fields_of_study)
        merged.msc = merged.msc or list(other.msc)
    return merged


def weigh(
    findings: list[ComparedRecord],
) -> tuple[list[ComparedRecord], list[ComparedRecord], bool]:
    """The records one cited identifier returned: (those that identify the cited paper
    (matching.Match.identifies), those that hold another paper, whether the first decide).

    They decide when their sources are at least as many as the other records' sources: one
    source answering another paper for an identifier that as many others confirm is outvoted,
    not believed (a faulty or mismatched record). Else the identifier contradicts the citation."""
    agreeing = [f for f in findings if f.match.identifies(by_identifier=True)]
    other = [f for f in findings if f not in agreeing]
    decide = bool(agreeing) and len({f.source for f in agreeing}) >= len({f.source for f in other})
    return agreeing, other, decide


def outvoted(label: str, losing: list[ComparedRecord], winning: list[ComparedRecord]) -> str:
    """What the reason says of the side weigh() outvoted: `Semantic Scholar says DOI:... is
    'Another' by ... (1901), outvoted by zbMATH Open and Crossref`."""
    says = "says" if len({f.source for f in losing}) == 1 else "say"
    return (
        f"{named(f.source for f in losing)} {says} {label} is {describe(losing[0].paper)}, "
        f"outvoted by {named(f.source for f in winning)}"
    )


def completed(
    found: ComparedRecord, others: list[ComparedRecord], cited: dict[str, Any]
) -> ComparedRecord:
    """The identified paper (`found`, whose record names no venue) completed from other sources'
    records of it (lookups.Sources.type_records: its venue, document type, volume and pages)
    and compared with the citation again: what these records add is the venue's word, so the
    venue, volume and pages discrepancies they show join those `found` had."""
    first = ComparedRecord(found.paper.source, found.paper, found.match, found.urls)
    paper = canonical([first, *others])
    had = {d["field"] for d in found.match.discrepancies}
    match = compare(cited, paper)
    match.discrepancies = found.match.discrepancies + [
        d
        for d in match.discrepancies
        if d["field"] in ("venue", "volume", "pages") and d["field"] not in had
    ]
    sources = [s for s in SOURCES if s in {*found.sources, *(f.source for f in others)}]
    urls = list(dict.fromkeys([*found.urls, *(u for f in others for u in f.urls)]))
    return ComparedRecord(found.source, paper, match, urls, sources)
