"""What check_refs.py shows and refuses (issue 49): every flagged statement of an entry in
--decisions, a stale corrected copy refused by --adopt, an output whose folder does not exist
refused in one line (no folder made), the report's reasons said once, and the bibitems of a
real paper read without their typesetting (a bold volume, an italic correction, "to appear in")."""

from __future__ import annotations

import re
from pathlib import Path

from mathtools.bibliography import load_bibliography
from test_check_refs_papers import planted_2405
from test_check_refs_whole import SYSTOLIC, local_copy

WINDISCH = (
    "@article{windisch2016,\n  title = {Heat-bath random walks with {M}arkov bases},\n"
    "  author = {Windisch, T.},\n  year = 2016,\n  eprint = {1605.08386},\n}\n"
)


def test_decisions_list_every_flagged_statement_of_an_entry(script, standin, tmp_path):
    planted_2405(
        tmp_path,
        r"\cite[Lemma 2.1]{bezdek-bezdek} and \cite[Lemma 2.7]{bezdek-bezdek}, and by Lemma 2.8"
        r" of~\cite{bezdek-bezdek}",
    )
    run = script("check_refs.py", str(tmp_path / "paper.tex"), "--decisions")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("bezdek-bezdek:"))
    block = lines[start : next(i for i in range(start + 1, len(lines)) if "next:" in lines[i])]
    assert "cites Lemma 2.7: check:" in block[0]
    assert any("cites Lemma 2.8 (in prose, line" in line and ": check:" in line for line in block)


def test_adopt_refuses_a_copy_older_than_its_original(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(WINDISCH, encoding="utf-8")
    assert script("check_refs.py", str(bib), "--fix").returncode == 0
    copy = tmp_path / "refs.checked.bib"
    assert copy.is_file()
    added = WINDISCH + "@book{later, title={Added after the check}, author={A. One}, year=2020}\n"
    bib.write_text(added, encoding="utf-8")  # an entry added after --fix
    run = script("check_refs.py", "--adopt", str(copy))
    assert run.returncode == 2, run.stdout
    error = run.json()["error"]
    assert error["code"] == "stale_copy"
    assert "refs.bib changed after refs.checked.bib was written" in error["message"]
    assert bib.read_text(encoding="utf-8") == added and copy.is_file()  # nothing moved
    assert not (tmp_path / "refs.before-check-refs.bib").exists()


def test_an_output_in_a_folder_that_does_not_exist_is_one_line_and_makes_none(script, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(WINDISCH, encoding="utf-8")
    for option in ("--report", "--out", "--fix"):
        target = tmp_path / "no" / "such" / "r.md"
        run = script("check_refs.py", str(bib), option, str(target))
        assert run.returncode == 2, (option, run.stdout)
        assert "Traceback" not in run.stderr
        assert run.json()["error"]["message"] == (
            f"{option} {target}: the folder {target.parent} does not exist; create it first, or "
            "write elsewhere"
        )
        assert not (tmp_path / "no").exists()


def test_one_path_for_report_and_out_is_named_as_such(script, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(WINDISCH, encoding="utf-8")
    same = str(tmp_path / "r.md")
    run = script("check_refs.py", str(bib), "--report", same, "--out", same)
    assert run.returncode == 2
    message = run.json()["error"]["message"]
    assert message == f"--report and --out name the same file {same}: give each its own"


def test_the_report_says_an_unconfirmed_reason_once(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{nowhere,\n  title = {A theorem no paper ever proved about anything},\n"
        "  author = {Nobody, N.},\n  year = 2020,\n}\n",
        encoding="utf-8",
    )
    report = tmp_path / "check.md"
    run = script("check_refs.py", str(bib), "--report", str(report), "--json")
    reason = run.json()["entries"][0]["reason"]
    text = report.read_text(encoding="utf-8")
    assert text.count(reason) == 1, text
    assert "| `nowhere` | UNCONFIRMED | not found as cited (see Unconfirmed) |" in text


def test_a_real_papers_bibitems_are_read_without_their_typesetting(tmp_path):
    """2008.10111's own thebibliography: `{\\em Title\\/}`, `Journal {\\bf 29} (2019)`,
    `Compositio Math.\\ {\\bf 154}`, `to appear in Journal of ...`."""
    local_copy(SYSTOLIC, tmp_path)
    found = load_bibliography([str(tmp_path / "systolic_paper.tex")])
    entries = {r.key: r.plain() for r in found.references}
    assert len(entries) == 26
    assert not [k for k, e in entries.items() if (e.get("title") or "").endswith("/")]
    assert not [k for k, e in entries.items() if re.search(r"\\bf|\{", e.get("venue") or "")]
    gafa = entries["haim-kislev"]
    assert (gafa["title"], gafa["venue"], gafa["volume"], gafa["year"]) == (
        "On the symplectic size of convex polytopes",
        "Geometric and Functional Analysis",
        "29",
        2019,
    )
    assert entries["abhs2"]["venue"] == "Compositio Math"
    assert entries["ghr"]["venue"] == "Journal of Fixed Point Theory and Applications"


def test_counts_agree_with_their_nouns(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(WINDISCH, encoding="utf-8")
    run = script("check_refs.py", str(bib), "--fix")
    assert "corrected copy: " in run.stdout and "(1 entry corrected from" in run.stdout
    assert "checked 1 of 1 entry\n" in run.stdout and "\n1 entry: " in run.stdout
    header = Path(tmp_path / "refs.checked.bib").read_text(encoding="utf-8").splitlines()[0]
    assert ": 1 entry corrected from the sources' records" in header
