"""Issue 16's targets on the labelled fixture (tests/data/verdict_fixture.json), kind by kind.

The fixture is real recorded papers cited correctly or miscited the way each kind of
hallucination does (tools/make_verdict_fixture.py writes it). One verify_batch.py run against
the stand-in server judges all of it; bench/bench_verdict.py prints the same figures as a table.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import PLUGIN, ROOT
from mathtools.core import schemas
from support.standin import StandIn

# One verify_batch.py run over every case: 90 s on a loaded 2-core machine; CI runs it.
pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).parent / "data" / "verdict_fixture.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
KINDS = list(dict.fromkeys(case["kind"] for case in CASES))


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    """Every case's result, from one run (module-scoped: the run takes a while)."""
    tmp = tmp_path_factory.mktemp("verdict")
    path = tmp / "candidates.json"
    path.write_text(json.dumps([case["candidate"] for case in CASES]), encoding="utf-8")
    with StandIn() as standin:
        env = {
            "PATH": "/usr/bin:/bin",
            **standin.env(),
            "MATH_CACHE_DIR": str(tmp / "cache"),
            "MATH_ARXIV_MIN_INTERVAL": "0",
            "MATH_S2_MIN_INTERVAL": "0",
            "MATH_HTTP_RETRIES": "1",
        }
        run = subprocess.run(
            [sys.executable, str(PLUGIN / "scripts" / "verify_batch.py"), str(path)],
            capture_output=True,
            text=True,
            env=env,
        )
        calls = dict(standin.counts)
    assert run.returncode == 0, run.stdout + run.stderr
    document = json.loads(run.stdout)
    return document, calls


@pytest.mark.needs_shared("recordings")
def test_the_fixture_is_what_its_script_writes():
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_verdict_fixture.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_kind_is_there():
    assert set(KINDS) == {
        "real",
        "swapped_authors",
        "merged",
        "near_miss_title",
        "placeholder_authors",
        "wrong_venue",
        "nonexistent_venue",
        "preprint_as_published",
        "partial_authors",
        "fabricated",
        "wrong_year",
        "impossible_year",
        "malformed_id",
    }


def test_the_document_is_valid_and_in_order(verdicts):
    document, calls = verdicts
    assert schemas.schema_errors("verification", document) == []
    assert [r["key"] for r in document["results"]] == [c["candidate"]["key"] for c in CASES]
    # Every identifier of every candidate went out in one call per source.
    assert calls["arxiv id_list"] == 1 and calls["s2 batch"] == 1


def _statuses(verdicts, kind: str) -> Counter:
    document, _ = verdicts
    return Counter(
        result["status"]
        for case, result in zip(CASES, document["results"], strict=True)
        if case["kind"] == kind
    )


def test_real_citations_are_confirmed(verdicts):
    counts = _statuses(verdicts, "real")
    total = sum(counts.values())
    assert counts["UNCONFIRMED"] == 0  # 100% CONFIRMED or CORRECTED
    assert counts["CONFIRMED"] / total >= 0.97, counts


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "real"])
def test_every_miscited_kind_is_flagged(verdicts, kind):
    counts = _statuses(verdicts, kind)
    total = sum(counts.values())
    assert (total - counts["CONFIRMED"]) / total >= 0.95, counts
    if next(case for case in CASES if case["kind"] == kind)["strict"]:
        assert counts["CONFIRMED"] == 0, counts


def test_a_corrected_result_says_what_was_wrong(verdicts):
    """CORRECTED carries the API's record and, field by field, what the citation got wrong."""
    document, _ = verdicts
    expected_field = {
        "swapped_authors": "authors",
        "placeholder_authors": "authors",
        "partial_authors": "authors",
        "wrong_venue": "venue",
        "nonexistent_venue": "venue",
        "preprint_as_published": "venue",
        "wrong_year": "year",
    }
    seen = Counter()
    for case, result in zip(CASES, document["results"], strict=True):
        if result["status"] != "CORRECTED":
            continue
        assert result["paper"]["key"] == case["paper"]  # the paper the citation meant
        fields = [d["field"] for d in result["discrepancies"]]
        if case["kind"] in expected_field:
            assert expected_field[case["kind"]] in fields, (case["candidate"], result["reason"])
            seen[case["kind"]] += 1
        for discrepancy in result["discrepancies"]:
            assert discrepancy["note"] and discrepancy["record"] != discrepancy["cited"]
    assert set(seen) == set(expected_field)
