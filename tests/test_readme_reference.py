"""The README's script reference is each script's --help, as tools/make_readme_reference.py
writes it: a changed flag or docstring fails here until the tool is run again."""

from __future__ import annotations

from conftest import PLUGIN, ROOT

from tools import make_readme_reference as reference

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_reference_is_what_the_scripts_help_says():
    wanted = reference.readme_with(reference.reference(), README)
    assert wanted == README, "README.md is out of date: run python3 tools/make_readme_reference.py"


def test_every_script_has_its_generated_section_with_each_command():
    section = README.split(reference.BEGIN, 1)[1].split(reference.END, 1)[0]
    for script in sorted(path.name for path in (PLUGIN / "scripts").glob("*.py")):
        assert f"### `{script}`\n" in section
    for command in ("discover", "judge", "refine", "chase", "verify", "merge", "finish"):
        assert f"\nliterature.py {command} " in section


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
