"""The theorem extractor (mathtools/papers/theorems.py, texsource.py, texmacros.py,
texshorthands.py, texcounters.py).

The ground truth is ../shared/recordings/arxiv-src/expected/: five real papers' sources, every
statement's environment, printed number and note as pdflatex printed them. Each recording is
read through the client's own sniffing path (latex_source.read_body), as a fetched answer would
be. The other tests are SYNTHESIZED: small LaTeX sources written here for one feature each (the
papers do not use \\include, equation-shared counters, chapters, ...).
"""

from __future__ import annotations

import pytest
from mathtools.papers import texsource
from mathtools.papers.theorems import extract
from mathtools.services import latex_source
from support import arxiv_src


def _paper(arxiv_id: str):
    unpacked = latex_source.read_body(arxiv_src.body(arxiv_id), arxiv_id)
    assert isinstance(unpacked, latex_source.Unpacked)
    return extract(unpacked.members)


@pytest.mark.parametrize("arxiv_id", arxiv_src.PAPERS)
def test_every_statement_of_the_five_papers_as_latex_printed_it(arxiv_id):
    truth = arxiv_src.expected(arxiv_id)
    found = _paper(arxiv_id)
    assert found.main_file == truth["main_tex"]
    got = [(s["env"], s["printed"], s["note"]) for s in found.statements]
    want = [(s["env"], s["printed"], s["note"]) for s in truth["statements"]]
    assert got == want
    for mine, theirs in zip(found.statements, truth["statements"], strict=True):
        assert (mine["name"], mine["number"], mine["label"]) == (
            theirs["name"],
            theirs["number"],
            theirs["label"],
        ), theirs["printed"]
        assert (mine["source_file"], mine["source_line"]) == (
            theirs["source_file"],
            theirs["source_line"],
        ), theirs["printed"]
        assert " ".join(mine["text"].split()[:15]) == theirs["first_words_tex"], theirs["printed"]


@pytest.mark.parametrize("arxiv_id", arxiv_src.PAPERS)
def test_the_declarations_are_the_papers_own(arxiv_id):
    declared = arxiv_src.expected(arxiv_id)["theorem_declarations"]
    mine = {env["env"]: env for env in _paper(arxiv_id).environments}
    assert set(mine) == set(declared)
    for env, want in declared.items():
        got = mine[env]
        assert got["name"] == want["display"]
        assert got["numbered"] is not want["starred"]
        assert (got["counter"] if got["counter"] != env else None) == want["shared"]
        if want["shared"] is None and not want["starred"]:
            assert got["within"] == want["within"]


def test_the_papers_traps_are_read():
    """Beyond the numbers: the Latin-1 paper's display names, 2203.01718's shorthand macros
    collected (the numbers above show they were expanded), the inputs of 2008.10111."""
    bezdek = _paper("1110.4324")
    assert [m["name"] for m in bezdek.macros[:3]] == ["\\kkk", "\\E", "\\N"]
    rudolf = _paper("2203.01718")
    bthm = [m for m in rudolf.macros if m["name"] == "\\bthm"]
    assert bthm[0]["body"] == "\\begin{theorem}" and bthm[0]["kind"] == "def"
    chaidez = _paper("2008.10111")
    assert chaidez.files_read[0] == "systolic_paper.tex"
    assert chaidez.files_read[-1] == "a1_rotation_numbers.tex" and not chaidez.missing_inputs


# --- synthesized sources -----------------------------------------------------------------------

PREAMBLE = r"""\documentclass{article}
\usepackage{amsthm}
\newtheorem{theorem}{Theorem}[section]
\newtheorem{lemma}[theorem]{Lemma}
\newtheorem*{remark*}{Remark}
"""


def _run(body: str, preamble: str = PREAMBLE, **files: str):
    members = {"main.tex": (preamble + "\\begin{document}\n" + body + "\n\\end{document}\n")}
    members.update({name.replace("__", "/") + ".tex": text for name, text in files.items()})
    return extract({name: text.encode("utf-8") for name, text in members.items()})


def _printed(found) -> list[str]:
    return [s["printed"] for s in found.statements]


def test_inputs_in_every_form_and_missing_ones_noted():
    """Synthesized: \\input{x}, \\input{x.tex}, `\\input x`, \\include{x}, a nested input resolved
    from the main file's folder, and `\\input xy` (a package) listed as missing."""
    found = _run(
        "\\section{A}\n\\input{one}\n\\input{two.tex}\n\\input three\n\\include{four}\n"
        "\\input xy\n\\input{parts/five}",
        one="\\begin{theorem}one\\end{theorem}",
        two="\\begin{lemma}two\\end{lemma}",
        three="\n\n\\begin{theorem}three\\end{theorem}",
        four="\\begin{lemma}four\\end{lemma}",
        parts__five="\\input{parts/six}",
        parts__six="\\begin{lemma}six\\end{lemma}",
    )
    assert _printed(found) == ["Theorem 1.1", "Lemma 1.2", "Theorem 1.3", "Lemma 1.4", "Lemma 1.5"]
    assert [(s["source_file"], s["source_line"]) for s in found.statements] == [
        ("one.tex", 1),
        ("two.tex", 1),
        ("three.tex", 3),
        ("four.tex", 1),
        ("parts/six.tex", 1),
    ]
    assert found.missing_inputs == [
        {"name": "xy", "command": "input", "source_file": "main.tex", "source_line": 12}
    ]


def test_a_package_the_paper_ships_is_read_a_system_one_is_not_missing():
    """Synthesized: theorems declared in the paper's own mythms.sty, loaded with amsthm."""
    members = {
        "main.tex": b"\\documentclass{article}\n\\usepackage[x]{amsthm, mythms}\n"
        b"\\begin{document}\\begin{prop}p\\end{prop}\\end{document}",
        "mythms.sty": b"\\newtheorem{prop}{Proposition}",
    }
    found = extract(members)
    assert _printed(found) == ["Proposition 1"]
    assert found.files_read == ["main.tex", "mythms.sty"] and not found.missing_inputs
    assert found.environments[0]["source_file"] == "mythms.sty"


def test_an_input_loop_is_read_once():
    """Synthesized: two files inputting each other."""
    found = _run("\\input{a}", a="\\begin{theorem}a\\end{theorem}\\input{b}", b="\\input{a}")
    assert _printed(found) == ["Theorem 0.1"]


def test_comments_and_dead_code_are_skipped_but_lines_keep_their_numbers():
    """Synthesized: `%` comments (not `\\%`; `\\\\%` is a comment), \\iffalse with a nested
    conditional and an \\else branch, \\iftrue's \\else, the comment environment, \\endinput."""
    body = "\n".join(
        [
            "\\section{S}",  # line 7
            "50\\% % \\begin{theorem}commented\\end{theorem}",
            "\\\\% \\begin{theorem}also commented\\end{theorem}",
            "\\iffalse",
            "\\ifx\\a\\b \\begin{theorem}dead\\end{theorem} \\fi",
            "\\else",
            "\\begin{lemma}alive\\end{lemma}",  # line 13
            "\\fi",
            "\\iftrue \\begin{lemma}kept\\end{lemma}\\else \\begin{lemma}no\\end{lemma}\\fi",
            "\\begin{comment}",
            "\\begin{theorem}in a comment environment\\end{theorem}",
            "\\end{comment}",
            "$A \\iff B$ \\begin{theorem}after iff\\end{theorem}",  # line 19
        ]
    )
    found = _run(body)
    assert [(s["printed"], s["text"], s["source_line"]) for s in found.statements] == [
        ("Lemma 1.1", "alive", 13),
        ("Lemma 1.2", "kept", 15),
        ("Theorem 1.3", "after iff", 19),
    ]
    cut = _run(
        "\\input{part}", part="\\begin{lemma}x\\end{lemma}\\endinput\n\\begin{lemma}y\\end{lemma}"
    )
    assert [s["text"] for s in cut.statements] == ["x"]


def test_line_endings_latin1_and_accented_names():
    """Synthesized: CRLF and lone CR line ends, a Latin-1 byte, a display name with accents and
    font commands."""
    source = (
        b"\\documentclass{article}\r\n\\newtheorem{thm}{{\\bf Th\\'eor\\`eme}}\r"
        b"\\newtheorem{lem}[thm]{\\textsc{Lemme}}\n\\begin{document}\r\n\r\n"
        b"\\begin{thm}[Caf\xe9]\r\nx\r\n\\end{thm}\r\\begin{lem}y\\end{lem}\n\\end{document}\n"
    )
    found = extract({"main.tex": source})
    assert [(s["printed"], s["note"], s["source_line"]) for s in found.statements] == [
        ("Théorème 1", "Café", 6),
        ("Lemme 2", None, 9),
    ]
    assert texsource.decode(b"\xef\xbb\xbfa\r\nb\rc") == "a\nb\nc"


def test_numbering_sections_starred_and_the_appendix():
    """Synthesized: [section] resets, shared counters, \\section* steps nothing, \\newtheorem*
    and an undeclared `lemma*` are unnumbered, statements before any section are 0.n, the
    appendix numbers A.n, a \\subsection does not reset a [section] counter."""
    body = r"""\begin{theorem}zero\end{theorem}
\section{One}\begin{theorem}a\end{theorem}\subsection{x}\begin{lemma}b\end{lemma}
\section*{Unnumbered}\begin{lemma}c\end{lemma}\begin{remark*}d\end{remark*}\begin{lemma*}e\end{lemma*}
\section{Two}\begin{lemma}f\end{lemma}
\appendix\section{Extra}\begin{theorem}g\end{theorem}\section{More}\begin{lemma}h\end{lemma}"""
    assert _printed(_run(body)) == [
        "Theorem 0.1",
        "Theorem 1.1",
        "Lemma 1.2",
        "Lemma 1.3",
        "Remark",
        "Lemma",
        "Lemma 2.1",
        "Theorem A.1",
        "Lemma B.1",
    ]
    found = _run(body)
    assert [s["number"] for s in found.statements][4:6] == [None, None]


def test_chapters_in_a_book_and_the_appendix_environment():
    """Synthesized: a book class numbers [section] theorems chapter.section.n and the appendix
    chapters by letter; `\\begin{appendix}` works like `\\appendix`."""
    preamble = "\\documentclass{book}\n\\newtheorem{theorem}{Theorem}[section]\n"
    body = (
        "\\chapter{A}\\section{a}\\begin{theorem}x\\end{theorem}\\chapter{B}\\section{b}"
        "\\section{c}\\begin{theorem}y\\end{theorem}\\begin{appendix}\\chapter{C}\\section{d}"
        "\\begin{theorem}z\\end{theorem}\\end{appendix}"
    )
    assert _printed(_run(body, preamble)) == ["Theorem 1.1.1", "Theorem 2.2.1", "Theorem A.1.1"]
    chapter_wise = "\\documentclass{report}\n\\newtheorem{theorem}{Theorem}[chapter]\n"
    assert _printed(_run("\\chapter{A}\\begin{theorem}x\\end{theorem}", chapter_wise)) == [
        "Theorem 1.1"
    ]


def test_counters_set_by_hand_numberwithin_aliascnt_and_templates():
    """Synthesized: \\setcounter, \\addtocounter, \\numberwithin, aliascnt's shared counter,
    \\renewcommand of a \\the template, thmtools' \\declaretheorem."""
    preamble = r"""\documentclass{amsart}
\newtheorem{theorem}{Theorem}
\numberwithin{theorem}{section}
\newaliascnt{lemma}{theorem}
\newtheorem{lemma}[lemma]{Lemma}
\declaretheorem[name=Question, sibling=theorem]{question}
\declaretheorem[numbered=no]{claim}
\newtheorem{conj}{Conjecture}
\renewcommand{\theconj}{\Roman{conj}}
"""
    body = r"""\setcounter{section}{2}\section{S}\begin{theorem}a\end{theorem}
\begin{lemma}b\end{lemma}\begin{question}c\end{question}\begin{claim}d\end{claim}\addtocounter{theorem}{5}
\begin{theorem}e\end{theorem}\begin{conj}f\end{conj}\begin{conj}g\end{conj}"""
    assert _printed(_run(body, preamble)) == [
        "Theorem 3.1",
        "Lemma 3.2",
        "Question 3.3",
        "Claim",
        "Theorem 3.9",
        "Conjecture I",
        "Conjecture II",
    ]


def test_theorems_sharing_the_equation_counter_count_the_displays():
    """Synthesized: \\newtheorem{theorem}[equation] with equations, an align of three rows (one
    \\nonumber) and a final `\\\\` (an empty row LaTeX numbers too), starred displays, a
    subequations group (one number) and a matrix's rows (none) in between."""
    preamble = (
        "\\documentclass{article}\n\\numberwithin{equation}{section}\n"
        "\\newtheorem{theorem}[equation]{Theorem}\n"
    )
    body = r"""\section{S}
\begin{equation}a\end{equation}
\begin{theorem}x\end{theorem}
\begin{align}a\\b\nonumber\\c\\\end{align}\begin{equation*}q\end{equation*}\[r\]
\begin{subequations}\begin{equation}s\end{equation}\begin{equation}t\end{equation}\end{subequations}
\begin{align*}u\\v\end{align*}\begin{equation}\begin{pmatrix}1\\2\end{pmatrix}\end{equation}
\begin{theorem}y\end{theorem}"""
    assert _printed(_run(body, preamble)) == ["Theorem 1.2", "Theorem 1.8"]


def test_styles_are_recorded_and_ntheorem_nonumber_styles_unnumbered():
    """Synthesized: \\theoremstyle applies to what follows; ntheorem's nonumberplain declares an
    unnumbered environment."""
    preamble = r"""\documentclass{article}
\newtheorem{theorem}{Theorem}
\theoremstyle{definition}
\newtheorem{definition}[theorem]{Definition}
\theoremstyle{nonumberplain}
\newtheorem{fact}{Fact}
"""
    found = _run("\\begin{definition}a\\end{definition}\\begin{fact}b\\end{fact}", preamble)
    assert _printed(found) == ["Definition 1", "Fact"]
    styles = {env["env"]: env["style"] for env in found.environments}
    assert styles == {"theorem": None, "definition": "definition", "fact": "nonumberplain"}


def test_shorthand_macros_open_statements_but_their_definitions_do_not():
    """Synthesized: \\def, \\newcommand with and without braces, a macro with an argument and
    one with an optional argument's default, each expanding to a theorem environment."""
    preamble = PREAMBLE + (
        "\\def\\bthm{\\begin{theorem}}\\def\\ethm{\\end{theorem}}\n"
        "\\newcommand{\\blem}{\\begin{lemma}}\\newcommand\\elem{\\end{lemma}}\n"
        "\\newcommand{\\wrapped}[1]{\\begin{theorem}#1\\end{theorem}}\n"
        "\\newcommand{\\noted}[2][Default]{\\begin{lemma}[#1]#2\\end{lemma}}\n"
    )
    body = (
        "\\section{S}\\bthm[Named]\\label{t} First.\\ethm\n\\blem Second\\elem\n"
        "\\wrapped{Third}\n\\noted{Fourth}\\noted[Own]{Fifth}"
    )
    found = _run(body, preamble)
    assert [(s["env"], s["printed"], s["note"], s["text"]) for s in found.statements] == [
        ("theorem", "Theorem 1.1", "Named", "First."),
        ("lemma", "Lemma 1.2", None, "Second"),
        ("theorem", "Theorem 1.3", None, "Third"),
        ("lemma", "Lemma 1.4", "Default", "Fourth"),
        ("lemma", "Lemma 1.5", "Own", "Fifth"),
    ]
    assert found.statements[0]["label"] == "t"
    assert [s["source_line"] for s in found.statements] == [11, 12, 13, 14, 14]


def test_a_macro_using_itself_does_not_blow_up():
    """Synthesized: `\\def\\a{\\a\\a\\begin{theorem}x\\end{theorem}}` doubles at each expansion;
    the expansion stops (the paper's text is at most MAX_GROWTH times longer)."""
    preamble = PREAMBLE + "\\def\\boom{\\boom\\boom\\begin{lemma}x\\end{lemma}}\n"
    found = _run("\\boom" * 20, preamble)
    assert 20 <= len(found.statements) < 5000


def test_a_source_no_paper_could_be_is_refused_or_cut(monkeypatch):
    """Synthesized: more statements than MAX_STATEMENTS (lowered here) is a typed error (one line,
    exit 3); an unclosed statement's text stops at MAX_TEXT_CHARS."""
    from mathtools.core.errors import EXIT_SERVICE
    from mathtools.papers import theorems

    monkeypatch.setattr(theorems, "MAX_STATEMENTS", 3)
    with pytest.raises(theorems.TooManyStatements) as raised:
        _run("\\begin{lemma}x\\end{lemma}" * 4)
    assert raised.value.exit_code == EXIT_SERVICE
    unclosed = _run("\\begin{lemma}" + "x" * 30_000)
    assert len(unclosed.statements[0]["text"]) == theorems.MAX_TEXT_CHARS


def test_the_own_label_and_the_text_without_labels():
    """Synthesized: the statement's label is its own, not an equation's or an item's before it."""
    body = (
        "\\begin{theorem}\\begin{equation}\\label{eq}x\\end{equation}\\label{thm}Then $y$."
        "\\end{theorem}\\begin{lemma}\\[\\label{d}a\\] b\\end{lemma}"
    )
    found = _run(body)
    assert [s["label"] for s in found.statements] == ["thm", None]
    assert found.statements[0]["text"] == "\\begin{equation}x\\end{equation}Then $y$."


def test_the_papers_macros_are_collected_with_their_arguments():
    """Synthesized: every definition kind, with its argument count, default and place."""
    preamble = r"""\documentclass{article}
\newcommand{\R}{\mathbb{R}}
\renewcommand*\vec[1]{\mathbf{#1}}
\providecommand{\norm}[2][2]{\|#2\|_{#1}}
\def\pair#1#2{(#1,#2)}
\let\eps\varepsilon
\DeclareMathOperator*{\argmin}{arg\,min}
"""
    found = _run("text", preamble)
    assert [
        (m["name"], m["kind"], m["arguments"], m["default"], m["body"]) for m in found.macros
    ] == [
        ("\\R", "newcommand", 0, None, "\\mathbb{R}"),
        ("\\vec", "renewcommand", 1, None, "\\mathbf{#1}"),
        ("\\norm", "providecommand", 2, "2", "\\|#2\\|_{#1}"),
        ("\\pair", "def", 2, None, "(#1,#2)"),
        ("\\eps", "let", 0, None, "\\varepsilon"),
        ("\\argmin", "DeclareMathOperator", 0, None, "arg\\,min"),
    ]
    assert [m["source_line"] for m in found.macros] == [2, 3, 4, 5, 6, 7]


def test_the_main_file_is_found_among_several():
    """Synthesized: \\documentstyle behind \\ifx, a subfile with its own \\documentclass that the
    main file inputs, and a template without \\begin{document}."""
    main = (
        "\\ifx\\documentclass\\undefined\n\\documentstyle{article}\n\\else\n"
        "\\documentclass{article}\n\\fi\n\\newtheorem{theorem}{Theorem}\n"
        "\\begin{document}\\input{chapter}\\end{document}"
    )
    members = {
        "a-template.tex": b"\\documentclass{article}\n% no document here",
        "paper.tex": main.encode(),
        "chapter.tex": b"\\documentclass[paper]{subfiles}\\begin{document}"
        b"\\begin{theorem}x\\end{theorem}\\end{document}",
    }
    found = extract(members)
    assert found.main_file == "paper.tex"
    assert _printed(found) == ["Theorem 1"]
    assert extract({"fig.png": b"\x89PNG"}).main_file is None


def test_what_follows_the_end_of_the_document_is_not_read():
    found = _run("\\begin{theorem}in\\end{theorem}")
    assert _printed(found) == ["Theorem 0.1"]
    after = extract(
        {
            "m.tex": PREAMBLE.encode() + b"\\begin{document}\\end{document}"
            b"\\begin{theorem}after\\end{theorem}"
        }
    )
    assert after.statements == []
