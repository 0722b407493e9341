"""One source, one row: every list of sources outside core/sources.py's REGISTRY is read from it
or tested equal to it here, so that a source added, renamed or dropped fails wherever a copy
drifted (the schemas, the run store's CHECK, the manifest's hosts, the environment, the gate)."""

from __future__ import annotations

import json
import re
import sqlite3

from conftest import PLUGIN, ROOT
from mathtools.core import config, sources
from mathtools.gate import lookups
from mathtools.litdoc.mergeentries import source_field
from mathtools.search.store import RunStore

from tools import make_reference

SCHEMAS = PLUGIN / "schemas"


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


def test_the_source_schema_is_the_registry():
    assert (SCHEMAS / "source.schema.json").read_text() == make_reference.source_schema()
    assert _schema("source")["enum"] == list(sources.SOURCES)


def test_no_schema_lists_the_sources_but_the_source_schema():
    """Every other schema refers to source.schema.json; a plan's sources (a query plan searches
    only some) are the registry's planned ones."""
    codes = "|".join(sources.SOURCES)
    listing = re.compile(rf'"enum": \[\s*"({codes})"')
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        if path.name in ("source.schema.json", "plan.schema.json"):
            continue
        assert not listing.search(path.read_text()), path.name
    plan = _schema("plan")["properties"]
    assert plan["queries"]["required"] == list(sources.PLANNED)
    assert list(plan["queries"]["properties"]) == list(sources.PLANNED)
    skipped = plan["skipped"]["items"]["properties"]["source"]["enum"]
    assert skipped == list(sources.PLANNED)


def test_the_run_store_takes_runs_of_the_registrys_searched_sources(tmp_path):
    with RunStore(tmp_path / "literature.db"):
        pass
    with sqlite3.connect(tmp_path / "literature.db") as db:
        (ddl,) = db.execute("SELECT sql FROM sqlite_master WHERE name = 'runs'").fetchone()
    checked = re.search(r"source IN \(([^)]*)\)", ddl)
    assert checked is not None
    assert re.findall(r"'(\w+)'", checked.group(1)) == list(sources.RUNS)


def test_the_manifest_reaches_every_source_and_names_none_in_its_keywords():
    manifest = json.loads((PLUGIN / ".claude-plugin/plugin.json").read_text())
    assert {s.host for s in sources.REGISTRY} <= set(manifest["network"]["hosts"])
    words = {word for keyword in manifest.get("keywords", []) for word in keyword.split("-")}
    assert not words & {word for s in sources.REGISTRY for word in s.name.lower().split()}


def test_every_row_s_variables_are_read_and_documented():
    table = (ROOT / "docs" / "configuration.md").read_text()
    for source in sources.REGISTRY:
        for name in (source.url_variable, source.interval_variable):
            assert name in config.NAMES and f"| `{name}` |" in table


def test_the_environment_moves_each_source(monkeypatch):
    for source in sources.REGISTRY:
        monkeypatch.setenv(source.url_variable, f"http://127.0.0.1:9/{source.code}/")
        monkeypatch.setenv(source.interval_variable, "0.25")
    for source in sources.REGISTRY:
        assert config.api_url(source.code) == f"http://127.0.0.1:9/{source.code}"
        assert config.min_interval(source.code) == 0.25


def test_every_source_the_gate_reaches_through_the_common_interface_has_a_row():
    assert set(lookups.RECORD_CLIENTS) <= set(sources.SOURCES)
    for code in lookups.RECORD_CLIENTS:
        assert sources.BY_CODE[code].looked_up, code  # it is asked for some identifier


def test_the_source_field_names_the_sources_in_the_registry_s_order():
    assert source_field({"crossref", "arxiv"}) == "arXiv, Crossref"
    assert source_field({"zbMATH Open", "semantic_scholar"}) == "Semantic Scholar, zbMATH Open"


def test_an_old_files_both_still_reads_as_arxiv_and_semantic_scholar():
    """`both` (a LITERATURE.md written when there were two sources): updated by a third source,
    it becomes the three names; a hand-written Source naming no source is kept."""
    assert source_field({"both", "crossref"}) == "arXiv, Semantic Scholar, Crossref"
    assert source_field({"arXiv, Semantic Scholar", "zbmath"}) == (
        "arXiv, Semantic Scholar, zbMATH Open"
    )
    assert source_field({"my library"}) == "my library"


def test_a_failing_source_is_named_without_its_requests_address():
    """Issue 50: the model read each failing request's address (about 250 characters a line) in
    discover's and verify's lines; the name and why are what it acts on."""
    failing = "zbMATH Open still failing after 5 attempts (HTTP 503): http://h/zbmath/v1?q=a+b"
    assert sources.unavailable_line("zbmath", failing) == (
        "zbMATH Open unavailable: zbMATH Open still failing after 5 attempts (HTTP 503)"
    )
    crossref = "Crossref answered HTTP 500: boom (https://api.crossref.org/works?q=1)"
    assert (
        sources.unavailable_line("crossref", crossref)
        == "Crossref unavailable: Crossref answered HTTP 500: boom"
    )
    assert sources.unavailable_line("arxiv", "timed out") == "arXiv unavailable: timed out"
