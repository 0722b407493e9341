"""Verify candidate references against arXiv, Semantic Scholar, zbMATH Open and Crossref: the
anti-hallucination gate.

Each candidate comes out CONFIRMED, CORRECTED or UNCONFIRMED (docs/matching-rules.md):
a record a source API returned, in this run (or from the response cache within its TTL), that
identifies the paper beyond doubt (mathtools.gate.matching.Match.identifies) confirms it when it is
the paper as cited and corrects it, field by field, when the citation gets something wrong.
Everything else is UNCONFIRMED with a reason; a candidate that cannot be verified at all is its
own UNCONFIRMED result and costs no call (candidates.py reads and checks them).

The calls, as few as the APIs allow, are lookups.py's (Sources) and titlesearches.py's. Any
source whose record identifies the paper verifies it; `sources` names every source whose record
agreed. A zbMATH record whose title or author names are withheld (the licence sentence) is
compared on what it still carries, its identifiers and year, and keeps the cited title and
authors.

Combining the sources: each source's batched look-up is a Lookup (records by identifier label);
each identifier is judged on its own over all of them. It identifies the paper when a record
returned for it (by any source) does, and its sources are at least as many as those of the records
holding another paper (merged.weigh: the sources that agree decide, and the reason names the one
outvoted); it contradicts when records came back and none does, or they are outvoted; it
resolves nowhere when no source returned a record for it although the services that hold such ids
answered (arXiv for arXiv ids, Semantic Scholar and Crossref for DOIs, zbMATH Open for Zbl numbers,
Semantic Scholar for the rest) and none of them failed in the run (a malformed answer included).
One contradicting identifier makes the candidate UNCONFIRMED, with a reason naming the paper it
really points to (reported as `resolved_to`; `paper` is only ever an identified record). One that
resolves nowhere is a discrepancy when the title identifies the paper, else makes the candidate
UNCONFIRMED (unless the identified record lists it). The identifying records of all sources are
merged into one (merged.canonical) and compared again. A title search identifies a paper only by
its exact title and an agreeing year; a different paper it finds is a `suggestion`, never
promoted.

Degradation: a service that still fails after the HTTP layer's retries is not asked again in this
run (`source_errors` says what it answered); the others verify without it, each reason saying so,
and a candidate no answering service could check is UNCONFIRMED, "API error - verification pending".

The output (schemas/verification.schema.json, written by verdicts.py) depends only on the input
and the API responses, apart from `verified_at`.
"""

from __future__ import annotations

from ..core import (
    BY_CODE,
    NAMES,
    REGISTRY,
    SOURCES,
    VERDICTS,
    JSONObject,
    Paper,
    Verdict,
    VerificationDocument,
    named,
    split_authors,
    stamp,
)
from .candidates import Candidate
from .lookups import ComparedRecord, Lookup, Sources, compared, identifier_kind
from .matching import describe
from .merged import canonical, completed, outvoted, weigh
from .titlesearches import CITATION_SOURCES, title_leads
from .venuematch import unvouched
from .verdicts import Outcome, result_of, retracted_note

PENDING = "API error - verification pending"


class Verifier:
    """Plans the calls for a list of candidates, makes them (lookups.Sources), and judges every
    candidate."""

    def __init__(self, use_cache: bool = True):
        self.sources = Sources(use_cache=use_cache)

    def verify(
        self, candidates: list[Candidate], inputs: JSONObject | None = None
    ) -> VerificationDocument:
        """The verification document (schemas/verification.schema.json) for `candidates`."""
        lookups = [lookup for lookup in self.sources.look_up(candidates) if lookup is not None]
        outcomes: list[Outcome | None] = []
        searches: list[int] = []
        for position, candidate in enumerate(candidates):
            if candidate.problem:
                outcomes.append(Outcome("UNCONFIRMED", f"not verifiable: {candidate.problem}"))
                continue
            outcome = self._judge_identifiers(candidate, lookups)
            if outcome is None and (candidate.title or candidate.citation):
                searches.append(position)
            outcomes.append(outcome)
        if searches:
            self._title_searches(candidates, outcomes, searches)
        self._check_venues(candidates, outcomes)
        for candidate, outcome in zip(candidates, outcomes, strict=True):
            if outcome is not None and outcome.paper is not None:  # CONFIRMED or CORRECTED
                _fill_withheld(outcome, candidate)
                outcome.reason += retracted_note(outcome.paper.to_dict())
                # said once every source has been asked (or has failed)
                outcome.reason += self._degraded_note()
        results = [
            result_of(candidate, outcome or self._nothing_found(candidate))
            for candidate, outcome in zip(candidates, outcomes, strict=True)
        ]
        counts = {status: sum(r["status"] == status for r in results) for status in VERDICTS}
        document: VerificationDocument = {
            "verified_at": stamp(),
            "sources_queried": [s for s in SOURCES if s in self.sources.queried],
            "results": [],
            "summary": {},
        }
        if self.sources.errors:
            document["source_errors"] = dict(sorted(self.sources.errors.items()))
        if inputs is not None:
            document["inputs"] = inputs
        document["results"] = results
        document["summary"] = {
            "total": len(results),
            "confirmed": counts["CONFIRMED"],
            "corrected": counts["CORRECTED"],
            "unconfirmed": counts["UNCONFIRMED"],
            "pending": sum(r["reason"].startswith(PENDING) for r in results),
        }
        return document

    # -- judging --------------------------------------------------------------------------

    def _judge_identifiers(self, candidate: Candidate, lookups: list[Lookup]) -> Outcome | None:
        """The outcome from the identifier look-ups, or None when no identifier resolved."""
        identifiers = candidate.identifiers()
        if not identifiers:
            return None
        identified: list[ComparedRecord] = []
        unresolved = []  # identifiers no record came back for
        outvoted_notes = []  # a source's record of another paper, outvoted (merged.weigh)
        for label, arxiv_id, s2_key in identifiers:
            findings = [
                ComparedRecord(
                    lookup.source,
                    lookup.papers[label],
                    compared(candidate, lookup.papers[label]),
                    lookup.urls(label),
                )
                for lookup in lookups
                if label in lookup.papers
            ]
            agreeing, other, identifies = weigh(findings)
            if findings and not identifies:
                wrong = other[0]
                reason = f"{label} is {describe(wrong.paper)}, not the cited paper"
                reason += f" ({wrong.match.reason})"
                reason += f"; {outvoted(label, agreeing, other)}" if agreeing else ""
                return Outcome(
                    "UNCONFIRMED",
                    reason,
                    source=_source_of(findings),
                    urls=_urls_of(findings),
                    match=wrong.match,
                    resolved_to=wrong.paper,
                )
            if not findings:
                unresolved.append((label, arxiv_id, s2_key))
            outvoted_notes += [outvoted(label, other, agreeing)] if other else []
            identified += agreeing
        if not identified:
            return None
        found = self._found(candidate, identified)
        resolved = [ident[0] for ident in identifiers if ident not in unresolved]
        outcome = self._missing(unresolved, found, f"{', '.join(resolved)} is")
        outcome = outcome or self._identified(found, candidate.labels())
        outcome.reason += "".join(f"; {note}" for note in outvoted_notes)
        return outcome

    def _found(self, candidate: Candidate, findings: list[ComparedRecord]) -> ComparedRecord:
        """One paper from the findings that identify it: the sources' records merged, and the
        candidate compared with the merged record (every year and venue name either gives)."""
        paper = canonical(findings)
        match = compared(candidate, paper)
        # A year or title one source's own record agrees with is no discrepancy (Semantic
        # Scholar's publication year where the canonical record, arXiv's, has the preprint's).
        agreed = {name for f in findings for name in f.match.agreed()}
        match.discrepancies = [d for d in match.discrepancies if d["field"] not in agreed]
        return ComparedRecord(
            _source_of(findings), paper, match, _urls_of(findings), _sources_of(findings)
        )

    def _check_venues(self, candidates: list[Candidate], outcomes: list[Outcome | None]) -> None:
        """A journal the identifying records cannot vouch for (venuematch.unvouched) is checked
        with zbMATH Open's and Crossref's records of the paper (Sources.type_records)."""
        wanted = {
            position: outcome.paper
            for position, (candidate, outcome) in enumerate(zip(candidates, outcomes, strict=True))
            if outcome is not None
            and outcome.paper is not None
            and unvouched(candidate.cited(), outcome.paper, outcome.sources)
        }
        for position, others in self.sources.type_records(wanted).items() if wanted else ():
            outcome = outcomes[position]
            if not others or outcome is None or outcome.paper is None or outcome.match is None:
                continue
            opening = f"{outcome.how}: {outcome.match.reason} (via {named(outcome.sources)})"
            found = ComparedRecord(
                outcome.source or "", outcome.paper, outcome.match, outcome.urls, outcome.sources
            )
            new = self._identified(
                completed(found, others, candidates[position].cited()), outcome.how
            )
            new.reason += outcome.reason[len(opening) :]  # the outvoted sources, if any
            outcomes[position] = new

    def _identified(self, found: ComparedRecord, how: str) -> Outcome:
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

    def _missing(
        self, unresolved: list[tuple[str, str | None, str]], found: ComparedRecord, how: str
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
            (label, self._unavailable(arxiv_id, s2_key), arxiv_id, s2_key)
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
                    which = f"{self._askers(arxiv_id, key)} returned nothing for it"
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
                f"{label} does not exist ({self._askers(arxiv_id, key)} returned nothing for it)"
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

    def _askers(self, arxiv_id: str | None, key: str) -> str:
        """The services whose identifier look-up answered for one identifier's kind."""
        kind = identifier_kind(arxiv_id, key)
        answered = self.sources.looked_up - set(self.sources.errors)
        return named(s for s in answered if kind in BY_CODE[s].looked_up)

    def _unavailable(self, arxiv_id: str | None, key: str) -> str | None:
        """A service holding such identifiers whose look-up did not answer, or None: only when
        all of them answered can an identifier be said not to exist. The holders are the
        sources whose row rules such ids out: arXiv for arXiv ids (Semantic Scholar knows them
        too, but not every one), zbMATH Open for Zbl numbers, Semantic Scholar for its own ids,
        and for DOIs both Semantic Scholar's index and Crossref's registry (which lacks
        DataCite's DOIs, so neither rules one out alone)."""
        kind = identifier_kind(arxiv_id, key)
        for holder in [s.code for s in REGISTRY if kind in s.rules_out]:
            # a source that failed in this run (a malformed answer after its look-up, say)
            # rules nothing out: its earlier "nothing" is no more believed than the rest
            if holder not in self.sources.looked_up or holder in self.sources.errors:
                return holder
        return None

    def _title_searches(
        self, candidates: list[Candidate], outcomes: list[Outcome | None], positions: list[int]
    ) -> None:
        """Judges the candidates at `positions` on what the title searches found."""
        leads = title_leads(self.sources, candidates, positions)
        for position in positions:
            outcomes[position] = self._judge_title_search(
                candidates[position], outcomes[position], leads[position]
            )

    def _judge_title_search(
        self, candidate: Candidate, earlier: Outcome | None, leads: list[ComparedRecord]
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
            found = self._found(candidate, chosen[0])
            identified = bool(candidate.identifiers())
            how = ("found by title" if candidate.title else "found by its citation") + (
                ", listing the cited identifier"
                if identified and _carries(found.paper, candidate)
                else ""
            )
            id_verdict = self._missing(candidate.identifiers(), found, "a title search found")
            return id_verdict or self._identified(found, how)
        if len(chosen) > 1:
            papers_named = "; ".join(describe(group[0].paper) for group in chosen[:3])
            best = chosen[0][0]
            return Outcome(
                "UNCONFIRMED",
                f"ambiguous: {len(chosen)} papers have this title ({papers_named})",
                source=best.source,
                urls=_urls_of(leads),
                match=best.match,
                suggestion=best.paper,
            )
        if not leads:
            return earlier
        best = max(leads, key=lambda f: f.match.title_score or 0.0)
        closest = f"{describe(best.paper)} ({best.match.reason}), offered as a suggestion"
        missing, unchecked = self._unresolved_ids(candidate)
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
            reason = f"{opening} {closest}{self._degraded_note()}"
        return Outcome(
            "UNCONFIRMED",
            reason,
            source=best.source,
            urls=_urls_of(leads),
            match=best.match,
            suggestion=best.paper,
        )

    def _nothing_found(self, candidate: Candidate) -> Outcome:
        """Nothing resolved: not found, or pending when a service that could check it failed."""
        missing, unchecked = self._unresolved_ids(candidate)
        text = candidate.title or candidate.citation
        sources = SOURCES if candidate.title else CITATION_SOURCES  # those its text went to
        searched = [s for s in sources if s in self.sources.title_searched] if text else []
        failed = [s for s in sources if s in self.sources.errors] if text else []
        what = [
            f"{label} not found in {self._askers(arxiv_id, key)}"
            for label, arxiv_id, key in candidate.identifiers()
            if label in missing
        ]
        if searched:
            how = "with this title" if candidate.title else "matching the citation"
            what.append(f"no paper {how} in {named(searched, 'or')}")
        down = [*unchecked.values(), *failed]
        if not what:  # nothing answered: pending, naming the services that failed
            said = f" ({named(down)} unavailable)" if down else ""
            return Outcome("UNCONFIRMED", PENDING + said)
        if not unchecked and not failed:
            return Outcome("UNCONFIRMED", "; ".join(what))
        if unchecked:
            what.append(f"{', '.join(unchecked)} could not be checked")
        return Outcome("UNCONFIRMED", f"{PENDING} ({named(down)} unavailable; {'; '.join(what)})")

    def _unresolved_ids(self, candidate: Candidate) -> tuple[list[str], dict[str, str]]:
        """A candidate's identifiers (none of which resolved): the labels the service holding
        them answered for (not found), and the labels it could not check, with that service."""
        missing, unchecked = [], {}
        for label, arxiv_id, key in candidate.identifiers():
            failed = self._unavailable(arxiv_id, key)
            if failed is None:
                missing.append(label)
            else:
                unchecked[label] = failed
        return missing, unchecked

    def _degraded_note(self) -> str:
        if not self.sources.errors:
            return ""
        return f"; {named(self.sources.errors)} unavailable, so checked without it"


# ----------------------------------------------------------------------------- helpers


def _fill_withheld(outcome: Outcome, candidate: Candidate) -> None:
    """A record identified by its identifiers whose title or authors zbMATH withholds (licence)
    keeps the citation's, and the reason says so: LITERATURE.md needs a title, and no record
    contradicts it."""
    paper = outcome.paper
    if paper is None or paper.source != "zbmath" or (paper.title and paper.authors):
        return  # only zbMATH withholds (its licence sentence); elsewhere an empty field is junk
    kept = []
    paper = Paper.from_dict(paper.to_dict())
    if not paper.title and candidate.title:
        paper.title, kept = candidate.title, ["title"]
    if not paper.authors and split_authors(candidate.given.get("authors")):
        paper.authors, kept = split_authors(candidate.given.get("authors")), [*kept, "authors"]
    if kept:
        outcome.paper = paper
        outcome.reason += (
            f"; the {' and '.join(kept)} as cited ({NAMES[paper.source]} withholds them)"
        )


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


def _source_of(findings: list[ComparedRecord]) -> str:
    """`source`: the first source (in SOURCES order) whose record is among the findings;
    `sources` names them all."""
    return _sources_of(findings)[0]


def _urls_of(findings: list[ComparedRecord]) -> list[str]:
    return list(dict.fromkeys(url for f in findings for url in f.urls))
