"""Text normalisation: LaTeX to plain text, and Unicode folded for comparing words.

The one home of these rules. Two readers need LaTeX stripped, and strip_latex serves both:
- a comparison (matching titles and names, abstracts): accents and special letters become the
  Unicode letters they write (latex_to_unicode), so fold() can read `ö` as "o" or as "oe";
- a search box (`for_search=True`, the query planner): every symbol becomes a word a search
  engine can match (`\\|T\\|` -> "norm T", `\\lfloor` -> "floor"), commands leave a space, and a
  superscript stays glued to its base ("l^infinity").
fold() is the one Unicode folding: lower-case ASCII, diacritics removed, ß/ø/æ/ł... spelled out,
Greek letters spelled out, and with `umlauts` ä/ö/ü as ae/oe/ue.
"""

from __future__ import annotations

import re
import unicodedata

# LaTeX's Greek letter commands, lower-case (an upper-case command, `\Gamma`, spells the same).
GREEK = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "varepsilon",
    "zeta",
    "eta",
    "theta",
    "vartheta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "varpi",
    "rho",
    "varrho",
    "sigma",
    "varsigma",
    "tau",
    "upsilon",
    "phi",
    "varphi",
    "chi",
    "psi",
    "omega",
]
GREEK_COMMAND = re.compile(r"\\(" + "|".join(GREEK) + r")(?![A-Za-z])", re.IGNORECASE)
GREEK_COMMAND_SPACED = re.compile(GREEK_COMMAND.pattern + r"\s*", re.IGNORECASE)
# How a few symbols read in a search box (only symbols of one meaning: \nabla is a gradient, a
# connection or a Conway polynomial).
NAMED_SYMBOLS = {
    "lfloor": "floor",  # \lfloor n^c \rfloor: the floor function, as a paper words it
    "lceil": "ceiling",
    "infty": "infinity",
    "ell": "l",
    "partial": "partial",
    "otimes": "tensor",
    "oplus": "direct sum",
    "zeta": "zeta",
}
TEXT_MACROS = ("text", "textrm", "textit", "textbf", "emph", "mathrm", "operatorname", "mbox")
# LaTeX letters with no accent to compose: the Unicode letter each writes (fold() folds them).
LATEX_LETTERS = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "l": "ł",
    "L": "Ł",
    "i": "i",  # dotless i and j exist to carry an accent: \'{\i} is í
    "j": "j",
}
# LaTeX accent commands and the combining character each puts on its letter.
LATEX_ACCENTS = {
    "`": "\u0300",
    "'": "\u0301",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    '"': "\u0308",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "r": "\u030a",
    "t": "\u0361",
    "c": "\u0327",
    "d": "\u0323",
    "b": "\u0331",
    "k": "\u0328",
}
# Letters NFKD leaves whole: how each is spelled in ASCII.
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
UMLAUTS = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}
# Unicode's names of Greek letters where they differ from LaTeX's commands (Λ is "LAMDA").
GREEK_NAMES = {"LAMDA": "LAMBDA"}
GREEK_NAME_NOISE = frozenset({"GREEK", "SMALL", "CAPITAL", "LETTER", "SYMBOL", "FINAL", "LUNATE"})


def latex_to_unicode(text: str) -> str:
    """LaTeX accents and special letters as the Unicode letters they write (`Erd{\\H{o}}s` ->
    `Erdős`, `{\\o}` -> `ø`, `\\'{\\i}` -> `í`); every other command, brace and `$` is left
    as written."""
    letter = r"(?:[A-Za-z]|\\[ij](?![A-Za-z]))"
    symbol = re.escape("".join(a for a in LATEX_ACCENTS if not a.isalpha()))
    named = "".join(a for a in LATEX_ACCENTS if a.isalpha())
    text = re.sub(
        rf"\\([{symbol}])\s*(?:\{{\s*({letter})\s*\}}|({letter}))"
        rf"|\\([{named}])(?:\{{\s*({letter})\s*\}}|\s+({letter}))",
        _accented,
        text,
    )
    text = re.sub(
        r"\\(" + "|".join(sorted(LATEX_LETTERS, key=len, reverse=True)) + r")(?![A-Za-z])\s*",
        lambda m: LATEX_LETTERS[m.group(1)],
        text,
    )
    # {ő} left by Erd{\H{o}}s: braces around an accented letter only protected its accent
    return re.sub(r"\{([^\W\d_A-Za-z])\}", r"\1", unicodedata.normalize("NFC", text))


def _accented(match: re.Match[str]) -> str:
    accent = match.group(1) or match.group(4)
    base = match.group(2) or match.group(3) or match.group(5) or match.group(6)
    base = base[-1]  # \i and \j are i and j
    return unicodedata.normalize("NFC", base + LATEX_ACCENTS[accent])


def strip_latex(text: str, *, for_search: bool = False) -> str:
    r"""LaTeX to plain text.

    For a comparison (the default): accents and special letters as Unicode letters
    (latex_to_unicode; fold() then reads `ö` both ways), `\emph{x}` and `{x}` unwrapped, `$...$`
    kept as content, Greek commands spelled out (`\varepsilon` -> "epsilon"), `--`/`---` to `-`.

    `for_search`: plain words for a search box, whitespace collapsed: `\mathbb{R}^n` -> "R^n",
    `\|T\|` -> "norm T", `\alpha` -> "alpha", `\emph{x}` -> "x", `\"o` -> "o", NAMED_SYMBOLS
    worded; other commands, `$`, braces and subscript marks go."""
    if for_search:
        return _search_words(text)
    text = latex_to_unicode(text)
    # TeX ends a control word at the first non-letter and eats the spaces after it: `\theta (x)`
    # is θ(x), folded as the Unicode letter is
    text = GREEK_COMMAND_SPACED.sub(_greek_command, text)
    text = re.sub(r"\\ell(?![A-Za-z])\s*", "ℓ", text)  # fold() reads ℓ as "l"
    text = re.sub(r"\\[A-Za-z]+\*?\s*", "", text)  # \emph, \mathbb, \textit: keep the argument
    text = re.sub(r"\\(.)", r"\1", text)  # \&, \%, \_
    text = text.replace("---", "-").replace("--", "-")
    return re.sub(r"[${}^_~]", lambda m: " " if m.group() == "~" else "", text)


def _search_words(text: str) -> str:
    text = re.sub(r"\\\|(.*?)\\\|", r" norm \1 ", text)
    text = re.sub(r"\\(?:mathbb|mathbf|mathcal|mathfrak|mathscr|bm)\{(\w+)\}", r"\1", text)
    for macro in TEXT_MACROS:
        text = re.sub(rf"\\{macro}\*?\{{([^{{}}]*)\}}", r" \1 ", text)
    text = GREEK_COMMAND.sub(r" \1 ", text)
    for macro, words in NAMED_SYMBOLS.items():
        text = re.sub(rf"\\{macro}(?![A-Za-z])", f" {words}", text)
    text = re.sub(r"\\[\"'`^~=.]\{?(\w)\}?", r"\1", text)  # accents: \"o -> o
    text = re.sub(r"\\[A-Za-z]+\*?", " ", text)
    text = re.sub(r"\\.", " ", text)
    text = text.replace("--", "-")
    text = re.sub(r"[${}_]", " ", text)
    text = re.sub(r"\^\s+", "^", text)  # \ell^\infty -> "l^infinity", one word
    return " ".join(text.split())


def _greek_command(match: re.Match[str]) -> str:
    name: str = match.group(1).lower()
    return name[3:] if name.startswith("var") else name


def fold(text: str, umlauts: bool = False) -> str:
    """Unicode folded to lower-case ASCII words (for comparing words, never for display): NFKD
    without diacritics, ß/ø/æ/ł... spelled out (UNICODE_LETTERS), Greek letters spelled out.
    With `umlauts`, ä, ö and ü become ae, oe and ue (German transliteration: "Schroedinger")."""
    letters = UNICODE_LETTERS | UMLAUTS if umlauts else UNICODE_LETTERS
    text = "".join(letters.get(ch, ch) for ch in unicodedata.normalize("NFC", text))
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch):
            continue
        if "\u0370" <= ch <= "\u03ff":
            words = [w for w in unicodedata.name(ch, "").split() if w not in GREEK_NAME_NOISE]
            name = GREEK_NAMES.get(words[-1], words[-1]).lower() if words else ""
            out.append(f" {name} ")
            continue
        out.append(ch)
    return "".join(out).lower()


def word_set(words: str) -> frozenset[str]:
    """A word list written as one space-separated string, as a set."""
    return frozenset(words.split())


# Words that carry no identity in a title: "Testing of X" and "Testing for X" are one citation.
FUNCTION_WORDS = word_set("a an the of on in for and to with by from at via its their as or is are")


def american_spelling(word: str) -> str:
    """A lower-case word's British spelling in its American form ("normalised" -> "normalized",
    "modelling" -> "modeling", "colouring" -> "coloring"); other words as they are. The rules are
    blunt ("precise" -> "precize"): a variant no text holds only ever fails to match."""
    word = re.sub(r"is(e|ed|es|ing|ation|ations)$", r"iz\1", word)
    word = re.sub(r"(?<=[aeiou])ll(ing|ed|er)$", r"l\1", word)  # modelling, labelled
    # behaviour, neighbourhood, colourings (not "four", "hours": the stem has three letters)
    return re.sub(r"(?<=\w{3})our(s|ed|ing|ings|hood|hoods)?$", r"or\1", word)


# An acronym, in either number: "ODE", "SPDEs", "SQP" (two capitals at least, then a bare s).
ACRONYM = re.compile(r"([A-Z]{2,})(s?)")


def acronym_number(word: str) -> str | None:
    """An acronym in its other number ("ODEs" -> "ODE", "SPDE" -> "SPDEs"); None for another
    word. An acronym's plural is a bare final s, both ways, where an English word's is not
    ("analysis", "series"): a text writes either, so a search that matches words asks both."""
    match = ACRONYM.fullmatch(word)
    if not match:
        return None
    return match.group(1) if match.group(2) else f"{word}s"


def stem(word: str) -> str:
    """A folded word with its English plural and British spelling folded, so that variants of
    one word compare equal ("walks" -> "walk", "studies" -> "study", "colour" -> "color")."""
    word = american_spelling(word)
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and len(word) > 3 and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def plain_line(text: str | None) -> str:
    """Text as one line of plain text (LaTeX stripped, spacing collapsed)."""
    return " ".join(strip_latex(text or "").split())


# A number in service or file text is ASCII digits only: str.isdigit() also accepts "²" and "①",
# which int() then refuses. The one digit rule of the library: every parse of a number goes here.
ASCII_DIGITS = re.compile(r"[0-9]+")


def is_digits(text: object) -> bool:
    """Whether `text` is a non-empty string of ASCII digits 0-9 (no sign, no spaces)."""
    return isinstance(text, str) and ASCII_DIGITS.fullmatch(text) is not None


def as_int(text: object) -> int | None:
    """`text` (an int, or a string of ASCII digits) as a non-negative int; None otherwise."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text if text >= 0 else None
    return int(text) if isinstance(text, str) and is_digits(text) else None


# Markup a Markdown viewer would act on in service text: an HTML tag or comment start ("<script",
# "<!--", "</a"), and a link's "](" (a `javascript:` target). A mathematical "x < y" or "$x<n$"
# is left alone.
_TAG_START = re.compile(r"<(?=[!?/]|[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$))")


def inert_markdown(text: str) -> str:
    """`text` (a title, a field from a service) as Markdown that renders as the text it is and
    does nothing: a tag-like "<" becomes "&lt;", a link's "](" becomes "] (" (no link)."""
    return _TAG_START.sub("&lt;", text).replace("](", "] (")


def plural(count: int, one: str, many: str | None = None) -> str:
    """A count with its noun agreeing: `1 entry`, `2 entries` (`many` defaults to one + "s")."""
    return f"{count} {one if count == 1 else (many or one + 's')}"
