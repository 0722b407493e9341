"""Every library or script path the docs name exists: a `mathtools/...py` or `scripts/...py` path
in the prose (README.md, CONTRIBUTING.md, docs/, the plugin's markdown), in a schema (its
descriptions) or in a script's --help (each command's too). A module that moves or splits fails
here until every text that sends a reader to it follows.

A path is read from its last `mathtools/` (under plugin/scripts/) or else its last `scripts/`
(plugin/scripts/), so `plugin/scripts/mathtools/core/slugs.py`, `scripts/mathtools/core/slugs.py`
and `mathtools/core/slugs.py` are the same file, and so is the placeholder
`path/to/math/plugin/scripts/check_refs.py`. A name in capitals (`scripts/NAME.py`) stands for
any script.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from conftest import PLUGIN, ROOT, SCRIPTS

from tools import make_reference as reference

NAMED_PATH = re.compile(r"[\w./-]*\b(?:mathtools|scripts)/[\w./-]*?\.py\b")


def resolves(named: str) -> bool:
    if Path(named).stem.isupper():
        return True
    if "mathtools/" in named:
        return (SCRIPTS / named[named.rindex("mathtools/") :]).is_file()
    return (SCRIPTS / named[named.rindex("scripts/") + len("scripts/") :]).is_file()


def stale(where: str, text: str) -> list[str]:
    return [f"{where}: {named}" for named in NAMED_PATH.findall(text) if not resolves(named)]


def documents() -> list[Path]:
    return [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted(PLUGIN.rglob("*.md")),
        *sorted((PLUGIN / "schemas").glob("*.json")),
    ]


def test_the_path_reader_finds_each_spelling_of_a_path():
    text = (
        "see `plugin/scripts/mathtools/core/slugs.py`, (mathtools/core/slugs.py) and "
        "${CLAUDE_PLUGIN_ROOT}/scripts/workspace.py; mathtools/slugs.py and scripts/nowhere.py "
        "are gone; scripts/*.py is no path, scripts/NAME.py any script"
    )
    assert NAMED_PATH.findall(text) == [
        "plugin/scripts/mathtools/core/slugs.py",
        "mathtools/core/slugs.py",
        "/scripts/workspace.py",
        "mathtools/slugs.py",
        "scripts/nowhere.py",
        "scripts/NAME.py",
    ]
    assert stale("x", text) == ["x: mathtools/slugs.py", "x: scripts/nowhere.py"]


def test_every_path_the_docs_and_schemas_name_exists():
    found = []
    for path in documents():
        found += stale(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))
    assert found == []


def _helps(script: str) -> list[tuple[str, str]]:
    top = reference.help_text(script)
    helps = [(f"{script} --help", top)]
    for command in reference.commands(top):
        helps.append((f"{script} {command} --help", reference.help_text(script, command)))
    return helps


def test_every_path_a_scripts_help_names_exists():
    with ThreadPoolExecutor(max_workers=4) as pool:
        helps = [pair for pairs in pool.map(_helps, reference.all_scripts()) for pair in pairs]
    assert len(helps) > len(reference.all_scripts())  # the commands' helps were read too
    found = [line for where, text in helps for line in stale(where, text)]
    assert found == []
