"""Fault injection: every synthesized fault of tests/support/faults.py, for every network script
(arxiv_query.py, s2_lookup.py, zbmath_lookup.py, crossref_lookup.py, and the gate's two front
doors, verify_batch.py and check_refs.py).

Each fault is applied by the stand-in to what it would genuinely answer (no recording holds these
answers). For every fault of a service, each script that calls it must end cleanly (one JSON error
line, exit 2 or 3, no traceback, no key), and the verification gate must confirm nothing from the
faulty service while the other one still verifies. A malformed answer makes its service a
failing source, never one that found nothing; a source answering another paper for an identifier
the others confirm is outvoted (docs/matching-rules.md, §4 and §6).
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


# -- malformed zbMATH Open and Crossref answers: a failing source, never "does not exist" ---------

PENDING = "API error - verification pending"
# arXiv identifies each by its id; the Zbl number and the DOI are ones no record has, which a
# healthy zbMATH Open or Crossref answer makes a discrepancy (CORRECTED: "... does not exist").
WITH_ZBL = {**MARKOV, "key": "markov-zbl", "zbl": "9999.00001"}
WITH_DOI = {**MARKOV, "key": "markov-doi", "doi": "10.9999/not.a.real.doi"}
# service -> (its faults, the citation, its label, the service's name, its script's call)
MALFORMED = {
    "zbmath": (faults.ZBMATH, WITH_ZBL, "Zbl:9999.00001", "zbMATH Open", ("zbmath_lookup.py",)),
    "crossref": (faults.CROSSREF, WITH_DOI, "DOI:10.9999/not.a.real.doi", "Crossref",
                 ("crossref_lookup.py",)),
}  # fmt: skip
MALFORMED_CASES = [(service, name) for service in MALFORMED for name in MALFORMED[service][0]]


def _verify(standin, env, service, fault, candidates):
    standin.corrupt(service, fault)
    try:
        run = run_script("verify_batch.py", "-", input=json.dumps(candidates), env=env)
    finally:
        standin.recover(service)
    _clean(run)
    assert run.returncode == 0, run.stdout
    document = json.loads(run.stdout)
    return document, {result["key"]: result for result in document["results"]}


@pytest.mark.parametrize("service, fault", MALFORMED_CASES)
def test_a_malformed_answer_for_a_cited_identifier_leaves_it_unchecked(
    standin, env, service, fault
):
    """Records of nulls or of other types, or no result list, for the cited Zbl number or DOI:
    the service is failing and the identifier could not be checked (pending, as for a 503),
    where it once "did not exist" and the citation was CORRECTED with "the paper's is none"."""
    table, cited, label, name, _ = MALFORMED[service]
    document, results = _verify(standin, env, service, table[fault], [cited, DEUTSCH])
    assert set(document["source_errors"]) == {service}
    result = results[cited["key"]]
    assert result["status"] == "UNCONFIRMED", result["reason"]
    assert result["reason"].startswith(f"{PENDING} ({name} unavailable; {label} could not be")
    assert "does not exist" not in json.dumps(result)
    assert results["deutsch"]["status"] == "CONFIRMED"


@pytest.mark.parametrize("service, fault", MALFORMED_CASES)
def test_a_malformed_answer_ends_its_script_as_a_failing_service(standin, env, service, fault):
    table, _, label, _, call = MALFORMED[service]
    standin.corrupt(service, table[fault])
    try:
        run = run_script(*call, "get", label.split(":", 1)[1], env=env)
    finally:
        standin.recover(service)
    _clean(run)
    assert run.returncode == 3, run.stdout  # a failing service: never exit 0, "not found"
    [line] = run.stdout.splitlines()
    assert set(json.loads(line)) == {"error"}


def test_a_source_failing_after_its_look_up_rules_no_identifier_out(standin, env):
    """Semantic Scholar answers the DOI look-up (null: unknown) and then a malformed title
    match: it is a failing source, so the DOI could not be checked, never "not found in
    Semantic Scholar" (its error recorded, yet the DOI called nonexistent, before)."""
    cited = {"key": "turing", "title": "Large Language Models Pass the Turing Test",
             "authors": "Jones, Cameron R. and Bergen, Benjamin K.", "year": 2025,
             "doi": "10.9999/not.a.real.doi"}  # fmt: skip
    document, results = _verify(standin, env, "s2", faults.s2_searches_wrong_types, [cited])
    assert set(document["source_errors"]) == {"semantic_scholar"}
    reason = results["turing"]["reason"]
    assert reason.startswith(f"{PENDING} (Semantic Scholar unavailable;"), reason
    assert "DOI:10.9999/not.a.real.doi could not be checked" in reason
    assert "not found in Semantic Scholar" not in reason


# -- one source's other paper is set aside or outvoted; those that confirm the cited one decide ---

# Ore 1952: zbMATH Open holds it (the licence-restricted record), Semantic Scholar and Crossref do
# not; Cybenko 1989: Crossref holds it, Semantic Scholar and zbMATH Open do not.
ORE = {"key": "ore", "title": "A title zbMATH does not show", "authors": ["Ore, O."],
       "year": 1952, "doi": "10.2307/2306804"}  # fmt: skip
CYBENKO = {"key": "cybenko", "title": "Approximation by superpositions of a sigmoidal function",
           "authors": "G. Cybenko", "year": 1989, "doi": "10.1007/BF02551274"}  # fmt: skip
CONFIRMED_BY = {"ore": "zbMATH Open", "cybenko": "Crossref"}


@pytest.mark.parametrize("fault", faults.S2_ANOTHER_PAPER)
def test_semantic_scholar_answering_another_paper_is_set_aside_or_outvoted(standin, env, fault):
    """Semantic Scholar answers another paper (or another title, year and authors) for a real
    DOI that zbMATH Open or Crossref confirms: CONFIRMED, where it was UNCONFIRMED ("is another
    paper") before. Semantic Scholar knows neither DOI, so the fault's record carries another
    DOI (OTHER_S2_RECORD's): a record of another identifier, set aside as Semantic Scholar's
    error and named (issue 52; a record of the asked DOI holding another paper is outvoted:
    test_merged). Cited with a DOI only Semantic Scholar holds, its record alone decides: never
    CONFIRMED."""
    document, results = _verify(
        standin, env, "s2", faults.S2_ANOTHER_PAPER[fault], [ORE, CYBENKO, DEUTSCH]
    )
    assert "source_errors" not in document
    other = faults.OTHER_S2_RECORD["externalIds"]["DOI"]
    for key, by in CONFIRMED_BY.items():
        result = results[key]
        assert result["status"] == "CONFIRMED", result["reason"]
        assert "semantic_scholar" not in result["sources"]
        assert result["sources"] == [{"zbMATH Open": "zbmath", "Crossref": "crossref"}[by]]
        label = f"DOI:{result['candidate']['doi'].lower()}"
        said = f"Semantic Scholar answered {label} with a record of DOI:{other}, set aside"
        assert said in result["reason"]
    assert results["deutsch"]["status"] != "CONFIRMED"
