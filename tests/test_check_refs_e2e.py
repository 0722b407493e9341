"""/math:check-refs end to end in the real Claude Code, offline, without bypass mode.

The model is scripted (tests/support/claude_harness.py) and follows commands/check-refs.md to the
letter: its one Bash call is the ```bash line of the expanded body Claude Code sent it ($ARGUMENTS
and the plugin path already substituted), and it runs only because the command's allowed-tools
rule lets it. arXiv and Semantic Scholar are tests/support/standin.py, answering from the real
recordings. The answer shows the table as printed and offers the corrected copy.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import PLUGIN, ROOT
from mathtools.papers import texsource
from mathtools.services.latex_source import read_body
from support import arxiv_src
from support.arxiv_src import MAIN_2405, REFERENCES_BIB
from support.claude_harness import bash, bash_result, refused, run_claude, runbook_commands, text
from support.standin import StandIn

sys.path.insert(0, str(ROOT / "tools"))
from check_refs_runbook import answer, planted_paper

pytestmark = pytest.mark.claude

BIB = """% references of the draft
@string{tit = "IEEE Trans. Inform. Theory"}

@article{stanley2016,
  title  = {Heat-bath random walks with {M}arkov bases},
  author = {Stanley, Caprice and Windisch, Tobias},
  year   = 2016,
  eprint = {1605.08386},
}
@misc{smith2023,
  title  = {A proof of the {K}akeya conjecture in three dimensions via polynomial partitioning},
  author = {Smith, John},
  year   = 2023,
}
"""
TEX = "\\documentclass{article}\\begin{document}\\cite{stanley2016,smith2023,ghost}\n" + (
    "\\bibliography{refs}\\end{document}\n"
)


class FollowCheckRefs:
    """The main conversation: run check-refs.md's one Bash line, then show the table and offer
    the corrected copy named on its last line (steps 3 and 4)."""

    def __init__(self):
        self.calls: list[str] = []
        self.output = ""
        self.status = None

    def __call__(self, request):
        if not request.tool_results():
            self.calls = runbook_commands(request.command_body("/math:check-refs"))
            assert len(self.calls) == 1, self.calls
            return [bash(self.calls[0], id="toolu_check")]
        (result,) = request.last_tool_results()
        assert not refused(result), f"{self.calls[0]} was refused: {result}"
        self.status, self.output = bash_result(result)
        table = [
            line
            for line in self.output.splitlines()
            if not line.startswith(("check_refs:", "math:"))
        ]
        offer = next((line for line in table if line.startswith("corrected copy: ")), None)
        answer = "```\n" + "\n".join(table) + "\n```\n"
        if offer:
            path = offer.split(": ", 1)[1].split(" (", 1)[0]
            answer += (
                f"A corrected copy is at {path}; compare it with the original before using it."
            )
        return [text(answer)]


def check_refs_in_claude(tmp_path, prompt: str):
    """`prompt` typed in the real Claude Code, the model following the runbook, in a folder
    holding paper.tex and refs.bib: (the run, the model, the stand-in, the folder)."""
    home, cwd = tmp_path / "home", tmp_path / "paper"
    cwd.mkdir()
    (cwd / "refs.bib").write_text(BIB, encoding="utf-8")
    (cwd / "paper.tex").write_text(TEX, encoding="utf-8")
    model = FollowCheckRefs()
    with StandIn() as standin:
        env = {**standin.env(), "MATH_CACHE_DIR": str(tmp_path / "cache")}
        env["MATH_ARXIV_MIN_INTERVAL"] = env["MATH_S2_MIN_INTERVAL"] = "0"
        run = run_claude(prompt, model, home=home, cwd=cwd, bypass=False, env=env)
    return run, model, standin, cwd


def test_check_refs_in_claude_code_shows_the_table_and_writes_only_the_copy(tmp_path):
    run, model, standin, cwd = check_refs_in_claude(tmp_path, "/math:check-refs paper.tex")
    assert run.exit_code == 0, run.describe()
    assert model.calls == [
        f'python3 "{PLUGIN}/scripts/check_refs.py" paper.tex --fix --decisions '
        "--report check-refs-report.md"
    ]
    assert model.status == 0, model.output
    assert standin.counts["arxiv id_list"] == 1
    # only the rows to act on, each with its next step; the whole table is in the report
    assert "smith2023: UNCONFIRMED no paper with this title" in run.stdout
    assert "  next: find the paper (title, authors, year) or drop the citation" in run.stdout
    assert "stanley2016: CONFIRMED" not in run.stdout
    assert "missing: ghost is cited (paper.tex line 1) but in no bibliography" in run.stdout
    assert "the whole table: check-refs-report.md" in run.stdout
    report = (cwd / "check-refs-report.md").read_text(encoding="utf-8")
    assert "| `stanley2016` | CONFIRMED |" in report
    assert "A corrected copy is at refs.checked.bib" in run.stdout
    assert (cwd / "refs.bib").read_text(encoding="utf-8") == BIB  # never the original
    copy = (cwd / "refs.checked.bib").read_text(encoding="utf-8")
    assert "  checkrefs = {UNCONFIRMED: no paper with this title" in copy
    assert sorted(p.name for p in Path(cwd).iterdir()) == [
        "check-refs-report.md",
        "paper.tex",
        "refs.bib",
        "refs.checked.bib",
    ]


def test_a_flag_in_the_arguments_stays_a_flag(tmp_path):
    prompt = "/math:check-refs paper.tex --strict=corrected"
    run, model, _, _ = check_refs_in_claude(tmp_path, prompt)
    assert run.exit_code == 0, run.describe()
    assert (
        model.calls[0].split("check_refs.py")[1].startswith('" paper.tex --strict=corrected --fix')
    )
    assert model.status == 1, model.output  # smith2023 is UNCONFIRMED: the stricter gate fails


class JudgeUses:
    """The main conversation on a paper citing statements: run check-refs.md's one Bash line,
    then answer as step 3 says (tools/check_refs_runbook.answer: the STAND-IN's marks, the
    mismatches first)."""

    def __init__(self):
        self.calls: list[str] = []
        self.played = None

    def __call__(self, request):
        if not request.tool_results():
            self.calls = runbook_commands(request.command_body("/math:check-refs"))
            return [bash(self.calls[0], id="toolu_check")]
        (result,) = request.last_tool_results()
        assert not refused(result), f"{self.calls[0]} was refused: {result}"
        self.played = answer(*bash_result(result), self.calls)
        return [text(self.played.answer)]


def test_the_planted_misuses_are_named_first_in_claude_code(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "paper"
    cwd.mkdir()
    source = texsource.decode(read_body(arxiv_src.body("2405.16513")).members[MAIN_2405])
    planted_paper(cwd, source, REFERENCES_BIB)
    model = JudgeUses()
    with StandIn() as standin:
        env = {**standin.env(), "MATH_CACHE_DIR": str(tmp_path / "cache")}
        env["MATH_ARXIV_MIN_INTERVAL"] = env["MATH_S2_MIN_INTERVAL"] = "0"
        prompt = "/math:check-refs paper.tex"
        run = run_claude(prompt, model, home=home, cwd=cwd, bypass=False, env=env)
    assert run.exit_code == 0, run.describe()
    assert len(model.calls) == 1  # <= 3: the runbook's one Bash call
    first = model.played.answer.splitlines()[:2]
    assert "Lemma 2.1 of bezdek-bezdek): stronger than stated" in first[0]
    assert "Lemma 2.3 of bezdek-bezdek): other statement" in first[1]
    assert first[0] in run.stdout and first[1] in run.stdout
