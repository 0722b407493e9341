"""Verify candidate references against arXiv, Semantic Scholar, zbMATH Open, Crossref and
OpenAlex: the anti-hallucination gate.

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

Combining the sources: each source's batched look-up is a Lookup (records by identifier label;
a record a source returned for another identifier than the one asked is set aside, its error,
and the reason says so: Sources.set_aside); each identifier is judged on its own over all of
them. It identifies the paper when a record
returned for it (by any source) does, and its sources are at least as many as those of the records
holding another paper (merged.weigh: the sources that agree decide, and the reason names the one
outvoted); it contradicts when records came back and none does, or they are outvoted; it
resolves nowhere when no source returned a record for it although the services that hold such ids
answered (arXiv for arXiv ids, Semantic Scholar, Crossref and OpenAlex for DOIs, zbMATH Open for
Zbl numbers, Semantic Scholar for the rest) and none of them failed in the run (a malformed answer
included).
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
    SOURCES,
    VERDICTS,
    JSONObject,
    Paper,
    VerificationDocument,
    named,
    split_authors,
    stamp,
)
from .candidates import Candidate
from .identification import (
    askers,
    degraded_note,
    identified_outcome,
    identified_record,
    judge_title_search,
    missing_ids_outcome,
    source_of,
    unresolved_ids,
    urls_of,
)
from .lookups import ComparedRecord, Lookup, Sources, compared
from .matching import describe
from .merged import completed, outvoted, weigh
from .titlesearches import CITATION_SOURCES, title_leads
from .venuematch import unvouched
from .verdicts import PENDING, Outcome, result_of, retracted_note


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
                outcome.reason += degraded_note(self.sources)
        results = [
            result_of(candidate, self._noted(candidate, outcome or self._nothing_found(candidate)))
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

    def _noted(self, candidate: Candidate, outcome: Outcome) -> Outcome:
        """The outcome, its reason naming each record a source answered one of the candidate's
        identifiers with that was another identifier's (Sources.set_aside)."""
        for label, _, _ in candidate.identifiers():
            notes = self.sources.set_aside.get(label, {}).values()
            outcome.reason += "".join(f"; {note}" for note in notes)
        return outcome

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
                    source=source_of(findings),
                    urls=urls_of(findings),
                    match=wrong.match,
                    resolved_to=wrong.paper,
                )
            if not findings:
                unresolved.append((label, arxiv_id, s2_key))
            outvoted_notes += [outvoted(label, other, agreeing)] if other else []
            identified += agreeing
        if not identified:
            return None
        found = identified_record(candidate, identified)
        resolved = [ident[0] for ident in identifiers if ident not in unresolved]
        outcome = missing_ids_outcome(self.sources, unresolved, found, f"{', '.join(resolved)} is")
        outcome = outcome or identified_outcome(found, candidate.labels())
        outcome.reason += "".join(f"; {note}" for note in outvoted_notes)
        return outcome

    def _check_venues(self, candidates: list[Candidate], outcomes: list[Outcome | None]) -> None:
        """A journal the identifying records cannot vouch for (venuematch.unvouched) is checked
        with the records of the sources that know a work's type (Sources.type_records): theirs
        complete the paper and the venue is compared again; when none of them could answer, the
        venue could not be checked and the candidate is pending (never CONFIRMED on a title and
        authors alone)."""
        wanted = {
            position: outcome.paper
            for position, (candidate, outcome) in enumerate(zip(candidates, outcomes, strict=True))
            if outcome is not None
            and outcome.paper is not None
            and unvouched(candidate.cited(), outcome.paper, outcome.sources)
        }
        if not wanted:
            return
        records, answered = self.sources.type_records(wanted)
        for position, others in records.items():
            outcome = outcomes[position]
            if outcome is None or outcome.paper is None or outcome.match is None:
                continue
            if position not in answered:
                outcomes[position] = self._venue_unchecked(candidates[position], outcome)
                continue
            if not others:
                continue  # a source that knows types answered and holds no other word of it
            opening = f"{outcome.how}: {outcome.match.reason} (via {named(outcome.sources)})"
            found = ComparedRecord(
                outcome.source or "", outcome.paper, outcome.match, outcome.urls, outcome.sources
            )
            new = identified_outcome(
                completed(found, others, candidates[position].cited()), outcome.how
            )
            new.reason += outcome.reason[len(opening) :]  # the outvoted sources, if any
            outcomes[position] = new

    def _venue_unchecked(self, candidate: Candidate, outcome: Outcome) -> Outcome:
        """Pending: the paper is identified, but the journal it is cited in could not be checked
        (no record names a venue, and every source that knows a work's type failed)."""
        cited = candidate.cited()
        pages = cited.get("pages")
        where = " ".join(
            x for x in (cited["venue"], cited.get("volume"), pages and f"pp. {pages}") if x
        )
        down = [s for s in SOURCES if BY_CODE[s].document_types and s in self.sources.errors]
        paper = describe(outcome.paper) if outcome.paper else "a paper"
        return Outcome(
            "UNCONFIRMED",
            f"{PENDING} ({named(down)} unavailable; the venue {where} could not be checked: "
            f"the paper ({outcome.how}) is {paper}, and no record names its venue)",
            source=outcome.source,
            urls=outcome.urls,
            match=outcome.match,
            suggestion=outcome.paper,
        )

    def _title_searches(
        self, candidates: list[Candidate], outcomes: list[Outcome | None], positions: list[int]
    ) -> None:
        """Judges the candidates at `positions` on what the title searches found."""
        leads = title_leads(self.sources, candidates, positions)
        for position in positions:
            outcomes[position] = judge_title_search(
                self.sources, candidates[position], outcomes[position], leads[position]
            )

    def _nothing_found(self, candidate: Candidate) -> Outcome:
        """Nothing resolved: not found, or pending when a service that could check it failed."""
        missing, unchecked = unresolved_ids(self.sources, candidate)
        text = candidate.title or candidate.citation
        sources = SOURCES if candidate.title else CITATION_SOURCES  # those its text went to
        searched = [s for s in sources if s in self.sources.title_searched] if text else []
        failed = [s for s in sources if s in self.sources.errors] if text else []
        what = [
            f"{label} not found in {askers(self.sources, arxiv_id, key)}"
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
