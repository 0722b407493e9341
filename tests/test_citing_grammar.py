"""The grammar by which LaTeX names a cited paper's statements (papers/citinggrammar.py): on
SYNTHESIZED snippets, one per way mathematicians write it (and the near misses it must not
read), and on the real sources of the five shared arXiv papers, whose prose citations were read
off their .tex by hand."""

from __future__ import annotations

import pytest
from mathtools.papers import citedstatements, texsource
from mathtools.papers.citinggrammar import mentions
from mathtools.services.latex_source import read_body
from support import arxiv_src


def read(text: str) -> list[tuple[tuple[str, ...], list[str], str]]:
    return [
        (m.keys, [f"{n.kind} {n.number}{n.part or ''}" for n in m.named], m.read_from)
        for m in mentions(text)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # SYNTHESIZED snippets
        (r"by Theorem 2.3 of \cite{key} we get", [(("key",), ["Theorem 2.3"], "prose")]),
        (r"by \cite{key}, Theorem 2.3, we get", [(("key",), ["Theorem 2.3"], "prose")]),
        (r"see Lemma~4.1 in~\cite{key}.", [(("key",), ["Lemma 4.1"], "prose")]),
        (r"as in \cite{key}*{Theorem 2.3}", [(("key",), ["Theorem 2.3"], "note")]),
        (r"as in [\cite{key}, Thm.\ 2.3]", [(("key",), ["Theorem 2.3"], "prose")]),
        (r"(\citet{key}, Prop.~4.1)", [(("key",), ["Proposition 4.1"], "prose")]),
        (r"see Section 3 of~\cite{a,b}", [(("a", "b"), ["Section 3"], "prose")]),
        (r"Thm. 2.3(ii) of \cite{k}", [(("k",), ["Theorem 2.3(ii)"], "prose")]),
        (r"Theorem 2.3 (ii) of \cite{k}", [(("k",), ["Theorem 2.3(ii)"], "prose")]),
        (r"Lemmas 4.1 and 4.2 of \cite{k}", [(("k",), ["Lemma 4.1", "Lemma 4.2"], "prose")]),
        (r"\S 3 of \cite{k}", [(("k",), ["Section 3"], "prose")]),
        (r"§3 in \cite{k}", [(("k",), ["Section 3"], "prose")]),
        (r"Sec.~2.4 of \cite{k}", [(("k",), ["Section 2.4"], "prose")]),
        (r"Eq.~(5.10) in \cite{k}", [(("k",), ["equation 5.10"], "prose")]),
        (r"Lemma A.1 of \cite{k}", [(("k",), ["Lemma A.1"], "prose")]),
        (r"Example A in \cite{k}", [(("k",), ["Example A"], "prose")]),
        (
            r"Lemma 3.1, Corollary 3.2 and Lemma 3.3 of \cite{k}",
            [(("k",), ["Lemma 3.1", "Corollary 3.2", "Lemma 3.3"], "prose")],
        ),
        (
            r"Theorem 1.2 of Bezdek and Bezdek \cite{bb}",
            [(("bb",), ["Theorem 1.2"], "prose")],
        ),
        (r"Theorem 4 in the paper \cite{p}", [(("p",), ["Theorem 4"], "prose")]),
        (r"Theorem 2 of Smith et al.~\cite{s}", [(("s",), ["Theorem 2"], "prose")]),
        (r"Theorem 2 of Smith's paper \cite{s}", [(("s",), ["Theorem 2"], "prose")]),
        (r"theorem 6.2.7 in \cite{Long}", [(("Long",), ["Theorem 6.2.7"], "prose")]),
        (
            r"Lemma 2 of \cite[Section 3]{k}",
            [(("k",), ["Lemma 2"], "prose"), (("k",), ["Section 3"], "note")],
        ),
        (r"\cite[see][Thm.~2]{k}", [(("k",), ["Theorem 2"], "note")]),
        (r"\cite{k}, Lemma 2" + "\n\nNext", [(("k",), ["Lemma 2"], "prose")]),
        # issue 49: the forms a referee met
        (r"see \cite{hk}, Theorem 1.8 and more", [(("hk",), ["Theorem 1.8"], "prose")]),
        (r"In \cite{hk} (Theorem 1.1) it is shown", [(("hk",), ["Theorem 1.1"], "prose")]),
        (
            r"(\cite{viterbo_cap}, Proposition 3.10 and \ldots)",
            [(("viterbo_cap",), ["Proposition 3.10"], "prose")],
        ),
        # Near misses: nothing said of the cited paper's numbering
        (r"In \cite{k}, Theorem 2.3 extends it.", []),  # the citing paper's own Theorem 2.3?
        (r"In \cite{k}, Theorem 2.3 and its proof", []),
        (r"\cite{k} (see Theorem 2.3 below)", []),
        (r"Theorem~\ref{main} of \cite{k}", []),  # a number of the citing paper
        (r"\cite{k} Theorem \ref{main} holds", []),
        (r"shown in \cite{k}. Theorem 2.3 below", []),
        (r"Theorem 2.3 and the results of \cite{k}", []),
        (r"Theorem 2.3 of Section 4 in our text \cite{k}", []),
        (r"\cite[p.~5]{k} and \cite[Chapter~II]{k}", []),
        (r"Lemma 2.1 of \nocite{k}", []),
        (r"Theorem 2.3 of" + "\n\n" + r"\cite{k}", []),  # a paragraph between
    ],
)
def test_statements_cited_in_prose_and_notes_are_read(text, expected):
    assert read(text) == expected


def test_a_prose_citation_is_a_statement_citation_with_its_line():
    """SYNTHESIZED: what check_refs checks, with where it was written and how it was read."""
    text = "Intro.\nBy Theorem~2.3 of~\\cite{key}\nand \\cite[Lemma 1]{key}.\n"
    found = citedstatements.statement_citations(text, lambda line: ("paper.tex", line + 10))
    assert [
        (c["kind"], c["number"], c["read_from"], c["written"], c["line"]) for c in found.citations
    ] == [
        ("Theorem", "2.3", "prose", r"Theorem~2.3 of~\cite{key}", 12),
        ("Lemma", "1", "note", "Lemma 1", 13),
    ]
    assert found.ambiguous == []


# Every statement the five shared papers cite in prose, read off their .tex by hand (the notes,
# \cite[...], are tested in test_check_refs_papers.py). "\cite{AlkoumiSchlenk2014} Theorem
# \ref{Thm:relationship}" of 2203.01718 names that paper's own theorem: not among them.
PROSE = {
    "1010.3170": [
        ("Long", ["Theorem 6.2.7"]),
        ("Long", ["Definition 6.1.10"]),
        ("Oancea", ["Lemma 1.5"]),
        ("Viterbo", ["Proposition 1.4"]),
        ("Viterbo", ["Theorem 1.7"]),
        ("Viterbo", ["Section 4", "Example 1"]),
        ("Viterbo", ["Section 5.3"]),
        ("CFHW", ["Proposition 2.2"]),
        ("Cieliebak", ["Theorem 1.11(1)"]),
        ("Long", ["Theorem 7.3.1"]),
        ("AlbersMazzucchelli", ["Proposition 2.1"]),
        ("AlbersMazzucchelli", ["Proposition 3.2"]),
        ("AlbersMazzucchelli", ["Proposition 2.1"]),
        ("AlbersMazzucchelli", ["Proposition 2.2"]),
    ],
    "1110.4324": [],
    "2008.10111": [],
    "2203.01718": [
        ("KruppRudolf2022", ["Example A"]),
        ("KruppRudolf2022", ["Proposition 3.4"]),
        ("KruppRudolf2022", ["Proposition 3.5"]),
        ("KruppRudolf2022", ["Proposition 3.9"]),
        ("KruppRudolf2022", ["Theorem 3.12"]),
    ],
    "2405.16513": [
        ("p-prod", ["Corollary 1.4"]),
        ("pazit", ["Theorem 1.1"]),
        ("singular_capacity", ["Section 2.4"]),
        ("Mink-Bill-Rudolf", ["Section 1.2"]),
        ("singular_capacity", ["Theorem 2.13"]),
        ("Mink-Bill-Rudolf", ["Theorem 1"]),
        ("pazit", ["Theorem 1.5"]),
    ],
}


@pytest.mark.needs_shared("recordings/arxiv-src")
@pytest.mark.parametrize("arxiv_id", arxiv_src.PAPERS)
def test_the_shared_papers_prose_citations_are_read(arxiv_id):
    outcome = read_body(arxiv_src.body(arxiv_id))
    document = texsource.build(outcome.members)  # type: ignore[union-attr]
    prose = [
        (keys[0], statements)
        for keys, statements, read_from in read(document.text)
        if read_from == "prose"
    ]
    assert prose == PROSE[arxiv_id]
