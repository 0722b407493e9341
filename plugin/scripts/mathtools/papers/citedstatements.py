"""The statements a paper cites by number (`\\cite[Theorem 2.3]{key}`), checked against the cited
paper's own LaTeX source: what /math:check-refs adds for mathematics, which cites statements, not
just papers.

`statement_citations(text)` reads every statement a LaTeX text cites by number, in a
citation's note (`\\cite[Thm.~2.3(ii)]{key}`, `\\cite{key}*{Lemmas 4.1 and 4.2}`) or in prose
("Theorem 2.3 of \\cite{key}", "by \\cite{key}, Theorem 2.3,"): citinggrammar.py's grammar.
`check_statements` looks each up in the statements of the cited paper's arXiv source
(theorems.py, numbered as LaTeX prints them), for entries the gate confirmed with an arXiv id,
and says what it found:

- `found`: the statement, its note and its text (JSON carries the whole text);
- `other_kind`: the number is another statement's ("Theorem 2.3" cited, "Lemma 2.3" printed:
  a shared counter);
- `not_in_version`: the arXiv version read has no such number: its nearest numbers are named.
  Never "wrong": the journal's numbering can differ from the arXiv version's;
- `not_checked`: a section or an equation (not extracted), or a source that could not be read;
- `no_latex_source`: the reference is not confirmed with an arXiv id.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core import (
    AmbiguousCitation,
    CheckedEntry,
    CitedStatement,
    MathError,
    ShownStatement,
    StatementCitation,
    StatementStatus,
    arxiv_id_text,
    is_digits,
)
from .citinggrammar import Named, kind_of, mentions
from .papertheorems import TheoremsResult
from .theorems import Statement

NOT_EXTRACTED = frozenset({"Section", "Chapter", "equation"})
FIRST_WORDS = 12


@dataclass
class CitationsRead:
    """The statements a text cites: each of one paper, and those of a citation of several
    papers (`Section 3 of~\\cite{a,b}`), which say no one paper's statement and are not checked."""

    citations: list[StatementCitation] = field(default_factory=list)
    ambiguous: list[AmbiguousCitation] = field(default_factory=list)

    def __iadd__(self, other: CitationsRead) -> CitationsRead:
        self.citations += other.citations
        self.ambiguous += other.ambiguous
        return self


def statement_citations(
    text: str, where: Callable[[int], tuple[str, int]] | None = None
) -> CitationsRead:
    """Every statement `text` (comment-free LaTeX) cites, by a citation's note or in prose
    (citinggrammar.py), in order; `where` maps a line of `text` to (file, line)."""
    read = CitationsRead()
    for mention in mentions(text):
        line = text.count("\n", 0, mention.start) + 1
        file, line = where(line) if where else ("", line)
        if len(mention.keys) != 1:
            read.ambiguous.append(
                AmbiguousCitation(
                    keys=list(mention.keys),
                    written=mention.written,
                    statements=[_named_text(n) for n in mention.named],
                    read_from=mention.read_from,
                    file=file,
                    line=line,
                )
            )
            continue
        read.citations += [
            StatementCitation(
                key=mention.keys[0],
                written=mention.written,
                kind=named.kind,
                number=named.number,
                part=named.part,
                read_from=mention.read_from,
                file=file,
                line=line,
                sentence=citing_sentence(text, mention.start),
            )
            for named in mention.named
        ]
    return read


# Where a sentence ends: a full stop (not an abbreviation's: "Thm.", "e.g.", "cf.", "Fig."),
# a question or exclamation mark, before a space and a capital or a command; or a blank line.
_SENTENCE_END = re.compile(r"(?<![A-Z])(?<!\b[a-z])[.?!](?=\s+[A-Z\\])|\n[ \t]*\n")
_ABBREVIATION = re.compile(
    r"\b(?:e\.g|i\.e|cf|resp|etc|Thm|Thms|Lem|Prop|Cor|Def|Rem|Sec|Ch|Eq|Eqs|Fig|Ex|No|Vol"
    r"|vs|al|pp|p|ch|sec|eq|ref|Ref|Refs|Prop|Props|Lemmas?|Thms)$"
)
MAX_SENTENCE_CHARS = 600  # a longer one is cut around the citation


def citing_sentence(text: str, offset: int) -> str:
    """The sentence of `text` (LaTeX) holding the character at `offset` (a citation), spaces
    collapsed, as the model compares it with the cited statement; at most MAX_SENTENCE_CHARS
    around the citation."""
    start, end = 0, len(text)
    for found in _SENTENCE_END.finditer(text):
        if _ABBREVIATION.search(text[: found.start()]):
            continue
        if found.end() <= offset:
            start = found.end()
        elif found.start() >= offset:
            end = found.start() + (1 if found.group().strip() else 0)
            break
    half = MAX_SENTENCE_CHARS // 2
    cut_start, cut_end = max(start, offset - half), min(end, offset + half)
    sentence = " ".join(text[cut_start:cut_end].split())
    return ("… " if cut_start > start else "") + sentence + (" …" if cut_end < end else "")


def _named_text(named: Named) -> str:
    return f"{named.kind} {named.number}{named.part or ''}"


def _numeric(number: str) -> tuple[int, ...]:
    parts = re.findall(r"[0-9]+|[A-Za-z]", number)
    return tuple(int(p) if is_digits(p) else ord(p[0]) for p in parts)


def _same_kind(statement: Statement, kind: str) -> bool:
    return kind_of(statement["name"].split()[-1] if statement["name"] else "") == kind or (
        statement["name"].lower() == kind.lower()
    )


def nearest_numbers(statements: list[Statement], kind: str, number: str) -> list[str]:
    """The printed names of the numbered statements closest to `number`: the one before and
    the one after, among those of `kind` when the paper has any, else among all."""
    numbered = [s for s in statements if s["number"]]
    same = [s for s in numbered if _same_kind(s, kind)] or numbered
    ordered = sorted(same, key=lambda s: _numeric(s["number"] or ""))
    target = _numeric(number)
    before = [s for s in ordered if _numeric(s["number"] or "") < target]
    after = [s for s in ordered if _numeric(s["number"] or "") > target]
    return [s["printed"] for s in (before[-1:] + after[:1])]


def shown(statement: Statement) -> ShownStatement:
    words = " ".join(statement["text"].split()).split(" ")
    first = " ".join(words[:FIRST_WORDS]) + (" …" if len(words) > FIRST_WORDS else "")
    return ShownStatement(
        printed=statement["printed"],
        note=" ".join(statement["note"].split()) if statement["note"] else None,
        first_words=first,
        text=statement["text"],
        source_file=statement["source_file"],
        source_line=statement["source_line"],
    )


def check_statements(
    citations: list[StatementCitation],
    entries: list[CheckedEntry],
    theorems: Callable[[str], TheoremsResult],
) -> list[CitedStatement]:
    """Each citation checked against the cited paper's arXiv source (`theorems(arxiv_id)`: the
    latest version's statements, fetched once per paper)."""
    by_key = {entry["key"]: entry for entry in entries}
    read: dict[str, TheoremsResult | str] = {}
    checked: list[CitedStatement] = []
    for citation in citations:
        entry = by_key.get(citation["key"])
        paper = entry["verification"]["paper"] if entry else None
        arxiv_id = paper.get("arxiv_id") if paper else None
        if (
            paper is None
            or entry is None
            or entry["status"] not in ("CONFIRMED", "CORRECTED")
            or not arxiv_id
        ):
            checked.append(
                _result(
                    citation,
                    "no_latex_source",
                    None,
                    None,
                    None,
                    [],
                    ("not checked: the reference is not confirmed with an arXiv id"),
                )
            )
            continue
        if arxiv_id not in read:
            try:
                read[arxiv_id] = theorems(arxiv_id)
            except MathError as exc:  # a failing service, an unusable source: named, not hidden
                read[arxiv_id] = (
                    f"not checked: the source of arXiv:{arxiv_id} could not be read ({exc})"
                )
        source = read[arxiv_id]
        version = (
            f"v{paper['arxiv_version']} (the latest)"
            if paper.get("arxiv_version")
            else "the latest"
        )
        asked = f"arXiv:{arxiv_id_text(arxiv_id, None)} {version}"
        if isinstance(source, str):
            checked.append(_result(citation, "not_checked", arxiv_id, version, None, [], source))
        elif source["status"] != "ok":
            message = f"not checked: {source['message']}"
            checked.append(_result(citation, "not_checked", arxiv_id, version, None, [], message))
        elif citation["kind"] in NOT_EXTRACTED:
            message = f"not checked: {citation['kind']} numbers are not read from sources"
            checked.append(_result(citation, "not_checked", arxiv_id, version, None, [], message))
        else:
            checked.append(_look_up(citation, source["statements"], arxiv_id, version, asked))
    return checked


def _look_up(
    citation: StatementCitation,
    statements: list[Statement],
    arxiv_id: str,
    version: str,
    asked: str,
) -> CitedStatement:
    kind, number = citation["kind"], citation["number"]
    numbered = [s for s in statements if s["number"] == number]
    same = [s for s in numbered if _same_kind(s, kind)]
    if same:
        statement = same[0]
        return _result(
            citation,
            "found",
            arxiv_id,
            version,
            shown(statement),
            [],
            (f"{statement['printed']} of {asked}"),
        )
    if numbered:
        statement = numbered[0]
        return _result(
            citation,
            "other_kind",
            arxiv_id,
            version,
            shown(statement),
            [],
            (f"{asked} prints no {kind} {number}: {number} is its {statement['printed']}"),
        )
    nearest = nearest_numbers(statements, kind, number)
    near = f"; nearest: {', '.join(nearest)}" if nearest else ""
    return _result(
        citation,
        "not_in_version",
        arxiv_id,
        version,
        None,
        nearest,
        (f"{asked} has no {kind} {number}{near} (a journal version may number differently)"),
    )


def _result(
    citation: StatementCitation,
    status: StatementStatus,
    arxiv_id: str | None,
    version: str | None,
    statement: ShownStatement | None,
    nearest: list[str],
    message: str,
) -> CitedStatement:
    return CitedStatement(
        **citation,
        status=status,
        arxiv_id=arxiv_id,
        version_read=version,
        statement=statement,
        nearest=nearest,
        message=message,
    )
