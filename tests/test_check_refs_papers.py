"""check_refs.py on a paper a referee is given: an arXiv id (its LaTeX source fetched through the
stand-in, which serves ../shared/recordings/arxiv-src), a PDF compiled from one of those sources,
and the statements a paper cites by number (`\\cite[Lemma 2.1]{key}`), looked up in the cited
paper's arXiv LaTeX source. The shared sources are read where they are, never copied here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from mathtools.core import schemas
from mathtools.core.titles import normalise_title
from mathtools.papers import citedstatements, paperbibliography, texsource
from mathtools.services.latex_source import LatexSourceClient, read_body
from support import arxiv_src
from support.arxiv_src import MAIN_2405, REFERENCES_BIB


def members(arxiv_id: str) -> dict[str, bytes]:
    outcome = read_body(arxiv_src.body(arxiv_id))
    assert not hasattr(outcome, "reason"), outcome
    return outcome.members  # type: ignore[union-attr]


def own_bibliography_count(arxiv_id: str) -> int:
    """The entries of the paper's own bibliography, counted from its files as LaTeX reads them:
    every \\bibitem outside comments, or every entry of a shipped .bib/.bbl (none here)."""
    count = 0
    for name, data in members(arxiv_id).items():
        if texsource.is_tex_name(name):
            text = "\n".join(
                texsource.strip_comment(line) for line in texsource.decode(data).split("\n")
            )
            count += len(re.findall(r"\\bibitem\b", text))
    return count


@pytest.mark.parametrize("arxiv_id", arxiv_src.PAPERS)
def test_an_arxiv_paper_is_read_with_every_entry_of_its_own_bibliography(arxiv_id, standin):
    paper = paperbibliography.read_arxiv_paper(arxiv_id, None, LatexSourceClient(use_cache=False))
    found = paper.bibliography
    assert len(found.references) == own_bibliography_count(arxiv_id)
    assert all(r.key and r.file.startswith(f"arXiv:{arxiv_id}/") for r in found.references)
    # every key its text cites is known, with the file and line an editor shows
    assert found.cited and all(
        file.startswith(f"arXiv:{arxiv_id}/") for file, _ in found.cited.values()
    )
    if arxiv_id == "2405.16513":  # \bibliography{references}: the source holds no .bib, no .bbl
        assert found.references == [] and "references.bib" in found.warnings[0]


def test_check_refs_on_an_arxiv_id_checks_the_papers_bibliography(script, standin):
    run = script("check_refs.py", "https://arxiv.org/abs/1110.4324", "--json")
    assert run.returncode == 0, run.stderr
    document = run.json()
    assert schemas.schema_errors("check_refs", document) == []
    assert document["summary"]["entries"] == own_bibliography_count("1110.4324") == 8
    assert document["inputs"] == [
        {"file": "arXiv:1110.4324/revised-shortest-billiards.tex", "kind": "tex", "entries": 8}
    ]
    assert standin.counts["arxiv src"] == 1
    first = document["entries"][0]
    assert (first["key"], first["cited"]["title"]) == (
        "BG",
        "Periodic bounce trajectories with a low number of bounce points",
    )


def test_an_arxiv_paper_without_a_latex_source_is_one_line(script, standin):
    run = script("check_refs.py", "arXiv:1707.08567v1")
    assert run.returncode == 2, run.stdout
    assert "Traceback" not in run.stderr
    assert "the submission is a PDF only: check its PDF instead" in run.json()["error"]["message"]


def test_statement_citations_are_read_as_mathematicians_write_them():
    text = (
        r"\cite[Thm.\ 2.3]{a} \cite[Theorem 2.3(ii)]{b} \cite[Lemmas 4.1 and 4.2]{c} \cite[\S3]{d}"
        r" \cite[Lemma 3.1, Corollary 3.2 and Lemma 3.3]{e} \cite[Eq.~(5.10)]{f}"
        r" \cite[Threorem 1]{g} \cite[p.~5]{h} \cite[Theorem 1]{x,y}"
    )
    read = citedstatements.statement_citations(text)
    found = [(c["key"], c["kind"], c["number"], c["part"]) for c in read.citations]
    assert found == [
        ("a", "Theorem", "2.3", None),
        ("b", "Theorem", "2.3", "(ii)"),
        ("c", "Lemma", "4.1", None),
        ("c", "Lemma", "4.2", None),
        ("d", "Section", "3", None),
        ("e", "Lemma", "3.1", None),
        ("e", "Corollary", "3.2", None),
        ("e", "Lemma", "3.3", None),
        ("f", "equation", "5.10", None),
        ("g", "Theorem", "1", None),
    ]
    assert {c["read_from"] for c in read.citations} == {"note"}
    # a note on two keys names no one paper's statement: said, not given to either
    assert [(a["keys"], a["statements"]) for a in read.ambiguous] == [(["x", "y"], ["Theorem 1"])]


def planted_2405(folder: Path, citing: str) -> Path:
    """A local copy of 2405.16513's main file in `folder`, its first `\\cite[Lemma 2.1]` made
    `citing`, beside the references.bib it names; the paper's path."""
    tex = texsource.decode(members("2405.16513")[MAIN_2405])
    assert r"\cite[Lemma 2.1]{bezdek-bezdek}" in tex
    paper = folder / "paper.tex"
    paper.write_text(tex.replace(r"\cite[Lemma 2.1]{bezdek-bezdek}", citing), encoding="utf-8")
    (folder / "references.bib").write_text(REFERENCES_BIB, encoding="utf-8")
    return paper


def test_cited_statements_are_shown_and_a_planted_wrong_number_is_flagged(
    script, standin, tmp_path
):
    planted_2405(
        tmp_path,
        r"\cite[Lemma 2.1]{bezdek-bezdek} and \cite[Lemma 2.7]{bezdek-bezdek}, and by Lemma 2.8"
        r" of~\cite{bezdek-bezdek}, see Section 3 of~\cite{bezdek-bezdek,Mink-Bill-Rudolf}",
    )
    run = script("check_refs.py", str(tmp_path / "paper.tex"), "--json")
    assert run.returncode == 0, run.stderr
    document = run.json()
    assert schemas.schema_errors("check_refs", document) == []
    statuses = {e["key"]: e["status"] for e in document["entries"]}
    assert statuses == {"bezdek-bezdek": "CONFIRMED", "Mink-Bill-Rudolf": "CONFIRMED"}
    cited = {(c["key"], c["kind"], c["number"]): c for c in document["statements"]}
    prose = {(c["key"], c["kind"], c["number"]): c for c in document["statements"]
             if c["read_from"] == "prose"}  # fmt: skip
    expected = {s["printed"]: s for s in arxiv_src.expected("1110.4324")["statements"]}

    found = cited[("bezdek-bezdek", "Lemma", "2.1")]
    assert found["status"] == "found" and found["arxiv_id"] == "1110.4324"
    assert found["statement"]["printed"] == "Lemma 2.1"
    words = expected["Lemma 2.1"]["first_words_tex"].split()
    assert found["statement"]["text"].split()[: len(words)] == words  # the paper's own text

    planted_one = cited[("bezdek-bezdek", "Lemma", "2.7")]
    assert planted_one["status"] == "not_in_version" and planted_one["statement"] is None
    assert planted_one["nearest"] == ["Lemma 2.4"]  # the paper's last Lemma; no later one
    assert "a journal version may number differently" in planted_one["message"]

    # The paper's own "Threorem 1" of 2203.01718, whose arXiv version numbers 1.3: never "wrong"
    journal = cited[("Mink-Bill-Rudolf", "Theorem", "1")]
    assert journal["status"] == "not_in_version" and "Theorem 1.3" in journal["nearest"]
    # A statement of a reference confirmed without an arXiv LaTeX source is not checked, and says so
    assert cited[("non_symmetric_mahler", "Theorem", "2.1")]["status"] == "no_latex_source"
    # Read from prose, checked the same way: the planted "Lemma 2.8 of~\cite{...}", and the
    # paper's own "Theorem 1 in~\cite{Mink-Bill-Rudolf}" (line 225 of its source)
    planted_prose = prose[("bezdek-bezdek", "Lemma", "2.8")]
    assert planted_prose["status"] == "not_in_version" and planted_prose["nearest"] == ["Lemma 2.4"]
    assert planted_prose["written"] == r"Lemma 2.8 of~\cite{bezdek-bezdek}"
    own = prose[("Mink-Bill-Rudolf", "Theorem", "1")]
    assert own["status"] == "not_in_version" and own["line"] == 225
    assert prose[("Mink-Bill-Rudolf", "Section", "1.2")]["status"] == "not_checked"
    assert prose[("pazit", "Theorem", "1.5")]["status"] == "no_latex_source"
    assert cited[("bezdek-bezdek", "Lemma", "2.1")]["read_from"] == "note"
    assert document["summary"]["statements_flagged"] == 4
    # cited of two keys at once: said, checked for neither
    (ambiguous,) = document["ambiguous_statements"]
    assert (ambiguous["keys"], ambiguous["statements"]) == (
        ["bezdek-bezdek", "Mink-Bill-Rudolf"],
        ["Section 3"],
    )

    table = script("check_refs.py", str(tmp_path / "paper.tex")).stdout
    assert "cites Lemma 2.1: Lemma 2.1 of arXiv:1110.4324" in table
    assert "cites Lemma 2.7: check: arXiv:1110.4324" in table and "nearest: Lemma 2.4" in table
    assert "cites Lemma 2.8 (in prose, line 261): check: arXiv:1110.4324" in table
    assert (
        r"ambiguous: Section 3 of~\cite{bezdek-bezdek,Mink-Bill-Rudolf} (paper.tex line 261) names"
        " Section 3 of 2 references at once" in table
    )


def test_strict_corrected_fails_on_a_correction_that_strict_lets_pass(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{windisch2016,\n  title = {Heat-bath random walks with {M}arkov bases},\n"
        "  author = {Windisch, T.},\n  year = 2016,\n  eprint = {1605.08386},\n}\n",
        encoding="utf-8",
    )
    lenient = script("check_refs.py", str(bib), "--strict")
    assert lenient.returncode == 0, lenient.stdout
    assert "CORRECTED" in lenient.stdout
    strict = script("check_refs.py", str(bib), "--strict=corrected")
    assert strict.returncode == 1, strict.stdout
    assert "--strict=corrected: 1 entry UNCONFIRMED, pending or CORRECTED (exit 1)" in strict.stderr


def compiled_pdf(arxiv_id: str, folder) -> str:
    """The PDF pdflatex makes of the shared source (run twice, for the labels)."""
    if shutil.which("pdflatex") is None:
        pytest.skip("needs TeX (pdflatex) to compile a PDF from a shared source; not installed")
    if shutil.which("pdftotext") is None:
        pytest.skip("needs pdftotext (poppler-utils) to read a PDF; not installed")
    files = members(arxiv_id)
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    main = texsource.build(files).main_file
    for _ in range(2):
        subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", main],
            cwd=folder,
            capture_output=True,
            timeout=300,
            check=False,
        )
    pdf = folder / (main.rsplit(".", 1)[0] + ".pdf")
    if not pdf.is_file():
        pytest.skip(f"pdflatex could not compile {arxiv_id} here (a package is missing)")
    return str(pdf)


def test_a_pdf_gives_its_references_each_checked_as_written(script, standin, tmp_path):
    pdf = compiled_pdf("1110.4324", tmp_path)
    run = script("check_refs.py", pdf, "--json")
    assert run.returncode == 0, run.stderr
    document = run.json()
    assert schemas.schema_errors("check_refs", document) == []
    source = paperbibliography.read_arxiv_paper  # the same paper's entries, read from its LaTeX
    titles = {r.plain().get("title") for r in source("1110.4324", None).bibliography.references}
    entries = document["entries"]
    # each entry goes to the gate as written, whole: its citation holds one of the paper's titles
    read = [
        e
        for e in entries
        if any(normalise_title(t) in normalise_title(e["cited"]["citation"]) for t in titles if t)
    ]
    assert len(read) >= 0.9 * own_bibliography_count("1110.4324")
    assert all(e["entry_type"] == "pdf" and e["status"] for e in entries)
    assert document["pdf"] == {"file": pdf, "split": "labels", "entries": len(entries)}
    table = script("check_refs.py", pdf).stdout
    assert "from a PDF: 8 entries of" in table and "split by labels: sure" in table


def test_a_pdf_without_pdftotext_is_an_environment_problem(script, tmp_path):
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n% a stand-in: never read\n")
    env = {**os.environ, "PATH": str(tmp_path)}  # no pdftotext on it
    run = script("check_refs.py", str(pdf), env=env)
    assert run.returncode == 4, run.stdout
    message = run.json()["error"]["message"]
    assert "pdftotext is not installed" in message and "poppler-utils" in message


def test_an_author_year_bibitem_with_an_accented_name_is_read(standin):
    # 2203.01718: "K\"{u}nzle, A. F. (1996). Singular Hamiltonian systems and ..."
    paper = paperbibliography.read_arxiv_paper(
        "2203.01718", None, LatexSourceClient(use_cache=False)
    )
    entry = {r.key: r.plain() for r in paper.bibliography.references}["Kuenzle1996"]
    assert entry["title"] == "Singular Hamiltonian systems and symplectic capacities"
    assert (entry["authors"], entry["year"]) == (["Künzle, A. F."], 1996)


def test_a_suggestion_sharing_no_author_and_far_in_title_is_not_shown(script, standin):
    document = script("check_refs.py", "arXiv:2203.01718", "--json").json()
    entries = {e["key"]: e for e in document["entries"]}
    # Ghomi's paper: a title search offers the Bezdeks' "Shortest billiard trajectories"
    ghomi = entries["Ghomi2004"]["verification"]
    assert ghomi["suggestion"]["title"] == "Shortest billiard trajectories"  # --json keeps it
    assert ghomi["checks"]["matched_authors"] == []
    table = script("check_refs.py", "arXiv:2203.01718").stdout.splitlines()
    rows = {line.split()[0]: number for number, line in enumerate(table) if line[:1].strip()}
    assert not table[rows["Ghomi2004"] + 1].strip().startswith("suggestion:")
    # the Bezdeks' own paper (Geom. Dedicata 2009), whose arXiv version is of 2011: identified (a
    # preprint published later, matching-rules), not a suggestion; its journal year is right
    # and never "corrected" to the preprint's (issue 49)
    bezdek = entries["Bezdek2011"]["verification"]
    assert bezdek["paper"]["arxiv_id"] == "1110.4324" and "suggestion" not in bezdek
    assert "year" not in [d["field"] for d in bezdek["discrepancies"]]
    assert not any(line.strip().startswith("year:") for line in table[rows["Bezdek2011"] :][:3])


def test_entries_the_paper_never_cites_are_named(script, standin, tmp_path):
    (tmp_path / "refs.bib").write_text(REFERENCES_BIB, encoding="utf-8")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{bezdek-bezdek}\n"
        "\\bibliography{refs}\\end{document}\n",
        encoding="utf-8",
    )
    run = script("check_refs.py", str(tmp_path / "paper.tex"), "--json")
    assert run.json()["never_cited"] == ["Mink-Bill-Rudolf"]
    table = script("check_refs.py", str(tmp_path / "paper.tex")).stdout
    assert "never cited: 1 entry the paper does not cite: Mink-Bill-Rudolf" in table


@pytest.mark.needs_shared("bibliographies")
def test_no_corrected_copy_names_what_was_read_for_an_amsrefs_database():
    from mathtools.bibliography import loading
    from mathtools.gate import refcheck
    from support import shared

    found = loading.load_bibliography(
        [str(shared.path("bibliographies", "roe-motivic-tori_references.ltb"))]
    )
    document = {"inputs": found.files}
    assert refcheck.fix_lines(document, "") == [  # type: ignore[arg-type]
        "no corrected copy: only a single .bib is rewritten, and this check read an amsrefs "
        "database"
    ]


def test_the_corrected_copy_is_adopted_in_one_step_keeping_the_original(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    original = (
        "@article{windisch2016,\r\n  title = {Heat-bath random walks with {M}arkov bases},\r\n"
        "  author = {Windisch, T.},\r\n  year = 2016,\r\n  eprint = {1605.08386},\r\n}\r\n"
    )
    bib.write_bytes(original.encode())
    assert script("check_refs.py", str(bib), "--fix").returncode == 0
    copy = tmp_path / "refs.checked.bib"
    corrected = copy.read_bytes()
    run = script("check_refs.py", "--adopt", str(copy))
    assert run.returncode == 0, run.stdout
    assert run.stdout == (
        f"adopted: {bib} now holds the corrected copy; the original is "
        f"{tmp_path / 'refs.before-check-refs.bib'}\n"
    )
    assert (tmp_path / "refs.before-check-refs.bib").read_bytes() == original.encode()
    assert bib.read_bytes() == corrected.split(b"\r\n", 1)[1]  # the copy, its header line gone
    assert b"Stanley, Caprice" in bib.read_bytes() and not copy.exists()
    again = script("check_refs.py", "--adopt", str(bib))  # not a copy of ours: refused
    assert again.returncode == 2 and again.json()["error"]["code"] == "not_a_copy"


def test_decisions_show_only_the_rows_to_act_on_with_the_next_step(script, standin, tmp_path):
    example = ROOT / "examples" / "check-refs"
    for name in ("paper.tex", "refs.bib"):
        shutil.copy(example / name, tmp_path / name)
    report = tmp_path / "check.md"
    run = script(
        "check_refs.py", str(tmp_path / "paper.tex"), "--decisions", "--report", str(report)
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    rows = [line.split(":")[0] for line in lines if not line.startswith(" ")]
    assert rows[:5] == ["cheraghchi2011", "smith2023", "windisch2016", "duplicate", "missing"]
    assert "stanley2016" not in run.stdout.split("duplicate:")[0]  # CONFIRMED: not a row
    steps = [line.strip() for line in lines if line.startswith("  next: ")]
    assert len(steps) == 5  # one per row
    assert lines[-1] == f"the whole table: {report}"
    assert "| `stanley2016` | CONFIRMED |" in report.read_text(encoding="utf-8")


def test_springer_style_bibitems_are_read_as_authors_colon_title(standin):
    # 1010.3170: "Albers, P., Mazzucchelli, M.: Periodic bounce orbits of prescribed energy, ..."
    paper = paperbibliography.read_arxiv_paper(
        "1010.3170", None, LatexSourceClient(use_cache=False)
    )
    entries = {r.key: r.plain() for r in paper.bibliography.references}
    assert all(entry.get("title") for entry in entries.values())
    first = entries["AlbersMazzucchelli"]
    assert first["title"] == "Periodic bounce orbits of prescribed energy"
    assert first["authors"][0] == "Albers, P." and first["year"] == 2010


KAKEYA = (
    "@misc{kakeya,\n  title = {A proof of the {K}akeya conjecture in three dimensions via "
    "polynomial partitioning},\n  author = {Smith, John},\n  year = 2023,\n  note = {%s},\n}\n"
)


@pytest.mark.parametrize("style", ["plain", "amsplain", "alpha"])
def test_the_unconfirmed_mark_of_a_corrected_copy_never_prints(script, standin, tmp_path, style):
    if shutil.which("bibtex") is None or shutil.which("pdflatex") is None:
        pytest.skip("needs TeX (bibtex, pdflatex) to typeset the corrected copy; not installed")
    (tmp_path / "refs.bib").write_text(KAKEYA % "Suggested by a chatbot", encoding="utf-8")
    assert script("check_refs.py", str(tmp_path / "refs.bib"), "--fix").returncode == 0
    copy = (tmp_path / "refs.checked.bib").read_text(encoding="utf-8")
    assert "checkrefs = {UNCONFIRMED: no paper with this title" in copy
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{kakeya}\n"
        f"\\bibliographystyle{{{style}}}\\bibliography{{refs.checked}}\\end{{document}}\n",
        encoding="utf-8",
    )
    for command in (["pdflatex", "-interaction=nonstopmode", "paper"], ["bibtex", "paper"]):
        subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=120, check=False)
    bbl = (tmp_path / "paper.bbl").read_text(encoding="utf-8")
    assert "Suggested by a chatbot" in bbl  # the user's note prints, as before
    assert "UNCONFIRMED" not in bbl


def test_an_earlier_versions_mark_in_the_note_is_taken_out(script, standin, tmp_path):
    earlier = "UNCONFIRMED: no paper with this title -- Suggested by a chatbot"
    (tmp_path / "refs.bib").write_text(KAKEYA % earlier, encoding="utf-8")
    assert script("check_refs.py", str(tmp_path / "refs.bib"), "--fix").returncode == 0
    copy = (tmp_path / "refs.checked.bib").read_text(encoding="utf-8")
    assert "  note = {Suggested by a chatbot},\n" in copy
    assert copy.count("UNCONFIRMED") == 2  # the header's count, and our field


def test_a_pdftotext_past_its_deadline_goes_with_every_process_it_started(tmp_path, monkeypatch):
    """The report: a pdftotext timeout killed the child but not its children. A stand-in
    pdftotext (synthesized) starts a child that outlives it unless its group is killed."""
    import time
    import uuid

    from mathtools.core.errors import BadInput
    from mathtools.papers import pdfreferences

    marker = str(4000 + uuid.uuid4().int % 997)
    fake = tmp_path / "pdftotext"
    fake.write_text(f"#!/bin/sh\nsleep {marker} &\nsleep {marker}\n")
    fake.chmod(0o755)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setattr(pdfreferences, "PDFTOTEXT_SECONDS", 1)

    def sleepers():
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if handle.read() == f"sleep\x00{marker}\x00".encode():
                        found.append(int(entry))
            except OSError:
                continue
        return found

    try:
        with pytest.raises(BadInput) as caught:
            pdfreferences.pdf_text(pdf)
        assert caught.value.code == "pdf_timeout"
        deadline = time.monotonic() + 5
        while sleepers() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sleepers() == []
    finally:
        for pid in sleepers():
            os.kill(pid, 9)
