"""check_refs.py on a paper as its author keeps it (issue 49): a local multi-file copy of a shared
arXiv source read whole (its inputs followed for citations), a .bbl read where the .bib is not
shipped, the count of what was checked on every run, and --strict failing on what a referee
must not send (a cited key missing, a cited statement not found, nothing checked)."""

from __future__ import annotations

import re
from pathlib import Path

from mathtools.papers import texsource
from mathtools.services.latex_source import read_body
from support import arxiv_src

SYSTOLIC = "2008.10111"  # systolic_paper.tex \input's seven section files; its \bibitems at the end


def local_copy(arxiv_id: str, folder: Path) -> dict[str, bytes]:
    """The shared source's files written to `folder` as an author keeps them."""
    outcome = read_body(arxiv_src.body(arxiv_id))
    members: dict[str, bytes] = outcome.members  # type: ignore[union-attr]
    for name, data in members.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return members


def cited_keys_of(members: dict[str, bytes]) -> set[str]:
    """Every key the source's TeX files cite, read from each file as LaTeX would."""
    keys: set[str] = set()
    for name, data in members.items():
        if texsource.is_tex_name(name):
            text = texsource.clean(data)
            for group in re.findall(r"\\cite[a-z]*\*?(?:\[[^\]]*\])*\{([^}]*)\}", text):
                keys |= {key.strip() for key in group.split(",") if key.strip()}
    return keys


def test_a_multi_file_paper_is_read_whole_and_every_cited_entry_checked(script, standin, tmp_path):
    members = local_copy(SYSTOLIC, tmp_path)
    cited = cited_keys_of(members)
    main = members["systolic_paper.tex"].decode()
    own = set(re.findall(r"\\bibitem(?:\[[^\]]*\])?\{([^}]*)\}", main))
    assert cited and cited <= own  # every cited key is in the paper's own bibliography
    paper = tmp_path / "systolic_paper.tex"
    run = script("check_refs.py", str(paper), "--cited-only", "--strict", "--json")
    document = run.json()
    assert {e["key"] for e in document["entries"]} == cited
    assert document["summary"]["cited"] == len(cited)
    said = f"checked {len(cited)} of {len(own)} entries ({len(cited)} cited)"
    assert f"check_refs: {said}" in run.stderr  # --json says it too, beside the JSON
    assert set(document["not_cited"]) == own - cited
    assert {Path(e["file"]).name for e in document["entries"]} == {"systolic_paper.tex"}
    # a statement cited in an input is read there, with that file's name and line
    intro = members["s1_introduction_and_main_results.tex"].decode().split("\n")
    line = next(n for n, text in enumerate(intro, 1) if r"\cite[Thm.\ 1.1]{haim-kislev}" in text)
    statements = {
        (c["key"], c["number"], Path(c["file"]).name, c["line"]) for c in document["statements"]
    }
    assert ("haim-kislev", "1.1", "s1_introduction_and_main_results.tex", line) in statements
    table = script("check_refs.py", str(paper), "--cited-only")
    assert said in table.stdout


def test_strict_fails_on_a_cited_key_missing_from_a_multi_file_paper(script, standin, tmp_path):
    members = local_copy(SYSTOLIC, tmp_path)
    main = members["systolic_paper.tex"].decode()
    intro = members["s1_introduction_and_main_results.tex"].decode()
    (tmp_path / "s1_introduction_and_main_results.tex").write_text(
        intro + "\nSee also \\cite{nowhere-in-the-bibliography}.\n", encoding="utf-8"
    )
    paper = tmp_path / "systolic_paper.tex"
    run = script("check_refs.py", str(paper), "--cited-only", "--strict")
    assert run.returncode == 1, run.stderr
    line = intro.count("\n") + 2
    assert (
        f"missing: nowhere-in-the-bibliography is cited (s1_introduction_and_main_results.tex "
        f"line {line}) but in no bibliography" in run.stdout
    )
    assert "1 cited key missing" in run.stderr.splitlines()[-1]
    assert "\\cite{nowhere" not in main  # planted in an input, not in the main file


def test_a_local_paper_whose_bib_is_not_shipped_is_read_from_its_bbl(script, standin, tmp_path):
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\begin{document}\n\\input{body}\n"
        "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "body.tex").write_text("As shown in \\cite{bezdek}.\n", encoding="utf-8")
    (tmp_path / "paper.bbl").write_text(
        "\\begin{thebibliography}{1}\n\\bibitem{bezdek}\nD.~Bezdek and K.~Bezdek.\n"
        "\\newblock Shortest billiard trajectories.\n\\newblock {\\em Geom. Dedicata}, "
        "141:197--206, 2009.\n\\end{thebibliography}\n",
        encoding="utf-8",
    )
    run = script("check_refs.py", str(tmp_path / "paper.tex"), "--json")
    assert run.returncode == 0, run.stderr
    document = run.json()
    assert document["inputs"] == [
        {"file": str(tmp_path / "paper.bbl"), "kind": "bbl", "entries": 1}
    ]
    assert [e["key"] for e in document["entries"]] == ["bezdek"]
    assert (
        "refs.bib (\\bibliography of paper.tex) is not there: read paper.bbl"
        in (document["warnings"][0])
    )


def test_strict_fails_when_nothing_was_checked(script, standin, tmp_path):
    (tmp_path / "refs.bib").write_text(
        "@article{a, title={A}, author={B, C}, year=2000}\n", encoding="utf-8"
    )
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\begin{document}No citation.\n"
        "\\bibliography{refs}\\end{document}\n",
        encoding="utf-8",
    )
    run = script("check_refs.py", str(tmp_path / "paper.tex"), "--cited-only", "--strict")
    assert run.returncode == 1, run.stdout
    assert "checked 0 of 1 entry (0 cited)" in run.stdout
    assert "--strict: nothing was checked" in run.stderr


def test_an_input_outside_the_papers_folder_is_not_read(tmp_path):
    """The inputs are found in the paper's folder only: `..`, an absolute path or a link leading
    out is a missing input, its citations unread."""
    from mathtools.papers import read_paper_input

    paper = tmp_path / "paper"
    paper.mkdir()
    (tmp_path / "outside.tex").write_text("\\cite{outside}\n", encoding="utf-8")
    (paper / "link.tex").symlink_to(tmp_path / "outside.tex")
    (paper / "inside.tex").write_text("\\cite{inside}\n", encoding="utf-8")
    (paper / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}\n\\input{../outside}\n"
        f"\\input{{{tmp_path / 'outside'}}}\n\\input{{link}}\n\\include{{inside}}\n"
        "\\begin{thebibliography}{1}\\bibitem{inside} A. B., \\emph{A title}, 2000.\n"
        "\\end{thebibliography}\\end{document}\n",
        encoding="utf-8",
    )
    found = read_paper_input([str(paper / "main.tex")]).bibliography
    assert set(found.cited) == {"inside"}
    assert found.cited["inside"] == (str(paper / "inside.tex"), 1)
