"""Verify candidate references against arXiv and Semantic Scholar: the anti-hallucination gate.

A candidate is CONFIRMED only when a source API returned, in this run (or from the response cache
within its TTL), a record whose metadata matches what the candidate says (mathtools.matching).
Everything else is UNCONFIRMED with a reason.

Calls, as few as the APIs allow:
  1. every arXiv id, in one arXiv `id_list` look-up (the client chunks long lists);
  2. every identifier (S2 paperId, DOI, arXiv id), in one Semantic Scholar POST /paper/batch
     (500 ids a call);
  3. only for candidates with no identifier, or whose identifiers resolved nowhere: S2
     /paper/search/match by title, one call each, then, for those still unmatched, arXiv `ti:"..."`
     phrase searches joined with OR, TITLE_SEARCH_CHUNK titles a call.
N identified candidates therefore cost ceil(N / chunk) calls per source; cached answers cost none.

Combining the sources: each identifier is judged on its own. It matches when a record returned for
it (by either source) matches the candidate; it contradicts when records came back and none
matches; it resolves nowhere when no source returned a record for it although the service that
holds such ids answered (arXiv for arXiv ids, Semantic Scholar for the rest). One contradicting
identifier makes the candidate UNCONFIRMED, with a reason naming the paper it really points to
(reported as `resolved_to`; `paper` is only ever a CONFIRMED result's record), and
so does one that resolves nowhere (unless the matching record lists it); otherwise one matching
identifier confirms it. A title search that finds a different paper reports it as a `suggestion`,
never promoted.

Degradation: a service that still fails after the HTTP layer's retries is not asked again in this
run (`source_errors` says what it answered); the other one verifies alone and each reason says so.
When no answering service could check a candidate, it is UNCONFIRMED with the reason
"API error - verification pending".

The output (schemas/verification.schema.json) depends only on the input and the API responses,
apart from `verified_at`.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Any

from .cli import BadInput, ServiceError, read_json
from .matching import Match, compare, describe, normalise_title, split_authors
from .paper import Paper, SearchResult

SOURCES = ("arxiv", "semantic_scholar")
LABELS = {"arxiv": "arXiv", "semantic_scholar": "Semantic Scholar"}
PENDING = "API error - verification pending"
MAX_TITLE_CHARS = 1000
MAX_AUTHORS = 5000
MAX_NAME_CHARS = 300
EARLIEST_YEAR = 1500
TITLE_SEARCH_CHUNK = 10  # titles per arXiv OR query: keeps the URL short
TITLE_SEARCH_RESULTS = 100  # entries asked per arXiv title-search call
SUGGESTION_MIN_SCORE = 0.5  # a title-search hit less similar than this is no suggestion
CANDIDATE_FIELDS = ("key", "title", "authors", "year", "arxiv_id", "doi", "s2_paper_id", "source")


# ----------------------------------------------------------------------------- candidates


@dataclass
class Candidate:
    """One reference to verify, its fields checked and its identifiers normalised."""

    key: str
    given: dict[str, Any]  # as the caller gave it (for a search-result paper: its cited fields)
    title: str | None = None
    year: int | None = None
    arxiv_id: str | None = None  # without version
    doi: str | None = None  # lower case, no URL prefix
    s2_id: str | None = None  # the API's form of s2_paper_id

    def cited(self) -> dict[str, Any]:
        """What matching compares: title, authors (as given, "et al." included), year."""
        return {"title": self.title, "authors": self.given.get("authors"), "year": self.year}

    def identifiers(self) -> list[tuple[str, str | None, str]]:
        """(label, arXiv id to ask arXiv or None, id to ask S2) for each identifier given."""
        found = []
        if self.s2_id:
            found.append((f"S2:{self.s2_id}", None, self.s2_id))
        if self.doi:
            found.append((f"DOI:{self.doi}", None, f"DOI:{self.doi}"))
        if self.arxiv_id:
            found.append((f"arXiv:{self.arxiv_id}", self.arxiv_id, f"ARXIV:{self.arxiv_id}"))
        return found

    def labels(self) -> str:
        return ", ".join(label for label, _, _ in self.identifiers())


def load_candidates(sources: list[str]) -> tuple[list[Candidate], dict[str, Any]]:
    """Candidates from JSON files ('-' is stdin): each a list per schemas/candidates.schema.json
    or an arxiv_query.py / s2_lookup.py --out file (schemas/search_result.schema.json).

    Returns the candidates in input order and the `inputs` summary. A search-result paper whose
    key was already seen is merged into the first (counted in `inputs.duplicates_merged`); any
    problem is BadInput naming the file and the candidate."""
    candidates: list[Candidate] = []
    seen: set[str] = set()
    inputs: dict[str, Any] = {"files": {}, "discovery_totals": {}, "duplicates_merged": 0}
    for source in sources:
        name = "stdin" if source == "-" else source
        data = read_json(source, what="candidates")
        if isinstance(data, list):
            entries = [(item, None) for item in data]
        elif isinstance(data, dict) and isinstance(data.get("papers"), list) and "source" in data:
            entries = [(paper, data) for paper in data["papers"]]
            totals = inputs["discovery_totals"]
            totals[data["source"]] = totals.get(data["source"], 0) + (
                data.get("total_results") or len(data["papers"])
            )
        else:
            raise BadInput(
                f"{name}: expected a JSON list of candidates or an arxiv_query.py / s2_lookup.py "
                "--out file (an object with 'source' and 'papers')",
                code="bad_candidates",
            )
        count = 0
        for item, result in entries:
            where = f"{name}: candidate {len(candidates) + 1}"
            candidate = _candidate(item, result, len(candidates) + 1, where)
            if candidate.key in seen:
                if result is None:
                    raise BadInput(
                        f"{where}: duplicate key {candidate.key!r}", code="bad_candidate"
                    )
                inputs["duplicates_merged"] += 1
                continue
            seen.add(candidate.key)
            candidates.append(candidate)
            count += 1
        inputs["files"][name] = inputs["files"].get(name, 0) + count
    if not candidates:
        raise BadInput("no candidates to verify", code="no_candidates")
    return candidates, inputs


def _candidate(item: Any, result: dict | None, number: int, where: str) -> Candidate:
    if not isinstance(item, dict):
        raise BadInput(f"{where}: expected an object, got {type(item).__name__}", "bad_candidate")
    if result is not None:
        given = {k: item[k] for k in CANDIDATE_FIELDS if item.get(k) not in (None, "", [])}
        given["source"] = f"{result['source']} {result.get('command') or ''}".strip()
    else:
        given = dict(item)
    for name in ("key", "title", "arxiv_id", "doi", "s2_paper_id", "source"):
        if given.get(name) is not None and not isinstance(given[name], str):
            raise BadInput(f"{where}: {name} must be a string", code="bad_candidate")
    title = " ".join((given.get("title") or "").split()) or None
    if title and len(title) > MAX_TITLE_CHARS:
        raise BadInput(
            f"{where}: the title is {len(title)} characters long; a title has at most "
            f"{MAX_TITLE_CHARS}",
            code="bad_candidate",
        )
    _check_authors(given.get("authors"), where)
    candidate = Candidate(
        key=given.get("key") or f"cand-{number}",
        given=given,
        title=title,
        year=_year(given.get("year"), where),
        arxiv_id=_arxiv_id(given.get("arxiv_id"), where),
        doi=_doi(given.get("doi")),
        s2_id=_s2_id(given.get("s2_paper_id"), where),
    )
    arxiv_doi = re.fullmatch(r"10\.48550/arxiv\.(.+)", candidate.doi or "")
    if arxiv_doi:  # an arXiv id written as a DOI: ask for the arXiv id, which is the same paper
        doi_arxiv_id = _arxiv_id(arxiv_doi.group(1), where)
        if candidate.arxiv_id in (None, doi_arxiv_id):
            candidate.arxiv_id, candidate.doi = doi_arxiv_id, None
    if not (candidate.title or candidate.identifiers()):
        raise BadInput(
            f"{where} ({candidate.key}) has nothing to verify: give a title, arxiv_id, doi or "
            "s2_paper_id",
            code="nothing_to_verify",
        )
    return candidate


def _check_authors(value: Any, where: str) -> None:
    if value is None:
        return
    if isinstance(value, list) and not all(isinstance(name, str) for name in value):
        raise BadInput(f"{where}: authors must be a list of names or one string", "bad_candidate")
    if not isinstance(value, list | str):
        raise BadInput(f"{where}: authors must be a list of names or one string", "bad_candidate")
    names = split_authors(value)
    if len(names) > MAX_AUTHORS or any(len(name) > MAX_NAME_CHARS for name in names):
        raise BadInput(
            f"{where}: authors must be at most {MAX_AUTHORS} names of at most {MAX_NAME_CHARS} "
            "characters each",
            code="bad_candidate",
        )


def _year(value: Any, where: str) -> int | None:
    if value is None or value == "":
        return None
    latest = _dt.date.today().year + 1
    text = str(value).strip()
    match = re.fullmatch(r"(\d{4})[a-z]?", text) if not isinstance(value, bool) else None
    year = int(match.group(1)) if match else None
    if year is None or not EARLIEST_YEAR <= year <= latest:
        raise BadInput(
            f"{where}: year {value!r} is not a publication year ({EARLIEST_YEAR}-{latest})",
            code="bad_year",
        )
    return year


def _arxiv_id(value: str | None, where: str) -> str | None:
    if not value:
        return None
    from .arxiv import normalize_id

    try:
        return normalize_id(value)[0]
    except BadInput as exc:
        raise BadInput(f"{where}: {exc.message}", code=exc.code) from None


def _doi(value: str | None) -> str | None:
    if not value:
        return None
    doi = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", value.strip(), flags=re.I)
    return doi.lower() or None


def _s2_id(value: str | None, where: str) -> str | None:
    if not value:
        return None
    from .semantic_scholar import s2_id

    try:
        return s2_id(value)
    except BadInput as exc:
        raise BadInput(f"{where}: {exc.message}", code=exc.code) from None


# ----------------------------------------------------------------------------- verifying


@dataclass
class Finding:
    """A record one source returned for one identifier or title search, and how it compares."""

    source: str
    paper: Paper
    match: Match
    urls: list[str]


@dataclass
class Outcome:
    status: str
    reason: str
    source: str | None = None
    urls: list[str] = field(default_factory=list)
    match: Match | None = None
    paper: Paper | None = None  # the confirmed record: CONFIRMED only
    resolved_to: Paper | None = None  # the different paper a cited identifier points to
    suggestion: Paper | None = None


class Verifier:
    """Plans the calls for a list of candidates, makes them, and judges every candidate."""

    def __init__(self, use_cache: bool = True):
        from .arxiv import ArxivClient
        from .semantic_scholar import S2Client

        self.arxiv = ArxivClient(use_cache=use_cache)
        self.s2 = S2Client(use_cache=use_cache)
        self.errors: dict[str, str] = {}  # source -> what it answered, once it failed
        self.queried: set[str] = set()
        self.looked_up: set[str] = set()  # sources whose identifier look-up answered

    def verify(self, candidates: list[Candidate], inputs: dict | None = None) -> dict[str, Any]:
        """The verification document (schemas/verification.schema.json) for `candidates`."""
        arxiv_papers, arxiv_urls = self._fetch_arxiv(candidates)
        s2_papers, s2_urls = self._fetch_s2(candidates)
        outcomes: list[Outcome | None] = []
        searches: list[int] = []
        for position, candidate in enumerate(candidates):
            outcome = self._judge_identifiers(
                candidate, arxiv_papers, arxiv_urls, s2_papers, s2_urls
            )
            if outcome is None and candidate.title:
                searches.append(position)
            outcomes.append(outcome)
        if searches:
            self._title_searches(candidates, outcomes, searches)
        results = [
            _result(candidate, outcome or self._nothing_found(candidate))
            for candidate, outcome in zip(candidates, outcomes, strict=True)
        ]
        confirmed = sum(r["status"] == "CONFIRMED" for r in results)
        document: dict[str, Any] = {
            "verified_at": _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
            "sources_queried": [s for s in SOURCES if s in self.queried],
        }
        if self.errors:
            document["source_errors"] = dict(sorted(self.errors.items()))
        if inputs is not None:
            document["inputs"] = inputs
        document["results"] = results
        document["summary"] = {
            "total": len(results),
            "confirmed": confirmed,
            "unconfirmed": len(results) - confirmed,
            "pending": sum(r["reason"].startswith(PENDING) for r in results),
        }
        return document

    # -- calls ----------------------------------------------------------------------------

    def _call(self, source: str, function, *args, **kwargs):
        """A client call, or None once `source` has failed in this run."""
        if source in self.errors:
            return None
        self.queried.add(source)
        try:
            return function(*args, **kwargs)
        except ServiceError as exc:
            self.errors[source] = exc.message
            return None

    def _fetch_arxiv(self, candidates) -> tuple[dict[str, Paper], list[str]]:
        ids = list(dict.fromkeys(c.arxiv_id for c in candidates if c.arxiv_id))
        if not ids:
            return {}, []
        result: SearchResult | None = self._call("arxiv", self.arxiv.fetch_ids, ids)
        if result is None:
            return {}, []
        self.looked_up.add("arxiv")
        return {paper.arxiv_id: paper for paper in result.papers}, list(result.request_urls)

    def _fetch_s2(self, candidates) -> tuple[dict[str, Paper | None], list[str]]:
        ids = list(dict.fromkeys(s2 for c in candidates for _, _, s2 in c.identifiers()))
        if not ids:
            return {}, []
        result = self._call("semantic_scholar", self.s2.batch, ids)
        if result is None:
            return {}, []
        self.looked_up.add("semantic_scholar")
        return dict(zip(ids, result.papers, strict=True)), list(result.request_urls)

    # -- judging --------------------------------------------------------------------------

    def _judge_identifiers(self, candidate, arxiv_papers, arxiv_urls, s2_papers, s2_urls):
        """The outcome from the identifier look-ups, or None when no identifier resolved."""
        identifiers = candidate.identifiers()
        if not identifiers:
            return None
        matching: list[Finding] = []
        unresolved = []  # identifiers no record came back for
        for label, arxiv_id, s2_key in identifiers:
            findings = []
            if arxiv_id and arxiv_id in arxiv_papers:
                urls = [u for u in arxiv_urls if arxiv_id in u] or arxiv_urls
                paper = arxiv_papers[arxiv_id]
                findings.append(Finding("arxiv", paper, compare(candidate.cited(), paper), urls))
            if s2_papers.get(s2_key) is not None:
                paper = s2_papers[s2_key]
                findings.append(
                    Finding("semantic_scholar", paper, compare(candidate.cited(), paper), s2_urls)
                )
            good = [f for f in findings if f.match.ok]
            if findings and not good:
                wrong = findings[0]
                return Outcome(
                    "UNCONFIRMED",
                    f"{label} is {describe(wrong.paper)}, not the cited paper "
                    f"({wrong.match.reason})",
                    source=_source_of(findings),
                    urls=_urls_of(findings),
                    match=wrong.match,
                    resolved_to=wrong.paper,
                )
            if not findings:
                unresolved.append((label, arxiv_id, s2_key))
            matching += good
        if not matching:
            return None
        found = Finding(
            _source_of(matching), _canonical(matching), matching[0].match, _urls_of(matching)
        )
        resolved = [ident[0] for ident in identifiers if ident not in unresolved]
        missing = self._missing(unresolved, found, f"{', '.join(resolved)} is")
        if missing is not None:
            return missing
        return self._confirmed(found, f"{candidate.labels()}: {found.match.reason}")

    def _confirmed(self, found: Finding, reason: str) -> Outcome:
        """CONFIRMED on `found`: the API's record replaces the candidate's metadata."""
        return Outcome(
            "CONFIRMED",
            f"{reason} ({_via(found.source)})" + self._degraded_note(),
            source=found.source,
            urls=found.urls,
            match=found.match,
            paper=found.paper,
        )

    def _missing(self, unresolved, found: Finding, how: str) -> Outcome | None:
        """An UNCONFIRMED outcome when an identifier came back from no source and the record
        that matched (`found`, which `how` introduces in the reason) does not list it: the
        identifier resolves nowhere when the service that holds such ids answered, and is
        pending when that service failed. None when every identifier is accounted for."""
        paper = found.paper
        absent = [
            (label, _authority(arxiv_id))
            for label, arxiv_id, s2_key in unresolved
            if not _carries_id(paper, arxiv_id, s2_key)
        ]
        if not absent:
            return None
        unchecked = {
            label: authority for label, authority in absent if authority not in self.looked_up
        }
        if unchecked:
            reason = (
                f"{PENDING} ({_named(unchecked.values())} unavailable; "
                f"{', '.join(unchecked)} could not be checked; "
                f"{how} {describe(paper)})"
            )
        else:
            which = "; ".join(
                f"{label} does not exist ({self._askers(authority)} returned nothing for it)"
                for label, authority in absent
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

    def _askers(self, authority: str) -> str:
        """The services whose identifier look-up answered for an id held by `authority`."""
        return _named(s for s in self.looked_up if authority == "arxiv" or s == authority)

    def _title_searches(self, candidates, outcomes, positions) -> None:
        """S2 title match for each candidate, then arXiv `ti:` searches for those unmatched."""
        leads: dict[int, list[Finding]] = {p: [] for p in positions}
        unmatched = []
        for position in positions:
            candidate = candidates[position]
            result = self._call("semantic_scholar", self.s2.match, candidate.title)
            if result is not None:
                for paper in result.papers:
                    leads[position].append(
                        Finding(
                            "semantic_scholar",
                            paper,
                            compare(candidate.cited(), paper),
                            list(result.request_urls),
                        )
                    )
            if not any(f.match.ok for f in leads[position]):
                unmatched.append(position)
        for first in range(0, len(unmatched), TITLE_SEARCH_CHUNK):
            chunk = unmatched[first : first + TITLE_SEARCH_CHUNK]
            phrases = [_phrase(candidates[p].title) for p in chunk]
            query = " OR ".join(f'ti:"{phrase}"' for phrase in phrases if phrase)
            if not query:
                continue
            result = self._call("arxiv", self.arxiv.search, query, max_results=TITLE_SEARCH_RESULTS)
            if result is None:
                continue
            for position in chunk:
                for paper in result.papers:
                    match = compare(candidates[position].cited(), paper)
                    if match.title_score and match.title_score >= SUGGESTION_MIN_SCORE:
                        leads[position].append(
                            Finding("arxiv", paper, match, list(result.request_urls))
                        )
        for position in positions:
            outcomes[position] = self._judge_title_search(
                candidates[position], outcomes[position], leads[position]
            )

    def _judge_title_search(self, candidate, earlier, leads) -> Outcome | None:
        identified = bool(candidate.identifiers())
        # An identified candidate is confirmed by title only when the record carries its
        # identifier (a DOI Semantic Scholar does not know, but arXiv lists for the paper).
        good = [f for f in leads if f.match.ok and (not identified or _carries(f.paper, candidate))]
        if good:
            found = good[0]
            missing = self._missing(candidate.identifiers(), found, "a title search found")
            if missing is not None:
                return missing
            how = "found by title, listing the cited identifier" if identified else "found by title"
            return self._confirmed(found, f"{how}: {found.match.reason}")
        if not leads:
            return earlier
        best = max(leads, key=lambda f: (f.match.ok, f.match.title_score or 0.0))
        found = f"{describe(best.paper)} ({best.match.reason}), offered as a suggestion"
        missing, unchecked = self._unresolved_ids(candidate)
        if unchecked:
            what = [f"{', '.join(missing)} not found"] if missing else []
            what += [
                f"{', '.join(unchecked)} could not be checked",
                f"a title search found {found}",
            ]
            reason = f"{PENDING} ({_named(unchecked.values())} unavailable; {'; '.join(what)})"
        elif missing:
            reason = f"{', '.join(missing)} not found; a title search found {found}"
        else:
            reason = f"no paper matches; the closest title found is {found}"
            reason += self._degraded_note()
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
        searched = [s for s in SOURCES if s not in self.errors] if candidate.title else []
        what = [
            f"{label} not found in {self._askers(_authority(arxiv_id))}"
            for label, arxiv_id, _ in candidate.identifiers()
            if label in missing
        ]
        if searched:
            what.append(f"no paper with this title in {' or '.join(LABELS[s] for s in searched)}")
        if not what:
            return Outcome("UNCONFIRMED", PENDING)
        failed = [s for s in SOURCES if s in self.errors] if candidate.title else []
        if not unchecked and not failed:
            return Outcome("UNCONFIRMED", "; ".join(what))
        if unchecked:
            what.append(f"{', '.join(unchecked)} could not be checked")
        unavailable = _named([*unchecked.values(), *failed])
        return Outcome("UNCONFIRMED", f"{PENDING} ({unavailable} unavailable; {'; '.join(what)})")

    def _unresolved_ids(self, candidate: Candidate) -> tuple[list[str], dict[str, str]]:
        """A candidate's identifiers (none of which resolved): the labels the service holding
        them answered for (not found), and the labels it could not check, with that service."""
        missing, unchecked = [], {}
        for label, arxiv_id, _ in candidate.identifiers():
            authority = _authority(arxiv_id)
            if authority in self.looked_up:
                missing.append(label)
            else:
                unchecked[label] = authority
        return missing, unchecked

    def _degraded_note(self) -> str:
        if not self.errors:
            return ""
        return f"; {_named(self.errors)} unavailable, so checked without it"


# ----------------------------------------------------------------------------- helpers


def _phrase(title: str) -> str:
    """A title as an arXiv phrase: folded words only, so quotes and LaTeX cannot break it."""
    return normalise_title(title)


def _carries(paper: Paper, candidate: Candidate) -> bool:
    """Whether a record lists one of the candidate's identifiers."""
    return any(_carries_id(paper, a, s2) for _, a, s2 in candidate.identifiers())


def _named(sources) -> str:
    """Services named in a fixed order: "arXiv and Semantic Scholar"."""
    named = set(sources)
    return " and ".join(LABELS[s] for s in SOURCES if s in named)


def _authority(arxiv_id: str | None) -> str:
    """The service that holds an identifier: arXiv for arXiv ids, Semantic Scholar for the rest
    (Semantic Scholar also knows arXiv ids, but not every one, so only arXiv can rule one out)."""
    return "arxiv" if arxiv_id else "semantic_scholar"


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
        "CorpusId": None if paper.corpus_id is None else str(paper.corpus_id),
    }.get(kind)
    return listed is not None and listed.lower() == value.lower()


def _source_of(findings: list[Finding]) -> str:
    sources = {f.source for f in findings}
    return "both" if len(sources) == 2 else sources.pop()


def _via(source: str) -> str:
    return "arXiv and Semantic Scholar" if source == "both" else LABELS[source]


def _urls_of(findings: list[Finding]) -> list[str]:
    return list(dict.fromkeys(url for f in findings for url in f.urls))


def _canonical(findings: list[Finding]) -> Paper:
    """The matching record; when both sources matched, arXiv's, completed by Semantic Scholar's
    identifiers and venue (both are records the APIs returned)."""
    by_source = {f.source: f.paper for f in reversed(findings)}
    paper = by_source.get("arxiv") or by_source["semantic_scholar"]
    other = by_source.get("semantic_scholar")
    if paper is other or other is None:
        return paper
    merged = Paper.from_dict(paper.to_dict())
    for name in (
        "doi",
        "s2_paper_id",
        "corpus_id",
        "venue",
        "journal",
        "publication_date",
        "citation_count",
        "open_access_pdf",
    ):
        if getattr(merged, name) is None:
            setattr(merged, name, getattr(other, name))
    merged.external_ids = merged.external_ids or dict(other.external_ids)
    merged.fields_of_study = merged.fields_of_study or list(other.fields_of_study)
    return merged


def _result(candidate: Candidate, outcome: Outcome) -> dict[str, Any]:
    match = outcome.match or Match()
    result: dict[str, Any] = {
        "key": candidate.key,
        "status": outcome.status,
        "reason": outcome.reason,
        "source": outcome.source,
        "verified_via": outcome.urls,
        "checks": match.checks(),
        "paper": outcome.paper.to_dict() if outcome.paper else None,
        "candidate": candidate.given,
    }
    if outcome.resolved_to is not None:
        result["resolved_to"] = outcome.resolved_to.to_dict()
    if outcome.suggestion is not None:
        result["suggestion"] = outcome.suggestion.to_dict()
    return result


def summary_lines(document: dict[str, Any]) -> list[str]:
    """The compact view for the model: counts, one line per result, the service errors.

    A confirmed candidate's line is its key alone when the paper is as the candidate gave it
    (same key, year, first author and title: the caller has that line already), `KEY =
    PAPER-KEY` when it is a paper shown above, else `KEY = key | year | first author | title`."""
    from .paper import summary_line

    summary = document["summary"]
    head = (
        f"verified {summary['total']}: {summary['confirmed']} CONFIRMED, "
        f"{summary['unconfirmed']} UNCONFIRMED"
    )
    if summary.get("pending"):
        head += f" ({summary['pending']} pending: API error)"
    lines = [head]
    shown: set[str] = set()  # paper keys whose line the caller has
    for result in document["results"]:
        if result["status"] == "CONFIRMED":
            key, paper = result["key"], result["paper"]
            candidate = {**(result.get("candidate") or {}), "key": key}
            if key == paper["key"] and summary_line(paper) == summary_line(candidate):
                lines.append(f"CONFIRMED {key}")
            elif paper["key"] in shown:
                lines.append(f"CONFIRMED {key} = {paper['key']}")
            else:
                lines.append(f"CONFIRMED {key} = {summary_line(paper)}")
            shown.add(paper["key"])
        else:
            reason = result["reason"]
            reason = reason if len(reason) <= 200 else reason[:199] + "…"
            lines.append(f"UNCONFIRMED {result['key']}: {reason}")
    for source, message in document.get("source_errors", {}).items():
        lines.append(f"{LABELS[source]} unavailable: {message}")
    return lines
