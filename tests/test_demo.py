"""The demo (CONTRIBUTING.md): tools/run-demo's driver on the bundled sample problem, offline."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from support import shared
from support.cassettes import serving_s2
from support.scripted_server import Reply

SLUG = "tolerant-testing"
ARXIV_SRC = shared.path("recordings", "arxiv-src")  # ../shared (support/shared.py)


def demo(tmp_path, *args: str) -> str:
    """tools/run-demo's driver in a fresh workspace; its output (it must succeed)."""
    driver = ROOT / "tools" / "demo_pipeline.py"
    run = subprocess.run(
        [sys.executable, str(driver), "--workspace", str(tmp_path / "ws"), *args],
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
    assert re.search(r"model reads in all: \d+ characters", run.stdout)
    return run.stdout


@pytest.mark.needs_shared("recordings")
def test_the_demo_speaks_mathematics_and_quotes_the_papers_own_statements(tmp_path):
    """The default sample, Viterbo's conjecture: titles, reasons and quoted Key Results."""
    out = demo(tmp_path)
    assert "arXiv, Semantic Scholar, zbMATH Open, Crossref" in out  # the services line
    assert "CONFIRMED arXiv:2405.16513 (2024) A Counterexample to Viterbo's Conjecture\n" in out
    for planted in json.loads((ROOT / "examples" / "viterbo" / "remembered.json").read_text()):
        assert re.search(rf'^  {planted["key"]} "{re.escape(planted["title"])}": \S', out, re.M)
    if ARXIV_SRC.exists():  # the papers' sources: a Key Result quotes a numbered statement
        quoted = re.search(
            r'Key Results: STAND-IN, quoting the paper: \[V\] "[^"]+" \((Theorem [\d.]+)\)\n'
            r"(?:    .*\n)*?"  # the REF keeps every statement verify listed, in the paper's order
            r"    \1 \(from http://127\.0\.0\.1:\d+/src/\d{4}\.\d{5}\): ",
            out,
        )
        assert quoted, out


@pytest.mark.slow  # a whole demo run: CI runs it (CONTRIBUTING.md "Run the tests")
@pytest.mark.needs_shared("recordings")
def test_the_demo_on_the_testing_sample_confirms_classics_through_zbmath_and_crossref(tmp_path):
    out = demo(tmp_path, "--problem", str(ROOT / "examples" / "sample-problem" / "PROBLEM.md"))
    # Remembered classics only the mathematical and DOI sources hold are confirmed through them.
    assert "zbMATH Open    confirmed memory-4\n" in out
    assert "Crossref       confirmed memory-3\n" in out
    folder = tmp_path / "ws" / ".math" / "problems" / SLUG
    refs = re.findall(r"^### REF-\d+", (folder / "LITERATURE.md").read_text(), re.M)
    # The journal entry's counts are those LITERATURE.md shows (a PROBLEM.md reference that is
    # the same paper as a search hit is confirmed twice but is one REF).
    journal = (folder / "JOURNAL.md").read_text()
    assert f"({len(refs)} new REFs)" in journal


@pytest.mark.slow  # a whole demo run: CI runs it (CONTRIBUTING.md "Run the tests")
@pytest.mark.needs_shared("recordings")
def test_the_demo_takes_a_plain_markdown_problem(tmp_path):
    """No frontmatter: the first line is the title, the slug is made from it."""
    plain = tmp_path / "plain.md"
    plain.write_text("# Symplectic capacities of convex bodies\n\nIs Viterbo's conjecture true?\n")
    demo(tmp_path, "--problem", str(plain))
    assert (
        tmp_path / "ws" / ".math" / "problems" / "symplectic-capacities-of-convex-bodies"
    ).is_dir()


def test_without_the_shared_folder_the_demo_runs_the_invented_world_and_removes_its_folder(
    tmp_path,
):
    """A clone without ../shared: the repository's invented papers, said so; the temporary
    workspace is gone at the end (TMPDIR is tmp_path, so a leftover would show there)."""
    env = dict(os.environ, MATH_TEST_SHARED=str(tmp_path / "no-shared"), TMPDIR=str(tmp_path))
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "demo_pipeline.py")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "  services: the INVENTED world: " in out
    assert re.search(r"^  CONFIRMED arXiv:2699\.00001 \(2026\) Invented example: ", out, re.M)
    assert re.search(
        r"\(Theorem 1\.1\)\n    Theorem 1\.1 \(from http://127\.0\.0\.1:\d+/src/2699", out
    )
    (folder,) = re.findall(r"^workspace (\S+): removed \(--keep keeps it\)$", out, re.M)
    assert not Path(folder).exists() and Path(folder).parent == tmp_path
    assert not list(tmp_path.glob("math-demo-*"))


@pytest.mark.slow  # a whole demo run: CI runs it (CONTRIBUTING.md "Run the tests")
def test_keep_keeps_the_temporary_workspace(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    driver = [sys.executable, str(ROOT / "tools" / "demo_pipeline.py"), "--world", "invented"]
    run = subprocess.run([*driver, "--keep"], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    (folder,) = re.findall(r"^workspace (\S+): kept$", run.stdout, re.M)
    assert (Path(folder) / ".math" / "literature.db").is_file()


def test_the_invented_world_says_so_in_every_paper():
    feed = (ROOT / "examples" / "invented-world" / "arxiv.xml").read_text(encoding="utf-8")
    titles = re.findall(r"<title>(.*?)</title>", feed)
    summaries = re.findall(r"<summary>(.*?)</summary>", feed, re.S)
    assert titles and len(titles) == len(summaries)
    assert all(title.startswith("Invented example: ") for title in titles)
    assert all(text.startswith("INVENTED for the math plugin's demo") for text in summaries)


@pytest.mark.needs_shared("recordings")
def test_the_invented_world_copies_no_text_of_a_recorded_paper():
    """No run of eight words of an invented abstract or source is in a recorded abstract."""
    from support.worlds import INVENTED, load_index, words

    def runs(text: str) -> set[tuple[str, ...]]:
        said = words(text)
        return {tuple(said[i : i + 8]) for i in range(len(said) - 7)}

    invented = ROOT / "examples" / "invented-world"
    ours = set().union(*(runs(e.summary) for e in load_index(INVENTED).arxiv.values()))
    ours |= set().union(*(runs(p.read_text()) for p in (invented / "sources").glob("*.tex")))
    recorded = set().union(*(runs(e.summary) for e in load_index().arxiv.values()))
    assert ours and not ours & recorded


def test_the_readmes_session_example_is_the_demos_run(tmp_path):
    """README.md's /math:literature lines are those the run `bash tools/run-demo` makes in a clone
    (the invented world: no ../shared needed) bears out (tools/demo_pipeline.py --readme writes
    them), and the README says so."""
    sys.path.insert(0, str(ROOT / "tools"))
    from demo_pipeline import (
        DEMO_SAMPLE,
        README_WORLD,
        readme_with_session,
        run_demo,
        session_example,
    )

    figures = run_demo(
        tmp_path / "ws", DEMO_SAMPLE, live=False, say=lambda _: None, world=README_WORLD
    )
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    expected = readme_with_session(readme, session_example(figures))
    assert readme == expected, "run: python3 tools/demo_pipeline.py --readme\n" + "\n".join(
        session_example(figures)
    )
    said = " ".join(readme.split("## A session", 1)[1].split("## Install", 1)[0].split())
    assert "generated from what `bash tools/run-demo` prints in a clone" in said
    assert "papers the repository made up for the demo" in said


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
