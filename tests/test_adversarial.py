"""Defects found by the second adversarial campaign (issue: isdigit, wrong types, redirects,
malformed records, ...), one test (or a few) per item. Every hostile answer is synthesized."""

from __future__ import annotations

import ast

import pytest
from conftest import SCRIPTS
from mathtools.core.errors import BadInput, ServiceError
from mathtools.core.text import as_int, is_digits

# -- 1. one digit rule: ASCII digits only ------------------------------------------------------


@pytest.mark.parametrize("text", ["²", "①", "²⁰¹⁶", "١٢", "", " 12", "-1", "1.0"])
def test_only_ascii_digits_are_digits(text):
    assert not is_digits(text)
    assert as_int(text) is None


def test_ascii_digits_are_numbers():
    assert is_digits("2016") and as_int("2016") == 2016 and as_int(7) == 7
    assert as_int(True) is None and as_int(-3) is None


def test_no_library_module_parses_a_number_with_isdigit():
    """str.isdigit accepts "²", which int() refuses: every number goes through core.text."""
    allowed = {"search/keyterms.py"}  # character classes of words, never parsed as numbers
    found = []
    for path in (SCRIPTS / "mathtools").rglob("*.py"):
        if str(path.relative_to(SCRIPTS / "mathtools")) in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("isdigit", "isnumeric"):
                found.append(f"{path.name}:{node.lineno}")
    assert not found


def test_superscript_digits_from_services_are_refused_or_dropped():
    from mathtools.services import arxiv, s2records, zbmath

    with pytest.raises(BadInput):
        zbmath.identifier("zbMATH:²")
    record = {"id": 1, "identifier": "1409.11141", "year": "²⁰¹⁶", "title": {"title": "T"}}
    paper = zbmath.to_paper(record)
    assert paper is None or paper.year is None
    assert arxiv._split_entry_id("http://arxiv.org/abs/1605.08386v²") == ("1605.08386v²", None)
    with pytest.raises(ServiceError):
        s2records.to_paper({"paperId": "a" * 40, "externalIds": {"CorpusId": "²³"}})
    with pytest.raises(BadInput):
        s2records.s2_id("CorpusId:²³")


def test_a_superscript_year_or_history_count_in_literature_md_is_not_a_number():
    from mathtools.litdoc.refentry import Entry

    entry = Entry("REF", 1, ["### REF-001: T", "- **Year:** ²⁰²¹"])
    assert entry.year is None
