"""Years by version (issue 49): a citation naming a journal, or a DOI of the published version,
cites the published version, and its year is the journal's; the arXiv year is no evidence
against it. A preprint citation is compared with the preprint; sources giving the journal
different years leave the year as cited, saying so; a year that is truly wrong is corrected.

The two real cases a referee met: Haim-Kislev, "On the symplectic size of convex polytopes",
Geom. Funct. Anal. 29 (2019), arXiv:1712.03494 (December 2017), cited as 2008.10111 cites it;
Bezdek and Bezdek, "Shortest billiard trajectories", Geom. Dedicata 141 (2009), arXiv:1110.4324
(2011), checked end to end in test_check_refs_papers.py. The records below are SYNTHESIZED in
the shapes the services' parsers give (no recording holds 1712.03494), from those facts."""

from __future__ import annotations

import re

import pytest
from mathtools.core.records import Paper
from mathtools.gate.candidates import candidate
from mathtools.gate.identification import identified_record
from mathtools.gate.lookups import ComparedRecord, compared
from mathtools.gate.matching import compare
from mathtools.services.arxivrecords import parse_feed
from support import worlds

TITLE = "On the symplectic size of convex polytopes"
ARXIV = Paper(
    source="arxiv",
    title=TITLE,
    authors=["Pazit Haim-Kislev"],
    year=2017,
    arxiv_id="1712.03494",
    published="2017-12-10T12:00:00Z",
    updated="2017-12-10T12:00:00Z",
)
GAFA = {"title": TITLE, "authors": ["P. Haim-Kislev"], "year": 2019, "venue": "Geom. Funct. Anal."}


def journal_record(source: str, year: int, **fields) -> Paper:
    """The published version as Crossref or zbMATH Open gives it (SYNTHESIZED)."""
    return Paper(
        source=source,
        title=TITLE,
        authors=["Pazit Haim-Kislev"],
        year=year,
        venue="Geometric and Functional Analysis",
        volume="29",
        pages="440-463",
        **fields,
    )


def identified(cited: dict, *papers: Paper):
    """The gate's reading of `cited` against the records one source each returned."""
    found = candidate({"key": "haim-kislev", **cited}, 1, "test")
    findings = [
        ComparedRecord(paper.source, paper, compared(found, paper), [], [paper.source])
        for paper in papers
    ]
    return identified_record(found, findings).match


@pytest.mark.parametrize("eprint", [None, "1712.03494"])
def test_a_journal_year_is_never_corrected_to_the_preprints(eprint):
    cited = {**GAFA, "arxiv_id": eprint} if eprint else GAFA
    match = compare(cited, ARXIV)
    assert "year" not in [d["field"] for d in match.discrepancies]
    assert match.identifies(by_identifier=False)  # a title search still finds it
    assert "year: the journal's, not compared" in match.reason
    merged = identified(cited, ARXIV)
    assert "year" not in [d["field"] for d in merged.discrepancies]


def test_the_journals_year_from_a_published_record_confirms_the_cited_one():
    match = identified({**GAFA, "arxiv_id": "1712.03494"}, ARXIV, journal_record("crossref", 2019))
    assert match.discrepancies == [] and match.year_ok


def test_a_truly_wrong_journal_year_is_corrected_to_the_journals_not_the_preprints():
    cited = {**GAFA, "year": 2015, "arxiv_id": "1712.03494"}
    match = identified(cited, ARXIV, journal_record("crossref", 2019))
    [year] = [d for d in match.discrepancies if d["field"] == "year"]
    assert (year["cited"], year["record"]) == (2015, 2019)


def test_sources_that_disagree_on_the_journals_year_leave_it_as_cited():
    cited = {**GAFA, "year": 2021, "arxiv_id": "1712.03494"}
    match = identified(
        cited, ARXIV, journal_record("crossref", 2019), journal_record("zbmath", 2018)
    )
    assert "year" not in [d["field"] for d in match.discrepancies]
    assert "the sources disagree on the journal's year (Crossref 2019, zbMATH Open 2018)" in (
        match.reason
    )


def test_a_published_doi_cites_the_published_version():
    cited = {k: v for k, v in GAFA.items() if k != "venue"} | {"doi": "10.1000/gafa.example"}
    match = compare(cited, ARXIV)
    assert "year" not in [d["field"] for d in match.discrepancies]
    arxiv_doi = {**cited, "doi": "10.48550/arXiv.1712.03494"}  # arXiv's own DOI: the preprint
    assert [d["field"] for d in compare(arxiv_doi, ARXIV).discrepancies] == ["year"]


def test_a_preprint_citation_is_compared_with_the_preprint():
    cited = {"title": TITLE, "authors": ["P. Haim-Kislev"], "year": 2015, "arxiv_id": "1712.03494"}
    [year] = compare(cited, ARXIV).discrepancies
    assert (year["field"], year["cited"], year["record"]) == ("year", 2015, 2017)
    assert compare({**cited, "year": 2017}, ARXIV).discrepancies == []


def _recorded_published_later() -> list[Paper]:
    """The recorded arXiv entries whose journal reference gives a year none of the arXiv
    versions has (HALLMARK's arXiv-versus-venue pairs: a preprint and its published version
    in different years)."""
    found = []
    for entry in worlds.load_index().arxiv.values():
        _, papers = parse_feed((worlds.INVENTED_FEED_HEAD + entry.xml + "</feed>").encode())
        paper = papers[0]
        journal = {int(y) for y in re.findall(r"\b(?:19|20)\d\d\b", paper.journal_ref or "")}
        arxiv = {int(stamp[:4]) for stamp in (paper.published, paper.updated) if stamp}
        if len(journal) == 1 and not journal & arxiv and paper.venue:
            found.append(paper)
    return found


@pytest.mark.needs_shared("recordings")
def test_recorded_preprints_published_in_another_year_keep_their_journal_year():
    pairs = _recorded_published_later()
    assert len(pairs) == 6, [p.arxiv_id for p in pairs]  # two published before their preprint
    two_off = [
        p
        for p in pairs
        if abs(p.year - int(re.findall(r"\b(?:19|20)\d\d\b", p.journal_ref)[-1])) >= 2
    ]
    assert len(two_off) == 3  # 1706.08286, 1906.00673, 2311.09714: corrected when so cited
    for paper in pairs:
        (journal_year,) = {int(y) for y in re.findall(r"\b(?:19|20)\d\d\b", paper.journal_ref)}
        cited = {
            "title": paper.title,
            "authors": paper.authors,
            "venue": paper.venue,
            "arxiv_id": paper.arxiv_id,
        }
        as_published = compare({**cited, "year": journal_year}, paper)
        assert as_published.discrepancies == [], (paper.arxiv_id, as_published.reason)
        # the journal named with the preprint's year: one off is accepted (matching-rules §3);
        # further off it is wrong, corrected to the journal's year, never to the preprint's
        wrong = compare({**cited, "year": paper.year}, paper)
        years = [d for d in wrong.discrepancies if d["field"] == "year"]
        if abs(journal_year - paper.year) <= 1:
            assert years == [], paper.arxiv_id
        else:
            assert [d["record"] for d in years] == [journal_year], paper.arxiv_id
        # the preprint cited with its own year: as cited
        preprint = {k: v for k, v in cited.items() if k != "venue"} | {"year": paper.year}
        assert compare(preprint, paper).discrepancies == [], paper.arxiv_id
