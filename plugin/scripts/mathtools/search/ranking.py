"""The order in which the model reads an iteration's papers: how well each one's title and
abstract answer the whole problem (agents/literature-search.md, step 2; protocol section 7).

Every paper a planned query returned is kept (rank, don't drop). The papers are
scored by BM25 (Robertson and Zaragoza's Okapi weighting, k1 = 1.2, b = 0.75) of the problem's
words against each paper's title and abstract, the title counted twice; a word's rarity (its
IDF) is taken over the iteration's own papers, so that what every candidate shares (the words
the searches asked for) weighs little and what sets the on-topic ones apart weighs much. The
problem's words are PROBLEM.md's statement, its title and tags (counted twice: the problem's
own names for its subject) and its Known Results. A name or a symbol is a word like any
other: it raises a paper that has it, and a paper without it loses nothing but that word.

The listing shows the best papers first, down to the cut (`read_first`: those scoring at least
half the best one's score, no fewer than READ_FIRST_MIN and no more than READ_FIRST_MAX), and
says how many more are below it (`literature.py more R` prints them). bench/bench_discovery.py
measured the choice on the labelled problem sets (bench/README.md, "Ranking").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from ..core import american_spelling, fold, strip_latex
from .keyterms import STATEMENT_WORDS, STOPWORDS
from .problemfile import Problem

__all__ = ["problem_words", "ranked", "read_first", "scores", "tokens"]

READ_FIRST_MIN, READ_FIRST_MAX = 2, 8  # papers the listing shows before the cut
CUT_SHARE = 0.5  # a paper above the cut scores at least this share of the best one
K1, B = 1.2, 0.75  # BM25's term saturation and length normalisation
TITLE_WEIGHT = 2  # a paper's title words count this many times
NAME_WEIGHT = 2  # the problem's title and tags count this many times

_WORD = re.compile(r"[a-z][a-z0-9]*")
_IGNORED = STOPWORDS | STATEMENT_WORDS


def tokens(text: str) -> list[str]:
    """Folded content words, American spelling, a light stem (a plural's s, "-ies" as "-y")."""
    found = []
    for word in _WORD.findall(fold(strip_latex(text, for_search=True))):
        if len(word) < 2 or word in _IGNORED:
            continue
        word = american_spelling(word)
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("s") and len(word) > 3 and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        found.append(word)
    return found


def problem_words(problem: Problem) -> Counter[str]:
    """The weighted words a paper is scored against: the statement and Known Results once, the
    title and tags NAME_WEIGHT times (a focus search ranks against its focus: readorder.py)."""
    words = Counter(tokens(problem.statement))
    words.update(tokens(" ".join(problem.known_results)))
    for _ in range(NAME_WEIGHT):
        words.update(
            tokens(" ".join([problem.title, *(t.replace("-", " ") for t in problem.tags)]))
        )
    return words


def _document(title: str | None, abstract: str | None) -> list[str]:
    return tokens(title or "") * TITLE_WEIGHT + tokens(abstract or "")


def scores(query: Counter[str], papers: Sequence[tuple[str | None, str | None]]) -> list[float]:
    """BM25 of each (title, abstract) against the weighted query words, IDF over `papers`."""
    documents = [_document(title, abstract) for title, abstract in papers]
    if not documents:
        return []
    average = sum(len(d) for d in documents) / len(documents) or 1.0
    frequency: Counter[str] = Counter()
    for document in documents:
        frequency.update(set(document))
    total = len(documents)
    result = []
    for document in documents:
        counts = Counter(document)
        norm = K1 * (1 - B + B * len(document) / average)
        score = 0.0
        for word, weight in query.items():
            tf = counts.get(word, 0)
            if tf:
                idf = math.log(1 + (total - frequency[word] + 0.5) / (frequency[word] + 0.5))
                score += weight * idf * tf * (K1 + 1) / (tf + norm)
        result.append(score)
    return result


def ranked(query: Counter[str], papers: Sequence[tuple[str | None, str | None]]) -> list[int]:
    """The papers' indices, best first (ties keep the order the searches returned them in)."""
    scored = scores(query, papers)
    return sorted(range(len(papers)), key=lambda i: (-scored[i], i))


def read_first(scored: Sequence[float]) -> int:
    """How many of the papers, best first, the model reads before the cut."""
    if not scored:
        return 0
    best = max(scored)
    close = sum(score >= CUT_SHARE * best for score in scored)
    return min(len(scored), READ_FIRST_MAX, max(READ_FIRST_MIN, close))
