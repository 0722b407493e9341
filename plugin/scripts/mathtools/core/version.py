"""The plugin's version, as Claude Code reads it.

Its one home is .claude-plugin/plugin.json; pyproject.toml cannot read it without a build
backend, so tests/test_version.py holds the two equal. The package's `mathtools.__version__` and
the User-Agent of every request (config.USER_AGENT) read it from here.
"""

from __future__ import annotations

import json
from pathlib import Path

PLUGIN_JSON = Path(__file__).resolve().parents[3] / ".claude-plugin" / "plugin.json"
VERSION: str = json.loads(PLUGIN_JSON.read_text("utf-8"))["version"]
