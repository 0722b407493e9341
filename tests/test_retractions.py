"""A retracted paper is reported as retracted wherever it appears, and is never a [V] source.

Every Crossref record here is SYNTHESIZED (no recording holds a retraction): a work whose
`updated-by` relation of type "retraction" names its notice, and a notice whose `update-to`
names the work it retracts, in the shape of Crossref's REST API (/works).
"""

from __future__ import annotations

import json

from mathtools.core.records import Paper
from mathtools.gate.refreport import report_markdown
from mathtools.litdoc import merging, quotes
from mathtools.litdoc.literature import parse_literature
from mathtools.services.crossref import to_paper
from support.scripted_server import Reply, ScriptedServer
from support.verified import confirmed, paper, verification

NOTICE = "10.5555/notice.1"
WORK = {  # synthesized
    "DOI": "10.5555/retracted.1",
    "title": ["Bounds on the spectral gap of expander families"],
    "author": [{"given": "Ada", "family": "Example"}],
    "issued": {"date-parts": [[2020]]},
    "published": {"date-parts": [[2020]]},
    "type": "journal-article",
    "container-title": ["Journal of Examples"],
    "updated-by": [
        {
            "DOI": NOTICE,
            "type": "retraction",
            "label": "Retraction",
            "updated": {"date-parts": [[2021, 3, 1]]},
        }
    ],
}


def test_crossrefs_retraction_relations_name_the_notice():
    assert to_paper(WORK).retraction_notice == NOTICE
    notice = {  # synthesized: the notice itself
        "DOI": NOTICE,
        "title": ["Retraction notice"],
        "type": "journal-article",
        "update-to": [{"DOI": WORK["DOI"], "type": "retraction", "label": "Retraction"}],
    }
    assert to_paper(notice).retraction_notice == NOTICE
    corrected = {**WORK, "updated-by": [{"DOI": NOTICE, "type": "correction"}]}
    assert to_paper(corrected).retraction_notice is None


def test_verify_batch_reports_a_retracted_paper(script, standin, monkeypatch, tmp_path):
    """Crossref answers (synthesized) with the retracted work; the other services are the
    stand-in's recordings, which do not know it."""
    envelope = {
        "status": "ok",
        "message-type": "work-list",
        "message": {"items": [WORK], "total-results": 1, "items-per-page": 20},
    }
    reply = Reply(200, json.dumps(envelope), {"Content-Type": "application/json"})
    cited = {
        "key": "example",
        "title": "Bounds on the spectral gap of expander families",
        "authors": "Example, Ada",
        "year": 2020,
        "doi": WORK["DOI"],
    }
    with ScriptedServer(default=reply) as server:
        monkeypatch.setenv("MATH_CROSSREF_API_URL", server.url)
        out = tmp_path / "verified.json"
        run = script("verify_batch.py", "--out", str(out), input=json.dumps([cited]))
    assert run.returncode == 0, run.stderr
    [result] = json.loads(out.read_text())["results"]
    assert result["status"] == "CONFIRMED", result["reason"]
    assert result["paper"]["retraction_notice"] == NOTICE
    assert result["reason"].endswith(f"RETRACTED (notice DOI:{NOTICE})")
    [line] = [line for line in run.stdout.splitlines() if line.startswith("CONFIRMED example")]
    assert line.endswith(f"-- RETRACTED (notice DOI:{NOTICE})")


def test_literature_md_says_retracted_and_no_v_claim_rests_on_it(tmp_path):
    lit = tmp_path / "problems" / "gap" / "LITERATURE.md"
    record = paper(1, source="crossref", doi=WORK["DOI"], retraction_notice=NOTICE)
    results = [confirmed(record, ("crossref",))]
    relevance = {results[0]["key"]: {"relevance": "R.", "key_results": "K", "confidence": "[S]"}}
    merging.merge_file(lit, verification(results, "2026-02-10T12:00:00Z"), relevance, summary="q")
    text = lit.read_text()
    assert f"- **Retracted:** DOI:{NOTICE}" in text
    entries = {entry.entry_number: entry for entry in parse_literature(text).confirmed}
    [claim] = quotes.quotes('[V] "We prove bound 1. It is sharp." (REF-001, abstract)')
    assert "retracted" in (quotes.check(claim, entries) or "")


def test_check_refs_report_says_retracted():
    record = Paper.from_dict(paper(1, doi=WORK["DOI"], retraction_notice=NOTICE)).to_dict()
    result = confirmed(record)
    document = {
        "checked_at": "2026-02-10T12:00:00Z",
        "inputs": [{"file": "refs.bib", "kind": "bib", "entries": 1}],
        "sources_queried": ["crossref"],
        "entries": [
            {
                "key": "example",
                "file": "refs.bib",
                "line": 1,
                "entry_type": "article",
                "cited": {},
                "status": "CONFIRMED",
                "reason": result["reason"],
                "verification": result,
            }
        ],
        "duplicates": [],
        "missing": [],
        "not_cited": [],
        "summary": {
            "entries": 1,
            "confirmed": 1,
            "corrected": 0,
            "unconfirmed": 0,
            "pending": 0,
            "duplicates": 0,
            "missing": 0,
        },
    }
    assert f"RETRACTED (notice DOI:{NOTICE})" in report_markdown(document)
