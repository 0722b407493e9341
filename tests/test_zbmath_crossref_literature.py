"""Zbl numbers, MSC codes and books from verification to LITERATURE.md and references.bib: the
verification runs against the stand-in's real zbMATH and Crossref records, the merge and the
export are the real ones."""

from __future__ import annotations

import json

import pytest
from mathtools.litdoc import bibexport, checks, literature, merging
from support.standin import StandIn
from test_verify_zbmath_crossref import BOOK, CROSSREF_ARTICLE, ZBMATH_ARTICLE


@pytest.fixture
def verified(script, monkeypatch, tmp_path):
    with StandIn() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        run = script("verify_batch.py", input=json.dumps([ZBMATH_ARTICLE, BOOK, CROSSREF_ARTICLE]))
    assert run.returncode == 0, run.stderr
    document = run.json()
    assert [r["status"] for r in document["results"]] == ["CONFIRMED"] * 3
    return document


def test_literature_carries_zbl_and_msc_and_stays_valid(verified, tmp_path):
    path = tmp_path / "LITERATURE.md"
    merging.merge_file(path, verified)
    text = path.read_text(encoding="utf-8")
    assert "- **Zbl:** 1409.11141" in text
    assert "- **MSC:** 11Y40, 11R16, 11R27" in text
    assert "- **Source:** zbMATH Open" in text and "- **Source:** Crossref" in text
    # zbMATH's "Family, Given" names are written "Given Family": the Authors line splits on commas.
    assert "- **Authors:** Tommy Hofmann, Yinan Zhang" in text
    doc = literature.load_literature(path)
    article = doc.confirmed[0].to_dict()
    assert (article["zbl"], article["msc"]) == ("1409.11141", ["11Y40", "11R16", "11R27"])
    # Every entry passes the schema once assessed (the merge leaves relevance for the model).
    problems = checks.validate(path)
    assert problems and all("confidence" in p for p in problems), problems


def test_bibtex_writes_zbl_and_doi_and_books_as_book(verified, tmp_path):
    merging.merge_file(tmp_path / "LITERATURE.md", verified)
    bibexport.export(tmp_path)
    text = (tmp_path / "references.bib").read_text(encoding="utf-8")
    entries = {chunk.split(",", 1)[0]: chunk for chunk in text.split("\n@")[1:]}
    article = next(e for k, e in entries.items() if k.startswith("misc{hofmann"))
    assert "  zbl = {1409.11141}," in article
    assert "  doi = {10.1016/j.jnt.2016.05.016}," in article
    assert "  msc2020 = {11Y40; 11R16; 11R27}," in article
    book = next(e for k, e in entries.items() if k.startswith("book{"))
    assert "  zbl = {1416.11009}," in book and "  doi = {10.2140/obs.2019.2-1}," in book
    cybenko = next(e for k, e in entries.items() if k.startswith("misc{cybenko"))
    assert "  doi = {10.1007/bf02551274}," in cybenko and "zbl" not in cybenko
