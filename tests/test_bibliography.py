"""The bibliography wing (mathtools.bibliography): values written into BibTeX cannot break the
file or run LaTeX, and bibliographies are read as people write them."""

from __future__ import annotations

import json
import re

import pytest
from conftest import PLUGIN, ROOT, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from mathtools.bibliography import bibcopy, bibentry, bibitems, bibtexfile, formats, loading
from mathtools.bibliography.bibvalues import (
    bibtex_identifier,
    bibtex_names,
    bibtex_text,
    unsafe_commands,
)
from mathtools.core.errors import BadInput
from mathtools.gate import refcheck

# Text with every character BibTeX and TeX treat specially, and the words of unsafe commands.
TRICKY = st.lists(
    st.sampled_from([*'{}\\$%#&_^~@",= aeöx1\n', "input", "write18", "def", "^^5c", "\\'"]),
    max_size=40,
).map("".join)


@settings(max_examples=examples(400), deadline=None)
@given(title=st.lists(TRICKY, max_size=6).map("".join), name=TRICKY)
def test_any_text_stays_inside_its_field_and_runs_nothing(title, name):
    value = bibtex_text(title)
    author = bibtex_names([name])
    entry = f"@misc{{k,\n  title = {{{value}}},\n  author = {{{author}}},\n  year = 2020,\n}}\n"
    library = bibtexfile.parse_bibtex(entry)
    assert library.failed_blocks == []
    (parsed,) = library.entries
    assert [f.key for f in parsed.fields] == ["title", "author", "year"]
    assert parsed.fields_dict["title"].value == "{" + value + "}"
    assert unsafe_commands(entry) == []
    assert "%" not in value.replace("\\%", "") and "^^" not in value


@pytest.mark.parametrize("name", ["$\\{}$", "${\\}$"])
def test_math_with_an_escaped_brace_cannot_close_the_field(name):
    # Found by the property test above: the parser skips `\{` when pairing braces.
    entry = f"@misc{{k,\n  author = {{{bibtex_names([name])}}},\n  year = 2020,\n}}\n"
    library = bibtexfile.parse_bibtex(entry)
    assert library.failed_blocks == []
    assert [f.key for f in library.entries[0].fields] == ["author", "year"]


def test_what_is_kept_and_what_is_escaped():
    assert bibtex_text("Spectral gaps & the $L^2$ norm of graph_Laplacians") == (
        r"Spectral gaps \& the $L^2$ norm of graph\_Laplacians"
    )
    assert bibtex_text(r"{W}eb{V}iew for Schr\"odinger operators") == (
        "{W}eb{V}iew for Schrödinger operators"  # paired braces group; accents are letters
    )
    assert bibtex_text(r"$\input{x}$ and } , note = {z") == (
        r"\$\textbackslash{}input{x}\$ and \textbraceright{} , note = \textbraceleft{}z"
    )
    assert bibtex_text("50% of 3 ~ 4 # x, already \\& escaped") == (
        r"50\% of 3 \textasciitilde{} 4 \# x, already \& escaped"
    )
    assert bibtex_names(["Barnes and Noble", "A. B. Smith"]) == "{Barnes and Noble} and A. B. Smith"
    assert bibtex_identifier("10.1002/(SICI)1097-0258<1::AID>3.0.CO;2-#") is not None
    assert bibtex_identifier("10.1/x} , note = {y") is None
    assert bibtex_identifier("a b") is None


def test_string_macros_concatenation_and_months_are_evaluated(tmp_path):
    path = tmp_path / "a.bib"
    path.write_text(
        '@string{j = "J. Amer."}\n@STRING{full = j # " Math. Soc."}\n'
        '@article{k, journal = full # { (2)}, month = jan, year = "19" # "99", title = {T}}\n',
        encoding="utf-8",
    )
    (reference,) = formats.read_entries(path).bib.references
    assert reference.fields == {
        "journal": "J. Amer. Math. Soc. (2)",
        "month": "1",
        "year": "1999",
        "title": "T",
    }
    assert reference.line == 3


@pytest.mark.parametrize(
    ("fields", "arxiv_id", "doi"),
    [
        ({"eprint": "1605.08386v2", "archiveprefix": "arXiv"}, "1605.08386", None),
        ({"eprint": "math/0601001"}, "math/0601001", None),
        ({"eprint": "12345", "archiveprefix": "HAL"}, None, None),
        ({"journal": "arXiv preprint arXiv:2104.12255"}, "2104.12255", None),
        ({"url": "https://arxiv.org/abs/quant-ph/0201082v1"}, "quant-ph/0201082", None),
        ({"url": "https://doi.org/10.1098/rspa.1985.0070"}, None, "10.1098/rspa.1985.0070"),
        ({"doi": " 10.1000/X "}, None, "10.1000/X"),
    ],
)
def test_identifiers_are_found_where_people_put_them(fields, arxiv_id, doi):
    reference = bibentry.BibliographyEntry("k", "a.bib", 1, "misc", fields)
    assert (reference.arxiv_id(), reference.doi()) == (arxiv_id, doi)


def test_bibitems_in_the_common_styles(tmp_path):
    path = tmp_path / "paper.bbl"
    path.write_text(
        "\\begin{thebibliography}{9}\n"
        "\\bibitem[Erd{\\H{o}}s(1959)]{erdos59}\nP.~Erd{\\H{o}}s and A.~R{\\'e}nyi.\n"
        "\\newblock On random graphs {I}.\n"
        "\\newblock \\emph{Publ. Math. Debrecen}, 6:290--297, 1959.\n"
        "\\bibitem{gould}\nGould, A. and Dorsey, J., ``Frequency of hot Jupiters'',\n"
        "  ApJ (2006), % c\n"
        "  doi:10.1086/508613.\n"
        "\\bibitem{nothing} Private communication.\n"
        "\\bibitem{ntm} Alex Graves, Greg Wayne, and Ivo Danihelka.\n\\newblock Neural {T}uring "
        "machines.\n\\newblock 2014.\n"
        "\\bibitem{hj} A.~Gould, \\emph{Hot {J}upiters}, ApJ \\textbf{636} (2006), pp.~1--2.\n"
        "\\end{thebibliography}\n",
        encoding="utf-8",
    )
    erdos, gould, nothing, ntm, hj = bibitems.read_bibitems(path)
    assert (erdos.key, erdos.line) == ("erdos59", 2)
    assert erdos.plain() == {
        "title": "On random graphs I",
        "authors": ["P. Erdős", "A. Rényi"],
        "year": 1959,
        "venue": "Publ. Math. Debrecen",
        "volume": "6",
        "pages": "290-297",
    }
    assert gould.candidate()["authors"] == ["Gould, A.", "Dorsey, J."]
    assert gould.candidate()["title"] == "Frequency of hot Jupiters"
    assert (gould.candidate()["doi"], gould.candidate()["year"]) == ("10.1086/508613", 2006)
    assert nothing.candidate() == {"key": "nothing"}  # nothing to verify: its own UNCONFIRMED
    assert "venue" not in ntm.candidate() and ntm.candidate()["year"] == 2014  # a year alone
    assert {k: hj.plain().get(k) for k in ("venue", "volume", "year", "pages")} == {
        "venue": "ApJ",  # the bold volume is the volume, not part of the venue (issue 49)
        "volume": "636",
        "year": 2006,
        "pages": "1-2",
    }


def test_hand_written_lists_in_the_other_common_styles(tmp_path):
    path = tmp_path / "paper.tex"
    path.write_text(
        "\\begin{thebibliography}{9}\n"
        "\\bibitem{ay} Alexander, D. H., J. Novembre, and K. Lange (2009). Fast model-based "
        "estimation of ancestry in unrelated individuals. \\emph{Genome Res.} 19, 1655--1664.\n"
        "\\bibitem{sc}{\\sc A. One, B. Two and C. Three}, \\textit{On $\\GL_2(\\Qp)$ and "
        "$\\frac12$}, Ann. of Math. 72 (1960), 20-103.\n"
        "\\bibitem{bf} R. Abraham and J.E. Marsden, {\\bfseries Foundations of Mechanics}, "
        "Benjamin, 1978.\n"
        "\\bibitem{bold} A. Gould, {\\bf A title\\index{title}}, J. Math. {\\bf 35} (1999), 1--2.\n"
        "\\bibitem{boldauthors} {\\bf A. One and B. Two}, {\\it Title}, 2001.\n"
        "\\end{thebibliography}\n",
        encoding="utf-8",
    )
    ay, sc, bf, bold, boldauthors = (r.plain() for r in formats.read_entries(path).references)
    assert ay["authors"] == ["Alexander, D. H.", "J. Novembre", "K. Lange"]
    assert {k: ay[k] for k in ("title", "year", "venue", "volume", "pages")} == {
        "title": "Fast model-based estimation of ancestry in unrelated individuals",
        "year": 2009,  # not 1664, from the pages
        "venue": "Genome Res.",
        "volume": "19",
        "pages": "1655-1664",
    }
    assert sc == {
        "title": "On $\\GL_2(\\Qp)$ and $\\frac12$",
        "authors": ["A. One", "B. Two", "C. Three"],
        "year": 1960,
        "venue": "Ann. of Math",  # a final period is punctuation
        "volume": "72",
        "pages": "20-103",
    }
    assert bf == {
        "title": "Foundations of Mechanics",
        "authors": ["R. Abraham", "J.E. Marsden"],
        "year": 1978,
        "venue": "Benjamin",
    }
    assert bold["title"] == "A title" and bold["year"] == 1999
    assert boldauthors == {"title": "Title", "authors": ["A. One", "B. Two"], "year": 2001}


def test_biblatex_bbl_and_amsrefs(tmp_path):
    bbl = tmp_path / "main.bbl"
    bbl.write_text(
        "\\refsection{0}\n  \\datalist[entry]{nty/global//global/global}\n"
        "    \\entry{k}{article}{}{}\n"
        "      \\name{author}{2}{}{%\n"
        "        {{hash=1}{%\n           family={Huisken},\n           given={Gerhard}}}%\n"
        "        {{hash=2}{%\n           family={Yau},\n"
        "           given={Shing\\bibnamedelima Tung}}}%\n"
        "      }\n"
        "      \\field{title}{Definition of center of mass}\n"
        "      \\field{journaltitle}{Invent. Math.}\n      \\field{year}{1996}\n"
        "      \\field{pages}{281\\bibrangedash 311}\n"
        "      \\verb{doi}\n      \\verb 10.1007/s002220050054\n      \\endverb\n"
        "    \\endentry\n  \\enddatalist\n\\endrefsection\n",
        encoding="utf-8",
    )
    (entry,) = formats.read_entries(bbl).references
    assert (entry.key, entry.entry_type, entry.line) == ("k", "article", 3)
    assert entry.plain() == {
        "title": "Definition of center of mass",
        "authors": ["Huisken, Gerhard", "Yau, Shing Tung"],
        "year": 1996,
        "doi": "10.1007/s002220050054",
        "venue": "Invent. Math.",
        "pages": "281-311",
    }
    tex = tmp_path / "paper.tex"
    tex.write_text(
        "\\begin{bibdiv}\\begin{biblist}\n"
        "\\bib{a}{article}{\n  author={Adler, Jeffrey D.},% a comment, }\n"
        "  author={Roche, Alan},\n  title={An intertwining result for $p$-adic groups},\n"
        "  journal={Canad. J. Math.},\n  volume={52},\n  date={2000},\n"
        "  pages={449\\ndash 467},\n}\n"
        "\\bib*{b}{book}{title={Proceedings}, date={1970}}\n"
        "\\end{biblist}\\end{bibdiv}\n",
        encoding="utf-8",
    )
    a, b = formats.read_entries(tex).references
    assert a.plain() == {
        "title": "An intertwining result for $p$-adic groups",
        "authors": ["Adler, Jeffrey D.", "Roche, Alan"],
        "year": 2000,
        "venue": "Canad. J. Math.",
        "volume": "52",
        "pages": "449-467",
    }
    assert (b.key, b.entry_type, b.line) == ("b", "book", 11)


def test_a_repeated_field_is_read_and_edited_as_bibtex_reads_it(tmp_path):
    path = tmp_path / "refs.bib"
    text = (
        "@article {k,\n     TITLE = {First},\n   REVIEWS = {a},\n   REVIEWS = {b},\n"
        "      YEAR = {1990}\n}\n"
    )
    path.write_text(text, encoding="utf-8")
    bib = formats.read_entries(path).bib
    (reference,) = bib.references
    assert reference.fields == {"title": "First", "reviews": "a", "year": "1990"}
    assert bib.warnings == [
        "refs.bib line 1: k gives the field reviews twice; the first is used, as BibTeX does"
    ]
    copy = bibcopy.corrected_copy(
        bib, {"k": {"reviews": "{c}", "year": "{1991}", "note": "{UNCONFIRMED: x}"}}, ""
    )
    assert copy == (
        "@article {k,\n      NOTE = {UNCONFIRMED: x},\n     TITLE = {First},\n"
        "   REVIEWS = {c},\n   REVIEWS = {b},\n      YEAR = {1991}\n}\n"
    )


@pytest.mark.parametrize(
    ("written", "names"),
    [
        # as a MathSciNet export writes them (synthesized entries, the shapes seen in real files)
        ("Mac\\,Lane, Saunders", ["Mac Lane, Saunders"]),
        ("Saunders Mac\\,Lane and Ieke Moerdijk", ["Saunders Mac Lane", "Ieke Moerdijk"]),
        ("Bayer, Dave and Eisenbud, David and ", ["Bayer, Dave", "Eisenbud, David"]),
        ("Anderson, T.~W. and Darling, D.~A.", ["Anderson, T. W.", "Darling, D. A."]),
    ],
)
def test_tex_spacing_and_a_dangling_and_make_no_name(written, names):
    assert bibentry.split_names(written) == names


def test_a_key_an_arxiv_sources_bib_repeats_is_reported_as_a_local_bibs_is(tmp_path):
    tex = "\\cite{a}\n\\bibliography{refs}\n"
    bib = "@misc{a, title={First}}\n@misc{b, title={Other}}\n@misc{a, title={Again}}\n"
    remote = loading.load_source("arXiv:2001.00001", "main.tex", tex, {"refs.bib": bib})
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    local = loading.load_bibliography([str(tmp_path / "refs.bib")])
    for found in (remote, local):
        assert [r.key for r in found.references] == ["a", "b"]
        assert [(r.key, r.line) for r in found.repeated] == [("a", 3)]
    assert remote.repeated[0].file == "arXiv:2001.00001/refs.bib" and remote.bibs == []


def test_a_latex_bibliography_without_entries_is_refused_naming_what_it_may_hold(tmp_path):
    bbl = tmp_path / "paper.bbl"
    bbl.write_text("\\begin{thebibliography}{9}\n\\end{thebibliography}\n", encoding="utf-8")
    with pytest.raises(BadInput) as refused:
        loading.load_bibliography([str(bbl)])
    assert refused.value.code == "no_entries"
    assert str(refused.value) == (
        f"{bbl} holds no thebibliography, biblatex .bbl or amsrefs entry (\\bibitem{{key}}, "
        "biblatex's \\entry{key}{type}, amsrefs' \\bib{key}{type}{...})"
    )


def test_the_schema_names_the_kind_of_every_file_the_registry_reads():
    """A file's kind in check_refs' JSON is its suffix: a format row with a new suffix needs the
    schema's enum too (a PDF's reference list is read by papers/pdfreferences.py)."""
    schema = json.loads((PLUGIN / "schemas" / "check_refs.schema.json").read_text("utf-8"))
    kinds = schema["properties"]["inputs"]["items"]["properties"]["kind"]["enum"]
    assert sorted(kinds) == sorted([suffix.lstrip(".") for suffix in formats.SUFFIXES] + ["pdf"])
    assert sorted(refcheck.KIND_NAMES) == sorted(kinds)  # how the table names what was read


def file_kind_lists(text: str, kinds: list[str]) -> list[str]:
    """Every list of three or more file kinds in `text` (".bib, .bbl or .tex", "a .bib, an
    amsrefs .ltb, or a .tex", "paper.tex | refs.bib | paper.pdf"), as written."""
    item = rf"(?:an? (?:amsrefs )?)?`?(?:[a-z]+)?\.(?:{'|'.join(k[1:] for k in kinds)})\b`?"
    separator = r"(?:,? or |, | \\?\| )"
    return re.findall(rf"{item}(?:{separator}{item}){{2,}}", text)


def test_every_list_of_file_kinds_names_every_kind_the_registry_reads():
    """The file kinds check-refs reads are formats.SUFFIXES (and a PDF): a list of them in the
    docs, a runbook, a docstring, --help or a schema names them all, so a new suffix in a format
    row fails here until every list names it."""
    kinds = [*formats.SUFFIXES, ".pdf"]
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
    files += [p for p in sorted(PLUGIN.rglob("*")) if p.suffix in (".md", ".py", ".json")]
    lists = {
        (path.relative_to(ROOT).as_posix(), found)
        for path in files
        for found in file_kind_lists(path.read_text(encoding="utf-8"), kinds)
    }
    assert ("plugin/scripts/check_refs.py", "a .bib, a .bbl, an amsrefs .ltb, or a .tex") in lists
    short = {
        (name, found)
        for name, found in lists
        if not set(formats.SUFFIXES) <= set(re.findall(r"\.[a-z]+\b", found))
    }
    assert short == set()
