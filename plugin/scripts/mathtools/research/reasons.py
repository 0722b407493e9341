"""Whether a referee's "what I checked" text names the step it passes, or is boilerplate.

A `checked` block of REVIEW.md carries, under its fields, the referee's own account of what it
checked (agents/referee.md, section 2). `review.py seal` refuses the block when that text

  - is missing, or shorter than MIN_WORDS words; or
  - names none of the step's content: it must share at least SHARED_NEEDED of the step's content
    tokens (fewer when the step has fewer), and hold one of its own.

A content token is a word of four letters or more that is not referee boilerplate ("checked",
"correct", "carefully", "follows", ...), cut to its stem ("insertion" and "inserted" are one
token), a number, or a symbol of the mathematics: every letter run and command inside `$...$`
(`$h(T) \\le n$` gives h, T, le, n) and, outside it, a letter run written as a function or with an
index (`h(T)`, `v_i`) and a letter standing alone (`n`; not `a` or `I`). Step names (`Lemma 5`,
`Main Theorem`), REF ids and computation numbers are taken out of both texts first: naming the
step is not saying what was checked in it.

The text must also name the step's inference: one word of its own shared with the step's argument
(its prose under the heading, less the heading's words), not only symbols; or two relations of
the argument's formulas written out (`18n + 9a = 9(2n + a)`, not the heading's; one could be the
claim restated): an argument of two formulas and four words is followed by quoting its moves,
not by one of its few words (found when a referee in the real host wrote the substitution out
and was refused). So "checked", "Looks fine.", "I checked this step carefully and it is
correct.", "Every inference about $p$, $a$, $k$ was followed." and the heading restated are
refused, and "Insertion: v goes before the first v_i it beats, or last; the induction on n is
sound." passes a step about inserting a vertex into a Hamiltonian path by induction on n.
"""

from __future__ import annotations

import re

MIN_WORDS = 6
SHARED_NEEDED = 2
# A relation a formula writes (`=`, `\equiv`, `\mid`, `\le`, ...): the operator between two sides.
_RELATION = re.compile(r"(=|<|>|\\(?:equiv|mid|nmid|le|leq|ge|geq|ne|neq|lt|gt)(?![A-Za-z]))")
MIN_RELATION = 6  # characters of both sides together: `n = 1` is a symbol's value, not a move
SHARED_MOVES = 2  # one could be the claim restated (a Main Theorem states it in its argument)

_NAMES = re.compile(
    r"\b(?:(?:Step|Lemma|Claim|Proposition|Corollary|Theorem|Gap|Request|Computation)\s+"
    r"\d+(?:\.\d+)*|Main\s+Theorem|U?REF-\d+)\b",
    re.IGNORECASE,
)
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
_FIELD_LINE = re.compile(r"^\*\*[A-Za-z][A-Za-z ]*:\*\*.*$", re.MULTILINE)
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}[ \t].*$", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_NUMBER = re.compile(r"\d+")
_SYMBOL = re.compile(r"\\?[A-Za-z]+")
_INDEXED = re.compile(
    r"(?<![A-Za-z\\])([A-Za-z]{1,3})(?=[_^(])|(?<![\w'’.])([B-HJ-Zb-z])(?![\w'’])"
)
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|cf|etc)\.", re.IGNORECASE)
_LAYOUT = frozenset(
    {"left", "right", "big", "bigl", "bigr", "Big", "Bigl", "Bigr", "displaystyle", "limits"}
    | {"mathrm", "mathbf", "mathcal", "mathbb", "mathsf", "mathit", "text", "textrm"}
    | {"operatorname", "quad", "qquad", "cdot", "cdots", "dots", "ldots", "vdots", "ddots"}
    | {"frac", "dfrac", "tfrac", "nolimits"}
)
_SAME = {"leq": "le", "geq": "ge", "neq": "ne", "to": "rightarrow"}
_SUFFIXES = (
    "ations", "ation", "ings", "ing", "ions", "ion", "ness", "ments", "ment", "ities", "ity",
    "ies", "es", "ed", "ly", "s",
)  # fmt: skip
# Words that say nothing about which mathematics was checked.
_BOILERPLATE = """
about above after again against also although always another anything appear argument arguments
because been before being below between both careful carefully case cases certainly check checked
checking checks claim claims clear clearly complete completely concern concerns correct correctly
could detail details does done each entire error errors every everything exactly fact fine follow
following follows from full fully further good have hence here hold holds however indeed inference
inferences into issue issues itself just line lines look looked looks made main make mistake more
most much must need needed nothing okay only other over proof proofs proper properly prove proved
proves question reason reasoning right rigorous said same seem seems should shown show shows since
sound step steps still such sure than that their them then there therefore these they thing things
this those through thus true under valid verified verify very well were what when where whether
which while whole will with within without work works would wrong yes your lemma theorem statement
stated written writes write reads read review reviewed referee agree agreed nothing missing gap gaps
note sources source depends cited cite reference references hypothesis hypotheses given uses used
using computation computations output outputs request requested
"""


def _stem(word: str) -> str:
    word = word.lower().replace("’", "'").split("'")[0]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:7]


_GENERIC = frozenset(_stem(word) for word in _BOILERPLATE.split())


def content_tokens(text: str) -> set[str]:
    """The content tokens of `text` (see the module's docstring)."""
    text = _NAMES.sub(" ", text)
    found: set[str] = set()
    for match in _MATH.finditer(text):
        math = next(group for group in match.groups() if group is not None)
        for symbol in _SYMBOL.findall(math):
            name = symbol.lstrip("\\")
            if name not in _LAYOUT:
                found.add("$" + _SAME.get(name, name))
        found.update(_NUMBER.findall(math))
    prose = _ABBREVIATIONS.sub(" ", _MATH.sub(" ", text))
    found.update("$" + (called or alone) for called, alone in _INDEXED.findall(prose))
    found.update(_NUMBER.findall(prose))
    for word in _WORD.findall(prose):
        stem = _stem(word)
        if len(stem) >= 4 and stem not in _GENERIC:
            found.add(stem)
    return found


def _alike(one: str, other: str) -> bool:
    """The same token, or one's letters (four or more) starting the other's: `\\binom` in the
    step is "binomial" in the referee's words."""
    one, other = one.lstrip("$"), other.lstrip("$")
    if one == other:
        return True
    short, long = sorted((one, other), key=len)
    return len(short) >= 4 and short.isalpha() and long.startswith(short)


def prose(block: str) -> str:
    """A markdown block without its heading and `**Field:**` lines: the text written under them."""
    return _FIELD_LINE.sub("", _HEADING_LINE.sub("", block)).strip()


def missing(step_name: str, step_block: str, checked_block: str) -> str | None:
    """Why the `checked` verdict block `checked_block` does not say what was checked in the PROOF.md
    step `step_block` (one line naming the step), or None when it does."""
    said = prose(checked_block)
    words = len(_WORD.findall(_NAMES.sub(" ", said)))
    if words < MIN_WORDS:
        return (
            f"{step_name}: a checked verdict needs, under its fields, what you checked in your own "
            f"words ({MIN_WORDS} words or more, naming the step's objects, formulas and the "
            "inferences you followed); a bare verdict is no review"
        )
    own = content_tokens(said)
    content = content_tokens(prose(step_block) + " " + step_block.split("\n", 1)[0])
    shared = {token for token in own if any(_alike(token, other) for other in content)}
    needed = min(SHARED_NEEDED, len(content))
    if not own or len(shared) < needed:
        return (
            f"{step_name}: what you checked names none of the step's content (say which of its "
            "objects, formulas and inferences you checked, not that it is correct)"
        )
    heading = step_block.split("\n", 1)[0]
    argument = {t for t in content_tokens(prose(step_block)) if _is_word(t)}
    argument -= content_tokens(heading)
    moves = relations(prose(step_block)) - relations(heading)
    if len(moves & relations(said)) >= SHARED_MOVES:  # the argument's relations, written out
        return None
    if argument and not any(_alike(t, o) for t in own if _is_word(t) for o in argument):
        return (
            f"{step_name}: what you checked names the step's symbols or restates its heading, "
            "not its inference: say which move of its argument you followed, in a word of the "
            "argument's own (the insertion, the induction, the telescoping sum)"
        )
    return None


def relations(text: str) -> set[tuple[str, str, str]]:
    """The relations the formulas of `text` write, each (left side, relation, right side) with
    the spaces and closing punctuation taken out: `$18n + 9a = 9(2n + a),$` gives
    ("18n+9a", "=", "9(2n+a)"); a chain `a = b = c` gives each link. A referee who writes out a
    relation of the step's argument has followed that move of it, however few words the
    argument has; a relation of the heading (the claim restated) does not count."""
    found = set()
    for match in _MATH.finditer(_NAMES.sub(" ", text)):
        math = next(group for group in match.groups() if group is not None)
        parts = _RELATION.split(re.sub(r"\s+|\\[,;!: ]", "", math))
        sides = [part.strip(".,;") for part in parts[0::2]]
        for left, relation, right in zip(sides, parts[1::2], sides[1:], strict=False):
            if left and right and len(left) + len(right) >= MIN_RELATION:
                found.add((left, relation, right))
    return found


def _is_word(token: str) -> bool:
    """A content token that is a word of the prose (not a symbol or a number: it has a letter)."""
    return not token.startswith("$") and any(char.isalpha() for char in token)
