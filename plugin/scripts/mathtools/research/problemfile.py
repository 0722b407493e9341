"""PROBLEM.md as the literature search reads it: frontmatter, the protocol's sections, and
`## References` read heuristically into authors, title, year and identifiers.

Identifiers in `## References` (arXiv ids, DOIs) are not queries: reference_candidates makes them
verify_batch.py candidates, and reference_keys the paper keys a search may find again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core import domains, frontmatter
from ..core.files import read_text
from ..core.identifiers import (
    ARXIV_DOI_PREFIX,
    ARXIV_NEW_ID_IN_TEXT,
    ARXIV_OLD_ID_IN_TEXT,
    DOI_IN_TEXT,
)

ARXIV_CATEGORY = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z-]{2,})?")  # math.SG, math-ph


YEAR = re.compile(r"\((1[89]\d\d|20\d\d)[a-z]?\)|\b(1[89]\d\d|20\d\d)\b")


TITLE_MARKUP = re.compile(
    r"\"([^\"]{8,})\"|\u201c([^\u201d]{8,})\u201d|\*([^*]{8,})\*|_([^_]{8,})_"
)


@dataclass
class Reference:
    """One item of `## References`, as far as a heuristic can read it."""

    text: str
    authors: list[str] = field(default_factory=list)  # family names
    title: str | None = None
    year: int | None = None
    arxiv_id: str | None = None
    doi: str | None = None


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
    references: list[Reference]
    extra_categories: list[str] = field(default_factory=list)  # frontmatter arxiv_categories


def read_problem(path: Path) -> Problem:
    """Parse a PROBLEM.md (frontmatter plus the protocol's body sections)."""
    meta, body = frontmatter.split(read_text(path, "PROBLEM.md"), str(path))
    sections = split_sections(body)
    domain = meta.get("domain")
    if domain is not None and str(domain) not in domains.DOMAINS:
        domain = None  # a custom domain has no category map; queries then carry no category
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


def split_sections(body: str) -> dict[str, str]:
    """Heading text (lower case) -> the text under it, up to the next heading of any level."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            current = sections.setdefault(heading.group(1).strip().lower(), [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in sections.items()}


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


def parse_reference(text: str) -> Reference:
    """Authors, title, year and identifiers of one reference line, as written.

    Understood shapes: `Authors (Year). Title. Venue.`, `Authors, "Title", Venue (Year).`,
    `Authors, *Title*, ...`, `Authors, Title, Venue.` and bare identifiers (`arXiv:...`, DOIs)."""
    ref = Reference(text=text)
    if match := ARXIV_NEW_ID_IN_TEXT.search(text) or ARXIV_OLD_ID_IN_TEXT.search(text):
        ref.arxiv_id = match.group(1)
    if match := DOI_IN_TEXT.search(text):
        ref.doi = match.group(1).lower()
        if ref.doi.startswith(ARXIV_DOI_PREFIX):
            ref.arxiv_id = ref.arxiv_id or ref.doi.removeprefix(ARXIV_DOI_PREFIX)
    year = YEAR.search(text)
    if year:
        ref.year = int(year.group(1) or year.group(2))
    markup = TITLE_MARKUP.search(text)
    sentence_end = SENTENCE_END.search(text)
    cut = min([m.start() for m in (year, markup, sentence_end) if m] + [len(text)])
    ref.authors, rest_at = _leading_names(text[:cut])
    if markup:
        ref.title = next(group for group in markup.groups() if group).strip().rstrip(".,")
        return ref
    rest = text[rest_at:] if rest_at < cut else text[cut:]
    rest = re.sub(r"^[\s.,;:]*(?:\((?:1[89]|20)\d\d[a-z]?\))?[\s.,;:]*", "", rest)
    rest = re.split(r",\s+(?=[A-Z]\w*\.\s)", rest)[0]  # ", Ann. Math. 12" starts the venue
    title = SENTENCE_END.split(rest, maxsplit=1)[0].strip(" .,;")
    title = TRAILING_YEAR.sub("", title).strip(" .,;")  # "..., NeurIPS (2015)" is no title
    if len(title.split()) >= 2 and not re.search(r"arxiv|doi|https?:", title, re.IGNORECASE):
        ref.title = title
    return ref


# A year closing a reference, with the short venue before it: ", NeurIPS (2015)", " (2008)".
TRAILING_YEAR = re.compile(r"(?:,\s*[A-Z][\w.&' -]{0,40}?)?\s*\((?:1[89]|20)\d\d[a-z]?\)$")


SENTENCE_END = re.compile(r"(?<=[^\W\d_][^\W\d_])\.\s|(?<=\d)\.\s(?=[A-Z])")


PARTICLES = frozenset("van von der den de del della di da du la le ter ten".split())  # noqa: SIM905


SEPARATOR = re.compile(r",\s*|\s+and\s+|\s*&\s*|;\s*")


def _leading_names(head: str) -> tuple[list[str], int]:
    """Family names of the author list that opens `head`, and where the rest of `head` begins.

    Reads "F. E. Browder", "W. van der Kallen" and "Goldreich, O., Ron, D." alike."""
    families: list[str] = []
    position = 0
    for chunk in re.split(f"({SEPARATOR.pattern})", head):
        name = re.sub(r"^(?:and|&)\s+", "", chunk.strip())
        if not name or SEPARATOR.fullmatch(chunk) or name in ("et al.", "et al"):
            position += len(chunk)
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
        position += len(chunk)
    return families, position


def _name_word(word: str) -> bool:
    """An initial ("F.", "J.-P."), a particle ("van") or a capitalised name ("O'Neil")."""
    if re.fullmatch(r"[^\W\d_]\.(?:-?[^\W\d_]\.)*", word) or word.lower() in PARTICLES:
        return True
    return bool(re.fullmatch(r"[^\W\d_][\w'\u2019\-]*", word)) and word[:1].isupper()


PROBLEM_SOURCE = "PROBLEM.md"  # the source of a candidate PROBLEM.md cites (problem-ref-N)


def reference_candidates(problem: Problem) -> list[dict[str, object]]:
    """PROBLEM.md's references as verify_batch.py candidates (verified, never assumed)."""
    candidates = []
    for number, ref in enumerate(problem.references, 1):
        candidate: dict[str, object] = {"key": f"problem-ref-{number}", "source": PROBLEM_SOURCE}
        for name in ("title", "arxiv_id", "doi", "year"):
            if getattr(ref, name):
                candidate[name] = getattr(ref, name)
        if ref.authors:
            candidate["authors"] = ref.authors
        if any(name in candidate for name in ("title", "arxiv_id", "doi")):
            candidates.append(candidate)
    return candidates


def reference_keys(problem: Problem) -> set[str]:
    """The paper keys (mathtools.paper.Paper.key) of PROBLEM.md's references that carry an
    arXiv id or a DOI: a search that finds one of them found what the problem already cites."""
    keys = set()
    for ref in problem.references:
        if ref.arxiv_id:
            keys.add(f"arXiv:{ref.arxiv_id}")
        if ref.doi:
            keys.add(f"DOI:{ref.doi}")
    return keys
