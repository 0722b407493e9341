"""The library behind the math plugin's scripts: one module per concept.

The scripts in scripts/ are thin command-line front doors over these modules; data crosses every
boundary as JSON described by a schema in schemas/.
"""

import json
from pathlib import Path

# The plugin's version has one home, .claude-plugin/plugin.json (what Claude Code reads);
# pyproject.toml cannot read it without a build backend, so tests/test_version.py holds it equal.
__version__: str = json.loads(
    (Path(__file__).resolve().parents[2] / ".claude-plugin" / "plugin.json").read_text("utf-8")
)["version"]
