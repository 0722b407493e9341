"""PROOF.md's gaps (mathtools/gaps.py) and `literature.py discover --gap`: a searched gap is
marked, and the next search takes the next one (issue 19, item 6).

The PROOF.md texts are written by the tests in agents/proof.md's format; the searches run against
tests/support/standin.py (the real recordings), as in test_literature_phases.py.
"""

from __future__ import annotations

import json
import multiprocessing
import re
from pathlib import Path

import pytest
from mathtools.core.errors import BadInput
from mathtools.research import blocks, gaps
from test_literature_phases import SLUG, listed, session  # noqa: F401 (session: the fixture)

PROOF = """\
---
problem: "tolerant-testing"
status: gaps-identified
literature_needed: true
---

# Proof Development: tolerant testing

## Proof Structure

### Step 1: the lower bound
**Status:** blocked
**Depends on:** REF-001

A hand-written note the model left here.

## Gaps

### Gap 1: the constant in Step 1 may depend on $\\varepsilon$
**Type:** computation-needed
**Blocking:** Step 1
**Suggested resolution:** compute $h(n)$ for $n \\le 50$

### Gap 2: a lower bound for tolerant testing
**Type:** reference-needed
**Blocking:** Step 1
**Suggested resolution:** tolerant \\emph{uniformity} testing lower bound
Some prose the proof agent wrote under the fields.

### Gap 3: the $\\ell_1$ learning bound
**Type:** Reference-needed
**Blocking:** Main Theorem
**Suggested resolution:** learning discrete distributions in total variation

## Computation Requests

### Request 1: $h(n)$ for $n \\le 50$
**Purpose:** the constant of Gap 1
**Tool:** sympy
"""
MOMENT = "2026-11-24T03:00:00Z"


def test_gaps_are_read_with_their_fields():
    found = gaps.parse(PROOF)
    assert [gap.number for gap in found] == [1, 2, 3]
    second = found[1]
    assert second.name == "Gap 2: a lower bound for tolerant testing"
    assert (second.type, second.blocking) == ("reference-needed", "Step 1")
    assert second.resolution == "tolerant \\emph{uniformity} testing lower bound"
    assert second.focus() == "tolerant uniformity testing lower bound"  # LaTeX stripped
    assert found[2].type == "reference-needed"  # the Type is read case-blind
    assert not any(gap.searched for gap in found)


# A gap under another section or at another heading depth (issue 36): read, so that it keeps the
# proof from being complete, and named by blocks.misplaced, so that the proof agent moves it.
ELSEWHERE = (
    PROOF
    + """
## Open questions

#### Gap 4: the bound for $\\varepsilon > 1/2$
**Type:** reference-needed
**Blocking:** Main Theorem
**Suggested resolution:** tolerant testing for large distance
"""
)


def test_a_gap_under_any_heading_at_any_depth_is_read_and_must_move():
    found = gaps.parse(ELSEWHERE)
    assert [gap.number for gap in found] == [1, 2, 3, 4]
    assert found[3].type == "reference-needed" and found[3].blocking == "Main Theorem"
    (error,) = blocks.misplaced(ELSEWHERE)
    assert error == "Gap 4 is a gap under `## Open questions`: move it under ## Gaps"
    assert blocks.misplaced(PROOF) == []


def test_the_gap_searched_next_may_stand_anywhere(tmp_path):
    path = tmp_path / "PROOF.md"
    path.write_text(ELSEWHERE)
    for number in (2, 3):
        gaps.mark(path, number, str(number), MOMENT)
    gap, _ = gaps.next_to_search(path)
    assert gap.number == 4
    gaps.mark(path, 4, "4", MOMENT)
    assert path.read_text().endswith(f"large distance\n**Searched:** {MOMENT} · literature run 4\n")


def test_the_first_unsearched_reference_needed_gap_is_taken(tmp_path):
    path = tmp_path / "PROOF.md"
    path.write_text(PROOF)
    gap, wanted = gaps.next_to_search(path)
    assert gap.number == 2 and [g.number for g in wanted] == [2, 3]
    gaps.mark(path, 2, "4", MOMENT)
    gap, _ = gaps.next_to_search(path)
    assert gap.number == 3
    assert gaps.read(path)[1].searched == [f"{MOMENT} · literature run 4"]
    gaps.mark(path, 3, "5", MOMENT)
    gap, wanted = gaps.next_to_search(path)
    assert gap is None
    line = gaps.none_left(wanted, SLUG)
    assert "(Gap 2, Gap 3)" in line and "\n" not in line


def test_marking_adds_one_line_under_the_fields_and_keeps_every_other_byte(tmp_path):
    path = tmp_path / "PROOF.md"
    path.write_text(PROOF)
    gaps.mark(path, 2, "4", MOMENT)
    expected = PROOF.replace(
        "testing lower bound\nSome prose",
        f"testing lower bound\n**Searched:** {MOMENT} · literature run 4\nSome prose",
    )
    assert path.read_text() == expected


def test_marking_keeps_crlf_line_ends_and_a_byte_order_mark(tmp_path):
    path = tmp_path / "PROOF.md"
    original = ("\ufeff" + PROOF).replace("\n", "\r\n").encode("utf-8")
    path.write_bytes(original)
    gaps.mark(path, 3, "7", MOMENT)
    stored = path.read_bytes()
    searched = f"**Searched:** {MOMENT} · literature run 7\r\n".encode()
    anchor = b"in total variation\r\n"
    assert stored == original.replace(anchor, anchor + searched)


def test_a_gap_ending_the_file_without_a_line_end_gets_one(tmp_path):
    path = tmp_path / "PROOF.md"
    text = "## Gaps\n\n### Gap 1: x\n**Type:** reference-needed\n**Suggested resolution:** y"
    path.write_text(text)
    gaps.mark(path, 1, "1", MOMENT)
    assert path.read_text() == text + f"\n**Searched:** {MOMENT} · literature run 1\n"


def _mark(path: str, number: int) -> None:
    gaps.mark(Path(path), number, str(number), MOMENT)


def test_concurrent_markers_each_land_under_the_lock(tmp_path):
    path = tmp_path / "PROOF.md"
    blocks = "".join(
        f"### Gap {n}: gap {n}\n**Type:** reference-needed\n**Suggested resolution:** words {n}\n\n"
        for n in range(1, 9)
    )
    path.write_text("## Gaps\n\n" + blocks)
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_mark, args=(str(path), n)) for n in range(1, 9)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0] * 8
    marked = {gap.number: gap.searched for gap in gaps.read(path)}
    assert marked == {n: [f"{MOMENT} · literature run {n}"] for n in range(1, 9)}


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("# Proof\n\n## Strategy\n\nno gaps\n", "no_gaps"),
        ("## Gaps\n\n### Gap 1: x\n**Type:** lemma-needed\n", "no_gaps"),
        ("## Gaps\n\n### Gap 1: x\n**Type:** reference-needed\n**Blocking:** Step 1\n", None),
    ],
)
def test_no_reference_needed_gap_or_no_resolution_is_bad_input(tmp_path, text, code):
    path = tmp_path / "PROOF.md"
    path.write_text(text)
    with pytest.raises(BadInput) as raised:
        gaps.next_to_search(path)
    assert raised.value.code == (code or "gap_without_resolution")


# --- literature.py discover --gap ---------------------------------------------------------------


def proof_file(session):  # noqa: F811
    return session.folder / ".math" / "problems" / SLUG / "PROOF.md"


def test_discover_gap_takes_gap_2_then_gap_3_then_says_none_is_left(session):  # noqa: F811
    proof = proof_file(session)
    proof.write_text(PROOF)
    first = session.discover(SLUG, "--gap")
    assert first.splitlines()[0] == "gap: Gap 2: a lower bound for tolerant testing"
    assert listed(first)
    run_1 = session.search_folder
    plan = json.loads((session.runs / "plan.json").read_text())
    focused = [
        q["query_line"] for qs in plan["queries"].values() for q in qs if q["origin"] == "focus"
    ]
    assert focused and all("uniformity" in line or "lower" in line for line in focused)
    second = session.discover(SLUG, "--gap")
    assert second.splitlines()[0] == "gap: Gap 3: the $\\ell_1$ learning bound"
    run_2 = session.search_folder
    assert run_1 != run_2
    marks = {gap.number: gap.searched for gap in gaps.read(proof)}
    assert [m.split(" · ")[1] for m in marks[2] + marks[3]] == [
        f"literature run {run_1.rsplit('/', 1)[1]}",
        f"literature run {run_2.rsplit('/', 1)[1]}",
    ]
    stamp = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
    assert all(stamp.fullmatch(m.split(" · ")[0]) for m in marks[2] + marks[3])
    before = proof.read_bytes()
    done = session.run("discover", SLUG, "--gap")
    assert done.returncode == 0
    (line,) = done.stdout.splitlines()
    assert line.startswith("no gap to search: ") and "(Gap 2, Gap 3)" in line
    assert proof.read_bytes() == before
    runs = session.folder / ".math" / "problems" / SLUG / "literature-runs"
    assert len(list(runs.iterdir())) == 2  # no search, no search folder


def test_a_gap_whose_focus_queries_find_nothing_is_still_marked(session):  # noqa: F811
    proof = proof_file(session)
    proof.write_text(
        "## Gaps\n\n### Gap 1: nothing\n**Type:** reference-needed\n"
        "**Suggested resolution:** zzqxv wqpflk\n"
    )
    listing = session.discover(SLUG, "--gap")
    assert listing.splitlines()[0] == "gap: Gap 1: nothing"
    assert gaps.read(proof)[0].searched


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("# Proof\n\nno gaps yet\n", "no_gaps"),
        ("## Gaps\n\n### Gap 1: x\n**Type:** reference-needed\n", "gap_without_resolution"),
        (None, "file_not_found"),
    ],
)
def test_discover_gap_without_a_gap_to_search_is_a_one_line_error(session, text, code):  # noqa: F811
    if text is not None:
        proof_file(session).write_text(text)
    done = session.run("discover", SLUG, "--gap")
    assert done.returncode == 2
    (line,) = done.stdout.splitlines()
    assert json.loads(line)["error"]["code"] == code


def test_discover_gap_refuses_focus_words(session):  # noqa: F811
    proof_file(session).write_text(PROOF)
    done = session.run("discover", SLUG, "lower", "bounds", "--gap")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["code"] == "gap_and_focus"


def test_a_gap_no_service_could_search_stays_unmarked(session):  # noqa: F811
    proof = proof_file(session)
    proof.write_text(PROOF)
    for source, status in (("s2", 500), ("arxiv", 503), ("zbmath", 502)):
        session.standin.fail(source, status)
    done = session.run("discover", SLUG, "--gap")
    assert done.returncode == 3 and '"all_failed"' in done.stdout
    assert done.stdout.startswith("gap: Gap 2: ")
    assert proof.read_text() == PROOF  # the next call takes Gap 2 again


def test_a_gap_another_run_is_searching_is_passed_over(session):  # noqa: F811
    """The report: concurrent `discover --gap` runs all picked the same gap (7 `**Searched:**`
    lines on one, another never searched). A run holds its gap from choice to mark: here the
    test holds Gap 2, as a run still searching it would, and discover takes Gap 3."""
    proof = proof_file(session)
    proof.write_text(PROOF)
    with gaps.claimed(proof) as (held, _, busy):
        assert (held.number, busy) == (2, [])
        taken = session.discover(SLUG, "--gap")
        assert taken.splitlines()[0] == "gap: Gap 3: the $\\ell_1$ learning bound"
        with gaps.claimed(proof) as (third, _, busy):  # Gap 3 is marked now, Gap 2 held
            assert (third, busy) == (None, [2])
        before = proof.read_bytes()
        done = session.run("discover", SLUG, "--gap")
        assert done.returncode == 0
        assert done.stdout.startswith("no gap to search now: ") and "(Gap 2)" in done.stdout
        assert proof.read_bytes() == before
    marks = {gap.number: len(gap.searched) for gap in gaps.read(proof)}
    assert marks[2] == 0 and marks[3] == 1
    with gaps.claimed(proof) as (free, _, busy):  # released: the next run takes it
        assert (free.number, busy) == (2, [])
