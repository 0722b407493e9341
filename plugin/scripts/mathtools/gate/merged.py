"""The sources' records of one identified paper merged into one: the record of the first source
(in SOURCES order) that has a title, its empty fields completed from the others'. The gate
(verification.py) compares the candidate with it again."""

from __future__ import annotations

from ..core.records import Paper
from ..core.sources import SOURCES
from .lookups import ComparedRecord

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
    completed from the other sources' records: identifiers, venue, Zbl number and MSC codes (all
    records the APIs returned)."""
    first: dict[str, ComparedRecord] = {}
    for finding in findings:
        first.setdefault(finding.source, finding)
    ordered = sorted(first.values(), key=lambda f: (not f.paper.title, SOURCES.index(f.source)))
    paper, others = ordered[0].paper, [f.paper for f in ordered[1:]]
    if not others:
        return paper
    merged = Paper.from_dict(paper.to_dict())
    for other in others:
        for name in COMPLETED_FIELDS:
            if getattr(merged, name) is None:
                setattr(merged, name, getattr(other, name))
        merged.external_ids = {**other.external_ids, **merged.external_ids}
        merged.venue_aliases = list(dict.fromkeys([*merged.venue_aliases, *other.venue_aliases]))
        merged.fields_of_study = merged.fields_of_study or list(other.fields_of_study)
        merged.msc = merged.msc or list(other.msc)
    return merged
