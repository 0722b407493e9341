"""Short plain-text views of an abstract for the model: a gist to judge relevance by, an excerpt
(its result sentences) to write Key Results from.

An abstract often opens with background ("Distribution testing is a central problem ..."); what a
judge needs is what the paper does, so both views start at the first sentence that says so ("We
show ...", "In this paper ...", "Here ...") when there is one. LaTeX goes the way the matching
rules strip it (text.strip_latex), so `$\\varepsilon_2$` reads "epsilon2".
"""

from __future__ import annotations

import re

from ..core.text import one_line

GIST_WORDS = 25
EXCERPT_CHARS = 220  # two to three lines
LINE_CHARS = 96
CONTRIBUTION = re.compile(
    r"\b(?:we|our|this (?:paper|note|work|article)|in this|here)\b", re.IGNORECASE
)
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
# A sentence that states a result: what Key Results are written from.
RESULT = re.compile(
    r"\b(?:we (?:\w+ly |also |further |then )?(?:show|prove|give|obtain|characteri[sz]e|"
    r"establish|determine|improve|construct|derive|provide)|our (?:main )?results?|main result)\b",
    re.IGNORECASE,
)


def _from_contribution(text: str) -> str:
    """The text from its first sentence that says what the paper does (else all of it)."""
    sentences = SENTENCE.split(text)
    for number, sentence in enumerate(sentences):
        if CONTRIBUTION.search(sentence):
            return " ".join(sentences[number:])
    return text


def gist(abstract: str | None, words: int = GIST_WORDS) -> str:
    """At most `words` words of the abstract, from what the paper does; "" without one."""
    found = _from_contribution(one_line(abstract)).split()
    if len(found) <= words:
        return " ".join(found)
    return " ".join(found[:words]).rstrip(",;:") + "…"


def excerpt(
    abstract: str | None, after_gist: bool = False, chars: int = EXCERPT_CHARS
) -> list[str]:
    """Two or three lines of the abstract (at most `chars` characters): its sentences that state
    results ("we prove", "we show", ...), else the text from what the paper does. `after_gist`:
    the model has read the gist already, so the excerpt draws on what the gist did not show."""
    text = _from_contribution(one_line(abstract))
    if after_gist:
        text = " ".join(text.split()[GIST_WORDS:])
    results = [sentence for sentence in SENTENCE.split(text) if RESULT.search(sentence)]
    text = " ".join(results) if results else text
    if len(text) > chars:
        text = text[: chars - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= LINE_CHARS:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines
