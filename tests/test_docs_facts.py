"""Facts with one home in the library, held equal where the docs repeat them: the sources
(core/sources.py), the configuration (core/config.py and the modules that read a variable), and
no issue or seed numbers in what users read (README.md, docs/, everything under plugin/)."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import pytest
from conftest import PLUGIN, ROOT, run_script
from mathtools.core import config, installer, sources
from mathtools.research import models

README = (ROOT / "README.md").read_text(encoding="utf-8")
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
LIBRARY = PLUGIN / "scripts"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# -- the sources


def test_the_manifest_and_the_readme_name_every_source():
    manifest = json.loads((PLUGIN / ".claude-plugin/plugin.json").read_text())
    for name in sources.NAMES.values():
        assert name in manifest["description"], name
        assert name in _one_line(README.split("## A session", 1)[0]), name


def test_the_manifest_declares_the_hosts_the_plugin_reaches(monkeypatch):
    """network.hosts (shown by `claude plugin validate`): each service's default address, arXiv's
    source server, and the package index the SessionStart hook installs the environment from
    (PyPI's pages point the installer at files.pythonhosted.org for the files)."""
    for name in ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "PIP_INDEX_URL"):  # the user's own index
        monkeypatch.delenv(name, raising=False)
    manifest = json.loads((PLUGIN / ".claude-plugin/plugin.json").read_text())
    defaults = (config.ARXIV_SRC_URL, installer.package_index())
    reached = {urlsplit(url).hostname for url in defaults} | {"files.pythonhosted.org"}
    reached |= {source.host for source in sources.REGISTRY}  # every source's row
    assert sorted(manifest["network"]["hosts"]) == sorted(reached)


def test_the_readmes_name_the_hosts_the_manifest_declares():
    """The user's README names the services' hosts; the plugin's README names them and PyPI."""
    hosts = json.loads((PLUGIN / ".claude-plugin/plugin.json").read_text())["network"]["hosts"]
    plugin_readme = _one_line((PLUGIN / "README.md").read_text())
    install = _one_line(README.split("## Install", 1)[1].split("\n## ", 1)[0])
    for host in hosts:
        if "python" not in host and "pypi" not in host:  # the services'
            assert host in install and host in plugin_readme, host
    assert "from PyPI" in plugin_readme


def test_the_plugin_readme_lists_every_agent():
    """(and /math:help's table of the commands: tests/test_workspace_plugin_files.py)"""
    readme = (PLUGIN / "README.md").read_text()
    for agent in sorted((PLUGIN / "agents").glob("*.md")):
        assert f"| `{agent.stem}` |" in readme, agent.name


def test_the_gate_confirms_from_any_source():
    rules = _one_line((ROOT / "docs/matching-rules.md").read_text())
    confirmed = rules.split("**CONFIRMED**:", 1)[1].split("**CORRECTED**", 1)[0]
    assert all(name in confirmed for name in sources.NAMES.values()), confirmed
    for path in [*PLUGIN.rglob("*.md"), *PLUGIN.rglob("*.json"), ROOT / "README.md"]:
        assert "arXiv or Semantic Scholar" not in _one_line(path.read_text()), path


def test_a_run_is_recorded_for_any_source():
    usage = run_script("lit_update.py", "record-run", "--help").stdout
    assert "{" + ",".join(sources.RUNS) + "}" in usage


# -- the configuration

# Read by the library but not for users to set: the bootstrap's and the hook's own hand-offs.
INTERNAL = {"MATH_BOOTSTRAPPED", "MATH_SECRETS_SCRUBBED", "MATH_PLUGIN_DATA"}


def _table(heading: str) -> dict[str, str]:
    """A table of docs/configuration.md: first column (in backticks) -> default column."""
    start = CONFIGURATION.index(f"| {heading} | meaning | default |")
    block = CONFIGURATION[start : CONFIGURATION.index("\n\n", start)]
    rows = re.findall(r"^\| `([^`]+)` \| .* \| ([^|]+) \|$", block, re.M)
    return {name: default.strip() for name, default in rows}


def _variables_read() -> set[str]:
    found: set[str] = set()
    for path in [*LIBRARY.rglob("*.py"), *(PLUGIN / "hooks").glob("*.py")]:
        found |= set(re.findall(r'"(MATH_[A-Z0-9_]+|SEMANTIC_SCHOLAR_API_KEY)"', path.read_text()))
    return found - INTERNAL


def test_the_configuration_lists_every_variable_the_library_reads():
    assert set(_table("variable")) == _variables_read()
    assert set(config.NAMES) <= set(_table("variable"))


def test_the_configuration_lists_every_key_of_the_workspace_configuration():
    source = (LIBRARY / "mathtools/core/config.py").read_text()
    read = set(re.findall(r'workspace_config\([^)]*\)\.get\("([a-z_]+)"\)', source))
    read |= {config.ALLOW_UNSANDBOXED_COMPUTE, config.TEX_ONLY, models.CONFIG_KEY}
    assert set(_table("`.math/config.json` key")) == read


@pytest.mark.parametrize(
    ("name", "default"),
    [
        ("MATH_ARXIV_SRC_URL", config.ARXIV_SRC_URL),
        *((source.url_variable, source.api_url) for source in sources.REGISTRY),
    ],
)
def test_the_configuration_gives_each_url_its_default(name, default):
    assert _table("variable")[name] == f"`{default}`"


def test_the_configuration_gives_each_number_its_default():
    source = (LIBRARY / "mathtools/core/config.py").read_text()
    numbers = dict(re.findall(r'_number\("(MATH_[A-Z0-9_]+)", ([\d.]+)', source))
    numbers.update((s.interval_variable, str(s.min_interval)) for s in sources.REGISTRY)
    table = _table("variable")
    for name, default in numbers.items():
        if name == "MATH_CROSSREF_MIN_INTERVAL":  # by pool and kind unless set: the table says
            continue
        assert table[name] == f"`{float(default):g}`", name


# -- no issue or seed numbers in what users read

TRACKER = re.compile(r"\b(?:issues?|seeds?)[ -]#?\d+|(?:^|[\s(])#\d+\b", re.I | re.M)


def _user_documents():
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").rglob("*.md"))
    yield from sorted(p for p in PLUGIN.rglob("*") if p.is_file() and p.suffix != ".pyc")


def test_user_documents_name_no_issue_or_seed_numbers():
    found = []
    for path in _user_documents():
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{path.relative_to(ROOT)}: {m.group(0)!r}" for m in TRACKER.finditer(text)]
    assert found == []


# -- links


@pytest.mark.parametrize(
    "name",
    [
        "README.md",
        "CONTRIBUTING.md",
        "bench/README.md",
        "plugin/README.md",
        *sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "docs").glob("*.md")),
    ],
)
def test_every_relative_link_resolves(name):
    path = ROOT / name
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8"))
    missing = [t for t in targets if "://" not in t and not (path.parent / t).exists()]
    assert missing == []
