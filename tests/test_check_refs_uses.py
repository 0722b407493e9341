"""/math:check-refs hands the model what it must judge: each cited statement's text beside the
sentence that cites it, so that a statement cited for more than it says, or by the wrong number,
is named. Played as the model would (tools/check_refs_runbook.py, a STAND-IN judging from an
answer key) on 2405.16513 with two planted misuses; pending entries and suggestions are said as
what they are.
"""

from __future__ import annotations

import subprocess
import sys

from conftest import PLUGIN, ROOT
from mathtools.core import schemas
from mathtools.papers import texsource
from support import arxiv_src
from support.arxiv_src import MAIN_2405, REFERENCES_BIB

sys.path.insert(0, str(ROOT / "tools"))
from check_refs_runbook import PLANTED, planted_paper, play


def source_2405() -> str:
    from mathtools.services.latex_source import read_body

    outcome = read_body(arxiv_src.body("2405.16513"))
    return texsource.decode(outcome.members[MAIN_2405])  # type: ignore[union-attr]


def bash_in(folder):
    def run(command: str) -> tuple[int, str]:
        done = subprocess.run(
            ["bash", "-c", command.replace("python3 ", f"{sys.executable} ", 1)],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        return done.returncode, done.stdout

    return run


def test_both_planted_misuses_are_named_in_one_call(standin, tmp_path):
    planted_paper(tmp_path, source_2405(), REFERENCES_BIB)
    played = play(bash_in(tmp_path), "paper.tex", str(PLUGIN))
    assert len(played.calls) <= 3
    mismatches = played.answer.splitlines()[: len(PLANTED)]  # reported first
    assert [line.split("): ")[1].split(":")[0] for line in mismatches] == [
        "stronger than stated",
        "other statement",
    ]
    assert mismatches[0].startswith("use 1 (paper.tex line ")
    assert "Lemma 2.1 of bezdek-bezdek" in mismatches[0]
    assert "Lemma 2.3 of bezdek-bezdek" in mismatches[1]
    # the paper's own use of Lemma 2.1 is shown too, its sentence beside the statement
    assert sorted(played.marks.values()) == [
        "can't tell",
        "other statement",
        "stronger than stated",
    ]
    # Lemma 2.1 cited twice: its text is printed once
    assert played.output.count("Let $\\bf F$ be a finite set of at least d+1 points") == 1
    assert "  statement: Lemma 2.1 of arXiv:1110.4324 v1 (the latest): as in use 1" in played.output
    # the use blocks are judged, not retyped
    assert "  sentence: " not in played.answer and "the whole table:" in played.answer


def test_the_json_carries_each_citing_sentence(script, standin, tmp_path):
    paper = planted_paper(tmp_path, source_2405(), REFERENCES_BIB)
    document = script("check_refs.py", str(paper), "--json").json()
    assert schemas.schema_errors("check_refs", document) == []
    uses = {
        (c["kind"], c["number"], c["line"]): c["sentence"]
        for c in document["statements"]
        if c["key"] == "bezdek-bezdek"
    }
    own = next(s for (_, n, _), s in uses.items() if "Helly" in s)
    assert own.startswith(r"Moreover, as demonstrated in \cite[Lemma 2.1]{bezdek-bezdek}, by")
    assert own.endswith("until it has 3 vertices.")
    planted = [s for s in uses.values() if s == " ".join(PLANTED[0].sentence.split())]
    assert len(planted) == 1  # the sentence alone, not its neighbour


def test_pending_entries_are_one_plain_line_with_their_next_step(script, standin, tmp_path):
    """SYNTHESIZED failures: arXiv answers 503, so the entries cited by arXiv id cannot be
    checked; they are named pending, never UNCONFIRMED rows to suspect."""
    standin.fail("arxiv", 503)
    standin.fail("s2", 500)
    (tmp_path / "refs.bib").write_text(REFERENCES_BIB, encoding="utf-8")
    run = script("check_refs.py", str(tmp_path / "refs.bib"), "--decisions")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    pending = [line for line in lines if line.startswith("pending: ")]
    assert pending == [
        "pending: 2 entries not checked, arXiv and Semantic Scholar were unavailable: "
        "bezdek-bezdek, Mink-Bill-Rudolf"
    ]
    assert lines[lines.index(pending[0]) + 1] == (
        "  next: run the same command again later (what answered is cached), or look them up "
        "on arXiv and Semantic Scholar"
    )
    assert not any(line.startswith(("bezdek-bezdek:", "Mink-Bill-Rudolf:")) for line in lines)


def unconfirmed(score: float, shared_author: bool, suggestion: dict) -> dict:
    """A checked entry as refcheck writes it, UNCONFIRMED with a suggestion (SYNTHESIZED)."""
    checks = {"title_score": score, "matched_authors": ["W. Jiang"] if shared_author else []}
    checks["year_diff"] = None
    return {"key": "k", "status": "UNCONFIRMED", "verification": {"checks": checks,
            "suggestion": suggestion}}  # fmt: skip


def test_a_suggestion_is_shown_only_above_the_title_floor():
    from mathtools.gate.refreport import worth_suggesting

    paper = {"title": "Normal forms", "arxiv_id": None}
    assert not worth_suggesting(unconfirmed(0.44, True, paper))  # issue 49's 0.32-0.44
    assert worth_suggesting(unconfirmed(0.6, True, paper))
    assert not worth_suggesting(unconfirmed(0.6, False, paper))  # no shared author: 0.75


def test_no_suggestion_is_the_paper_under_review():
    from mathtools.papers.paperinput import drop_own_suggestions, own_title

    tex = r"\documentclass{amsart}\title[Short]{A Counterexample to {V}iterbo's Conjecture}"
    under_review = {"2405.16513"} | own_title(tex)
    by_id = unconfirmed(0.6, True, {"title": "Other words", "arxiv_id": "2405.16513"})
    by_title = unconfirmed(0.6, True, {"title": "A counterexample to Viterbo's conjecture"})
    other = unconfirmed(0.6, True, {"title": "Symplectic capacities", "arxiv_id": "1010.3170"})
    document = {"entries": [by_id, by_title, other]}
    drop_own_suggestions(document, under_review)  # type: ignore[arg-type]
    assert ["suggestion" in e["verification"] for e in document["entries"]] == [False, False, True]
