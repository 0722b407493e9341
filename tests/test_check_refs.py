"""scripts/check_refs.py end to end, as a subprocess against the stand-in server (real records).

The bibliographies are built from the labelled verification fixture (tests/data/verify_fixture.json:
real references written the way people cite them, and fabricated variants): the same entries as
BibTeX, as \\bibitems of a .tex and of a .bbl, and as a .tex naming its .bib.
"""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest
from mathtools.bibliography import bibcopy, bibtexfile, bibvalues, formats
from mathtools.core import schemas
from mathtools.gate import refcheck, refreport
from support.standin import load_index

FIXTURE = Path(__file__).parent / "data" / "verify_fixture.json"
CASES = [
    case
    for case in json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
    if "s2_paper_id" not in case["candidate"]  # a Semantic Scholar id has no BibTeX field
]


def bib_entry(candidate: dict, entry_type: str = "article") -> str:
    """A candidate of the fixture as a BibTeX entry, fields written the way people write them."""
    fields = []
    if candidate.get("title"):
        fields.append(f"  title = {{{candidate['title']}}}")
    authors = candidate.get("authors")
    if authors:
        names = authors if isinstance(authors, str) else " and ".join(authors)
        fields.append(f"  author = {{{names.replace(' et al.', ' and others')}}}")
    if candidate.get("year"):
        fields.append(f"  year = {candidate['year']}")
    if candidate.get("arxiv_id"):
        fields.append(f"  eprint = {{{candidate['arxiv_id']}}}")
    if candidate.get("doi"):
        fields.append(f"  doi = {{{candidate['doi']}}}")
    return f"@{entry_type}{{{candidate['key']},\n" + ",\n".join(fields) + "\n}\n"


def check(script, *args):
    run = script("check_refs.py", *args)
    assert "Traceback" not in run.stderr, run.stderr
    return run


def by_key(document) -> dict[str, dict]:
    return {entry["key"]: entry for entry in document["entries"]}


def test_real_entries_are_confirmed_and_fabricated_ones_unconfirmed(script, standin, tmp_path):
    bib = tmp_path / "paper.bib"
    bib.write_text("\n".join(bib_entry(case["candidate"]) for case in CASES), encoding="utf-8")
    run = check(script, str(bib), "--json")
    assert run.returncode == 0, run.stdout
    document = run.json()
    assert schemas.schema_errors("check_refs", document) == []
    entries = by_key(document)
    wrong = [
        f"{case['label']}: {entries[case['candidate']['key']]['status']} "
        f"({entries[case['candidate']['key']]['reason']})"
        for case in CASES
        if entries[case["candidate"]["key"]]["status"] != case["expected"]
    ]
    assert wrong == []
    assert [e["line"] for e in document["entries"]][:2] == [
        1,
        1 + bib_entry(CASES[0]["candidate"]).count("\n") + 1,
    ]
    # Every identifier went out in one call per service; title searches only for the others.
    assert standin.counts["arxiv id_list"] == 1
    assert standin.counts["s2 batch"] == 1
    # LaTeX in a field is read as the text it writes.
    assert entries["real-scratch"]["cited"]["authors"][0] == "Götz, Katharina"
    assert entries["real-omegatest"]["cited"]["title"].startswith(  # math kept as LaTeX
        "$\\omega$Test: WebView-Oriented"
    )
    assert "progress" not in run.stdout and "check_refs: verifying" in run.stderr

    # The HTTP cache makes a second run free.
    before = sum(standin.counts.values())
    again = check(script, str(bib), "--json").json()
    assert sum(standin.counts.values()) == before
    assert [e["status"] for e in again["entries"]] == [e["status"] for e in document["entries"]]


def test_the_table_names_each_entry_the_record_and_the_reason(script, standin, tmp_path):
    chosen = {"real-markov", "real-deutsch-doi", "fab-foreign-arxiv-id", "fab-year"}
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "".join(bib_entry(c["candidate"]) for c in CASES if c["candidate"]["key"] in chosen),
        encoding="utf-8",
    )
    run = check(script, str(bib))
    assert run.returncode == 0, run.stdout
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["KEY", "STATUS", "DETAILS"]
    row = {line.split()[0]: line for line in lines[1:] if line.split()[0] in chosen}
    assert row["real-markov"].split()[1:3] == ["CONFIRMED", "arXiv:1605.08386"]
    assert (
        "UNCONFIRMED  arXiv:2104.12255 is '0' by Quan Thoi Minh Nguyen"
        in row["fab-foreign-arxiv-id"]
    )
    suggestion = lines[lines.index(row["fab-year"]) + 1]
    assert suggestion.strip().startswith("suggestion: ") and "Neural Turing Machines" in suggestion
    assert lines[-1] == (
        "4 entries: 2 CONFIRMED, 0 CORRECTED, 2 UNCONFIRMED; 0 duplicate(s), 0 cited but missing"
    )


BIB_WITH_EVERYTHING = r"""% Bibliography of "Random walks", kept by hand.
@string{tit = "IEEE Trans. Inform. Theory"}
@preamble{"\providecommand{\noopsort}[1]{}"}

@comment{jabref-meta: databaseType:bibtex;}

@Article{markov,
    Title     = {Heat-bath random walks with {M}arkov bases},
    Author    = {Stanley, Caprice and Windisch, Tobias},
    Year      = 2016,
    Eprint    = {1605.08386},
}

@article{grouptesting, author = {Cheraghchi, Mahdi}, title = {Group Testing with Probabilistic
  Tests: Theory, Design and Application}, journal = tit, year = 2010, eprint = {0808.05394},
  note = {Cited in the introduction}}

% the Kakeya paper a language model suggested
@misc{kakeya,
  title = {A proof of the {K}akeya conjecture in three dimensions via polynomial partitioning},
  author = {Smith, John},
  year = 2023,
  note = {Suggested by a chatbot},
}
"""


def test_the_corrected_copy_keeps_everything_of_the_users_and_marks_the_unconfirmed(
    script, standin, tmp_path
):
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB_WITH_EVERYTHING, encoding="utf-8")
    fixed = tmp_path / "refs.checked.bib"
    report = tmp_path / "check.md"
    run = check(script, str(bib), "--fix", str(fixed), "--report", str(report))
    assert run.returncode == 0, run.stdout
    assert bib.read_text(encoding="utf-8") == BIB_WITH_EVERYTHING  # the input is never modified
    assert run.stdout.splitlines()[-1].startswith(
        f"corrected copy: {fixed} (1 entry corrected from the sources' records, 1 marked "
        "UNCONFIRMED in a checkrefs field"
    )
    text = fixed.read_text(encoding="utf-8")
    assert text.startswith(refcheck.FIX_MARK + " refs.bib")
    # Everything but the two unconfirmed entries is as it was, byte for byte.
    start = text.index("% Bibliography")
    original_markov = BIB_WITH_EVERYTHING[BIB_WITH_EVERYTHING.index("@Article{markov") :]
    assert text[start:].startswith(
        BIB_WITH_EVERYTHING[: BIB_WITH_EVERYTHING.index("@article{grouptesting")]
    )
    assert original_markov[: original_markov.index("}\n\n") + 2] in text
    assert "% the Kakeya paper a language model suggested\n@misc{kakeya," in text

    library = bibtexparser.parse_string(text, parse_stack=[])  # values as written
    assert library.failed_blocks == []
    assert [e.key for e in library.entries] == ["markov", "grouptesting", "kakeya"]
    assert [s.key for s in library.strings] == ["tit"] and len(library.preambles) == 1
    assert "\n@comment{jabref-meta: databaseType:bibtex;}\n" in text
    group = library.entries_dict["grouptesting"]
    # Its arXiv id does not exist; the paper it cites is arXiv:1009.3186 (CORRECTED): the record's
    # id replaces it, the user's note and the @string reference stay.
    assert [f.key for f in group.fields] == [
        "author",
        "title",
        "journal",
        "year",
        "eprint",
        "note",
        "archivePrefix",
    ]
    assert group.fields_dict["journal"].value == "tit"
    assert group.fields_dict["eprint"].value == "{1009.3186}"
    assert group.fields_dict["note"].value == "{Cited in the introduction}"
    kakeya = formats.read_entries(fixed).bib.references[2].fields
    assert kakeya["note"] == "Suggested by a chatbot"  # the user's own note, as it was
    assert kakeya["checkrefs"] == (  # ours, in a field no bibliography style prints
        "UNCONFIRMED: no paper with this title in arXiv, Semantic Scholar, zbMATH Open or Crossref"
    )

    markdown = report.read_text(encoding="utf-8")
    assert markdown.startswith(refreport.REPORT_MARK + "\n# Reference check")
    assert "| `markov` | CONFIRMED | arXiv:1605.08386 \\| 2016 \\| Stanley et al." in markdown
    assert "## Unconfirmed" in markdown and "- `kakeya`: no paper with this title" in markdown

    # A second run may replace its own outputs, and changes nothing else.
    again = check(script, str(bib), "--fix", str(fixed), "--report", str(report))
    assert again.returncode == 0, again.stdout
    assert fixed.read_text(encoding="utf-8") == text


def corrected_result(key: str, paper: dict, discrepancies: list[dict]) -> dict:
    """A CORRECTED result in the shape CONTRACTS.md gives issue-16's gate (synthesized here, so
    that the corrected copy is tested on every field whatever the gate's rules)."""
    return {
        "key": key,
        "status": "CORRECTED",
        "reason": "real, cited wrong",
        "source": "arxiv",
        "verified_via": [],
        "checks": {},
        "paper": paper,
        "candidate": {},
        "discrepancies": discrepancies,
    }


def test_corrected_fields_come_from_the_record_and_are_escaped_synthesized(tmp_path):
    """The CORRECTED outcome, synthesized in the contract's shape; its record carries an
    injection attempt in the title and in an author's name."""
    bib_path = tmp_path / "refs.bib"
    bib_path.write_text(
        "@inproceedings{k,\n  author = {Windisch, T.},\n  title = {Heat bath walks},\n"
        "  booktitle = {Proc. X},\n  year = {2015},\n  pages = {1-2},\n}\n",
        encoding="utf-8",
    )
    bib = formats.read_entries(bib_path).bib
    evil = r"Heat-bath random walks } , note = {z \input{/etc/passwd} with $L^2$ bases"
    paper = {"key": "arXiv:1605.08386", "title": evil, "venue": "Proc. Y", "doi": "10.1/a_b"}
    diffs = [
        {"field": "title", "cited": "Heat bath walks", "record": evil, "note": "title differs"},
        {
            "field": "authors",
            "cited": ["Windisch, T."],
            "record": ["Caprice Stanley", r"T. \write18{rm}"],
            "note": "",
        },
        {"field": "year", "cited": 2015, "record": 2016, "note": ""},
        {"field": "venue", "cited": "Proc. X", "record": "Proc. Y & Z", "note": ""},
        {"field": "pages", "cited": "1-2", "record": "1-20", "note": ""},
        {"field": "arxiv_id", "cited": None, "record": "1605.08386", "note": ""},
        {"field": "doi", "cited": None, "record": "10.1/a_b", "note": ""},
    ]
    entry = {
        "key": "k",
        "file": str(bib_path),
        "status": "CORRECTED",
        "reason": "",
        "verification": corrected_result("k", paper, diffs),
    }
    updates = refcheck.fix_updates({"entries": [entry]}, bib)
    text = bibcopy.corrected_copy(bib, updates, "% header\n")
    library = bibtexparser.parse_string(text, parse_stack=[])  # values as written
    assert library.failed_blocks == []
    fields = library.entries[0].fields_dict
    assert list(fields) == [
        "author",
        "title",
        "booktitle",
        "year",
        "pages",
        "eprint",
        "archivePrefix",
        "doi",
    ]  # the entry's own order, new fields after it; no field injected
    assert fields["booktitle"].value == r"{Proc. Y \& Z}"  # a conference paper's venue
    assert fields["pages"].value == "{1--20}"
    assert fields["doi"].value == "{10.1/a_b}"  # identifiers verbatim
    assert bibvalues.unsafe_commands(text) == []
    assert r"\textbackslash{}input" in fields["title"].value and "$L^2$" in fields["title"].value
    # the entry writes "Family, Given": so are the record's names
    assert fields["author"].value == r"{Stanley, Caprice and \textbackslash{}write18{rm}, T.}"


def test_a_preprint_cited_gets_its_published_version_and_a_false_doi_goes_synthesized(tmp_path):
    """The `version` discrepancy (a preprint cited where a published version exists) and an
    identifier that does not exist (record null), in the contract's shape, synthesized."""
    bib_path = tmp_path / "refs.bib"
    bib_path.write_text(
        "@article{pre,\n  title = {Heat-bath random walks with Markov bases},\n"
        "  journal = {arXiv preprint},\n  doi = {10.9/none},\n  eprint = {1605.08386},\n"
        "  archivePrefix = {arXiv},\n}\n",
        encoding="utf-8",
    )
    bib = formats.read_entries(bib_path).bib
    paper = {
        "key": "arXiv:1605.08386",
        "venue": "Adv. in Appl. Math.",
        "volume": "80",
        "pages": "1-20",
        "doi": None,
    }
    diffs = [
        {
            "field": "version",
            "cited": "arXiv preprint",
            "record": "Adv. in Appl. Math.",
            "note": "cited as a preprint; published in Adv. in Appl. Math.",
        },
        {"field": "doi", "cited": "10.9/none", "record": None, "note": "does not exist"},
    ]
    entry = {
        "key": "pre",
        "file": str(bib_path),
        "status": "CORRECTED",
        "reason": "",
        "verification": corrected_result("pre", paper, diffs),
    }
    text = bibcopy.corrected_copy(bib, refcheck.fix_updates({"entries": [entry]}, bib), "")
    fields = {f.key: f.value for f in bibtexfile.parse_bibtex(text).entries[0].fields}
    assert fields == {
        "title": "{Heat-bath random walks with Markov bases}",
        "journal": "{Adv. in Appl. Math.}",
        "eprint": "{1605.08386}",
        "archivePrefix": "{arXiv}",
        "volume": "{80}",
        "pages": "{1--20}",
    }


def test_a_tex_with_bibitems_and_a_bbl(script, standin, tmp_path):
    tex = tmp_path / "paper.tex"
    tex.write_text(
        r"""\documentclass{amsart}
\begin{document}
Random walks \cite{SW16} and machines~\cite{GWD14,nowhere}.
\begin{thebibliography}{9}
\bibitem[SW16]{SW16} C.~Stanley and T.~Windisch, \emph{Heat-bath random walks with
  {M}arkov bases}, Adv. in Appl. Math. (2016), arXiv:1605.08386.
\bibitem{GWD14}
Alex Graves, Greg Wayne, and Ivo Danihelka.
\newblock Neural {T}uring machines.
\newblock 2014.
\bibitem{K23} J. Smith, \textit{A proof of the Kakeya conjecture in three dimensions via
  polynomial partitioning}, preprint (2023).
\end{thebibliography}
\end{document}
""",
        encoding="utf-8",
    )
    document = check(script, str(tex), "--json").json()
    assert schemas.schema_errors("check_refs", document) == []
    entries = by_key(document)
    assert [(k, e["status"], e["line"]) for k, e in entries.items()] == [
        ("SW16", "CORRECTED", 5),  # the record knows only the preprint, not the journal
        ("GWD14", "CONFIRMED", 7),
        ("K23", "UNCONFIRMED", 11),
    ]
    assert entries["SW16"]["cited"]["authors"] == ["C. Stanley", "T. Windisch"]
    assert entries["GWD14"]["cited"]["authors"] == ["Alex Graves", "Greg Wayne", "Ivo Danihelka"]
    assert document["missing"] == [{"key": "nowhere", "file": str(tex), "line": 3}]
    assert document["inputs"] == [{"file": str(tex), "kind": "tex", "entries": 3}]

    bbl = tmp_path / "paper.bbl"
    bbl.write_text(
        "\\begin{thebibliography}{1}\n\n"
        "\\bibitem{deutsch}\nD.~Deutsch.\n\\newblock Quantum theory, the {C}hurch--{T}uring "
        "principle and the universal quantum computer.\n\\newblock {\\em Proc. R. Soc. Lond. A}, "
        "400:97--117, 1985.\n\n\\end{thebibliography}\n",
        encoding="utf-8",
    )
    document = check(script, str(bbl), "--json").json()
    (entry,) = document["entries"]
    assert (entry["key"], entry["status"], entry["cited"]["year"]) == ("deutsch", "CONFIRMED", 1985)
    assert entry["cited"]["venue"].startswith("Proc. R. Soc. Lond. A")
    # a .bbl has no .bib to correct: --fix OUT.bib is refused, --fix alone says so
    run = check(script, str(bbl), "--fix", str(tmp_path / "out.bib"))
    assert run.returncode == 2 and run.json()["error"]["code"] == "usage"
    run = check(script, str(bbl), "--fix")
    assert run.returncode == 0 and run.stdout.splitlines()[-1].startswith("no corrected copy")
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".bib") == []


def test_fix_alone_writes_beside_the_bib_only_when_there_is_something_to_correct(
    script, standin, tmp_path
):
    bib = tmp_path / "refs.bib"
    bib.write_text(bib_entry(CASES[0]["candidate"]), encoding="utf-8")
    run = check(script, str(bib), "--fix")
    assert run.returncode == 0, run.stdout
    assert run.stdout.splitlines()[-1] == "no corrected copy: nothing to correct"
    assert not (tmp_path / "refs.checked.bib").exists()
    fabricated = next(c for c in CASES if c["expected"] == "UNCONFIRMED")["candidate"]
    bib.write_text(bib.read_text() + bib_entry(fabricated), encoding="utf-8")
    run = check(script, str(bib), "--fix")
    assert run.stdout.splitlines()[-1] == (
        f"corrected copy: {tmp_path / 'refs.checked.bib'} (0 entries corrected from the sources' "
        "records, 1 marked UNCONFIRMED in a checkrefs field, which no style prints; the original "
        "is unchanged)"
    )
    assert "UNCONFIRMED: " in (tmp_path / "refs.checked.bib").read_text(encoding="utf-8")


def test_a_tex_naming_its_bib_duplicates_and_cited_only(script, standin, tmp_path):
    (tmp_path / "refs.bib").write_text(
        "@article{markov, title = {Heat-bath random walks with Markov bases}, author = {Windisch,"
        " Tobias}, year = 2016, eprint = {1605.08386}}\n"
        "@article{markov-journal, title = {Heat-bath random walks with {M}arkov bases}, author ="
        " {Stanley, C. and Windisch, T.}, journal = {Adv. in Appl. Math.}, year = 2016}\n"
        "@article{deutsch, title = {Quantum theory, the Church-Turing principle and the universal"
        " quantum computer}, author = {Deutsch, D.}, year = 1985, doi = {10.1098/rspa.1985.0070}}\n"
        "@article{deutsch-again, author = {Deutsch, David}, title = {Quantum theory, the"
        " Church--Turing principle and the universal quantum computer}, doi ="
        " {10.1098/RSPA.1985.0070}, year = 1985}\n"
        "@misc{markov, title = {the same key again}}\n"
        "@misc{uncited, title = {Neural Turing Machines}, author = {Graves, Alex}, year = 2014}\n",
        encoding="utf-8",
    )
    tex = tmp_path / "paper.tex"
    tex.write_text(
        "\\documentclass{article}\\usepackage{biblatex}\\addbibresource{refs.bib}\n"
        "\\begin{document}\n\\cite{markov,markov-journal}\n"
        "% \\cite{uncited} is commented out\n"
        "\\parencite[p.~3]{deutsch} \\cite{deutsch-again} \\textcite{ghost}\n\\end{document}\n",
        encoding="utf-8",
    )
    document = check(script, str(tex), "--json").json()
    assert schemas.schema_errors("check_refs", document) == []
    assert [e["key"] for e in document["entries"]] == [
        "markov",
        "markov-journal",
        "deutsch",
        "deutsch-again",
        "uncited",
    ]
    assert document["inputs"] == [{"file": str(tmp_path / "refs.bib"), "kind": "bib", "entries": 5}]
    why = {tuple(group["keys"]): group["why"] for group in document["duplicates"]}
    assert "a preprint and its published version" in why[("markov", "markov-journal")]
    assert why[("deutsch", "deutsch-again")].startswith("the same DOI 10.1098/rspa.1985.0070")
    assert why[("markov",)].startswith("the key is used twice (refs.bib line 5")
    assert document["missing"] == [{"key": "ghost", "file": str(tex), "line": 5}]

    limited = check(script, str(tex), "--json", "--cited-only").json()
    assert "uncited" not in by_key(limited) and limited["not_cited"] == ["uncited"]
    assert limited["summary"]["entries"] == 4


def test_three_hundred_identified_entries_take_a_handful_of_calls(script, standin, tmp_path):
    index = load_index()
    ids = [f"eprint = {{{arxiv_id}}}" for arxiv_id in index.arxiv] + [
        f"doi = {{{record['externalIds']['DOI']}}}"
        for record in index.s2_papers.values()
        if (record.get("externalIds") or {}).get("DOI")
    ]
    entries = [f"@misc{{ref{n}, {ids[n % len(ids)]}}}\n" for n in range(300)]
    bib = tmp_path / "long.bib"
    bib.write_text("".join(entries), encoding="utf-8")
    run = check(script, str(bib), "--json")
    assert run.returncode == 0, run.stdout
    assert run.json()["summary"]["entries"] == 300
    assert standin.counts["s2 batch"] == 1
    assert standin.counts["arxiv id_list"] <= 2  # the arXiv client asks 100 ids a call
    assert not any("search" in name or "match" in name for name in standin.counts)


@pytest.mark.parametrize(
    ("content", "code", "says"),
    [
        (None, "file_not_found", "not found"),
        (b"", "empty_file", "is empty"),
        (b"  \n\n", "empty_file", "is empty"),
        (b"\x89PNG\r\n\x1a\n\0\0\0", "binary_file", "binary"),
        (b"@misc{a, title = {Erd\xf6s}}\n", "not_utf8", "not UTF-8 text (line 1)"),
        (b"% only a comment\n", "no_entries", "holds no BibTeX entry"),
        (
            b"@misc{ok, title = {Fine}}\n\n@article{broken,\n  title = {Unclosed\n"
            b"  year = 2000}\n@misc{next, title = {x}}\n",
            "bad_bib",
            "line 3: this entry cannot be parsed",
        ),
    ],
)
def test_bad_files_are_refused_before_any_work(script, standin, tmp_path, content, code, says):
    bib = tmp_path / "refs.bib"
    if content is not None:
        bib.write_bytes(content)
    run = check(script, str(bib))
    assert run.returncode == 2, run.stdout
    assert len(run.stdout.splitlines()) == 1
    error = run.json()["error"]
    assert error["code"] == code and says in error["message"]
    assert sum(standin.counts.values()) == 0


def test_outputs_that_would_lose_a_file_are_refused_before_any_work(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{a, title = {Neural Turing Machines}}\n", encoding="utf-8")
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n", encoding="utf-8")
    for args in (
        ["--fix", str(bib)],
        ["--fix", "./" + bib.name],
        ["--report", str(notes)],
        ["--fix", str(tmp_path)],
        ["--out", str(bib)],
        [
            "--report",
            "/dev/zero",
        ],  # a device: read for the marker, it never ended (the fuzz found it)
    ):
        run = check(script, str(bib), *args)
        assert run.returncode == 2, (args, run.stdout)
        assert run.json()["error"]["code"] == "cannot_write", args
    run = check(script, str(tmp_path / "refs.txt"))
    assert run.returncode == 2 and run.json()["error"]["code"] == "bad_input_kind"
    assert sum(standin.counts.values()) == 0
    assert notes.read_text(encoding="utf-8") == "# my notes\n"


PERTURBED = r"""% Real recorded papers, each cited with one thing wrong.
@article{markov-year,
  title  = {Heat-bath random walks with {M}arkov bases},
  author = {Stanley, Caprice and Windisch, Tobias},
  year   = 2009,
  eprint = {1605.08386},
}
@article{grouptesting-id,
  title  = {Group testing with probabilistic tests: theory, design and application},
  author = {Cheraghchi, Mahdi and Hormati, Ali and Karbasi, Amin and Vetterli, Martin},
  year   = 2010,
  eprint = {0808.05394},
}
@article{markov-authors,
  title  = {Heat-bath random walks with {M}arkov bases},
  author = {Stanley, Caprice and Sturmfels, Bernd},
  year   = 2016,
  eprint = {1605.08386},
}
@article{markov,
  title  = {Heat-bath random walks with {M}arkov bases},
  author = {Stanley, Caprice and Windisch, Tobias},
  year   = 2016,
  eprint = {1605.08386},
}
"""


def test_real_papers_cited_wrong_are_corrected_field_by_field(script, standin, tmp_path):
    """The gate's CORRECTED outcome on real recorded papers, each perturbed in one field: the
    table shows the diff, the report tabulates it, the corrected copy carries the record's
    values and keeps the keys."""
    bib = tmp_path / "refs.bib"
    bib.write_text(PERTURBED, encoding="utf-8")
    fixed, report = tmp_path / "refs.fixed.bib", tmp_path / "check.md"
    document = check(
        script, str(bib), "--json", "--fix", str(fixed), "--report", str(report)
    ).json()
    assert schemas.schema_errors("check_refs", document) == []
    entries = by_key(document)
    assert {k: e["status"] for k, e in entries.items()} == {
        "markov-year": "CORRECTED",
        "grouptesting-id": "CORRECTED",
        "markov-authors": "CORRECTED",
        "markov": "CONFIRMED",
    }
    diffs = {
        key: [(d["field"], d["cited"], d["record"]) for d in e["verification"]["discrepancies"]]
        for key, e in entries.items()
        if e["status"] == "CORRECTED"
    }
    assert diffs["markov-year"] == [("year", 2009, 2016)]
    assert diffs["grouptesting-id"] == [("arxiv_id", "0808.05394", "1009.3186")]
    (authors,) = diffs["markov-authors"]
    assert authors[0] == "authors" and authors[2] == ["Caprice Stanley", "Tobias Windisch"]
    assert document["summary"]["corrected"] == 3

    copy = formats.read_entries(fixed).bib
    assert [r.key for r in copy.references] == [
        "markov-year",
        "grouptesting-id",
        "markov-authors",
        "markov",
    ]
    fields = {r.key: r.fields for r in copy.references}
    assert fields["markov-year"]["year"] == "2016"
    assert fields["grouptesting-id"]["eprint"] == "1009.3186"
    assert fields["markov-authors"]["author"] == "Stanley, Caprice and Windisch, Tobias"
    assert fields["markov"] == formats.read_entries(bib).bib.references[3].fields
    assert "note" not in fields["markov-year"]
    markdown = report.read_text(encoding="utf-8")
    assert "### `markov-year` (refs.bib line 2)" in markdown
    assert "| year | 2009 | 2016 |" in markdown

    table = check(script, str(bib)).stdout.splitlines()
    row = next(i for i, line in enumerate(table) if line.startswith("markov-year "))
    assert table[row].split()[1] == "CORRECTED"
    assert table[row + 1].strip() == "year: 2009 -> 2016"


def test_an_entry_with_nothing_to_check_is_its_own_unconfirmed_result(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@misc{todo, note = {find the reference}}\n@misc{badyear, title = {Neural Turing "
        "Machines}, author = {Graves, Alex}, year = {2099}}\n" + bib_entry(CASES[0]["candidate"]),
        encoding="utf-8",
    )
    document = check(script, str(bib), "--json").json()
    assert schemas.schema_errors("check_refs", document) == []
    entries = by_key(document)
    assert entries["todo"]["status"] == "UNCONFIRMED"
    assert "nothing to verify" in entries["todo"]["reason"]
    assert entries["badyear"]["status"] == "UNCONFIRMED" and "2099" in entries["badyear"]["reason"]
    assert entries[CASES[0]["candidate"]["key"]]["status"] == CASES[0]["expected"]


MATHSCINET_CRLF = (
    "% MathSciNet exports, CRLF line ends\r\n"
    "@article {MR3000000,\r\n"
    "    AUTHOR = {Stanley, Caprice and Windisch, Tobias},\r\n"
    "     TITLE = {Heat-bath random walks with {M}arkov\r\n"
    "              bases},\r\n"
    "      YEAR = {2009},\r\n"
    "    EPRINT = {1605.08386},\r\n"
    "      NOTE = {See \\url{https://example.org/a_b} and \\href{https://x.org}{x}},\r\n"
    "}\r\n"
    "\r\n"
    "@misc{kakeya,\r\n"
    "  title = {A proof of the {K}akeya conjecture in three dimensions via polynomial\r\n"
    "           partitioning},\r\n"
    "  author = {Smith, John},\r\n"
    "  year = 2023,\r\n"
    "  note = {Amer.\\ Math. Soc. {\\bf 35}, \\url{https://example.org/~k}}\r\n"
    "}\r\n"
)


def test_fix_edits_only_the_corrected_values_and_the_note_in_place(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_bytes(MATHSCINET_CRLF.encode())
    fixed = tmp_path / "refs.checked.bib"
    run = check(script, str(bib), "--fix", str(fixed))
    assert run.returncode == 0, run.stdout
    text = fixed.read_bytes().decode()
    assert text.count("\n") == text.count("\r\n")  # CRLF stays CRLF, every line
    header, _, rest = text.partition("\r\n")
    assert header.startswith(refcheck.FIX_MARK + " refs.bib") and str(tmp_path) not in text
    # The year is the record's; an UNCONFIRMED entry gets our field, laid out as its fields are
    # (first: its last field ends without a comma, which is left as it is); the user's note stays
    # exactly as written; every other byte as it was.
    assert rest == MATHSCINET_CRLF.replace("YEAR = {2009}", "YEAR = {2016}").replace(
        "@misc{kakeya,\r\n",
        "@misc{kakeya,\r\n  checkrefs = {UNCONFIRMED: no paper with this title in arXiv, "
        "Semantic Scholar, zbMATH Open or Crossref},\r\n",
    )
    import pybtex.database

    entries = pybtex.database.parse_string(text, "bibtex").entries
    assert entries["kakeya"].fields["note"].endswith("{\\bf 35}, \\url{https://example.org/~k}")
    # A second run replaces our field, keeping the user's note.
    second = check(script, str(fixed), "--fix", str(tmp_path / "again.bib"))
    assert second.returncode == 0, second.stdout
    again = (tmp_path / "again.bib").read_bytes().decode()
    assert again.partition("\r\n")[2] == rest


def test_strict_fails_when_an_entry_is_unconfirmed(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    real = next(c for c in CASES if c["expected"] == "CONFIRMED")["candidate"]
    bib.write_text(bib_entry(real), encoding="utf-8")
    run = check(script, str(bib), "--strict")
    assert run.returncode == 0, run.stdout
    fabricated = next(c for c in CASES if c["expected"] == "UNCONFIRMED")["candidate"]
    bib.write_text(bib_entry(real) + bib_entry(fabricated), encoding="utf-8")
    run = check(script, str(bib), "--strict")
    assert run.returncode == 1, run.stdout
    assert "--strict: 1 entry UNCONFIRMED or pending" in run.stderr
    assert check(script, str(bib)).returncode == 0  # without --strict: checked, exit 0
    run = check(script, str(bib), "--strict", "--json")
    assert run.returncode == 1 and run.json()["summary"]["unconfirmed"] == 1


def test_strict_fails_when_an_entry_is_pending(script, standin, tmp_path):
    bib = tmp_path / "refs.bib"
    real = next(c for c in CASES if c["expected"] == "CONFIRMED" and c["candidate"].get("title"))
    bib.write_text(bib_entry({**real["candidate"], "arxiv_id": None, "doi": None}), "utf-8")
    for service in ("arxiv", "s2", "zbmath", "crossref"):
        standin.fail(service)
    run = check(script, str(bib), "--strict", "--json")
    assert run.returncode == 1, run.stdout
    assert run.json()["summary"]["pending"] == 1
    assert "--strict: 1 entry UNCONFIRMED or pending" in run.stderr


def test_zbl_numbers_go_to_the_gate_and_mr_numbers_are_kept_and_shown(script, standin, tmp_path):
    """MathSciNet's and zbMATH's exports carry MRNUMBER and Zbl (synthesized entry, in their
    field styles): the Zbl number goes to the gate, the MR number is shown, never verified."""
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{MR0075938,\n  AUTHOR = {Ore, Oystein},\n  TITLE = {A note on something},\n"
        "  YEAR = {1955},\n  MRNUMBER = {0075938 (17,823a)},\n  zbl = {Zbl 0898.68039},\n}\n",
        encoding="utf-8",
    )
    (reference,) = formats.read_entries(bib).bib.references
    assert reference.candidate()["zbl"] == "0898.68039"
    assert reference.plain()["mr"] == "MR0075938"
    document = check(script, str(bib), "--json").json()
    assert schemas.schema_errors("check_refs", document) == []
    (entry,) = document["entries"]
    assert entry["cited"]["zbl"] == "0898.68039" and entry["cited"]["mr"] == "MR0075938"
    table = check(script, str(bib)).stdout
    assert "MR0075938: kept, not verified (MathSciNet has no public API)" in table


def test_an_amsplain_bbl_keeps_its_mr_numbers():
    """amsplain writes `\\MR{0075938}` after an item (synthesized item, in its style)."""
    from mathtools.bibliography.bibitems import read_bibitems

    text = (
        "\\begin{thebibliography}{1}\n\\bibitem{ore}\nO.~Ore, \\emph{A note on something}, "
        "Amer. Math. Monthly \\textbf{59} (1952), 1--3. \\MR{0075938}\n\\end{thebibliography}\n"
    )
    (reference,) = read_bibitems(Path("paper.bbl"), text)
    assert reference.mr_number() == "MR0075938" and "MR" not in reference.plain()["title"]
