"""A stand-in search engine over the real arXiv corpus in ../shared/corpus (support/shared.py).

It answers the two searches a plan makes, so that a test or a benchmark can ask whether planned
queries find the papers that matter (recall) and how many come back empty, offline:

- `arxiv(query)`: arXiv's `search_query` syntax as the API manual describes it (section 5.1):
  field prefixes ti: abs: au: co: jr: cat: rn: id: all:, the operators AND, OR and ANDNOT,
  double-quoted phrases, parentheses, and submittedDate:[FROM TO TO]. A term matches whole words,
  case, accents and a plural's final s folded, nothing more (a real engine stems further, so the
  stand-in errs on the side of empty searches); a quoted phrase (or a hyphenated word,
  "Links-Gould") matches those words in a row. Operators apply left to right (arXiv gives no
  precedence; plans AND their parts and OR only inside parentheses). Results are ranked by
  matched terms, title matches first.
- `s2(text)`: a Semantic Scholar-like relevance search: BM25 over title (counted twice) and
  abstract; a paper qualifies when it holds at least half of the query's distinct content words.
  The default fields-of-study filter, Mathematics, keeps papers with a math or statistics
  category or a theoretical computer science one (cs.CC, cs.DS, cs.DM, cs.IT, cs.LO, cs.GT).

`ArxivStandin` and `S2Standin` give the two engines the `search` method of the real clients
(mathtools.services.arxiv.ArxivClient, mathtools.services.semantic_scholar.S2Client),
returning SearchResults of Paper records, so library code that takes a client runs against the
corpus unchanged.
"""

from __future__ import annotations

import ast
import csv
import math
import re
import unicodedata
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from functools import cache
from pathlib import Path

from mathtools.core.records import Paper, SearchResult

from . import shared

ROOT = Path(__file__).resolve().parents[2]


CORPUS_DIR = shared.path("corpus")  # ../shared/corpus, found by support/shared.py
CORPUS_FILE = "arxiv-2007-04-first2000.csv"
FIELDS = {
    "ti": "title", "abs": "abstract", "au": "authors", "co": "comments", "jr": "journal_ref",
    "rn": "report_no", "cat": "categories", "id": "arxiv_id",
}  # fmt: skip
ALL_FIELDS = ("title", "abstract", "authors", "comments", "journal_ref", "report_no")
MATHEMATICS = re.compile(r"math|stat\.|cs\.(?:CC|DS|DM|IT|LO|GT)$")
S2_STOPWORDS = frozenset(
    "a an and are as at be by for from in is it of on or that the to with its into via".split()  # noqa: SIM905
)


CorpusMissing = shared.SharedMissing  # the shared corpus is not beside the clone


def fold(text: str) -> str:
    """Lower case, LaTeX accents (`Bal\\'azs`, `Erd\\H{o}s`) and Unicode diacritics removed."""
    text = re.sub(r"\\[`'^\"~=.uvHckrbt]\s*\{?\\?([A-Za-z])\}?", r"\1", text)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def words(text: str) -> list[str]:
    """Folded words, a plural's trailing s dropped ("graphs" is "graph"): a light stand-in for
    the stemming of a real search engine, which folds much more. A letter outside ASCII (`α` in
    a title a user wrote) is a word as a search engine indexes it, not an empty term."""
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
            for w in re.findall(r"[^\W_]+", fold(text))]  # fmt: skip


@dataclass
class Record:
    arxiv_id: str
    title: str
    abstract: str
    authors: str
    categories: list[str]
    comments: str
    journal_ref: str
    report_no: str
    submitted: str  # YYYYMMDDHHMM of version 1
    tokens: dict[str, list[str]] = field(default_factory=dict)

    def paper(self, source: str) -> Paper:
        names = [n.strip() for n in re.split(r",\s*|\s+and\s+", self.authors) if n.strip()]
        return Paper(
            source=source,
            title=" ".join(self.title.split()),
            authors=names,
            year=int(self.submitted[:4]),
            arxiv_id=self.arxiv_id,
            abstract=" ".join(self.abstract.split()),
            categories=list(self.categories),
            primary_category=self.categories[0] if self.categories else None,
        )


def corpus_id(raw: str) -> str:
    """The CSV wrote ids as numbers: `704.0001` is 0704.0001, `704.17` is 0704.1700."""
    month, number = raw.split(".")
    return f"{month.zfill(4)}.{number.ljust(4, '0')}"


@cache
def load(directory: Path = CORPUS_DIR) -> list[Record]:
    path = directory / CORPUS_FILE
    if directory == CORPUS_DIR:
        shared.require(f"corpus/{CORPUS_FILE}")  # a test skips, a benchmark stops, naming it
    records = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            versions = ast.literal_eval(row["versions"]) if row["versions"] else []
            created = parsedate_to_datetime(versions[0]["created"]) if versions else None
            record = Record(
                arxiv_id=corpus_id(row["id"]),
                title=row["title"],
                abstract=row["abstract"],
                authors=row["authors"],
                categories=row["categories"].split(),
                comments=row["comments"],
                journal_ref=row["journal-ref"],
                report_no=row["report-no"],
                submitted=created.strftime("%Y%m%d%H%M") if created else "200704010000",
            )
            record.tokens = {name: words(getattr(record, name)) for name in ALL_FIELDS}
            records.append(record)
    return records


# --- arXiv query syntax ---------------------------------------------------------------------

TOKEN = re.compile(
    r"\s*(?:(?P<paren>[()])|(?P<op>ANDNOT|AND|OR)(?=[\s(]|$)"
    r'|(?P<field>[a-zA-Z]+):(?:"(?P<phrase>[^"]*)"|\[(?P<range>[^\]]*)\]|(?P<word>[^\s()]+))'
    r'|"(?P<bare_phrase>[^"]*)"|(?P<bare>[^\s()]+))'
)


class QueryError(ValueError):
    """A query arXiv would reject (the real API answers with an error entry)."""


def parse(query: str) -> list:
    """Tokens: "(", ")", ("op", name), ("term", field, value)."""
    tokens, position = [], 0
    while position < len(query.rstrip()):
        match = TOKEN.match(query, position)
        if not match or match.end() == position:
            raise QueryError(f"cannot read the query at {query[position:]!r}")
        position = match.end()
        if match["paren"]:
            tokens.append(match["paren"])
        elif match["op"]:
            tokens.append(("op", match["op"]))
        elif match["field"]:
            name = match["field"]
            if name not in FIELDS and name not in ("all", "submittedDate"):
                raise QueryError(f"unknown field {name!r}")
            value = match["phrase"] if match["phrase"] is not None else match["word"]
            tokens.append(("term", name, match["range"] if name == "submittedDate" else value))
        else:
            tokens.append(("term", "all", match["bare_phrase"] or match["bare"]))
    return tokens


def evaluate(tokens: list, leaf) -> bool:
    """arXiv's boolean syntax over parsed `tokens`: `leaf(field, value)` answers one term."""

    def expression(at: int) -> tuple[bool, int]:
        value, at = operand(at)
        while at < len(tokens) and tokens[at] != ")":
            operator = "AND"
            if isinstance(tokens[at], tuple) and tokens[at][0] == "op":
                operator, at = tokens[at][1], at + 1
            right, at = operand(at)
            value = {"AND": value and right, "OR": value or right,
                     "ANDNOT": value and not right}[operator]  # fmt: skip
        return value, at

    def operand(at: int) -> tuple[bool, int]:
        if at >= len(tokens):
            raise QueryError("the query ends too early")
        token = tokens[at]
        if token == "(":
            value, at = expression(at + 1)
            if at >= len(tokens) or tokens[at] != ")":
                raise QueryError("unbalanced parentheses")
            return value, at + 1
        if not isinstance(token, tuple) or token[0] != "term":
            raise QueryError(f"unexpected {token!r}")
        return leaf(token[1], token[2]), at + 1

    value, at = expression(0)
    if at != len(tokens):
        raise QueryError("unbalanced parentheses")
    return value


def matches(record: Record, query: str) -> tuple[bool, float]:
    """Does `record` answer `query`, and how well (title hits weigh more)."""
    score = [0.0]

    def leaf(name: str, value: str) -> bool:
        if name == "submittedDate":
            low, _, high = value.partition(" TO ")
            return low.strip() <= record.submitted <= high.strip()
        if name == "cat":
            return value in record.categories
        if name == "id":
            return record.arxiv_id == value
        wanted = words(value.replace("_", " "))
        if not wanted:
            raise QueryError(f"empty term in {name}:")
        found = False
        for field_name in ALL_FIELDS if name == "all" else (FIELDS[name],):
            if _contains(record.tokens[field_name], wanted):
                found = True
                score[0] += 3.0 if field_name == "title" else 1.0
        return found

    return evaluate(parse(query), leaf), score[0]


def _contains(have: list[str], wanted: list[str]) -> bool:
    if len(wanted) == 1:
        return wanted[0] in have
    size = len(wanted)
    return any(have[i : i + size] == wanted for i in range(len(have) - size + 1))


def arxiv(query: str, max_results: int = 10, directory: Path = CORPUS_DIR) -> tuple[int, list]:
    """(total matches, the best `max_results` records) for an arXiv `search_query`."""
    found = []
    for record in load(directory):
        hit, score = matches(record, query)
        if hit:
            found.append((-score, record.arxiv_id, record))
    found.sort(key=lambda item: item[:2])
    return len(found), [record for _, _, record in found[:max_results]]


# --- Semantic Scholar-like relevance search -------------------------------------------------


@cache
def _statistics(directory: Path) -> tuple[dict[str, int], float]:
    documents = load(directory)
    frequency: dict[str, int] = {}
    for record in documents:
        for word in set(record.tokens["title"] + record.tokens["abstract"]):
            frequency[word] = frequency.get(word, 0) + 1
    average = sum(len(_s2_text(r)) for r in documents) / len(documents)
    return frequency, average


def _s2_text(record: Record) -> list[str]:
    return record.tokens["title"] * 2 + record.tokens["abstract"]


def s2(
    text: str,
    limit: int = 10,
    fields_of_study: str | None = "Mathematics",
    directory: Path = CORPUS_DIR,
) -> tuple[int, list]:
    """(total qualifying, the best `limit` records) for a plain-text relevance query."""
    query = [w for w in dict.fromkeys(words(text)) if w not in S2_STOPWORDS]
    if not query:
        return 0, []
    frequency, average = _statistics(directory)
    documents = load(directory)
    needed = math.ceil(len(query) / 2)
    scored = []
    for record in documents:
        if fields_of_study == "Mathematics" and not any(
            MATHEMATICS.match(c) for c in record.categories
        ):
            continue
        body = _s2_text(record)
        present = [w for w in query if w in body]
        if len(present) < needed:
            continue
        score = 0.0
        for word in present:
            count = body.count(word)
            idf = math.log(1 + (len(documents) - frequency[word] + 0.5) / (frequency[word] + 0.5))
            score += idf * count * 2.2 / (count + 1.2 * (0.25 + 0.75 * len(body) / average))
        scored.append((-score, record.arxiv_id, record))
    scored.sort(key=lambda item: item[:2])
    return len(scored), [record for _, _, record in scored[:limit]]


# --- the clients' interface -----------------------------------------------------------------


class ArxivStandin:
    """ArxivClient's `search` over the corpus; `queries` lists every query asked."""

    def __init__(self, directory: Path = CORPUS_DIR):
        self.directory = directory
        self.queries: list[str] = []

    def search(self, query, start=0, max_results=10, sort="relevance", order="descending"):
        from mathtools.core.errors import BadInput

        self.queries.append(query)
        try:
            total, records = arxiv(query, start + max_results, self.directory)
        except QueryError as exc:
            raise BadInput(f"arXiv rejected the request: {exc}", code="arxiv_rejected") from None
        papers = [record.paper("arxiv") for record in records[start:]]
        return SearchResult(
            source="arxiv", command="search", query=query, papers=papers, total_results=total
        )


class S2Standin:
    """S2Client's `search` over the corpus; `queries` lists every query asked."""

    def __init__(self, directory: Path = CORPUS_DIR):
        self.directory = directory
        self.queries: list[str] = []

    def search(self, query, limit=10, offset=0, fields_of_study="Mathematics", **_filters):
        self.queries.append(query)
        total, records = s2(query, offset + limit, fields_of_study, self.directory)
        papers = [record.paper("semantic_scholar") for record in records[offset:]]
        return SearchResult(
            source="semantic_scholar", command="search", query=query, papers=papers,
            total_results=total,
        )  # fmt: skip
