"""Fault injection: every synthesized fault of tests/support/faults.py, for every network script
(arxiv_query.py, s2_lookup.py, and the gate's two front doors, verify_batch.py and check_refs.py).

Each fault is applied by the stand-in to what it would genuinely answer (no recording holds these
answers). For every fault of a service, each script that calls it must end cleanly (one JSON error
line, exit 2 or 3, no traceback, no key), and the verification gate must confirm nothing from the
faulty service while the other one still verifies.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import run_script
from support import faults
from support.faults import DEUTSCH, MARKOV

KEY = "FaultCampaignKey42"
S2_FAULTS = {**faults.S2, "error_echoing_key": faults.s2_error_echoing_key(KEY)}
# service -> (the direct call of its script, the candidate only it knows, the other one's)
SERVICES = {
    "arxiv": (("arxiv_query.py", "get", "1605.08386"), "markov", "deutsch", "semantic_scholar"),
    "s2": (("s2_lookup.py", "batch", "DOI:10.1098/rspa.1985.0070"), "deutsch", "markov", "arxiv"),
}
CASES = [("arxiv", name) for name in faults.ARXIV] + [("s2", name) for name in S2_FAULTS]


@pytest.fixture
def env(standin, tmp_path):
    return {
        **os.environ,
        **standin.env(),
        "MATH_HTTP_RETRIES": "1",
        "MATH_HTTP_TIMEOUT": "1",
        "SEMANTIC_SCHOLAR_API_KEY": KEY,
        "MATH_CACHE_DIR": str(tmp_path / "cache"),
    }


def _clean(run):
    assert "Traceback" not in run.stderr, run.stderr
    assert KEY not in run.stdout + run.stderr
    assert run.returncode != 5, run.stdout


@pytest.mark.parametrize("service, fault", CASES)
def test_every_fault_of_a_service_ends_its_script_cleanly(standin, env, service, fault):
    call = SERVICES[service][0]
    standin.corrupt(service, (faults.ARXIV if service == "arxiv" else S2_FAULTS)[fault])
    try:
        run = run_script(*call, env=env)
    finally:
        standin.recover(service)
    _clean(run)
    assert run.returncode in (2, 3), run.stdout
    [line] = run.stdout.splitlines()
    assert set(json.loads(line)) == {"error"}


@pytest.mark.parametrize("service, fault", CASES)
def test_every_fault_of_a_service_confirms_nothing_and_the_other_verifies(
    standin, env, service, fault
):
    _, own, other, other_source = SERVICES[service]
    standin.corrupt(service, (faults.ARXIV if service == "arxiv" else S2_FAULTS)[fault])
    try:
        run = run_script("verify_batch.py", "-", input=json.dumps([MARKOV, DEUTSCH]), env=env)
    finally:
        standin.recover(service)
    _clean(run)
    assert run.returncode == 0, run.stdout
    document = json.loads(run.stdout)
    results = {result["key"]: result for result in document["results"]}
    assert set(document["source_errors"]) == {"semantic_scholar" if service == "s2" else "arxiv"}
    assert results[own]["status"] == "UNCONFIRMED"
    assert results[other]["status"] == "CONFIRMED"
    assert results[other]["source"] == other_source


BIB = """@article{markov, title = {Heat-bath random walks with Markov bases},
  author = {Stanley, Caprice and Windisch, Tobias}, year = {2016}, eprint = {1605.08386}}
@article{deutsch,
  title = {Quantum theory, the Church-Turing principle and the universal quantum computer},
  author = {Deutsch, D.}, year = {1985}, doi = {10.1098/rspa.1985.0070}}
"""


@pytest.mark.parametrize("service, fault", CASES)
def test_every_fault_of_a_service_confirms_no_bibliography_entry_from_it(
    standin, env, tmp_path, service, fault
):
    _, own, other, _ = SERVICES[service]
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    standin.corrupt(service, (faults.ARXIV if service == "arxiv" else S2_FAULTS)[fault])
    try:
        run = run_script("check_refs.py", str(tmp_path / "refs.bib"), "--json", env=env)
    finally:
        standin.recover(service)
    _clean(run)
    assert run.returncode in (0, 1), run.stdout
    document = json.loads(run.stdout)
    statuses = {entry["key"]: entry["status"] for entry in document["entries"]}
    assert set(document["source_errors"]) == {"semantic_scholar" if service == "s2" else "arxiv"}
    assert statuses[own] == "UNCONFIRMED"
    assert statuses[other] == "CONFIRMED"
