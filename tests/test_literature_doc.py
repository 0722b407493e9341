"""LITERATURE.md parsing, rendering and validation (literature.py, litentry.py, litcheck.py)."""

from __future__ import annotations

import difflib
import json

import pytest
from conftest import PLUGIN
from mathtools.core import frontmatter, schemas
from mathtools.core.errors import BadInput
from mathtools.litdoc import checks, literature

# A document as a person and the model leave it after some work: hand notes inside and after
# entries, a wrapped abstract, a person's own subsection and section, Synthesis prose.
HAND_EDITED = """\
---
problem: "spectral-gap"
total_papers: 3
confirmed_count: 2
unconfirmed_count: 1
last_search: "2026-02-10T12:00:00Z"
sources_queried: ["arxiv", "semantic_scholar"]
---

# Literature: Spectral gap of random regular graphs

<!-- lit_update: last REF-004, last UREF-001; merges: 0123456789ab -->

## Search History

| Date | Query Summary | arXiv Results | S2 Results | New Confirmed |
|------|---------------|---------------|------------|---------------|
| 2026-02-10 | "spectral gap" AND "random regular" | 8 | 12 | 2 |

## Confirmed References

Papers verified against the APIs.

### REF-002: Polynomial-time approximation of the spectral gap
- **Authors:** Jane Doe, Ján Novák
- **Year:** 2021
- **Source:** both
- **arXiv ID:** 2104.12255
- **DOI:** 10.1000/xyz.1
- **Abstract:** We give an algorithm
  that approximates the gap.
- **Relevance:** Gives the bound we need.
- **Key Results:** Theorem 1.2 (gap >= 1/n).
- **Confidence:** [V]
{VERIFIED}
<!-- ids: arXiv:2104.12255 DOI:10.1000/xyz.1 S2:649def34 -->

My note: read section 3 first, the proof of Lemma 3.1 is the key.

### REF-004: Eigenvalues of random graphs
- **Authors:** Alan Friedman
- **Year:** 2008
- **Source:** arXiv
- **arXiv ID:** cs/0502084
- **Abstract:** A proof of Alon's conjecture.
- **Relevance:** The classical bound.
- **Key Results:** Alon's second eigenvalue conjecture.
- **Confidence:** [S]
- **Verified:** 2026-02-10T12:00:00Z via https://export.arxiv.org/api/query?id_list=cs/0502084

### Reading plan (mine)
Start with REF-004.

## Synthesis

### Applicable Theorems
- [V] "We give an algorithm that approximates the gap" (REF-002, abstract).
- UREF-001 may sharpen it [~].

### Gaps in Literature
Nothing on weighted graphs [~].

## Open questions I keep

- Does the bound hold for directed graphs?

## Unconfirmed References

### UREF-001: A spectral gap folklore result
- **Authors:** Someone Else
- **Year:** 2019
- **Source:** memory
- **Reason:** arXiv API returned no results for ID 1901.00001
- **Relevance:** Would give a constant.
- **Status:** Unconfirmed -- do not cite as established reference
""".replace(
    "{VERIFIED}",
    "- **Verified:** 2026-02-10T12:00:00Z via "
    "https://export.arxiv.org/api/query?id_list=2104.12255,1605.08386 and "
    "https://api.semanticscholar.org/graph/v1/paper/ARXIV:2104.12255",
)


def test_the_template_has_the_protocol_schema():
    text = (PLUGIN / "templates" / "LITERATURE.md").read_text()
    data, body = frontmatter.split_frontmatter(text)
    schema = json.loads((PLUGIN / "schemas" / "literature_frontmatter.schema.json").read_text())
    # the protocol's six fields, in its order: the template, the renderer and the schema agree
    assert list(data) == list(literature.FRONTMATTER_FIELDS) == schema["required"]
    assert len(data) == 6
    headings = [line for line in body.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Search History",
        "## Confirmed References",
        "## Synthesis",
        "## Unconfirmed References",
    ]
    assert "| Date | Query Summary | Results | New Confirmed |" in body
    filled = literature.template("spectral-gap", "Spectral gap")
    assert checks.validate(filled) == []
    assert literature.parse_literature(filled).frontmatter["problem"] == "spectral-gap"


def test_a_slug_with_yaml_syntax_stays_one_string():
    doc = literature.parse_literature(literature.template('odd: "slug" # x'))
    assert doc.frontmatter["problem"] == 'odd: "slug" # x'


@pytest.mark.parametrize(
    "text",
    [
        HAND_EDITED,
        HAND_EDITED.rstrip("\n"),  # no newline at the end of the file
        HAND_EDITED + "\n\n\n",
        literature.template("p"),
    ],
    ids=["hand-edited", "no-final-newline", "trailing-blank-lines", "template"],
)
def test_an_untouched_document_round_trips_byte_for_byte(text):
    assert literature.parse_literature(text).render() == text


def test_entries_expose_their_fields():
    doc = literature.parse_literature(HAND_EDITED)
    first, second = doc.confirmed
    assert (first.number, first.entry_number, first.title) == (
        2,
        "REF-002",
        "Polynomial-time approximation of the spectral gap",
    )
    assert first.authors == ["Jane Doe", "Ján Novák"]
    assert first.year == 2021
    assert (first.source, first.arxiv_id, first.doi) == ("both", "2104.12255", "10.1000/xyz.1")
    assert first.abstract == "We give an algorithm that approximates the gap."
    assert first.relevance == "Gives the bound we need."
    assert first.key_results == "Theorem 1.2 (gap >= 1/n)."
    assert first.confidence == "[V]"
    assert first.verified_at == "2026-02-10T12:00:00Z"
    assert first.verified_via == [
        "https://export.arxiv.org/api/query?id_list=2104.12255,1605.08386",
        "https://api.semanticscholar.org/graph/v1/paper/ARXIV:2104.12255",
    ]
    assert first.ids == ["arXiv:2104.12255", "DOI:10.1000/xyz.1", "S2:649def34"]
    assert second.doi is None and second.arxiv_id == "cs/0502084"
    (uref,) = doc.unconfirmed
    assert (uref.entry_number, uref.reason) == (
        "UREF-001",
        "arXiv API returned no results for ID 1901.00001",
    )
    assert doc.history == [
        {
            "Date": "2026-02-10",
            "Query Summary": '"spectral gap" AND "random regular"',
            "Results": "arXiv 8, Semantic Scholar 12",  # a two-source table's row, read as now
            "New Confirmed": "2",
        }
    ]
    assert doc.synthesis.startswith("### Applicable Theorems")
    assert "weighted graphs" in doc.synthesis
    assert doc.high_water("REF") == 4 and doc.high_water("UREF") == 1
    for entry in doc.confirmed:
        assert schemas.schema_errors("literature_ref", entry.to_dict()) == []
    assert schemas.schema_errors("literature_uref", uref.to_dict()) == []


def test_changing_one_field_keeps_every_other_line():
    doc = literature.parse_literature(HAND_EDITED)
    entry = doc.confirmed[0]
    assert entry.set_field("Source", "arXiv")
    assert not entry.set_field("Source", "arXiv")
    entry.set_field("Abstract", "Short now.")
    after = doc.render()
    diff = list(difflib.ndiff(HAND_EDITED.splitlines(), after.splitlines()))
    removed = [line[2:] for line in diff if line.startswith("- ")]
    added = [line[2:] for line in diff if line.startswith("+ ")]
    assert removed == [
        "- **Source:** both",
        "- **Abstract:** We give an algorithm",
        "  that approximates the gap.",
    ]
    assert added == ["- **Source:** arXiv", "- **Abstract:** Short now."]
    assert "My note: read section 3 first" in after


def test_a_missing_field_is_inserted_in_protocol_order():
    doc = literature.parse_literature(HAND_EDITED)
    entry = doc.confirmed[1]
    entry.set_field("DOI", "10.1/abc")
    lines = entry.lines
    assert lines.index("- **DOI:** 10.1/abc\n") == lines.index("- **arXiv ID:** cs/0502084\n") + 1


@pytest.mark.parametrize(
    ("edit", "line", "words"),
    [
        (('"semantic_scholar"]', '"semantic_scholar"'), 8, "not valid YAML"),
        (("### REF-004: Eigenvalues", "### REF-4 Eigenvalues"), 40, "malformed entry heading"),
        (("### REF-004: Eigenvalues", "### UREF-004: Eigenvalues"), 40, "UREF entry in"),
        (("## Synthesis\n", "## Confirmed References\n"), 54, "a second '## Confirmed"),
        (("## Search History\n", "## Notes\n"), None, "no '## Search History' section"),
        (("---\nproblem", "problem"), 1, "starts with '---'"),
    ],
    ids=["bad-yaml", "bad-heading", "wrong-section", "duplicate-section", "missing", "no-fm"],
)
def test_malformed_documents_are_named_with_the_line(edit, line, words):
    text = HAND_EDITED.replace(*edit, 1)
    with pytest.raises(BadInput) as caught:
        literature.parse_literature(text, "LIT.md")
    assert words in caught.value.message
    if line is not None:
        assert f"line {line}" in caught.value.message
    assert checks.validate(text)[0].startswith("LITERATURE.md")


def test_sections_out_of_order_are_malformed():
    moved = HAND_EDITED.replace("## Synthesis\n", "## Tmp\n").replace(
        "## Search History\n", "## Synthesis\n"
    )
    moved = moved.replace("## Tmp\n", "## Search History\n")
    with pytest.raises(
        BadInput,
        match=r"line 20: '## Confirmed References' must come before '## Synthesis' \(line 14\)",
    ):
        literature.parse_literature(moved)


def test_headings_inside_code_fences_are_prose():
    text = HAND_EDITED.replace(
        "Nothing on weighted graphs [~].\n",
        "Nothing on weighted graphs [~].\n```\n## Confirmed References\n### REF-9\n```\n",
    )
    doc = literature.parse_literature(text)
    assert doc.render() == text and len(doc.confirmed) == 2


def test_the_hand_edited_document_is_valid():
    assert checks.validate(HAND_EDITED) == []


@pytest.mark.parametrize(
    ("edit", "violation"),
    [
        (
            (
                "- **Verified:** 2026-02-10T12:00:00Z via https://export.arxiv.org/api/query?id_list=cs/0502084\n",
                "",
            ),
            "REF-004 (line 40): no 'Verified: <ISO timestamp> via <URL>' line",
        ),
        (
            ("via https://export.arxiv.org/api/query?id_list=cs/0502084", "via the arXiv API"),
            "REF-004 (line 40): the Verified line names no URL",
        ),
        (("confirmed_count: 2", "confirmed_count: 5"), "confirmed_count is 5 but the body has 2"),
        (("total_papers: 3", "total_papers: 2"), "total_papers is 2 but the body has 3"),
        (
            ("### REF-004:", "### REF-002:"),
            "REF-002 (line 40): number used twice (also on line 24)",
        ),
        (
            ("UREF-001 may sharpen it [~]", "UREF-001 proves it [V]"),
            "Synthesis line 58: UREF-001 is unconfirmed and cited as [V]",
        ),
        (("Start with REF-004.", "Start with REF-004."), None),
        (("(REF-002, abstract)", "(REF-007, abstract)"), "Synthesis line 57: cites REF-007"),
        (('problem: "spectral-gap"\n', 'problem: "spectral-gap"\nowner: me\n'), "frontmatter"),
        (("- **Confidence:** [S]", "- **Confidence:** high"), "REF-004 (line 40): confidence"),
        (("- **Year:** 2008", "- **Year:** c. 2008"), "REF-004 (line 40): Year 'c. 2008'"),
        (
            ("- **Status:** Unconfirmed -- do not cite as established reference", ""),
            "UREF-001 (line 69): no 'Status: Unconfirmed -- do not cite as established",
        ),
        (("| 8 | 12 | 2 |", "| 8 |"), "Search History line 18: 3 cells"),
        (("| 8 | 12 | 2 |", "| 8 | 12 |"), "Search History line 18: Results are each source's"),
        (("| 8 | 12 | 2 |", "| eight | 12 | 2 |"), "Search History line 18: Results are"),
    ],
)
def test_validate_names_each_violation(edit, violation):
    found = checks.validate(HAND_EDITED.replace(*edit))
    if violation is None:
        assert found == []
    else:
        assert any(violation in item for item in found), found


def test_validate_reads_a_path(tmp_path):
    path = tmp_path / "LITERATURE.md"
    path.write_text(HAND_EDITED.replace("confirmed_count: 2", "confirmed_count: 1"))
    assert checks.validate(path) == ["frontmatter: confirmed_count is 1 but the body has 2"]
    assert checks.validate(str(path)) == checks.validate(path)
    assert literature.load_literature(path).confirmed[0].number == 2


QUOTED = '[V] "We give an algorithm that approximates the gap" (REF-002, abstract)'
SHARPEN = f"- {QUOTED}.\n- UREF-001 may sharpen it [~].\n"


@pytest.mark.parametrize(
    "claim",
    [
        "- The bound (see UREF-001, Thm. 2) holds [V].\n",
        "- [V] The bound holds; see UREF-001.\n",
        "- The bound of UREF-001\n  holds for all graphs [V].\n",
        "- The bound holds\n  (UREF-001, Thm. 2) [V].\n",
        "- The bound of uref-001 holds [V].\n",
        "- The bound of UREF-001 holds [v].\n",
        "1. [S] REF-002 proves a bound. [V] UREF-001 sharpens it.\n",
        "The bound of UREF-001\nholds for all graphs [V].\n",
    ],
)
def test_a_uref_cited_as_verified_is_caught_however_the_claim_is_written(claim):
    found = checks.validate(HAND_EDITED.replace(SHARPEN, claim))
    assert any("UREF-001 is unconfirmed and cited as [V]" in item for item in found), found


@pytest.mark.parametrize(
    "claim",
    [
        SHARPEN,
        f"- {QUOTED}. [~] UREF-001 may sharpen it.\n",
        f"- {QUOTED}.\n- UREF-001 may sharpen it [~].\n",
        f"- {QUOTED}.\n\nUREF-001 may\nsharpen it [~].\n",
        "- UREF-001 may sharpen the bound of REF-002 [~].\n",
        "```\nUREF-001 [V]\n```\n",
    ],
)
def test_a_uref_in_a_speculative_claim_is_allowed(claim):
    assert checks.validate(HAND_EDITED.replace(SHARPEN, claim)) == []


def test_a_lower_case_citation_of_a_missing_entry_is_caught():
    found = checks.validate(HAND_EDITED.replace("(REF-002, abstract)", "(ref-007, abstract)"))
    assert any("Synthesis line 57: cites REF-007" in item for item in found), found


@pytest.mark.parametrize("layout", ["problems/<slug>", "PROBLEM.md beside it"])
def test_validate_checks_the_problem_slug_against_its_folder(tmp_path, layout):
    if layout == "problems/<slug>":
        folder = tmp_path / ".math" / "problems" / "gap-bounds"
    else:
        folder = tmp_path / "gap-bounds"
    folder.mkdir(parents=True)
    if layout != "problems/<slug>":
        (folder / "PROBLEM.md").write_text("---\nslug: gap-bounds\n---\n")
    path = folder / "LITERATURE.md"
    path.write_text(HAND_EDITED)
    assert checks.validate(path) == [
        "frontmatter: problem is 'spectral-gap' but the file is in the folder of problem "
        "'gap-bounds' (the slug must match the folder's name)"
    ]
    path.write_text(HAND_EDITED.replace('"spectral-gap"', '"gap-bounds"', 1))
    assert checks.validate(path) == []
    assert checks.validate(path.read_text()) == []  # text alone: no folder to check
