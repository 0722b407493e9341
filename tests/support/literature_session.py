"""/math:literature's phases as the tests drive them: a workspace with the sample problem
(tools/demo_pipeline.py's), its services the stand-in answering from the real recordings, and
literature.py run in it (test_literature_phases.py: discover to verify;
test_literature_recording.py: merge and finish)."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, run_script

from support.standin import StandIn

sys.path.insert(0, str(ROOT / "tools"))
from demo_pipeline import SAMPLE, Workspace, create_problem

SLUG = "tolerant-testing"
LINE = re.compile(r"^((?:arXiv|DOI|S2):\S+) \| (\S+) \| ([^|]*) \| (.*) \[([^\]]+)\] — (.*)$")


class Session:
    """A workspace with the sample problem, and literature.py run in it."""

    def __init__(self, folder: Path, standin: StandIn):
        self.folder = folder
        self.standin = standin
        self.search_folder = ""

    def run(self, *args: str):
        done = run_script("literature.py", *args, cwd=self.folder)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def discover(self, *words: str) -> str:
        done = self.run("discover", *words)
        assert done.returncode == 0, done.stdout + done.stderr
        self.search_folder = re.search(r"^search folder: (.+)$", done.stdout, re.M).group(1)
        self.stderr = done.stderr
        return done.stdout

    @property
    def runs(self) -> Path:
        return self.folder / self.search_folder

    def write(self, name: str, data) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        (self.runs / name).write_text(text, encoding="utf-8")

    def assess_all(self) -> dict:
        """relevance.json giving every verified result one [S] relevance; the verification."""
        verified = json.loads((self.runs / "verified.json").read_text())
        tier = {"relevance": "why", "key_results": "Theorem 1", "confidence": "[S]"}
        self.write("relevance.json", {r["key"]: tier for r in verified["results"]})
        return verified

    def record_survey(self):
        """merge, a Synthesis of one [S] claim and finish PARTIAL: the search recorded."""
        assert self.run("merge", self.search_folder).returncode == 0
        self.write("synthesis.md", "### Applicable Theorems\n- [S] REF-001 gives the bound.\n")
        return self.run(
            "finish", self.search_folder, "--outcome", "PARTIAL", "--title", "Survey",
            "--reasoning", "what", "--insight", "one observation",
        )  # fmt: skip

    def judge_all(self, listing: str, label=lambda n: "strong" if n == 0 else "partial", **extra):
        judged = [
            {"key": key, "label": label(n), "confidence": 0.7, "rationale": "test"}
            for n, key in enumerate(listed(listing))
        ]
        self.write(f"judgements-i{extra.pop('iteration', 1)}.json", {"judgements": judged, **extra})
        done = self.run("judge", self.search_folder)
        assert done.returncode == 0, done.stdout
        decision, *self.verified = done.stdout.splitlines()  # at stop, verify's lines follow
        return json.loads(decision)


def listed(listing: str) -> list[str]:
    return [m.group(1) for line in listing.splitlines() if (m := LINE.match(line))]


def open_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Session]:
    """The `session` fixture's body: the stand-in's addresses in the environment, a workspace
    with the sample problem."""
    with StandIn() as standin:
        for name, value in standin.env().items():
            monkeypatch.setenv(name, value)
        folder = tmp_path / "ws"
        folder.mkdir()
        create_problem(Workspace(folder, dict(os.environ)), SAMPLE)
        yield Session(folder, standin)
