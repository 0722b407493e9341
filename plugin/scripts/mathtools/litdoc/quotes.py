"""[V] claims quote their source, and the quote is checked against it.

A verified claim is written `[V] "<verbatim text>" (REF-003, Theorem 2.3)` or `(REF-003, abstract)`:
the text as the paper states it, LaTeX kept. It is accepted when it stands in that REF's stored
abstract, or in the named statement of the paper's own source, which the REF entry keeps in its
Statements block (what `literature.py verify` read from the paper's arXiv LaTeX source). Before
comparing, whitespace and LaTeX spacing are normalised (`\\le` is `\\leq`; `\\,`, `~` and `\\quad`
are spaces; `\\(`..`\\)` is `$`..`$`); an elision (`...` or `…`) in a quote skips text, the parts
standing in the passage in order. Anything else is refused, naming the closest passage: a [V]
without a quote (a paraphrase is [S]), one citing no REF or a UREF, or a statement the REF does not
keep.

Key Results may leave out the REF (`[V] "..." (Theorem 2.3)`): the entry is the paper.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .literature import SYNTHESIS, LiteratureDoc
from .refentry import Entry

MIN_QUOTE_CHARS = 20  # a shorter quote identifies no passage
ABSTRACT = "abstract"
# A [V] marker and what follows it: the quote and its citation, when written as the rule says.
MARKER = re.compile(r"\[V\]")
QUOTED = re.compile(
    r"""\[V\]\s*(?:"(?P<quote>[^"]+)"|``(?P<tex>.+?)'')\s*"""
    r"""(?:\((?:(?P<ref>(?:U?REF)-\d{3,})\s*,\s*)?(?P<where>[^()]*?)\s*\))?"""
)
_SPACING = re.compile(r"\\[,;:! ]|~|\\q?quad\b|\\enspace\b|\\thinspace\b")
_SHORT = re.compile(r"\\(le|ge|ne)(?![a-zA-Z])")
_ELISION = re.compile(r"\s*(?:\.\.\.|…|\[\.\.\.\]|\[…\])\s*")


@dataclass(frozen=True)
class Quote:
    """One [V] claim as written: its quote (None: it quotes nothing), the REF it cites (None: the
    entry itself, in Key Results), where in the paper ("abstract", "Theorem 2.3")."""

    text: str | None
    ref: str | None
    where: str | None
    line: int  # 1-based, in the text it was read from


def quotes(text: str, first_line: int = 1) -> list[Quote]:
    """Every [V] claim in `text`, quoted or not, in order."""
    found = []
    for marker in MARKER.finditer(text):
        line = first_line + text.count("\n", 0, marker.start())
        match = QUOTED.match(text, marker.start())
        if match is None:
            found.append(Quote(None, None, None, line))
            continue
        quote = match.group("quote") or match.group("tex")
        where = " ".join((match.group("where") or "").split()) or None
        found.append(Quote(" ".join(quote.split()), match.group("ref"), where, line))
    return found


def normalise(text: str) -> str:
    """Text compared as a quote is: LaTeX spacing and aliases folded, then no whitespace at all
    (`$N\\geq 3$` and `$N \\ge 3$` are one quote)."""
    text = _SPACING.sub(" ", text.replace("\\(", "$").replace("\\)", "$"))
    text = _SHORT.sub(lambda m: f"\\{m.group(1)}q", text)
    return "".join(text.split())


def found_in(quote: str, passage: str) -> bool:
    """Whether the quote stands in the passage: each part between elisions, in order."""
    haystack, at = normalise(passage), 0
    for part in _ELISION.split(quote):
        needle = normalise(part)
        if not needle:
            continue
        at = haystack.find(needle, at)
        if at < 0:
            return False
        at += len(needle)
    return True


def closest(quote: str, passage: str) -> str:
    """The run of the passage's words most like the quote (for the refusal's message)."""
    words = passage.split()
    size = max(1, len(quote.split()))
    target = normalise(quote)
    best, best_ratio = "", -1.0
    for start in range(0, max(1, len(words) - size + 1)):
        window = " ".join(words[start : start + size])
        ratio = difflib.SequenceMatcher(None, target, normalise(window), autojunk=False).ratio()
        if ratio > best_ratio:
            best, best_ratio = window, ratio
    return best


def _label(name: str) -> str:
    return " ".join(name.split()).casefold()


def check(quote: Quote, entries: dict[str, Entry], own: Entry | None = None) -> str | None:
    """Why a [V] claim is refused, or None when its quote stands in its source. `entries`: the
    document's entries by number; `own`: the entry whose Key Results hold the claim."""
    if quote.text is None:
        return (
            '[V] quotes no source: write [V] "<the paper\'s words>" (REF-NNN, Theorem N) or '
            "(REF-NNN, abstract); a paraphrase is [S]"
        )
    if (quote.ref is None or quote.where is None) and own is None:
        short = _short(quote.text)
        return f'[V] "{short}" cites no REF: add (REF-NNN, Theorem N) or (REF-NNN, abstract)'
    number = quote.ref.upper() if quote.ref else (own.entry_number if own else "")
    if number.startswith("UREF"):
        return f"[V] cites {number}, which is unconfirmed: never a [V] source"
    entry = entries.get(number)
    if entry is None:
        return f"[V] cites {number}, which is not an entry"
    if entry.field("Retracted"):
        notice = entry.field("Retracted")
        return f"[V] cites {number}, which is retracted ({notice}): never a [V] source"
    if len(normalise(quote.text)) < MIN_QUOTE_CHARS:
        return f'[V] "{quote.text}" is too short to name a passage of {number}'
    where = quote.where or ABSTRACT
    if _label(where) == ABSTRACT:
        source, name = entry.field("Abstract") or "", f"{number}'s abstract"
    else:
        kept = {_label(printed): text for printed, text in entry.statements().items()}
        if _label(where) not in kept:
            listed = ", ".join(entry.statements()) or "none"
            return (
                f"[V] cites {number}, {where}, which {number} does not keep (its statements: "
                f"{listed}); quote a statement `literature.py verify` listed, or the abstract"
            )
        source, name = kept[_label(where)], f"{number}, {where}"
    if found_in(quote.text, source):
        return None
    return f'[V] "{_short(quote.text)}" is not in {name}; closest: "{closest(quote.text, source)}"'


def _short(text: str, words: int = 12) -> str:
    split = text.split()
    return " ".join(split[:words]) + ("…" if len(split) > words else "")


def violations(text: str, entries: dict[str, Entry], where: str, first_line: int = 1) -> list[str]:
    """Every refused [V] claim of `text` (a Synthesis, PROOF.md, ...), as `<where> line N: why`."""
    found = []
    for quote in quotes(text, first_line):
        why = check(quote, entries)
        if why:
            found.append(f"{where} line {quote.line}: {why}")
    return found


@dataclass(frozen=True)
class LatexSourceText:
    """What verify read of one paper's arXiv LaTeX source: its URL, its statements (printed name ->
    LaTeX), the names it listed, and why there are none when it could not be read."""

    url: str
    statements: dict[str, str]
    listed: list[str]
    missing: str | None = None


def keep_quoted(doc: LiteratureDoc, papers: dict[str, LatexSourceText]) -> list[str]:
    """Keep in each REF every statement verify listed of its paper and those a [V] claim quotes
    (in its Key Results, or the Synthesis citing it): `papers` maps an arXiv id to what verify
    read of its LaTeX source. What cannot be kept is said: a statement the paper does not state, or,
    when its LaTeX source could not be read, that it is unknown (never that the paper lacks it)."""
    said = []
    synthesis = "".join(doc.section(SYNTHESIS).lines()[1:])
    quoted = cited_statements(synthesis)
    for entry in doc.confirmed:
        paper = papers.get(entry.arxiv_id or "")
        if paper is None:
            continue
        statements = paper.statements
        by_label = {_label(printed): printed for printed in statements}
        names = [
            n
            for ref, n in cited_statements(entry.key_results or "")
            if ref in (None, entry.entry_number)
        ]
        names += [n for ref, n in quoted if ref == entry.entry_number]
        keep = {printed: statements[printed] for printed in paper.listed if printed in statements}
        for name in dict.fromkeys(names):
            printed = by_label.get(_label(name))
            if printed is not None:
                keep[printed] = statements[printed]
            elif _label(name) not in {_label(p) for p in entry.statements()}:
                said.append(f"{entry.entry_number}: {_unkept(name, paper)}")
        if keep:
            entry.set_statements(paper.url, keep)
    return said


def _unkept(name: str, paper: LatexSourceText) -> str:
    """Why a quoted statement cannot be kept: unknown when the source could not be read."""
    if paper.missing:
        return f"{name} is unknown: the paper's LaTeX source could not be read ({paper.missing})"
    if not paper.statements:
        return f"{name} is unknown: no theorem-like statement could be read from its LaTeX source"
    shown = list(paper.statements)
    listed = ", ".join(shown[:12]) + (", ..." if len(shown) > 12 else "")
    return f"the paper states no {name} (it states {listed})"


_CONFIDENCE_LINE = re.compile(r"^\*\*Confidence:\*\*.*$", re.M)
_STEP = re.compile(r"^### (?P<name>.+?)\s*$", re.M)
# OUTPUT.tex: `\verified` then the quote (``...'' or "...") and \cite[Theorem~2.3]{key}.
_TEX_VERIFIED = re.compile(r"\\verified\b(?:\{\})?")
_TEX_QUOTED = re.compile(
    r"""\\verified\b(?:\{\})?\s*(?:``(?P<tex>.+?)''|"(?P<plain>[^"]+)")\s*~?\s*"""
    r"""\\cite\[(?P<where>[^\]]*)\]\{(?P<key>[^},]+)\}""",
    re.S,
)


def proof_violations(proof_md: str, entries: dict[str, Entry]) -> list[str]:
    """PROOF.md's [V] claims: each quote stands in its source, and a step whose Confidence is
    [V] rests on at least one quoted statement."""
    text = _CONFIDENCE_LINE.sub("", proof_md)  # the step's tier, not a claim
    found = violations(text, entries, "PROOF.md")
    steps = list(_STEP.finditer(proof_md))
    for number, step in enumerate(steps):
        end = steps[number + 1].start() if number + 1 < len(steps) else len(proof_md)
        body = proof_md[step.start() : end]
        tier = re.search(r"^\*\*Confidence:\*\*\s*(\[[VPS~]\])", body, re.M)
        if (
            tier
            and tier.group(1) == "[V]"
            and not any(q.text for q in quotes(_CONFIDENCE_LINE.sub("", body)))
        ):
            line = proof_md.count("\n", 0, step.start()) + 1
            found.append(
                f"PROOF.md line {line}: {step.group('name')} is [V] but quotes no source: "
                '[V] "<the paper\'s words>" (REF-NNN, Theorem N), or give it another tier'
            )
    return found


def tex_violations(tex: str, entries: dict[str, Entry], refs: dict[str, str]) -> list[str]:
    """OUTPUT.tex's \\verified marks: each is followed by the quote and `\\cite[where]{key}` of
    a confirmed reference (`refs`: BibTeX key -> REF number), and the quote stands in it."""
    found = []
    body = max(tex.find("\\begin{document}"), 0)  # the preamble defines \\verified, uses none
    for mark in _TEX_VERIFIED.finditer(tex, body):
        line = tex.count("\n", 0, mark.start()) + 1
        match = _TEX_QUOTED.match(tex, mark.start())
        if match is None:
            found.append(
                f"OUTPUT.tex line {line}: \\verified quotes no source: write \\verified "
                "``<the paper's words>'' \\cite[Theorem~N]{key}"
            )
            continue
        number = refs.get(match.group("key").strip())
        if number is None:
            found.append(f"OUTPUT.tex line {line}: {match.group('key')} is no confirmed reference")
            continue
        where = " ".join(match.group("where").replace("~", " ").split())
        text = " ".join((match.group("tex") or match.group("plain")).split())
        if why := check(Quote(text, number, where, line), entries):
            found.append(f"OUTPUT.tex line {line}: {why}")
    return found


def cited_statements(text: str) -> list[tuple[str | None, str]]:
    """(REF number or None, statement name) of every quote in `text` naming a statement."""
    return [
        (q.ref.upper() if q.ref else None, q.where)
        for q in quotes(text)
        if q.text and q.where and _label(q.where) != ABSTRACT
    ]
