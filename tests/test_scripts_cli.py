"""Every script is a well-behaved command: --help works, bad usage is one JSON line, exit code 2."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess

import pytest
from conftest import ROOT, SCRIPTS

ALL_SCRIPTS = sorted(p.name for p in SCRIPTS.glob("*.py"))


# The scripts docs/reference.md documents, one "### `NAME.py` ..." section each.
README_SCRIPTS = [
    "arxiv_query.py",
    "bib_export.py",
    "check_refs.py",
    "compute.py",
    "crossref_lookup.py",
    "journal.py",
    "latex.py",
    "lit_update.py",
    "literature.py",
    "plan_queries.py",
    "refine.py",
    "review.py",
    "s2_lookup.py",
    "state.py",
    "verify_batch.py",
    "workspace.py",
    "zbmath_lookup.py",
]


def test_the_scripts_are_exactly_those_the_reference_documents():
    assert ALL_SCRIPTS == README_SCRIPTS
    headings = [
        line for line in (ROOT / "docs/reference.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("### `")
    ]  # fmt: skip
    for name in README_SCRIPTS:
        assert any(f"`{name}`" in heading for heading in headings), f"no {name} section"


@pytest.mark.parametrize("name", ALL_SCRIPTS)
def test_help_exits_zero(script, name):
    run = script(name, "--help")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "usage:" in run.stdout
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("name", ALL_SCRIPTS)
def test_unknown_option_is_one_json_line(script, name):
    run = script(name, "--no-such-option-anywhere")
    assert run.returncode == 2
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1, run.stdout
    error = json.loads(lines[0])["error"]
    assert error["code"] == "usage"
    assert "--no-such-option-anywhere" in error["message"]
    assert "Traceback" not in run.stderr


EXECUTABLES = [f"plugin/scripts/{name}" for name in ALL_SCRIPTS] + [
    ".ci/run",
    "tools/run-tests",
    "tools/run-demo",
]


@pytest.mark.parametrize("path", EXECUTABLES)
def test_commands_are_executable_with_a_shebang(path):
    """The docs run `plugin/scripts/arxiv_query.py ...` directly: the x bit must be in git, too."""
    file = ROOT / path
    assert os.access(file, os.X_OK), f"{path} is not executable"
    interpreter = "python3" if path.endswith(".py") else "bash"
    assert file.read_text().startswith(f"#!/usr/bin/env {interpreter}\n")
    if shutil.which("git") and (ROOT / ".git").exists():
        staged = subprocess.run(
            ["git", "ls-files", "-s", path], cwd=ROOT, capture_output=True, text=True
        ).stdout
        assert staged.startswith("100755"), f"{path} is not executable in git: {staged!r}"


@pytest.mark.parametrize("name", ALL_SCRIPTS)
def test_every_docstring_lists_the_exit_codes_bootstrap_and_cli_can_return(name):
    doc = ast.get_docstring(ast.parse((SCRIPTS / name).read_text(encoding="utf-8")))
    paragraph = " ".join(doc[doc.index("Exit codes: 0 ") :].split())
    for code in ("2 bad input", "4 environment", "5 internal error"):
        assert code in paragraph, f"{name}: {paragraph}"


def test_search_help_gives_the_defaults_and_arxivs_cap(script):
    text = " ".join(script("arxiv_query.py", "search", "--help").stdout.split())
    assert "papers to return (default 10)" in text and "30,000" in text
    assert "(default 0)" in text
    assert "(default relevance)" in text and "(default descending)" in text


def test_lit_updates_merge_and_judge_are_deprecated_for_literature_pys(script):
    """One release of grace, as the CHANGELOG says; the runbooks call literature.py's alone."""
    text = " ".join(script("lit_update.py", "--help").stdout.split())
    for command in ("merge", "judge"):
        assert f"{command} deprecated: literature.py {command}" in text
        assert script("literature.py", command, "--help").returncode == 0
    sections = (ROOT / "CHANGELOG.md").read_text().split("\n## [")[1:]
    # the newest section that deprecates anything (Unreleased may hold other changes only)
    changelog = next(s for s in sections if "\n### Deprecated" in s)
    assert "`lit_update.py merge` and `lit_update.py judge`" in changelog.split("### Deprecated")[1]
