"""PROBLEM.md as the literature search reads it: frontmatter, the protocol's sections, and
`## References`, each item kept whole as written.

A reference is a citation as a mathematician writes it, one per list item. It is never split
into author and title: reference_candidates hands it whole to verification (gate/citations.py
matches it against the records Crossref and Semantic Scholar return for it), with what it states
unambiguously: an arXiv id, a DOI, a year. The family names it opens with are read only as hints
for author queries (planning.py), never as its authors. reference_keys gives the paper keys a
search may find again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core import (
    ARXIV_DOI_PREFIX,
    ARXIV_NEW_ID_IN_TEXT,
    ARXIV_OLD_ID_IN_TEXT,
    DOI_IN_TEXT,
    domain_name,
    read_text,
    split_frontmatter,
    split_sections,
    without_identifiers,
)

ARXIV_CATEGORY = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z-]{2,})?")  # math.SG, math-ph


YEAR = re.compile(r"(?<![\w./-])(1[89]\d\d|20\d\d)[a-z]?(?![\w/-])")
PARENTHESISED_YEAR = re.compile(r"\((1[89]\d\d|20\d\d)[a-z]?\)")
# A title set off in quotes or emphasis: where the names that open a reference end.
TITLE_MARKUP = re.compile(r"\"[^\"]{8,}\"|\u201c[^\u201d]{8,}\u201d|\*[^*]{8,}\*|_[^_]{8,}_")


@dataclass
class ProblemReference:
    """One item of `## References`: the citation whole, and what it states unambiguously."""

    text: str
    year: int | None = None
    arxiv_id: str | None = None
    doi: str | None = None
    names: list[str] = field(default_factory=list)  # family names it opens with: query hints


@dataclass
class Problem:
    """What the planner reads from a PROBLEM.md."""

    slug: str
    title: str
    domain: str | None
    subdomain: str | None
    tags: list[str]
    statement: str
    known_results: list[str]
    references: list[ProblemReference]
    extra_categories: list[str] = field(default_factory=list)  # frontmatter arxiv_categories


def read_problem(path: Path) -> Problem:
    """Parse a PROBLEM.md (frontmatter plus the protocol's body sections)."""
    meta, body = split_frontmatter(read_text(path, "PROBLEM.md"), str(path))
    sections = split_sections(body)
    # "pde", "optimization": a field's common name is its row; a custom domain has no category
    # map, and queries then carry no category.
    domain = domain_name(str(meta["domain"])) if meta.get("domain") else None
    tags = meta.get("tags") or []
    if isinstance(tags, str):
        tags = [part.strip() for part in tags.split(",")]
    title = str(meta.get("title") or "").strip()
    extra = meta.get("arxiv_categories") or []
    if isinstance(extra, str):
        extra = extra.replace(",", " ").split()
    return Problem(
        slug=str(meta.get("slug") or path.parent.name),
        title=title,
        domain=str(domain) if domain else None,
        subdomain=str(meta["subdomain"]) if meta.get("subdomain") else None,
        tags=[str(tag).strip() for tag in tags if str(tag).strip()],
        statement=sections.get("problem statement", ""),
        known_results=list_items(sections.get("known results", "")),
        references=[parse_reference(item) for item in list_items(sections.get("references", ""))],
        extra_categories=[str(c) for c in extra if ARXIV_CATEGORY.fullmatch(str(c))],
    )


def list_items(text: str) -> list[str]:
    """The items of a Markdown list (continuation lines joined); plain paragraphs if no list.

    Placeholders are no items: a paragraph wholly in parentheses (templates/PROBLEM.md's
    guidance) and a line such as "None given." (what the intake writes for an empty section)."""
    paragraphs = re.split(r"\n\s*\n", text)
    text = "\n\n".join(p for p in paragraphs if not _guidance(p.strip().removesuffix(".")))
    items: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        marker = re.match(r"([-*+]|\d+[.)])\s+(.*)", stripped)
        if marker:
            items.append(marker.group(2))
        elif stripped and items and line[:1].isspace():
            items[-1] += " " + stripped
        elif stripped and not stripped.startswith(("<!--", ">")):
            items.append(stripped)
    return [item for item in (i.strip() for i in items) if item and not _placeholder(item)]


PLACEHOLDER = re.compile(r"(?:none(?: given| yet| known| so far)?|n/a|tbd|todo)(?:\s*[:;,.].*)?")


def _guidance(paragraph: str) -> bool:
    """Is the paragraph one parenthesis, opened at its start and closed at its end?"""
    depth = 0
    for position, char in enumerate(paragraph):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return position == len(paragraph) - 1 and position > 0
    return False


def _placeholder(item: str) -> bool:
    return bool(PLACEHOLDER.fullmatch(item.lower().strip(" ()_*")))


def parse_reference(text: str) -> ProblemReference:
    """One reference line, kept whole, with its identifiers (arXiv ids, DOIs), its year when
    unambiguous (the one year in parentheses, else the one year-like number outside its
    identifiers) and the family names it seems to open with (author-query hints only)."""
    ref = ProblemReference(text=text)
    if match := ARXIV_NEW_ID_IN_TEXT.search(text) or ARXIV_OLD_ID_IN_TEXT.search(text):
        ref.arxiv_id = match.group(1)
    if match := DOI_IN_TEXT.search(text):
        ref.doi = match.group(1).lower()
        if ref.doi.startswith(ARXIV_DOI_PREFIX):
            ref.arxiv_id = ref.arxiv_id or ref.doi.removeprefix(ARXIV_DOI_PREFIX)
    ref.year = _year(text)
    markup = TITLE_MARKUP.search(text)
    stops = [m.start() for m in (markup, SENTENCE_END.search(text)) if m]
    stops += [m.start() for m in (YEAR.search(text), re.search(r"[:(]", text)) if m]
    ref.names = _leading_names(text[: min([*stops, len(text)])])
    return ref


def _year(text: str) -> int | None:
    """The one year in parentheses, else the one year-like number (identifiers and URLs left
    out); None when there is none or more than one."""
    bare = without_identifiers(text)
    for pattern in (PARENTHESISED_YEAR, YEAR):
        years = {int(found) for found in pattern.findall(bare)}
        if years:
            return years.pop() if len(years) == 1 else None
    return None


SENTENCE_END = re.compile(r"(?<=[^\W\d_][^\W\d_])\.\s|(?<=\d)\.\s(?=[A-Z])")


PARTICLES = frozenset("van von der den de del della di da du la le ter ten".split())  # noqa: SIM905


SEPARATOR = re.compile(r",\s*|\s+and\s+|\s*&\s*|;\s*")


def _leading_names(head: str) -> list[str]:
    """Family names of the author list that opens `head` (a guess, for author queries only).

    Reads "F. E. Browder", "W. van der Kallen" and "Goldreich, O., Ron, D." alike."""
    families: list[str] = []
    for chunk in re.split(f"({SEPARATOR.pattern})", head):
        name = re.sub(r"^(?:and|&)\s+", "", chunk.strip())
        if not name or SEPARATOR.fullmatch(chunk) or name in ("et al.", "et al"):
            continue
        words = name.split()
        if len(words) > 5 or not all(_name_word(w) for w in words):
            break
        full = [w for w in words if not w.endswith(".")]
        if full:
            first = next((i for i, w in enumerate(full) if w.lower() in PARTICLES), len(full) - 1)
            families.append(" ".join(full[first:]))
        elif not families:  # initials before any name: not an author list
            break
    return families


def _name_word(word: str) -> bool:
    """An initial ("F.", "J.-P."), a particle ("van") or a capitalised name ("O'Neil")."""
    if re.fullmatch(r"[^\W\d_]\.(?:-?[^\W\d_]\.)*", word) or word.lower() in PARTICLES:
        return True
    return bool(re.fullmatch(r"[^\W\d_][\w'\u2019\-]*", word)) and word[:1].isupper()


PROBLEM_SOURCE = "PROBLEM.md"  # the source of a candidate PROBLEM.md cites (problem-ref-N)


def reference_candidates(problem: Problem) -> list[dict[str, object]]:
    """PROBLEM.md's references as verify_batch.py candidates (verified, never assumed): each
    citation whole, with the identifiers and the year it states."""
    candidates = []
    for number, ref in enumerate(problem.references, 1):
        candidate: dict[str, object] = {"key": f"problem-ref-{number}", "source": PROBLEM_SOURCE}
        candidate["citation"] = ref.text
        for name in ("arxiv_id", "doi", "year"):
            if getattr(ref, name):
                candidate[name] = getattr(ref, name)
        candidates.append(candidate)
    return candidates


def reference_keys(problem: Problem) -> set[str]:
    """The paper keys (mathtools.core.records.Paper.key) of PROBLEM.md's references that carry an
    arXiv id or a DOI: a search that finds one of them found what the problem already cites."""
    keys = set()
    for ref in problem.references:
        if ref.arxiv_id:
            keys.add(f"arXiv:{ref.arxiv_id}")
        if ref.doi:
            keys.add(f"DOI:{ref.doi}")
    return keys
