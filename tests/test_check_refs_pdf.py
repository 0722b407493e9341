"""A referee's PDF: its reference list split into entries whatever .bst printed it, and each entry,
a free-text citation, checked for its authors and year as a structured one is.

The PDFs are compiled here from a .bib and a .tex this file writes (pdflatex and bibtex, then
pdftotext reads them: the tests skip, saying which tool is missing, where TeX or poppler-utils is
not installed; CI has both). The .bib's ten entries are real papers (the shared arXiv sources and
what they cite), written for this test.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from mathtools.core import schemas
from mathtools.papers.pdfreferences import read_pdf_references, split_references
from support.verified import verify_batch

BIB = r"""@article{AK22,
  author = {Abbondandolo, Alberto and Kang, Jungsoo},
  title = {Symplectic homology of convex domains and {C}larke's duality},
  journal = {Duke Math. J.}, year = {2022}, volume = {171}, pages = {739--830},
}
@article{Iri12,
  author = {Irie, Kei},
  title = {Symplectic capacity and short periodic billiard trajectory},
  journal = {Math. Z.}, volume = {272}, year = {2012}, pages = {1291--1320},
}
@article{HKO24,
  author = {Haim-Kislev, Pazit and Ostrover, Yaron and Hutchings, Michael and Nelson, Jo and
    Irie, Kei},
  title = {A counterexample to {V}iterbo's conjecture},
  journal = {Ann. of Math.}, year = {2024},
}
@article{BB09,
  author = {Bezdek, Daniel and Bezdek, Karoly},
  title = {Shortest billiard trajectories},
  journal = {Geom. Dedicata}, volume = {141}, year = {2009}, pages = {197--206},
}
@article{CH21,
  author = {Chaidez, Julian and Hutchings, Michael},
  title = {Computing {R}eeb dynamics on four-dimensional convex polytopes},
  journal = {J. Comput. Dyn.}, volume = {8}, year = {2021}, pages = {403--445},
}
@article{KR22,
  author = {Krupp, Stefan and Rudolf, Daniel},
  title = {The {M}inkowski billiard characterization of the {EHZ}-capacity of convex
    {L}agrangian products},
  journal = {J. Dyn. Differ. Equ.}, year = {2022},
}
@book{MS17,
  author = {McDuff, Dusa and Salamon, Dietmar},
  title = {Introduction to symplectic topology},
  publisher = {Oxford University Press}, edition = {Third}, year = {2017},
}
@article{Vit00,
  author = {Viterbo, Claude},
  title = {Metric and isoperimetric problems in symplectic geometry},
  journal = {J. Amer. Math. Soc.}, volume = {13}, year = {2000}, pages = {411--431},
}
@article{AKO14,
  author = {Artstein-Avidan, Shiri and Karasev, Roman and Ostrover, Yaron},
  title = {From symplectic measurements to the {M}ahler conjecture},
  journal = {Duke Math. J.}, volume = {163}, year = {2014}, pages = {2003--2022},
}
@incollection{EH89,
  author = {Ekeland, Ivar and Hofer, Helmut},
  title = {Symplectic topology and {H}amiltonian dynamics},
  booktitle = {Math. Z.}, year = {1989}, pages = {355--378},
}
"""
TITLES = [
    "Symplectic homology of convex domains and Clarke’s duality",
    "Symplectic capacity and short periodic billiard trajectory",
    "A counterexample to Viterbo’s conjecture",
    "Shortest billiard trajectories",
    "Computing Reeb dynamics on four",  # hyphenated at a line's end in some styles
    "The Minkowski billiard characterization of the EHZ-capacity",
    "Introduction to symplectic topology",
    "Metric and isoperimetric problems in symplectic geometry",
    "From symplectic measurements to the Mahler conjecture",
    "Symplectic topology and Hamiltonian dynamics",
]
# What each style prints: the labels (in the list's order) and how sure the split is.
ALPHA_LABELS = ["AAKO14", "AK22", "BB09", "CH21", "EH89", "HKOH+24", "Iri12", "KR22", "MS17"]
ALPHA_LABELS.append("Vit00")
NUMBERS = [str(n) for n in range(1, 11)]
STYLES = {
    "amsalpha": (ALPHA_LABELS, "labels"),
    "alpha": (ALPHA_LABELS, "labels"),
    "plain": (NUMBERS, "labels"),
    "abbrv": (NUMBERS, "labels"),
    "amsplain": (NUMBERS, "labels"),
    "plainnat": (NUMBERS, "indents"),  # author-year: no labels in the list
}


def needs(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            what = "pdftotext (poppler-utils)" if tool == "pdftotext" else f"TeX ({tool})"
            pytest.skip(f"needs {what} to compile and read a PDF here; not installed")


def compiled(folder: Path, name: str, tex: str, bib: str | None = None) -> Path:
    """The PDF pdflatex (and bibtex, given a .bib) make of `tex`, written to `folder`."""
    needs("pdflatex", "pdftotext", *(["bibtex"] if bib else []))
    (folder / f"{name}.tex").write_text(tex, encoding="utf-8")
    if bib:
        (folder / "refs.bib").write_text(bib, encoding="utf-8")
    latex = ["pdflatex", "-interaction=nonstopmode", name]
    steps = [latex, ["bibtex", name], latex, latex] if bib else [latex, latex]
    for step in steps:
        subprocess.run(step, cwd=folder, capture_output=True, timeout=300, check=False)
    pdf = folder / f"{name}.pdf"
    if not pdf.is_file():
        pytest.skip(f"pdflatex could not compile {name}.tex here (a package is missing)")
    return pdf


def bst_paper(style: str) -> str:
    natbib = "\\usepackage{natbib}\n" if style.endswith("nat") else ""
    return (
        f"\\documentclass{{amsart}}\n{natbib}\\begin{{document}}\n\\title{{A test}}\\maketitle\n"
        f"We cite them all.\\nocite{{*}}\n\\bibliographystyle{{{style}}}\n\\bibliography{{refs}}\n"
        "\\end{document}\n"
    )


@pytest.mark.parametrize("style", list(STYLES))
def test_every_common_bst_style_is_read_entry_by_entry(style, tmp_path):
    labels, split = STYLES[style]
    found = read_pdf_references(compiled(tmp_path, style, bst_paper(style), BIB))
    assert [entry.key for entry in found.references] == labels
    assert found.split == split
    texts = [entry.fields["text"] for entry in found.references]
    for title in TITLES:  # each title in exactly one entry: none lost, none merged
        assert sum(title.lower() in text.lower() for text in texts) == 1, (title, texts)
    # the leading names are read as the authors, the serial comma's "and" included
    authors = {e.fields.get("title"): e.fields.get("author") for e in found.references}
    three = authors["From symplectic measurements to the Mahler conjecture"] or ""
    assert three.count(" and ") == 2 and "Ostrover" in three.split(" and ")[2]


# amsalpha's labels written by hand, as in the issue's paper: the "+" of [HKO$^+$24] a
# superscript, [Iri15] and [AK19] each alone on its line when the label is wider than the indent
HANDWRITTEN = r"""\documentclass{amsart}
\begin{document}
\title{A test}\maketitle
We cite \cite{AK19,Iri15,HKO24,BB09}.
\begin{thebibliography}{HKO$^+$24}
\bibitem[AK19]{AK19} Alberto Abbondandolo and Jungsoo Kang, \emph{Symplectic homology of convex
domains and {C}larke's duality}, preprint, 2019.
\bibitem[BB09]{BB09} Daniel Bezdek and Karoly Bezdek, \emph{Shortest billiard trajectories},
Geom. Dedicata \textbf{141} (2009), 197--206.
\bibitem[HKO$^+$24]{HKO24} Pazit Haim-Kislev, Yaron Ostrover, Michael Hutchings, Jo Nelson, and
Kei Irie, \emph{A counterexample to {V}iterbo's conjecture}, Ann. of Math. (2024).
\bibitem[Iri15]{Iri15} Kei Irie, \emph{Symplectic capacity and short periodic billiard
trajectory}, Math. Z. \textbf{272} (2012), 1291--1320.
\end{thebibliography}
\end{document}
"""


def test_an_amsalpha_pdf_reads_every_entry_and_says_the_split_is_sure(script, standin, tmp_path):
    pdf = compiled(tmp_path, "paper", HANDWRITTEN)
    run = script("check_refs.py", str(pdf), "--json")
    assert run.returncode == 0, run.stderr
    document = run.json()
    assert schemas.schema_errors("check_refs", document) == []
    assert document["pdf"] == {"file": str(pdf), "split": "labels", "entries": 4}
    assert [e["key"] for e in document["entries"]] == ["AK19", "BB09", "HKO+24", "Iri15"]
    cited = {e["key"]: e["cited"]["citation"] for e in document["entries"]}
    assert cited["Iri15"].startswith("Kei Irie, Symplectic capacity and short periodic")
    assert cited["HKO+24"].startswith("Pazit Haim-Kislev, Yaron Ostrover, Michael Hutchings")
    table = script("check_refs.py", str(pdf)).stdout
    assert "from a PDF: 4 entries of paper.pdf" in table and "split by labels: sure" in table


def test_a_label_run_into_the_line_before_is_its_own_entry():
    """pdftotext's text of an alpha-labelled list (SYNTHESIZED: two entries on one line, as a
    two-column page may give them): the run-in [Iri15] opens its own entry, and the split is sure
    because the entries are as many as the labels found."""
    text = (
        "References\n[AK19]\nA. Abbondandolo and J. Kang, Symplectic homology of convex domains,\n"
        "preprint, 2019. [Iri15] K. Irie, Symplectic capacity and short periodic billiard\n"
        "trajectory, Math. Z. 272 (2012).\n[Vit00] C. Viterbo, Metric and isoperimetric problems\n"
        "in symplectic geometry, J. Amer. Math. Soc. 13 (2000).\n"
    )
    found = split_references(text, Path("paper.pdf"))
    assert [e.key for e in found.references] == ["AK19", "Iri15", "Vit00"]
    assert found.references[1].fields["author"] == "K. Irie"
    assert found.split == "labels"


def test_numbers_that_skip_make_the_split_unsure():
    """SYNTHESIZED: entry [2]'s label was lost, so [1] holds two entries: numbers 1, 3 are not
    1, 2, and the split says it is unsure."""
    text = (
        "References\n[1] A. One, A first title, J. Math. 1 (2001). B. Two, A second title, J.\n"
        "Math. 2 (2002).\n[3] C. Three, A third title, J. Math. 3 (2003).\n"
    )
    found = split_references(text, Path("paper.pdf"))
    assert [e.key for e in found.references] == ["1", "3"]
    assert found.split == "unsure labels"


TURING_HOPF = (
    "Formulation of the normal form of Turing-Hopf bifurcation in partial functional "
    "differential equations"
)
JDE = "J. Differential Equations 268 (2020), 6067-6102."


def test_free_text_authors_and_years_are_checked_like_structured_ones(script, standin):
    """Jiang, An and Shi's paper (a recorded Semantic Scholar record) cited as a reference list
    prints it: a dropped, an added or a misspelt author, or a year one off, is CORRECTED with
    the field that differs, as the same mistake in a .bib entry is; through an arXiv id too."""
    right = f"W. Jiang, Q. An and J. Shi, {TURING_HOPF}, {JDE}"
    cases = {
        "right": (right, 2020),
        "et_al": (f"W. Jiang, Q. An, et al., {TURING_HOPF}, {JDE}", 2020),
        "dropped": (f"W. Jiang and J. Shi, {TURING_HOPF}, {JDE}", 2020),
        "added": (f"W. Jiang, Q. An, J. Shi and J. Smith, {TURING_HOPF}, {JDE}", 2020),
        "misspelt": (f"W. Jiang, Q. An and J. Shy, {TURING_HOPF}, {JDE}", 2020),
        "year": (right.replace("(2020)", "(2019)"), 2019),
        "by_id": (
            "T. Windisch, Heat-bath random walks with Markov bases, arXiv:1605.08386 (2016)",
            2016,
        ),
    }
    batch = [{"key": key, "citation": text, "year": year} for key, (text, year) in cases.items()]
    batch[-1]["arxiv_id"] = "1605.08386"  # as a PDF entry gives the id its text holds
    _, results = verify_batch(script, batch)
    for fine in ("right", "et_al"):  # "et al." cuts the list short: no author missing
        assert results[fine]["status"] == "CONFIRMED", results[fine]["reason"]
    notes = {
        key: [d["note"] for d in result.get("discrepancies", [])]
        for key, result in results.items()
        if key not in ("right", "et_al")
    }
    assert {key: results[key]["status"] for key in notes} == dict.fromkeys(notes, "CORRECTED")
    assert notes == {
        "dropped": ["incomplete author list: 2 of 3 cited, without 'et al.'"],
        "added": ["J. Smith is not an author"],
        "misspelt": ["J. Shy is not an author"],
        "year": ["cited 2019, the record says 2020"],
        "by_id": ["incomplete author list: 1 of 2 cited, without 'et al.'"],
    }
