"""How LaTeX text names the statements of the papers it cites: a small grammar over tokens, for
/math:check-refs (citedstatements.py checks what it reads).

The lexer turns comment-free LaTeX into tokens: a citation (`\\cite`, `\\citet`, `\\parencite`,
... with its optional notes, and amsrefs' `\\cite{key}*{note}`), a `\\ref` (a number of the
citing paper itself, never read as the cited paper's), words, numbers, a parenthesised part,
punctuation and paragraph breaks; spaces, ties (`~`, `\\ `, `\\,`) and braces are dropped.

A *mention* is a kind word followed by numbers (`Theorem 2.3`, `Thm. 2.3(ii)`, `Lemmas 4.1 and
4.2`, `Lemma 3.1, Corollary 3.2 and Lemma 3.3`, `§3`). Three rules attach one to a citation:

- in the citation's note: `\\cite[Theorem 2.3]{key}`, `\\cite{key}*{Theorem 2.3}`;
- before it: mention, then `of`/`in`/`from`, then at most a few words naming the work
  ("the paper", "Bezdek and Bezdek"), then the citation: `Theorem 2.3 of \\cite{key}`;
- after it: a citation without a note, a comma, the mention, and the clause ending there
  (`,` `.` `;` `:` `)` `]` or a paragraph's end) or going on with "and"/"or":
  `by \\cite{key}, Theorem 2.3, ...`, `[\\cite{key}, Thm. 2.3]`, `(\\cite{key}, Proposition
  3.10 and ...)`; or in parentheses right after the citation: `In \\cite{key} (Theorem 1.1)`.
  "In \\cite{key}, Theorem 2.3 extends ..." (or "... 2.3 and its proof") is not read: there the
  number may well be the citing paper's own.

A citation of several keys names no one paper: its mentions are returned as ambiguous, never
given to one of the keys.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

KINDS = {
    "theorem": "Theorem",
    "thm": "Theorem",
    "th": "Theorem",
    "lemma": "Lemma",
    "lem": "Lemma",
    "lm": "Lemma",
    "proposition": "Proposition",
    "prop": "Proposition",
    "pro": "Proposition",
    "corollary": "Corollary",
    "cor": "Corollary",
    "coro": "Corollary",
    "definition": "Definition",
    "def": "Definition",
    "defn": "Definition",
    "remark": "Remark",
    "rem": "Remark",
    "rmk": "Remark",
    "example": "Example",
    "ex": "Example",
    "conjecture": "Conjecture",
    "conj": "Conjecture",
    "claim": "Claim",
    "section": "Section",
    "sec": "Section",
    "sect": "Section",
    "§": "Section",
    "chapter": "Chapter",
    "ch": "Chapter",
    "chap": "Chapter",
    "equation": "equation",
    "eq": "equation",
    "eqn": "equation",
    "formula": "equation",
}
CONNECTIVES = frozenset({"of", "in", "from"})
# Words that may stand between "Theorem 2.3 of" and the citation: the work, or its authors
WORK_WORDS = frozenset(
    {"the", "our", "their", "his", "her", "paper", "article", "book", "work", "monograph",
     "preprint", "survey", "notes", "thesis", "and", "et", "al", "recent", "earlier", "s"}
)  # fmt: skip
MOST_WORK_WORDS = 5
SEPARATORS = frozenset({",", "and", "or", "&", "-", "--", "–", "—"})
CLAUSE_ENDS = frozenset({",", ".", ";", ":", ")", "]"})

TokenKind = Literal["cite", "ref", "word", "number", "paren", "punct", "break", "other"]


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    text: str
    start: int
    end: int
    keys: tuple[str, ...] = ()
    note: str | None = None  # a citation's note (its optional argument), as written


@dataclass(frozen=True)
class Named:
    """One statement a mention names: `Theorem 2.3(ii)` is ("Theorem", "2.3", "(ii)")."""

    kind: str
    number: str
    part: str | None


@dataclass(frozen=True)
class Mention:
    """The statements one citation is said to hold, and where that was written."""

    keys: tuple[str, ...]
    named: tuple[Named, ...]
    written: str  # the note, or the prose from mention to citation, spaces collapsed
    start: int  # offset of the citation in the text
    read_from: Literal["note", "prose"]


_TOKEN = re.compile(
    r"""(?P<cite>\\(?!nocite\b)[a-zA-Z]*cite[a-zA-Z]*\*?\s*
          (?:\[(?P<first>[^\]]*)\]\s*)?(?:\[(?P<second>[^\]]*)\]\s*)?
          \{(?P<keys>[^}]*)\}(?:\*\{(?P<ams>[^{}]*(?:\{[^{}]*\}[^{}]*)*)\})?)
      |(?P<ref>\\(?:ref|eqref|cref|Cref|autoref|pageref|nameref|vref)\*?\s*\{[^}]*\})
      |(?P<break>\n[ \t]*\n\s*|\\par\b)
      |(?P<space>(?:[ \t\r]|\n(?![ \t]*\n)|~|\\[ ,;:!]|\\nobreakspace\b\s*(?:\{\})?
          |\\(?:thinspace|enspace)\b
          |[{}]|\\(?:emph|textbf|textit|textsl|textrm|em|bf|it|sl|rm|mbox|text|hbox)\b)+)
      |(?P<section>\\S(?![A-Za-z])|§)
      |(?P<number>[A-Z]?\d+(?:\.\d+)*[a-z]?(?![\w])|[A-Z](?:\.\d+)+(?![\w]))
      |(?P<paren>\((?:[ivxlc]+|[a-z]|[A-Z]?\d+(?:\.\d+)*[a-z]?)\))
      |(?P<word>[A-Za-z]+)
      |(?P<dash>--|[-–—])
      |(?P<punct>[,.;:!?()\[\]&])
      |(?P<other>\\[A-Za-z]+|\\.|[^\s\\A-Za-z0-9~§,.;:!?()\[\]{}&–—-]+)
    """,
    re.X,
)


def tokens(text: str) -> list[Token]:
    """The tokens of comment-free LaTeX `text`, spaces dropped."""
    found: list[Token] = []
    for match in _TOKEN.finditer(text):
        group = match.lastgroup
        if group == "space" or group is None:
            continue
        if group == "cite":
            keys = tuple(k.strip() for k in match.group("keys").split(",") if k.strip())
            second, first, ams = match.group("second"), match.group("first"), match.group("ams")
            note = ams if ams is not None else second if second is not None else first
            found.append(Token("cite", match.group(), match.start(), match.end(), keys, note))
        elif group == "section":
            found.append(Token("word", "§", match.start(), match.end()))
        elif group == "dash":
            found.append(Token("punct", match.group(), match.start(), match.end()))
        else:
            kind: TokenKind = group  # type: ignore[assignment]
            found.append(Token(kind, match.group(), match.start(), match.end()))
    return found


def kind_of(word: str, misspelt: bool = False) -> str | None:
    """The statement kind a word names ("Thm" -> Theorem, "Lemmas" -> Lemma); with `misspelt`,
    also a full name one letter off ("Threorem"); None for any other word."""
    word = word.lower().rstrip(".")
    for form in (word, word[:-1] if word.endswith("s") and len(word) > 3 else word):
        if form in KINDS:
            return KINDS[form]
    if word == "§§":
        return "Section"
    if misspelt and len(word) >= 6:
        close = difflib.get_close_matches(word, [k for k in KINDS if len(k) >= 6], 1, 0.85)
        if close:
            return KINDS[close[0]]
    return None


def _mention_at(
    found: list[Token], at: int, misspelt: bool
) -> tuple[tuple[Named, ...], int] | None:
    """The statements a mention starting at token `at` names, and the index after it."""
    named: list[Named] = []
    position = at
    while position < len(found):
        token = found[position]
        kind = kind_of(token.text, misspelt) if token.kind == "word" else None
        if kind is None:
            break
        position += 1
        if position < len(found) and found[position].text == "." and token.text != "§":
            position += 1  # "Thm." ... "Eq."
        while position < len(found) and found[position].text == "§":
            position += 1  # "§§"
        numbers = _numbers_at(found, position, kind)
        if numbers is None:
            break
        items, position = numbers
        named += items
        # "Lemma 3.1, Corollary 3.2 and Lemma 3.3": another kind after a separator
        after = found[position + 1] if position + 1 < len(found) else None
        if not (
            position < len(found)
            and found[position].text in SEPARATORS
            and after is not None
            and after.kind == "word"
            and kind_of(after.text, misspelt)
        ):
            break
        position += 1
    return (tuple(named), position) if named else None


def _is_number(token: Token, first: bool) -> bool:
    if token.kind == "number":
        return True
    if token.kind == "paren":  # "Eq. (5.10)"
        return first and bool(re.match(r"\([A-Z]?\d", token.text))
    # "Example A", "Theorem E": one capital letter
    return first and token.kind == "word" and bool(re.fullmatch(r"[A-Z]", token.text))


def _numbers_at(found: list[Token], at: int, kind: str) -> tuple[list[Named], int] | None:
    named: list[Named] = []
    position = at
    while position < len(found) and _is_number(found[position], not named):
        number = found[position].text.strip("()")
        position += 1
        part = None
        if position < len(found) and found[position].kind == "paren":
            part = found[position].text
            position += 1
        named.append(Named(kind, number, part))
        if (
            position + 1 < len(found)
            and found[position].text in SEPARATORS
            and _is_number(found[position + 1], False)
        ):
            position += 1
            continue
        break
    return (named, position) if named else None


def _written(text: str, first: Token, last: Token) -> str:
    return " ".join(text[first.start : last.end].split())


def note_mentions(note: str) -> tuple[Named, ...]:
    """The statements a citation's note names ("Thm.\\ 2.3", "Lemmas 4.1 and 4.2", "p.~5": none),
    a misspelt kind one letter off included."""
    found = tokens(note)
    named: list[Named] = []
    position = 0
    while position < len(found):
        mention = _mention_at(found, position, misspelt=True)
        if mention is None:
            position += 1
            continue
        named += mention[0]
        position = mention[1]
    return tuple(named)


def mentions(text: str) -> Iterator[Mention]:
    """Every citation of comment-free LaTeX `text` that names statements, by note or in prose,
    in the order of the text."""
    found = tokens(text)
    position = 0
    while position < len(found):
        token = found[position]
        if token.kind == "cite":
            if token.note is not None:
                named = note_mentions(token.note)
                if named:
                    written = " ".join(token.note.split())
                    yield Mention(token.keys, named, written, token.start, "note")
            position += 1
            continue
        mention = _mention_at(found, position, misspelt=False)
        if mention is None:
            position += 1
            continue
        named, end = mention
        cite = _cite_after(found, end)
        if cite is not None:
            citation = found[cite]
            written = _written(text, token, citation)
            yield Mention(citation.keys, named, written, citation.start, "prose")
        elif _cite_before(found, position) and (
            _clause_ends(found, end) or _continues(found, end, position - 2)
        ):
            citation = found[position - 2]
            written = _written(text, citation, found[end - 1])
            yield Mention(citation.keys, named, written, citation.start, "prose")
        elif _cite_before(found, position, "(") and end < len(found) and found[end].text == ")":
            citation = found[position - 2]  # "In \cite{k} (Theorem 1.1)"
            written = _written(text, citation, found[end])
            yield Mention(citation.keys, named, written, citation.start, "prose")
        position = end


def _cite_after(found: list[Token], end: int) -> int | None:
    """The index of the citation a mention ending at `end` is said to be "of"/"in"/"from"."""
    if end >= len(found) or found[end].kind != "word" or found[end].text not in CONNECTIVES:
        return None
    position = end + 1
    for _ in range(MOST_WORK_WORDS + 1):
        if position >= len(found):
            return None
        token = found[position]
        if token.kind == "cite":
            return position
        naming_the_work = token.kind == "word" and (
            token.text.lower() in WORK_WORDS
            or (token.text[:1].isupper() and kind_of(token.text) is None)
        )
        if not (naming_the_work or token.text in (".", "'")):  # "et al.", "Smith's" (' s)
            return None
        position += 1
    return None


def _cite_before(found: list[Token], at: int, between: str = ",") -> bool:
    """A citation without a note, then `between` (a comma; an opening parenthesis), right
    before the mention at `at`."""
    return (
        at >= 2
        and found[at - 1].text == between
        and found[at - 2].kind == "cite"
        and found[at - 2].note is None
    )


def _continues(found: list[Token], end: int, cite: int) -> bool:
    """The mention ending at `end` goes on with "and"/"or" ("\\cite{k}, Theorem 1.8 and more"),
    the citation at `cite` not opening the sentence with "In" (there the number may be the citing
    paper's own: "In \\cite{k}, Theorem 2.3 and its proof ...")."""
    opened_by_in = cite >= 1 and found[cite - 1].text.lower() == "in"
    return end < len(found) and found[end].text in ("and", "or") and not opened_by_in


def _clause_ends(found: list[Token], end: int) -> bool:
    return end >= len(found) or found[end].kind == "break" or found[end].text in CLAUSE_ENDS
