"""The gate's calls to the sources (core/sources.py's REGISTRY), as few as the APIs allow, and what
each returned; verification.py judges the candidates on them. The title searches (steps 3, 5's
titles and 7) are titlesearches.py's, through Sources.call. arXiv, Semantic Scholar and zbMATH
Open have calls of their own; the others are RecordClients (RECORD_CLIENTS), asked for the
identifiers their row names and, when it says so, for titles:

  1. every arXiv id, in one arXiv `id_list` look-up (the client chunks long lists);
  2. every identifier (S2 paperId, DOI, arXiv id), in one Semantic Scholar POST /paper/batch
     (500 ids a call);
  3. only for candidates with no identifier, or whose identifiers resolved nowhere: S2
     /paper/search/match by title, one call each, then, for those still unmatched, arXiv `ti:"..."`
     phrase searches joined with OR, TITLE_SEARCH_CHUNK titles a call;
  4. every DOI, in one Crossref filter=doi:A,doi:B list request (crossref.DOI_FILTER_CHUNK a call)
     (a RecordClient whose row says last_resort: after zbMATH Open, only for what none identified);
  5. zbMATH Open for what the others lack: every Zbl number, and every identifier no other source
     returned a record of the cited paper for, in one `|`-joined search (zbmath.LOOKUP_CHUNK ids
     a call); and, for titles step 3 did not identify, one `|`-joined `ti:"..."` search, then a
     Crossref query.bibliographic search each for those still unidentified, and one zbMATH
     Open search of the original journal for each citation of a translation journal still
     unidentified (titlesearches._original_journals);
  6. for papers identified by a record that names no venue while the citation names a journal
     (with a volume or pages), the sources that know a work's document type (type_records): one
     `|`-joined zbMATH Open search of their DOIs or titles, then Crossref for those zbMATH Open
     does not hold (their DOIs in one list request, a bibliographic search per title);
  7. a free-text citation (a candidate with no title: citations.py): whole to Crossref
     query.bibliographic, then its title (bibliography's free-text reader) to Semantic Scholar's
     /paper/search/match unless Crossref's records identify it; one call each (zbMATH Open's
     API takes no whole citation: its search ANDs every word, so the words a citation adds
     find nothing).
N identified candidates therefore cost ceil(N / chunk) calls per source; cached answers cost none.

A service that still fails after the HTTP layer's retries is not asked again in this run
(Sources.errors says what it answered).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core import (
    BY_CODE,
    NAMES,
    REGISTRY,
    BadInput,
    Paper,
    SearchResult,
    ServiceError,
    normalise_title,
    title_score,
)
from ..services import (
    MAX_PER_PAGE,
    QUERY_SYNTAX,
    ArxivClient,
    CrossrefClient,
    Identifier,
    OpenalexClient,
    S2Client,
    ZbmathClient,
)
from .candidates import Candidate
from .citations import compare_citation
from .matching import Match, compare

TITLE_SEARCH_CHUNK = 10  # titles per arXiv OR query: keeps the URL short


class RecordClient(Protocol):
    """What the gate asks of a source's client beyond the four with calls of their own: a
    batched look-up of one kind of identifier, and a title search."""

    def __init__(self, use_cache: bool = True) -> None: ...

    def look_up(self, kind: str, values: list[str]) -> tuple[dict[str, Paper], list[str]]:
        """The records of `values` (identifiers of `kind`, "DOI" say) it holds, by value, and
        the request URLs; a malformed answer is a ServiceError, never "not found"."""
        ...

    def search_title(self, title: str, author: str | None, year: int | None) -> SearchResult:
        """Its records of works with about this title (the first cited author, the year)."""
        ...


def _record_client(name: str) -> type[RecordClient]:
    """The client class a row names, among those imported above from the services face (a row
    naming another is a mistake the import of this module reports at once)."""
    clients: dict[str, type[RecordClient]] = {
        client.__name__: client for client in (CrossrefClient, OpenalexClient)
    }
    if name not in clients:
        raise TypeError(f"a source row names {name!r}, which gate/lookups.py does not import")
    return clients[name]


# The clients the gate reaches through RecordClient, by source code, as the rows (core/sources.py)
# name them (record_client); each row also says which identifiers it is asked for, whether only
# for what the others did not identify (last_resort), and whether titles go to it (title_search:
# after zbMATH Open's).
RECORD_CLIENTS: dict[str, type[RecordClient]] = {
    s.code: _record_client(s.record_client) for s in REGISTRY if s.record_client
}


@dataclass
class ComparedRecord:
    """A record one source returned for one identifier or title search, and how it compares."""

    source: str
    paper: Paper
    match: Match
    urls: list[str]
    sources: list[str] = field(default_factory=list)  # every source whose record agreed


def compared(candidate: Candidate, paper: Paper) -> Match:
    """How a record compares with a candidate: a free-text citation (a candidate with no title)
    through citations.compare_citation, any other field by field (matching.compare)."""
    if candidate.citation and not candidate.title:
        return compare_citation(candidate.citation, candidate.year, paper)
    return compare(candidate.cited(), paper)


@dataclass
class Lookup:
    """What one source's batched identifier look-up returned: the records by identifier label
    (as Candidate.identifiers() names them: "arXiv:...", "DOI:...", "S2:..."), and the request
    URLs that fetched a label's record."""

    source: str
    papers: dict[str, Paper]
    urls: Callable[[str], list[str]]


class Sources:
    """The sources' clients for one run, and what they answered: `errors` (source -> what
    it answered, once it failed), `queried`, `looked_up` (identifier look-up answered),
    `title_searched` (title search answered) and `set_aside` (identifier label -> what a source
    answered for it that was a record of another identifier: that source's error)."""

    def __init__(self, use_cache: bool = True):
        self.arxiv = ArxivClient(use_cache=use_cache)
        self.s2 = S2Client(use_cache=use_cache)
        self.zbmath = ZbmathClient(use_cache=use_cache)
        self.crossref = CrossrefClient(use_cache=use_cache)
        self.records: dict[str, RecordClient] = {  # in REGISTRY order
            s.code: self.crossref if s.code == "crossref" else RECORD_CLIENTS[s.code](use_cache)
            for s in REGISTRY
            if s.code in RECORD_CLIENTS
        }
        self.errors: dict[str, str] = {}
        self.queried: set[str] = set()
        self.looked_up: set[str] = set()
        self.title_searched: set[str] = set()
        self.set_aside: dict[str, dict[str, str]] = {}  # label -> {source: what it answered}

    def call(self, source: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A client call, or None once `source` has failed in this run."""
        if source in self.errors:
            return None
        self.queried.add(source)
        # A request the sources refuse (400) is one we built: their failure, not the user's
        # (arXiv's and Semantic Scholar's clients say so themselves).
        failures = ServiceError if BY_CODE[source].discovery else (ServiceError, BadInput)
        try:
            return function(*args, **kwargs)
        except failures as exc:
            self.errors[source] = exc.message
            return None

    def look_up(self, candidates: list[Candidate]) -> list[Lookup | None]:
        """Every source's identifier look-up, one batched call each (None: nothing to ask, or
        the source failed); judging is the same for all. zbMATH Open and the sources whose row
        says last_resort come last: they are asked only for what the others did not return."""
        lookups = [self._look_up_arxiv(candidates), self._look_up_s2(candidates)]
        firsts = [code for code in self.records if not BY_CODE[code].last_resort]
        lookups += [self._look_up_record(code, candidates, []) for code in firsts]
        lookups.append(self._look_up_zbmath(candidates, [x for x in lookups if x]))
        for code in [code for code in self.records if code not in firsts]:
            lookups.append(self._look_up_record(code, candidates, [x for x in lookups if x]))
        return lookups

    def _look_up_arxiv(self, candidates: list[Candidate]) -> Lookup | None:
        ids = list(dict.fromkeys(c.arxiv_id for c in candidates if c.arxiv_id))
        if not ids:
            return None
        result: SearchResult | None = self.call("arxiv", self.arxiv.fetch_ids, ids)
        if result is None:
            return None
        self.looked_up.add("arxiv")
        urls = list(result.request_urls)
        return Lookup(
            "arxiv",
            {f"arXiv:{paper.arxiv_id}": paper for paper in result.papers},
            lambda label: [u for u in urls if label.split(":", 1)[1] in u] or urls,
        )

    def _look_up_s2(self, candidates: list[Candidate]) -> Lookup | None:
        labels = {
            s2: label
            for c in candidates
            for label, _, s2 in c.identifiers()
            if not s2.startswith("ZBL:")
        }
        if not labels:
            return None
        result = self.call("semantic_scholar", self.s2.batch, list(labels))
        if result is None:
            return None
        self.looked_up.add("semantic_scholar")
        asked = {label: s2 for s2, label in labels.items()}
        papers = {
            label: paper
            for label, paper in zip(labels.values(), result.papers, strict=True)
            if paper is not None and self._of_asked("semantic_scholar", label, paper)
        }
        return Lookup(
            "semantic_scholar",
            papers,
            lambda label: [self.s2.paper_url(asked[label])],  # the POST as the GET it stands for
        )

    def _of_asked(self, source: str, label: str, paper: Paper) -> bool:
        """Whether a record returned for the identifier `label` is of that identifier: one
        carrying another of its kind (Semantic Scholar answering a DOI with the record of another
        DOI) is the source's error, set aside with a note, never the asked paper."""
        kind, _, value = label.partition(":")
        carried = {"DOI": paper.doi, "arXiv": paper.arxiv_id}.get(kind)
        if carried is None or carried.lower() == value.lower():
            return True
        note = f"{NAMES[source]} answered {label} with a record of {kind}:{carried}, set aside"
        self.set_aside.setdefault(label, {})[source] = note
        return False

    def _look_up_record(
        self, source: str, candidates: list[Candidate], earlier: list[Lookup]
    ) -> Lookup | None:
        """A RecordClient's look-up of the identifiers its row names, one batched call a kind
        (Crossref: every DOI, in filter=doi:... list requests); a last-resort source only of
        those no `earlier` look-up returned a record of the cited paper for."""
        asked: dict[str, dict[str, str]] = {}  # kind -> {value: label}
        for candidate in candidates:
            for label, arxiv_id, key in candidate.identifiers():
                kind = identifier_kind(arxiv_id, key)
                if kind not in BY_CODE[source].looked_up or any(
                    label in lookup.papers and _identifies(candidate, lookup.papers[label])
                    for lookup in earlier
                ):
                    continue
                asked.setdefault(kind, {})[arxiv_id or key.partition(":")[2] or key] = label
        papers: dict[str, Paper] = {}
        urls: list[str] = []
        for kind, labels in asked.items():
            result = self.call(source, self.records[source].look_up, kind, list(labels))
            if result is None:
                return None
            found, fetched = result
            papers.update((labels[value], paper) for value, paper in found.items())
            urls += fetched
        if not asked:
            return None
        self.looked_up.add(source)
        return Lookup(source, papers, lambda label: urls)

    def _look_up_zbmath(self, candidates: list[Candidate], earlier: list[Lookup]) -> Lookup | None:
        """zbMATH Open for what the others lack: every Zbl number, and every DOI or arXiv id no
        earlier look-up returned a record of the cited paper for (none, or another paper's:
        its word then counts against that one's, merged.weigh), in `|`-joined searches."""
        asked: dict[str, Identifier] = {}
        for candidate in candidates:
            for label, _, key in candidate.identifiers():
                kind, _, value = key.partition(":")
                identified = any(
                    label in lookup.papers and _identifies(candidate, lookup.papers[label])
                    for lookup in earlier
                )
                if kind == "ZBL" or (kind in ("DOI", "ARXIV") and not identified):
                    asked[label] = Identifier("zbl" if kind == "ZBL" else kind.lower(), value)
        if not asked:
            return None
        result = self.call("zbmath", self.zbmath.lookup, list(asked.values()))
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

    def type_records(
        self, wanted: dict[int, Paper]
    ) -> tuple[dict[int, list[ComparedRecord]], set[int]]:
        """The records of the sources that know a work's document type (a book, a chapter, a
        journal article: zbMATH Open, Crossref, OpenAlex) of the identified papers at `wanted`'s
        positions, and the positions some such source answered for (with a record or with
        nothing; at the other positions every such source failed). zbMATH first, in
        `|`-joined searches of each paper's DOI or title; Crossref for those zbMATH holds no
        record of; the other record clients whose row says document_types (OpenAlex) for those
        no source could answer for. A record is the paper's when it carries its DOI, or has its
        title and a year at most one off (same_work)."""
        found: dict[int, list[ComparedRecord]] = {position: [] for position in wanted}
        answered: set[int] = set()
        positions = list(wanted)
        for first in range(0, len(positions), TITLE_SEARCH_CHUNK):
            chunk = positions[first : first + TITLE_SEARCH_CHUNK]
            terms = [_zbmath_term(wanted[p]) for p in chunk]
            result = self.call("zbmath", self.zbmath.search, " | ".join(terms), MAX_PER_PAGE)
            if result is not None:
                answered.update(chunk)
                _add_works("zbmath", result.papers, result.request_urls, chunk, wanted, found)
        rest = [p for p in positions if not found[p]]
        self._record_types("crossref", rest, wanted, found, answered)
        for code in self.records:
            if code != "crossref" and BY_CODE[code].document_types:
                unanswered = [p for p in rest if p not in answered]
                self._record_types(code, unanswered, wanted, found, answered)
        return found, answered

    def _record_types(
        self,
        source: str,
        positions: list[int],
        wanted: dict[int, Paper],
        found: dict[int, list[ComparedRecord]],
        answered: set[int],
    ) -> None:
        """A record client's records of the papers at `positions` (type_records): their DOIs
        in one batched look-up, a title search each for those without a DOI."""
        dois = {p: wanted[p].doi for p in positions if wanted[p].doi}
        client = self.records[source]
        if dois:
            works = self.call(source, client.look_up, "DOI", list(dict.fromkeys(dois.values())))
            if works is not None:
                papers, urls = works
                answered.update(dois)
                _add_works(source, list(papers.values()), urls, list(dois), wanted, found)
        for position in positions:
            paper = wanted[position]
            if position in dois or not paper.title:
                continue
            first = paper.authors[0] if paper.authors else None
            result = self.call(source, client.search_title, paper.title, first, paper.year)
            if result is not None:
                answered.add(position)
                _add_works(source, result.papers, result.request_urls, [position], wanted, found)


def identifier_kind(arxiv_id: str | None, key: str) -> str:
    """The kind of one identifier (as Candidate.identifiers() gives it) the sources' rows name
    (Source.looked_up, rules_out): "arxiv", "DOI", "ZBL", else "S2" (paperIds, CorpusIds)."""
    if arxiv_id:
        return "arxiv"
    kind = key.partition(":")[0] if ":" in key else "S2"
    return kind if kind in ("DOI", "ZBL") else "S2"


def _zbmath_term(paper: Paper) -> str:
    """How zbMATH Open is asked for an identified paper: its DOI, else its title as a phrase."""
    if paper.doi and not QUERY_SYNTAX.search(paper.doi):
        return f"doi:{paper.doi}"
    return f'ti:"{title_phrase(paper.title)}"'


def same_work(paper: Paper, other: Paper) -> bool:
    """Whether another source's record is of the identified paper: it carries the paper's DOI,
    or it has the paper's title (folded, both ways) and a year at most one off."""
    if paper.doi and other.doi:
        return paper.doi == other.doi
    years = (paper.year, other.year)
    return (
        bool(paper.title and other.title)
        and title_score(paper.title, other.title) == title_score(other.title, paper.title) == 1.0
        and (None in years or abs((paper.year or 0) - (other.year or 0)) <= 1)
    )


def _add_works(
    source: str,
    papers: list[Paper],
    urls: list[str],
    positions: list[int],
    wanted: dict[int, Paper],
    found: dict[int, list[ComparedRecord]],
) -> None:
    for position in positions:
        for other in papers:
            if same_work(wanted[position], other):
                compared = compare({}, other)
                found[position].append(ComparedRecord(source, other, compared, list(urls)))


def title_phrase(title: str) -> str:
    """A title as an arXiv phrase: folded words only, so quotes and LaTeX cannot break it."""
    return normalise_title(title)


def _identifies(candidate: Candidate, paper: Paper) -> bool:
    """Whether a record returned for one of the candidate's identifiers is the cited paper."""
    return compare(candidate.cited(), paper).identifies(by_identifier=True)
