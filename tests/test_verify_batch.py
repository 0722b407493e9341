"""scripts/verify_batch.py end to end, as a subprocess against the stand-in server (real records).

The labelled fixture (tests/data/verify_fixture.json) holds real references, written the way people
and models cite them, and fabricated variants of every kind issue 5 lists: no fabricated one may be
confirmed, and every real one must be.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mathtools.core import schemas

FIXTURE = Path(__file__).parent / "data" / "verify_fixture.json"
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
PENDING = "API error - verification pending"


def write(tmp_path, name, data) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def verify(script, *args, input=None):
    run = script("verify_batch.py", *args, input=input)
    assert "Traceback" not in run.stderr, run.stderr
    return run


def by_key(document) -> dict[str, dict]:
    return {result["key"]: result for result in document["results"]}


def test_the_labelled_fixture(script, standin, tmp_path):
    candidates = write(tmp_path, "candidates.json", [case["candidate"] for case in CASES])
    run = verify(script, candidates)
    assert run.returncode == 0, run.stdout
    document = run.json()
    assert schemas.schema_errors("verification", document) == []
    results = document["results"]
    assert [r["key"] for r in results] == [case["candidate"]["key"] for case in CASES]
    wrong = [
        f"{case['label']}: {result['status']} ({result['reason']})"
        for case, result in zip(CASES, results, strict=True)
        if result["status"] != case["expected"]
    ]
    assert wrong == []
    for result in results:
        assert result["verified_via"] or result["status"] == "UNCONFIRMED"
        assert all(url.startswith(standin.url) for url in result["verified_via"])
        # Issue 37: no Semantic Scholar field list (~300 characters a Verified line): a look-up
        # is kept as the GET of the one paper, a title match without its fields.
        assert not any("fields=" in url for url in result["verified_via"]), result
        assert not any(url.endswith("/paper/batch") for url in result["verified_via"]), result
        if result["status"] in ("CONFIRMED", "CORRECTED"):
            assert result["paper"]["title"] and result["paper"]["authors"]
            assert "suggestion" not in result and "resolved_to" not in result
            assert bool(result.get("discrepancies")) == (result["status"] == "CORRECTED")
        else:
            assert result["paper"] is None
    s2 = [u for r in results for u in r["verified_via"] if "/graph/v1/paper/" in u]
    assert any(re.search(r"/graph/v1/paper/(DOI|ARXIV):", u) for u in s2), s2
    assert document["summary"] == {
        "total": len(CASES),
        "confirmed": sum(case["expected"] == "CONFIRMED" for case in CASES),
        "corrected": sum(case["expected"] == "CORRECTED" for case in CASES),
        "unconfirmed": sum(case["expected"] == "UNCONFIRMED" for case in CASES),
        "pending": 0,
    }
    # Every identifier went out in one call per source.
    assert standin.counts["arxiv id_list"] == 1
    assert standin.counts["s2 batch"] == 1


def test_reasons_name_the_real_paper_and_offer_suggestions(script, standin, tmp_path):
    candidates = write(tmp_path, "candidates.json", [case["candidate"] for case in CASES])
    results = by_key(verify(script, candidates).json())

    foreign = results["fab-foreign-arxiv-id"]
    assert foreign["reason"].startswith(
        "arXiv:2104.12255 is '0' by Quan Thoi Minh Nguyen (2021), not the cited paper"
    )
    # The paper the identifier really points to is reported apart: `paper` is only ever the
    # confirmed record.
    assert foreign["paper"] is None
    assert foreign["resolved_to"]["arxiv_id"] == "2104.12255"
    assert results["fab-foreign-doi"]["resolved_to"]["doi"] == "10.1098/rspa.1985.0070"
    assert results["fab-foreign-doi"]["reason"].startswith(
        "DOI:10.1098/rspa.1985.0070 is 'Quantum theory, the Church–Turing principle"
    )
    # An exact title with an agreeing year identifies the paper: the citation's wrong authors
    # are CORRECTED, field by field, with the API's value.
    wrong_authors = results["fab-wrong-authors"]
    assert wrong_authors["status"] == "CORRECTED"
    assert wrong_authors["paper"]["title"] == "Neural Turing Machines"
    [authors] = wrong_authors["discrepancies"]
    assert authors["field"] == "authors"
    assert authors["record"] == ["Alex Graves", "Greg Wayne", "Ivo Danihelka"]
    assert authors["note"] == "LeCun, Yann and Bengio, Yoshua are not authors"
    # A year several years off: no paper is identified by title, the real one is a suggestion.
    assert results["fab-year"]["suggestion"]["title"] == "Neural Turing Machines"
    assert results["fab-year"]["checks"]["year_diff"] == 10
    # An identifier that does not exist, on a paper the title and year identify: corrected to
    # the paper's own identifier.
    missing_id = results["fab-missing-arxiv-id"]
    assert missing_id["status"] == "CORRECTED"
    ids = [d for d in missing_id["discrepancies"] if d["field"] == "arxiv_id"]
    assert ids == [
        {
            "field": "arxiv_id",
            "cited": "0808.05394",
            "record": "1009.3186",
            "note": "arXiv:0808.05394 does not exist (arXiv, Semantic Scholar and zbMATH Open "
            "returned nothing for it); the paper's is 1009.3186",
        }
    ]
    fake_doi = results["fab-missing-doi-real-arxiv-id"]
    assert [d["field"] for d in fake_doi["discrepancies"]] == ["authors", "doi"]
    assert fake_doi["discrepancies"][1]["note"].startswith(
        "DOI:10.1007/s00000-016-0000-0 does not exist (Semantic Scholar, zbMATH Open, Crossref "
        "and OpenAlex returned nothing for it)"
    )

    # The API's record replaces what the candidate said.
    markov = results["real-markov"]
    assert markov["paper"]["authors"] == ["Caprice Stanley", "Tobias Windisch"]
    assert markov["candidate"]["authors"] == "Stanley, Caprice and Windisch, Tobias"
    assert markov["checks"] == {
        "title_score": 1.0,
        "matched_authors": ["Caprice Stanley", "Tobias Windisch"],
        "year_diff": 0,
    }
    etal = results["real-aew10-etal"]
    assert etal["checks"]["matched_authors"] == ["Peter H. N. de With"]
    assert len(etal["paper"]["authors"]) == 34
    assert results["real-grouptesting"]["checks"]["year_diff"] == -1
    assert results["real-ntm-given-family"]["checks"]["matched_authors"] == [
        "Alex Graves",
        "Greg Wayne",
    ]
    assert results["real-scratch-oe"]["checks"]["matched_authors"][0].startswith("Katharina G")


def test_output_is_deterministic_apart_from_the_timestamp(script, standin, tmp_path, monkeypatch):
    candidates = write(tmp_path, "candidates.json", [case["candidate"] for case in CASES])
    first = verify(script, candidates).json()
    monkeypatch.setenv("MATH_CACHE_DIR", str(tmp_path / "other-cache"))
    second = verify(script, candidates, "--no-cache").json()
    for document in (first, second):
        document.pop("verified_at")
    assert json.dumps(first, ensure_ascii=False) == json.dumps(second, ensure_ascii=False)


def test_search_result_files_are_taken_as_they_are(script, standin, tmp_path):
    arxiv_out, s2_out = str(tmp_path / "arxiv.json"), str(tmp_path / "s2.json")
    found = script("arxiv_query.py", "get", "1605.08386", "astro-ph/0601001", "--out", arxiv_out)
    assert found.returncode == 0, found.stdout
    found = script(
        "s2_lookup.py", "batch", "10.1098/rspa.1985.0070", "ARXIV:1410.5401", "--out", s2_out
    )
    assert found.returncode == 0, found.stdout
    # The same arXiv file twice: its papers are merged, not verified twice.
    run = verify(script, arxiv_out, s2_out, arxiv_out, "--out", str(tmp_path / "verified.json"))
    assert run.returncode == 0, run.stdout
    # Found by a search and confirmed as found: the key alone (the caller has the paper's line).
    assert run.stdout.splitlines() == [
        "verified 4: 4 CONFIRMED, 0 CORRECTED, 0 UNCONFIRMED",
        "CONFIRMED arXiv:1605.08386",
        "CONFIRMED arXiv:astro-ph/0601001",
        "CONFIRMED DOI:10.1098/rspa.1985.0070",
        "CONFIRMED arXiv:1410.5401",
    ]
    document = json.loads((tmp_path / "verified.json").read_text(encoding="utf-8"))
    assert [r["key"] for r in document["results"]] == [
        "arXiv:1605.08386",
        "arXiv:astro-ph/0601001",
        "DOI:10.1098/rspa.1985.0070",
        "arXiv:1410.5401",
    ]
    assert document["inputs"]["duplicates_merged"] == 2
    assert list(document["inputs"]["files"].values()) == [2, 2]
    assert document["results"][0]["candidate"]["source"] == "arxiv get"


def test_candidates_from_stdin_get_keys(script, standin):
    candidates = [
        {"title": "Neural Turing Machines", "authors": "Graves, A. et al.", "year": 2014},
        {"key": "mine", "arxiv_id": "1605.08386"},
    ]
    document = verify(script, input=json.dumps(candidates)).json()
    assert [r["key"] for r in document["results"]] == ["cand-1", "mine"]
    assert [r["status"] for r in document["results"]] == ["CONFIRMED", "CONFIRMED"]


def test_the_summary_names_the_paper_a_candidate_turned_out_to_be(script, standin, tmp_path):
    candidates = [
        {"key": "mine", "arxiv_id": "1605.08386"},
        {"key": "remembered", "title": "Heat-bath random walks with Markov bases", "year": 2016},
    ]
    run = verify(script, "--out", str(tmp_path / "v.json"), input=json.dumps(candidates))
    lines = run.stdout.splitlines()
    assert lines[0] == "verified 2: 2 CONFIRMED, 0 CORRECTED, 0 UNCONFIRMED"
    assert lines[1] == (
        "CONFIRMED mine = arXiv:1605.08386 | 2016 | Stanley et al. |"
        " Heat-bath random walks with Markov bases"
    )
    assert lines[2:] == ["CONFIRMED remembered = arXiv:1605.08386"]  # shown just above


def test_a_corrected_line_names_the_paper_and_what_was_wrong(script, standin, tmp_path):
    candidates = [
        {
            "key": "misremembered",
            "title": "Heat-bath random walks with Markov bases",
            "authors": ["C. Stanley", "T. Windisch", "B. Sturmfels"],
            "year": 2012,
            "venue": "Ann. of Math.",
            "arxiv_id": "1605.08386",
        },
    ]
    run = verify(script, "--out", str(tmp_path / "v.json"), input=json.dumps(candidates))
    assert run.stdout.splitlines() == [
        "verified 1: 0 CONFIRMED, 1 CORRECTED, 0 UNCONFIRMED",
        "CORRECTED misremembered = arXiv:1605.08386 | 2016 | Stanley et al. | Heat-bath random"
        " walks with Markov bases -- authors: B. Sturmfels is not an author; venue: cited as"
        " published in Ann. of Math.; the record knows only the preprint (arXiv:1605.08386)",
        # the journal's year (2012) is never compared with the preprint's (2016): issue 49
    ]
    (result,) = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))["results"]
    assert result["paper"]["authors"] == ["Caprice Stanley", "Tobias Windisch"]
    assert [d["field"] for d in result["discrepancies"]] == ["authors", "venue"]
    assert "year: the journal's, not compared" in result["reason"]


# ----------------------------------------------------------------------------- degradation

MIXED = [
    {
        "key": "arxiv-id",
        "title": "Heat-bath random walks with Markov bases",
        "authors": "Windisch et al.",
        "year": 2016,
        "arxiv_id": "1605.08386",
    },
    {
        "key": "doi",
        "title": "Quantum theory, the Church-Turing principle and the universal quantum computer",
        "authors": "Deutsch, D.",
        "year": 1985,
        "doi": "10.1098/rspa.1985.0070",
    },
    {
        "key": "title-only",
        "title": "Group Testing with Probabilistic Tests: Theory, Design and Application",
        "authors": "Cheraghchi, M. et al.",
        "year": 2010,
    },
]


def test_arxiv_failing_semantic_scholar_verifies_alone(script, standin, tmp_path):
    """Synthesized failure: the stand-in answers every arXiv request with 503."""
    standin.fail("arxiv", 503)
    document = verify(script, write(tmp_path, "c.json", MIXED)).json()
    results = by_key(document)
    assert set(document["source_errors"]) == {"arxiv"}
    assert "503" in document["source_errors"]["arxiv"]
    assert results["doi"]["status"] == "CONFIRMED"
    assert results["doi"]["reason"].endswith("; arXiv unavailable, so checked without it")
    for key in ("arxiv-id", "title-only"):
        assert results[key]["status"] == "UNCONFIRMED"
        assert results[key]["reason"].startswith(f"{PENDING} (arXiv unavailable; ")
    # A failed service is not asked again in the same run: one id_list, no title search.
    assert standin.counts["arxiv id_list"] == 2  # the first try and one retry
    assert standin.counts["arxiv search"] == 0


def test_semantic_scholar_failing_arxiv_verifies_alone(script, standin, tmp_path):
    """Semantic Scholar answers with the recorded 500 body."""
    standin.fail("s2", 500)
    document = verify(script, write(tmp_path, "c.json", MIXED)).json()
    results = by_key(document)
    assert set(document["source_errors"]) == {"semantic_scholar"}
    assert results["arxiv-id"]["status"] == "CONFIRMED"
    assert results["arxiv-id"]["source"] == "arxiv"
    assert results["title-only"]["status"] == "CONFIRMED"  # by the arXiv ti: search
    assert results["doi"]["status"] == "UNCONFIRMED"
    assert results["doi"]["reason"].startswith(f"{PENDING} (Semantic Scholar unavailable; ")
    assert standin.counts["s2 match"] == 0


def test_semantic_scholar_failing_is_never_reported_as_not_found(script, standin, tmp_path):
    """Semantic Scholar answers with the recorded 500 body: a DOI or paperId it could not look up
    is pending, the arXiv title search's paper is still offered, and nothing says "not found"."""
    standin.fail("s2", 500)
    candidates = [
        {
            "key": "journal-doi",
            "title": "Heat-bath random walks with Markov bases",
            "authors": "Windisch, T.",
            "year": 2016,
            "doi": "10.3150/17-BEJ951",
        },
        {
            "key": "s2-id",
            "title": "Large Language Models Pass the Turing Test",
            "authors": "Jones, C.",
            "year": 2025,
            "s2_paper_id": "66e350075a66ca5fd0c09f20d76aaad2c5c6860c",
        },
    ]
    document = verify(script, input=json.dumps(candidates)).json()
    journal, s2_id = document["results"]
    assert journal["status"] == "UNCONFIRMED"
    assert journal["reason"].startswith(
        f"{PENDING} (Semantic Scholar unavailable; DOI:10.3150/17-bej951 could not be checked; "
        "a title search found 'Heat-bath random walks with Markov bases'"
    )
    assert journal["suggestion"]["arxiv_id"] == "1605.08386"
    assert s2_id["reason"].startswith(f"{PENDING} (Semantic Scholar unavailable; ")
    assert "S2:66e350075a66ca5fd0c09f20d76aaad2c5c6860c could not be checked" in s2_id["reason"]
    assert all("not found" not in r["reason"] for r in document["results"])
    assert document["summary"]["pending"] == 2


def test_an_identifier_whose_service_failed_is_pending_not_missing(script, standin, tmp_path):
    """Synthesized failure (arXiv answers 503): the DOI confirms the paper, but the arXiv id
    beside it could not be checked, so the candidate waits instead of being confirmed."""
    standin.fail("arxiv", 503)
    candidate = {**MIXED[1], "arxiv_id": "0808.05394"}
    result = verify(script, input=json.dumps([candidate])).json()["results"][0]
    assert result["status"] == "UNCONFIRMED"
    assert result["reason"].startswith(
        f"{PENDING} (arXiv unavailable; arXiv:0808.05394 could not be checked; "
        "DOI:10.1098/rspa.1985.0070 is 'Quantum theory"
    )
    assert "does not exist" not in result["reason"]


def test_all_four_failing_nothing_is_confirmed(script, standin, tmp_path):
    for service in ("arxiv", "s2", "zbmath", "crossref"):
        standin.fail(service, 500 if service == "s2" else 503)
    run = verify(script, write(tmp_path, "c.json", MIXED), "--out", str(tmp_path / "v.json"))
    assert run.returncode == 0
    document = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    assert [r["status"] for r in document["results"]] == ["UNCONFIRMED"] * 3
    all_down = f"{PENDING} (arXiv, Semantic Scholar, zbMATH Open and Crossref unavailable)"
    assert [r["reason"] for r in document["results"]] == [all_down] * 3  # each service named
    assert all(r["paper"] is None and r["source"] is None for r in document["results"])
    assert document["summary"]["pending"] == 3
    assert "(3 pending: API error)" in run.stdout.splitlines()[0]
    assert schemas.schema_errors("verification", document) == []


def test_a_cached_answer_within_its_ttl_still_confirms(script, standin, tmp_path, monkeypatch):
    candidates = write(tmp_path, "c.json", MIXED[:2])
    assert [r["status"] for r in verify(script, candidates).json()["results"]] == ["CONFIRMED"] * 2
    calls = sum(standin.counts.values())
    for service in ("arxiv", "s2", "zbmath", "crossref"):
        standin.fail(service, 500 if service == "s2" else 503)
    cached = verify(script, candidates).json()
    assert [r["status"] for r in cached["results"]] == ["CONFIRMED"] * 2
    assert sum(standin.counts.values()) == calls  # answered from the cache: no request
    monkeypatch.setenv("MATH_CACHE_TTL", "0")
    expired = verify(script, candidates).json()
    all_down = f"{PENDING} (arXiv, Semantic Scholar, zbMATH Open and Crossref unavailable)"
    assert [r["reason"] for r in expired["results"]] == [all_down] * 2


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("text", "code", "words"),
    [
        ("{not json", "bad_json", "not valid JSON"),
        ("[]", "no_candidates", "no candidates"),
        ('{"title": "x"}', "bad_candidates", "expected a JSON list"),
    ],
)
def test_input_that_is_not_candidates_is_one_clear_line(script, standin, text, code, words):
    run = verify(script, input=text)
    assert run.returncode == 2
    lines = run.stdout.splitlines()
    assert len(lines) == 1
    error = json.loads(lines[0])["error"]
    assert error["code"] == code
    assert words in error["message"]
    assert sum(standin.counts.values()) == 0  # nothing was asked


@pytest.mark.parametrize(
    ("candidate", "words"),
    [
        ("a title", "expected an object"),
        ({"authors": ["Tao, T."], "year": 2020}, "nothing to verify"),
        ({"title": "x", "year": 20225}, "not a publication year"),
        ({"title": "x", "year": 2999}, "not a publication year"),
        ({"title": "x", "year": 1066}, "not a publication year"),
        ({"title": "x", "year": "soon"}, "not a publication year"),
        ({"title": "x", "arxiv_id": "abc"}, "not an arXiv id"),
        ({"title": "x", "arxiv_id": "2310.XXXX"}, "not an arXiv id"),
        ({"title": "x", "s2_paper_id": "nonsense"}, "not a paper id"),
        ({"title": 42}, "title must be a string"),
        ({"title": "x", "authors": [1, 2]}, "authors must be"),
        ({"title": "x", "venue": ["J. Algebra"]}, "venue must be a string"),
        ({"title": "Markov " * 15000, "year": 2016}, "at most 1000"),
    ],
)
def test_one_bad_candidate_never_sinks_the_batch(script, standin, candidate, words):
    """The bad one gets its own UNCONFIRMED result with the reason; the good one is verified
    with the usual calls."""
    good = {"key": "good", "title": "Heat-bath random walks with Markov bases", "year": 2016}
    run = verify(script, input=json.dumps([candidate, good]))
    assert run.returncode == 0, run.stdout
    document = run.json()
    assert schemas.schema_errors("verification", document) == []
    bad, verified = document["results"]
    assert bad["key"] == "cand-1" and bad["status"] == "UNCONFIRMED"
    assert bad["reason"].startswith("not verifiable: stdin: candidate 1") and words in bad["reason"]
    assert bad["paper"] is None and bad["verified_via"] == []
    assert len(json.dumps(bad)) < 1000  # a huge title is not echoed whole
    assert verified["status"] == "CONFIRMED"
    assert document["summary"]["unconfirmed"] == 1


def test_a_repeated_key_is_its_own_unconfirmed_result(script, standin):
    candidates = [
        {"key": "a", "title": "Heat-bath random walks with Markov bases", "year": 2016},
        {"key": "a", "title": "Neural Turing Machines", "year": 2014},
    ]
    document = verify(script, input=json.dumps(candidates)).json()
    first, second = document["results"]
    assert first["key"] == "a" and first["status"] == "CONFIRMED"
    assert second["key"] == "cand-2" and second["status"] == "UNCONFIRMED"
    assert "duplicate key 'a' (candidate 1 has it)" in second["reason"]


def test_a_missing_file_is_named(script, standin):
    run = verify(script, "no-such-file.json")
    assert run.returncode == 2
    assert run.json()["error"]["code"] == "file_not_found"


def test_an_out_that_is_also_an_input_is_refused_and_the_input_kept(script, standin, tmp_path):
    candidates = write(tmp_path, "hits.json", [{"title": "Heat-bath random walks", "year": 2016}])
    before = Path(candidates).read_bytes()
    run = verify(script, candidates, "--out", candidates)
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "cannot_write" and "also an input" in run.stdout
    assert Path(candidates).read_bytes() == before
    assert sum(standin.counts.values()) == 0  # refused before any request


def test_an_exact_title_one_year_off_through_arxiv(script, standin, tmp_path):
    """arXiv's record (arXiv:1605.08386, no journal reference) does not explain 2015: CORRECTED.
    A record with an arXiv version and a journal (arXiv:1009.3186) explains its year: CONFIRMED."""
    markov = {
        "key": "markov",
        "title": "Heat-bath random walks with Markov bases",
        "authors": "Stanley, Caprice and Windisch, Tobias",
        "year": 2015,
    }
    group = {
        "key": "group",
        "title": "Group Testing with Probabilistic Tests: Theory, Design and Application",
        "authors": "Cheraghchi, Mahdi and Hormati, Ali and Karbasi, Amin and Vetterli, Martin",
        "year": 2011,
    }
    results = by_key(verify(script, write(tmp_path, "c.json", [markov, group])).json())
    assert results["markov"]["status"] == "CORRECTED", results["markov"]["reason"]
    assert [d["field"] for d in results["markov"]["discrepancies"]] == ["year"]
    assert results["group"]["status"] == "CONFIRMED", results["group"]["reason"]
