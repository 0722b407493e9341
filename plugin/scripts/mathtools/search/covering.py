"""Every key term a problem names in a planned query (protocol section 7, rule 2): the
Semantic Scholar queries of a plan, changed so that a term no proposal holds is in one, the
budget of five queries a source kept by merging terms into phrases rather than dropping them.
"""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import replace
from typing import cast

from ..core import fold
from . import problemterms, querylines
from .commandlines import Query, S2Query
from .keyterms import same_stem
from .querylines import normalise_query_line, query_key

MAX_S2_WORDS = 8  # words of a Semantic Scholar query that merges key terms, at most


def covering(
    given: problemterms.SearchTerms, queries: dict[str, list[Query]], searched: Set[str],
    per_query: int, max_queries: int,
) -> tuple[list[Query], list[str]]:  # fmt: skip
    """The Semantic Scholar queries (at most `max_queries`), changed so that every key term the
    problem names is in a planned query of either source ("sequential quadratic programming",
    "SQP" and "Robin coefficient" of an optimal-control problem were once in none). A term no
    query holds goes, in turn: into the query that holds some of its words already (the rest
    added), beside the next such term into a free slot or in place of the last query whose terms
    others hold, else at the end of the shortest query. Semantic Scholar's relevance search ranks
    by the words a paper holds and needs only half of them: merged terms widen a query where
    arXiv's AND would narrow it. Also the merged queries left out for being in the Search History
    already."""
    texts = [cast(S2Query, q.typed).query for q in queries["semantic_scholar"]]
    origins = [q.origin for q in queries["semantic_scholar"]]
    typed = [cast(S2Query, q.typed) for q in queries["semantic_scholar"]]
    arxiv_words = [query_words(q.query_line) for q in queries["arxiv"]]

    def words(text: str) -> set[str]:
        return {same_stem(word) for word in re.findall(r"[^\W\d_]+", fold(text))}

    def held(term: str, among: list[set[str]]) -> bool:
        return any(problemterms.term_words(term) <= query for query in among)

    def held_without(index: int, term: str) -> bool:
        return held(term, arxiv_words + [words(t) for i, t in enumerate(texts) if i != index])

    known = {*searched, *map(query_key, searched)}
    left_out: list[str] = []

    def fits(text: str) -> bool:
        line = Query("keywords", S2Query(query=unique_words(text.split()))).query_line
        if len(text.split()) > MAX_S2_WORDS:
            return False
        if {normalise_query_line(line), query_key(line)} & known:
            left_out.append(line)
            return False
        return True

    missing = [t for t in given.key if not held(t, arxiv_words + [words(t) for t in texts])]
    while missing:
        term = missing.pop(0)
        if held(term, [words(text) for text in texts]):
            continue
        partial = [i for i, text in enumerate(texts) if problemterms.term_words(term) & words(text)]
        spare = [
            i for i, text in enumerate(texts)
            if all(held_without(i, t) for t in given.key if held(t, [words(text)]))
        ]  # fmt: skip
        shortest = sorted(range(len(texts)), key=lambda i: len(texts[i].split()))
        if partial and fits(f"{texts[partial[0]]} {term}"):
            texts[partial[0]] += f" {term}"
            continue
        # Two terms make a query of their own; one alone joins a query (a lone word is no
        # Semantic Scholar query: its relaxation has nothing to drop).
        pair = f"{term} {missing[0]}" if missing and fits(f"{term} {missing[0]}") else None
        if pair and len(texts) < max_queries:
            texts.append(pair)
            origins.append("keywords")
            typed.append(S2Query(limit=per_query))
            missing.pop(0)
        elif pair and spare:
            texts[spare[-1]] = pair
            missing.pop(0)
        elif shortest and fits(f"{texts[shortest[0]]} {term}"):
            texts[shortest[0]] += f" {term}"
    chosen = [
        Query(origin, replace(search, query=unique_words(text.split())))
        for origin, search, text in zip(origins, typed, texts, strict=True)
    ]
    return chosen, list(dict.fromkeys(left_out))


def query_words(line: str) -> set[str]:
    """The search words of a query line, by stem, hyphenated parts apart."""
    return {
        same_stem(word)
        for _, value in querylines.query_line_terms(line) or []
        for word in re.findall(r"[^\W\d_]+", fold(value))
    }


def unique_words(words: list[str]) -> str:
    """The words, each once (by stem), in order."""
    seen: set[str] = set()
    kept = []
    for word in words:
        if same_stem(word) not in seen:
            seen.add(same_stem(word))
            kept.append(word)
    return " ".join(kept)
