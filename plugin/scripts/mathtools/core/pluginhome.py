"""Where Claude Code keeps this plugin: its plugins folder, the data folder it gives an installed
copy (${CLAUDE_PLUGIN_DATA}, read from its own install records), and the safe reader of such a
record and of those this plugin writes (recorded_text).

Standard library only, and Python 3.8 syntax, as bootstrap.py (whose module doc says why), which
finds the data folder through it.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

MAX_RECORD_BYTES = 1 << 20


def recorded_text(path: Path) -> str | None:
    """The text of a record file at `path` (one this plugin wrote, or Claude Code's): None when
    there is none, or what is there is not a regular file of at most MAX_RECORD_BYTES (a FIFO, a
    folder, a huge file: not a record). Opened without blocking and checked on the open file: a
    FIFO never holds the caller, and a huge file is never read whole."""
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(handle, "rb") as opened:
        info = os.fstat(opened.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_RECORD_BYTES:
            return None
        data = opened.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        return None  # it grew since: still not one we wrote
    return data.decode("utf-8", errors="replace")


def claude_code_plugins() -> Path:
    """Claude Code's plugins folder (its install record, its plugins' data folders), found as
    Claude Code finds it: $CLAUDE_CODE_PLUGIN_CACHE_DIR, else plugins/ in its configuration
    folder ($CLAUDE_CONFIG_DIR, else ~/.claude)."""
    if os.environ.get("CLAUDE_CODE_PLUGIN_CACHE_DIR"):
        return Path(os.environ["CLAUDE_CODE_PLUGIN_CACHE_DIR"])
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude") / "plugins"


def _json_file(path: Path) -> dict[str, object]:
    try:
        value = json.loads(recorded_text(path) or "")
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _holds(folder: object, root: Path) -> bool:
    if not isinstance(folder, str) or not folder:
        return False
    place = Path(folder).resolve()
    return place == root or place in root.parents


def installed_data_dir(root: Path) -> Path | None:
    """The data folder Claude Code gives the plugin at `root` (bootstrap.PLUGIN_ROOT) when it
    installed it from a marketplace, its ${CLAUDE_PLUGIN_DATA}: `<plugins>/data/<id>`.

    Claude Code (2.1.197 and 2.1.332 alike) names it after the plugin's id `plugin@marketplace`,
    every character but ASCII letters, digits, `-` and `_` made `-`: `math-math-research-tools`
    (tests/test_install_e2e.py holds this to the real folder). The install is the entry of its
    record (installed_plugins.json) for this plugin's name whose installPath is `root`, or whose
    marketplace's folder (known_marketplaces.json: a clone added with `marketplace add`) holds
    `root`. None when no install matches, or installs from two marketplaces do.
    """
    root = root.resolve()
    plugins = claude_code_plugins()
    name = _json_file(root / ".claude-plugin" / "plugin.json").get("name")
    installed = _json_file(plugins / "installed_plugins.json").get("plugins")
    marketplaces = _json_file(plugins / "known_marketplaces.json")
    if not name or not isinstance(installed, dict):
        return None
    found = set()
    for plugin_id, entries in installed.items():
        plugin, _, marketplace = str(plugin_id).partition("@")
        if plugin != name:
            continue
        places = (
            [e.get("installPath") for e in entries if isinstance(e, dict)]
            if isinstance(entries, list)
            else []
        )
        market = marketplaces.get(marketplace)
        if isinstance(market, dict):
            places.append(market.get("installLocation"))
        if any(_holds(place, root) for place in places):
            found.add(str(plugin_id))
    if len(found) != 1:
        return None
    (plugin_id,) = found
    folder = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "-" for c in plugin_id)
    return plugins / "data" / folder
