"""Views of an abstract for the model, LaTeX kept as the source gives it: a gist to judge relevance
by, an excerpt of its result sentences, and the whole abstract wrapped to lines, which the model
reads before it writes a paper's Relevance and Key Results.

An abstract often opens with background ("Distribution testing is a central problem ..."); what a
judge needs is what the paper does, so the gist and the excerpt start at the first sentence that
says so ("We show ...", "In this paper ...", "Here ...") when there is one. They shorten by whole
words, a formula (`$...$`) counting as one word and never cut, and mark a cut with "…".
"""

from __future__ import annotations

import re

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


# A word, or a whole inline formula with the spaces inside it.
_WORD = re.compile(r"\$[^$]*\$\S*|\\\(.*?\\\)\S*|\S+")


def flat(abstract: str | None) -> str:
    """The abstract on one line, every character kept but runs of whitespace."""
    return " ".join((abstract or "").split())


def words(text: str) -> list[str]:
    """The text's words, each inline formula one word however many spaces it holds."""
    return _WORD.findall(text)


def wrapped(text: str, width: int = LINE_CHARS) -> list[str]:
    """The text in lines of at most `width` characters, broken between words."""
    lines: list[str] = []
    for word in words(text):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _from_contribution(text: str) -> str:
    """The text from its first sentence that says what the paper does (else all of it)."""
    sentences = SENTENCE.split(text)
    for number, sentence in enumerate(sentences):
        if CONTRIBUTION.search(sentence):
            return " ".join(sentences[number:])
    return text


def gist(abstract: str | None, count: int = GIST_WORDS) -> str:
    """At most `count` words of the abstract, from what the paper does; "" without one."""
    found = _WORD.findall(_from_contribution(flat(abstract)))
    if len(found) <= count:
        return " ".join(found)
    return " ".join(found[:count]).rstrip(",;:") + "…"


def excerpt(
    abstract: str | None, after_gist: bool = False, chars: int = EXCERPT_CHARS
) -> list[str]:
    """Two or three lines of the abstract (at most `chars` characters): its sentences that state
    results ("we prove", "we show", ...), else the text from what the paper does. `after_gist`:
    the model has read the gist already, so the excerpt draws on what the gist did not show."""
    text = _from_contribution(flat(abstract))
    if after_gist:
        text = " ".join(words(text)[GIST_WORDS:])
    results = [sentence for sentence in SENTENCE.split(text) if RESULT.search(sentence)]
    text = " ".join(results) if results else text
    if len(text) > chars:
        kept: list[str] = []
        for word in words(text):
            if len(" ".join([*kept, word])) > chars - 1:
                break
            kept.append(word)
        text = " ".join(kept).rstrip(",;:") + "…"
    return wrapped(text)
