"""A [V] claim quotes its source and a script checks the quote (mathtools.litdoc.quotes): in Key
Results, the Synthesis (validate, merge, finish), PROOF.md and OUTPUT.tex (latex.py check).

The entries here are built in the test; the statement text is Theorem 1.3 of arXiv:2203.01718 as
its LaTeX source states it (../shared/recordings/arxiv-src), copied into the test so that it runs
without ../shared."""

from __future__ import annotations

import pytest
from mathtools.litdoc import checks, literature, quotes
from mathtools.litdoc.refentry import Entry
from mathtools.research import texcheck

ABSTRACT = (
    "We rigorously state the connection between the EHZ-capacity of convex Lagrangian products "
    r"$K\times T\subset\R^n\times\R^n$ and the minimal length of closed $(K,T)$-Minkowski "
    "billiard trajectories."
)
THEOREM = (
    r"Let $K,T\subset\R^n$ be convex bodies such that $K\times T\subset\R^{2n}$ is a convex "
    r"Lagrangian product. Then, we have \begin{equation*} c_{EHZ}(K\times T) = "
    r"\min_{q\in F_{n+1}^{cp}(K)}\ell_T(q) \leq \min_{p\in F_{n+1}^{cp}(T)}\ell_K(p)\end{equation*}"
)
SRC = "https://export.arxiv.org/src/2203.01718"


def entries() -> dict[str, Entry]:
    ref = Entry.new(
        "REF",
        1,
        "The Minkowski billiard characterization of the EHZ-capacity",
        {"Authors": "Stefan Krupp, Daniel Rudolf", "Abstract": ABSTRACT, "Key Results": "x"},
        [],
    )
    ref.set_statements(SRC, {"Theorem 1.3": THEOREM})
    uref = Entry.new("UREF", 1, "A folklore bound", {"Authors": "Someone"}, [])
    return {"REF-001": ref, "UREF-001": uref}


def refused(text: str) -> list[str]:
    return quotes.violations(text, entries(), "Synthesis")


def test_the_papers_own_words_pass_whatever_the_spacing():
    assert refused(f'- [V] "{ABSTRACT[:90]}" (REF-001, abstract).') == []
    # LaTeX spacing and aliases are one quote: \le is \leq, \, and ~ are spaces, line breaks too
    spaced = r"$K\times T \subset \R^{2n}$ is a convex~Lagrangian\,product. Then, we have"
    assert refused(f'- [V] "{spaced}" (REF-001, Theorem 1.3).') == []
    aliased = r"\min_{q\in F_{n+1}^{cp}(K)}\ell_T(q) \le \min_{p\in F_{n+1}^{cp}(T)}\ell_K(p)"
    assert refused(f'- [V] "{aliased}" (REF-001, Theorem 1.3).') == []
    elided = r"Let $K,T\subset\R^n$ be convex bodies ... is a convex Lagrangian product"
    assert refused(f'- [V] "{elided}" (REF-001, Theorem 1.3).') == []


def test_a_quote_not_in_its_source_is_refused_naming_the_closest_passage():
    (why,) = refused('- [V] "Let $K,T$ be smooth strictly convex bodies in the plane" (REF-001, '
                     "Theorem 1.3).")  # fmt: skip
    assert why.startswith("Synthesis line 1: [V] ") and "is not in REF-001, Theorem 1.3" in why
    assert 'closest: "Let $K,T\\subset\\R^n$ be convex bodies such' in why
    # the words are in the paper, but not in the passage named
    (why,) = refused(f'- [V] "{ABSTRACT[:60]}" (REF-001, Theorem 1.3).')
    assert "is not in REF-001, Theorem 1.3" in why


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ("- [V] The EHZ capacity is a billiard length (REF-001, Theorem 1.3).", "quotes no source"),
        ('- [V] "We rigorously state the connection between the EHZ-capacity".', "cites no REF"),
        ('- [V] "a folklore bound holds for all convex bodies" (UREF-001, abstract).', "UREF-001"),
        ('- [V] "We rigorously state the connection" (REF-009, abstract).', "not an entry"),
        ('- [V] "We rigorously state the connection" (REF-001, Theorem 9.9).', "does not keep"),
        ('- [V] "We rigorously" (REF-001, abstract).', "too short"),
    ],
)
def test_a_v_claim_without_a_checkable_quote_is_refused(claim, said):
    (why,) = refused(claim)
    assert said in why, why


def test_key_results_may_leave_out_their_own_ref():
    ref = entries()["REF-001"]
    (quote,) = quotes.quotes(
        '[V] "convex bodies such that $K\\times T\\subset\\R^{2n}$" (Theorem 1.3)'
    )
    assert quotes.check(quote, entries(), own=ref) is None
    assert quotes.check(quote, entries()) is not None  # in a Synthesis it must name the REF


def test_validate_checks_the_synthesis_and_key_results(tmp_path):
    doc = literature.parse_literature(literature.template("billiards"), "LITERATURE.md")
    ref = entries()["REF-001"]
    ref.set_field("Key Results", '[V] "a convex Lagrangian product" (Theorem 1.3)')
    doc.section(literature.CONFIRMED).add_entry(ref)
    section = doc.section(literature.SYNTHESIS)
    section.intro = ["\n", '- [V] "convex bodies of the plane" (REF-001, Theorem 1.3).\n', "\n"]
    found = checks.quote_violations(doc)
    assert len(found) == 1 and found[0].startswith("Synthesis line ")
    assert 'closest: "' in found[0]


def test_keep_quoted_keeps_the_statements_claims_quote_and_names_those_the_paper_lacks():
    doc = literature.parse_literature(literature.template("billiards"), "LITERATURE.md")
    key_results = '[V] "a convex Lagrangian product" (Theorem 1.3); [V] "a lemma" (Lemma 9.9)'
    values = {"arXiv ID": "2203.01718", "Abstract": ABSTRACT, "Key Results": key_results}
    ref = Entry.new("REF", 1, "Title", values, [])
    doc.section(literature.CONFIRMED).add_entry(ref)
    read = {"Theorem 1.3": THEOREM, "Definition 2.1": "a definition"}
    papers = {"2203.01718": quotes.LatexSourceText(SRC, read, listed=[])}
    said = quotes.keep_quoted(doc, papers)
    assert said == [
        "REF-001: the paper states no Lemma 9.9 (it states Theorem 1.3, Definition 2.1)"
    ]
    kept = literature.parse_literature(doc.render(), "LITERATURE.md").confirmed[0]
    assert kept.statements() == {"Theorem 1.3": " ".join(THEOREM.split())}
    assert kept.statements_source == SRC
    assert f"- **Statements:** quoted from {SRC}\n" in doc.render()


def test_every_statement_verify_listed_is_kept_and_quotable_by_a_later_synthesis():
    """Issue 37: a follow-up's Synthesis quoting REF-001's Conjecture 1.1, which verify listed
    but no claim of the first search quoted, was refused ("which REF-001 does not keep")."""
    doc = literature.parse_literature(literature.template("billiards"), "LITERATURE.md")
    values = {"arXiv ID": "2203.01718", "Abstract": ABSTRACT, "Key Results": "[S] the bound"}
    doc.section(literature.CONFIRMED).add_entry(Entry.new("REF", 1, "Title", values, []))
    conjecture = r"Every convex body $K$ satisfies $c(K)^n \leq n!\,\mathrm{vol}(K)$."
    read = {"Theorem 1.3": THEOREM, "Conjecture 1.1": conjecture, "Lemma 4.2": "a lemma"}
    listed = ["Conjecture 1.1", "Theorem 1.3"]
    assert quotes.keep_quoted(doc, {"2203.01718": quotes.LatexSourceText(SRC, read, listed)}) == []
    later = literature.parse_literature(
        doc.render(), "LITERATURE.md"
    )  # a later search: no source read
    assert set(later.confirmed[0].statements()) == {"Conjecture 1.1", "Theorem 1.3"}
    section = later.section(literature.SYNTHESIS)
    claim = r'- [V] "Every convex body $K$ satisfies $c(K)^n \le n! \mathrm{vol}(K)$" '
    section.intro = ["\n", claim + "(REF-001, Conjecture 1.1).\n", "\n"]
    assert checks.quote_violations(later) == []


def test_a_statement_of_a_source_that_could_not_be_read_is_unknown_not_absent():
    """Issue 37: "REF-002: the paper states no Theorem 1.1 (it states )" for a source that
    could not be fetched."""
    doc = literature.parse_literature(literature.template("billiards"), "LITERATURE.md")
    values = {"arXiv ID": "2203.01718", "Abstract": ABSTRACT, "Key Results": "[S] x"}
    doc.section(literature.CONFIRMED).add_entry(Entry.new("REF", 1, "Title", values, []))
    doc.section(literature.SYNTHESIS).intro = [
        "\n",
        '- [V] "convex Lagrangian product" (REF-001, Theorem 1.1).\n',
        "\n",
    ]
    down = quotes.LatexSourceText(SRC, {}, [], "arXiv's LaTeX source server unreachable")
    said = quotes.keep_quoted(doc, {"2203.01718": down})
    assert said == [
        "REF-001: Theorem 1.1 is unknown: the paper's LaTeX source could not be read "
        "(arXiv's LaTeX source server unreachable)"
    ]
    assert "states no" not in said[0] and "(it states )" not in said[0]


def test_the_speculative_warning_numbers_the_speculative_claims():
    text = "### Applicable Theorems\n- [V] a.\n\n### Gaps\n- [~] b.\n- [S] c.\n- [~] d.\n"
    warned = checks.with_warning(text)
    assert warned.startswith(checks.SPECULATIVE_WARNING.format(steps="claims 2 and 4"))
    assert checks.with_warning(warned) == warned  # an old warning is replaced, not repeated
    assert checks.with_warning("- [S] only supported.\n") == "- [S] only supported.\n"


PROOF = """\
### Lemma 1: The capacity is a billiard length
**Status:** complete
**Confidence:** [V]
**Depends on:** REF-001

{claim}
"""


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        ('By [V] "a convex Lagrangian product. Then, we have" (REF-001, Theorem 1.3).', None),
        ("By REF-001, Theorem 1.3, the capacity is a billiard length.", "quotes no source"),
        ('By [V] "a strictly convex Lagrangian product" (REF-001, Theorem 1.3).', "closest"),
    ],
)
def test_latex_check_reads_the_quotes_of_proof_md(tmp_path, claim, said):
    folder = problem_folder(tmp_path, PROOF.format(claim=claim), TEX_PLAIN)
    _, violations = texcheck.check_folder(folder)
    found = [v["message"] for v in violations if v["kind"] == "unchecked_quote"]
    assert found == [] if said is None else (len(found) == 1 and said in found[0]), found


TEX_PLAIN = r"""\documentclass{article}
\newcommand{\verified}{\textsuperscript{[V]}}
\begin{document}
{claim}
\bibliographystyle{plain}
\bibliography{references}
\end{document}
"""


@pytest.mark.parametrize(
    ("claim", "said"),
    [
        (
            r"\verified{} ``a convex Lagrangian product'' \cite[Theorem~1.3]{krupp2022minkowski}.",
            None,
        ),
        (r"By \verified{} the theorem of \cite{krupp2022minkowski}, done.", "quotes no source"),
        (
            r"\verified{} ``a concave Lagrangian product'' \cite[Theorem~1.3]{krupp2022minkowski}.",
            "closest",
        ),
    ],
)
def test_latex_check_reads_the_quotes_of_output_tex(tmp_path, claim, said):
    folder = problem_folder(tmp_path, "", TEX_PLAIN.replace("{claim}", claim))
    _, violations = texcheck.check_folder(folder)
    found = [v["message"] for v in violations if v["kind"] == "unchecked_quote"]
    assert found == [] if said is None else (len(found) == 1 and said in found[0]), found


def problem_folder(tmp_path, proof_md: str, tex: str):
    """A problem folder: LITERATURE.md with the one REF, references.bib, PROOF.md, OUTPUT.tex."""
    from mathtools.litdoc import bibexport

    folder = tmp_path / "billiards"
    folder.mkdir()
    doc = literature.parse_literature(literature.template("billiards"), "LITERATURE.md")
    ref = entries()["REF-001"]
    ref.set_field("Year", "2022")
    ref.set_field("Verified", f"2026-11-25T00:00:00Z via {SRC}")
    doc.section(literature.CONFIRMED).add_entry(ref)
    (folder / "LITERATURE.md").write_text(doc.render())
    keys = {entry.key: entry.entry_number for entry in bibexport.bib_entries(doc)}
    assert keys == {"krupp2022minkowski": "REF-001"}, keys  # the key OUTPUT.tex cites
    (folder / "references.bib").write_text(bibexport.bib_entries(doc)[0].render())
    (folder / "PROOF.md").write_text(proof_md)
    (folder / "OUTPUT.tex").write_text(tex.replace("{claim}", ""))
    if "{claim}" not in tex:
        (folder / "OUTPUT.tex").write_text(tex)
    return folder
