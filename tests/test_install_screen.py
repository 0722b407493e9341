"""A first session whose plugin install fails shows the cause ON SCREEN at the first prompt.

The real Claude Code runs interactively in a tmux pane (support.claude_harness.interactive_claude)
against the scripted model; python3 is a bare interpreter (none of requirements.txt importable)
and the package index is the discard port, which refuses connections: the SessionStart hook's
background install fails within seconds. Claude Code shows an async hook's output only to the
model, so the UserPromptSubmit hook (installation.py report --hook) reports the recorded failure as
a systemMessage, which Claude Code displays under the prompt. The test reads the pane.
"""

from __future__ import annotations

import pytest
from support import venvs
from support.claude_harness import interactive_claude

pytestmark = pytest.mark.claude

DEAD_INDEX = "http://127.0.0.1:9/simple"


def test_a_failed_install_is_on_screen_at_the_first_prompt(tmp_path):
    bare = venvs.bare_python(tmp_path / "bare")
    offline = {
        "PATH": f"{bare.parent}:/usr/bin:/bin",
        "PIP_CONFIG_FILE": "/dev/null",
        "PIP_INDEX_URL": DEAD_INDEX,
        "UV_INDEX_URL": DEAD_INDEX,  # should a uv be on PATH after all
        "PIP_TIMEOUT": "2",
        "PIP_FIND_LINKS": "",
    }
    script = ["Hello from the scripted model.", "Still here."]
    with interactive_claude(script, home=tmp_path / "home", env=offline) as screen:
        screen.wait_for("❯", timeout=60)  # the prompt is up; the install runs in the background
        screen.type("hello")
        shown = screen.wait_for("Hello from the scripted model.", timeout=90)
        pane = " ".join(shown.split())  # a long line wraps: compare the words
        assert "math plugin: could not install the plugin's Python dependencies" in pane, shown
        assert f"the package index refused the connection ({DEAD_INDEX})" in pane, shown
        assert "when the network is back, run: python3 " in pane, shown
        for internal in ("Retry(", "object at 0x", "pip install -r"):
            assert internal not in pane, shown
        # Once a session: the next prompt is not told again.
        screen.type("and now?")
        shown = screen.wait_for("Still here.", timeout=60)
        assert " ".join(shown.split()).count("math plugin: could not install") == 1, shown
