"""Every list of sources, of their MATH_*_API_URL variables and of the agents that prose writes
out by hand names a set its registry defines: the sources and variables core/sources.py's REGISTRY
(all of them, or those a flag of their rows picks: the discovery ones, the planned ones, those that
say a work's type, those the gate searches by title, ...), the agents plugin/agents/*.md.

A list is a sentence (or a table, or a bulleted list) that names three or more of them, in what
people read: README.md, CONTRIBUTING.md, docs/, plugin/**/*.md, the schemas, and the docstrings
of the scripts and the library (--help and docs/reference.md are made from them). CHANGELOG.md is
history and is not read. A source added to REGISTRY leaves every list of all the sources short,
so this test names each until it names the new one too (test_a_new_source_is_missed_by_every_list
shows it)."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections.abc import Iterator, Sequence

import pytest
from conftest import PLUGIN, ROOT
from mathtools.core import sources
from mathtools.core.sources import Source
from mathtools.research.router import AGENTS as LOOP_AGENTS

AGENTS = tuple(sorted(path.stem for path in (PLUGIN / "agents").glob("*.md")))
SKIPPED = {"CHANGELOG.md"}
# How a sentence says which sources it lists, by the field of Source that picks them: a list of
# some sources names them with one of these words ("searched by title", "DOIs"), a list of all
# of them needs none. Four sources and no word is a list of all written before the fifth.
FIELD_WORDS = {
    "query_word": r"query line|\bs2\b.*\bzbmath\b",
    "discovery": r"discover",
    "planned": r"\bplan|quer|\bsearch",
    "runs": r"\bruns?\b|run store",
    "document_types": r"\btypes?\b|\bbooks?\b",
    "looked_up": r"look|\bids?\b|identifier|\bDOIs?\b|\bZbl\b",
    "rules_out": r"rules? out|holder|exist",
    "last_resort": r"\blast\b|the others|not identif|unidentif",
    "title_search": r"title|\bti:",
    "record_client": r"RecordClient|client|calls of (?:its|their) own",
}
# A paragraph's sentences end at a full stop (or ; ! ?) followed by a space and a word.
SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Za-z`*(\[])")
LISTED_LINE = re.compile(r"^\s*(?:\||[-*+] |\d+\. )")
FENCED = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1", re.MULTILINE | re.DOTALL)


def _documents() -> Iterator[tuple[str, str]]:
    """(where, text) for every document and docstring people read."""
    paths = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
    paths += sorted(PLUGIN.rglob("*.md"))
    for path in paths:
        if path.name not in SKIPPED:
            yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
    for path in sorted((PLUGIN / "schemas").glob("*.json")):
        texts = _schema_texts(json.loads(path.read_text(encoding="utf-8")))
        yield str(path.relative_to(ROOT)), "\n\n".join(texts)
    for path in sorted((PLUGIN / "scripts").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = list(ast.walk(tree))
        documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        docs = [ast.get_docstring(node) for node in nodes if isinstance(node, documented)]
        yield str(path.relative_to(ROOT)), "\n\n".join(doc for doc in docs if doc)


def _schema_texts(node: object) -> list[str]:
    """The descriptions and titles of a JSON schema, each a paragraph."""
    if isinstance(node, dict):
        own = [str(node[key]) for key in ("title", "description") if isinstance(node.get(key), str)]
        return own + [text for value in node.values() for text in _schema_texts(value)]
    if isinstance(node, list):
        return [text for value in node for text in _schema_texts(value)]
    return []


def _units(text: str) -> Iterator[str]:
    """A document's sentences, each table row and each item of a bulleted list; code blocks are
    examples, not prose."""
    text = FENCED.sub("", text)
    for paragraph in re.split(r"\n\s*\n", text):
        prose: list[str] = []
        for line in paragraph.splitlines():
            if LISTED_LINE.match(line):
                yield from _sentences(" ".join(prose))
                prose = [line]
            else:
                prose.append(line)
        yield from _sentences(" ".join(prose))


def _sentences(text: str) -> list[str]:
    return SENTENCE_END.split(" ".join(text.split()))


def _source_names(source: Source) -> re.Pattern[str]:
    """How prose names a source: its name, its code, or its tag ("S2"); not an identifier
    that bears its name ("arXiv:1009.3186", "an arXiv id")."""
    words = {source.name, source.code, source.tag}
    if source.name.endswith(" Open"):  # "zbMATH" is zbMATH Open
        words.add(source.name.removesuffix(" Open"))
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w/.-])(?:{alternatives})(?![\w/-]|:\d| ids?\b|_id)")


def source_sets(registry: Sequence[Source]) -> dict[frozenset[str], re.Pattern[str] | None]:
    """The sets of source codes the rows define, each with the words a sentence uses to say
    which set it lists (None: all the sources, which needs no word): each field's sources, those
    whose flag is true or false, that have a kind in a frozenset, that have the field set."""
    sets: dict[frozenset[str], list[str]] = {}
    for field in dataclasses.fields(Source):
        values = [getattr(s, field.name) for s in registry]
        rows = list(zip(registry, values, strict=True))
        picked: list[frozenset[str]] = []
        if all(isinstance(value, bool) for value in values):
            picked = [frozenset(s.code for s, v in rows if v is w) for w in (True, False)]
        elif all(isinstance(value, frozenset) for value in values):
            kinds = set().union(*values)
            picked = [frozenset(s.code for s, v in rows if k in v) for k in kinds]
        elif any(value is None for value in values):
            picked = [frozenset(s.code for s, v in rows if (v is None) is w) for w in (True, False)]
        words = FIELD_WORDS.get(field.name)
        for codes in picked:
            assert words, f"Source.{field.name} picks sources: FIELD_WORDS says how prose names it"
            sets.setdefault(codes, []).append(words)
    allowed: dict[frozenset[str], re.Pattern[str] | None] = {
        codes: re.compile("|".join(words), re.IGNORECASE) for codes, words in sets.items()
    }
    allowed[frozenset(s.code for s in registry)] = None
    return allowed


def unlisted(
    named: dict[str, re.Pattern[str]], allowed: dict[frozenset[str], re.Pattern[str] | None]
) -> Iterator[tuple[str, str, set[str]]]:
    """(where, the list, what it names) for each list of three or more of `named` that names no
    set of `allowed` in words that say which."""
    for where, text in _documents():
        for unit in _units(text):
            found = {key for key, pattern in named.items() if pattern.search(unit)}
            if len(found) < 3 or frozenset(found) not in allowed:
                if len(found) >= 3:
                    yield where, unit[:240], found
                continue
            said = allowed[frozenset(found)]
            if said is not None and not said.search(unit):
                yield where, unit[:240], found


def _failures(
    found: list[tuple[str, str, set[str]]], sets: dict[frozenset[str], re.Pattern[str] | None]
) -> str:
    lines = [f"{where}: names {sorted(names)}: {unit}" for where, unit, names in found]
    lines += [
        f"the registry defines {sorted(codes)}, said by {said.pattern if said else 'all'}"
        for codes, said in sets.items()
    ]
    return "\n".join(lines)


def _check_sources(registry: Sequence[Source]) -> list[tuple[str, str, set[str]]]:
    return list(unlisted({s.code: _source_names(s) for s in registry}, source_sets(registry)))


def test_every_list_of_sources_names_a_set_of_the_registry():
    found = _check_sources(sources.REGISTRY)
    assert not found, _failures(found, source_sets(sources.REGISTRY))


def test_every_list_of_variables_names_a_set_of_the_registry():
    """The MATH_*_API_URL and MATH_*_MIN_INTERVAL lists, by the same sets of rows."""
    for variable in ("url_variable", "interval_variable"):
        by_code = {s.code: getattr(s, variable) for s in sources.REGISTRY}
        named = {code: re.compile(rf"\b{name}\b") for code, name in by_code.items()}
        found = list(unlisted(named, source_sets(sources.REGISTRY)))
        assert not found, _failures(found, source_sets(sources.REGISTRY))


def test_every_list_of_agents_names_them_all_or_the_loops():
    # A bare word ("proof", "computation") is no agent's name: only math:NAME or `NAME` is.
    named = {
        agent: re.compile(rf"math:{re.escape(agent)}(?![\w-])|`{re.escape(agent)}`")
        for agent in AGENTS
    }
    # all of them, or the loop's (research's AGENTS: the agent of each state)
    sets: dict[frozenset[str], re.Pattern[str] | None] = {frozenset(AGENTS): None}
    sets[frozenset(name.removeprefix("math:") for name in LOOP_AGENTS.values())] = re.compile(
        r"spawn|loop|state", re.IGNORECASE
    )
    found = list(unlisted(named, sets))
    assert not found, _failures(found, sets)


@pytest.mark.parametrize("flags", [{}, {"discovery": True, "planned": True, "runs": True}])
def test_a_new_source_is_missed_by_every_list(flags):
    """A sixth row (a real Source, as a contributor would add it): every list of all the
    sources, and every list of the sources it shares a flag with, is named until it names it."""
    added = Source(
        code="dblp",
        name="dblp",
        tag="dblp",
        api_url="https://dblp.org/search/publ/api",
        url_variable="MATH_DBLP_API_URL",
        interval_variable="MATH_DBLP_MIN_INTERVAL",
        min_interval=1.0,
        **flags,
    )
    before = _check_sources(sources.REGISTRY)
    after = _check_sources((*sources.REGISTRY, added))
    assert len(after) > len(before)
    assert any(names == set(sources.SOURCES) for _, _, names in after)
