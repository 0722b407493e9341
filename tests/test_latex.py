"""scripts/latex.py: the cite and [~] checks on OUTPUT.tex, and compilation (or how to compile)."""

from __future__ import annotations

import json
import os

import pytest
from conftest import PLUGIN
from mathtools.core.tex import cited_keys
from mathtools.litdoc import bibexport, merging
from mathtools.research import latex
from support.verified import confirmed, corrected, paper, unconfirmed, verification

ERDOS = paper(1, authors=["Paul Erdős"], title="On the evolution of random graphs", year=1960)
GHOST = {"title": "Modular elliptic curves and Fermat's last theorem", "arxiv_id": "9501.00001"}

# REF-001's abstract: a [V] step quotes its source
QUOTE = 'By [V] "We prove bound 1. It is sharp." (REF-001, abstract).'
PROOF_MD = """---
status: in-progress
---

# Proof Development

## Proof Structure

### Lemma 1: the degree sequence concentrates
**Status:** complete
**Depends on:** REF-001
**Confidence:** [V]

By [V] "We prove bound 1. It is sharp." (REF-001, abstract).

### Lemma 2: the giant component is unique
**Status:** in-progress
**Depends on:** Lemma 1
**Confidence:** [~]

By [V] "We prove bound 1. It is sharp." (REF-001, abstract).

### Main Theorem
**Status:** blocked
**Depends on:** Lemma 1, Lemma 2
**Confidence:** [~]

By [V] "We prove bound 1. It is sharp." (REF-001, abstract).
"""


def article(body, cite="erdos1960evolution"):
    return (
        "\\documentclass{article}\n\\usepackage{amsthm}\n\\newtheorem{lemma}{Lemma}\n"
        "\\newtheorem{conjecture}{Conjecture}\n\\begin{document}\n"
        f"As shown in \\cite{{{cite}}} % and \\cite{{commented2020out}}\n{body}\n"
        "\\bibliographystyle{plain}\n\\bibliography{references}\n\\end{document}\n"
    )


@pytest.fixture
def problem(tmp_path):
    folder = tmp_path / ".math" / "problems" / "giant-component"
    folder.mkdir(parents=True)
    merging.merge_file(
        folder / "LITERATURE.md", verification([confirmed(ERDOS), unconfirmed(GHOST)])
    )
    bibexport.export(folder)
    (folder / "PROOF.md").write_text(PROOF_MD)
    return folder


def check(script, folder, tex):
    (folder / "OUTPUT.tex").write_text(tex)
    return script("latex.py", "check", "--dir", str(folder))


def kinds(run):
    return [v["kind"] for v in run.json()["violations"]]


def test_a_clean_article_passes(script, problem):
    body = (
        "\\begin{lemma}\\label{pf:lemma-1}Degrees concentrate.\\end{lemma}\n"
        "\\begin{conjecture}\\label{pf:lemma-2}The giant is unique.\\speculative\\end{conjecture}"
    )
    run = check(script, problem, article(body))
    assert run.returncode == 0, run.stdout
    assert run.json()["ok"] is True and run.json()["cited"] == ["erdos1960evolution"]


def test_citing_a_corrected_paper_passes(script, tmp_path):
    """A CORRECTED reference is confirmed (its citation was wrong, the paper is real)."""
    folder = tmp_path / ".math" / "problems" / "corrected"
    folder.mkdir(parents=True)
    wrong = {"key": "mine", "title": ERDOS["title"], "authors": ["Erdős"], "year": 1962}
    note = {"field": "year", "cited": 1962, "record": 1960, "note": "cited 1962"}
    merging.merge_file(folder / "LITERATURE.md", verification([corrected(ERDOS, wrong, [note])]))
    bibexport.export(folder)
    (folder / "PROOF.md").write_text(PROOF_MD)
    run = check(script, folder, article(""))
    assert run.returncode == 0, run.stdout
    assert run.json()["cited"] == ["erdos1960evolution"]


def test_citing_an_unconfirmed_paper_fails(script, problem):
    run = check(script, problem, article("", cite="erdos1960evolution, wiles1995modular"))
    assert run.returncode == 1
    (violation,) = run.json()["violations"]
    assert violation["kind"] == "unknown_citation" and violation["key"] == "wiles1995modular"


def test_a_hand_added_bib_entry_for_an_unconfirmed_paper_fails(script, problem):
    with open(problem / "references.bib", "a") as handle:
        handle.write("\n@article{wiles1995modular,\n  title = {{Modular elliptic curves}},\n}\n")
    run = check(script, problem, article("", cite="wiles1995modular"))
    assert run.returncode == 1
    assert kinds(run) == ["unconfirmed_in_bib"]
    assert run.json()["violations"][0]["key"] == "wiles1995modular"


@pytest.mark.parametrize(
    "statement",
    [
        "\\begin{lemma}The giant is unique.\\speculative\\end{lemma}",
        "\\begin{theorem}[Main] The giant is unique [~].\\end{theorem}",
        "\\begin{lemma}\\label{pf:lemma-2}The giant is unique.\\end{lemma}",  # PROOF.md: [~]
        "\\begin{theorem*}\\label{pf:main-theorem}All is well.\\end{theorem*}",
    ],
)
def test_a_speculative_claim_stated_as_a_theorem_fails(script, problem, statement):
    run = check(script, problem, article("\\newtheorem{theorem}{Theorem}\n" + statement))
    assert run.returncode == 1
    (violation,) = run.json()["violations"]
    assert violation["kind"] == "speculative_as_theorem"
    assert "conjecture" in violation["message"]


def test_a_claim_resting_on_a_speculative_step_fails_though_marked_surer(script, problem):
    """PROOF.md marks the Main Theorem [S] and Step 3 [V], but both rest on Lemma 2, which is [~]
    (the Main Theorem through Step 3): a step is never more certain than what it depends on."""
    over_sure = PROOF_MD.replace(
        "### Main Theorem\n**Status:** blocked\n**Depends on:** Lemma 1, Lemma 2\n"
        "**Confidence:** [~]\n",
        "### Step 3: the giant has linear size\n**Status:** complete\n"
        "**Depends on:** Lemma 2, REF-001, Computation 1\n**Confidence:** [V]\n\n"
        f"{QUOTE}\n\n"
        "### Main Theorem\n**Status:** complete\n**Depends on:** Lemma 1, Step 3\n"
        "**Confidence:** [S]\n",
    )
    assert over_sure != PROOF_MD
    (problem / "PROOF.md").write_text(over_sure)
    body = (
        "\\newtheorem{theorem}{Theorem}\n"
        "\\begin{lemma}\\label{pf:lemma-1}Degrees concentrate.\\end{lemma}\n"
        "\\begin{lemma}\\label{pf:step-3}Linear size.\\end{lemma}\n"
        "\\begin{theorem}\\label{pf:main-theorem}The giant is unique.\\end{theorem}"
    )
    run = check(script, problem, article(body))
    assert run.returncode == 1
    step3, main = run.json()["violations"]
    assert step3["kind"] == main["kind"] == "speculative_as_theorem"
    assert "Step 3, which rests on Lemma 2, marked [~]" in step3["message"]
    assert "Main Theorem, which rests on Lemma 2, marked [~]" in main["message"]


def test_an_incomplete_document_fails(script, problem):
    run = check(script, problem, "\\section{Notes}\nSee \\cite{erdos1960evolution}.\n")
    assert run.returncode == 1
    assert kinds(run) == ["incomplete_document"] * 4


def test_steps_and_labels_are_read_from_proof_md():
    assert latex.speculative_steps(PROOF_MD) == {
        "pf:lemma-2": "Lemma 2",
        "pf:main-theorem": "Main Theorem",
    }
    assert cited_keys("\\citep[p.~3]{a, b}\\nocite{*}\\textcite{c}") == ["a", "b", "c"]


def test_the_template_checks_clean_once_filled(script, problem):

    tex = (PLUGIN / "templates" / "OUTPUT.tex").read_text().replace("\\cite{KEY}", "")
    run = check(script, problem, tex)  # PROOF.md still has its Main Theorem at [~]
    assert run.returncode == 1 and run.json()["violations"][0]["labels"] == ["pf:main-theorem"]
    (problem / "PROOF.md").write_text(PROOF_MD.replace("[~]", "[V]"))
    run = check(script, problem, tex)
    assert run.returncode == 0, run.stdout


# --- compile ---


def fake_tex(tmp_path, name, script_body):
    """A stand-in LaTeX tool (synthesized: no TeX is installed on the test machines)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    tool = folder / name
    tool.write_text("#!/bin/sh\n" + script_body)
    tool.chmod(0o755)
    return folder


def compile_with(script, problem, path, *args):
    (problem / "OUTPUT.tex").write_text(article(""))
    return script(
        "latex.py", "compile", "--dir", str(problem), *args, env={**os.environ, "PATH": path}
    )


@pytest.mark.parametrize("timeout", ["-1", "nan", "inf", "0", "1e308"])
@pytest.mark.parametrize("tex", [True, False], ids=["with-tex", "without-tex"])
def test_a_timeout_no_run_can_have_is_refused_before_latex_is_looked_for(
    script, problem, tmp_path, timeout, tex
):
    folder = fake_tex(tmp_path, "latexmk", f"touch {tmp_path / 'ran'}\n")
    path = str(folder) if tex else str(tmp_path / "empty")
    run = compile_with(script, problem, path, "--timeout", timeout)
    assert run.returncode == 2, run.stdout
    error = run.json()["error"]
    assert error["code"] == "usage" and error["message"].startswith("--timeout must be"), error
    assert not (tmp_path / "ran").exists()


def test_without_tex_it_says_how_to_compile(script, problem, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    run = compile_with(script, problem, str(empty))
    assert run.returncode == 0, run.stdout
    result = run.json()
    assert result["compiled"] is False and "latexmk -pdf OUTPUT.tex" in result["how"]


def test_with_latexmk_it_compiles(script, problem, tmp_path):
    folder = fake_tex(tmp_path, "latexmk", 'echo "$@" > args.txt\necho "%PDF-1.5" > OUTPUT.pdf\n')
    run = compile_with(script, problem, str(folder))
    assert run.returncode == 0, run.stdout
    assert run.json() == {"compiled": True, "tool": "latexmk", "pdf": str(problem / "OUTPUT.pdf")}
    assert (problem / "args.txt").read_text().split() == [
        "-pdf",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "OUTPUT.tex",
    ]


def test_a_latex_error_is_reported_from_the_log(script, problem, tmp_path):
    body = "printf '! Undefined control sequence.\\nl.7 \\\\foo\\n' > OUTPUT.log\nexit 12\n"
    folder = fake_tex(tmp_path, "pdflatex", body)
    run = compile_with(script, problem, str(folder))
    assert run.returncode == 1
    result = run.json()
    assert result["compiled"] is False and result["tool"] == "pdflatex"
    assert result["errors"] == ["! Undefined control sequence. l.7 \\foo"]


def test_check_without_output_tex_is_bad_input(script, problem):
    run = script("latex.py", "check", "--dir", str(problem))
    assert run.returncode == 2 and json.loads(run.stdout)["error"]["code"] == "file_not_found"


# --- every claim is backed by a proved PROOF.md step ---


@pytest.mark.parametrize(
    ("preamble", "statement", "kind"),
    [
        (
            "\\newtheorem{theorem}{Theorem}",
            "\\begin{theorem}The giant is unique.\\end{theorem}",
            "unbacked_claim",
        ),
        (
            "\\newtheorem{thm}{Theorem}",
            "\\begin{thm}The giant is unique.\\end{thm}",
            "unbacked_claim",
        ),
        (
            "\\newtheorem{thm}{Theorem}",
            "\\begin{thm}\\label{pf:lemma-2}Unique.\\end{thm}",
            "speculative_as_theorem",
        ),
        (
            "\\declaretheorem[name=Main Theorem]{main}",
            "\\begin{main}Unique.\\end{main}",
            "unbacked_claim",
        ),
        ("", "\\begin{lemma}\\label{pf:lemma-9}No such step.\\end{lemma}", "unbacked_claim"),
        ("", "\\begin{lemma}\\label{eq:giant}Labelled, not by step.\\end{lemma}", "unbacked_claim"),
    ],
    ids=[
        "unlabelled-theorem",
        "custom-thm",
        "custom-thm-on-a-[~]-step",
        "declaretheorem",
        "unknown-step",
        "non-step-label",
    ],
)
def test_a_claim_not_backed_by_a_proved_step_fails(script, problem, preamble, statement, kind):
    run = check(script, problem, article(preamble + "\n" + statement))
    assert run.returncode == 1
    (violation,) = run.json()["violations"]
    assert violation["kind"] == kind and "conjecture" in violation["message"]


def test_conjectures_remarks_definitions_and_examples_are_not_claims(script, problem):
    preamble = (
        "\\newtheorem{conj}{Conjecture}\n\\newtheorem{rmk}{Remark}\n\\newtheorem*{defn}{Definition}\n"
        "\\newtheorem{example}{Example}\n\\newtheorem{thm}{Theorem}\n"
    )
    body = (
        "\\begin{conj}Unique.\\speculative\\end{conj}\n\\begin{rmk}Aside.\\end{rmk}\n"
        "\\begin{defn}A giant.\\end{defn}\n\\begin{example}$G(n,p)$.\\end{example}\n"
        "\\begin{thm}\\label{pf:lemma-1}Degrees concentrate.\\end{thm}\n"
    )
    run = check(script, problem, article(preamble + body))
    assert run.returncode == 0, run.stdout
    assert latex.claim_environments(preamble) == [*latex.THEOREM_LIKE, "thm"]
