"""scripts/bib_export.py: references.bib from confirmed references only, with stable keys.

LITERATURE.md is written by the real merge engine (litmerge) from synthesized verification results
(tests/support/verified.py), exactly as /math:literature would write it.
"""

from __future__ import annotations

import json

import pytest
from mathtools.bibliography import bibtexfile, bibvalues
from mathtools.litdoc import bibexport, literature, merging
from support.verified import confirmed, corrected, paper, unconfirmed, verification


@pytest.fixture
def problem(tmp_path):
    folder = tmp_path / ".math" / "problems" / "spectral-gap"
    folder.mkdir(parents=True)
    return folder


def merge(folder, results, verified_at="2026-02-10T12:00:00Z"):
    merging.merge_file(folder / "LITERATURE.md", verification(results, verified_at))


ARXIV = paper(1, authors=["Paul Erdős", "Alfréd Rényi"], title="On the evolution of random graphs")
S2_ONLY = paper(
    2,
    source="semantic_scholar",
    arxiv_id=None,
    title="Spectral gaps & the $L^2$ norm of graph_Laplacians",
    authors=["Fan Chung"],
    year=1997,
    doi="10.1090/cbms/092",
)
GHOST = {"title": "A proof of the spectral gap conjecture", "arxiv_id": "2401.99999"}


def test_only_confirmed_references_are_exported(problem, script):
    merge(problem, [confirmed(ARXIV), confirmed(S2_ONLY), unconfirmed(GHOST)])
    run = script("bib_export.py", "--dir", str(problem))
    assert run.returncode == 0, run.stdout
    result = run.json()
    assert [e["ref"] for e in result["entries"]] == ["REF-001", "REF-002"]
    assert result["left_out_unconfirmed"] == ["UREF-001"]
    text = (problem / "references.bib").read_text()
    assert "spectral gap conjecture" not in text and "2401.99999" not in text
    assert text.count("@misc{") == 2


def test_a_corrected_reference_is_exported_as_the_api_gives_it(problem):
    """CORRECTED is confirmed: the paper is identified, only the citation was wrong."""
    wrong = {"key": "mine", "title": ARXIV["title"], "authors": ["P. Erdős"], "year": 1959}
    note = {"field": "year", "cited": 1959, "record": 2001, "note": "cited 1959"}
    merge(problem, [corrected(ARXIV, wrong, [note])])
    result = bibexport.export(problem)
    assert [e["ref"] for e in result["entries"]] == ["REF-001"]
    text = (problem / "references.bib").read_text()
    assert "  author = {Paul Erdős and Alfréd Rényi}," in text and "1959" not in text


def test_arxiv_and_doi_fields(problem):
    merge(problem, [confirmed({**ARXIV, "primary_category": "math.CO"}), confirmed(S2_ONLY)])
    bibexport.export(problem)
    text = (problem / "references.bib").read_text()
    erdos, chung = text.split("@misc{")[1:]
    assert erdos.startswith("erdos2001evolution,")  # ASCII key from "Erdős"; year 2000 + 1
    assert "  eprint = {2100.00001}," in erdos
    assert "  archivePrefix = {arXiv}," in erdos and "  primaryClass = {math.CO}," in erdos
    assert "  author = {Paul Erdős and Alfréd Rényi}," in erdos
    assert chung.startswith("chung1997spectral,")
    assert "  doi = {10.1090/cbms/092}," in chung and "eprint" not in chung
    assert r"  title = {{Spectral gaps \& the $L^2$ norm of graph\_Laplacians}}," in chung


def test_an_arxiv_paper_without_a_known_category_is_reported(problem):
    merge(problem, [confirmed({**ARXIV, "primary_category": None})])
    result = bibexport.export(problem)
    assert result["arxiv_without_primary_class"] == ["erdos2001evolution"]
    assert "primaryClass" not in (problem / "references.bib").read_text()


def test_keys_are_stable_across_runs_and_new_references(problem):
    twin = paper(7, authors=["Paul Erdős"], title="The evolution of random graphs II", year=2001)
    merge(problem, [confirmed(ARXIV), confirmed(S2_ONLY)])
    first = bibexport.export(problem)
    before = (problem / "references.bib").read_bytes()
    again = bibexport.export(problem)
    assert again["changed"] is False and (problem / "references.bib").read_bytes() == before
    assert [e["key"] for e in first["entries"]] == ["erdos2001evolution", "chung1997spectral"]

    merge(problem, [confirmed(twin)], verified_at="2026-03-01T09:00:00Z")
    later = bibexport.export(problem)
    assert [e["key"] for e in later["entries"]] == [
        "erdos2001evolution",
        "chung1997spectral",
        "erdos2001evolutionb",  # the newcomer gets the letter; the old key never changes
    ]


def test_a_confirmed_entry_without_a_verification_stamp_is_left_out(problem):
    merge(problem, [confirmed(ARXIV), confirmed(S2_ONLY)])
    path = problem / "LITERATURE.md"
    doc = literature.load_literature(path)
    hand_typed = next(e for e in doc.confirmed if e.entry_number == "REF-002")
    hand_typed.lines = [line for line in hand_typed.lines if "**Verified:**" not in line]
    path.write_text(doc.render())
    result = bibexport.export(problem)
    assert [e["ref"] for e in result["entries"]] == ["REF-001"]
    assert result["left_out_unverified"] == ["REF-002"]


def test_no_literature_is_bad_input(problem, script):
    run = script("bib_export.py", "--dir", str(problem))
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"]["code"] == "file_not_found"
    assert not (problem / "references.bib").exists()


def test_a_damaged_references_bib_is_replaced_and_a_folder_in_its_place_is_bad_input(
    problem, script
):
    merge(problem, [confirmed(ARXIV)])
    bib_file = problem / "references.bib"
    bib_file.write_bytes(b"% saved as Latin-1: Erd\xf6s\n")
    run = script("bib_export.py", "--dir", str(problem))
    assert run.returncode == 0, run.stdout
    assert run.json()["changed"] is True and "@" in bib_file.read_text(encoding="utf-8")
    bib_file.unlink()
    bib_file.mkdir()
    run = script("bib_export.py", "--dir", str(problem))
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "cannot_write"


EVIL = paper(
    3,
    title=r"Spectral gaps } , note = {z \input{/etc/passwd} of $\write18{rm}$ graphs",
    authors=[r"Eve \def\x{1} Mallory", "Bob } , journal = {Fake"],
    year=2020,
    doi="10.1000/evil} , note = {z",
)


def test_a_record_cannot_inject_fields_or_commands_into_references_bib(problem, script):
    """Issue 15 item 7: a title holding `} , note = {z` and `\\input{/etc/passwd}` was written
    unescaped, adding a field and a command LaTeX runs; latex.py check passed."""
    merge(problem, [confirmed(EVIL)])
    result = bibexport.export(problem)
    text = (problem / "references.bib").read_text(encoding="utf-8")
    library = bibtexfile.parse_bibtex(text)
    assert library.failed_blocks == []
    (entry,) = library.entries
    assert [f.key for f in entry.fields] == [
        "title",
        "author",
        "year",
        "eprint",
        "archivePrefix",
        "url",
    ]
    assert bibvalues.unsafe_commands(text) == []
    assert entry.fields_dict["title"].value == (
        r"{{Spectral gaps \textbraceright{} , note = \textbraceleft{}z "
        r"\textbackslash{}input{/etc/passwd} of \$\textbackslash{}write18{rm}\$ graphs}}"
    )
    assert "10.1000/evil" not in text  # an identifier that is not one is left out, not escaped
    (tex := problem / "OUTPUT.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{"
        + result["entries"][0]["key"]
        + "}\\bibliography{references}\\end{document}\n"
    )
    run = script("latex.py", "check", "--dir", str(problem))
    assert run.returncode == 0, run.stdout
    # A references.bib edited by hand to run a command fails the check.
    with open(problem / "references.bib", "a", encoding="utf-8") as handle:
        handle.write("@misc{x, note = {\\input{/etc/passwd}}}\n")
    run = script("latex.py", "check", "--dir", str(problem))
    assert run.returncode == 1 and tex.exists()
    assert [v["kind"] for v in run.json()["violations"]] == ["unsafe_bib"]
    assert run.json()["violations"][0]["command"] == "\\input"


HAND_ADDED = """
% my own additions
@string{jams = {J. Amer. Math. Soc.}}
@article{wiles1995modular,
  title = {Modular elliptic curves and {F}ermat's {L}ast {T}heorem},
  author = {Wiles, Andrew},
  journal = jams,
  year = 1995,
}
"""


def test_entries_added_by_hand_are_kept(problem, script):
    """Issue 15 item 8: bib_export.py dropped entries the user added to references.bib and
    reported only "changed": true."""
    merge(problem, [confirmed(ARXIV)])
    bibexport.export(problem)
    path = problem / "references.bib"
    path.write_text(path.read_text(encoding="utf-8") + HAND_ADDED, encoding="utf-8")

    merge(problem, [confirmed(S2_ONLY)], verified_at="2026-03-01T09:00:00Z")
    run = script("bib_export.py", "--dir", str(problem))
    assert run.returncode == 0, run.stdout
    assert run.json()["kept_by_hand"] == ["wiles1995modular"]
    text = path.read_text(encoding="utf-8")
    assert HAND_ADDED.strip() in text
    assert [e.key for e in bibtexfile.parse_bibtex(text).entries] == [
        "erdos2001evolution",
        "chung1997spectral",
        "wiles1995modular",
    ]
    again = bibexport.export(problem)  # the kept section is read back as hand-added, and only once
    assert again["changed"] is False and again["kept_by_hand"] == ["wiles1995modular"]


def test_a_hand_added_entry_that_cannot_be_kept_is_refused_naming_it(problem, script):
    merge(problem, [confirmed(ARXIV)])
    bibexport.export(problem)
    path = problem / "references.bib"
    clash = path.read_text(encoding="utf-8") + "\n@misc{chung1997spectral, title = {Mine}}\n"
    path.write_text(clash, encoding="utf-8")
    merge(problem, [confirmed(S2_ONLY)], verified_at="2026-03-01T09:00:00Z")
    run = script("bib_export.py", "--dir", str(problem))
    assert run.returncode == 2
    assert run.json()["error"]["code"] == "hand_added_key_clash"
    assert "chung1997spectral (REF-002)" in run.json()["error"]["message"]
    assert path.read_text(encoding="utf-8") == clash

    broken = clash.replace("@misc{chung1997spectral, title = {Mine}}", "@misc{mine, title = {x")
    path.write_text(broken, encoding="utf-8")
    run = script("bib_export.py", "--dir", str(problem))
    assert run.returncode == 2 and run.json()["error"]["code"] == "bad_bib"
    line = broken[: broken.index("@misc{mine")].count("\n") + 1
    assert f"line {line} cannot be parsed" in run.json()["error"]["message"]
    assert path.read_text(encoding="utf-8") == broken
