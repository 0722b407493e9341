"""Verify candidate references against arXiv, Semantic Scholar, zbMATH Open and Crossref: the
anti-hallucination gate.

Each candidate comes out CONFIRMED, CORRECTED or UNCONFIRMED (protocols/matching-rules.md):
a record a source API returned, in this run (or from the response cache within its TTL), that
identifies the paper beyond doubt (mathtools.matching.Match.identifies) confirms it when it is
the paper as cited and corrects it, field by field, when the citation gets something wrong.
Everything else is UNCONFIRMED with a reason; a candidate that cannot be verified at all is its
own UNCONFIRMED result and costs no call.

Calls, as few as the APIs allow:
  1. every arXiv id, in one arXiv `id_list` look-up (the client chunks long lists);
  2. every identifier (S2 paperId, DOI, arXiv id), in one Semantic Scholar POST /paper/batch
     (500 ids a call);
  3. only for candidates with no identifier, or whose identifiers resolved nowhere: S2
     /paper/search/match by title, one call each, then, for those still unmatched, arXiv `ti:"..."`
     phrase searches joined with OR, TITLE_SEARCH_CHUNK titles a call;
  4. every DOI, in one Crossref filter=doi:A,doi:B list request (crossref.DOI_FILTER_CHUNK a call);
  5. zbMATH Open for what the others lack: every Zbl number, and every identifier no other source
     returned a record for, in one `|`-joined search (zbmath.LOOKUP_CHUNK ids a call); and, for
     titles step 3 did not identify, one `|`-joined `ti:"..."` search, then a Crossref
     query.bibliographic search each for those still unidentified.
N identified candidates therefore cost ceil(N / chunk) calls per source; cached answers cost none.
Any source whose record identifies the paper verifies it; `sources` names every source whose
record agreed. A zbMATH record whose title or author names are withheld (the licence sentence) is
compared on what it still carries, its identifiers and year, and keeps the cited title and
authors.

Combining the sources: each source's batched look-up is a Lookup (records by identifier label);
each identifier is judged on its own over all of them. It identifies the paper when a record
returned for it (by any source) does; it contradicts when records came back and none does; it
resolves nowhere when no source returned a record for it although the services that hold such ids
answered (arXiv for arXiv ids, Semantic Scholar and Crossref for DOIs, zbMATH Open for Zbl numbers,
Semantic Scholar for the rest). One contradicting identifier makes
the candidate UNCONFIRMED, with a reason naming the paper it really points to (reported as
`resolved_to`; `paper` is only ever an identified record). One that resolves nowhere is a
discrepancy when the title identifies the paper, else makes the candidate UNCONFIRMED (unless the
identified record lists it). The identifying records of all sources are merged into one
(`_canonical`) and compared again. A title search identifies a paper only by its exact title and
an agreeing year; a different paper it finds is a `suggestion`, never promoted.

Degradation: a service that still fails after the HTTP layer's retries is not asked again in this
run (`source_errors` says what it answered); the others verify without it and each reason says so.
When no answering service could check a candidate, it is UNCONFIRMED with the reason
"API error - verification pending".

The output (schemas/verification.schema.json) depends only on the input and the API responses,
apart from `verified_at`.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import BadInput, ServiceError
from .files import read_json
from .matching import (
    Match,
    compare,
    describe,
    normalise_title,
    split_authors,
)
from .paper import Paper, SearchResult

SOURCES = ("arxiv", "semantic_scholar", "zbmath", "crossref")
LABELS = {
    "arxiv": "arXiv",
    "semantic_scholar": "Semantic Scholar",
    "zbmath": "zbMATH Open",
    "crossref": "Crossref",
}
PENDING = "API error - verification pending"
STATUSES = ("CONFIRMED", "CORRECTED", "UNCONFIRMED")  # protocols/matching-rules.md
MAX_TITLE_CHARS = 1000
MAX_AUTHORS = 5000
MAX_NAME_CHARS = 300
EARLIEST_YEAR = 1500
TITLE_SEARCH_CHUNK = 10  # titles per arXiv OR query: keeps the URL short
TITLE_SEARCH_RESULTS = 100  # entries asked per arXiv title-search call
SUGGESTION_MIN_SCORE = 0.5  # a title-search hit less similar than this is no suggestion
CANDIDATE_FIELDS = (
    "key",
    "title",
    "authors",
    "year",
    "arxiv_id",
    "doi",
    "s2_paper_id",
    "zbl",
    "source",
)
CITED_TEXT_FIELDS = ("venue", "volume", "pages")  # compared when a candidate gives them


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
    zbl: str | None = None  # zbMATH Open's Zbl number, "1409.11141"
    problem: str | None = None  # why the candidate cannot be verified at all (nothing is asked)

    def cited(self) -> dict[str, Any]:
        """What matching compares: title, authors (as given, "et al." included), year, and the
        venue, volume and pages when given."""
        cited = {"title": self.title, "authors": self.given.get("authors"), "year": self.year}
        cited |= {name: str(self.given[name]) for name in CITED_TEXT_FIELDS if self.given.get(name)}
        return cited

    def identifiers(self) -> list[tuple[str, str | None, str]]:
        """(label, arXiv id to ask arXiv or None, id to ask S2) for each identifier given; a Zbl
        number's third part is `ZBL:<number>`, which only zbMATH Open is asked for."""
        found = []
        if self.s2_id:
            found.append((f"S2:{self.s2_id}", None, self.s2_id))
        if self.doi:
            found.append((f"DOI:{self.doi}", None, f"DOI:{self.doi}"))
        if self.arxiv_id:
            found.append((f"arXiv:{self.arxiv_id}", self.arxiv_id, f"ARXIV:{self.arxiv_id}"))
        if self.zbl:
            found.append((f"Zbl:{self.zbl}", None, f"ZBL:{self.zbl}"))
        return found

    def labels(self) -> str:
        return ", ".join(label for label, _, _ in self.identifiers())


def load_candidates(sources: list[str]) -> tuple[list[Candidate], dict[str, Any]]:
    """Candidates from JSON files ('-' is stdin): each a list per schemas/candidates.schema.json
    or an arxiv_query.py / s2_lookup.py --out file (schemas/search_result.schema.json).

    Returns the candidates in input order and the `inputs` summary. A search-result paper whose
    key was already seen is merged into the first (counted in `inputs.duplicates_merged`). A
    candidate that cannot be verified (an impossible year, a malformed identifier, nothing to
    verify, a repeated key) keeps its place with its `problem` set: it becomes its own UNCONFIRMED
    result and the others go on. Only input that is not candidates at all is BadInput."""
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
            total = data.get("total_results")
            if not isinstance(total, int) or isinstance(total, bool) or total < 0:
                total = len(data["papers"])  # "many", null: the file's papers are what we know
            service = str(data["source"])
            totals[service] = totals.get(service, 0) + (total or len(data["papers"]))
        else:
            raise BadInput(
                f"{name}: expected a JSON list of candidates or an arxiv_query.py / s2_lookup.py "
                "--out file (an object with 'source' and 'papers')",
                code="bad_candidates",
            )
        count = 0
        for item, result in entries:
            number = len(candidates) + 1
            where = f"{name}: candidate {number}"
            try:
                candidate = _candidate(item, result, number, where)
            except BadInput as exc:
                candidate = _rejected(item, number, exc.message)
            if candidate.key in seen:
                if result is not None:
                    inputs["duplicates_merged"] += 1
                    continue
                first = next(c for c in candidates if c.key == candidate.key)
                candidate = _rejected(
                    item,
                    number,
                    f"{where}: duplicate key {candidate.key!r} (candidate "
                    f"{candidates.index(first) + 1} has it)",
                    key=f"cand-{number}",
                )
            seen.add(candidate.key)
            candidates.append(candidate)
            count += 1
        inputs["files"][name] = inputs["files"].get(name, 0) + count
    if not candidates:
        raise BadInput("no candidates to verify", code="no_candidates")
    return candidates, inputs


def _rejected(item: Any, number: int, message: str, key: str | None = None) -> Candidate:
    """A candidate that cannot be verified: kept in its place, with the reason."""
    given = dict(item) if isinstance(item, dict) else {"value": item}
    # Echoed in the result: a 100 KB title is cut, not copied.
    given = {
        k: v[:200] + "…" if isinstance(v, str) and len(v) > 200 else v for k, v in given.items()
    }
    name = given.get("key")
    key = key or (name if isinstance(name, str) and name else f"cand-{number}")
    return Candidate(key=key, given=given, problem=message)


def candidate(item: dict[str, Any], number: int, where: str) -> Candidate:
    """One candidate from a dict as schemas/candidates.schema.json describes it (with its key);
    one that cannot be verified as given keeps its place with its `problem` set (its own
    UNCONFIRMED result), as in load_candidates."""
    try:
        return _candidate(item, None, number, where)
    except BadInput as exc:
        return _rejected(item, number, exc.message)


def _candidate(item: Any, result: dict | None, number: int, where: str) -> Candidate:
    if not isinstance(item, dict):
        raise BadInput(f"{where}: expected an object, got {type(item).__name__}", "bad_candidate")
    if result is not None:
        given = {k: item[k] for k in CANDIDATE_FIELDS if item.get(k) not in (None, "", [])}
        given["source"] = f"{result['source']} {result.get('command') or ''}".strip()
    else:
        given = dict(item)
    for name in ("key", "title", "arxiv_id", "doi", "s2_paper_id", "zbl", "source", "venue"):
        if given.get(name) is not None and not isinstance(given[name], str):
            raise BadInput(f"{where}: {name} must be a string", code="bad_candidate")
    for name in ("volume", "pages"):
        if given.get(name) is not None and not isinstance(given[name], str | int):
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
        zbl=_zbl(given.get("zbl"), where),
    )
    arxiv_doi = re.fullmatch(r"10\.48550/arxiv\.(.+)", candidate.doi or "")
    if arxiv_doi:  # an arXiv id written as a DOI: ask for the arXiv id, which is the same paper
        doi_arxiv_id = _arxiv_id(arxiv_doi.group(1), where)
        if candidate.arxiv_id in (None, doi_arxiv_id):
            candidate.arxiv_id, candidate.doi = doi_arxiv_id, None
    if not (candidate.title or candidate.identifiers()):
        raise BadInput(
            f"{where} ({candidate.key}) has nothing to verify: give a title, arxiv_id, doi, "
            "s2_paper_id or zbl",
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


def _zbl(value: str | None, where: str) -> str | None:
    if not value:
        return None
    from .zbmath import identifier

    try:
        found = identifier(value if value.lower().startswith("zbl") else f"Zbl:{value}")
    except BadInput as exc:
        raise BadInput(f"{where}: {exc.message}", code=exc.code) from None
    if found.kind != "zbl":
        raise BadInput(f"{where}: zbl {value!r} is not a Zbl number (NNNN.NNNNN)", "bad_id")
    return found.value


# ----------------------------------------------------------------------------- verifying


@dataclass
class Finding:
    """A record one source returned for one identifier or title search, and how it compares."""

    source: str
    paper: Paper
    match: Match
    urls: list[str]
    sources: list[str] = field(default_factory=list)  # every source whose record agreed


def comparable(cited: dict[str, Any], paper: Paper) -> dict[str, Any]:
    """What of a citation a record can be compared on: a zbMATH record whose title or author
    names are withheld (the licence sentence; its parser leaves them empty) can neither confirm
    nor contradict them, so they are left out and its identifiers and year decide."""
    if paper.source != "zbmath":
        return cited
    return {
        **cited,
        "title": cited.get("title") if paper.title else None,
        "authors": cited.get("authors") if paper.authors else None,
    }


@dataclass
class Lookup:
    """What one source's batched identifier look-up returned: the records by identifier label
    (as Candidate.identifiers() names them: "arXiv:...", "DOI:...", "S2:..."), and the request
    URLs that fetched a label's record."""

    source: str
    papers: dict[str, Paper]
    urls: Callable[[str], list[str]]


@dataclass
class Outcome:
    status: str
    reason: str
    source: str | None = None
    urls: list[str] = field(default_factory=list)
    match: Match | None = None
    paper: Paper | None = None  # the identified paper's record: CONFIRMED and CORRECTED only
    resolved_to: Paper | None = None  # the different paper a cited identifier points to
    suggestion: Paper | None = None
    sources: list[str] = field(default_factory=list)  # CONFIRMED, CORRECTED: who agreed


class Verifier:
    """Plans the calls for a list of candidates, makes them, and judges every candidate."""

    def __init__(self, use_cache: bool = True):
        from .arxiv import ArxivClient
        from .crossref import CrossrefClient
        from .semantic_scholar import S2Client
        from .zbmath import ZbmathClient

        self.arxiv = ArxivClient(use_cache=use_cache)
        self.s2 = S2Client(use_cache=use_cache)
        self.zbmath = ZbmathClient(use_cache=use_cache)
        self.crossref = CrossrefClient(use_cache=use_cache)
        self.errors: dict[str, str] = {}  # source -> what it answered, once it failed
        self.queried: set[str] = set()
        self.looked_up: set[str] = set()  # sources whose identifier look-up answered
        self.title_searched: set[str] = set()  # sources whose title search answered

    def verify(self, candidates: list[Candidate], inputs: dict | None = None) -> dict[str, Any]:
        """The verification document (schemas/verification.schema.json) for `candidates`."""
        lookups = [lookup for lookup in self._look_up(candidates) if lookup is not None]
        outcomes: list[Outcome | None] = []
        searches: list[int] = []
        for position, candidate in enumerate(candidates):
            if candidate.problem:
                outcomes.append(Outcome("UNCONFIRMED", f"not verifiable: {candidate.problem}"))
                continue
            outcome = self._judge_identifiers(candidate, lookups)
            if outcome is None and candidate.title:
                searches.append(position)
            outcomes.append(outcome)
        if searches:
            self._title_searches(candidates, outcomes, searches)
        for candidate, outcome in zip(candidates, outcomes, strict=True):
            if outcome is not None and outcome.paper is not None:  # CONFIRMED or CORRECTED
                _fill_withheld(outcome, candidate)
                # said once every source has been asked (or has failed)
                outcome.reason += self._degraded_note()
        results = [
            _result(candidate, outcome or self._nothing_found(candidate))
            for candidate, outcome in zip(candidates, outcomes, strict=True)
        ]
        counts = {status: sum(r["status"] == status for r in results) for status in STATUSES}
        document: dict[str, Any] = {
            "verified_at": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
            "sources_queried": [s for s in SOURCES if s in self.queried],
        }
        if self.errors:
            document["source_errors"] = dict(sorted(self.errors.items()))
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

    # -- calls ----------------------------------------------------------------------------

    def _call(self, source: str, function, *args, **kwargs):
        """A client call, or None once `source` has failed in this run."""
        if source in self.errors:
            return None
        self.queried.add(source)
        # A request the new sources refuse (400) is one we built: their failure, not the user's.
        failures = (ServiceError, BadInput) if source in ("zbmath", "crossref") else ServiceError
        try:
            return function(*args, **kwargs)
        except failures as exc:
            self.errors[source] = exc.message
            return None

    def _look_up(self, candidates) -> list[Lookup | None]:
        """Every source's identifier look-up, one batched call each (None: nothing to ask, or
        the source failed). A new source adds its look-up here; judging is the same for all.
        zbMATH Open comes last: it is asked only for what the others did not return."""
        lookups = [
            self._look_up_arxiv(candidates),
            self._look_up_s2(candidates),
            self._look_up_crossref(candidates),
        ]
        return [*lookups, self._look_up_zbmath(candidates, [x for x in lookups if x])]

    def _look_up_arxiv(self, candidates) -> Lookup | None:
        ids = list(dict.fromkeys(c.arxiv_id for c in candidates if c.arxiv_id))
        if not ids:
            return None
        result: SearchResult | None = self._call("arxiv", self.arxiv.fetch_ids, ids)
        if result is None:
            return None
        self.looked_up.add("arxiv")
        urls = list(result.request_urls)
        return Lookup(
            "arxiv",
            {f"arXiv:{paper.arxiv_id}": paper for paper in result.papers},
            lambda label: [u for u in urls if label.split(":", 1)[1] in u] or urls,
        )

    def _look_up_s2(self, candidates) -> Lookup | None:
        labels = {
            s2: label
            for c in candidates
            for label, _, s2 in c.identifiers()
            if not s2.startswith("ZBL:")
        }
        if not labels:
            return None
        result = self._call("semantic_scholar", self.s2.batch, list(labels))
        if result is None:
            return None
        self.looked_up.add("semantic_scholar")
        urls = list(result.request_urls)
        papers = zip(labels.values(), result.papers, strict=True)
        return Lookup(
            "semantic_scholar",
            {label: paper for label, paper in papers if paper is not None},
            lambda label: urls,
        )

    def _look_up_crossref(self, candidates) -> Lookup | None:
        """Every DOI in Crossref, the DOI registry, in filter=doi:... list requests."""
        dois = list(dict.fromkeys(c.doi for c in candidates if c.doi))
        if not dois:
            return None
        result = self._call("crossref", self.crossref.works, dois)
        if result is None:
            return None
        self.looked_up.add("crossref")
        papers, urls = result
        return Lookup("crossref", {f"DOI:{d}": p for d, p in papers.items()}, lambda label: urls)

    def _look_up_zbmath(self, candidates, earlier: list[Lookup]) -> Lookup | None:
        """zbMATH Open for what the others lack: every Zbl number, and every DOI or arXiv id no
        earlier look-up returned a record for, in `|`-joined searches."""
        from .zbmath import Identifier

        asked: dict[str, Identifier] = {}
        for candidate in candidates:
            for label, _, key in candidate.identifiers():
                kind, _, value = key.partition(":")
                returned = any(label in lookup.papers for lookup in earlier)
                if kind == "ZBL" or (kind in ("DOI", "ARXIV") and not returned):
                    asked[label] = Identifier("zbl" if kind == "ZBL" else kind.lower(), value)
        if not asked:
            return None
        result = self._call("zbmath", self.zbmath.lookup, list(asked.values()))
        if result is None:
            return None
        self.looked_up.add("zbmath")
        urls = list(result.request_urls)
        papers = zip(asked, result.papers, strict=True)
        return Lookup(
            "zbmath",
            {label: paper for label, paper in papers if paper is not None},
            lambda label: urls,
        )

    # -- judging --------------------------------------------------------------------------

    def _judge_identifiers(self, candidate, lookups: list[Lookup]) -> Outcome | None:
        """The outcome from the identifier look-ups, or None when no identifier resolved."""
        identifiers = candidate.identifiers()
        if not identifiers:
            return None
        identified: list[Finding] = []
        unresolved = []  # identifiers no record came back for
        for label, arxiv_id, s2_key in identifiers:
            findings = [
                Finding(
                    lookup.source,
                    lookup.papers[label],
                    compare(
                        comparable(candidate.cited(), lookup.papers[label]), lookup.papers[label]
                    ),
                    lookup.urls(label),
                )
                for lookup in lookups
                if label in lookup.papers
            ]
            agreeing = [f for f in findings if f.match.identifies(by_identifier=True)]
            if findings and not agreeing:
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
            identified += agreeing
        if not identified:
            return None
        found = self._found(candidate, identified)
        resolved = [ident[0] for ident in identifiers if ident not in unresolved]
        missing = self._missing(unresolved, found, f"{', '.join(resolved)} is")
        return missing or self._identified(found, candidate.labels())

    def _found(self, candidate: Candidate, findings: list[Finding]) -> Finding:
        """One paper from the findings that identify it: the sources' records merged, and the
        candidate compared with the merged record (every year and venue name either gives)."""
        paper = _canonical(findings)
        match = compare(comparable(candidate.cited(), paper), paper)
        # A year one source's own record agrees with is no discrepancy (Semantic Scholar's
        # publication year where the canonical record, arXiv's, has the preprint's).
        if any(f.match.year_ok for f in findings):
            match.discrepancies = [d for d in match.discrepancies if d["field"] != "year"]
        return Finding(
            _source_of(findings), paper, match, _urls_of(findings), _sources_of(findings)
        )

    def _identified(self, found: Finding, how: str) -> Outcome:
        """The paper is identified: CONFIRMED when it is as cited, else CORRECTED with the
        discrepancies. Either way the API's record replaces the candidate's metadata."""
        status = "CORRECTED" if found.match.discrepancies else "CONFIRMED"
        sources = found.sources or [found.source]
        return Outcome(
            status,
            f"{how}: {found.match.reason} (via {_named(sources)})",
            source=found.source,
            urls=found.urls,
            match=found.match,
            paper=found.paper,
            sources=sources,
        )

    def _missing(self, unresolved, found: Finding, how: str) -> Outcome | None:
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
                    value = paper.arxiv_id if name == "arxiv_id" else paper.doi
                    which = f"{self._askers(arxiv_id, key)} returned nothing for it"
                    note = f"{label} does not exist ({which}); the paper's is {value or 'none'}"
                    found.match.discrepancies.append(
                        {
                            "field": name,
                            "cited": label.split(":", 1)[1],
                            "record": value,
                            "note": note,
                        }
                    )
                return None
        if unchecked:
            reason = (
                f"{PENDING} ({_named(unchecked.values())} unavailable; "
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
        kind = "arxiv" if arxiv_id else key.partition(":")[0] if ":" in key else "S2"
        return _named(s for s in self.looked_up if s in ASKED_FOR.get(kind, ASKED_FOR["S2"]))

    def _unavailable(self, arxiv_id: str | None, key: str) -> str | None:
        """A service holding such identifiers whose look-up did not answer, or None: only when
        all of them answered can an identifier be said not to exist. DOIs are held by Semantic
        Scholar's index and by Crossref's registry (which lacks DataCite's DOIs, so neither
        rules one out alone)."""
        holders = ("semantic_scholar", "crossref") if key.startswith("DOI:") else ()
        for holder in holders or (_authority(arxiv_id, key),):
            if holder not in self.looked_up:
                return holder
        return None

    def _title_searches(self, candidates, outcomes, positions) -> None:
        """S2 title match for each candidate, then arXiv `ti:` searches for those it did not
        identify, then zbMATH Open `ti:` searches and Crossref bibliographic searches for those
        still unidentified (the classic papers and books the first two lack)."""
        leads: dict[int, list[Finding]] = {p: [] for p in positions}
        unmatched = []
        for position in positions:
            candidate = candidates[position]
            result = self._call("semantic_scholar", self.s2.match, candidate.title)
            if result is not None:
                self.title_searched.add("semantic_scholar")
                for paper in result.papers:
                    leads[position].append(
                        Finding(
                            "semantic_scholar",
                            paper,
                            compare(candidate.cited(), paper),
                            list(result.request_urls),
                        )
                    )
            if not any(f.match.identifies(by_identifier=False) for f in leads[position]):
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
            self.title_searched.add("arxiv")
            for position in chunk:
                for paper in result.papers:
                    match = compare(candidates[position].cited(), paper)
                    if match.title_score and match.title_score >= SUGGESTION_MIN_SCORE:
                        leads[position].append(
                            Finding("arxiv", paper, match, list(result.request_urls))
                        )
        unmatched = [p for p in unmatched if not _identifying(leads[p])]
        self._zbmath_titles(candidates, unmatched, leads)
        unmatched = [p for p in unmatched if not _identifying(leads[p])]
        self._crossref_titles(candidates, unmatched, leads)
        for position in positions:
            outcomes[position] = self._judge_title_search(
                candidates[position], outcomes[position], leads[position]
            )

    def _zbmath_titles(self, candidates, positions, leads) -> None:
        """One `|`-joined zbMATH `ti:"..."` search per TITLE_SEARCH_CHUNK titles."""
        from .zbmath import MAX_PER_PAGE

        for first in range(0, len(positions), TITLE_SEARCH_CHUNK):
            chunk = positions[first : first + TITLE_SEARCH_CHUNK]
            phrases = [_phrase(candidates[p].title) for p in chunk]
            query = " | ".join(f'ti:"{phrase}"' for phrase in phrases if phrase)
            if not query:
                continue
            result = self._call("zbmath", self.zbmath.search, query, limit=MAX_PER_PAGE)
            if result is None:
                continue
            self.title_searched.add("zbmath")
            _add_leads("zbmath", candidates, chunk, result, leads)

    def _crossref_titles(self, candidates, positions, leads) -> None:
        """A Crossref query.bibliographic search (title, first author, year) per title."""
        for position in positions:
            candidate = candidates[position]
            names = split_authors(candidate.given.get("authors"))
            words = [candidate.title, *names[:1], str(candidate.year or "")]
            query = " ".join(word for word in words if word)
            result = self._call("crossref", self.crossref.search, query, rows=5)
            if result is None:
                continue
            self.title_searched.add("crossref")
            _add_leads("crossref", candidates, [position], result, leads)

    def _judge_title_search(self, candidate, earlier, leads) -> Outcome | None:
        """A paper found by title identifies the candidate when the title is exact and the
        year agrees (matching.Match.identifies); two different such papers are ambiguous."""
        papers: dict[str, list[Finding]] = {}
        for lead in leads:
            if lead.match.identifies(by_identifier=False):
                papers.setdefault(_identity(lead.paper, papers), []).append(lead)
        exact = [group for group in papers.values() if any(f.match.ok for f in group)]
        chosen = exact if exact else list(papers.values())
        if len(chosen) == 1:
            found = self._found(candidate, chosen[0])
            identified = bool(candidate.identifiers())
            how = "found by title" + (
                ", listing the cited identifier"
                if identified and _carries(found.paper, candidate)
                else ""
            )
            missing = self._missing(candidate.identifiers(), found, "a title search found")
            return missing or self._identified(found, how)
        if len(chosen) > 1:
            named = "; ".join(describe(group[0].paper) for group in chosen[:3])
            best = chosen[0][0]
            return Outcome(
                "UNCONFIRMED",
                f"ambiguous: {len(chosen)} papers have this title ({named})",
                source=best.source,
                urls=_urls_of(leads),
                match=best.match,
                suggestion=best.paper,
            )
        if not leads:
            return earlier
        best = max(leads, key=lambda f: f.match.title_score or 0.0)
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
        searched = [s for s in SOURCES if s in self.title_searched] if candidate.title else []
        what = [
            f"{label} not found in {self._askers(arxiv_id, key)}"
            for label, arxiv_id, key in candidate.identifiers()
            if label in missing
        ]
        if searched:
            what.append(f"no paper with this title in {_named(searched, 'or')}")
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
        for label, arxiv_id, key in candidate.identifiers():
            failed = self._unavailable(arxiv_id, key)
            if failed is None:
                missing.append(label)
            else:
                unchecked[label] = failed
        return missing, unchecked

    def _degraded_note(self) -> str:
        if not self.errors:
            return ""
        return f"; {_named(self.errors)} unavailable, so checked without it"


# ----------------------------------------------------------------------------- helpers


def _phrase(title: str) -> str:
    """A title as an arXiv phrase: folded words only, so quotes and LaTeX cannot break it."""
    return normalise_title(title)


def _identifying(leads: list[Finding]) -> bool:
    return any(f.match.identifies(by_identifier=False) for f in leads)


def _add_leads(source, candidates, positions, result, leads) -> None:
    """Title-search hits similar enough to identify the paper or be a suggestion, as leads."""
    for position in positions:
        for paper in result.papers:
            match = compare(candidates[position].cited(), paper)
            if match.title_score and match.title_score >= SUGGESTION_MIN_SCORE:
                leads[position].append(Finding(source, paper, match, list(result.request_urls)))


def _fill_withheld(outcome: Outcome, candidate: Candidate) -> None:
    """A record identified by its identifiers whose title or authors zbMATH withholds (licence)
    keeps the citation's, and the reason says so: LITERATURE.md needs a title, and no record
    contradicts it."""
    paper = outcome.paper
    if paper is None or (paper.title and paper.authors):
        return
    kept = []
    paper = Paper.from_dict(paper.to_dict())
    if not paper.title and candidate.title:
        paper.title, kept = candidate.title, ["title"]
    if not paper.authors and split_authors(candidate.given.get("authors")):
        paper.authors, kept = split_authors(candidate.given.get("authors")), [*kept, "authors"]
    if kept:
        outcome.paper = paper
        outcome.reason += (
            f"; the {' and '.join(kept)} as cited ({LABELS[paper.source]} withholds them)"
        )


def _carries(paper: Paper, candidate: Candidate) -> bool:
    """Whether a record lists one of the candidate's identifiers."""
    return any(_carries_id(paper, a, s2) for _, a, s2 in candidate.identifiers())


def _id_field(label: str) -> str | None:
    """The discrepancy field of an identifier label ("arXiv:..." -> "arxiv_id"), None for a
    Semantic Scholar paperId (no field: a wrong one leaves the candidate UNCONFIRMED)."""
    return {"arXiv": "arxiv_id", "DOI": "doi"}.get(label.split(":", 1)[0])


def _identity(paper: Paper, groups: dict[str, list[Finding]]) -> str:
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


def _named(sources, conjunction: str = "and") -> str:
    """Services named in a fixed order: "arXiv and Semantic Scholar", "arXiv, Semantic Scholar
    and zbMATH Open" (or "or")."""
    given = set(sources)
    named = [LABELS[s] for s in SOURCES if s in given]
    if len(named) < 3:
        return f" {conjunction} ".join(named)
    return f"{', '.join(named[:-1])} {conjunction} {named[-1]}"


# Which services an identifier is looked up in, by kind (arXiv ids; DOIs; Zbl numbers; S2 ids,
# CorpusIds and the like); zbMATH Open only when no other source returned a record.
ASKED_FOR = {
    "arxiv": {"arxiv", "semantic_scholar", "zbmath"},
    "DOI": {"semantic_scholar", "crossref", "zbmath"},
    "ZBL": {"zbmath"},
    "S2": {"semantic_scholar"},
}


def _authority(arxiv_id: str | None, key: str = "") -> str:
    """The service that holds an identifier: arXiv for arXiv ids, zbMATH Open for Zbl numbers,
    Semantic Scholar for the rest (Semantic Scholar also knows arXiv ids, but not every one, so
    only arXiv can rule one out)."""
    if arxiv_id:
        return "arxiv"
    return "zbmath" if key.startswith("ZBL:") else "semantic_scholar"


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


def _sources_of(findings: list[Finding]) -> list[str]:
    """The sources of `findings`, in SOURCES order."""
    found = {f.source for f in findings}
    return [s for s in SOURCES if s in found]


def _source_of(findings: list[Finding]) -> str:
    """`source` as before there were four: "both" when arXiv and Semantic Scholar agree, else
    the first source (in SOURCES order); `sources` names them all."""
    sources = _sources_of(findings)
    return "both" if sources[:2] == ["arxiv", "semantic_scholar"] else sources[0]


def _urls_of(findings: list[Finding]) -> list[str]:
    return list(dict.fromkeys(url for f in findings for url in f.urls))


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
)


def _canonical(findings: list[Finding]) -> Paper:
    """The identifying record of the first source in SOURCES order that has a title (arXiv's
    when it identified the paper; a licence-restricted zbMATH record has none), its empty fields
    completed from the other sources' records: identifiers, venue, Zbl number and MSC codes (all
    records the APIs returned)."""
    first: dict[str, Finding] = {}
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


def summary_lines(document: dict[str, Any]) -> list[str]:
    """The compact view for the model: counts, one line per result, the service errors.

    A confirmed candidate's line is its key alone when the paper is as the candidate gave it
    (same key, year, first author and title: the caller has that line already), `KEY =
    PAPER-KEY` when it is a paper shown above, else `KEY = key | year | first author | title`.
    A CORRECTED line names the paper the same way, then each discrepancy: `field: note`."""
    from .paper import summary_line

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
        status = result["status"]
        if status in ("CONFIRMED", "CORRECTED"):
            key, paper = result["key"], result["paper"]
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
            lines.append(f"{line} -- {fixes}" if fixes else line)
        else:
            reason = result["reason"]
            reason = reason if len(reason) <= 200 else reason[:199] + "…"
            lines.append(f"UNCONFIRMED {result['key']}: {reason}")
    for source, message in document.get("source_errors", {}).items():
        lines.append(f"{LABELS[source]} unavailable: {message}")
    return lines
