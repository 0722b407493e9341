"""The screen of a planned search: does a paper it found hold the words it was asked for?

A relevance search (Semantic Scholar) returns papers that hold only some of the query's words,
and an OR of words (arXiv's loosest relaxation) returns any paper with one of them: "hilbert
transform" brings "Hilbert-Siegel modular forms". Such a paper is set aside before the model
reads it (relaxation.relaxed counts it in `set_aside`); the search result keeps the count, not
the paper. Words match loosely, as a search engine stems: a word's stem (its first letters,
all but the last three of a long word) begins a word of the title, abstract or author names,
both in American spelling.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..core.records import Paper
from ..core.text import american_spelling, fold
from .keyterms import STOPWORDS, generality

__all__ = ["first_held", "holds", "required"]

_WORD = re.compile(r"[a-z0-9]+")


def required(words: Sequence[str]) -> tuple[str, ...]:
    """The words of a query a paper it finds must hold: its rarest (keyterms.generality), so
    "resetting" of "stochastic resetting", both of "Hilbert transform"; a commoner word
    ("stochastic", "bound") a paper on the subject may say otherwise. Function words never."""
    content = [w for w in words if fold(w) not in STOPWORDS and _parts(w)]
    least = min((generality(w) for w in content), default=0)
    return tuple(w for w in content if generality(w) == least)


def holds(paper: Paper, words: Sequence[str]) -> bool:
    """Does the paper hold every one of `words`, in its title, abstract or author names? When
    they come down to one word (a one-word search, an OR, one rare word among common ones), in
    its title: the title says what a paper is about, a mention in its abstract does not. A paper
    without an abstract has its title and authors to hold them."""
    if not words:
        return True
    shown = [paper.title or ""] if len(words) == 1 else [paper.title or "", paper.abstract or ""]
    found = {american_spelling(w) for w in _WORD.findall(fold(" ".join(shown + paper.authors)))}
    return all(all(_held(part, found) for part in _parts(word)) for word in words)


def first_held(papers: Sequence[Paper], words: Sequence[str]) -> tuple[str, ...]:
    """The first of `words` that one of the papers holds, as the one word they must hold; none
    held, the words themselves (so that every paper is set aside). Rarity in the results: of
    "zzzz OR sandpile", sandpile is what the papers found are about."""
    for word in words:
        if any(holds(paper, [word]) for paper in papers):
            return (word,)
    return tuple(words)


def _parts(word: str) -> list[str]:
    """A query word's folded parts in American spelling ("Navier-Stokes" -> navier, stokes;
    "Bruijn's" -> bruijn; "colourings" -> colorings)."""
    return [american_spelling(part) for part in _WORD.findall(fold(word)) if part != "s"]


def _stem(word: str) -> str:
    """A word's stem: a long word's first letters (all but its last three), a short one
    without a plural s ("diffeomorphisms" and "diffeomorphic" share "diffeomorphi")."""
    return word[: len(word) - 3] if len(word) > 7 else word.rstrip("s") or word


def _held(part: str, found: set[str]) -> bool:
    stem = _stem(part)
    return any(w.startswith(stem) for w in found)
