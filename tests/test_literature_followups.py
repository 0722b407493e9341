"""Follow-up searches keep each paper once (issue 37): a reference left pending is retried in
place, a PROBLEM.md reference is one entry however many searches run, a remembered paper that
is an entry is that entry.

The four sources are tests/support/standin.py, answering from the real recordings; Crossref and
zbMATH Open answering 503 is synthesized (`standin.fail`).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_script
from mathtools.litdoc import literature
from support.standin import StandIn

sys.path.insert(0, str(ROOT / "tools"))
from demo_pipeline import Workspace, create_problem

SLUG = "tolerant-testing"
LISTED = re.compile(r"^((?:arXiv|DOI|S2|Zbl):\S+) \| ", re.M)
ENTRY = re.compile(r"^### (U?REF-\d{3}): (.*)$", re.M)
# PROBLEM.md's references as an intake writes them: no year, no identifier (only the title and
# its authors identify them), and papers only Crossref or zbMATH Open hold.
REFERENCES = """## References

- G. Cybenko, "Approximation by superpositions of a sigmoidal function"
- O. Ore, "Note on Hamilton circuits"
"""


def sample_with_references(folder: Path) -> Path:
    text = (ROOT / "examples" / "sample-problem" / "PROBLEM.md").read_text(encoding="utf-8")
    head, rest = text.split("## References", 1)
    path = folder / "PROBLEM.md"
    path.write_text(head + REFERENCES + "\n## " + rest.split("\n## ", 1)[1], encoding="utf-8")
    return path


class Searches:
    """A workspace with the sample problem, searched again and again as the runbook does."""

    def __init__(self, folder: Path, standin: StandIn, slug: str = SLUG):
        self.folder = folder
        self.standin = standin
        self.slug = slug
        self.literature = folder / ".math" / "problems" / slug / "LITERATURE.md"

    def run(self, *args: str):
        done = run_script("literature.py", *args, cwd=self.folder)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def search(
        self,
        *focus: str,
        remembered: list[dict] | None = None,
        label: str = "irrelevant",
        synthesis: str = "### Gaps in Literature\n- [~] A gap.\n",
    ) -> dict[str, str]:
        """discover, judge every paper (irrelevant), verify, merge, write the Synthesis, finish:
        what each printed."""
        listing = self.run("discover", self.slug, *focus)
        assert listing.returncode == 0, listing.stdout + listing.stderr
        folder = self.folder / re.search(r"^search folder: (.+)$", listing.stdout, re.M).group(1)
        judged = [
            {"key": key, "label": label, "confidence": 0.7, "rationale": "test"}
            for key in LISTED.findall(listing.stdout)
        ]
        data = {"judgements": judged, **({"remembered": remembered} if remembered else {})}
        (folder / "judgements-i1.json").write_text(json.dumps(data))
        assert self.run("judge", str(folder)).returncode == 0
        verified = self.run("verify", str(folder))
        assert verified.returncode == 0, verified.stdout
        results = json.loads((folder / "verified.json").read_text())["results"]
        tier = {"relevance": "why", "key_results": "what", "confidence": "[S]"}
        relevance = {r["key"]: tier for r in results if r["status"] != "UNCONFIRMED"}
        (folder / "relevance.json").write_text(json.dumps(relevance))
        merged = self.run("merge", str(folder))
        assert merged.returncode == 0, merged.stdout
        (folder / "synthesis.md").write_text(synthesis)
        finished = self.run(
            "finish", str(folder), "--outcome", "PARTIAL", "--title", "t", "--reasoning", "r",
            "--insight", "i",
        )  # fmt: skip
        assert finished.returncode == 0, finished.stdout
        return {"verify": verified.stdout, "merge": merged.stdout}

    def entries(self) -> list[tuple[str, str]]:
        return ENTRY.findall(self.literature.read_text(encoding="utf-8"))


@pytest.fixture
def searches(tmp_path, monkeypatch):
    monkeypatch.setenv("MATH_HTTP_RETRIES", "0")
    with StandIn() as standin:
        for name, value in standin.env().items():
            monkeypatch.setenv(name, value)
        folder = tmp_path / "ws"
        folder.mkdir()
        create_problem(Workspace(folder, dict(os.environ)), sample_with_references(tmp_path))
        yield Searches(folder, standin)


def test_two_follow_ups_keep_the_first_searchs_entries_and_add_only_what_they_confirm(searches):
    """The issue's walk: with Crossref and zbMATH Open down, the first search leaves PROBLEM.md's
    two references pending; two follow-ups neither add them again nor re-add the references
    (was 2 -> 6 -> 14 entries); once Crossref answers, the one it holds moves to the REFs."""
    searches.standin.fail("crossref", 503)
    searches.standin.fail("zbmath", 503)
    first = searches.search()
    assert "UREF-002 added: problem-ref-2" in first["merge"], first["merge"]
    after_first = searches.entries()
    assert [number for number, _ in after_first] == ["UREF-001", "UREF-002"], after_first

    again = searches.search("uniformity", "testing")
    assert searches.entries() == after_first
    assert " added: " not in again["merge"], again["merge"]
    # each reference asked once, as PROBLEM.md's reference (its UREF is that entry)
    assert not re.search(r"^UNCONFIRMED UREF-", again["verify"], re.M), again["verify"]

    searches.standin.recover("crossref")
    last = searches.search("good", "turing")
    # a PROBLEM.md reference's UREF is headed by the citation as written
    cybenko = next(n for n, title in after_first if "Approximation by" in title)
    ore, ore_citation = next((n, title) for n, title in after_first if "Note on" in title)
    assert re.search(rf"^REF-001 added: \S+ \(moved from {cybenko}\)$", last["merge"], re.M), last
    assert searches.entries() == [
        ("REF-001", "Approximation by superpositions of a sigmoidal function"),
        (ore, ore_citation),
    ]


def test_a_pending_reference_is_retried_in_place_and_a_remembered_one_is_its_entry(searches):
    """A UREF left pending that no candidate of the search is, is retried under its own number
    and stays that entry; a remembered paper equal to it (same title and author, no year) is
    that entry, asked once."""
    searches.standin.fail("crossref", 503)
    searches.standin.fail("zbmath", 503)
    remembered = {"title": "A 1952 note in the American Mathematical Monthly", "authors": ["Ore"]}
    searches.search(remembered=[remembered])
    before = searches.entries()
    assert len(before) == 3, before
    noted = next(n for n, title in before if title.startswith("A 1952 note"))
    problem = searches.folder / ".math" / "problems" / SLUG / "PROBLEM.md"
    problem.write_text(problem.read_text().replace('- O. Ore, "Note on Hamilton circuits"\n', ""))
    out = searches.search("uniformity", "testing", remembered=[remembered])
    retried = re.search(r"^retried in place: (.*)$", out["verify"], re.M)
    assert retried, out["verify"]
    assert "(still pending)" in retried.group(1) and noted not in retried.group(1)
    assert searches.entries() == before, out["merge"]


def test_a_remembered_paper_with_its_arxiv_id_is_verified_and_read_whole(searches, monkeypatch):
    """Issue 37: a remembered paper may carry its arXiv id or DOI (the runbook's form), and is
    verified and read like any candidate: its whole abstract, its source's statements. With the
    source server down (arXiv's search API answering), the failing server is named as itself,
    never as "arXiv unreachable"."""
    monkeypatch.setenv("MATH_ARXIV_SRC_URL", "http://127.0.0.1:9/src")  # refuses connections
    remembered = {
        "title": "The Price of Tolerance in Distribution Testing",
        "authors": ["Canonne", "Jain", "Kamath", "Li"],
        "year": 2021,
        "arxiv_id": "2106.13414",
    }
    out = searches.search(remembered=[remembered])["verify"]
    assert re.search(r"^CONFIRMED memory-1 = arXiv:2106\.13414 \| 2021 \| ", out, re.M), out
    block = out.split("CONFIRMED memory-1", 1)[1]
    assert "\n  abstract: We revisit the problem of tolerant distribution testing." in block
    assert "no LaTeX source statements: arXiv's LaTeX source server unreachable" in block, block
    assert "arXiv unreachable" not in out
    # Issue 37: each Verified line carried a ~300-character URL with Semantic Scholar's field
    # list; it keeps the look-up as the GET that re-runs it.
    verified = re.findall(
        r"^- \*\*Verified:\*\* \S+ via (.*)$", searches.literature.read_text(), re.M
    )
    urls = [url for line in verified for url in re.findall(r"https?://\S+", line)]
    assert urls and all("fields=" not in url and len(url) < 160 for url in urls), verified
    runbook = (ROOT / "plugin" / "agents" / "literature-search.md").read_text(encoding="utf-8")
    form = re.search(r'"remembered": \[\{(.*?)\}\]', runbook).group(1)
    assert '"arxiv_id"' in form and '"doi"' in form


def test_a_synthesis_violation_names_the_line_of_the_file_the_model_edits():
    """Issue 37: violations named LITERATURE.md's lines ("Synthesis line 57") while the model
    edits R/synthesis.md; the Synthesis there starts without the warning finish puts atop it."""
    from mathtools.litdoc import checks, literature
    from mathtools.search.recording import in_synthesis_file

    written = '### Applicable Theorems\n- [V] "words no paper wrote here" (REF-009, abstract).\n'
    doc = literature.parse_literature(literature.template("p"), "LITERATURE.md")
    section = doc.section(literature.SYNTHESIS)
    text = checks.with_warning(written + "\n### Gaps\n- [~] A gap.\n")
    section.intro = ["\n", *(line + "\n" for line in text.splitlines()), "\n"]
    doc = literature.parse_literature(doc.render(), "LITERATURE.md")
    found = [v for v in checks.validate(doc.render()) if v.startswith("Synthesis line")]
    assert found and found[0].startswith("Synthesis line ") and "REF-009" in found[0]
    renamed = in_synthesis_file(found, doc, written, "R/synthesis.md")
    assert renamed[0].startswith("R/synthesis.md line 2: "), renamed


@pytest.mark.needs_shared("recordings")
def test_a_follow_ups_synthesis_quotes_a_statement_an_earlier_verify_listed(tmp_path, monkeypatch):
    """Issue 37's "Done when": REF-001's Conjecture 1.1, listed by the first search's verify
    and quoted by no claim of it, is quoted by a follow-up's Synthesis, and finish accepts it."""
    with StandIn() as standin:
        for name, value in standin.env().items():
            monkeypatch.setenv(name, value)
        folder = tmp_path / "ws"
        folder.mkdir()
        slug = create_problem(
            Workspace(folder, dict(os.environ)), ROOT / "examples" / "viterbo" / "PROBLEM.md"
        )
        searches = Searches(folder, standin, slug)
        first = searches.search(label="strong")["verify"]
        assert re.search(r"^    Conjecture 1\.1 \(Viterbo, 2000\): For any symplectic", first, re.M)
        ref = next(
            e
            for e in literature.load_literature(searches.literature).confirmed
            if e.arxiv_id == "2405.16513"
        )
        assert "Conjecture 1.1" in ref.statements()
        quote = r"For any symplectic capacity $c$, and any convex domain $K \subset \R^{2n}$"
        claim = f'### Applicable Theorems\n- [V] "{quote}" ({ref.entry_number}, Conjecture 1.1).\n'
        # remembered: the counterexample again, by its arXiv id (it is REF's paper: that entry)
        again = {"title": ref.title, "authors": ref.authors, "year": 2024, "arxiv_id": "2405.16513"}
        out = searches.search("symplectic", "capacity", remembered=[again], synthesis=claim)
        assert f"= {ref.entry_number} (recorded)" in out["verify"], out["verify"]
        assert claim.splitlines()[1] in searches.literature.read_text(encoding="utf-8")


def test_a_pending_uref_confirmed_as_the_paper_of_a_ref_becomes_that_ref():
    """A UREF retried in place whose paper a REF already holds (the search found it under its
    real title meanwhile) is that REF: removed, its number kept on the REF's Moved from line."""
    from mathtools.litdoc import checks, merging
    from support.verified import confirmed, paper, unconfirmed, verification

    record = paper(7)
    doc = literature.parse_literature(literature.template("p"), "LITERATURE.md")
    title = "Spectral gaps of random graphs, remembered"
    cited = {"key": "memory-1", "title": title, "authors": ["Lovelace7"]}
    pending = unconfirmed(cited, "API error - verification pending")
    first = verification([confirmed(record), pending])
    tier = {"relevance": "why", "key_results": "what", "confidence": "[S]"}
    merging.merge(doc, first, {record["key"]: tier}, summary="first")
    assert [e.entry_number for e in doc.confirmed + doc.unconfirmed] == ["REF-001", "UREF-001"]
    retried = {**cited, "key": "UREF-001", "entry": "UREF-001", "source": "pending"}
    again = confirmed(record)
    again.update(key="UREF-001", candidate=retried)
    report = merging.merge(doc, verification([again], "2026-03-01T00:00:00Z"), summary="again")
    assert report["merged"] == [{"from": "UREF-001", "to": "REF-001", "key": "UREF-001"}]
    assert [e.entry_number for e in doc.confirmed + doc.unconfirmed] == ["REF-001"]
    assert doc.confirmed[0].field("Moved from").startswith("UREF-001 (unconfirmed until ")
    assert checks.validate(doc.render()) == []
