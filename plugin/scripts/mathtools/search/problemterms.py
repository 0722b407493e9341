"""What a problem gives discovery to search (protocol section 7): its key terms, the title's
first, its named results, its reference authors, the words it writes as proper names and its
tags as words. planning.py makes the queries of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core import DOMAINS, BadInput, acronym_number, fold, named_fields
from .keyterms import (
    GENERIC,
    STOPWORDS,
    distinct,
    generality,
    is_notation,
    problem_terms,
    result_names,
    same_stem,
    search_text,
)
from .problemfile import Problem, ProblemReference


@dataclass(frozen=True)
class SearchTerms:
    """What a problem gives every source's queries, read once a plan."""

    terms: list[str]  # its key terms, the title's first (search_terms)
    title_terms: list[str]  # the title's key phrases, its subject first
    core: str  # the core term: the title's subject, else the first tag, else the title
    tags: list[str]  # the tags as search words
    names: list[str]  # named results of Known Results worth a query
    proper: set[str]  # the words PROBLEM.md writes as proper names
    key: list[str]  # what the problem names: every one is in a planned query (key_terms)


def read_search_terms(problem: Problem) -> SearchTerms:
    """A problem's search terms; BadInput when it gives nothing to search for."""
    terms = search_terms(problem)
    from_title = title_terms(problem) or terms[:1]
    written = acronyms(problem)
    tags = [
        " ".join(written.get(same_stem(word), word) for word in tag_words(tag).split())
        for tag in problem.tags
    ]
    core = from_title[0] if from_title else (tags[0] if tags else problem.title)
    if not core.split():  # an empty, NUL-filled or garbage PROBLEM.md
        raise BadInput(
            "PROBLEM.md gives nothing to search for: no title, statement or tags with words",
            code="empty_problem",
        )
    key = key_terms(problem, from_title, tags)
    names, proper = query_names(problem), proper_names(problem)
    return SearchTerms(terms, from_title, core, tags, names, proper, key)


def key_terms(problem: Problem, from_title: list[str], tags: list[str]) -> list[str]:
    """The terms the problem names, each of which some planned query holds: the
    title's key phrases, the tags, and each abbreviation the problem defines together with its
    expansion ("sequential quadratic programming SQP"), one term, since a search of the one
    finds the other's papers only when both are asked."""
    defined = [f"{expansion} {short}" for expansion, short in abbreviations(problem)]
    terms = distinct([*from_title, *tags, *defined])
    return [term for term in terms if term_words(term) and not common_alone([term])]


# An abbreviation defined in the text: "sequential quadratic programming (SQP)".
DEFINED = re.compile(r"((?:[^\W\d_][\w\-']*\s+){1,6})\(([A-Z][A-Za-z]*[A-Z])s?\)")


def abbreviations(problem: Problem) -> list[tuple[str, str]]:
    """(expansion, abbreviation) for each abbreviation the title, statement or Known Results
    define in parentheses after the words whose initials spell it ("sequential quadratic
    programming (SQP)"; a hyphenated word gives an initial a part: "Kumjian-Pask (KP)")."""
    found: list[tuple[str, str]] = []
    for text in [problem.title, problem.statement, *problem.known_results]:
        for match in DEFINED.finditer(search_text(text)):
            words, short = match.group(1).split(), match.group(2)
            kept: list[str] = []
            parts = 0
            for word in reversed(words):  # the last words, as many parts as letters
                if parts >= len(short):
                    break
                kept.insert(0, word)
                parts += len([part for part in word.split("-") if part])
            initials = "".join(p[0] for w in kept for p in w.split("-") if p).upper()
            if initials == short.upper() and (" ".join(kept), short) not in found:
                found.append((" ".join(kept), short))
    return found


def term_words(term: str) -> set[str]:
    """A term's words as a query must hold them to search it (by stem, hyphenated parts apart):
    its content words, the generic ones too only when it has no other ("Counting lattice points"
    is searched as "lattice points")."""
    words = [w for w in re.findall(r"[^\W\d_]+", fold(term)) if len(w) > 1 and w not in STOPWORDS]
    words = [w for w in words if not is_notation(w)]
    content = [w for w in words if same_stem(w) not in GENERIC] or words
    return {same_stem(word) for word in content}


def left_out_fields(problem: Problem) -> list[str]:
    """The fields (rows of the domain map) the problem names in its title, tags or statement
    whose primary arXiv categories its domain and its own categories leave out entirely ("PDE"
    in a problem of analysis, whose searches ask math.FA, math.CA, math.CV): where the answer may
    be filed, though the domain's category filter hides it."""
    if not problem.domain:
        return []
    searched = set(DOMAINS[problem.domain].primary) | set(problem.extra_categories)
    text = " ".join([problem.title, *problem.tags, problem.statement])
    return [row for row in named_fields(text) if not set(DOMAINS[row].primary) & searched]


# Title words that introduce the setting rather than the subject: "Fixed points of
# nonexpansive maps on uniformly convex Banach spaces" is about fixed points.
SETTING = re.compile(r"\s(?:on|in|over|inside|of\s+the\s+form)\s", re.IGNORECASE)


def search_terms(problem: Problem) -> list[str]:
    """Key terms: the title's first (a title names the problem), then the statement's. A common
    word left alone ("type" of "general type", "products" of "quotients of products of curves")
    is none: no query asks it alone, and beside another term it says nothing the domain does
    not, so the statement's next phrase takes its place."""
    terms = distinct(title_terms(problem) + problem_terms(problem.statement, 8))
    return [term for term in terms if not common_alone([term])]


def fallback_terms(terms: list[str], core: str) -> list[str]:
    """The three key terms after the core one, for the fallback queries: a phrase before a lone
    word, since its words together say what it is about ("finite group acting freely") where a
    lone word ("quotients") finds whatever uses it."""
    rest = [term for term in terms if same_stem(term) != same_stem(core)][:3]
    return sorted(rest, key=lambda term: len(term.split()) == 1)


def title_terms(problem: Problem) -> list[str]:
    """The title's key phrases, its subject first: what comes before a setting word ("on",
    "in") leads. A one-word subject ("Mixing") is named by the statement's phrase that holds it
    ("mixing time"), so that no query repeats the word inside a longer phrase."""
    subject, setting = title_parts(problem)
    terms = distinct(problem_terms(subject, 4) + problem_terms(setting, 4))
    if terms and len(terms[0].split()) == 1:
        word = same_stem(terms[0])
        longer = (t for t in problem_terms(problem.statement, 8) if word in same_stem(t).split())
        terms[0] = next(longer, terms[0])
    return terms


def title_parts(problem: Problem) -> tuple[str, str]:
    """The title's subject and its setting, what follows the first setting word ("Recovering
    the initial pressure", "photoacoustic imaging"); the setting is empty without one."""
    subject, *setting = SETTING.split(problem.title, maxsplit=1)
    return subject, " ".join(setting)


def companion_terms(
    problem: Problem, core: str, from_title: list[str], terms: list[str]
) -> list[str]:
    """The term that goes with the core one in the keywords query: the title's next phrase, else
    the statement phrase whose new words recur most in PROBLEM.md (a word the title, tags and
    known results repeat is central; RAKE alone favours long phrases such as "finite symmetric
    set"). None that holds, or is held by, the core phrase."""
    counts: dict[str, int] = {}
    for text in [problem.title, problem.statement, *problem.known_results, *problem.tags]:
        for word in re.findall(r"[^\W\d_]+", search_text(text)):
            counts[same_stem(word)] = counts.get(same_stem(word), 0) + 1
    core_words = set(same_stem(core).split())

    def salience(term: str) -> float:
        new = [w for w in same_stem(term).split() if w not in core_words and w not in GENERIC]
        return sum(counts.get(w, 0) for w in new) / len(new) if new else 0.0

    def apart(term: str) -> bool:
        words = set(same_stem(term).split())
        return not (words <= core_words or core_words <= words)

    rest = [t for t in terms if t not in from_title]
    ranked = sorted(rest, key=lambda t: -salience(t))  # stable: ties keep their order
    return [t for t in from_title[1:] + ranked if apart(t)][:1]


def reference_authors(
    problem: Problem, references: list[ProblemReference] | None = None
) -> list[str]:
    families: list[str] = []
    for ref in problem.references if references is None else references:
        for family in ref.names:
            if fold(family) not in {fold(f) for f in families}:
                families.append(family)
    return families


def query_authors(problem: Problem, api: str) -> list[str]:
    """Reference authors for author queries, those of recent references first (a reference with
    an arXiv id, then the newest): their other papers are the ones a search can still add. On
    arXiv, only authors of a reference with an arXiv id: theirs is work known to be there, while
    a classic's author ("Turing", "Hamilton") finds only namesakes."""
    recent_first = sorted(problem.references, key=lambda r: (not r.arxiv_id, -(r.year or 0)))
    families = reference_authors(problem, recent_first)
    if api != "arxiv":
        return families
    on_arxiv = {fold(name) for ref in problem.references if ref.arxiv_id for name in ref.names}
    return [family for family in families if fold(family) in on_arxiv]


def acronyms(problem: Problem) -> dict[str, str]:
    """The acronyms PROBLEM.md writes ("SPDEs", "ODE"), by stem, each as a singular in capitals:
    a tag writes them in lower case ("spde"), and a search asks an acronym in both numbers
    (services' field_term) only when it reads as one."""
    text = " ".join([problem.title, problem.statement, *problem.known_results])
    found: dict[str, str] = {}
    for word in re.findall(r"[^\W\d_]+", search_text(text)):
        other = acronym_number(word)
        if other is not None:
            found.setdefault(same_stem(word), min(word, other, key=len))
    return found


def proper_names(problem: Problem) -> set[str]:
    """Words PROBLEM.md writes as proper names (folded): capitalised inside a sentence of the
    statement or Known Results ("the Hartree equation", "Euler-Lagrange"), never lower case,
    and each capitalised part of a hyphenated word ("Thompson-like": Thompson). A title
    capitalises every word, and a sentence its first: neither says anything; an acronym, in
    either number ("PDE", "PDEs"), is no name."""
    capital: set[str] = set()
    lower: set[str] = set()
    for text in [problem.statement, *problem.known_results]:
        for sentence in re.split(r"(?<=[.?!:])\s+|\n\s*\n", search_text(text)):
            for word in re.findall(r"[^\W\d_][\w'\u2019\-]*", sentence)[1:]:
                for part in {word, *word.split("-")} - {""}:
                    name = part[0].isupper() and not part.isupper() and not acronym_number(part)
                    (capital if name else lower).add(fold(part))
    return {word for word in capital - lower if len(word) > 2}


def query_names(problem: Problem) -> list[str]:
    """Named results of `## Known Results` worth a query: theorems and objects the items name
    (or stress in bold), never a phrase of a sentence, nor what the problem sets itself against
    ("Non-tolerant uniformity testing")."""
    names: list[str] = []
    for item in problem.known_results:
        for name in result_names(item, phrase=False):
            if not NEGATED.match(name) and fold(name) not in map(fold, names):
                names.append(name)
    return names


NEGATED = re.compile(r"(?:non|not|un|in)-", re.IGNORECASE)


def tag_words(tag: str) -> str:
    """A tag as search words: "fixed-point" -> "fixed point", but "o-minimality" and "p-adic"
    keep the hyphen that makes them words."""
    return re.sub(r"(?<!\b[^\W\d_])-(?![^\W\d_]\b)", " ", tag).strip()


def common_alone(values: list[str]) -> bool:
    """Is the query one common word alone ("Complexity", "Brownian")? It finds everything of the
    field; a proper name or a rare word ("Kakeya", "flops") alone is a fine query."""
    return len(values) == 1 and len(values[0].split()) == 1 and generality(values[0]) > 0


# A letter (or two) hyphened to a common noun: "k-graphs", "L-functions", "q-curvature".
LETTERED = re.compile(r"[^\W\d_]{1,2}\*?-([^\W\d_]{3,})")


def lettered_alone(values: list[str]) -> bool:
    """Is the query one word alone that is a letter and a common noun ("k-graphs")? Its letter
    is notation, which no abstract need write so, and its noun is common: it says less than the
    problem's rarest term, which goes with it."""
    if len(values) != 1 or len(values[0].split()) != 1:
        return False
    match = LETTERED.fullmatch(values[0])
    return match is not None and generality(match.group(1)) > 0


def rarest_term(given: SearchTerms, apart_from: str) -> str | None:
    """The problem's rarest key term that does not hold `apart_from`'s words: one that names a
    person or object first ("Poincaré-Einstein metric"), then the one whose rarest word is rarest,
    the first of equals."""
    held = term_words(apart_from)

    def named(term: str) -> bool:
        return any(fold(part) in given.proper for word in term.split() for part in word.split("-"))

    candidates = [t for t in given.key if not term_words(t) & held and not common_alone([t])]
    ranked = sorted(candidates, key=lambda t: (not named(t), min(map(generality, t.split()))))
    return ranked[0] if ranked else None
