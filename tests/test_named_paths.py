"""Every library or script path the docs name exists: a `mathtools/...py` or `scripts/...py` path,
a module named from its wing (`search/keyterms.py`) or dotted (`mathtools.gate.matching.Match`),
and a schema file (`plan.schema.json`), in the prose (README.md, CONTRIBUTING.md, docs/, the
plugin's markdown), in a schema (its descriptions), in plugin/requirements.txt's comment or in a
script's --help (each command's too); the dotted names and wing paths also in the library's and
the scripts' own docstrings and comments. A module that moves or splits fails here until every
text that sends a reader to it follows.

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
LIBRARY = SCRIPTS / "mathtools"
WINGS = tuple(sorted(init.parent.name for init in LIBRARY.glob("*/__init__.py")))
# A module named from its wing, not from mathtools/: `search/keyterms.py`, `(litdoc/quotes.py)`.
WING_PATH = re.compile(rf"(?<![\w./-])(?:{'|'.join(WINGS)})/\w+\.py\b")
# A dotted name: `mathtools.gate.matching.Match.identifies` (its module must exist).
DOTTED = re.compile(r"\bmathtools((?:\.\w+)+)")
SCHEMA_FILE = re.compile(r"\b[\w-]+\.schema\.json\b")


def resolves(named: str) -> bool:
    if Path(named).stem.isupper():
        return True
    if "mathtools/" in named:
        return (SCRIPTS / named[named.rindex("mathtools/") :]).is_file()
    return (SCRIPTS / named[named.rindex("scripts/") + len("scripts/") :]).is_file()


def dotted_resolves(named: str) -> bool:
    """`core.version.VERSION` (after `mathtools.`) names core/version.py: it starts with a wing,
    and some prefix of it is a module of that wing (what follows is a name in it), or it is the
    wing alone; `__version__` is the package's own."""
    parts = named.split(".")
    if parts[0] == "__version__":
        return True
    if parts[0] not in WINGS:
        return False
    modules = [LIBRARY.joinpath(*parts[:n]).with_suffix(".py") for n in range(2, len(parts) + 1)]
    return len(parts) == 1 or any(module.is_file() for module in modules)


def stale_code_names(where: str, text: str) -> list[str]:
    """The wing paths and dotted names `text` holds that name no module."""
    found = [
        f"{where}: {named}" for named in WING_PATH.findall(text) if not (LIBRARY / named).is_file()
    ]
    found += [
        f"{where}: mathtools{named}"
        for named in DOTTED.findall(text)
        if not dotted_resolves(named.removeprefix("."))
    ]
    return found


def stale(where: str, text: str) -> list[str]:
    found = [f"{where}: {named}" for named in NAMED_PATH.findall(text) if not resolves(named)]
    found += stale_code_names(where, text)
    schemas = PLUGIN / "schemas"
    return found + [
        f"{where}: {named}"
        for named in SCHEMA_FILE.findall(text)
        if not (schemas / named).is_file()
    ]


def documents() -> list[Path]:
    return [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted(PLUGIN.rglob("*.md")),
        *sorted((PLUGIN / "schemas").glob("*.json")),
        PLUGIN / "requirements.txt",
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


def test_the_path_reader_finds_wing_paths_dotted_names_and_schema_files():
    text = (
        "search/keyterms.py and (litdoc/quotes.py), research/problemfile.py moved; "
        "mathtools.gate.matching.Match.identifies, mathtools.__version__, mathtools.search, "
        "mathtools.matching.Match and mathtools.paper.Paper.key are gone; plan.schema.json, "
        "nothing.schema.json"
    )
    assert stale("x", text) == [
        "x: research/problemfile.py",
        "x: mathtools.matching.Match",
        "x: mathtools.paper.Paper.key",
        "x: nothing.schema.json",
    ]


def test_every_path_the_docs_and_schemas_name_exists():
    found = []
    for path in documents():
        found += stale(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))
    assert found == []


def test_every_module_the_library_and_the_scripts_name_in_their_own_text_exists():
    """Docstrings and comments: `(mathtools.verification: its sources...)` outlived the move of
    verification.py into the gate."""
    found = []
    for path in sorted(SCRIPTS.rglob("*.py")):
        found += stale_code_names(path.relative_to(ROOT).as_posix(), path.read_text("utf-8"))
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
