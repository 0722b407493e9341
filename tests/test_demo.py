"""The README's main job: tools/run-demo's driver on the bundled sample problem, offline."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT

SLUG = "tolerant-testing"


def test_the_demo_runs_offline_and_reports_its_figures(tmp_path):
    """The README's main job (tools/run-demo's driver), on the bundled sample problem."""
    driver = ROOT / "tools" / "demo_pipeline.py"
    run = subprocess.run(
        [sys.executable, str(driver), "--workspace", str(tmp_path / "ws")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "STAND-IN" in run.stdout
    assert "lit_update.py validate: valid" in run.stdout
    for name in ("LITERATURE.md", "JOURNAL.md", "literature.db"):
        assert name in run.stdout
    assert re.search(r"script stdout / 4\s+\d+ tokens\s+[\d.]+ per candidate", run.stdout)
    assert (tmp_path / "ws" / ".math" / "problems" / SLUG / "LITERATURE.md").exists()
