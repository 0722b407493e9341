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
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"  # what ships: the marketplace installs this folder
SCRIPTS = PLUGIN / "scripts"
sys.path.insert(0, str(SCRIPTS))
sys.path.insert(0, str(ROOT))
# The library's bytecode, as this test process imports it, goes to .cache/pycache, never into
# plugin/ (which `claude plugin install` copies whole); set here, not in the environment, so the
# pip runs of the install tests keep writing their own bytecode where pip does.
sys.pycache_prefix = str(ROOT / ".cache" / "pycache")

from mathtools.core.sources import REGISTRY  # noqa: E402 (needs scripts/ on the path)
from mathtools.research import pdftext, texbuild  # noqa: E402 (needs scripts/ on the path)
from mathtools.services.http import UNREACHABLE  # noqa: E402 (needs scripts/ on the path)
from support import shared  # noqa: E402
from support.standin import StandIn  # noqa: E402 (needs scripts/ on the path)

RECORDINGS = shared.RECORDINGS  # ../shared/recordings: never copied into the repository
# A missing part skips the test; a script the test runs stops with the message instead.
os.environ[shared.PYTEST_PID] = str(os.getpid())

# Property tests (hypothesis): the "ci" profile, which CI and a plain pytest run use, tries each
# test's full count of examples; "dev", which tools/run-tests sets for a local run
# (HYPOTHESIS_PROFILE=dev), a quarter of it. A failure either finds is kept in .hypothesis/ and
# tried first by every later run. A test with its own count writes max_examples=examples(count).
HYPOTHESIS_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.register_profile("ci", max_examples=100)  # hypothesis's own default
settings.register_profile("dev", max_examples=25)
settings.load_profile(HYPOTHESIS_PROFILE)


def examples(ci_count: int) -> int:
    """How many examples a property test tries: ci_count in CI, a quarter of it in "dev"."""
    return ci_count if HYPOTHESIS_PROFILE == "ci" else max(ci_count // 4, 10)


DEAD_URL = "http://127.0.0.1:9"  # the discard port: nothing listens, connections are refused


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    """Fresh cache and run store per test, no waiting, and no route to the real services."""
    isolate(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    UNREACHABLE.clear()  # a service found unreachable in one test is not so in the next


def isolate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """isolated_env's environment, with its cache, run store and plugin data in tmp_path; for a
    module-scoped fixture too (pytest.MonkeyPatch.context()), which runs before isolated_env."""
    monkeypatch.setenv("MATH_CACHE_DIR", str(tmp_path / "cache"))
    # the rate limits' state, the user's: beside tmp_path, not in it (tests list tmp_path)
    runtime = tmp_path.parent / f"{tmp_path.name}-run"
    runtime.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
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
    for source in REGISTRY:  # a source added since: unreachable too, and no waiting
        monkeypatch.setenv(source.interval_variable, "0")
        if source.code not in ("arxiv", "semantic_scholar", "zbmath", "crossref"):
            monkeypatch.setenv(source.url_variable, f"{DEAD_URL}/{source.code}")
    monkeypatch.delenv("MATH_CONTACT_EMAIL", raising=False)
    monkeypatch.delenv("SEMANTIC_SCHOLAR_API_KEY", raising=False)
    monkeypatch.delenv("MATH_WORKSPACE", raising=False)
    # CLAUDE_PLUGIN_DATA wins over MATH_PLUGIN_DATA: a test run inside Claude Code must not use
    # (or install into) the real plugin data folder.
    monkeypatch.delenv("CLAUDE_PLUGIN_DATA", raising=False)
    monkeypatch.setenv("MATH_PLUGIN_DATA", str(tmp_path / "plugin-data"))


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


NO_TEX_REASON = (
    "needs TeX (pdflatex on PATH), not installed here: Debian/Ubuntu: apt-get install "
    "--no-install-recommends texlive-latex-base texlive-latex-recommended latexmk (.ci/run "
    "installs it; CONTRIBUTING.md, 'Run the tests')"
)
NO_PDFTOTEXT_REASON = (
    "needs pdftotext (on PATH), not installed here: the move to DONE reads the compiled PDF's "
    f"text with it; {pdftext.INSTALL_PDFTOTEXT} (.ci/run installs it)"
)


def path_without(tools: tuple[str, ...], folder: Path) -> str:
    """PATH as it is, but without `tools`: `folder` filled with links to every other command on
    PATH, so that the tools a test needs (git, unshare, ...) stay while those are gone."""
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory or not Path(directory).is_dir():
            continue
        for entry in Path(directory).iterdir():
            link = folder / entry.name
            if entry.name in tools or os.path.lexists(link):
                continue  # hidden, or an earlier PATH folder's command wins, as on PATH
            if entry.is_file() and os.access(entry, os.X_OK):
                link.symlink_to(entry)
    return str(folder)


@pytest.fixture(scope="session")
def path_without_tex(tmp_path_factory) -> str:
    """PATH without texbuild.TEX_TOOLS (path_without)."""
    if not any(shutil.which(tool) for tool in texbuild.TEX_TOOLS):
        return os.environ.get("PATH", "")
    return path_without(texbuild.TEX_TOOLS, tmp_path_factory.mktemp("path-without-tex"))


@pytest.fixture(scope="session")
def path_without_pdf_tools(tmp_path_factory) -> str:
    """PATH without texbuild.TEX_TOOLS and pdftotext (path_without): a test puts a stand-in
    TeX in front of it to see the move to DONE where TeX is and pdftotext is not."""
    tools = (*texbuild.TEX_TOOLS, "pdftotext")
    return path_without(tools, tmp_path_factory.mktemp("path-without-pdf-tools"))


@pytest.fixture
def no_tex(monkeypatch, path_without_tex):
    """This test (and every script it runs) sees no TeX on PATH, whatever the machine has."""
    monkeypatch.setenv("PATH", path_without_tex)
    assert not texbuild.tex_installed()


@pytest.fixture
def tex_only(tmp_path, no_tex):
    """No TeX here, and the user chose `"tex_only": true` in the workspace's .math/config.json
    (the workspace is tmp_path, the tests' working folder)."""
    path = tmp_path / ".math" / "config.json"
    path.parent.mkdir(exist_ok=True)
    data = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**data, "tex_only": True}))


@pytest.fixture
def needs_pdftotext():
    """This test reads a PDF's text as the move to DONE does: it skips, saying so, where
    pdftotext is not installed."""
    if shutil.which("pdftotext") is None:
        pytest.skip(NO_PDFTOTEXT_REASON)


@pytest.fixture
def needs_tex(request):
    """This test compiles for real, and the move to DONE reads the compiled PDF's text: it skips,
    naming what is missing, where TeX or pdftotext is not installed."""
    if not texbuild.tex_installed():
        pytest.skip(NO_TEX_REASON)
    request.getfixturevalue("needs_pdftotext")


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
