"""Defects found by a fault and fuzz campaign (issue 15), one test (or a few) per defect.

Every failing service answer here is synthesized (ScriptedServer / the stand-in's fault modes):
no recording holds them.
"""

from __future__ import annotations

import json

import pytest
from conftest import run_script
from support.standin import StandIn

ARXIV_ID = "1605.08386"


@pytest.fixture
def standin(monkeypatch):
    with StandIn() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
        yield server


# -- 1. --out replaces only a file this plugin wrote -------------------------------------------


@pytest.mark.parametrize("name", [".math/config.json", "package.json", "list.json"])
def test_out_refuses_a_json_file_the_plugin_did_not_write(standin, tmp_path, name):
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    original = '{"semantic_scholar_api_key": "k", "name": "x"}\n'
    if name == "list.json":
        original = '[1, 2, 3]\n'
    target.write_text(original, encoding="utf-8")
    run = run_script("arxiv_query.py", "ids", ARXIV_ID, "--out", str(target))
    assert run.returncode == 2, run.stdout
    assert json.loads(run.stdout)["error"]["code"] == "cannot_write"
    assert target.read_text(encoding="utf-8") == original


def test_out_replaces_its_own_earlier_output_which_carries_the_marker(standin, tmp_path):
    target = tmp_path / "found.json"
    for _ in range(2):  # the second call replaces the first call's file
        run = run_script("arxiv_query.py", "ids", ARXIV_ID, "--out", str(target))
        assert run.returncode == 0, run.stdout
    document = json.loads(target.read_text(encoding="utf-8"))
    assert document["written_by"] == "math"
    assert [paper["arxiv_id"] for paper in document["papers"]] == [ARXIV_ID]


def test_out_never_replaces_the_workspace_config_even_with_the_marker(standin, tmp_path):
    config = tmp_path / ".math" / "config.json"
    config.parent.mkdir()
    config.write_text('{"written_by": "math"}\n', encoding="utf-8")
    run = run_script("arxiv_query.py", "ids", ARXIV_ID, "--out", str(config))
    assert run.returncode == 2
    assert config.read_text(encoding="utf-8") == '{"written_by": "math"}\n'
