"""PROBLEM.md's references are checked as written (issue 37): each goes to verification whole, as
a free-text citation; Crossref's query.bibliographic and Semantic Scholar's match read it, and
gate/citations.py matches what they return. It is confirmed, or left pending (or unconfirmed)
whole: never split into a guessed author and title.

The three forms the issue names: "Katona and Makar-Limanov: the question whether ...", "Dias da
Silva and Hamidoune: the theorem ..." and "I. Rédei, Ein kombinatorischer Satz, Acta Litt. Sci.
Szeged 7 (1934)". No recording holds Rédei's paper: its tests add a SYNTHESIZED Crossref work to
the stand-in (RedeiStandIn, which says so). Cybenko's citation is confirmed from the real recorded
Crossref work (../shared/recordings/crossref/refchecker-items).
"""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlsplit

import pytest
from mathtools.core.records import Paper
from mathtools.gate.candidates import candidate
from mathtools.gate.citations import compare_citation
from mathtools.gate.verification import Verifier
from mathtools.litdoc import literature, merging
from mathtools.search import problemfile
from mathtools.search.confirmation import pending_candidates
from mathtools.search.searchfolder import Search
from support import shared
from support.cassettes import load, serving_s2
from support.scripted_server import Reply
from support.standin import StandIn, words
from support.verified import verify_batch

PENDING = "API error - verification pending"
KATONA = (
    r"Katona and Makar-Limanov: the question whether $N_a(\lfloor n/2\rfloor)$ is the largest "
    "of the numbers $N_a(k)$"
)
DIAS_DA_SILVA = (
    "Dias da Silva and Hamidoune: the theorem that $|h^\\wedge A| \\ge \\min(p, h|A| - h^2 + 1)$ "
    "for every subset $A$ of $\\mathbb{Z}/p\\mathbb{Z}$"
)
REDEI = "I. Rédei, Ein kombinatorischer Satz, Acta Litt. Sci. Szeged 7 (1934)"
CYBENKO = (
    "G. Cybenko, Approximation by superpositions of a sigmoidal function, Math. Control Signals "
    "Systems 2 (1989), no. 4, 303-314."
)
# SYNTHESIZED: a Crossref work in the shape of the recorded ones, for a paper no recording holds
# (10.5555 is Crossref's test prefix: this DOI names no real work).
REDEI_WORK = {
    "DOI": "10.5555/synthesized.redei.1934",
    "type": "journal-article",
    "title": ["Ein kombinatorischer Satz"],
    "author": [{"given": "L.", "family": "Rédei", "sequence": "first"}],
    "container-title": ["Acta Litterarum ac Scientiarum (Szeged)"],
    "short-container-title": ["Acta Litt. Sci. Szeged"],
    "volume": "7",
    "page": "39-43",
    "issued": {"date-parts": [[1934]]},
    "URL": "https://doi.org/10.5555/synthesized.redei.1934",
}


class RedeiStandIn(StandIn):
    """The stand-in, whose Crossref bibliographic search also finds the SYNTHESIZED REDEI_WORK
    when every word of its title is in the query (as the stand-in finds recorded works)."""

    def answer(self, method: str, target: str, body: bytes) -> Reply:
        reply = super().answer(method, target, body)
        parts = urlsplit(target)
        query = dict(parse_qsl(parts.query)).get("query.bibliographic", "")
        title = set(words(REDEI_WORK["title"][0]))
        asked = parts.path.endswith("/crossref/works") and reply.status == 200 and query
        if asked and title <= set(words(query)):
            payload = json.loads(reply.payload())
            payload["message"]["items"].insert(0, REDEI_WORK)
            payload["message"]["total-results"] += 1
            return Reply(200, json.dumps(payload).encode(), dict(reply.headers))
        return reply


@pytest.fixture
def redei_standin(monkeypatch):
    with RedeiStandIn() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
        yield server


def problem_with(tmp_path, *references):
    path = tmp_path / "PROBLEM.md"
    items = "\n".join(f"- {reference}" for reference in references)
    path.write_text(
        "---\ntitle: Sumsets\ndomain: combinatorics\n---\n# Problem Statement\n\nBound it.\n\n"
        f"## References\n\n{items}\n",
        encoding="utf-8",
    )
    return problemfile.read_problem(path)


# ----------------------------------------------------------------------------- reading


def test_the_three_forms_become_whole_citations(tmp_path):
    """They became a UREF titled "Makar-Limanov: the question whether ..." with "Authors:
    Katona", one titled "Hamidoune: the theorem ..." with "Authors: da Silva", and "Ein
    kombinatorischer Satz, Acta Litt" cut at "Sci.". Now each is one whole citation, with only
    the year it states unambiguously."""
    problem = problem_with(tmp_path, KATONA, DIAS_DA_SILVA, REDEI)
    assert problemfile.reference_candidates(problem) == [
        {"key": "problem-ref-1", "source": "PROBLEM.md", "citation": KATONA},
        {"key": "problem-ref-2", "source": "PROBLEM.md", "citation": DIAS_DA_SILVA},
        {"key": "problem-ref-3", "source": "PROBLEM.md", "citation": REDEI, "year": 1934},
    ]


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("A. Author, Some title, J. Math. 12 (1990), 1901-1950.", 1990),  # pages are no year
        ("A. Author, Some title, Springer, 1985", 1985),
        ("A. Author, Some title (1990); reprinted (2001)", None),  # two years: none is read
        ("A. Author, arXiv:2001.01234", None),  # an arXiv id holds no year
    ],
)
def test_a_year_is_read_only_where_unambiguous(text, year):
    assert problemfile.parse_reference(text).year == year


# ----------------------------------------------------------------------------- matching


def test_a_record_identifies_a_citation_only_with_its_title_authors_and_year_in_it():
    """Found by a search, the title and every author with the year (CONFIRMED), or two of the
    three with the third short of agreeing (issue 50: then CORRECTED, the difference a
    discrepancy): every author and a year one off, or the year and some of the authors."""
    record = Paper(
        source="crossref", title="Ein kombinatorischer Satz", authors=["L. Rédei"], year=1934
    )
    assert compare_citation(REDEI, 1934, record).identifies(by_identifier=False)
    one_off = compare_citation(REDEI, 1935, record)
    assert one_off.identifies(by_identifier=False)
    # "I." for "L.": the cited initial differs too, an `authors` discrepancy as in a .bib entry
    assert [d["field"] for d in one_off.discrepancies] == ["authors", "year"]
    assert not compare_citation(REDEI, 1938, record).identifies(by_identifier=False)
    pair = Paper(source="semantic_scholar", title="Ein kombinatorischer Satz", year=1934)
    pair.authors = ["L. Rédei", "T. Szele"]
    some = compare_citation(REDEI, 1934, pair)
    assert some.identifies(by_identifier=False)
    assert [d["field"] for d in some.discrepancies] == ["authors"]
    assert not compare_citation(REDEI, 1935, pair).identifies(by_identifier=False)
    longer = Paper(source="crossref", title="Ein kombinatorischer Satz über Gruppen", year=1934)
    longer.authors = ["L. Rédei"]
    assert not compare_citation(REDEI, 1934, longer).identifies(by_identifier=False)
    other = Paper(
        source="crossref", title="Ein kombinatorischer Satz", authors=["A. Other"], year=1934
    )
    match = compare_citation(REDEI, 1934, other)
    assert not match.identifies(by_identifier=False)
    assert "I. Rédei is not an author" in match.reason
    both = Paper(source="semantic_scholar", title="On sums", authors=["G. Katona", "A. Bc"])
    assert compare_citation("Katona, On sums", None, both).matched_authors == ["G. Katona"]
    assert compare_citation("Katona et al., On sums", None, both).authors_agree


def test_an_identifier_is_refused_when_the_citation_names_another_paper():
    """By identifier, a record is the cited paper unless the citation's words name neither its
    title nor any of its authors."""
    record = Paper(source="arxiv", title="Heat-bath random walks with Markov bases", year=2016)
    record.authors = ["Caprice Stanley", "Tobias Windisch"]
    assert compare_citation("arXiv:1605.08386", None, record).identifies(by_identifier=True)
    assert compare_citation("Windisch, arXiv:1605.08386", None, record).identifies(True)
    assert not compare_citation("S. Reich, arXiv:1605.08386.", None, record).identifies(True)


def test_a_reference_that_is_a_title_alone_is_identified_by_it():
    """Issue 50: a title-only reference was refused as "a paper the citation names differs"
    though the titles were identical and it named no author; as a structured candidate's title
    alone does, it names the paper (a year it gives must agree)."""
    record = Paper(
        source="semantic_scholar", title="The Price of Tolerance in Distribution Testing"
    )
    record.authors, record.year = ["Clément L. Canonne", "Ayush Jain"], 2021
    cited = "The Price of Tolerance in Distribution Testing"
    match = compare_citation(cited, None, record)
    assert match.identifies(by_identifier=False) and match.discrepancies == []
    assert not compare_citation(f"{cited} (2015)", 2015, record).identifies(False)
    assert not compare_citation(f"S. Reich, {cited}", None, record).identifies(False)


def test_an_identifier_and_the_title_identify_a_citation_a_year_off_as_corrected():
    """Issue 50: the right arXiv id and title with a wrong year (or a co-author left out) is the
    cited paper, miscited: identified, the year (or the authors) a discrepancy, so CORRECTED
    from arXiv or Semantic Scholar alone; it used to be "not the cited paper"."""
    record = Paper(source="arxiv", title="Heat-bath random walks with Markov bases", year=2016)
    record.authors = ["Caprice Stanley", "Tobias Windisch"]
    cited = "C. Stanley (2014). Heat-bath random walks with Markov bases. arXiv:1605.08386"
    match = compare_citation(cited, 2014, record)
    assert match.identifies(by_identifier=True)
    assert sorted(d["field"] for d in match.discrepancies) == ["authors", "year"]


# ----------------------------------------------------------------------------- verifying


def test_a_citation_of_a_recorded_work_is_confirmed_by_one_crossref_call(script, standin):
    """Cybenko's paper as a mathematician cites it (journal abbreviations, volume, issue, pages)
    is confirmed from the recorded Crossref work; Semantic Scholar is not asked."""
    _, results = verify_batch(script, [{"key": "cybenko", "citation": CYBENKO, "year": 1989}])
    result = results["cybenko"]
    assert result["status"] == "CONFIRMED", result["reason"]
    assert result["sources"] == ["crossref"]
    assert result["paper"]["doi"] == "10.1007/bf02551274"
    assert result["reason"].startswith(
        "found by its citation: title, authors, year in the citation"
    )
    assert standin.counts["crossref list"] == 1 and standin.counts["s2 match"] == 0


def test_the_acta_litt_sci_form_is_identified_whole(script, redei_standin, tmp_path):
    """Synthesized record (REDEI_WORK): the citation goes whole to Crossref, "Acta Litt. Sci."
    and all, and the record's title, author and year are found in it; its author's initial,
    "I." where the record has "L.", is corrected as a structured citation's would be."""
    problem = problem_with(tmp_path, REDEI)
    _, results = verify_batch(script, problemfile.reference_candidates(problem))
    result = results["problem-ref-1"]
    assert result["status"] == "CORRECTED", result["reason"]
    assert [d["note"] for d in result["discrepancies"]] == [
        "cited I. Rédei, the author is L. Rédei"
    ]
    assert result["paper"]["title"] == "Ein kombinatorischer Satz"
    assert result["candidate"]["citation"] == REDEI
    query = [r.path for r in redei_standin.received if "query.bibliographic" in r.path]
    assert len(query) == 1 and "Acta+Litt.+Sci.+Szeged+7+%281934%29" in query[0]


def test_the_x_and_y_forms_stay_unconfirmed_whole(script, standin, tmp_path):
    """Neither names a paper's title: no record identifies them, and each stays one candidate
    with its citation whole, its reason naming the services asked."""
    problem = problem_with(tmp_path, KATONA, DIAS_DA_SILVA)
    _, results = verify_batch(script, problemfile.reference_candidates(problem))
    for key, text in (("problem-ref-1", KATONA), ("problem-ref-2", DIAS_DA_SILVA)):
        assert results[key]["status"] == "UNCONFIRMED"
        assert results[key]["candidate"]["citation"] == text
        assert "title" not in results[key]["candidate"]
        assert "Crossref" in results[key]["reason"] and PENDING not in results[key]["reason"]
    assert standin.counts["crossref list"] == 2 and standin.counts["s2 match"] == 2


def test_with_the_services_failing_the_references_are_pending_whole(script, standin, tmp_path):
    """Synthesized failures (503, 500): nothing answered the bibliographic queries, so each
    reference is pending, the failing services named, and its UREF keeps the text as written."""
    standin.fail("crossref", 503)
    standin.fail("s2", 500)
    problem = problem_with(tmp_path, KATONA, DIAS_DA_SILVA, REDEI)
    document, results = verify_batch(script, problemfile.reference_candidates(problem))
    for result in results.values():
        assert result["reason"] == f"{PENDING} (Semantic Scholar and Crossref unavailable)"
    assert document["summary"]["pending"] == 3
    path = tmp_path / "LITERATURE.md"
    merging.merge_file(path, document)
    text = path.read_text(encoding="utf-8")
    for number, cited in enumerate((KATONA, DIAS_DA_SILVA, REDEI), 1):
        assert f"### UREF-00{number}: {cited}\n- **Authors:** {literature.AS_CITED}\n" in text
    assert "Makar-Limanov: the question" not in text.replace(KATONA, "")
    # The next search retries each one whole.
    search = Search("sumsets", str(tmp_path), str(path), None, False, 5)
    retried = pending_candidates(search)
    assert [c.get("citation") for c in retried] == [KATONA, DIAS_DA_SILVA, REDEI]
    assert not any("title" in c or "authors" in c for c in retried)
    assert retried[2]["year"] == 1934


@pytest.mark.needs_shared("recordings")
def test_the_recorded_match_answer_without_authors_confirms_no_citation(monkeypatch):
    """The real /paper/search/match answer (recordings/s2/test_search_paper_match_title.yaml)
    holds the paper's title alone (it was asked fields=title): the citation holds that title,
    but a record naming no authors cannot confirm a citation. It is offered as a suggestion;
    Crossref, refusing connections here, is named as unavailable."""
    (recorded,) = load(shared.RECORDINGS / "s2/test_search_paper_match_title.yaml")
    cited = (
        "R. Agrawal, T. Imieliński and A. Swami, Mining association rules between sets of items "
        "in large databases, SIGMOD Rec. 22 (1993), 207-216."
    )
    with serving_s2([recorded], monkeypatch) as server:
        document = Verifier(use_cache=False).verify([candidate({"citation": cited}, 1, "test")])
    (asked,) = server.received
    # its title, as the free-text reader splits it (issue 50: the whole citation finds nothing)
    query = dict(parse_qsl(urlsplit(asked.path).query))["query"]
    assert query == "Mining association rules between sets of items in large databases"
    (result,) = document["results"]
    assert result["status"] == "UNCONFIRMED"
    assert result["suggestion"]["title"] == (
        "Mining association rules between sets of items in large databases"
    )
    assert "title in the citation; the record names no authors" in result["reason"]
    assert "Crossref unavailable" in result["reason"]
