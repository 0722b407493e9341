"""scripts/latex.py check: the cite and [~] checks on OUTPUT.tex (compiling: test_texbuild.py)."""

from __future__ import annotations

import json

import pytest
from conftest import PLUGIN
from mathtools.core.tex import cited_keys
from mathtools.litdoc import bibexport, merging
from mathtools.research import outputtex, texcheck
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
    speculative = {
        label: name
        for label, (name, tier, _) in texcheck.proof_steps(PROOF_MD).items()
        if tier == "[~]"
    }
    assert speculative == {"pf:lemma-2": "Lemma 2", "pf:main-theorem": "Main Theorem"}
    assert cited_keys("\\citep[p.~3]{a, b}\\nocite{*}\\textcite{c}") == ["a", "b", "c"]


def test_the_template_checks_clean_once_filled(script, problem):
    template = (PLUGIN / "templates" / "OUTPUT.tex").read_text()
    tex = template.replace("\\cite{KEY}", "\\cite{erdos1960evolution}")
    run = check(script, problem, tex)  # PROOF.md still has its Main Theorem at [~]
    assert run.returncode == 1 and run.json()["violations"][0]["labels"] == ["pf:main-theorem"]
    (problem / "PROOF.md").write_text(PROOF_MD.replace("[~]", "[V]"))
    run = check(script, problem, tex)
    assert run.returncode == 0, run.stdout
    # with no confirmed reference to cite: no \cite, and the template's bibliography lines go
    uncited = template.replace("\\cite{KEY}", "")
    run = check(script, problem, uncited)
    assert kinds(run) == ["empty_bibliography"]
    assert (
        "leave out \\bibliographystyle and \\bibliography" in run.json()["violations"][0]["message"]
    )
    kept = [line for line in uncited.splitlines() if not line.startswith("\\bibliograph")]
    run = check(script, problem, "\n".join(kept) + "\n")
    assert run.returncode == 0, run.stdout


def test_a_bibliography_listing_every_entry_is_not_empty(script, problem):
    tex = article("\\nocite{*}").replace("As shown in \\cite{erdos1960evolution}", "")
    run = check(script, problem, tex)
    assert run.returncode == 0, run.stdout


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
    assert outputtex.claim_environments(preamble) == [*outputtex.THEOREM_LIKE, "thm"]


# --- environments by their printed name, files read in, the abstract ---


@pytest.mark.parametrize(
    ("preamble", "statement", "kinds_found"),
    [
        (
            "\\newtheorem{theorem}{Theorem}\\newtheorem{remark}[theorem]{Theorem}",
            "\\begin{remark}The giant is unique.\\end{remark}",
            ["unbacked_claim"],
        ),
        ("\\newtheorem{thm}{Remark}", "\\begin{thm}An aside.\\end{thm}", []),
        (
            "\\newtheorem{theorem}{Theorem}\\newenvironment{thm}{\\begin{theorem}}{\\end{theorem}}",
            "\\begin{thm}The giant is unique.\\end{thm}",
            ["unbacked_claim"],
        ),
        (
            "\\newtheorem{theorem}{Theorem}\\newenvironment{thm}[1][]{\\begin{theorem}[#1]}"
            "{\\end{theorem}}\\newenvironment{mainthm}{\\begin{thm}}{\\end{thm}}",
            "\\begin{mainthm}\\label{pf:lemma-2}The giant is unique.\\end{mainthm}",
            ["speculative_as_theorem"],
        ),
        (
            "\\newtheorem{theorem}{Theorem}\\NewDocumentEnvironment{thm}{o}{\\theorem}{\\endtheorem}",
            "\\begin{thm}\\label{pf:lemma-1}Degrees concentrate.\\end{thm}",
            [],
        ),
        (
            "\\newtheorem{theorem}{Theorem}\\let\\thm\\theorem\\let\\endthm\\endtheorem",
            "\\begin{thm}The giant is unique.\\end{thm}",
            ["unbacked_claim"],
        ),
        (
            "\\newtheorem{theorem}{Theorem}"
            "\\newcommand{\\claim}[1]{\\begin{theorem}#1\\end{theorem}}",
            "\\claim{The giant is unique.}",
            ["claim_in_macro"],
        ),
        (
            "\\newenvironment{aside}{\\begin{remark}}{\\end{remark}}\\newtheorem{remark}{Remark}",
            "\\begin{aside}An aside.\\end{aside}",
            [],
        ),
    ],
    ids=[
        "remark-printed-as-theorem",
        "thm-printed-as-remark",
        "newenvironment-wrapping-a-theorem",
        "a-wrapper-of-a-wrapper",
        "document-environment",
        "let",
        "a-command-opening-a-theorem",
        "a-wrapped-remark",
    ],
)
def test_an_environment_states_a_claim_by_what_it_prints(
    script, problem, preamble, statement, kinds_found
):
    run = check(script, problem, article(preamble + "\n" + statement))
    assert kinds(run) == kinds_found, run.stdout


def test_a_file_read_in_is_checked_with_output_tex(script, problem):
    (problem / "extra.tex").write_text("Aside.\n\\begin{lemma}The giant is unique.\\end{lemma}\n")
    (problem / "macros.sty").write_text(
        "\\newtheorem{theorem}{Theorem}\\newenvironment{thm}{\\begin{theorem}}{\\end{theorem}}\n"
    )
    body = "\\input{extra}\n\\begin{thm}Unlabelled.\\end{thm}"
    run = check(
        script,
        problem,
        article(body).replace("\\begin{document}", "\\usepackage{macros}\\begin{document}"),
    )
    found = run.json()["violations"]
    assert [v["kind"] for v in found] == ["unbacked_claim", "unbacked_claim"], run.stdout
    assert "a thm on line 8 is not backed" in found[0]["message"]
    assert "a lemma on line 2 of extra.tex is not backed" in found[1]["message"]
    (problem / "extra.tex").write_text("\\include{more}\n")
    (problem / "more.tex").write_text("\\begin{lemma}\\label{pf:lemma-1}Fine.\\end{lemma}\n")
    run = check(script, problem, article("\\input extra"))
    assert run.returncode == 0, run.stdout


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("\\input{/etc/hostname}", "outside the problem folder"),
        ("\\input{../../secret}", "outside the problem folder"),
        ("\\include{missing}", "there is no missing.tex in the problem folder"),
        ("\\import{../}{extra}", "which the check cannot follow"),
        ("\\InputIfFileExists{extra}{}{}", "which the check cannot follow"),
    ],
)
def test_a_file_the_check_cannot_follow_is_refused(script, problem, command, said):
    run = check(script, problem, article(command))
    assert kinds(run) == ["unfollowed_input"]
    assert said in run.json()["violations"][0]["message"]


def test_a_link_out_of_the_folder_is_refused(script, problem, tmp_path):
    (tmp_path / "outside.tex").write_text("\\begin{lemma}Unique.\\end{lemma}\n")
    (problem / "extra.tex").symlink_to(tmp_path / "outside.tex")
    run = check(script, problem, article("\\input{extra}"))
    assert kinds(run) == ["unfollowed_input"]


ABSTRACT = "\\begin{abstract}\nWe prove that the giant component is unique.\n\\end{abstract}\n"


def test_a_result_announced_only_in_the_abstract_fails(script, problem):
    body = ABSTRACT + "\\begin{conjecture}\\label{pf:main-theorem}Unique.\\end{conjecture}"
    run = check(script, problem, article(body))
    assert kinds(run) == ["abstract_claim"]
    assert "'We prove'" in run.json()["violations"][0]["message"]
    lemma = "\\begin{lemma}\\label{pf:lemma-1}Degrees concentrate.\\end{lemma}\n"
    run = check(script, problem, article(body + lemma))  # a lemma is not the Main Theorem
    assert kinds(run) == ["abstract_claim"]
    hedged = body.replace("We prove that", "We conjecture that")
    run = check(script, problem, article(hedged))
    assert run.returncode == 0, run.stdout
    (problem / "PROOF.md").write_text(PROOF_MD.replace("[~]", "[V]"))
    proved = (
        ABSTRACT
        + "\\newtheorem{theorem}{Theorem}\\begin{theorem}\\label{pf:main-theorem}U.\\end{theorem}"
    )
    run = check(script, problem, article(proved))
    assert run.returncode == 0, run.stdout
