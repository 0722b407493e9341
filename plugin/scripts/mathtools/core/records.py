"""The one paper record every source maps to (schemas/paper.schema.json), and the typed records
that cross module boundaries: a search result (SearchResult, its JSON SearchResultDict), the
gate's verdict names (Verdict) and its result for one candidate (VerificationResult), and the
model's judgement of one paper (Judgement), and check_refs.py's document (CheckDocument).

arXiv, Semantic Scholar, zbMATH Open, Crossref and OpenAlex fill different fields; `arxiv_id` and
`doi` are always filled when the source knows them (S2 from `externalIds`, zbMATH from its
links), so one paper seen by several sources is recognisable as one. `key` is the stable name
the model and the scripts use for a paper across files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, TypedDict, cast

# The gate's three outcomes (docs/matching-rules.md), their one home.
Verdict = Literal["CONFIRMED", "CORRECTED", "UNCONFIRMED"]
VERDICTS: tuple[Verdict, ...] = ("CONFIRMED", "CORRECTED", "UNCONFIRMED")
# The verdicts that identified a paper (a record came back): LITERATURE.md's REF entries.
IDENTIFIED: tuple[Verdict, ...] = ("CONFIRMED", "CORRECTED")

# A judgement's label (schemas/judgements.schema.json).
Label = Literal["strong", "partial", "irrelevant"]
LABELS: tuple[Label, ...] = ("strong", "partial", "irrelevant")

# A JSON object as parsed: its values are whatever the file held, checked where they are used.
JSONObject = dict[str, object]


@dataclass
class Paper:
    source: str  # one of sources.SOURCES
    title: str
    authors: list[str] = field(default_factory=list)  # in order, "Given Family" as the source wrote
    year: int | None = None
    arxiv_id: str | None = None  # without version: "2104.12255", "math/0601001"
    arxiv_version: int | None = None
    doi: str | None = None  # lower-cased, no "https://doi.org/" prefix
    abstract: str | None = None
    url: str | None = None  # the landing page (arXiv abs page, S2 paper page)
    pdf_url: str | None = None
    categories: list[str] = field(default_factory=list)
    primary_category: str | None = None
    published: str | None = None  # ISO 8601 as the source gave it
    updated: str | None = None
    journal_ref: str | None = None
    comment: str | None = None
    affiliations: list[list[str]] = field(default_factory=list)  # aligned with authors (arXiv)
    s2_paper_id: str | None = None
    corpus_id: int | None = None
    external_ids: dict[str, str | int | None] = field(default_factory=dict)
    # Where the paper was published (journal, proceedings or series), volume and pages, as the
    # source gives them; None when the source knows only a preprint (an arXiv entry without
    # journal_ref, a Semantic Scholar record whose venue is arXiv).
    venue: str | None = None
    volume: str | None = None
    pages: str | None = None
    # Every other name the source gives the venue (S2 venue, journal name, publicationVenue
    # name and alternate names; arXiv's whole journal_ref), preprint servers included: what a
    # cited venue is compared with (mathtools.gate.matching).
    venue_aliases: list[str] = field(default_factory=list)
    journal: dict[str, str | None] | None = None
    publication_date: str | None = None
    citation_count: int | None = None
    fields_of_study: list[str] = field(default_factory=list)
    open_access_pdf: str | None = None
    zbl: str | None = None  # zbMATH Open's public identifier, "1409.11141"
    msc: list[str] = field(default_factory=list)  # MSC 2020 codes, "11Y40"
    # "journal-article", "book", "book-chapter", "proceedings-article", ... (Crossref's names;
    # zbMATH's document types are mapped to them)
    document_type: str | None = None
    # The DOI of the notice retracting the paper (Crossref's `updated-by` relation of type
    # retraction), or the record's own DOI when the record is that notice (`update-to`).
    retraction_notice: str | None = None

    @property
    def key(self) -> str:
        """`arXiv:<id>`, else `DOI:<doi>`, else `Zbl:<zbl>`, else `S2:<paperId>`: the same paper
        gets the same key."""
        if self.arxiv_id:
            return f"arXiv:{self.arxiv_id}"
        if self.doi:
            return f"DOI:{self.doi}"
        if self.zbl:
            return f"Zbl:{self.zbl}"
        if self.s2_paper_id:
            return f"S2:{self.s2_paper_id}"
        return f"title:{self.title[:60]}"

    def to_dict(self) -> PaperDict:
        return cast(PaperDict, {"key": self.key, **asdict(self)})

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Paper:
        known = {f.name for f in fields(cls)}
        given: dict[str, Any] = {k: v for k, v in data.items() if k in known}  # schema-checked
        return cls(**given)

    def summary_line(self, width: int = 90) -> str:
        """One short line for the model: key, year, first author, title."""
        return summary_line(self.to_dict(), width)


@dataclass
class SearchResult:
    """What one search or look-up returned (schemas/search_result.schema.json)."""

    source: str
    command: str
    request_urls: list[str] = field(default_factory=list)
    papers: list[Paper] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)  # asked ids the service did not return
    total_results: int | None = None
    query: str | None = None
    query_line: str | None = None  # the script call that produced it (querylines.query_line)
    relaxation: Relaxation | None = None  # the looser form that answered (relaxation.py)

    def to_dict(self) -> SearchResultDict:
        data: SearchResultDict = {
            "source": self.source,
            "command": self.command,
            "query": self.query,
            "request_url": self.request_urls[0] if self.request_urls else "",
            "request_urls": list(self.request_urls),
            "total_results": self.total_results,
            "papers": [paper.to_dict() for paper in self.papers],
            "not_found": list(self.not_found),
        }
        if self.query_line:
            data["query_line"] = self.query_line
        if self.relaxation:
            data["relaxation"] = self.relaxation
        return data

    def summary_lines(self) -> list[str]:
        """The compact view for the model: a header, one line per paper, the ids not found."""
        shown = f"{len(self.papers)} papers"
        if self.total_results is not None:
            shown += f" of {self.total_results} matches"
        lines = [f"{self.source} {self.command}: {shown}"]
        lines += [paper.summary_line() for paper in self.papers]
        lines += [f"not found: {asked}" for asked in self.not_found]
        return lines


def summary_line(record: Mapping[str, object], width: int = 90) -> str:
    """`key | year | Family et al. | title` from a paper dict, the title cut to fit `width`."""
    authors = record.get("authors")
    authors = authors if isinstance(authors, list) else []
    who = family_name(str(authors[0])) if authors else "?"
    if len(authors) > 1:
        who += " et al."
    title = " ".join(str(record.get("title") or "").split())
    if len(title) > width:
        title = title[: width - 1].rstrip() + "…"
    return f"{record.get('key', '?')} | {record.get('year') or '????'} | {who} | {title}"


def family_name(name: str) -> str:
    """The family name from "Given Family" or "Family, Given" (for display only)."""
    name = name.strip()
    if "," in name:
        return name.split(",", 1)[0].strip()
    parts = name.split()
    return parts[-1] if parts else name


# --- the records' JSON forms ------------------------------------------------------------------
# TypedDicts for the dicts that cross module boundaries; schemas/ describes the same shapes where
# they cross a process boundary (the keys below are the schemas' keys).


class PaperDict(TypedDict, total=False):
    """Paper.to_dict(): schemas/paper.schema.json (every field, and `key`)."""

    key: str
    source: str
    title: str
    authors: list[str]
    year: int | None
    arxiv_id: str | None
    arxiv_version: int | None
    doi: str | None
    abstract: str | None
    url: str | None
    pdf_url: str | None
    categories: list[str]
    primary_category: str | None
    published: str | None
    updated: str | None
    journal_ref: str | None
    comment: str | None
    affiliations: list[list[str]]
    s2_paper_id: str | None
    corpus_id: int | None
    external_ids: dict[str, str | int | None]
    venue: str | None
    volume: str | None
    pages: str | None
    venue_aliases: list[str]
    journal: dict[str, str | None] | None
    publication_date: str | None
    citation_count: int | None
    fields_of_study: list[str]
    open_access_pdf: str | None
    zbl: str | None
    msc: list[str]
    document_type: str | None
    retraction_notice: str | None


class _Relaxation(TypedDict):
    step: str  # unquoted, dropped, any, widened, exhausted
    query: str


class Relaxation(_Relaxation, total=False):
    """How an empty search was relaxed (relaxation.py; search_result.schema.json)."""

    dropped: str
    query_line: str  # as the run store keeps it, beside the search's query line


class _SearchResultDict(TypedDict):
    source: str
    command: str
    query: str | None
    request_url: str
    request_urls: list[str]
    total_results: int | None
    papers: list[PaperDict]
    not_found: list[str]


class SearchResultDict(_SearchResultDict, total=False):
    """SearchResult.to_dict(): schemas/search_result.schema.json."""

    query_line: str
    relaxation: Relaxation


class Discrepancy(TypedDict):
    """How a citation differs from the identified paper in one field (verification.schema)."""

    field: str
    cited: object  # the value as cited: a string, a list of names, a year
    record: object  # the record's value, of the same kind
    note: str


class Checks(TypedDict):
    title_score: float | None
    matched_authors: list[str]
    year_diff: int | None


class _VerificationResult(TypedDict):
    key: str
    status: Verdict
    reason: str
    source: str | None
    verified_via: list[str]
    checks: Checks
    paper: PaperDict | None  # CONFIRMED and CORRECTED: the identified paper's record
    sources: list[str]
    candidate: JSONObject  # the candidate as given


class VerificationResult(_VerificationResult, total=False):
    """The gate's answer for one candidate, as verify_batch.py writes it and lit_update.py merge
    reads it (one item of verification.schema.json's `results`): the one name this record has
    from the gate through litdoc's merge."""

    discrepancies: list[Discrepancy]  # CORRECTED only
    resolved_to: PaperDict
    suggestion: PaperDict


class _VerificationDocument(TypedDict):
    verified_at: str
    sources_queried: list[str]
    results: list[VerificationResult]
    summary: dict[str, int]  # total, confirmed, corrected, unconfirmed, pending


class VerificationDocument(_VerificationDocument, total=False):
    """What verify_batch.py writes and lit_update.py merge reads (verification.schema.json)."""

    written_by: str
    source_errors: dict[str, str]
    inputs: JSONObject


class _Judgement(TypedDict):
    key: str
    label: Label
    confidence: float
    rationale: str


class Judgement(_Judgement, total=False):
    """The model's judgement of one listed paper (judgements.schema.json); as the run store gives
    it back, also its run, the paper's record and when it was judged."""

    run_id: int
    record: PaperDict
    judged_at: str


# --- check_refs.py's document (schemas/check_refs.schema.json) ---------------------------------


class InputFile(TypedDict):
    file: str
    kind: str  # bib, tex, bbl, ltb, pdf
    entries: int


class CheckedEntry(TypedDict):
    """One bibliography entry as checked (check_refs.schema.json's entries)."""

    key: str
    file: str
    line: int
    entry_type: str
    cited: dict[str, Any]  # BibliographyEntry.plain(): the cited fields as a person reads them
    status: Verdict
    reason: str
    verification: VerificationResult


class Duplicate(TypedDict):
    keys: list[str]
    why: str


class MissingKey(TypedDict):
    key: str
    file: str
    line: int


class FixReport(TypedDict):
    file: str | None  # the --fix file written (None: nothing to correct)
    entries_changed: list[str]
    corrected: int  # of them, corrected from the records; the others marked UNCONFIRMED


class _CheckDocument(TypedDict):
    checked_at: str
    inputs: list[InputFile]
    sources_queried: list[str]
    entries: list[CheckedEntry]
    duplicates: list[Duplicate]
    missing: list[MissingKey]
    not_cited: list[str]
    summary: dict[str, int]


class PdfSplit(TypedDict):
    """How a PDF's reference list was split into entries (papers/pdfreferences.py)."""

    file: str
    split: str  # labels (sure), unsure labels, indents or paragraphs (papers/pdfreferences.py)
    entries: int


StatementStatus = Literal["found", "other_kind", "not_in_version", "not_checked", "no_latex_source"]


class StatementCitation(TypedDict):
    """One statement a `\\cite[...]` names."""

    key: str
    written: str  # the optional argument as written: "Thm.\\ 2.3"
    kind: str  # Theorem, Lemma, ..., Section, equation
    number: str  # "2.3", "E", "5.10"
    part: str | None  # "(ii)"
    read_from: Literal["note", "prose"]  # the \\cite's note, or the text around it
    file: str
    line: int
    sentence: str  # the citing sentence, as LaTeX: what the model compares with the statement


class AmbiguousCitation(TypedDict):
    """Statements cited of several papers at once (`Section 3 of~\\cite{a,b}`): not checked,
    since the text does not say whose (check_refs.schema.json's `ambiguous_statements`)."""

    keys: list[str]
    written: str
    statements: list[str]  # "Section 3", "Theorem 2.3(ii)"
    read_from: Literal["note", "prose"]
    file: str
    line: int


class ShownStatement(TypedDict):
    printed: str
    note: str | None
    first_words: str
    text: str
    source_file: str
    source_line: int


class CitedStatement(StatementCitation):
    """A statement citation as checked (check_refs.schema.json's `statements`)."""

    status: StatementStatus
    arxiv_id: str | None
    version_read: str | None  # "v2 (the latest)", or "the latest" when the record has none
    statement: ShownStatement | None
    nearest: list[str]
    message: str


class UnexpandedVenue(TypedDict):
    """A \\bibitem whose venue is a journal macro defined nowhere in the source (`\\ANNMAone`
    from `\\input mrabbrev`): shown as written, never compared (check_refs.schema.json)."""

    key: str
    file: str
    line: int
    venue: str  # as written: "\\ANNMAone"
    missing_inputs: list[str]  # the inputs the source names and does not hold: ["mrabbrev"]


class CheckDocument(_CheckDocument, total=False):
    """What check_refs.py writes (schemas/check_refs.schema.json)."""

    source_errors: dict[str, str]
    warnings: list[str]  # read anyway, as BibTeX warns: a field given twice in one entry
    fix: FixReport
    statements: list[CitedStatement]  # the statements cited by number, checked
    ambiguous_statements: list[AmbiguousCitation]  # cited of several papers at once
    unexpanded_venues: list[UnexpandedVenue]  # venues that are undefined journal macros
    never_cited: list[str]  # entries the paper's .tex never cites (checked all the same)
    pdf: PdfSplit  # a PDF's references: how they were split
