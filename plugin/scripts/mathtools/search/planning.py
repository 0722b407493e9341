"""Discovery query planning: from a PROBLEM.md to 3-5 queries per API (protocol sections 2 and 7).

The plan is deterministic: the same PROBLEM.md and LITERATURE.md always give the same queries.
Each query is drawn from one of the protocol's five sources:

  keywords    key terms of the title and problem statement (LaTeX stripped)
  tags        the frontmatter tags, inside the domain's primary arXiv categories
  known       theorem and technique names from `## Known Results`
  authors     family names from `## References`
  browse      the title's setting (what follows "in", "on": "in photoacoustic imaging"), else
              the core term, across the domain's primary and secondary categories

and is given as the exact argument list of `arxiv_query.py`, `s2_lookup.py` or `zbmath_lookup.py`
(zbMATH Open queries are restricted to the domain's MSC classes, domains.MSC). Every query also
has a `query_line`, the one-line form the run store records (LITERATURE.md's Search History shows
a short summary of it); a query whose query line the problem's runs, or the Search History,
already hold is skipped (the incremental rule: never re-run an identical query).

PROBLEM.md is read by problemfile, its key terms found by keyterms, a query line written by
querylines and a query's command line by commandlines; this module chooses the queries.
Identifiers in `## References` (arXiv ids, DOIs) are not queries: they become candidates that go
straight to verification.
"""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import replace

from ..core import DOMAINS, NAMES, PLANNED, BadInput, categories, fold, msc_classes, strip_latex
from .commandlines import (
    ArxivQuery,
    Plan,
    Query,
    S2Query,
    Skipped,
    ZbmathQuery,
    query_entry,
    record_run_args,
    results_stem,
)
from .keyterms import (
    GENERIC,
    distinct,
    generality,
    is_notation,
    problem_terms,
    result_names,
    same_stem,
)
from .problemfile import Problem, ProblemReference, reference_candidates
from .querylines import normalise_query_line

MIN_QUERIES, MAX_QUERIES = 3, 5
# zbMATH Open supplements the two discovery sources (classics, books, journal-only work): three
# queries at most, and a plan with fewer needs no note.
MAX_ZBMATH_QUERIES = 3

# Title words that introduce the setting rather than the subject: "Fixed points of
# nonexpansive maps on uniformly convex Banach spaces" is about fixed points.
SETTING = re.compile(r"\s(?:on|in|over|inside|of\s+the\s+form)\s", re.IGNORECASE)


def plan(
    problem: Problem,
    searched: Set[str] = frozenset(),
    focus: str | None = None,
    per_query: int = 5,
    search_folder: str | None = None,
) -> Plan:
    """The plan: up to five queries per API, new ones only, and the references to verify.

    With `search_folder`, every query's `args` end with
    `--out <search_folder>/i1-<api>-<n>.json`."""
    proposals = {api: _proposals(problem, api, focus, per_query) for api in PLANNED}
    queries: dict[str, list[Query]] = {}
    skipped: list[Skipped] = []
    for api, candidates in proposals.items():
        chosen: list[Query] = []
        seen: set[str] = set()
        for query in candidates:
            line = normalise_query_line(query.query_line)
            if line in seen:
                continue
            seen.add(line)
            if line in searched:
                skipped.append(
                    {"source": api, "query_line": query.query_line, "reason": "in Search History"}
                )
            elif len(chosen) < (MAX_ZBMATH_QUERIES if api == "zbmath" else MAX_QUERIES):
                chosen.append(query)
        queries[api] = chosen
    skipped_sources = {item["source"] for item in skipped}
    # A focus gives its own 2-3 queries (protocol section 7, rule 6): few is no fault of
    # PROBLEM.md's then.
    notes = [
        f"only {len(queries[api])} {NAMES[api]} queries: PROBLEM.md gives few search terms; "
        "tags, known results or references in it would give more"
        for api in PLANNED
        if len(queries[api]) < MIN_QUERIES
        and api not in skipped_sources
        and api != "zbmath"
        and not (focus and focus.strip())
    ]
    if (
        focus
        and focus.strip()
        and not any(q.origin == "focus" for qs in queries.values() for q in qs)
    ):
        notes.append(
            f"no new query for the focus {focus.strip()!r}: each of its queries is in the "
            "Search History; refine with other key terms"
        )
    planned = {
        api: [
            query_entry(q, search_folder, results_stem(1, api, n))
            for n, q in enumerate(queries[api], 1)
        ]
        for api in PLANNED
    }
    result: Plan = {
        "problem": problem.slug,
        "domain": problem.domain,
        "categories": [
            *(categories(problem.domain) if problem.domain else []),
            *problem.extra_categories,
        ],
        "secondary_categories": _secondary(problem.domain),
        "msc_classes": msc_classes(problem.domain) if problem.domain else [],
        "terms": _terms(problem),
        "tags": problem.tags,
        "known_results": [n for item in problem.known_results for n in result_names(item)],
        "reference_authors": _reference_authors(problem),
        "queries": planned,
        "skipped": skipped,
        "notes": notes,
        "reference_candidates": reference_candidates(problem),
        "query_summary": "; ".join(q.query_line for api in PLANNED for q in queries[api]),
        "first_search": not searched,
        "search_folder": search_folder,
        "reference_candidates_file": None,
    }
    if search_folder and any(planned.values()):
        result["record_run"] = record_run_args(problem.slug, 1, search_folder)
    return result


def _secondary(domain: str | None) -> list[str]:
    return list(DOMAINS[domain][1]) if domain else []


def _terms(problem: Problem) -> list[str]:
    """Key terms: the title's first (a title names the problem), then the statement's. A common
    word left alone ("type" of "general type", "products" of "quotients of products of curves")
    is none: no query asks it alone, and beside another term it says nothing the domain does
    not, so the statement's next phrase takes its place."""
    terms = distinct(_title_terms(problem) + problem_terms(problem.statement, 8))
    return [term for term in terms if not _common_alone([term])]


def _next_terms(terms: list[str], core: str) -> list[str]:
    """The three key terms after the core one, for the fallback queries: a phrase before a lone
    word, since its words together say what it is about ("finite group acting freely") where a
    lone word ("quotients") finds whatever uses it."""
    rest = [term for term in terms if same_stem(term) != same_stem(core)][:3]
    return sorted(rest, key=lambda term: len(term.split()) == 1)


def _title_terms(problem: Problem) -> list[str]:
    """The title's key phrases, its subject first: what comes before a setting word ("on",
    "in") leads. A one-word subject ("Mixing") is named by the statement's phrase that holds it
    ("mixing time"), so that no query repeats the word inside a longer phrase."""
    subject, setting = _title_parts(problem)
    terms = distinct(problem_terms(subject, 4) + problem_terms(setting, 4))
    if terms and len(terms[0].split()) == 1:
        word = same_stem(terms[0])
        longer = (t for t in problem_terms(problem.statement, 8) if word in same_stem(t).split())
        terms[0] = next(longer, terms[0])
    return terms


def _title_parts(problem: Problem) -> tuple[str, str]:
    """The title's subject and its setting, what follows the first setting word ("Recovering
    the initial pressure", "photoacoustic imaging"); the setting is empty without one."""
    subject, *setting = SETTING.split(problem.title, maxsplit=1)
    return subject, " ".join(setting)


def _companion(problem: Problem, core: str, title_terms: list[str], terms: list[str]) -> list[str]:
    """The term that goes with the core one in the keywords query: the title's next phrase, else
    the statement phrase whose new words recur most in PROBLEM.md (a word the title, tags and
    known results repeat is central; RAKE alone favours long phrases such as "finite symmetric
    set"). None that holds, or is held by, the core phrase."""
    counts: dict[str, int] = {}
    for text in [problem.title, problem.statement, *problem.known_results, *problem.tags]:
        for word in re.findall(r"[^\W\d_]+", strip_latex(text, for_search=True)):
            counts[same_stem(word)] = counts.get(same_stem(word), 0) + 1
    core_words = set(same_stem(core).split())

    def salience(term: str) -> float:
        new = [w for w in same_stem(term).split() if w not in core_words and w not in GENERIC]
        return sum(counts.get(w, 0) for w in new) / len(new) if new else 0.0

    def apart(term: str) -> bool:
        words = set(same_stem(term).split())
        return not (words <= core_words or core_words <= words)

    rest = [t for t in terms if t not in title_terms]
    ranked = sorted(rest, key=lambda t: -salience(t))  # stable: ties keep their order
    return [t for t in title_terms[1:] + ranked if apart(t)][:1]


def _reference_authors(
    problem: Problem, references: list[ProblemReference] | None = None
) -> list[str]:
    families: list[str] = []
    for ref in problem.references if references is None else references:
        for family in ref.names:
            if fold(family) not in {fold(f) for f in families}:
                families.append(family)
    return families


def _query_authors(problem: Problem, api: str) -> list[str]:
    """Reference authors for author queries, those of recent references first (a reference with
    an arXiv id, then the newest): their other papers are the ones a search can still add. On
    arXiv, only authors of a reference with an arXiv id: theirs is work known to be there, while
    a classic's author ("Turing", "Hamilton") finds only namesakes."""
    recent_first = sorted(problem.references, key=lambda r: (not r.arxiv_id, -(r.year or 0)))
    families = _reference_authors(problem, recent_first)
    if api != "arxiv":
        return families
    on_arxiv = {fold(name) for ref in problem.references if ref.arxiv_id for name in ref.names}
    return [family for family in families if fold(family) in on_arxiv]


def _proposals(problem: Problem, api: str, focus: str | None, per_query: int) -> list[Query]:
    """Every query the five sources suggest for one API, best first (more than needed, so that
    skipping the ones already searched still leaves enough).

    Queries are what an expert types: the problem's mathematical nouns and named objects, a
    phrase quoted only when it names a result (a named theorem or object of Known Results), at
    most MAX_ARXIV_WORDS AND-ed words otherwise on arXiv (whose search is boolean: every word
    must occur), and an author always with a topic word."""
    if api == "zbmath":  # the problem's classics: a focus search has found them before
        return [] if focus and focus.strip() else _zbmath_proposals(problem, per_query)
    terms = _terms(problem)
    names = _query_names(problem)
    authors = _query_authors(problem, api)
    domain_args = _scope(problem, secondary=False)
    tags = [_tag_words(tag) for tag in problem.tags]
    proper = _proper_names(problem)
    out: list[Query] = []

    def add(
        origin: str,
        arxiv_terms: list[str],
        s2_text: str,
        extra: ArxivQuery = NO_SCOPE,
        person: bool = False,
    ) -> None:
        """One query: arXiv ANDs `arxiv_terms` in any field, with `extra` options (categories,
        author); S2 searches `s2_text`, each word once. Every planned search relaxes itself.
        A `person` query (a name beside a topic word) keeps its categories: arXiv's any-field
        search reads author lists too, and the category keeps out namesakes."""
        arxiv_terms = _unrepeated(arxiv_terms)
        if api == "arxiv":
            if origin == "tags" and FIELD_OF_STUDY.search(s2_text):
                return  # the category says it; papers of the field seldom name it
            if not extra.author and _common_alone(arxiv_terms):
                return
            if extra == domain_args and not person and _named(arxiv_terms, proper):
                extra = NO_SCOPE  # a named object is specific in any field: no category hides it
            if arxiv_terms or extra != NO_SCOPE:
                search = replace(extra, all_terms=tuple(arxiv_terms), limit=per_query)
                out.append(Query(origin, search))
        elif s2_text.strip():
            text = _unique_words(s2_text.split())
            if not _common_alone([text]):
                out.append(Query(origin, S2Query(query=text, limit=per_query)))

    title_terms = _title_terms(problem) or terms[:1]
    core = title_terms[0] if title_terms else (tags[0] if tags else problem.title)
    if not core.split():  # an empty, NUL-filled or garbage PROBLEM.md
        raise BadInput(
            "PROBLEM.md gives nothing to search for: no title, statement or tags with words",
            code="empty_problem",
        )
    concepts = {same_stem(n) for n in names}
    core_words = _arxiv_words(core, concepts)
    topic = _topic_word(core)
    if focus and focus.strip():
        focus_terms = problem_terms(focus, 3) or [strip_latex(focus, for_search=True)]
        pairs = [focus_terms[:2], [focus_terms[0], core], *([t, core] for t in focus_terms[1:3])]
        for pair in pairs:
            words = _combined(pair, concepts)
            add("focus", words, " ".join(pair), domain_args)
        return out  # planned from the focus alone: the problem's own queries were made before
    if terms:
        others = [] if len(core_words) > 1 else _companion(problem, core, title_terms, terms)
        add("keywords", _combined([core, *others], concepts), " ".join([core, *others]),
            domain_args)  # fmt: skip
    searched = {same_stem(t) for t in [core, *tags[:2]]}
    known = [n for n in names if same_stem(n) not in searched][:2]
    # One query of each kind before a second one: a tag, a named result, an author (a name
    # finds namesakes, so it goes with a topic word), then the next tag and named result.
    for rank in range(2):
        tag = tags[rank] if rank < len(tags) else None
        if tag and same_stem(tag) != same_stem(core):
            add("tags", _arxiv_words(tag, concepts), tag, domain_args)
        if rank < len(known):
            name = known[rank]
            # "Gromov's theorem" alone names many theorems: the person and the topic say which.
            person = re.split(r"[\s']", name.replace("\u2019", "'"), maxsplit=1)[0]
            if EPONYM.fullmatch(name) and same_stem(person) != same_stem(topic):
                add("known", [person, topic], f"{name} {core}", domain_args, person=True)
            else:
                add("known", [name], name, domain_args)
        for family in authors[:1] if rank == 0 else ():
            add("authors", [topic], f"{family} {core}", replace(domain_args, author=(family,)))
    if problem.domain or problem.extra_categories:
        # The title's setting ("in photoacoustic imaging") across the wider categories: the
        # keywords query has searched its subject in the domain's already.
        setting = problem_terms(_title_parts(problem)[1], 1)
        wider = _arxiv_words(setting[0], concepts) if setting else core_words
        add("browse", wider, "", _scope(problem, secondary=True))
        broader = [t for t in terms if same_stem(t) != same_stem(core)][:2]
        add("browse", [], " ".join(broader))
    # Fallbacks so that a sparse PROBLEM.md still yields at least three queries.
    add("keywords", core_words, "", domain_args)
    for term in _next_terms(terms, core):
        add("keywords", _arxiv_words(term, concepts), term, domain_args)
    for tag in tags[2:]:
        add("tags", _arxiv_words(tag, concepts), tag, domain_args)
    return out


# A tag that names a field of study ("knot theory", "continuous logic", "algebraic statistics")
# says what the category filter already says, and papers of the field seldom write it in their
# abstract, which is all arXiv's search reads: on arXiv it is no query of its own.
FIELD_OF_STUDY = re.compile(r"\b(?:theory|logic|statistics|calculus|geometry|analysis)$", re.I)


def _proper_names(problem: Problem) -> set[str]:
    """Words PROBLEM.md writes as proper names (folded): capitalised inside a sentence of the
    statement or Known Results ("the Hartree equation", "Euler-Lagrange"), never lower case,
    and each capitalised part of a hyphenated word ("Thompson-like": Thompson). A title
    capitalises every word, and a sentence its first: neither says anything."""
    capital: set[str] = set()
    lower: set[str] = set()
    for text in [problem.statement, *problem.known_results]:
        for sentence in re.split(r"(?<=[.?!:])\s+|\n\s*\n", strip_latex(text, for_search=True)):
            for word in re.findall(r"[^\W\d_][\w'\u2019\-]*", sentence)[1:]:
                for part in {word, *word.split("-")} - {""}:
                    (capital if part[0].isupper() and not part.isupper() else lower).add(fold(part))
    return {word for word in capital - lower if len(word) > 2}


def _named(values: list[str], proper: set[str]) -> bool:
    """Does one of an arXiv query's values hold a proper name?"""
    return any(
        fold(part) in proper or fold(word) in proper
        for value in values
        for word in value.split()
        for part in word.split("-")
    )


MAX_ARXIV_WORDS = 3  # AND-ed words in one arXiv query, at most
COMPOUND = re.compile(r"[a-z]{3,}(?:-[a-z]{3,})+")  # lower-case words joined by hyphens


def _arxiv_words(term: str, concepts: set[str]) -> list[str]:
    """A term as arXiv search values: one quoted phrase when it names a concept, else its words
    (each AND-ed, in any order: "normalized Ricci flows" finds "normalized Ricci flow"), the
    last MAX_ARXIV_WORDS of them (the head of an English noun phrase ends it); a generic word
    that opens a longer phrase goes ("sample complexity" stays), and with too many words every
    generic one ("mean first passage time" -> "mean first passage")."""
    if same_stem(term) in concepts or len(term.split()) == 1:
        return [term]
    words = [w for w in term.split() if not is_notation(w)] or term.split()
    # "edge-weighted" is as often "weighted edge": a compound of common words goes apart.
    words = [part for w in words for part in (w.split("-") if COMPOUND.fullmatch(w) else [w])]
    while len(words) > 2 and same_stem(words[0]) in GENERIC:  # "Counting lattice points"
        words = words[1:]
    if len(words) > MAX_ARXIV_WORDS:  # too many to AND: generic words go first
        words = [w for w in words if same_stem(w) not in GENERIC] or words
    return words[-MAX_ARXIV_WORDS:]


def _combined(terms: list[str], concepts: set[str]) -> list[str]:
    """Several terms as one arXiv query: the first term's values, then words of the others
    not already in while the query holds at most MAX_ARXIV_WORDS words."""
    values: list[str] = _arxiv_words(terms[0], concepts) if terms else []
    for term in terms[1:]:
        for value in _arxiv_words(term, concepts):
            held = {same_stem(w) for v in values for w in v.split()}
            if same_stem(value) in held or set(same_stem(value).split()) <= held:
                continue
            if sum(len(v.split()) for v in values) + len(value.split()) > MAX_ARXIV_WORDS:
                break
            values.append(value)
    return values


def _topic_word(core: str) -> str:
    """The word that keeps an author search on topic: the core term's rarest word, the last of
    those ("Hartree equation" -> "Hartree", "prime factor" -> "factor", "Maximal risk" ->
    "risk")."""
    words = [w for w in core.split() if not is_notation(w)] or core.split()
    least = min(generality(w) for w in words)
    return [w for w in words if generality(w) == least][-1]


NO_SCOPE = ArxivQuery()  # an arXiv query in every category


def _scope(problem: Problem, secondary: bool) -> ArxivQuery:
    """The arXiv categories of a query: the domain's (with `secondary`, all of them), and the
    categories PROBLEM.md names itself."""
    return ArxivQuery(
        domain=problem.domain,
        secondary=bool(problem.domain and secondary),
        category=tuple(problem.extra_categories),
    )


def _query_names(problem: Problem) -> list[str]:
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


def _zbmath_proposals(problem: Problem, per_query: int) -> list[Query]:
    """zbMATH Open queries: mathematics' own index finds the journal articles, books and papers
    older than arXiv that the other two miss. Each is restricted to the domain's own MSC class
    (`cc:11` for number theory); the core term in titles, the known results and the reference
    authors (all of them: zbMATH indexes the classics arXiv lacks), then the other terms. A
    focus (or gap) search plans none: these are the problem's classics, not the focus's."""
    msc = (msc_classes(problem.domain)[0],) if problem.domain else ()
    terms = _terms(problem)
    title_terms = _title_terms(problem) or terms[:1]
    tags = [_tag_words(tag) for tag in problem.tags]
    core = title_terms[0] if title_terms else (tags[0] if tags else problem.title)
    if not core.split():  # an empty, NUL-filled or garbage PROBLEM.md
        raise BadInput(
            "PROBLEM.md gives nothing to search for: no title, statement or tags with words",
            code="empty_problem",
        )
    names = _query_names(problem)
    out: list[Query] = []

    def add(
        origin: str, title: str | None = None, author: str | None = None, query: str | None = None
    ) -> None:
        search = ZbmathQuery(title=title, author=author, query=query, msc=msc, limit=per_query)
        out.append(Query(origin, search))

    if core:
        add("keywords", title=core)
    for name in [n for n in names if same_stem(n) != same_stem(core)][:2]:
        add("known", query=name)
    for family in _reference_authors(problem)[:2]:
        add("authors", author=family, query=core)
    for tag in tags[:2]:
        add("tags", query=tag)
    for term in _next_terms(terms, core):
        add("keywords", query=term)
    return out


# A theorem named after one person and nothing more ("Gromov's theorem", "Zhang theorem").
EPONYM = re.compile(
    r"[A-Z][\w\-\u2013]*(?:'s|s')?\s+(?:theorem|lemma|conjecture|inequality|formula|principle)"
)


def _tag_words(tag: str) -> str:
    """A tag as search words: "fixed-point" -> "fixed point", but "o-minimality" and "p-adic"
    keep the hyphen that makes them words."""
    return re.sub(r"(?<!\b[^\W\d_])-(?![^\W\d_]\b)", " ", tag).strip()


def _unrepeated(values: list[str]) -> list[str]:
    """An arXiv query's values without one whose words the values before it hold already
    ("Kakeya" beside "Kakeya"): AND-ing a word twice narrows nothing."""
    kept: list[str] = []
    held: set[str] = set()
    for value in values:
        words = set(same_stem(value).split())
        if words and not words <= held:
            kept.append(value)
            held |= words
    return kept


def _common_alone(values: list[str]) -> bool:
    """Is the query one common word alone ("Complexity", "Brownian")? It finds everything of the
    field; a proper name or a rare word ("Kakeya", "flops") alone is a fine query."""
    return len(values) == 1 and len(values[0].split()) == 1 and generality(values[0]) > 0


def _unique_words(words: list[str]) -> str:
    """The words, each once (by stem), in order."""
    seen: set[str] = set()
    kept = []
    for word in words:
        if same_stem(word) not in seen:
            seen.add(same_stem(word))
            kept.append(word)
    return " ".join(kept)
