"""Real bibliographies written by mathematicians (../shared/bibliographies beside the clone, see
its README.md; never copied here): check_refs.py reads every one with the entry count BibTeX,
biber or amsrefs reads, and the fields of a hand-checked sample of entries as their authors
wrote them. The tests skip when it is missing, counted in the run's summary line (needs_shared)."""

from __future__ import annotations

import re

import pytest
from mathtools.bibliography import formats, loading
from mathtools.gate import refcheck
from support import shared

pytestmark = pytest.mark.needs_shared("bibliographies")
FOLDER = shared.path("bibliographies")
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


def test_the_counts_are_the_readmes():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\S+) \| [\w+-]+ \| (\d+)\b", readme, re.M)
    assert {name: int(count) for name, count in rows} == COUNTS


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_every_entry_is_read(name):
    found = loading.load_bibliography([str(FOLDER / name)])
    assert len(found.references) == COUNTS[name]
    assert [f["entries"] for f in found.files] == [COUNTS[name]]
    assert all(reference.key for reference in found.references)


# The README's kind of a file -> the registered format (bibliography/formats.py) that reads it.
FORMAT_OF_KIND = {
    "bib": "BibTeX",
    "bibitem": "thebibliography",
    "biblatex-bbl": "biblatex .bbl",
    "amsrefs": "amsrefs",
}


def _files_by_format() -> dict[str, list[str]]:
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    found: dict[str, list[str]] = {}
    for name, kind in re.findall(r"^\| (\S+) \| ([\w+-]+) \| \d+\b", readme, re.M):
        if kind in FORMAT_OF_KIND:
            found.setdefault(FORMAT_OF_KIND[kind], []).append(name)
    return found


def test_every_registered_format_reads_real_files_of_its_kind():
    """Each row of the registry recognises and reads every real file of its kind, with the
    README's count, and no other row claiming the file's suffix reads an entry of it."""
    files = _files_by_format()
    assert sorted(files) == sorted(row.name for row in formats.FORMATS)  # a row without a file
    for row in formats.FORMATS:
        for name in files[row.name]:
            path = FOLDER / name
            text = path.read_text(encoding="utf-8-sig")
            assert row in formats.formats_of(path), name
            assert row.entry.search(text), name
            assert len(row.read(path, text).references) == COUNTS[name], name
            others = [other for other in formats.formats_of(path) if other is not row]
            assert not [other.name for other in others if other.entry.search(text)], name
            assert len(formats.read_entries(path).references) == COUNTS[name], name


def cited(name: str) -> dict[str, dict]:
    found = loading.load_bibliography([str(FOLDER / name)])
    return {reference.key: reference.plain() for reference in found.references}


def test_a_repeated_field_is_read_as_bibtex_reads_it_with_a_warning():
    found = loading.load_bibliography([str(FOLDER / "bauer-realizability_realizability.bib")])
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
    "vialette-pattern-matching_article.bbl": {
        "Albert:Aldred:Atkinson:Holton:ISAAC:2001": {
            "title": "Algorithms for pattern involvement in permutations",
            "authors": ["M.H. Albert", "R.E.L. Aldred", "M.D. Atkinson", "D.A. Holton"],
            "year": 2001,
            "volume": "2223",
            "pages": "355-366",
        },
        "Bespamyatnikh00enumeratinglongest": {
            "title": "Enumerating longest increasing subsequences and patience sorting",
            "authors": ["Sergei Bespamyatnikh", "Michael Segal"],
            "year": 2000,
        },
        "Ahal:Rabinovich:2008": {
            "title": "On complexity of the subpattern problem",
            "authors": ["S. Ahal", "Y. Rabinovich"],
            "year": 2008,
            "venue": "SIAM Journal on Discrete Mathematics",
            "volume": "22",
            "pages": "629-649",
        },
    },
    "fischer-lie-algebroid_PaperSubmit.bbl": {
        "ELeviCivita": {
            "title": "Riemannian geometry of Lie algebroids",
            "authors": ["Mohamed Boucetta"],
            "year": 2011,
            "venue": "Journal of the Egyptian Mathematical Society",
            "volume": "19",
            "pages": "57-70",
        },
    },
    "bauer-realizability_realizability.bib": {
        "AczelP:intiho": {
            "title": "A note on interpreting intuitionistic higher-order logic",
            "authors": ["Aczel, P.H.G."],
            "year": 1980,
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


BIBS = sorted(name for name in COUNTS if name.endswith(".bib"))


@pytest.mark.parametrize("name", BIBS)
def test_fix_changes_only_the_corrected_values_and_the_marks(name):
    import difflib

    import pybtex.database
    import pybtex.errors
    from mathtools.bibliography import bibcopy, bibtexfile

    bib = formats.read_entries(FOLDER / name).bib
    original = bib.text
    edited = bib.references[:: max(len(bib.references) // 6, 1)][:6]
    updates: dict[str, dict[str, str | None]] = {}
    for number, reference in enumerate(edited):
        if number % 2:  # UNCONFIRMED: our field; the user's own note kept as written
            updates[reference.key] = refcheck.unconfirmed_mark(
                "no paper with this title", reference
            )
        else:  # CORRECTED: the record's title and year
            updates[reference.key] = refcheck._bib_field("title", "A Corrected Title", reference)
            updates[reference.key] |= refcheck._bib_field("year", 1999, reference)
    text = bibcopy.corrected_copy(bib, updates, refcheck.fix_header(bib, updates))

    # BibTeX itself still reads every entry, with the new values.
    pybtex.errors.set_strict_mode(False)  # a repeated key: BibTeX warns, as pybtex then does
    data = pybtex.database.parse_string(text, "bibtex")
    assert len(data.entries) == len(pybtex.database.parse_string(original, "bibtex").entries)
    reread = {r.key: r for r in bibtexfile.read_bib_text(text, bib.path).references}
    for number, reference in enumerate(edited):
        fields = reread[reference.key].fields
        if number % 2:
            assert fields["checkrefs"] == "UNCONFIRMED: no paper with this title"
            assert fields.get("note") == reference.fields.get("note")
        else:
            assert (fields["title"], fields["year"]) == ("{A Corrected Title}", "1999")
    # Line ends as they were: a CRLF file stays CRLF throughout.
    if "\r\n" in original:
        assert text.count("\n") == text.count("\r\n")
    else:
        assert "\r" not in text.replace("\r", "") and "\r\n" not in text
    # The diff: the header line, the corrected values and our mark lines, nothing else.
    old, new = original.splitlines(keepends=True), text.splitlines(keepends=True)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        if tag == "equal":
            continue
        for line in new[j1:j2]:
            assert (
                line.startswith(refcheck.FIX_MARK)
                or "A Corrected Title" in line
                or "1999" in line
                or "UNCONFIRMED: " in line
            ), (name, line)
        for line in old[i1:i2]:  # a value replaced: its lines (a title may span several)
            assert any(
                line.strip().rstrip(",") in (reference.raw.get(field) or "")
                or field in line.lower()
                for reference in edited
                for field in ("title", "year")
            ), (name, line)
    assert not any(str(FOLDER) in line for line in new)  # no absolute path in the user's file


@pytest.mark.parametrize(
    ("name", "kind"),
    [("martelli_christodoulou-yau_main.bbl", "bbl"), ("flt-regular_print.bbl", "bbl")],
)
def test_check_refs_checks_a_real_bbl_end_to_end(script, standin, name, kind):
    path = FOLDER / name
    run = script("check_refs.py", str(path), "--json")
    assert run.returncode == 0, run.stdout
    document = run.json()
    assert document["inputs"] == [{"file": str(path), "kind": kind, "entries": COUNTS[name]}]
    assert f"check_refs: read {COUNTS[name]} entries from {name}\n" in run.stderr
    assert len(document["entries"]) == COUNTS[name]


def test_a_doi_written_with_an_escaped_underscore_is_looked_up_without_the_backslash():
    for name in ("vendramin-group_refs.bib", "equational_paper_references.bib"):
        found = loading.load_bibliography([str(FOLDER / name)])
        escaped = [r for r in found.references if "\\_" in r.fields.get("doi", "")]
        assert escaped, name
        assert all("\\" not in r.candidate()["doi"] for r in escaped)
    group = cited("vendramin-group_refs.bib")
    assert "10.1007/978-3-642-39634-2_14" in {entry.get("doi") for entry in group.values()}


def test_a_bibitems_year_is_its_own_not_a_conferences_or_a_stray_lines():
    entries = cited("clement-postnikov_biblio.tex")
    # "Proc. Internat. Sympos. Algebraic Topology (Mexico, 1956), ..., Mexico City, 1958."
    assert entries["Mo56"]["year"] == 1958
    # "Annals of Math. Studies 50, Princeton Univ. Press, 1962." then a stray "1986, pp. 34--56."
    assert entries["SE62"]["year"] == 1962


def test_corrected_authors_are_written_as_the_file_writes_names():
    # carleson's MathSciNet export writes "Mac\'ias, Roberto A. and Segovia, Carlos"
    found = loading.load_bibliography([str(FOLDER / "carleson_blueprint_bibliography.bib")])
    reference = next(r for r in found.references if "Segovia" in r.fields.get("author", ""))
    record = ["Roberto A. Macías", "Carlos Segovia", "Ludwig van Beethoven"]
    written = refcheck._bib_field("authors", record, reference)
    assert written == {
        "author": "{Macías, Roberto A. and Segovia, Carlos and van Beethoven, Ludwig}"
    }
    # a file writing "Given Family" keeps the record's names as they are
    napkin = loading.load_bibliography([str(FOLDER / "napkin_references.bib")]).references
    given_first = next(
        r for r in napkin if r.fields.get("author") and "," not in r.fields["author"]
    )
    assert refcheck._bib_field("authors", record, given_first) == {
        "author": "{Roberto A. Macías and Carlos Segovia and Ludwig van Beethoven}"
    }
