"""Shared fixtures. No test reaches the network: every service URL points at a local port.

The test data that is not in the repository, ../shared (recordings, corpus, bibliographies), is
found by support/shared.py. A test that needs it skips when it is missing: through the
`standin` fixture or StandIn, through a support helper (arxiv_src, arxiv_recordings,
corpus_search), or by its `needs_shared("<part>")` mark. The run then ends with one line naming
what is missing and how many tests it skipped (`pytest_terminal_summary` below).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"  # what ships: the marketplace installs this folder
SCRIPTS = PLUGIN / "scripts"
sys.path.insert(0, str(SCRIPTS))
sys.path.insert(0, str(ROOT))

from mathtools.services.http import UNREACHABLE  # noqa: E402 (needs scripts/ on the path)
from support import shared  # noqa: E402
from support.standin import StandIn  # noqa: E402 (needs scripts/ on the path)

RECORDINGS = shared.RECORDINGS  # ../shared/recordings: never copied into the repository
# A missing part skips the test; a script the test runs stops with the message instead.
os.environ[shared.PYTEST_PID] = str(os.getpid())

DEAD_URL = "http://127.0.0.1:9"  # the discard port: nothing listens, connections are refused


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    """Fresh cache and run store per test, no waiting, and no route to the real services."""
    monkeypatch.setenv("MATH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("MATH_LITERATURE_DB", str(tmp_path / "literature.db"))
    monkeypatch.setenv("MATH_ARXIV_MIN_INTERVAL", "0")
    monkeypatch.setenv("MATH_S2_MIN_INTERVAL", "0")
    monkeypatch.setenv("MATH_ZBMATH_MIN_INTERVAL", "0")
    monkeypatch.setenv("MATH_CROSSREF_MIN_INTERVAL", "0")
    monkeypatch.setenv("MATH_HTTP_BACKOFF", "0.01")
    monkeypatch.setenv("MATH_HTTP_TIMEOUT", "5")
    monkeypatch.setenv("MATH_ARXIV_API_URL", f"{DEAD_URL}/api/query")
    monkeypatch.setenv("MATH_ARXIV_SRC_URL", f"{DEAD_URL}/src")
    monkeypatch.setenv("MATH_S2_API_URL", f"{DEAD_URL}/graph/v1")
    monkeypatch.setenv("MATH_ZBMATH_API_URL", f"{DEAD_URL}/zbmath/v1")
    monkeypatch.setenv("MATH_CROSSREF_API_URL", f"{DEAD_URL}/crossref")
    monkeypatch.delenv("MATH_CONTACT_EMAIL", raising=False)
    monkeypatch.delenv("SEMANTIC_SCHOLAR_API_KEY", raising=False)
    monkeypatch.delenv("MATH_WORKSPACE", raising=False)
    # CLAUDE_PLUGIN_DATA wins over MATH_PLUGIN_DATA: a test run inside Claude Code must not use
    # (or install into) the real plugin data folder.
    monkeypatch.delenv("CLAUDE_PLUGIN_DATA", raising=False)
    monkeypatch.setenv("MATH_PLUGIN_DATA", str(tmp_path / "plugin-data"))
    monkeypatch.chdir(tmp_path)
    UNREACHABLE.clear()  # a service found unreachable in one test is not so in the next


def pytest_collection_modifyitems(config, items):
    """A test marked needs_shared("<part>") skips, with the reason shared.require gives, when
    ../shared/<part> is missing (the mark goes first, before an empty parameter set's own)."""
    for item in items:
        for mark in item.iter_markers(name="needs_shared"):
            part = mark.args[0]
            if not shared.present(part):
                item.add_marker(pytest.mark.skip(reason=shared.missing_message(part)), append=False)
                break


def pytest_terminal_summary(terminalreporter):
    """One line naming the shared data that is missing and how many tests skipped for it."""
    parts: set[str] = set()
    count = 0
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        found = re.search(re.escape(shared.SKIP_PREFIX) + r"([\w./-]+):", reason)
        if found:
            count += 1
            parts.add(found[1].split("/")[0])
    if count:
        terminalreporter.write_line(
            f"shared test data missing: {', '.join(sorted(parts))} not found in {shared.SHARED} "
            f"(../shared beside the clone); {count} test{'s' if count != 1 else ''} skipped "
            "that need it (see CONTRIBUTING.md, 'Test data')",
            yellow=True,
            bold=True,
        )


@pytest.fixture
def standin(monkeypatch):
    """The stand-in services (tests/support/standin.py, replaying the recordings), every service
    URL pointing at them, one retry per request. Skips without ../shared/recordings."""
    with StandIn() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
        yield server


@dataclass
class ScriptRun:
    returncode: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


def run_script(name: str, *args: str, input: str | None = None, env=None, cwd=None, timeout=120):
    """Run scripts/<name> as a user would, with this interpreter; returns a ScriptRun."""
    proc = subprocess.run(
        [sys.executable, str(SCRIPTS / name), *args],
        input=input,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )
    return ScriptRun(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def script():
    return run_script
