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
already hold is skipped (the incremental rule: never re-run an identical query), and no two
queries of a plan ask the same words (querylines.query_key: plurals and order folded). Every key
term the problem names (problemterms.key_terms) is in a planned query of one source or the other:
one no proposal holds is merged into the Semantic Scholar queries (covering.py), the budget kept.

PROBLEM.md is read by problemfile, the key phrases of its text found by keyterms and what it
gives to search (key terms, named results, authors) chosen by problemterms, a query line written
by querylines and a query's command line by commandlines; this module makes the queries.
Identifiers in `## References` (arXiv ids, DOIs) are not queries: they become candidates that go
straight to verification.
"""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import replace

from ..core import DOMAINS, NAMES, PLANNED, categories, fold, msc_classes, strip_latex
from . import problemterms
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
from .covering import covering, unique_words
from .keyterms import (
    GENERIC,
    generality,
    is_notation,
    problem_terms,
    result_names,
    same_stem,
)
from .problemfile import Problem, reference_candidates
from .querylines import normalise_query_line, query_key

MIN_QUERIES, MAX_QUERIES = 3, 5
# zbMATH Open supplements the two discovery sources (classics, books, journal-only work): three
# queries at most, and a plan with fewer needs no note.
MAX_ZBMATH_QUERIES = 3


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
    given = problemterms.read_search_terms(problem)
    proposals = {api: _proposals(problem, given, api, focus, per_query) for api in PLANNED}
    queries: dict[str, list[Query]] = {}
    skipped: list[Skipped] = []
    for api, candidates in proposals.items():
        chosen: list[Query] = []
        seen: set[str] = set()
        for query in candidates:
            line = normalise_query_line(query.query_line)
            if query_key(query.query_line) in seen:  # "dimension" and "dimensions" are one
                continue
            seen.add(query_key(query.query_line))
            if line in searched:
                skipped.append(
                    {"source": api, "query_line": query.query_line, "reason": "in Search History"}
                )
            elif len(chosen) < (MAX_ZBMATH_QUERIES if api == "zbmath" else MAX_QUERIES):
                chosen.append(query)
        queries[api] = chosen
    if not (focus and focus.strip()):
        queries["semantic_scholar"], merged_searched = covering(
            given, queries, searched, per_query, MAX_QUERIES
        )
        skipped += [
            {"source": "semantic_scholar", "query_line": line, "reason": "in Search History"}
            for line in merged_searched
            if line not in {item["query_line"] for item in skipped}
        ]
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
        "terms": given.terms,
        "tags": problem.tags,
        "known_results": [n for item in problem.known_results for n in result_names(item)],
        "reference_authors": problemterms.reference_authors(problem),
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


def _proposals(
    problem: Problem, given: problemterms.SearchTerms, api: str, focus: str | None, per_query: int
) -> list[Query]:
    """Every query the five sources suggest for one API, best first (more than needed, so that
    skipping the ones already searched still leaves enough).

    Queries are what an expert types: the problem's mathematical nouns and named objects, a
    phrase quoted only when it names a result (a named theorem or object of Known Results), at
    most MAX_ARXIV_WORDS AND-ed words otherwise on arXiv (whose search is boolean: every word
    must occur), and an author always with a topic word."""
    if api == "zbmath":  # the problem's classics: a focus search has found them before
        return [] if focus and focus.strip() else _zbmath_proposals(problem, given, per_query)
    terms, title_terms, core, tags = given.terms, given.title_terms, given.core, given.tags
    authors = problemterms.query_authors(problem, api)
    domain_args = _scope(problem, secondary=False)
    out: list[Query] = []

    def add(
        origin: str,
        arxiv_terms: list[str],
        s2_text: str,
        extra: ArxivQuery = NO_SCOPE,
        person: bool = False,
        any_field: bool = False,
    ) -> None:
        """One query: arXiv ANDs `arxiv_terms` in any field, with `extra` options (categories,
        author); S2 searches `s2_text`, each word once (`any_field`: in every field of study).
        Every planned search relaxes itself. A `person` query (a name beside a topic word) keeps
        its categories: arXiv's any-field search reads author lists too, and the category keeps
        out namesakes."""
        arxiv_terms = _unrepeated(arxiv_terms)
        # "k-graphs" alone says less than the problem's rarest term: they go together.
        if problemterms.lettered_alone(arxiv_terms):
            rarest = problemterms.rarest_term(given, arxiv_terms[0])
            arxiv_terms += [_topic_word(rarest)] if rarest else []
        if problemterms.lettered_alone([s2_text]):
            rarest = problemterms.rarest_term(given, s2_text)
            s2_text += f" {rarest}" if rarest else ""
        if api == "arxiv":
            if origin == "tags" and FIELD_OF_STUDY.search(s2_text):
                return  # the category says it; papers of the field seldom name it
            if not extra.author and problemterms.common_alone(arxiv_terms):
                return
            if extra == domain_args and not person and _named(arxiv_terms, given.proper):
                extra = NO_SCOPE  # a named object is specific in any field: no category hides it
            if arxiv_terms or extra != NO_SCOPE:
                search = replace(extra, all_terms=tuple(arxiv_terms), limit=per_query)
                out.append(Query(origin, search))
        elif s2_text.strip():
            text = unique_words(s2_text.split())
            if not problemterms.common_alone([text]):
                wide = S2Query(query=text, limit=per_query, any_field=any_field)
                out.append(Query(origin, wide))

    concepts = {same_stem(n) for n in given.names}
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
        others = (
            []
            if len(core_words) > 1
            else problemterms.companion_terms(problem, core, title_terms, terms)
        )
        add("keywords", _combined([core, *others], concepts), " ".join([core, *others]),
            domain_args)  # fmt: skip
    searched = {same_stem(t) for t in [core, *tags[:2]]}
    known = [n for n in given.names if same_stem(n) not in searched][:2]
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
                add("known", _co_names(name) or [name], f"{name} {core}", domain_args)
        for family in authors[:1] if rank == 0 else ():
            add("authors", [topic], f"{family} {core}", replace(domain_args, author=(family,)))
    if problem.domain or problem.extra_categories:
        # The title's setting ("in photoacoustic imaging") across the wider categories: the
        # keywords query has searched its subject in the domain's already. A problem that names
        # a field its domain's categories leave out ("PDE" in analysis) browses every category
        # and every field of study instead: the answer may be filed there.
        setting = problem_terms(problemterms.title_parts(problem)[1], 1)
        wider = _arxiv_words(setting[0], concepts) if setting else core_words
        left_out = bool(problemterms.left_out_fields(problem))
        add("browse", wider, "", NO_SCOPE if left_out else _scope(problem, secondary=True))
        broader = [t for t in terms if same_stem(t) != same_stem(core)][:2]
        add("browse", [], " ".join(broader), any_field=left_out)
    # Fallbacks so that a sparse PROBLEM.md still yields at least three queries.
    add("keywords", core_words, "", domain_args)
    for term in problemterms.fallback_terms(terms, core):
        add("keywords", _arxiv_words(term, concepts), term, domain_args)
    for tag in tags[2:]:
        add("tags", _arxiv_words(tag, concepts), tag, domain_args)
    return out


# A tag that names a field of study ("knot theory", "continuous logic", "algebraic statistics")
# says what the category filter already says, and papers of the field seldom write it in their
# abstract, which is all arXiv's search reads: on arXiv it is no query of its own.
FIELD_OF_STUDY = re.compile(r"\b(?:theory|logic|statistics|calculus|geometry|analysis)$", re.I)


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


def _zbmath_proposals(
    problem: Problem, given: problemterms.SearchTerms, per_query: int
) -> list[Query]:
    """zbMATH Open queries: mathematics' own index finds the journal articles, books and papers
    older than arXiv that the other two miss. Each is restricted to the domain's own MSC class
    (`cc:11` for number theory); the core term in titles, the known results and the reference
    authors (all of them: zbMATH indexes the classics arXiv lacks), then the other terms. A
    focus (or gap) search plans none: these are the problem's classics, not the focus's."""
    msc = (msc_classes(problem.domain)[0],) if problem.domain else ()
    core = given.core
    out: list[Query] = []

    def add(
        origin: str, title: str | None = None, author: str | None = None, query: str | None = None
    ) -> None:
        search = ZbmathQuery(title=title, author=author, query=query, msc=msc, limit=per_query)
        out.append(Query(origin, search))

    if core:
        add("keywords", title=core)
    for name in [n for n in given.names if same_stem(n) != same_stem(core)][:2]:
        add("known", query=name)
    for family in problemterms.reference_authors(problem)[:2]:
        add("authors", author=family, query=core)
    for tag in given.tags[:2]:
        rarest = (
            problemterms.rarest_term(given, tag) if problemterms.lettered_alone([tag]) else None
        )
        add("tags", query=f"{tag} {rarest}" if rarest else tag)  # "k-graphs" says too little
    for term in problemterms.fallback_terms(given.terms, core):
        add("keywords", query=term)
    return out


# A theorem named after one person and nothing more ("Gromov's theorem", "Zhang theorem").
EPONYM = re.compile(
    r"[A-Z][\w\-\u2013]*(?:'s|s')?\s+(?:theorem|lemma|conjecture|inequality|formula|principle)"
)


# A result named after several people, joined by hyphens or "and": "Brezis-Van Schaftingen-Yung
# formula", "Chapman-Robbins and Hammersley bound".
CO_NAMED = re.compile(
    r"((?:[A-Z][\w']*\s)*[A-Z][\w']*(?:(?:-|\sand\s)(?:[A-Z][\w']*\s)*[A-Z][\w']*)+)\s+\w+"
)


def _co_names(name: str) -> list[str]:
    """The people of a result named after several, and its noun ("Brezis", "Van Schaftingen",
    "Yung", "formula"), each an arXiv value of its own; none for another name. A paper adds a
    co-author's name ("Brezis-Seeger-Van Schaftingen-Yung formulae") or writes the plural: the
    names in a row as one phrase miss it, and relaxing the query drops the noun first."""
    match = CO_NAMED.fullmatch(name)
    if not match:
        return []
    return [*re.split(r"-(?=[A-Z])|\sand\s", match.group(1)), name[match.end(1) :].strip()]


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
