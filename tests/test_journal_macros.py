"""Journal macros in a thebibliography (papers/journalmacros.py): `\\input mrabbrev` then
`\\ANNMAone\\ 72 (1960)`. Read with their definitions when the source holds them, else shown as
the unexpanded macro (never compared), not left as an empty venue."""

from __future__ import annotations

import re
import shutil

import pytest
from mathtools.bibliography.bibitems import read_bibitems
from mathtools.core import schemas
from mathtools.papers import paperbibliography, paperinput, texsource
from mathtools.papers.journalmacros import definitions, expand_venues
from mathtools.services.latex_source import LatexSourceClient
from support import arxiv_src, shared

CLEMENT = "clement-postnikov_biblio.tex"  # \input mrabbrev; mrabbrev.tex is not beside it
# SYNTHESIZED: three definitions as the AMS file writes them (MR's serial abbreviations)
MRABBREV = r"""%% a few lines of the AMS journal abbreviations
\def\ANNMAone{Ann. of Math.}
\def\AMEJM{Amer. J. Math.}
\def\COMMH{Comment. Math. Helv.}
"""


def macro_items(text: str) -> dict[str, str]:
    """Each \\bibitem of `text` that names its journal by a macro: key -> the macro, read off
    the file (a capitalised control word followed by a control space and the volume)."""
    items = re.split(r"\\bibitem\{", text)[1:]
    found = {}
    for item in items:
        macro = re.search(r"(\\[A-Z]{4,}[a-z]*)\\ \d", item)
        if macro:
            found[item.split("}", 1)[0]] = macro.group(1)
    return found


@pytest.mark.needs_shared("bibliographies")
def test_a_venue_given_by_an_undefined_journal_macro_is_shown_unexpanded():
    path = shared.path("bibliographies", CLEMENT)
    expected = macro_items(path.read_text(encoding="utf-8"))
    assert len(expected) == 42
    paper = paperinput.read_paper_input([str(path)])
    assert {u["key"]: u["venue"] for u in paper.unexpanded} == expected
    assert {tuple(u["missing_inputs"]) for u in paper.unexpanded} == {("mrabbrev",)}
    by_key = {r.key: r for r in paper.bibliography.references}
    assert not any("journal" in by_key[key].fields for key in expected)  # never compared


@pytest.mark.needs_shared("bibliographies")
def test_journal_macros_are_expanded_from_the_definitions_the_source_holds(tmp_path):
    tex = tmp_path / "biblio.tex"
    shutil.copy(shared.path("bibliographies", CLEMENT), tex)
    (tmp_path / "mrabbrev.tex").write_text(MRABBREV, encoding="utf-8")
    paper = paperinput.read_paper_input([str(tex)])
    by_key = {r.key: r for r in paper.bibliography.references}
    assert by_key["Ad60"].fields["journal"] == "Ann. of Math"  # a final stop is dropped
    assert (by_key["Ad60"].fields["volume"], by_key["Ad60"].fields["pages"]) == ("72", "20-103")
    assert by_key["Bo54"].fields["journal"] == "Amer. J. Math"
    assert by_key["BS53"].fields["journal"] == "Comment. Math. Helv"
    expected = macro_items(tex.read_text(encoding="utf-8"))
    defined = {"\\ANNMAone", "\\AMEJM", "\\COMMH"}
    left = {key: macro for key, macro in expected.items() if macro not in defined}
    assert {u["key"]: u["venue"] for u in paper.unexpanded} == left
    assert {tuple(u["missing_inputs"]) for u in paper.unexpanded} == {()}


def test_the_table_shows_an_unexpanded_venue_and_counts_them(script, standin, tmp_path):
    """SYNTHESIZED: a thebibliography whose journals are macros of a file it does not ship, and
    one defined in the .tex itself."""
    tex = tmp_path / "paper.tex"
    tex.write_text(
        "\\input mrabbrev\n\\def\\jams{J. Amer. Math. Soc.}\n\\begin{thebibliography}{9}\n"
        "\\bibitem{a}{\\sc A. Author}, \\textit{A title nobody wrote}, \\ANNMAone\\ 72 (1960),"
        " 20-103.\n"
        "\\bibitem{b}{\\sc B. Author}, \\textit{Another title nobody wrote}, \\jams\\ 3 (1990),"
        " 1-10.\n\\end{thebibliography}\n",
        encoding="utf-8",
    )
    run = script("check_refs.py", str(tex), "--json")
    assert run.returncode == 0, run.stderr
    document = run.json()
    assert schemas.schema_errors("check_refs", document) == []
    assert [(u["key"], u["venue"]) for u in document["unexpanded_venues"]] == [("a", "\\ANNMAone")]
    cited = {e["key"]: e["cited"] for e in document["entries"]}
    assert cited["b"]["venue"] == "J. Amer. Math. Soc"  # the final stop dropped, as for any venue
    assert "venue" not in cited["a"]
    table = script("check_refs.py", str(tex)).stdout
    assert "venue: \\ANNMAone (a journal macro, unexpanded: not compared)" in table
    assert "journal macros: 1 entry names their journal by a macro" in table
    assert "mrabbrev (input by the paper) is not there" in table
    report = tmp_path / "check.md"
    assert script("check_refs.py", str(tex), "--report", str(report)).returncode == 0
    assert "## Venues left as journal macros" in report.read_text(encoding="utf-8")
    assert "- `a` \\ANNMAone" in report.read_text(encoding="utf-8")


def test_an_arxiv_sources_own_file_of_journal_macros_is_read():
    """SYNTHESIZED: an archive whose main file inputs the macros file it ships, read as an arXiv
    source is (texsource.build splices the input, whose \\def lines are then read)."""
    members = {
        "main.tex": b"\\documentclass{amsart}\n\\input mrabbrev\n\\begin{document}\nText.\n"
        b"\\begin{thebibliography}{9}\n\\bibitem{a}{\\sc A. Author}, \\textit{A title nobody"
        b" wrote}, \\ANNMAone\\ 72 (1960), 20-103.\n\\end{thebibliography}\n\\end{document}\n",
        "mrabbrev.tex": MRABBREV.encode(),
    }
    document = texsource.build(members)
    references = read_bibitems("arXiv:0000.00000/main.tex", document.text)
    assert "journal" not in references[0].fields  # as read before: the venue vanished
    assert expand_venues(references, definitions(document), []) == []
    assert references[0].fields["journal"] == "Ann. of Math"


@pytest.mark.parametrize("arxiv_id", arxiv_src.PAPERS)
def test_the_shared_papers_bibliographies_are_unchanged(arxiv_id, standin):
    """None of the five real sources names its journals by macros: nothing is read again."""
    paper = paperbibliography.read_arxiv_paper(arxiv_id, None, LatexSourceClient(use_cache=False))
    before = [dict(r.fields) for r in paper.bibliography.references]
    macros = definitions(paper.document)
    assert expand_venues(paper.bibliography.references, macros, []) == []
    assert [r.fields for r in paper.bibliography.references] == before
