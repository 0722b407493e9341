"""zbMATH Open's search language, evaluated over records: how the stand-in (standin.py) answers
`/document/_search` and `/document/_structured_search` from a world's zbMATH records.

`select(records, "ti: convex & au: Viterbo")` returns the records the search string selects:
`ti: au: py: so: cc: dt: an: doi: arxiv:` terms, bare words (title, authors, source), quoted
phrases, `&` (or nothing), `|`, `!` and parentheses; `*` ends a prefix. The licence sentence
zbMATH puts in place of a withheld title stands for nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from support.worlds import words

ZBMATH_LICENCE = "zbMATH Open Web Interface contents unavailable due to conflicting licenses."


def _texts(record: dict, name: str) -> list[str]:
    """The strings one search field looks at (the licence sentence stands for nothing)."""
    contributors = record.get("contributors") or {}
    source = record.get("source") or {}
    links = record.get("links") or []
    values = {
        "ti": [(record.get("title") or {}).get("title")],
        "au": [
            p.get("name") for p in contributors.get("authors", []) + contributors.get("editors", [])
        ],
        "so": [source.get("source")] + [s.get("title") for s in source.get("series") or []],
        "py": [record.get("year")],
        "an": [record.get("identifier")],
        "dt": [(record.get("document_type") or {}).get("code")],
        "cc": [m.get("code") for m in record.get("msc") or []],
        "doi": [x.get("identifier") for x in links if x.get("type") == "doi"],
        "arxiv": [x.get("identifier") for x in links if x.get("type") == "arxiv"],
    }
    if name == "any":
        return [t for field_name in ("ti", "au", "so") for t in values[field_name] if t]
    return [t for t in values.get(name, []) if isinstance(t, str) and t != ZBMATH_LICENCE]


def _term(record: dict, name: str, value: str) -> bool:
    value = value.strip('"')
    texts = _texts(record, name)
    if name in ("doi", "arxiv", "an", "dt"):
        return any(value.lower() == text.lower() for text in texts)
    if name == "cc":
        return any(text.upper().startswith(value.upper().rstrip("-X*")) for text in texts)
    if name == "py":
        first, _, last = value.partition("-")
        return any(
            text.isdigit() and int(first) <= int(text) <= int(last or first) for text in texts
        )
    wanted = [w.rstrip("*") for w in words(value)]
    haystack = [w for text in texts for w in words(text)]
    n = len(wanted)
    return bool(wanted) and any(
        all(haystack[i + k].startswith(wanted[k]) for k in range(n))
        for i in range(len(haystack) - n + 1)
    )


def select(records: Iterable[dict], query: str) -> list[dict]:
    """The records a search string selects: `&` (or nothing) binds tighter than `|`; `!` negates;
    `field:` applies to the word, phrase or parenthesised group after it."""
    tokens = re.findall(r'"[^"]*"|[()|&!]|[A-Za-z]+:|[^\s()|&!"]+', query)
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def disjunction(record: dict, name: str) -> bool:
        nonlocal position
        result = conjunction(record, name)
        while peek() == "|":
            position += 1
            result = conjunction(record, name) or result
        return result

    def conjunction(record: dict, name: str) -> bool:
        nonlocal position
        result = unary(record, name)
        while peek() not in (None, "|", ")"):
            if peek() == "&":
                position += 1
            result = unary(record, name) and result
        return result

    def unary(record: dict, name: str) -> bool:
        nonlocal position
        token = peek()
        position += 1
        if token == "!":
            return not unary(record, name)
        if token == "(":
            result = disjunction(record, name)
            position += 1  # ")"
            return result
        if token and token.endswith(":"):
            return unary(record, token[:-1].lower())
        return _term(record, name, token or "")

    found = []
    for record in records:
        position = 0
        if tokens and disjunction(record, "any"):
            found.append(record)
    return found
