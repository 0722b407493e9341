"""The citations the gate (verification.py) is handed: candidates read from JSON files (lists per
schemas/candidates.schema.json, or arxiv_query.py / s2_lookup.py --out files), each field checked
and each identifier normalised. A candidate that cannot be verified keeps its place with its
`problem` set; only input that is not candidates at all is BadInput."""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import Any

from ..core import BadInput, doi_text, normalise_arxiv_id, read_json, split_authors
from ..services import s2_id, zbmath_identifier
from .citations import MAX_CITATION_CHARS

MAX_TITLE_CHARS = 1000
MAX_AUTHORS = 5000
MAX_NAME_CHARS = 300
EARLIEST_YEAR = 1500
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
    "citation",
)
CITED_TEXT_FIELDS = ("venue", "volume", "pages")  # compared when a candidate gives them


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
    citation: str | None = None  # a whole free-text citation, as written (gate/citations.py)
    problem: str | None = None  # why the candidate cannot be verified at all (nothing is asked)

    def cited(self) -> dict[str, Any]:
        """What matching compares: title, authors (as given, "et al." included), year, and the
        venue, volume, pages and DOI when given."""
        cited = {"title": self.title, "authors": self.given.get("authors"), "year": self.year}
        cited |= {name: str(self.given[name]) for name in CITED_TEXT_FIELDS if self.given.get(name)}
        if self.doi:  # which version is cited (matching.cites_published)
            cited["doi"] = self.doi
        return cited

    def identifiers(self) -> list[tuple[str, str | None, str]]:
        """(label, arXiv id to ask arXiv or None, id to ask S2) for each identifier given; a Zbl
        number's third part is `ZBL:<number>`, which only zbMATH Open is asked for."""
        found: list[tuple[str, str | None, str]] = []
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
        entries: list[tuple[Any, dict[str, Any] | None]]
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


def _rejected(item: object, number: int, message: str, key: str | None = None) -> Candidate:
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


def _candidate(item: object, result: dict[str, Any] | None, number: int, where: str) -> Candidate:
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
        citation=_citation(given.get("citation"), where),
    )
    arxiv_doi = re.fullmatch(r"10\.48550/arxiv\.(.+)", candidate.doi or "")
    if arxiv_doi:  # an arXiv id written as a DOI: ask for the arXiv id, which is the same paper
        doi_arxiv_id = _arxiv_id(arxiv_doi.group(1), where)
        if candidate.arxiv_id in (None, doi_arxiv_id):
            candidate.arxiv_id, candidate.doi = doi_arxiv_id, None
    if not (candidate.title or candidate.citation or candidate.identifiers()):
        raise BadInput(
            f"{where} ({candidate.key}) has nothing to verify: give a title, citation, arxiv_id, "
            "doi, s2_paper_id or zbl",
            code="nothing_to_verify",
        )
    return candidate


def _citation(value: object, where: str) -> str | None:
    """A free-text citation, on one line; at most MAX_CITATION_CHARS characters."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise BadInput(f"{where}: citation must be a string", code="bad_candidate")
    text = " ".join(value.split())
    if len(text) > MAX_CITATION_CHARS:
        raise BadInput(
            f"{where}: the citation is {len(text)} characters long; a citation has at most "
            f"{MAX_CITATION_CHARS}",
            code="bad_candidate",
        )
    return text or None


def _check_authors(value: object, where: str) -> None:
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


def _year(value: object, where: str) -> int | None:
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
    try:
        return normalise_arxiv_id(value)[0]
    except BadInput as exc:
        raise BadInput(f"{where}: {exc.message}", code=exc.code) from None


def _doi(value: str | None) -> str | None:
    """A DOI as cited, LaTeX escapes undone (`10.1007/978-1-4612-2966-7\\_17`, `{\\_}`)."""
    if not value:
        return None
    return doi_text(re.sub(r"\{?\\([_%&#$])\}?", r"\1", value)) or None


def _s2_id(value: str | None, where: str) -> str | None:
    if not value:
        return None
    try:
        return s2_id(value)
    except BadInput as exc:
        raise BadInput(f"{where}: {exc.message}", code=exc.code) from None


def _zbl(value: str | None, where: str) -> str | None:
    if not value:
        return None
    try:
        found = zbmath_identifier(value if value.lower().startswith("zbl") else f"Zbl:{value}")
    except BadInput as exc:
        raise BadInput(f"{where}: {exc.message}", code=exc.code) from None
    if found.kind != "zbl":
        raise BadInput(f"{where}: zbl {value!r} is not a Zbl number (NNNN.NNNNN)", "bad_id")
    return found.value


# ----------------------------------------------------------------------------- verifying
