"""Does a cited title name a record's title? Titles normalised and compared: the title rule of
the gate (gate/matching.py applies it; docs/matching-rules.md describes it for people), and the
normalised title LITERATURE.md's identity keys use (litdoc/identity.py).

Both titles are normalised (LaTeX unwrapped, Unicode folded with umlauts dropped and,
in a second comparison, transliterated as ae/oe/ue, Greek letters spelled out, case and
punctuation dropped, a few function words ignored, English plurals and British spellings
folded) into content words. The similarity is the Dice coefficient of the two content-word
sequences taken in order, 2 * LCS / (len(a) + len(b)) with LCS the longest common subsequence.
The threshold is 1.0: every content word of each title must be accounted for, in the same order
("Markov bases with heat-bath random walks" is not "Heat-bath random walks with Markov bases").
A near-miss title differs in one content word, so any lower threshold would let it through on a
long enough title (the recordings hold two real papers by one author, arXiv:1106.3680 "... for
DNA Screening" and arXiv:1306.4664 "... for Genetic Screening"). Titles still match when they
differ only by case, punctuation, a trailing period, hyphenation ("Heat-bath" / "Heat bath" /
"Heatbath": the titles are also compared with spaces removed) or by a subtitle the citation left
out (it equals the record's title before ":" or a spaced dash: " - ", " -- ", " – "). A
citation that adds text the record lacks does not match: that is what two real titles glued
together look like.
"""

from __future__ import annotations

import re
import unicodedata

from .text import FUNCTION_WORDS, fold, stem, strip_latex

TITLE_THRESHOLD = 1.0  # the title_score at which two titles match
MAX_TYPOS = 2  # mistyped words a title may have and still name the record (misspelled())
TYPO_MIN_LETTERS = 5  # shorter words are too close to other words ("DNA", "RNA")

# After strip_latex, so a spaced "--" or "---" is a spaced "-" here.
SUBTITLE_SEPARATOR = re.compile(r"\s*(?::|\s[-–—]\s)\s*")


def title_words(title: str, umlauts: bool = False) -> list[str]:
    """The content words of a title, normalised (see the module docstring; `umlauts` as in
    fold())."""
    plain = fold(strip_latex(title), umlauts)
    words = re.findall(r"[a-z0-9]+", plain)
    return [stem(w) for w in words if w not in FUNCTION_WORDS]


def normalise_title(title: str) -> str:
    """The title folded to lower-case words separated by single spaces (function words kept)."""
    return " ".join(re.findall(r"[a-z0-9]+", fold(strip_latex(title))))


def main_title(title: str) -> str | None:
    """The title before its subtitle separator, or None when it has no subtitle."""
    parts = SUBTITLE_SEPARATOR.split(strip_latex(title).strip(), maxsplit=1)
    return parts[0] if len(parts) == 2 and parts[0] and parts[1] else None


# A trailing note of the paper's language ("(Russian)", "(Russian. English summary)", "(in
# French)"): zbMATH and bibliographies add it; it is not part of the title.
LANGUAGES = (
    "russian|ukrainian|belarusian|bulgarian|serbian|croatian|czech|slovak|polish|hungarian|"
    "romanian|german|french|italian|spanish|portuguese|dutch|swedish|norwegian|danish|"
    "finnish|estonian|latvian|lithuanian|greek|turkish|chinese|japanese|korean|english|"
    "georgian|armenian|hebrew|arabic|persian|latin"
)
LANGUAGE_NOTE = re.compile(
    rf"\s*\((?:in\s+)?(?:{LANGUAGES})(?:\s*[.,;]?\s*(?:with\s+an?\s+)?(?:{LANGUAGES})"
    rf"\s+(?:summary|abstract))?\.?\)\s*\.?\s*$",
    re.IGNORECASE,
)
# A tail of a book's or proceedings' title that is its place and date (", University of
# Wisconsin-Madison, WI, USA, July 16--20, 2018", "..., 1998 : proceedings"), which a citation
# may leave out: words, then a year at its end. A bare span of years (", 1880-1914") is a
# history's subject, part of its title.
DATED_TAIL = re.compile(
    r"[^\W\d_].*\b(?:1[5-9]|20)\d\d\b[\s.:;,]*(?:proceedings)?[\s.]*$", re.IGNORECASE
)


def bare_title(title: str) -> str:
    """The title without a trailing language note."""
    return LANGUAGE_NOTE.sub("", title)


def title_heads(title: str) -> list[str]:
    """What a citation may give of a record's title instead of all of it: the title before its
    subtitle (main_title) and before each comma whose tail holds a year (a place and date)."""
    heads = [main_title(title) or ""]
    for comma in re.finditer(",", title):
        if DATED_TAIL.search(title[comma.end() :]) and title[: comma.start()].strip():
            heads.append(title[: comma.start()])
    return [head for head in heads if head]


def _surface(title: str, umlauts: bool) -> str:
    """A title as written, folded only where a citation's form does not change its words: case,
    braces, LaTeX or Unicode accents and Greek, punctuation (dropped, not read as a space) and
    spacing."""
    text = strip_latex(bare_title(title))
    text = "".join(
        fold(ch).strip() if "\u0370" <= ch <= "\u03ff" else ch
        for ch in unicodedata.normalize("NFC", text)
    )
    text = re.sub(r"[^\w\s]|_", "", fold(text, umlauts))
    return " ".join(text.split())


def typographic_only(cited: str, record: str) -> bool:
    """Whether a cited title is the record's (or a head of it, title_heads) but for case, braces,
    accents, punctuation and spacing: a title that matches only after folding words (a plural,
    a British spelling, a function word, a hyphen read as a space) is corrected, not
    confirmed."""
    return any(
        _surface(cited, umlauts) == _surface(whole, umlauts)
        for whole in (record, *title_heads(bare_title(record)))
        for umlauts in (False, True)
    )


def misspelled(cited: str, record: str) -> bool:
    """Whether a cited title is the record's with typos only: the same content words in the same
    order, at most MAX_TYPOS of them (each of at least TYPO_MIN_LETTERS letters) one edit apart
    (a letter added, dropped, changed, or two swapped). A word dropped, added or replaced by
    another word is a different title (a near miss), never a typo."""
    a, b = title_words(cited), title_words(record)
    if len(a) != len(b):
        return False
    typos = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return 0 < len(typos) <= MAX_TYPOS and all(
        min(len(x), len(y)) >= TYPO_MIN_LETTERS and _one_edit(x, y) for x, y in typos
    )


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diffs) == 1 or (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and a[diffs[0]] == b[diffs[1]]
            and a[diffs[1]] == b[diffs[0]]
        )
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _similarity(a: list[str], b: list[str]) -> float:
    """Dice coefficient on words in order: 2 * LCS / (len(a) + len(b)), where LCS is the length
    of the longest common subsequence of the two word lists."""
    if not a or not b:
        return 0.0
    if "".join(a) == "".join(b):
        return 1.0  # hyphenation: "heat bath" and "heatbath"
    previous = [0] * (len(b) + 1)
    for word in a:
        row = [0]
        for j, other in enumerate(b):
            row.append(previous[j] + 1 if word == other else max(previous[j + 1], row[j]))
        previous = row
    return 2 * previous[-1] / (len(a) + len(b))


def title_score(cited: str, record: str) -> float:
    """Similarity of a cited title to a record's title, in [0, 1]; 1.0 means they match.

    The best of the whole record title and the record's main title (the citation may leave the
    subtitle out), with umlauts dropped ("Schrodinger") or transliterated ("Schroedinger"). Not
    symmetric on purpose: text the citation adds is never forgiven."""
    cited, record = bare_title(cited), bare_title(record)
    heads = title_heads(record)
    best = 0.0
    for umlauts in (False, True):
        cited_words = title_words(cited, umlauts)
        score = _similarity(cited_words, title_words(record, umlauts))
        if any(_similarity(cited_words, title_words(h, umlauts)) == 1.0 for h in heads):
            score = 1.0
        best = max(best, score)
    return round(best, 4)
