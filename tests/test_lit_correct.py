"""literature.py correct: the model corrects an entry merge wrote (a quote not in its source) from
a small file, with no Read of LITERATURE.md (issue 50, item 5). Verification inputs are
synthesized (tests/support/verified.py)."""

from __future__ import annotations

import json

import pytest
from mathtools.core.errors import BadInput
from mathtools.litdoc import checks, literature, merging
from mathtools.search import Search
from support.verified import confirmed, paper, unconfirmed, verification

HAND_NOTE = "Hand note: compare with the 2019 survey.\n"


@pytest.fixture
def lit(tmp_path):
    path = tmp_path / "problems" / "spectral-gap" / "LITERATURE.md"
    results = [
        confirmed(paper(1)),
        confirmed(paper(2)),
        unconfirmed({"title": "A folk bound"}, "x"),
    ]
    relevance = {
        r["key"]: {"relevance": "Relevant.", "key_results": "Thm 1", "confidence": "[S]"}
        for r in results[:2]
    }
    merging.merge_file(path, verification(results, "2026-02-10T12:00:00Z"), relevance, summary="q")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("## Synthesis", HAND_NOTE + "\n## Synthesis", 1), encoding="utf-8")
    return path


def test_a_correction_sets_the_fields_it_names_and_keeps_every_other_line(lit):
    before = lit.read_text(encoding="utf-8")
    lines = merging.correct_file(
        lit, {"REF-002": {"key_results": "Theorem 2.3", "confidence": "[V]"}}
    )
    assert lines == ["REF-002 corrected: Key Results, Confidence"]
    doc = literature.load_literature(lit)
    ref1, ref2 = doc.confirmed
    assert (ref2.field("Key Results"), ref2.field("Confidence")) == ("Theorem 2.3", "[V]")
    assert ref1.field("Key Results") == "Thm 1"
    after = lit.read_text(encoding="utf-8")
    assert HAND_NOTE in after
    changed = [line for line in after.splitlines() if line not in before.splitlines()]
    assert changed == ["- **Key Results:** Theorem 2.3", "- **Confidence:** [V]"]
    assert checks.validate(lit) == []


def test_one_bad_item_does_not_stop_the_rest(lit):
    lines = merging.correct_file(
        lit,
        {
            "REF-009": {"key_results": "x"},
            "REF-001": {"confidence": "sure"},
            "UREF-001": {"key_results": "Thm 1"},
            "REF-002": {"relevance": "Gives the bound."},
        },
    )
    assert lines[0] == "REF-009: no such entry, not corrected"
    assert lines[1].startswith("REF-001: not corrected: ") and "sure" in lines[1]
    assert lines[2] == "UREF-001: not corrected: only relevance may be set"
    assert lines[3] == "REF-002 corrected: Relevance"
    assert literature.load_literature(lit).confirmed[0].field("Confidence") == "[S]"


def test_no_corrections_or_no_file_is_a_one_line_refusal(lit, tmp_path):
    with pytest.raises(BadInput):
        merging.correct_file(lit, [])
    with pytest.raises(BadInput, match="nothing to correct"):
        merging.correct_file(tmp_path / "LITERATURE.md", {"REF-001": {"relevance": "x"}})


def test_the_script_applies_the_search_folders_corrections(script, lit, tmp_path):
    """literature.py correct R, as the runbook's step 6 has the model run it: R/corrections.json
    in, the corrected entries and the validation out; no corrections file: exit 2, one line."""
    folder = tmp_path / "R"
    folder.mkdir()
    search = Search(
        problem="spectral-gap", search_folder=str(folder), literature=str(lit), domain=None,
        first_search=False, per_query=5,
    )  # fmt: skip
    search.save()
    missing = script("literature.py", "correct", str(folder))
    assert missing.returncode == 2 and "corrections.json" in missing.stdout + missing.stderr
    (folder / "corrections.json").write_text(
        json.dumps({"REF-001": {"key_results": "Lemma 4"}}), encoding="utf-8"
    )
    done = script("literature.py", "correct", str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["REF-001 corrected: Key Results", "LITERATURE.md valid"]
    assert literature.load_literature(lit).confirmed[0].field("Key Results") == "Lemma 4"
