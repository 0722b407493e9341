"""Real bibliographies written by mathematicians (../shared/bibliographies beside the clone, see
its README.md; never copied here): check_refs.py reads every one with the entry count BibTeX,
biber or amsrefs reads, and the fields of a hand-checked sample of entries as their authors
wrote them. The tests skip, naming the folder, when it is missing."""

from __future__ import annotations

import re

import pytest
from mathtools.gate import refcheck
from support.corpus_search import CORPUS_DIR

FOLDER = CORPUS_DIR.parent / "bibliographies"
# file -> entries (the README's table: pybtex for a .bib, every \bibitem, \entry or \bib else)
COUNTS = {
    "hott-book_references.bib": 132,
    "napkin_references.bib": 32,
    "openlogic_open-logic.bib": 141,
    "carleson_blueprint_bibliography.bib": 82,
    "equational_paper_references.bib": 80,
    "martelli_christodoulou-yau_biblio.bib": 3,
    "pnt_blueprint_references.bib": 74,
    "expdb_blueprint_references.bib": 432,
    "vendramin-group_refs.bib": 17,
    "vendramin-associative_refs.bib": 46,
    "flt-regular_print.bbl": 4,
    "martelli_christodoulou-yau_main.bbl": 3,
    "bauer-realizability_realizability.bib": 345,
    "bauer-realizability_cca.bib": 671,
    "grinberg-schur-mlq_queue.bib": 78,
    "clement-postnikov_biblio.tex": 62,
    "dionne-pde_bibliography.tex": 39,
    "fischer-lie-algebroid_PaperSubmit.bbl": 12,
    "vialette-pattern-matching_article.bbl": 16,
    "vialette-pattern-matching_bibli.bib": 31,
    "rijke-hott-intro_bibliography.bib": 55,
    "roe-bibliography_Biblio.bib": 282,
    "roe-motivic-tori_references.ltb": 470,
    "roe-motivic-tori/tori.tex": 282,
}


def path_of(name: str):
    if not (FOLDER / "README.md").is_file():
        pytest.skip(
            f"the shared bibliographies are missing: {FOLDER} (the shared folder beside the "
            "clone, ../shared/bibliographies, see its README.md)"
        )
    return FOLDER / name


def test_the_counts_are_the_readmes():
    readme = path_of("README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\S+) \| [\w+-]+ \| (\d+)\b", readme, re.M)
    assert {name: int(count) for name, count in rows} == COUNTS


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_every_entry_is_read(name):
    found = refcheck.load([str(path_of(name))])
    assert len(found.references) == COUNTS[name]
    assert [f["entries"] for f in found.files] == [COUNTS[name]]
    assert all(reference.key for reference in found.references)


def cited(name: str) -> dict[str, dict]:
    found = refcheck.load([str(path_of(name))])
    return {reference.key: reference.plain() for reference in found.references}


def test_a_repeated_field_is_read_as_bibtex_reads_it_with_a_warning():
    found = refcheck.load([str(path_of("bauer-realizability_realizability.bib"))])
    assert found.warnings == [
        "bauer-realizability_realizability.bib line 1101: HowardW:apphmf gives the field "
        "reviews twice; the first is used, as BibTeX does"
    ]


# Hand-checked against the files: each entry's fields as a reader of the PDF would give them.
SAMPLE = {
    "dionne-pde_bibliography.tex": {
        "Ab": {
            "title": "Manifolds, Tensor Analysis, and Applications",
            "authors": ["R. Abraham", "J.E. Marsden", "T. Ratiu"],
            "year": 1983,
        },
        "Br": {
            "title": "Analyse fonctionnelle: Theorie et applications",
            "authors": ["H. Brezis"],
            "year": 1983,
        },
    },
    "clement-postnikov_biblio.tex": {
        "AAMY01": {
            "title": "The mod $2$ Bockstein spectral sequence for the special linear group over "
            "the integers",
            "authors": ["D. Arlettaz", "C. Ausoni", "M. Mimura", "N. Yagita"],
            "year": 2001,
            "volume": "131",
            "pages": "445-457",
        },
        "Ad60": {
            "title": "On the non-existence of elements of Hopf invariant one",
            "authors": ["J. F. Adams"],
            "year": 1960,
            "volume": "72",
            "pages": "20-103",
        },
    },
    "martelli_christodoulou-yau_main.bbl": {
        "HuiskenYau_CenterMass": {
            "title": "Definition of center of mass for isolated physical systems and unique "
            "foliations by stable spheres with constant mean curvature",
            "authors": ["Huisken, Gerhard", "Yau, Shing-Tung"],
            "year": 1996,
            "doi": "10.1007/s002220050054",
            "venue": "Inventiones mathematicae",
            "volume": "124",
            "pages": "281-311",
        },
    },
    "roe-motivic-tori_references.ltb": {
        "adler-roche:intertwining": {
            "title": "An intertwining result for $p$-adic groups",
            "authors": ["Adler, Jeffrey D.", "Roche, Alan"],
            "year": 2000,
            "venue": "Canad. J. Math.",
            "volume": "52",
            "pages": "449-467",
        },
    },
    "roe-bibliography_Biblio.bib": {
        "colmez:10a": {
            "title": "Representations de $\\GL_2(\\Qp)$ et $(\\phi, \\Gamma)$-modules",
            "authors": ["Pierre Colmez"],
            "year": 2010,
            "venue": "Asterisque",
            "volume": "330",
            "pages": "281-509",
        },
    },
    "hott-book_references.bib": {
        "Angiuli13": {
            "title": "The $(\\infty,1)$-accidentopos model of unintentional type theory",
            "authors": ["Carlo Angiuli"],
            "year": 2013,
            "venue": "Sigbovik '13",
        },
    },
    "flt-regular_print.bbl": {
        "washington": {
            "title": "Introduction to cyclotomic fields",
            "authors": ["Lawrence C. Washington"],
            "year": 1982,
            "venue": "Graduate Texts in Mathematics",
            "volume": "83",
        },
    },
}


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_hand_checked_fields(name):
    found = cited(name)
    for key, fields in SAMPLE[name].items():
        assert {k: found[key].get(k) for k in fields} == fields, key
