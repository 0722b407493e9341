"""Does a returned paper record match a cited reference? The one place the matching rules live.

The rules (documented for people in protocols/matching-rules.md):

- Title: both titles are normalised (LaTeX unwrapped, Unicode folded with umlauts dropped and,
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
- Authors: at least one cited family name equals a record author's family name, after Unicode
  folding. Names may be "Given Family", "Family, Given", initials-only ("Gould, A.", "A. Gould"),
  with particles ("van der Merwe", "de With"), umlauts transliterated ("Goetz"), and truncated
  ("et al.", "et. al.", "and others"). A record author's family name is the last word of the
  name; an earlier word counts only as part of a compound family name (cited whole, hyphenated,
  or written "Family, Given" in the record), so a middle name ("Kumar" in "Mohit Kumar Ahuja")
  never matches.
- Year: the record's year is within 1 of the cited year (preprint versus publication).

`compare(candidate, paper)` applies all three to what the candidate gives and returns the checks,
a verdict and a one-line reason.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from .paper import Paper

TITLE_THRESHOLD = 1.0
YEAR_TOLERANCE = 1


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Words that carry no identity in a title: "Testing of X" and "Testing for X" are one citation.
FUNCTION_WORDS = frozenset(
    _words("a an the of on in for and to with by from at via its their as or is are")
)
PARTICLES = frozenset(
    _words(
        "van von de der den del della dei di da das dos du des la le ter ten zu af av bin ibn st"
    )
)
GREEK_LATEX = _words(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi"
    " omicron pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega"
)
# LaTeX letters with no Unicode decomposition to fold.
LATEX_LETTERS = {
    "ss": "ss",
    "o": "o",
    "O": "O",
    "ae": "ae",
    "AE": "AE",
    "oe": "oe",
    "OE": "OE",
    "aa": "a",
    "AA": "A",
    "l": "l",
    "L": "L",
    "i": "i",
    "j": "j",
}
UNICODE_LETTERS = {
    "ß": "ss",
    "ø": "o",
    "Ø": "O",
    "æ": "ae",
    "Æ": "AE",
    "œ": "oe",
    "Œ": "OE",
    "ł": "l",
    "Ł": "L",
    "đ": "d",
    "Đ": "D",
    "ı": "i",
    "þ": "th",
    "ð": "d",
}
NAME_SUFFIXES = frozenset(_words("jr sr ii iii iv"))
HYPHENS = r"[\-\u2010-\u2015]"
UMLAUTS = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}
# After strip_latex, so a spaced "--" or "---" is a spaced "-" here.
SUBTITLE_SEPARATOR = re.compile(r"\s*(?::|\s[-–—]\s)\s*")
ET_AL = re.compile(r"(?:,?\s*\bet\.?\s*al\b\.?|\band\s+others\b|\bothers\b)\s*$", re.IGNORECASE)


# ----------------------------------------------------------------------------- text folding


def strip_latex(text: str) -> str:
    """LaTeX to plain text: accents and special letters folded (umlauts kept: `\\"o` is `ö`, which
    fold() reads both ways), `\\emph{x}` and `{x}` unwrapped, `$...$` kept as content, Greek
    commands spelled out, `--`/`---` to `-`."""
    text = re.sub(r"\\\"\s*\{?\s*([A-Za-z])\}?", _umlaut, text)  # \"o, \"{u}
    text = re.sub(r"\\[`'^~=.]\s*\{?\s*([A-Za-z])\}?", r"\1", text)  # \'{e}, \^o
    text = re.sub(r"\\[uvHtcdbkr](?:\{\s*([A-Za-z])\s*\}|\s+([A-Za-z]))", r"\1\2", text)  # \v{s}
    text = re.sub(
        r"\\(" + "|".join(sorted(LATEX_LETTERS, key=len, reverse=True)) + r")(?![A-Za-z])\s*",
        lambda m: LATEX_LETTERS[m.group(1)],
        text,
    )
    text = re.sub(r"\\(" + "|".join(GREEK_LATEX) + r")(?![a-z])", _greek_command, text, flags=re.I)
    text = re.sub(r"\\[A-Za-z]+\*?\s*", "", text)  # \emph, \mathbb, \textit: keep the argument
    text = re.sub(r"\\(.)", r"\1", text)  # \&, \%, \_
    text = text.replace("---", "-").replace("--", "-")
    return re.sub(r"[${}^_~]", lambda m: " " if m.group() == "~" else "", text)


def _umlaut(match: re.Match) -> str:
    return unicodedata.normalize("NFC", match.group(1) + "\u0308")


def _greek_command(match: re.Match) -> str:
    name = match.group(1).lower()
    return name[3:] if name.startswith("var") else name


def fold(text: str, umlauts: bool = False) -> str:
    """Unicode folded to lower-case ASCII words: NFKD without diacritics, Greek spelled out.
    With `umlauts`, ä, ö and ü become ae, oe and ue (German transliteration: "Schroedinger")."""
    letters = UNICODE_LETTERS | UMLAUTS if umlauts else UNICODE_LETTERS
    text = "".join(letters.get(ch, ch) for ch in unicodedata.normalize("NFC", text))
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch):
            continue
        if "\u0370" <= ch <= "\u03ff":
            name = unicodedata.name(ch, "")
            words = [
                w
                for w in name.split()
                if w not in {"GREEK", "SMALL", "CAPITAL", "LETTER", "SYMBOL", "FINAL", "LUNATE"}
            ]
            out.append(f" {words[-1].lower()} " if words else " ")
            continue
        out.append(ch)
    return "".join(out).lower()


def _stem(word: str) -> str:
    """Fold English plurals and British spellings so that variants of one word compare equal."""
    word = re.sub(r"is(e|ed|es|ing|ation|ations)$", r"iz\1", word)
    word = re.sub(r"(?<=[aeiou])ll(ing|ed|er)$", r"l\1", word)  # modelling, labelled
    if len(word) > 5 and word.endswith("our"):
        word = word[:-3] + "or"  # behaviour, neighbour
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and len(word) > 3 and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def title_words(title: str, umlauts: bool = False) -> list[str]:
    """The content words of a title, normalised (see the module docstring; `umlauts` as in
    fold())."""
    plain = fold(strip_latex(title), umlauts)
    words = re.findall(r"[a-z0-9]+", plain)
    return [_stem(w) for w in words if w not in FUNCTION_WORDS]


def normalise_title(title: str) -> str:
    """The title folded to lower-case words separated by single spaces (function words kept)."""
    return " ".join(re.findall(r"[a-z0-9]+", fold(strip_latex(title))))


def main_title(title: str) -> str | None:
    """The title before its subtitle separator, or None when it has no subtitle."""
    parts = SUBTITLE_SEPARATOR.split(strip_latex(title).strip(), maxsplit=1)
    return parts[0] if len(parts) == 2 and parts[0] and parts[1] else None


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
    record_main = main_title(record)
    best = 0.0
    for umlauts in (False, True):
        cited_words = title_words(cited, umlauts)
        score = _similarity(cited_words, title_words(record, umlauts))
        if record_main and _similarity(cited_words, title_words(record_main, umlauts)) == 1.0:
            score = 1.0
        best = max(best, score)
    return round(best, 4)


# ----------------------------------------------------------------------------- authors


def split_authors(authors: list[str] | str | None) -> list[str]:
    """Author names from a list or a BibTeX-style "A and B" string, with the marks of a
    truncated list ("et al.", "and others") dropped."""
    if not authors:
        return []
    if isinstance(authors, str):
        text = authors.strip()
        if re.search(r"\s+and\s+", text):
            names = re.split(r"\s+and\s+", text)
        elif ";" in text:
            names = text.split(";")
        elif text.count(",") > 1 or _given_family_list(text.split(",")):
            names = text.split(",")
        else:
            names = [text]
    else:
        names = list(authors)
    stripped = (ET_AL.sub("", name).strip(" ,;") for name in names)
    return [name for name in stripped if name]


def _given_family_list(parts: list[str]) -> bool:
    """Whether comma-separated parts are whole "Given Family" names ("A. Graves, G. Wayne")
    rather than one "Family, Given" name ("Graves, Alex", "Helali Moghadam, M. H.")."""
    initials = re.compile(r"(?:[A-Z]\.?(?:\s*-?\s*[A-Z]\.?)*)")
    return len(parts) > 1 and all(
        len(part.split()) > 1 and not initials.fullmatch(part.strip()) for part in parts
    )


def _name_tokens(name: str, umlauts: bool = False) -> list[list[str]]:
    """The folded words of a name, each split at its hyphens ("Taylor-Sakyi" -> ["taylor",
    "sakyi"]): initials ("A.", "J.-P.", the "JP" of "Smith JP"), suffixes ("Jr.") and the
    particles before a family name dropped. A particle that ends the name is its family name.
    `umlauts` as in fold()."""
    tokens = []
    raw = strip_latex(name).replace(",", " ").split()
    for token in raw:
        if re.fullmatch(r"(?:[A-Z]\.?){1,3}", re.sub(HYPHENS, "", token)):
            continue  # initials
        parts = [re.sub(r"[^a-z]", "", fold(part, umlauts)) for part in re.split(HYPHENS, token)]
        if any(parts):
            tokens.append([part for part in parts if part])
    if not tokens:  # a name written only in capitals, such as "LI"
        tokens = [[w] for w in (re.sub(r"[^a-z]", "", fold(t, umlauts)) for t in raw) if w]
    while len(tokens) > 1 and "".join(tokens[-1]) in NAME_SUFFIXES:
        tokens.pop()
    kept = [t for i, t in enumerate(tokens) if "".join(t) not in PARTICLES or i == len(tokens) - 1]
    return kept or tokens


def _cited_family_parts(name: str, umlauts: bool = False) -> list[str]:
    """The words of a cited author's family name, hyphenated parts split: the part before the
    comma of "Family, Given" (which may be compound: "Helali Moghadam"), else the last word."""
    if "," in name:
        tokens = _name_tokens(name.split(",", 1)[0], umlauts)
    else:
        tokens = _name_tokens(name, umlauts)[-1:]
    return [part for token in tokens for part in token]


def cited_family(name: str) -> str | None:
    """The family name of a cited author, as one word: its last word, hyphenated parts joined;
    particles dropped ("van der Merwe" -> "merwe", "Taylor-Sakyi" -> "taylorsakyi")."""
    family = name.split(",", 1)[0] if "," in name else name
    tokens = _name_tokens(family)
    return "".join(tokens[-1]) if tokens else None


def record_families(name: str, umlauts: bool = False) -> set[str]:
    """The spellings of a record author's family name: the last word (and each part of it when
    hyphenated), and the last words joined ("Helali Moghadam" for "Mahshid Helali Moghadam",
    "Taylor Sakyi" written as "Taylor-Sakyi"). For a record written "Family, Given", every word
    before the comma. Never a given or middle name: "Kumar" is not a family name of "Mohit
    Kumar Ahuja"."""
    if "," in name:
        tokens = _name_tokens(name.split(",", 1)[0], umlauts)
        families = {"".join(token) for token in tokens}
    else:
        tokens = _name_tokens(name, umlauts)
        families = set()
    families |= set(tokens[-1]) if tokens else set()
    words = [part for token in tokens for part in token]
    return families | {"".join(words[start:]) for start in range(len(words))}


def matched_authors(cited: list[str], record: list[str]) -> list[str]:
    """The record's author names (as the API wrote them) whose family name was cited. A cited
    compound family name ("Helali Moghadam, M.", "Taylor-Sakyi, K.") also matches a record that
    gives one part of it as the family name. Umlauts may be dropped or transliterated
    ("Schrodinger", "Schroedinger")."""
    return [
        name
        for name in record
        if any(_family_cited(cited, name, umlauts) for umlauts in (False, True))
    ]


def _family_cited(cited: list[str], record_name: str, umlauts: bool) -> bool:
    families = record_families(record_name, umlauts)
    for name in cited:
        parts = _cited_family_parts(name, umlauts)
        accepted = {"".join(parts)} | (set(parts) if len(parts) > 1 else set())
        if parts and families & accepted:
            return True
    return False


# ----------------------------------------------------------------------------- the verdict


@dataclass
class Match:
    """The result of comparing one candidate with one returned record."""

    title_score: float | None = None
    matched_authors: list[str] = field(default_factory=list)
    year_diff: int | None = None
    ok: bool = False
    failed: list[str] = field(default_factory=list)  # "title", "authors", "year"
    reason: str = ""

    def checks(self) -> dict:
        return {
            "title_score": self.title_score,
            "matched_authors": list(self.matched_authors),
            "year_diff": self.year_diff,
        }


def compare(candidate: dict, paper: Paper) -> Match:
    """Check what the candidate gives (title, authors, year) against a record the API returned."""
    match = Match()
    title = candidate.get("title")
    if title:
        match.title_score = title_score(title, paper.title or "")
        if match.title_score < TITLE_THRESHOLD:
            match.failed.append("title")
    cited = split_authors(candidate.get("authors"))
    if cited:
        match.matched_authors = matched_authors(cited, paper.authors)
        if not match.matched_authors:
            match.failed.append("authors")
    year = candidate.get("year")
    if year is not None and paper.year is not None:
        match.year_diff = paper.year - int(year)
        if abs(match.year_diff) > YEAR_TOLERANCE:
            match.failed.append("year")
    match.ok = not match.failed
    match.reason = _reason(match, candidate, paper, cited)
    return match


def _reason(match: Match, candidate: dict, paper: Paper, cited: list[str]) -> str:
    if match.ok:
        given = [
            what
            for what, present in (
                ("title", match.title_score is not None),
                ("authors", bool(cited)),
                ("year", match.year_diff is not None),
            )
            if present
        ]
        if not given:
            return "the identifier resolves; no title, authors or year were given to compare"
        return f"{', '.join(given)} match"
    problems = []
    if "title" in match.failed:
        problems.append(f"title differs (score {match.title_score:.2f})")
    if "authors" in match.failed:
        problems.append("none of the cited authors is an author")
    if "year" in match.failed:
        problems.append(f"year {paper.year}, cited {candidate.get('year')}")
    return "; ".join(problems)


def describe(paper: Paper, max_authors: int = 3) -> str:
    """`'<title>' by A, B, C et al. (year)`: how a reason names a real paper."""
    names = paper.authors[:max_authors]
    who = ", ".join(names) + (" et al." if len(paper.authors) > max_authors else "")
    year = f" ({paper.year})" if paper.year else ""
    return f"'{paper.title}' by {who or 'unknown authors'}{year}"
