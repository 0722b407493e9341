"""One version: .claude-plugin/plugin.json holds it; mathtools reads it; pyproject.toml repeats it.

pyproject.toml cannot read another file without a build backend (the plugin has none), so this
test is what keeps it equal (CONTRIBUTING.md, "Release")."""

from __future__ import annotations

import json
import re

import mathtools
from conftest import PLUGIN, ROOT
from mathtools.core import config, version

PLUGIN = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))


def test_the_plugin_manifest_holds_a_semantic_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", PLUGIN["version"])


def test_the_library_reads_the_manifests_version():
    assert mathtools.__version__ == version.VERSION == PLUGIN["version"]
    assert config.USER_AGENT.endswith(f"/{PLUGIN['version']}")


def test_pyproject_repeats_the_manifests_version():
    # tomllib is Python 3.11+; the [project] table's first lines are plain enough to read
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("\n[", 1)[0]
    assert re.findall(r'^version = "([^"]*)"$', project, re.M) == [PLUGIN["version"]]


def test_the_marketplace_entry_names_no_other_version():
    marketplace = json.loads(
        (ROOT / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8")
    )
    for plugin in marketplace["plugins"]:
        assert plugin.get("version", PLUGIN["version"]) == PLUGIN["version"]


def test_the_changelog_has_an_entry_for_the_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    heading = rf"^## \[{re.escape(PLUGIN['version'])}\] - \d{{4}}-\d{{2}}-\d{{2}}$"
    assert re.search(heading, changelog, re.M)


def test_the_version_is_the_changelogs_newest_release_and_releases_go_newest_first():
    """CHANGELOG.md: `## [Unreleased]` on top, then one `## [X.Y.Z] - date` section per release,
    newest first; the manifest holds the newest (a release moves Unreleased under its number and
    bumps the version in the same commit: CONTRIBUTING.md, "Release")."""
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert headings[0] == "Unreleased"
    released = [tuple(int(part) for part in name.split(".")) for name in headings[1:]]
    assert released == sorted(set(released), reverse=True)
    assert ".".join(map(str, released[0])) == PLUGIN["version"]
