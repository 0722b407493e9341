"""What the sources' records make of one candidate, for verification.py's Verifier: the one paper
the identifying records make (identified_record) and its verdict (identified_outcome), what an
identifier that resolved nowhere does to it (missing_ids_outcome), which services answered for
such identifiers (askers, unresolved_ids), and the verdict on a title search's leads
(judge_title_search)."""

from __future__ import annotations

from ..core import BY_CODE, NAMES, REGISTRY, SOURCES, Discrepancy, Paper, Verdict, named
from .candidates import Candidate
from .lookups import ComparedRecord, Sources, compared, identifier_kind
from .matching import YEAR_TOLERANCE, Match, cites_published, describe, published_years
from .merged import canonical
from .verdicts import PENDING, Outcome


def identified_record(candidate: Candidate, findings: list[ComparedRecord]) -> ComparedRecord:
    """One paper from the findings that identify it: the sources' records merged, and the
    candidate compared with the merged record (every year and venue name either gives)."""
    paper = canonical(findings)
    match = compared(candidate, paper)
    # A year, title or author list one source's own record agrees with is no discrepancy
    # (Semantic Scholar's publication year where the canonical record, arXiv's, has the
    # preprint's; Crossref's whole author list where Semantic Scholar's misses a name): agreement
    # is counted per source, and the paper takes the agreeing record's authors.
    agreed = {name for f in findings for name in f.match.agreed()}
    if "authors" in agreed and any(d["field"] == "authors" for d in match.discrepancies):
        paper = Paper.from_dict(paper.to_dict())
        paper.authors = next(list(f.paper.authors) for f in findings if f.match.authors_agree)
    match.discrepancies = [d for d in match.discrepancies if d["field"] not in agreed]
    if "year" in agreed:  # a source's record of the version cited gives the cited year
        match.year_ok, match.year_unpublished = True, False
    elif candidate.year is not None and not candidate.citation:
        journal_year(match, candidate.year, findings, cites_published(candidate.cited()))
    return ComparedRecord(
        source_of(findings), paper, match, urls_of(findings), _sources_of(findings)
    )


def journal_year(match: Match, year: int, findings: list[ComparedRecord], published: bool) -> None:
    """The published version's year cited (`published`) against every source's: the one they
    all give corrects it (also where the merged record, arXiv's, knows only the preprint);
    sources giving different years leave it as cited, saying so."""
    if not published:
        return
    by_source = {NAMES.get(f.source, f.source): sorted(published_years(f.paper)) for f in findings}
    given = {name: years for name, years in by_source.items() if years}
    years = {y for found in given.values() for y in found}
    if not years:
        return
    preprint = any(f.paper.arxiv_id for f in findings)  # one off accepted, as check_year does
    if any(abs(year - y) <= (YEAR_TOLERANCE if preprint else 0) for y in years):
        match.year_ok, match.year_unpublished = True, False
        match.discrepancies = [d for d in match.discrepancies if d["field"] != "year"]
        return
    others = [d for d in match.discrepancies if d["field"] != "year"]
    if len(years) > 1:
        match.discrepancies = others
        match.year_unpublished = False
        said = ", ".join(f"{name} {'/'.join(map(str, found))}" for name, found in given.items())
        match.year_disputed = f"the sources disagree on the journal's year ({said})"
        return
    (recorded,) = years
    match.year_unpublished, match.year_ok, match.year_diff = False, False, recorded - year
    note = f"cited {year}, the journal's year is {recorded}"
    match.discrepancies = [
        *others,
        Discrepancy(field="year", cited=year, record=recorded, note=note),
    ]


def identified_outcome(found: ComparedRecord, how: str) -> Outcome:
    """The paper is identified: CONFIRMED when it is as cited, else CORRECTED with the
    discrepancies. Either way the API's record replaces the candidate's metadata."""
    status: Verdict = "CORRECTED" if found.match.discrepancies else "CONFIRMED"
    sources = found.sources or [found.source]
    return Outcome(
        status,
        f"{how}: {found.match.reason} (via {named(sources)})",
        source=found.source,
        urls=found.urls,
        match=found.match,
        paper=found.paper,
        sources=sources,
        how=how,
    )


def judge_title_search(
    sources: Sources, candidate: Candidate, earlier: Outcome | None, leads: list[ComparedRecord]
) -> Outcome | None:
    """A paper found by title identifies the candidate when the title is exact and the
    year agrees (matching.Match.identifies); two different such papers are ambiguous."""
    papers: dict[str, list[ComparedRecord]] = {}
    for lead in leads:
        if lead.match.identifies(by_identifier=False):
            papers.setdefault(_identity(lead.paper, papers), []).append(lead)
    exact = [group for group in papers.values() if any(f.match.ok for f in group)]
    chosen = exact if exact else list(papers.values())
    if len(chosen) == 1:
        found = identified_record(candidate, chosen[0])
        identified = bool(candidate.identifiers())
        how = ("found by title" if candidate.title else "found by its citation") + (
            ", listing the cited identifier"
            if identified and _carries(found.paper, candidate)
            else ""
        )
        id_verdict = missing_ids_outcome(
            sources, candidate.identifiers(), found, "a title search found"
        )
        return id_verdict or identified_outcome(found, how)
    if len(chosen) > 1:
        papers_named = "; ".join(describe(group[0].paper) for group in chosen[:3])
        best = chosen[0][0]
        return Outcome(
            "UNCONFIRMED",
            f"ambiguous: {len(chosen)} papers have this title ({papers_named})",
            source=best.source,
            urls=urls_of(leads),
            match=best.match,
            suggestion=best.paper,
        )
    if not leads:
        return earlier
    best = max(leads, key=lambda f: f.match.title_score or 0.0)
    closest = f"{describe(best.paper)} ({best.match.reason}), offered as a suggestion"
    missing, unchecked = unresolved_ids(sources, candidate)
    if unchecked:
        what = [f"{', '.join(missing)} not found"] if missing else []
        what += [
            f"{', '.join(unchecked)} could not be checked",
            f"a title search found {closest}",
        ]
        reason = f"{PENDING} ({named(unchecked.values())} unavailable; {'; '.join(what)})"
    elif missing:
        reason = f"{', '.join(missing)} not found; a title search found {closest}"
    else:
        # a title that is a real paper's: say what else differs, never "no paper matches"
        differs = "with this title" if candidate.title else "the citation names"
        titled = f"a paper {differs} differs:" if best.match.title_ok else ""
        opening = titled or "no paper matches; the closest title found is"
        reason = f"{opening} {closest}{degraded_note(sources)}"
    return Outcome(
        "UNCONFIRMED",
        reason,
        source=best.source,
        urls=urls_of(leads),
        match=best.match,
        suggestion=best.paper,
    )


def missing_ids_outcome(
    sources: Sources, unresolved: list[tuple[str, str | None, str]], found: ComparedRecord, how: str
) -> Outcome | None:
    """What an identifier that came back from no source, and that the identified record
    (`found`, which `how` introduces in the reason) does not list, does to the verdict.
    Pending (UNCONFIRMED) when the service that holds such ids failed. When it answered, the
    identifier does not exist: with the title agreeing the paper is still identified and the
    identifier is a discrepancy (arxiv_id, doi), which this adds to `found`; otherwise (or
    for a paperId) UNCONFIRMED, the paper offered as a suggestion. None when the verdict
    can go on."""
    paper = found.paper
    absent = [
        (label, _unavailable(sources, arxiv_id, s2_key), arxiv_id, s2_key)
        for label, arxiv_id, s2_key in unresolved
        if not _carries_id(paper, arxiv_id, s2_key)
    ]
    if not absent:
        return None
    unchecked = {label: failed for label, failed, _, _ in absent if failed is not None}
    if not unchecked and found.match.title_ok:
        fields = [_id_field(label) for label, _, _, _ in absent]
        if all(fields):
            for (label, _, arxiv_id, key), name in zip(absent, fields, strict=True):
                value = getattr(paper, str(name))  # arxiv_id, doi, zbl: all(fields)
                which = f"{askers(sources, arxiv_id, key)} returned nothing for it"
                note = f"{label} does not exist ({which}); the paper's is {value or 'none'}"
                found.match.discrepancies.append(
                    {
                        "field": str(name),  # all(fields): each is a field name
                        "cited": label.split(":", 1)[1],
                        "record": value,
                        "note": note,
                    }
                )
            return None
    if unchecked:
        reason = (
            f"{PENDING} ({named(unchecked.values())} unavailable; "
            f"{', '.join(unchecked)} could not be checked; "
            f"{how} {describe(paper)})"
        )
    else:
        which = "; ".join(
            f"{label} does not exist ({askers(sources, arxiv_id, key)} returned nothing for it)"
            for label, _, arxiv_id, key in absent
        )
        reason = f"{which}; {how} {describe(paper)}"
    return Outcome(
        "UNCONFIRMED",
        reason,
        source=found.source,
        urls=found.urls,
        match=found.match,
        suggestion=paper,
    )


def unresolved_ids(sources: Sources, candidate: Candidate) -> tuple[list[str], dict[str, str]]:
    """A candidate's identifiers (none of which resolved): the labels the service holding
    them answered for (not found), and the labels it could not check, with that service."""
    missing, unchecked = [], {}
    for label, arxiv_id, key in candidate.identifiers():
        failed = _unavailable(sources, arxiv_id, key)
        if failed is None:
            missing.append(label)
        else:
            unchecked[label] = failed
    return missing, unchecked


def askers(sources: Sources, arxiv_id: str | None, key: str) -> str:
    """The services whose identifier look-up answered for one identifier's kind."""
    kind = identifier_kind(arxiv_id, key)
    answered = sources.looked_up - set(sources.errors)
    return named(s for s in answered if kind in BY_CODE[s].looked_up)


def _unavailable(sources: Sources, arxiv_id: str | None, key: str) -> str | None:
    """A service holding such identifiers whose look-up did not answer, or None: only when
    all of them answered can an identifier be said not to exist. The holders are the
    sources whose row rules such ids out: arXiv for arXiv ids (Semantic Scholar knows them
    too, but not every one), zbMATH Open for Zbl numbers, Semantic Scholar for its own ids,
    and for DOIs Semantic Scholar's index, Crossref's registry and OpenAlex (Crossref lacks
    DataCite's DOIs, which OpenAlex holds: none of them rules one out alone)."""
    kind = identifier_kind(arxiv_id, key)
    set_aside = sources.set_aside.get(f"arXiv:{arxiv_id}" if arxiv_id else key, {})
    for holder in [s.code for s in REGISTRY if kind in s.rules_out]:
        # a source that failed in this run (a malformed answer after its look-up, say)
        # rules nothing out: its earlier "nothing" is no more believed than the rest; nor does
        # one that answered the identifier with another's record (Sources.set_aside)
        if holder not in sources.looked_up or holder in sources.errors or holder in set_aside:
            return holder
    return None


def degraded_note(sources: Sources) -> str:
    if not sources.errors:
        return ""
    return f"; {named(sources.errors)} unavailable, so checked without it"


def _carries(paper: Paper, candidate: Candidate) -> bool:
    """Whether a record lists one of the candidate's identifiers."""
    return any(_carries_id(paper, a, s2) for _, a, s2 in candidate.identifiers())


def _id_field(label: str) -> str | None:
    """The discrepancy field of an identifier label ("arXiv:..." -> "arxiv_id", "Zbl:..." ->
    "zbl"), None for a Semantic Scholar paperId (no field: a wrong one leaves the candidate
    UNCONFIRMED)."""
    return {"arXiv": "arxiv_id", "DOI": "doi", "Zbl": "zbl"}.get(label.split(":", 1)[0])


def _identity(paper: Paper, groups: dict[str, list[ComparedRecord]]) -> str:
    """The key of the group of findings that hold the same paper as `paper` (a shared arXiv
    id, DOI or paperId), else the paper's own key."""
    for key, group in groups.items():
        other = group[0].paper
        if any(
            mine and mine == theirs
            for mine, theirs in (
                (paper.arxiv_id, other.arxiv_id),
                (paper.doi, other.doi),
                (paper.s2_paper_id, other.s2_paper_id),
                (paper.zbl, other.zbl),
            )
        ):
            return key
    return paper.key


def _carries_id(paper: Paper, arxiv_id: str | None, s2_key: str) -> bool:
    """Whether a record lists one identifier (as Candidate.identifiers() gives it)."""
    if arxiv_id:
        return paper.arxiv_id == arxiv_id
    kind, _, value = s2_key.partition(":")
    if not value:
        return (paper.s2_paper_id or "").lower() == s2_key.lower()
    listed = {
        "DOI": paper.doi,
        "ARXIV": paper.arxiv_id,
        "ZBL": paper.zbl,
        "CorpusId": None if paper.corpus_id is None else str(paper.corpus_id),
    }.get(kind)
    return listed is not None and listed.lower() == value.lower()


def _sources_of(findings: list[ComparedRecord]) -> list[str]:
    """The sources of `findings`, in SOURCES order."""
    found = {f.source for f in findings}
    return [s for s in SOURCES if s in found]


def source_of(findings: list[ComparedRecord]) -> str:
    """`source`: the first source (in SOURCES order) whose record is among the findings;
    `sources` names them all."""
    return _sources_of(findings)[0]


def urls_of(findings: list[ComparedRecord]) -> list[str]:
    return list(dict.fromkeys(url for f in findings for url in f.urls))
