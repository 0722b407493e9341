"""lit_update.py merge / validate: LITERATURE.md grows without losing, renumbering, duplicating
or clobbering anything. Verification inputs are synthesized (tests/support/verified.py)."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time

import pytest
from conftest import SCRIPTS
from mathtools.core.errors import BadInput
from mathtools.litdoc import checks, literature, mergereport, merging
from support.verified import (
    ARXIV_URL,
    S2_URL,
    confirmed,
    corrected,
    paper,
    unconfirmed,
    verification,
)
from test_literature_doc import HAND_EDITED


@pytest.fixture
def lit(tmp_path):
    return tmp_path / "problems" / "spectral-gap" / "LITERATURE.md"


def write_json(path, data):
    path.write_text(json.dumps(data))
    return str(path)


def assessed(results) -> dict:
    """The model's relevance file for every confirmed result (a STAND-IN assessment)."""
    return {
        r["key"]: {"relevance": "Relevant.", "key_results": "Thm 1", "confidence": "[S]"}
        for r in results
        if r["status"] in ("CONFIRMED", "CORRECTED")
    }


def merge(lit, results, relevance=None, summary="q", verified_at="2026-02-10T12:00:00Z", **kw):
    """A merge with `relevance`, else with every confirmed result assessed."""
    relevance = assessed(results) if relevance is None else relevance
    report, _ = merging.merge_file(
        lit, verification(results, verified_at), relevance, summary=summary, **kw
    )
    return report


def run_merge(script, lit, verified, *extra):
    """`lit_update.py merge` as the agent runs it."""
    return script(
        "lit_update.py", "merge", "--literature", str(lit), "--verified", verified, *extra
    )


def test_merge_creates_the_file_from_the_template_with_metadata_carried(script, lit, tmp_path):
    record = paper(7, "semantic_scholar")
    verified = write_json(tmp_path / "v.json", verification([confirmed(record)]))
    relevance = write_json(
        tmp_path / "r.json",
        {record["key"]: {"relevance": "Proves it.", "key_results": "Thm 2", "confidence": "[V]"}},
    )
    run = run_merge(
        script,
        lit,
        verified,
        "--relevance",
        relevance,
        "--query-summary",
        '"spectral gap" | graphs',
    )
    assert run.returncode == 0, run.stdout
    # a compact summary: what happened to the file, one line per entry by number and key
    assert run.stdout.splitlines() == [
        "LITERATURE.md created: 1 new REF, 0 new UREF; now 1 confirmed, 0 unconfirmed",
        f"REF-001 added: {record['key']}",
    ]
    doc = literature.load_literature(lit)
    assert doc.frontmatter == {
        "problem": "spectral-gap",
        "total_papers": 1,
        "confirmed_count": 1,
        "unconfirmed_count": 0,
        "last_search": "2026-02-10T12:00:00Z",
        "sources_queried": ["semantic_scholar"],
    }
    (ref,) = doc.confirmed
    assert ref.title == record["title"] and ref.authors == record["authors"]
    assert (ref.year, ref.arxiv_id, ref.doi) == (record["year"], record["arxiv_id"], record["doi"])
    assert ref.abstract == " ".join(record["abstract"].split())
    assert ref.source == "Semantic Scholar"
    assert (ref.relevance, ref.key_results, ref.confidence) == ("Proves it.", "Thm 2", "[V]")
    assert ref.verified_at == "2026-02-10T12:00:00Z"
    assert ref.verified_via == confirmed(record)["verified_via"]
    assert f"S2:{record['s2_paper_id']}" in ref.ids
    assert doc.history == [
        {
            "Date": "2026-02-10",
            "Query Summary": '"spectral gap" | graphs',
            "Results": "Semantic Scholar 1",
            "New Confirmed": "1",
        }
    ]
    assert "(No confirmed references yet)" not in lit.read_text()
    assert script("lit_update.py", "validate", str(lit)).json()["valid"] is True


def test_the_frontmatter_keeps_the_template_layout_after_a_merge(lit):
    merge(lit, [confirmed(paper(1)), confirmed(paper(2, "semantic_scholar"))])
    head = lit.read_text().split("\n---\n", 1)[0] + "\n---\n"
    assert head == (
        "---\n"
        'problem: "spectral-gap"\n'
        "total_papers: 2\n"
        "confirmed_count: 2\n"
        "unconfirmed_count: 0\n"
        'last_search: "2026-02-10T12:00:00Z"\n'
        'sources_queried: ["arxiv", "semantic_scholar"]\n'
        "---\n"
    )
    untouched = lit.read_text()  # a document nobody changes keeps every byte
    assert literature.parse_literature(untouched).render() == untouched


def degraded(results, verified_at="2026-02-11T12:00:00Z", down="semantic_scholar"):
    """A verification during which one service failed (synthesized: verify_batch.py's shape)."""
    verified = verification(results, verified_at)
    verified["sources_queried"] = ["arxiv", "semantic_scholar"]
    verified["source_errors"] = {down: "HTTP 500 after 3 tries"}
    return verified


def test_an_unavailable_service_is_noted_in_history_sources_and_verified_lines(lit):
    assessed = {paper(1)["key"]: {"relevance": "The bound.", "confidence": "[S]"}}
    report, _ = merging.merge_file(
        lit, degraded([confirmed(paper(1))]), assessed, summary="gap bound"
    )
    doc = literature.load_literature(lit)
    assert doc.frontmatter["sources_queried"] == ["arxiv"]  # S2 answered nothing
    assert doc.history[-1]["Query Summary"] == "gap bound (Semantic Scholar unavailable)"
    assert report["history_row"]["query_summary"] == "gap bound (Semantic Scholar unavailable)"
    (ref,) = doc.confirmed
    assert ref.field("Verified").endswith(
        "(checked against arXiv only; Semantic Scholar unavailable)"
    )
    assert ref.verified_via == [ARXIV_URL.format(paper(1)["arxiv_id"])]
    assert checks.validate(lit) == []

    # A later search with both services keeps S2 among the sources; one without S2 adds nothing.
    merge(lit, [confirmed(paper(2, "semantic_scholar"))], verified_at="2026-02-12T12:00:00Z")
    merging.merge_file(lit, degraded([confirmed(paper(3))], "2026-02-13T12:00:00Z"), summary="x")
    doc = literature.load_literature(lit)
    assert doc.frontmatter["sources_queried"] == ["arxiv", "semantic_scholar"]
    assert [row["Query Summary"] for row in doc.history] == [
        "gap bound (Semantic Scholar unavailable)",
        "q",
        "x (Semantic Scholar unavailable)",
    ]
    assert "unavailable" not in doc.confirmed[1].field("Verified")


def test_with_arxiv_down_the_note_names_semantic_scholar_as_the_only_check(lit):
    record = paper(4, "semantic_scholar")
    merging.merge_file(lit, degraded([confirmed(record)], down="arxiv"), summary="q")
    doc = literature.load_literature(lit)
    assert doc.frontmatter["sources_queried"] == ["semantic_scholar"]
    assert (
        doc.confirmed[0]
        .field("Verified")
        .endswith("(checked against Semantic Scholar only; arXiv unavailable)")
    )


def test_unconfirmed_results_become_urefs_with_reason_and_suggestion(lit):
    real = paper(3)
    candidate = {
        "title": "A folklore gap bound",
        "authors": "A. Smith and B. Jones",
        "year": 2019,
        "arxiv_id": "1901.00001",
        "source": "memory",
    }
    merge(lit, [unconfirmed(candidate, "arXiv API returned no results for ID 1901.00001", real)])
    (uref,) = literature.load_literature(lit).unconfirmed
    assert (uref.entry_number, uref.title, uref.year) == ("UREF-001", "A folklore gap bound", 2019)
    assert uref.authors == ["A. Smith and B. Jones"]
    assert uref.source == "memory"
    assert uref.reason == "arXiv API returned no results for ID 1901.00001"
    assert uref.status == "Unconfirmed -- do not cite as established reference"
    assert uref.field("Suggestion").startswith(f"{real['key']} | {real['year']} | Lovelace3")
    assert checks.validate(lit) == []


def test_an_empty_key_results_is_taken_as_left_out(lit):
    """Issue 50: an unconfirmed `problem-ref-N` with `"key_results": ""` was refused (exit 2)
    where leaving the field out worked: both keep the relevance, nothing else."""
    candidate = {"key": "problem-ref-1", "citation": "A. Smith (2019). A folklore gap bound."}
    result = unconfirmed(candidate, "no paper matches")
    relevance = {"problem-ref-1": {"relevance": "The problem builds on it.", "key_results": ""}}
    merge(lit, [result], relevance)
    (uref,) = literature.load_literature(lit).unconfirmed
    assert uref.relevance == "The problem builds on it."
    assert checks.validate(lit) == []


def test_a_remembered_paper_pending_beside_its_confirmed_record_is_that_ref(lit):
    """Issue 50: a PROBLEM.md reference left pending (its service failed for that call) while the
    same run confirms the paper from the search became UREF and REF at once; a remembered paper
    with its DOI pending became a second UREF of a reference already pending."""
    record = paper(4, "semantic_scholar")
    whole = {
        "key": "problem-ref-1",
        "citation": f"A. Lovelace4 and E. Noether (2004). {record['title']}. J. Graph Th.",
    }
    pending = "API error - verification pending (Semantic Scholar unavailable)"
    merge(lit, [unconfirmed(whole, pending), confirmed(record)])
    doc = literature.load_literature(lit)
    assert [e.entry_number for e in doc.confirmed] == ["REF-001"] and doc.unconfirmed == []
    other = {
        "key": "problem-ref-2",
        "citation": "B. Riemann (1859). Ueber die Anzahl der Primzahlen. Monatsber.",
    }
    merge(lit, [unconfirmed(other, pending)], summary="second")
    remembered = {
        "key": "memory-1",
        "title": "Ueber die Anzahl der Primzahlen",
        "authors": ["Riemann"],
        "doi": "10.1/x",
        "source": "memory",
    }
    report = merge(lit, [unconfirmed(remembered, pending)], summary="third")
    assert report["unconfirmed_added"] == []
    assert [e.entry_number for e in literature.load_literature(lit).unconfirmed] == ["UREF-001"]


def test_an_unconfirmed_candidate_with_a_blank_title_is_headed_by_its_key(lit):
    """A whitespace-only title (the schema allows it) once made the UREF heading `### UREF-001: `,
    which reading the entry's title back crashed on; the candidate's key now heads it."""
    candidate = {"title": " \t ", "arxiv_id": "1901.00001", "source": "memory"}
    report = merge(lit, [unconfirmed(candidate, "arXiv API returned no results for ID 1901.00001")])
    assert report["unconfirmed_added"][0]["title"] == "arXiv:1901.00001"
    (uref,) = literature.load_literature(lit).unconfirmed
    assert (uref.entry_number, uref.title) == ("UREF-001", "arXiv:1901.00001")
    assert checks.validate(lit) == []


def test_numbers_continue_and_are_never_reused(lit):
    merge(lit, [confirmed(paper(n)) for n in (1, 2, 3)], summary="first")
    merge(lit, [unconfirmed({"title": f"Believed {n}", "key": f"cand-{n}"}) for n in (1, 2)])
    # A person deletes the last REF and the last UREF by hand.
    doc = literature.load_literature(lit)
    doc.section(literature.CONFIRMED).remove_entry(doc.confirmed[-1])
    doc.section(literature.UNCONFIRMED).remove_entry(doc.unconfirmed[-1])
    lit.write_text(doc.render())
    merge(lit, [confirmed(paper(4)), unconfirmed({"title": "Believed 3", "key": "cand-3"})])
    doc = literature.load_literature(lit)
    assert [e.entry_number for e in doc.confirmed] == ["REF-001", "REF-002", "REF-004"]
    assert [e.entry_number for e in doc.unconfirmed] == ["UREF-001", "UREF-003"]


def test_the_high_water_mark_survives_deleting_every_entry(lit):
    merge(lit, [confirmed(paper(1))])
    doc = literature.load_literature(lit)
    doc.section(literature.CONFIRMED).remove_entry(doc.confirmed[0])
    lit.write_text(doc.render())
    assert "(No confirmed references yet)" in lit.read_text()
    merge(lit, [confirmed(paper(2))])
    assert [e.entry_number for e in literature.load_literature(lit).confirmed] == ["REF-002"]


@pytest.mark.parametrize(
    ("first", "again"),
    [
        (paper(1), paper(1, "semantic_scholar")),  # by arXiv id
        (
            paper(1, arxiv_id=None, doi="10.1/A"),
            paper(9, "semantic_scholar", arxiv_id=None, doi="10.1/a"),
        ),  # by DOI, case-insensitive
        (
            paper(1, "semantic_scholar", arxiv_id=None, doi=None),
            paper(8, "semantic_scholar", arxiv_id=None, doi=None, s2_paper_id=f"{1:040x}"),
        ),
        (
            paper(1, arxiv_id=None, title="The Spectral-Gap, revisited!"),
            paper(
                2,
                "semantic_scholar",
                arxiv_id=None,
                doi=None,
                title="the spectral gap revisited",
                authors=["A. LOVELACE1"],
                year=paper(1)["year"],
            ),
        ),  # title + first author + year
    ],
    ids=["arxiv-id", "doi", "s2-id", "title-author-year"],
)
def test_a_duplicate_updates_the_existing_entry(lit, first, again):
    merge(lit, [confirmed(first)], verified_at="2026-02-10T12:00:00Z")
    report = merge(lit, [confirmed(again)], summary="again", verified_at="2026-03-01T00:00:00Z")
    assert report["added"] == [] and report["updated"][0]["ref"] == "REF-001"
    (ref,) = literature.load_literature(lit).confirmed
    expected = (
        "arXiv, Semantic Scholar" if first["source"] != again["source"] else "Semantic Scholar"
    )
    assert ref.source == expected
    assert ref.verified_at == "2026-03-01T00:00:00Z"
    assert ref.field("First verified") == "2026-02-10T12:00:00Z"  # when it entered the file
    assert ref.title == first["title"]  # what is there is not overwritten
    assert checks.validate(lit) == []


def test_an_older_verification_does_not_replace_a_newer_one(lit):
    merge(lit, [confirmed(paper(1))], verified_at="2026-03-01T00:00:00Z")
    merge(lit, [confirmed(paper(1))], summary="older", verified_at="2026-01-01T00:00:00Z")
    (ref,) = literature.load_literature(lit).confirmed
    assert ref.verified_at == "2026-03-01T00:00:00Z"
    assert ref.field("First verified") == "2026-01-01T00:00:00Z"


def test_a_first_verification_gets_no_first_verified_line_nor_does_the_same_one_again(lit):
    merge(lit, [confirmed(paper(1))])
    merge(lit, [confirmed(paper(1))], summary="same time")
    (ref,) = literature.load_literature(lit).confirmed
    assert ref.field("First verified") is None and ref.verified_at == "2026-02-10T12:00:00Z"


def test_the_first_verified_time_never_moves_and_sits_before_verified(lit):
    for day in ("10", "20", "28"):
        merge(lit, [confirmed(paper(1))], verified_at=f"2026-02-{day}T12:00:00Z")
    (ref,) = literature.load_literature(lit).confirmed
    assert ref.field("First verified") == "2026-02-10T12:00:00Z"
    assert ref.verified_at == "2026-02-28T12:00:00Z"
    lines = [line.split(":**")[0] for line in ref.lines if line.startswith("- **")]
    assert lines.index("- **First verified") == lines.index("- **Verified") - 1
    assert checks.validate(lit) == []


def test_every_verification_url_stays_on_the_verified_line(lit):
    arxiv_url = ARXIV_URL.format(paper(1)["arxiv_id"])
    merge(lit, [confirmed(paper(1))], verified_at="2026-02-10T12:00:00Z")
    merge(lit, [confirmed(paper(1, "semantic_scholar"))], verified_at="2026-03-01T00:00:00Z")
    (ref,) = literature.load_literature(lit).confirmed
    s2_url = S2_URL.format("ARXIV:" + paper(1)["arxiv_id"])
    assert ref.source == "arXiv, Semantic Scholar"
    assert ref.verified_at == "2026-03-01T00:00:00Z"
    assert ref.verified_via == [arxiv_url, s2_url]
    # an older verification through another URL adds it, the timestamp stays the latest
    older = confirmed(paper(1))
    older["verified_via"] = ["https://export.arxiv.org/api/query?id_list=2100.00001v1"]
    merge(lit, [older], summary="older", verified_at="2026-01-01T00:00:00Z")
    (ref,) = literature.load_literature(lit).confirmed
    assert ref.verified_at == "2026-03-01T00:00:00Z"
    assert ref.verified_via == [arxiv_url, s2_url, older["verified_via"][0]]
    assert checks.validate(lit) == []


def test_a_confirmed_uref_moves_to_a_new_ref_and_the_move_is_noted(lit):
    candidate = {
        "title": paper(5)["title"],  # the same paper: its title agrees
        "authors": ["Ada Lovelace5"],
        "year": 2005,
        "arxiv_id": "2100.00005",
    }
    merge(
        lit,
        [confirmed(paper(1)), unconfirmed(candidate, "API timeout -- verification pending")],
        relevance={"arXiv:2100.00005": {"relevance": "Might give the constant."}},
    )
    report = merge(lit, [confirmed(paper(5))], summary="retry")
    assert report["promoted"] == [
        {
            "from": "UREF-001",
            "to": "REF-002",
            "ref": "REF-002",
            "key": "arXiv:2100.00005",
            "title": paper(5)["title"],
        }
    ]
    doc = literature.load_literature(lit)
    assert doc.unconfirmed == []
    assert doc.confirmed[1].field("Moved from") == "UREF-001 (unconfirmed until 2026-02-10)"
    assert doc.confirmed[1].relevance == "Might give the constant."  # carried over
    assert doc.history[-1]["New Confirmed"] == "1"
    assert doc.high_water("UREF") == 1
    merge(lit, [unconfirmed({"title": "Another", "key": "cand-9"})], summary="more")
    assert literature.load_literature(lit).unconfirmed[0].entry_number == "UREF-002"


def test_synthesis_lines_citing_a_moved_uref_are_reported_not_rewritten(lit):
    believed = {"title": paper(5)["title"], "authors": ["Ada Lovelace5"], "arxiv_id": "2100.00005"}
    merge(lit, [confirmed(paper(1)), unconfirmed(believed)])
    synthesis = (
        "- [S] REF-001 gives the bound.\n"
        "- [~] UREF-001 may sharpen it, as\n  uref-001 suggests in its abstract.\n"
    )
    lit.write_text(lit.read_text().replace("(No synthesis yet", synthesis + "\n(x"))
    report = merge(lit, [confirmed(paper(5))], summary="confirmed now")
    assert report["promoted"][0]["from"] == "UREF-001"
    text = lit.read_text()
    assert synthesis in text  # the prose is never rewritten
    lines = text.splitlines()
    stale = report["stale_citations"]
    assert [(item["cites"], item["now"]) for item in stale] == [("UREF-001", "REF-002")] * 2
    assert "UREF-001 may sharpen it" in lines[stale[0]["line"] - 1]
    assert "uref-001 suggests" in lines[stale[1]["line"] - 1]
    assert (
        f"Synthesis line {stale[0]['line']} cites UREF-001, now REF-002: update the citation"
        in mergereport.merge_summary_lines(report)
    )


def test_an_unconfirmed_result_for_a_confirmed_paper_is_skipped(lit):
    merge(lit, [confirmed(paper(1))])
    report = merge(
        lit,
        [
            unconfirmed(
                {"arxiv_id": "2100.00001", "key": "arXiv:2100.00001"},
                "API error -- verification pending",
            )
        ],
        summary="later",
    )
    assert report["skipped"] == [
        {"key": "arXiv:2100.00001", "reason": "already confirmed as REF-001"}
    ]
    assert literature.load_literature(lit).unconfirmed == []


def test_the_summary_names_every_entry_added_moved_updated_or_skipped(lit):
    believed = {"title": paper(5)["title"], "authors": ["Ada Lovelace5"], "arxiv_id": "2100.00005"}
    lost = {"title": "Unfindable", "authors": ["Noether"], "year": 1921, "key": "c"}
    merge(lit, [confirmed(paper(1)), unconfirmed(believed), unconfirmed(lost)])
    report = merge(
        lit,
        [
            confirmed(paper(5)),  # the first UREF, confirmed now
            confirmed(paper(1, "semantic_scholar")),  # REF-001 again, from the other source
            unconfirmed(lost, "still not found"),
            unconfirmed({"arxiv_id": "2100.00001", "key": "again"}, "API error"),
            unconfirmed({"title": "New belief", "key": "memory-1"}),
        ],
        summary="second",
    )
    assert mergereport.merge_summary_lines(report) == [
        "LITERATURE.md updated: 1 new REF, 1 new UREF; now 2 confirmed, 2 unconfirmed",
        "REF-002 added: arXiv:2100.00005 (moved from UREF-001)",
        "REF-001 updated (Source, DOI, ids, Verified): arXiv:2100.00001",
        "UREF-003 added: memory-1",
        "UREF-002 updated (Reason): c",
        "skipped again: already confirmed as REF-001",
    ]


def test_relevance_only_fills_what_is_unassessed(lit):
    key = paper(1)["key"]
    merge(lit, [confirmed(paper(1))], relevance={})
    merge(lit, [confirmed(paper(1))], {key: {"relevance": "First.", "confidence": "[S]"}}, "b")
    merge(lit, [confirmed(paper(1))], {key: {"relevance": "Second.", "key_results": "L3"}}, "c")
    ref = literature.load_literature(lit).confirmed[0]
    assert (ref.relevance, ref.key_results, ref.confidence) == ("First.", "L3", "[S]")


def test_lit_update_merge_says_which_prose_it_kept(script, lit, tmp_path):
    """A relevance file that rewrites a REF's assessed prose: merge keeps the file's prose, fills
    only the unassessed field, and says so on the line of the REF (and in --json)."""
    record = paper(1)
    merge(lit, [confirmed(record)], {record["key"]: {"relevance": "First.", "confidence": "[S]"}})
    verified = write_json(
        tmp_path / "v.json", verification([confirmed(record)], "2026-03-01T00:00:00Z")
    )
    rewrite = {"relevance": "Second.", "key_results": "L3", "confidence": "[S]"}
    relevance = write_json(tmp_path / "r.json", {record["key"]: rewrite})
    run = run_merge(script, lit, verified, "--relevance", relevance, "--query-summary", "again")
    assert run.returncode == 0, run.stderr
    assert (
        "REF-001 kept its Relevance: prose there is never overwritten; edit REF-001 in the file"
        in run.stdout.splitlines()
    )
    ref = literature.load_literature(lit).confirmed[0]
    assert (ref.relevance, ref.key_results) == ("First.", "L3")
    again = json.loads(
        run_merge(
            script, lit, verified, "--relevance", relevance, "--query-summary", "b", "--json"
        ).stdout
    )
    assert again["kept"] == [{"ref": "REF-001", "key": record["key"], "fields": ["Relevance"]}]


def test_unassessed_refs_are_listed_by_merge_and_fail_validate(lit):
    first, second = confirmed(paper(1)), confirmed(paper(2))
    report = merge(lit, [first, second], relevance=assessed([first]))
    assert report["unassessed"] == ["REF-002"]
    assert mergereport.merge_summary_lines(report)[-1].startswith("not yet assessed: REF-002 -- ")
    violations = checks.validate(lit)
    assert len(violations) == 1
    assert violations[0].startswith("REF-002 (line ")
    assert "confidence '(not yet assessed)' has no tier" in violations[0]

    report = merge(lit, [second], assessed([second]), summary="assessed now")
    assert report["unassessed"] == []
    assert not any("not yet assessed" in line for line in mergereport.merge_summary_lines(report))
    assert checks.validate(lit) == []


def test_relevance_for_an_unknown_key_is_an_error_and_nothing_is_written(lit):
    with pytest.raises(BadInput, match=r"arXiv:9999\.99999"):
        merge(lit, [confirmed(paper(1))], {"arXiv:9999.99999": {"relevance": "x"}})
    assert not lit.exists()


def _foreign_id_result() -> dict:
    """An UNCONFIRMED result whose arXiv id points to a different paper, as verify_batch.py
    writes it: the candidate's key, no `paper`, the other paper in `resolved_to`."""
    wrong = paper(7)
    candidate = {"key": "memory-1", "title": "Believed", "arxiv_id": wrong["arxiv_id"]}
    result = unconfirmed(candidate, f"{wrong['key']} is '{wrong['title']}', not the cited paper")
    result["resolved_to"] = wrong
    return result


def test_an_unconfirmed_result_takes_relevance_by_its_own_key_only(lit):
    foreign = _foreign_id_result()
    with pytest.raises(BadInput, match="relevance keys match no result"):
        merge(lit, [foreign], {paper(7)["key"]: {"relevance": "About the other paper."}})
    assert not lit.exists()
    merge(lit, [foreign], {"memory-1": {"relevance": "Would give the bound."}})
    (uref,) = literature.load_literature(lit).unconfirmed
    assert uref.title == "Believed"
    assert uref.relevance == "Would give the bound."


def test_an_unconfirmed_result_with_a_paper_is_refused(lit):
    inconsistent = {**_foreign_id_result(), "paper": paper(7)}
    with pytest.raises(BadInput, match="verified"):
        merge(lit, [inconsistent])
    assert not lit.exists()


def test_history_counts_from_flags_or_from_the_results(lit):
    both = confirmed(paper(1, "semantic_scholar"), ("arxiv", "semantic_scholar"))
    merge(lit, [both, confirmed(paper(2)), unconfirmed({"title": "x", "key": "cand-1"})])
    given = {"zbmath": 3, "arxiv": 40, "semantic_scholar": 0}
    verified = verification([confirmed(paper(3))], "2026-02-11T12:00:00Z")
    merging.merge_file(lit, verified, assessed(verified["results"]), summary="flags", results=given)
    rows = literature.load_literature(lit).history
    assert [(r["Results"], r["New Confirmed"]) for r in rows] == [
        ("arXiv 2, Semantic Scholar 1", "2"),
        ("arXiv 40, zbMATH Open 3", "1"),
    ]
    assert checks.validate(lit) == []


TWO_SOURCE_HISTORY = """\
| Date | Query Summary | arXiv Results | S2 Results | New Confirmed |
|------|---------------|---------------|------------|---------------|
| 2026-01-05 | "spectral gap"; my own note | 8 | 0 | 5 |
"""


def test_a_two_source_search_history_still_reads_and_takes_the_results_column(lit):
    """A LITERATURE.md written when there were two sources: its rows read, it validates, and
    the next merge turns the table into the Results columns, the counts and the hand-written
    summary kept."""
    merge(lit, [confirmed(paper(1))])
    text = lit.read_text()
    table = text[text.index("| Date |") : text.index("\n\n", text.index("| Date |")) + 1]
    lit.write_text(text.replace(table, TWO_SOURCE_HISTORY))
    old = literature.load_literature(lit)
    assert old.history == [
        {
            "Date": "2026-01-05",
            "Query Summary": '"spectral gap"; my own note',
            "Results": "arXiv 8",
            "New Confirmed": "5",
        }
    ]
    assert checks.validate(lit) == []
    merge(lit, [confirmed(paper(2))], summary="again", verified_at="2026-03-01T00:00:00Z")
    text = lit.read_text()
    assert "| Date | Query Summary | Results | New Confirmed |" in text
    assert "arXiv Results" not in text
    assert '| 2026-01-05 | "spectral gap"; my own note | arXiv 8 | 5 |' in text
    assert [row["Results"] for row in literature.load_literature(lit).history] == [
        "arXiv 8",
        "arXiv 1",
    ]
    assert checks.validate(lit) == []


def test_counts_are_recomputed_from_the_body(lit):
    merge(lit, [confirmed(paper(1))])
    lit.write_text(lit.read_text().replace("confirmed_count: 1", "confirmed_count: 7"))
    merge(lit, [confirmed(paper(2))], summary="second")
    assert literature.load_literature(lit).frontmatter["confirmed_count"] == 2
    assert checks.validate(lit) == []


def test_hand_edits_survive_a_merge(lit):
    lit.parent.mkdir(parents=True)
    lit.write_text(HAND_EDITED)
    merge(
        lit, [confirmed(paper(1)), confirmed(paper(2, "semantic_scholar", arxiv_id="2104.12255"))]
    )
    after = lit.read_text()
    for kept in (
        "My note: read section 3 first",
        "### Reading plan (mine)\nStart with REF-004.",
        "## Open questions I keep\n\n- Does the bound hold for directed graphs?",
        '- [V] "We give an algorithm that approximates the gap" (REF-002, abstract).',
        "- UREF-001 may sharpen it [~].",
        "  that approximates the gap.",
    ):
        assert kept in after
    doc = literature.load_literature(lit)
    assert [e.entry_number for e in doc.confirmed] == ["REF-002", "REF-004", "REF-005"]
    assert after.index("### REF-005") < after.index("### Reading plan (mine)")
    assert checks.validate(lit) == []


def test_the_same_merge_twice_changes_nothing(script, lit, tmp_path):
    verified = write_json(
        tmp_path / "v.json",
        verification([confirmed(paper(1)), unconfirmed({"title": "Believed", "key": "cand-1"})]),
    )
    first = run_merge(script, lit, verified, "--query-summary", "gap", "--json")
    assert first.returncode == 0 and first.json()["already_merged"] is False
    assert [item["ref"] for item in first.json()["added"]] == ["REF-001"]
    before = lit.read_bytes()
    again = run_merge(script, lit, verified, "--query-summary", "gap", "--json")
    assert again.returncode == 0 and again.json()["already_merged"] is True
    assert again.json()["changed"] is False
    assert lit.read_bytes() == before
    merge_id = again.json()["merge_id"]
    summary = run_merge(script, lit, verified, "--query-summary", "gap")
    assert (
        summary.stdout
        == f"LITERATURE.md unchanged: this merge was made before (merge {merge_id})\n"
    )


def test_dry_run_prints_the_diff_and_writes_nothing(script, lit, tmp_path):
    first = write_json(tmp_path / "1.json", verification([confirmed(paper(1))]))
    run = run_merge(script, lit, first, "--dry-run")
    assert run.returncode == 0 and not lit.exists()
    assert "+### REF-001: " in run.stdout and run.stdout.startswith("--- /dev/null")
    run_merge(script, lit, first)
    before = lit.read_bytes()
    second = write_json(tmp_path / "2.json", verification([confirmed(paper(2))]))
    run = run_merge(script, lit, second, "--dry-run")
    assert f"--- {lit}\n+++ {lit}\n" in run.stdout
    assert "\n-confirmed_count: 1\n" in run.stdout and "\n+confirmed_count: 2\n" in run.stdout
    assert "+### REF-002: " in run.stdout
    assert lit.read_bytes() == before


def test_a_malformed_file_is_an_error_naming_the_line_and_is_left_untouched(script, lit, tmp_path):
    lit.parent.mkdir(parents=True)
    broken = HAND_EDITED.replace("### REF-004: Eigenvalues", "### REF-4 Eigenvalues")
    lit.write_text(broken)
    verified = write_json(tmp_path / "v.json", verification([confirmed(paper(1))]))
    run = run_merge(script, lit, verified)
    assert run.returncode == 2
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "malformed_literature" and "line 40" in error["message"]
    assert lit.read_text() == broken
    assert sorted(p.name for p in lit.parent.iterdir()) == ["LITERATURE.md", "LITERATURE.md.lock"]


def test_a_file_saved_in_another_encoding_is_an_error_and_is_left_untouched(script, lit, tmp_path):
    lit.parent.mkdir(parents=True)
    lit.write_bytes(HAND_EDITED.replace("Eigenvalues", "Gödel").encode("latin-1"))
    before = lit.read_bytes()
    verified = write_json(tmp_path / "v.json", verification([confirmed(paper(1))]))
    run = run_merge(script, lit, verified)
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "unreadable"
    assert lit.read_bytes() == before


def test_a_byte_order_mark_is_no_reason_to_refuse_a_merge(lit, tmp_path):
    lit.parent.mkdir(parents=True)
    lit.write_bytes(b"\xef\xbb\xbf" + HAND_EDITED.encode())
    assert merge(lit, [confirmed(paper(1))])["added"]


@pytest.mark.parametrize(
    ("edit", "line", "words"),
    [
        (('sources_queried: ["arxiv", "semantic_scholar"]', "sources_queried: arxiv"), 7, "array"),
        (('problem: "spectral-gap"\n', 'problem: "spectral-gap"\nowner: me\n'), 3, "owner"),
        (('problem: "spectral-gap"\n', ""), 1, "'problem' is a required property"),
        (("total_papers: 3", "total_papers: three"), 3, "not of type 'integer'"),
        (('last_search: "2026-02-10T12:00:00Z"', "last_search: yesterday"), 6, "last_search"),
    ],
)
def test_a_merge_into_a_damaged_frontmatter_is_refused_naming_the_line(
    script, lit, tmp_path, edit, line, words
):
    lit.parent.mkdir(parents=True)
    damaged = HAND_EDITED.replace(*edit)
    assert damaged != HAND_EDITED
    lit.write_text(damaged)
    verified = write_json(tmp_path / "v.json", verification([confirmed(paper(1))]))
    run = run_merge(script, lit, verified)
    assert run.returncode == 2, run.stdout
    error = run.json()["error"]
    assert error["code"] == "malformed_literature"
    assert f"LITERATURE.md line {line}: frontmatter" in error["message"], error
    assert words in error["message"], error
    assert lit.read_text() == damaged


def test_bad_verification_input_is_one_clear_error(script, lit, tmp_path):
    bad = write_json(tmp_path / "v.json", {"results": []})
    run = run_merge(script, lit, bad)
    assert run.returncode == 2 and "verified_at" in run.json()["error"]["message"]
    record = confirmed(paper(1))
    record["verified_via"] = []
    empty = write_json(tmp_path / "e.json", verification([record]))
    run = run_merge(script, lit, empty)
    assert run.returncode == 2 and "without a verification URL" in run.json()["error"]["message"]
    assert not lit.exists()


def test_validate_exits_1_listing_every_violation(script, tmp_path):
    path = tmp_path / "LITERATURE.md"
    path.write_text(
        HAND_EDITED.replace("confirmed_count: 2", "confirmed_count: 3").replace(
            "UREF-001 may sharpen it [~]", "UREF-001 proves it [V]"
        )
    )
    run = script("lit_update.py", "validate", str(path))
    assert run.returncode == 1
    assert run.json()["valid"] is False
    counts, uref, paraphrase = run.json()["violations"]  # the [V] claim breaks two rules
    assert "confirmed_count is 3" in counts and "UREF-001 is unconfirmed" in uref
    assert "[V] quotes no source" in paraphrase


def start_merge(lit, verified, *extra, stdout=subprocess.PIPE):
    """`lit_update.py merge` in its own process, not waited for."""
    command = [sys.executable, str(SCRIPTS / "lit_update.py"), "merge", "--literature", str(lit)]
    return subprocess.Popen([*command, "--verified", verified, *extra], stdout=stdout, text=True)


def test_ten_concurrent_merges_lose_nothing_and_number_without_gaps(lit, tmp_path):
    procs = []
    for n in range(10):
        results = [confirmed(paper(100 + n))]
        verified = write_json(tmp_path / f"v{n}.json", verification(results))
        relevance = write_json(tmp_path / f"r{n}.json", assessed(results))
        extra = ["--relevance", relevance, "--query-summary", f"q{n}", "--json"]
        procs.append(start_merge(lit, verified, *extra))
    outputs = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    doc = literature.load_literature(lit)
    assert [e.number for e in doc.confirmed] == list(range(1, 11))
    assert sorted(e.arxiv_id for e in doc.confirmed) == sorted(
        paper(100 + n)["arxiv_id"] for n in range(10)
    )
    assert sorted(r["Query Summary"] for r in doc.history) == sorted(f"q{n}" for n in range(10))
    assert sorted(o["added"][0]["ref"] for o in outputs) == [f"REF-{n:03d}" for n in range(1, 11)]
    assert checks.validate(lit) == []


def test_a_merge_killed_mid_write_leaves_the_old_file_or_the_new_one(lit, tmp_path):
    """SIGKILL at random moments while merges run: the file always parses and is a whole state."""
    merge(lit, [confirmed(paper(n)) for n in range(300)])  # big enough that writing takes a while
    rng = random.Random(6)
    for attempt in range(6):
        before = lit.read_text()
        results = [confirmed(paper(1000 + attempt))]
        verified = write_json(tmp_path / "v.json", verification(results))
        relevance = write_json(tmp_path / "r.json", assessed(results))
        proc = start_merge(lit, verified, "--relevance", relevance, stdout=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, 0.4))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        after = lit.read_text()
        if after == before:  # killed before the rename: finish this merge for the next round
            merge(lit, [confirmed(paper(1000 + attempt))])
        else:
            assert checks.validate(after) == []
            assert (
                len(literature.parse_literature(after).confirmed)
                == len(literature.parse_literature(before).confirmed) + 1
            )


def without_state_comment(lit) -> str:
    text = lit.read_text()
    state = next(line for line in text.splitlines(keepends=True) if "<!-- lit_update:" in line)
    return text.replace(state, "")


def test_a_number_mentioned_in_the_file_is_not_reused_after_the_state_comment_goes(lit):
    merge(lit, [confirmed(paper(n)) for n in (1, 2, 3)], summary="first")
    merge(lit, [unconfirmed({"title": f"Believed {n}", "key": f"m{n}"}) for n in (1, 2)])
    text = without_state_comment(lit)
    text = text.replace("(No synthesis yet", "- REF-003 proves it [S]. UREF-002 may help [~].\n(x")
    doc = literature.parse_literature(text)
    last_ref, last_uref = doc.confirmed[-1], doc.unconfirmed[-1]
    doc.section(literature.CONFIRMED).remove_entry(last_ref)
    doc.section(literature.UNCONFIRMED).remove_entry(last_uref)
    text = doc.render()
    # the Search History's New Confirmed column would also say 3: make it say nothing
    text = text.replace("| 3 |\n", "| 0 |\n")
    lit.write_text(text)
    report = merge(
        lit,
        [confirmed(paper(9)), unconfirmed({"title": "Believed 9", "key": "m9"})],
        summary="after the deletion",
    )
    assert report["added"][0]["ref"] == "REF-004"
    assert report["unconfirmed_added"][0]["uref"] == "UREF-003"


def test_the_new_confirmed_column_keeps_ref_numbers_from_being_reused(lit):
    merge(lit, [confirmed(paper(1))], summary="first")
    merge(lit, [confirmed(paper(2)), confirmed(paper(3))], summary="second")
    doc = literature.parse_literature(without_state_comment(lit))
    for entry in doc.confirmed[1:]:
        doc.section(literature.CONFIRMED).remove_entry(entry)
    lit.write_text(doc.render())
    assert "REF-002" not in lit.read_text() and "REF-003" not in lit.read_text()
    report = merge(lit, [confirmed(paper(4))], summary="third")
    assert report["added"][0]["ref"] == "REF-004"  # 1 + 2 given out before


def test_a_moved_from_line_keeps_its_uref_number_from_being_reused(lit):
    believed = {"title": paper(5)["title"], "authors": ["Ada Lovelace5"], "arxiv_id": "2100.00005"}
    merge(lit, [unconfirmed(believed)], summary="first")
    merge(lit, [confirmed(paper(5))], summary="confirmed now")  # UREF-001 -> REF-001
    lit.write_text(without_state_comment(lit))
    report = merge(lit, [unconfirmed({"title": "Another", "key": "m2"})], summary="third")
    assert report["unconfirmed_added"][0]["uref"] == "UREF-002"


def test_promoting_the_highest_uref_of_a_hand_made_file_does_not_free_its_number(lit):
    """A file without the state comment: the high-water mark comes from the entries, and a merge
    that moves the highest UREF away still records its number as used."""
    lit.parent.mkdir(parents=True)
    lit.write_text(
        "".join(line for line in HAND_EDITED.splitlines(True) if "lit_update:" not in line)
    )
    found = paper(50, title="A spectral gap folklore result", authors=["Someone Else"], year=2019)
    report = merge(lit, [confirmed(found)])
    assert report["promoted"][0]["from"] == "UREF-001" and report["promoted"][0]["to"] == "REF-005"
    merge(lit, [unconfirmed({"title": "Another belief", "key": "cand-1"})], summary="next")
    assert [e.entry_number for e in literature.load_literature(lit).unconfirmed] == ["UREF-002"]


def test_last_search_is_the_most_recent_search(lit):
    merge(lit, [confirmed(paper(1))], verified_at="2026-03-01T00:00:00Z")
    merge(lit, [confirmed(paper(2))], summary="late", verified_at="2026-01-01T00:00:00Z")
    assert literature.load_literature(lit).frontmatter["last_search"] == "2026-03-01T00:00:00Z"


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        ((r"last REF-\d+", "last REF-abc"), "unreadable state comment"),
        ((r"merges: (\w+)", r"merges: \1 ???"), "unreadable state comment"),
        ((r"(<!-- lit_update: .*\n)", r"\1\1"), "a second lit_update state comment"),
    ],
)
def test_a_damaged_state_comment_is_refused_by_merge_and_reported_by_validate(
    script, lit, tmp_path, damage, words
):
    """A merge would add a second comment and forget the earlier merges (so a repeated merge
    would be applied again): it refuses, naming the line, and leaves the file as it was."""
    first = write_json(tmp_path / "1.json", verification([confirmed(paper(1))]))
    assert run_merge(script, lit, first).returncode == 0
    damaged = re.sub(*damage, lit.read_text(), count=1)
    lit.write_text(damaged)
    lines = damaged.splitlines()
    where = f"LITERATURE.md line {max(n for n, t in enumerate(lines, 1) if 'lit_update' in t)}:"
    later = verification([confirmed(paper(2))], "2026-02-11T12:00:00Z")
    for verified in (write_json(tmp_path / "2.json", later), first):
        run = run_merge(script, lit, verified)
        assert run.returncode == 2, run.stdout
        error = run.json()["error"]
        assert error["code"] == "malformed_literature"
        assert where in error["message"] and words in error["message"], error
    assert lit.read_text() == damaged
    run = script("lit_update.py", "validate", str(lit))
    assert run.returncode == 1
    assert any(where in v and words in v for v in run.json()["violations"]), run.stdout


def test_a_corrected_citation_enters_with_the_api_metadata_and_says_how_it_was_wrong(
    script, lit, tmp_path
):
    """A CORRECTED result is a confirmed reference: the API's record, plus a visible line on how
    the citation was wrong (the model's memory was off, and the person should see it)."""
    record = paper(3, "semantic_scholar", venue="J. Spectral Theory", volume="7", pages="1-20")
    candidate = {
        "key": "remembered",
        "title": record["title"],
        "authors": ["Ada Lovelace3", "Alan Turing"],
        "year": 2009,
    }
    discrepancies = [
        {
            "field": "authors",
            "cited": candidate["authors"],
            "record": record["authors"],
            "note": "Alan Turing is not an author",
        },
        {
            "field": "year",
            "cited": 2009,
            "record": 2003,
            "note": "cited 2009, the record says 2003",
        },
    ]
    verified = write_json(
        tmp_path / "v.json", verification([corrected(record, candidate, discrepancies)])
    )
    relevance = write_json(
        tmp_path / "r.json",
        {"remembered": {"relevance": "Bounds it.", "key_results": "Thm 1", "confidence": "[S]"}},
    )
    run = run_merge(script, lit, verified, "--relevance", relevance, "--query-summary", "gap")
    assert run.returncode == 0, run.stdout
    assert run.stdout.splitlines()[1] == "REF-001 added: remembered -- CORRECTED (authors, year)"
    doc = literature.load_literature(lit)
    (ref,) = doc.confirmed
    assert ref.authors == ["Ada Lovelace3", "Emmy Noether"] and ref.year == 2003  # the API's
    assert ref.field("Venue") == "J. Spectral Theory 7, 1-20"
    assert ref.field("Corrected") == (
        "cited wrongly as remembered (authors: Alan Turing is not an author; year: cited 2009, "
        "the record says 2003); this entry is the API's record"
    )
    assert ref.relevance == "Bounds it."
    assert doc.frontmatter["confirmed_count"] == 1
    assert checks.validate(lit) == []


def test_results_given_by_hand_must_name_a_source_and_a_count(script, lit, tmp_path):
    verified = tmp_path / "verified.json"
    verified.write_text(json.dumps(verification([confirmed(paper(1))])))
    run = run_merge(script, lit, str(verified), "--results", "arxiv=4", "s2=x")
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert run.json()["error"]["message"].startswith("--results takes SOURCE=N")
    assert not lit.exists()
    run = run_merge(script, lit, str(verified), "--results", "arxiv=4", "crossref=2")
    assert run.returncode == 0, run.stderr
    assert literature.load_literature(lit).history[0]["Results"] == "arXiv 4, Crossref 2"


def test_a_follow_up_synthesis_extends_the_synthesis_and_keeps_every_section(lit, tmp_path):
    """Issue 50: a follow-up's synthesis.md holding only a new Technique Connections line passed
    finish and wiped Applicable Theorems, Gaps, Reading Order and the [~] warning. finish now
    adds its lines to the sections they name; a heading ending `(replaces)` replaces one; a
    second finish after a fix starts from the Synthesis the search found, not its own output."""
    from mathtools.search.recording import SYNTHESIS_BEFORE, install_synthesis

    merge(lit, [confirmed(paper(1))])
    first = (
        "### Applicable Theorems\n- [S] REF-001 proves bound 1.\n\n"
        "### Technique Connections\n- [S] The bound transfers.\n\n"
        "### Gaps in Literature\n- [~] Nothing on the sharp constant.\n\n"
        "### Suggested Reading Order\n1. REF-001 — first.\n"
    )
    install_synthesis(lit, first, tmp_path / "r1" / SYNTHESIS_BEFORE)
    (tmp_path / "r2").mkdir()
    before = tmp_path / "r2" / SYNTHESIS_BEFORE
    install_synthesis(lit, "### Technique Connections\n- [S] A new connection.\n", before)
    synthesis = literature.load_literature(lit).synthesis
    for kept in ("proves bound 1.", "The bound transfers.", "sharp constant", "REF-001 — first"):
        assert kept in synthesis
    assert "A new connection." in synthesis and synthesis.startswith("> **Warning")
    fixed = "### Gaps in Literature (replaces)\n- [S] The sharp constant is REF-001's.\n"
    install_synthesis(lit, fixed, before)  # finish again, synthesis.md fixed
    synthesis = literature.load_literature(lit).synthesis
    assert "A new connection." not in synthesis and "sharp constant is REF-001's" in synthesis
    assert "Nothing on the sharp constant" not in synthesis and "The bound transfers." in synthesis
    assert not synthesis.startswith("> **Warning")  # no [~] claim is left
    assert checks.validate(lit) == []
