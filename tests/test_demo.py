"""The demo (CONTRIBUTING.md): tools/run-demo's driver on the bundled sample problem, offline."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import ROOT
from support.cassettes import serving_s2
from support.scripted_server import Reply

SLUG = "tolerant-testing"


def test_the_demo_runs_offline_and_reports_its_figures(tmp_path):
    """The demo (tools/run-demo's driver; CONTRIBUTING.md), on the bundled sample problem."""
    driver = ROOT / "tools" / "demo_pipeline.py"
    run = subprocess.run(
        [sys.executable, str(driver), "--workspace", str(tmp_path / "ws")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "STAND-IN" in run.stdout
    assert re.search(r"new UREF; valid\n", run.stdout)
    assert re.search(r"\n\d+ tool calls in \d+ turns from the command's start", run.stdout)
    for name in ("LITERATURE.md", "JOURNAL.md", "literature.db"):
        assert name in run.stdout
    assert re.search(r"script output / 4\s+\d+ tokens\s+[\d.]+ per paper", run.stdout)
    # Remembered classics only the mathematical and DOI sources hold are confirmed through them.
    assert "zbMATH Open    confirmed memory-4\n" in run.stdout
    assert "Crossref       confirmed memory-3\n" in run.stdout
    folder = tmp_path / "ws" / ".math" / "problems" / SLUG
    refs = re.findall(r"^### REF-\d+", (folder / "LITERATURE.md").read_text(), re.M)
    # The journal entry's counts are those LITERATURE.md shows (a PROBLEM.md reference that is
    # the same paper as a search hit is confirmed twice but is one REF).
    journal = (folder / "JOURNAL.md").read_text()
    assert f"({len(refs)} new REFs)" in journal


def test_the_token_count_includes_what_a_script_prints_on_stderr(tmp_path, monkeypatch):
    """A Bash call's result carries stderr too, so the model reads it: the demo counts it.
    Synthesized answer: S2 says the paper is not found; the missing key is noted on stderr."""
    sys.path.insert(0, str(ROOT / "tools"))
    from demo_pipeline import Workspace

    with serving_s2([Reply(404, '{"error": "Paper with id x not found"}')], monkeypatch):
        workspace = Workspace(tmp_path, dict(os.environ))
        stdout = workspace.run_script("s2_lookup.py", ["get", "CorpusId:1"])
    stderr_bytes = workspace.output_bytes["s2_lookup.py get"] - len(stdout.encode("utf-8"))
    assert stderr_bytes >= len("no Semantic Scholar API key")
