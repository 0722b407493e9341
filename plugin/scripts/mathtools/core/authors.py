"""Author names: how a cited author list is read ("Given Family", "Family, Given", initials,
particles, umlauts, "et al.") and checked against a record's authors, every cited name paired with
its own record author (the rules: matching.py's docstring and docs/matching-rules.md).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from .text import fold, strip_latex

GIVEN_NAME_RATIO = 0.75
PARTICLES = frozenset(
    """van von de der den del della dei di da das dos du des la le ter ten zu af av bin ibn
    st""".split()  # noqa: SIM905
)
NAME_SUFFIXES = frozenset(("jr", "sr", "ii", "iii", "iv"))
HYPHENS = r"[\-\u2010-\u2015]"
ET_AL = re.compile(r"(?:,?\s*\bet\.?\s*al\b\.?|\band\s+others\b|\bothers\b)\s*$", re.IGNORECASE)


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


def _family_cited(cited: list[str], record_name: str, umlauts: bool) -> bool:
    families = record_families(record_name, umlauts)
    for name in cited:
        parts = _cited_family_parts(name, umlauts)
        accepted = {"".join(parts)} | (set(parts) if len(parts) > 1 else set())
        if parts and families & accepted:
            return True
    return False


# ----------------------------------------------------------------------------- authors, all of them


def truncated(authors: list[str] | str | None) -> bool:
    """Whether a cited author list says it is incomplete ("et al.", "and others")."""
    if not authors:
        return False
    names = [authors] if isinstance(authors, str) else authors
    return any(ET_AL.search(name) or ET_AL.fullmatch(name.strip()) for name in names)


def _given_words(name: str, umlauts: bool = False) -> list[str]:
    """A name's given names and initials, folded ("J.-P." gives "j", "p"; "JP" in "Smith JP"
    too): the words before the comma of "Family, Given", else every word before the family name
    (the last word, with its particles)."""
    text = strip_latex(name)
    if "," in text:
        words = text.split(",", 1)[1].split()
    else:
        words = text.split()[:-1]
        if len(text.split()) > 1 and re.fullmatch(r"(?:[A-Z]\.?){1,3}", text.split()[-1]):
            words = text.split()[-1:]  # "Smith JP": initials after the family name
    out = []
    for word in words:
        if re.fullmatch(r"(?:[A-Z]\.?(?:-?[A-Z]\.?)*)", word.replace(" ", "")):
            out += [letter.lower() for letter in re.findall(r"[A-Z]", word)]
            continue
        for part in re.split(HYPHENS, word):
            folded = re.sub(r"[^a-z]", "", fold(part, umlauts))
            if folded and folded not in PARTICLES and folded not in NAME_SUFFIXES:
                out.append(folded)
    return out


def given_agrees(cited: str, record: str) -> bool:
    """Whether a cited author's given name (or initial) agrees with a record author's: its first
    letter is a record given name's, and a spelled-out given name is that name, a short form of
    it ("Alex", "Alexander") or a transliteration ("Yuri", "Yurii"; difflib ratio at least
    GIVEN_NAME_RATIO). Agrees when either side gives no given name."""
    for umlauts in (False, True):
        cited_words = _given_words(cited, umlauts)
        record_words = _given_words(record, umlauts)
        if not cited_words or not record_words:
            return True
        first = cited_words[0]
        for word in record_words:
            if first[0] != word[0]:
                continue
            if (
                len(first) == 1
                or len(word) == 1
                or first.startswith(word)
                or word.startswith(first)
            ):
                return True
            if difflib.SequenceMatcher(None, first, word).ratio() >= GIVEN_NAME_RATIO:
                return True
    return False


def _family_matches(cited: str, record: str) -> bool:
    return any(_family_cited([cited], record, umlauts) for umlauts in (False, True))


@dataclass
class AuthorCheck:
    """Every cited author against the record's authors (each record author answers one)."""

    matched: list[str] = field(default_factory=list)  # record names, as the API wrote them
    not_authors: list[str] = field(default_factory=list)  # cited names no record author has
    wrong_given: list[tuple[str, str]] = field(default_factory=list)  # (cited, record name)
    incomplete: bool = False  # a proper subset, cited without "et al."

    def note(self, record_count: int, cited_count: int) -> str | None:
        problems = []
        if self.not_authors:
            who = " and ".join(self.not_authors)
            problems.append(
                f"{who} {'is not an author' if len(self.not_authors) == 1 else 'are not authors'}"
            )
        problems += [f"cited {c}, the author is {r}" for c, r in self.wrong_given]
        if self.incomplete:
            problems.append(
                f"incomplete author list: {cited_count} of {record_count} cited, without 'et al.'"
            )
        return "; ".join(problems) or None


def check_authors(cited_authors: list[str] | str | None, record: list[str]) -> AuthorCheck:
    """Pair each cited name with a distinct record author of that family name, preferring one
    whose given name agrees (a maximum matching, so two cited "Wang"s need two Wangs). A record
    whose list ends in "others" ("et al.") lists only some authors: a cited name it lacks is
    not known not to be one, and no cited list is incomplete against it."""
    cited = split_authors(cited_authors)
    record_truncated = truncated(record)
    record = split_authors(record)
    check = AuthorCheck()
    edges = [[j for j, name in enumerate(record) if _family_matches(c, name)] for c in cited]
    agreeing = [
        [j for j in edges[i] if given_agrees(cited[i], record[j])] for i in range(len(cited))
    ]
    owner: dict[int, int] = {}  # record index -> cited index
    for i in range(len(cited)):
        _augment(i, agreeing, owner, set())
    paired = set(owner.values())
    for i in range(len(cited)):
        if i not in paired:
            _augment(i, edges, owner, set())
    by_cited = {i: j for j, i in owner.items()}
    for i, name in enumerate(cited):
        j = by_cited.get(i)
        if j is None:
            if not record_truncated:
                check.not_authors.append(name)
        elif not given_agrees(name, record[j]):
            check.wrong_given.append((name, record[j]))
    check.matched = [record[j] for j in sorted(owner)]
    check.incomplete = (
        not check.not_authors
        and not check.wrong_given
        and not truncated(cited_authors)
        and not record_truncated
        and 0 < len(cited) < len(record)
    )
    return check


def _augment(i: int, edges: list[list[int]], owner: dict[int, int], seen: set[int]) -> bool:
    """Kuhn's augmenting path: give cited name `i` a record author, moving others if need be."""
    for j in edges[i]:
        if j in seen:
            continue
        seen.add(j)
        if j not in owner or _augment(owner[j], edges, owner, seen):
            owner[j] = i
            return True
    return False


def comma_free(name: str) -> str:
    """One person's name without a comma, as LITERATURE.md's comma-separated Authors line needs
    it: "Family, Given" is "Given Family", "King, Jr., Martin" and "Martin King, Jr." are
    "Martin King Jr." (a service may send either form)."""
    parts = [part.strip() for part in name.split(",") if part.strip()]
    suffixes = [p for p in parts[1:] if p.lower().rstrip(".") in NAME_SUFFIXES]
    given = [p for p in parts[1:] if p not in suffixes]
    return " ".join([*given, *parts[:1], *suffixes])
