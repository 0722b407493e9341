"""The dependencies have one home each: plugin/requirements.txt (what the plugin installs),
plugin/requirements-compute.txt (compute.py's snippets) and requirements-dev.txt (tests, tools,
benchmarks). pyproject.toml's lists, bootstrap's import names and CONTRIBUTING.md's "Dependencies,
and why" are held equal to them here."""

from __future__ import annotations

import ast
import re

from conftest import PLUGIN, ROOT
from mathtools.core import bootstrap

# Where a package's import name is not its own name.
IMPORT_NAMES = {"pyyaml": "yaml"}


def pins(path) -> list[str]:
    """The `name==version` lines of a requirements file (no comments, no `-r`)."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("-")]


def names(lines: list[str]) -> list[str]:
    return [line.split("==", 1)[0].lower() for line in lines]


PLUGIN_PINS = pins(PLUGIN / "requirements.txt")
COMPUTE_PINS = pins(PLUGIN / "requirements-compute.txt")
DEV_PINS = pins(ROOT / "requirements-dev.txt")
PYPROJECT = (ROOT / "pyproject.toml").read_text()


def toml_list(key: str) -> list[str]:
    """A list of strings of pyproject.toml's [project] (tomllib is Python 3.11+; these lists
    are plain enough to read as Python literals)."""
    match = re.search(rf"^{key} = (\[.*?\])$", PYPROJECT, re.M | re.S)
    assert match, key
    return list(ast.literal_eval(match.group(1)))


def test_pyproject_lists_exactly_the_pinned_requirements():
    assert toml_list("dependencies") == PLUGIN_PINS
    assert toml_list("compute") == COMPUTE_PINS
    assert toml_list("test") + toml_list("bench") == DEV_PINS
    assert "-r plugin/requirements.txt" in (ROOT / "requirements-dev.txt").read_text()


def test_bootstrap_checks_the_import_names_of_what_it_installs():
    wanted = [IMPORT_NAMES.get(name, name) for name in names(PLUGIN_PINS)]
    assert list(bootstrap.REQUIRED_MODULES) == wanted
    compute = [IMPORT_NAMES.get(name, name) for name in names(COMPUTE_PINS)]
    assert list(bootstrap.EXTRAS["compute"]) == compute


def test_contributing_says_why_for_every_package():
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text.split("\n## Dependencies, and why\n", 1)[1].split("\n## ", 1)[0]
    cells = re.findall(r"^\| ([^|]+) \|", section, re.M)[1:]  # first column, header skipped
    explained = {word.lower() for cell in cells for word in re.findall(r"[A-Za-z][\w.-]*", cell)}
    every = names(PLUGIN_PINS) + names(COMPUTE_PINS) + names(DEV_PINS)
    assert [name for name in every if name not in explained] == []
