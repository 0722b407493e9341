"""The generated docs are what tools/make_reference.py writes from their one home: the script
reference (docs/reference.md) from each script's --help and the runbooks, the exit codes from
errors.py, the literature protocol's domain map (§ 5) from domains.py. A changed flag,
docstring, exit code or domain fails here until the tool is run again."""

from __future__ import annotations

import re

from conftest import PLUGIN, ROOT
from mathtools.core import bootstrap, domains, errors

from tools import make_reference as reference


def test_the_generated_docs_are_what_their_homes_say():
    for path, (current, wanted) in reference.wanted().items():
        name = path.relative_to(ROOT).as_posix()
        assert wanted == current, f"{name} is out of date: run python3 tools/make_reference.py"


def _section(name: str, source: str) -> str:
    text = reference.REFERENCE.read_text(encoding="utf-8")
    return text.split(reference.begin(name, source), 1)[1].split(reference.end(name), 1)[0]


def test_every_script_has_its_generated_section_with_each_command():
    section = _section("script reference", "each script's --help")
    for script in sorted(path.name for path in (PLUGIN / "scripts").glob("*.py")):
        assert f"### `{script}`\n" in section
    for command in ("discover", "judge", "refine", "chase", "verify", "merge", "finish"):
        assert f"\nliterature.py {command} " in section


def test_the_scripts_the_model_calls_stand_apart_from_the_tools_for_people():
    section = _section("script reference", "each script's --help")
    model, people = section.split("## Tools for people\n", 1)
    called = reference.called_by_the_model()
    for script in (path.name for path in (PLUGIN / "scripts").glob("*.py")):
        assert (f"### `{script}`\n" in model) == (script in called), script
        assert (f"### `{script}`\n" in people) == (script not in called), script
    assert "literature.py" in called and "check_refs.py" in called
    assert "arxiv_query.py" not in called  # a look at one source, for people


def test_bootstrap_keeps_errors_exit_code_for_the_environment():
    """bootstrap.py runs before the venv exists, stdlib-only and on its own: it keeps a copy."""
    assert bootstrap.EXIT_ENVIRONMENT == errors.EXIT_ENVIRONMENT
    assert set(errors.EXIT_MEANINGS) == set(range(6))


def test_the_runbooks_name_exactly_the_domains_of_the_map():
    """The intake agent and /math:notation list the domains; domains.py is their home."""
    intake = " ".join((PLUGIN / "agents/math-intake.md").read_text(encoding="utf-8").split())
    listed = intake.split("exactly one of ", 1)[1].split(", or `other`", 1)[0]
    assert re.findall(r"`([a-z-]+)`", listed) == list(domains.DOMAINS)
    notation = " ".join((PLUGIN / "commands/notation.md").read_text(encoding="utf-8").split())
    listed = notation.split("one of the domains (", 1)[1].split(")", 1)[0]
    assert listed.split(", ") == list(domains.DOMAINS)
    assert set(domains.MSC) == set(domains.DOMAINS)


def test_the_help_parsers_read_usage_paragraph_and_commands():
    """On a --help text of argparse's shape (synthesized here: the layout argparse prints)."""
    text = (
        "usage: demo.py [-h] COMMAND ...\n\nFirst line of the description\ngoes on here.\n\n"
        "Second paragraph.\n\npositional arguments:\n  COMMAND\n    one       the first\n"
        "    two-words\n              the second\n\noptions:\n  -h, --help  show this help\n"
    )
    assert reference.first_paragraph(text) == "First line of the description goes on here."
    assert reference.commands(text) == ["one", "two-words"]
    wrapped = "usage: demo.py one [-h] [--long LONG]\n" + " " * 19 + "[--more M]\n\nx\n"
    assert reference.usage(wrapped) == "demo.py one [-h] [--long LONG]\n" + " " * 12 + "[--more M]"


# The words a script's "Exit codes:" line starts each code's meaning with, as EXIT_MEANINGS does.
SHORT = {2: "bad input", 3: "", 4: "environment", 5: "internal error"}


def test_every_script_names_its_exit_codes_as_errors_py_does():
    """Each script's docstring says which exit codes it returns, and what they mean for it; the
    codes and their general meanings are errors.EXIT_MEANINGS's."""
    for path in sorted((PLUGIN / "scripts").glob("*.py")):
        doc = " ".join(path.read_text(encoding="utf-8").split('"""', 2)[1].split())
        line = doc[doc.index("Exit codes: ") :]
        codes = [int(code) for code in re.findall(r"(?:: |, )(\d) ", line)]
        assert codes == sorted(set(codes)) and set(codes) <= set(errors.EXIT_MEANINGS), path.name
        for code, words in SHORT.items():
            if code in codes and words:
                assert f"{code} {words}" in line, (path.name, code)
                assert errors.EXIT_MEANINGS[code].lower().startswith(words), code
