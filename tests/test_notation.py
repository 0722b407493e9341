"""NOTATION.md: domain presets, custom symbols, and hand edits that survive both."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mathtools.core import frontmatter
from mathtools.core.domains import DOMAINS
from mathtools.research import notation
from mathtools.research import workspacechanges as ws


@pytest.fixture
def notation_file():
    ws.init()
    return Path(ws.new_problem("Heat kernels", domain="analysis")["path"]) / "NOTATION.md"


def test_there_is_a_preset_for_each_domain(script):
    assert set(notation.PRESETS) == set(DOMAINS)
    listed = script("workspace.py", "notation", "--list-presets").json()
    assert listed["presets"] == [*DOMAINS, "custom"]
    # No LaTeX command became a control character in a preset's text ("\to" is not a tab).
    for entries in notation.PRESETS.values():
        for symbol, meaning in entries:
            assert not re.search(r"[\t\n\r\f\v\a\b]", symbol + meaning), (symbol, meaning)


def test_a_new_problem_starts_with_its_domains_preset(notation_file, script):
    shown = script("workspace.py", "notation").json()
    assert shown["preset"] == "analysis" and shown["custom"] == []
    symbols = [e["symbol"] for e in shown["preset_entries"]]
    assert r"\sigma(T), r(T)" in symbols and r"\mathbb{N}" in symbols
    assert r"- $L^p(\Omega)$ — " in notation_file.read_text()


def test_a_problem_outside_the_domains_starts_custom(script):
    script("workspace.py", "init")
    out = script("workspace.py", "new-problem", "--title", "Misc", "--domain", "other").json()
    meta, body = frontmatter.split_frontmatter((Path(out["path"]) / "NOTATION.md").read_text())
    assert meta["preset"] == "custom"
    assert "only the custom notation" in body


def test_custom_symbols_and_hand_edits_survive_a_preset_change(notation_file, script):
    script("workspace.py", "notation", "--add", r"\mathcal{H}", "a separable Hilbert space")
    script("workspace.py", "notation", "--add", "$K$", "a compact operator")
    text = notation_file.read_text()
    text = text.replace("## Custom\n", "## Custom\n\nSymbols of the 2024 lecture notes.\n")
    notation_file.write_text(text + "\n## Remarks\n\nIndices start at 0.\n")
    out = script("workspace.py", "notation", "--preset", "probability").json()
    assert out["preset"] == "probability"
    assert out["custom"] == [
        {"symbol": r"\mathcal{H}", "meaning": "a separable Hilbert space"},
        {"symbol": "K", "meaning": "a compact operator"},
    ]
    text = notation_file.read_text()
    assert r"$\mathbb{E}, \operatorname{Var}$" in text and r"$L^p(\Omega)$" not in text
    assert "Symbols of the 2024 lecture notes." in text
    assert text.endswith("## Remarks\n\nIndices start at 0.\n")


def test_adding_a_known_symbol_redefines_it(notation_file, script):
    script("workspace.py", "notation", "--add", "K", "a compact operator")
    out = script("workspace.py", "notation", "--add", "K", "the Kato constant").json()
    assert out["custom"] == [{"symbol": "K", "meaning": "the Kato constant"}]
    assert notation.NO_CUSTOM not in notation_file.read_text()


def test_custom_preset_removes_only_the_preset(notation_file, script):
    script("workspace.py", "notation", "--add", "K", "a compact operator")
    out = script("workspace.py", "notation", "--preset", "custom").json()
    assert out["preset_entries"] == [] and len(out["custom"]) == 1
    assert r"$L^p(\Omega)$" not in notation_file.read_text()


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--preset", "geometry"], "usage"),
        (["--add", "K", "  "], "bad_symbol"),
        (["--add", "$$", "nothing"], "bad_symbol"),
        (["--problem=../x"], "bad_slug"),
    ],
)
def test_bad_notation_requests_change_nothing(notation_file, script, args, code):
    before = notation_file.read_bytes()
    run = script("workspace.py", "notation", *args)
    assert run.returncode == 2
    assert run.json()["error"]["code"] == code
    assert notation_file.read_bytes() == before


def test_a_deleted_section_is_recreated_at_the_end():
    body = "# Notation\n\n## Preset\n\nold\n"
    assert notation.replace_section(body, "## Custom", "- $K$ — k") == (
        "# Notation\n\n## Preset\n\nold\n\n## Custom\n\n- $K$ — k\n"
    )
    assert notation.replace_section(body, "## Preset", "new") == "# Notation\n\n## Preset\n\nnew\n"


def test_a_notation_md_saved_in_another_encoding_is_bad_input_and_left_alone(notation_file, script):
    notation_file.write_bytes(
        notation_file.read_bytes() + "- $\\mu$ -- Gödel's\n".encode("latin-1")
    )
    before = notation_file.read_bytes()
    for args in ((), ("--add", "x", "a point")):
        run = script("workspace.py", "notation", *args)
        assert run.returncode == 2, run.stdout
        assert run.json()["error"]["code"] == "unreadable"
    assert notation_file.read_bytes() == before
