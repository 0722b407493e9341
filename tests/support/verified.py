"""Verification results (schemas/verification.schema.json) built from Paper records, for the
LITERATURE.md tests and bench/bench_lit_merge.py. These are synthesized inputs: the shape is what
verify_batch.py writes; the papers are real arXiv/S2 metadata or numbered stand-ins."""

from __future__ import annotations

import json

from mathtools.core import schema_errors
from mathtools.core.records import Paper

ARXIV_URL = "https://export.arxiv.org/api/query?id_list={}"
S2_URL = "https://api.semanticscholar.org/graph/v1/paper/{}"


def paper(n: int, source: str = "arxiv", **changes) -> dict:
    """A numbered paper record; the same n gives the same paper from either source."""
    fields = {
        "source": source,
        "title": f"On the spectral gap of random graphs, part {n}",
        "authors": [f"Ada Lovelace{n}", "Emmy Noether"],
        "year": 2000 + n % 25,
        "arxiv_id": f"21{n // 100000:02d}.{n % 100000:05d}",
        "abstract": f"We prove bound {n}.\nIt is sharp.",
        "s2_paper_id": f"{n:040x}" if source == "semantic_scholar" else None,
        "doi": f"10.1000/sg.{n}" if source == "semantic_scholar" else None,
    }
    fields.update(changes)
    return Paper(**fields).to_dict()


def confirmed(record: dict, sources: tuple[str, ...] = ()) -> dict:
    """A CONFIRMED result: `record` identified, by `sources` (default: the record's own)."""
    sources = sources or (record["source"],)
    via = []
    if "arxiv" in sources and record.get("arxiv_id"):
        via.append(ARXIV_URL.format(record["arxiv_id"]))
    if "semantic_scholar" in sources or not via:
        via.append(S2_URL.format(record["key"].replace("arXiv:", "ARXIV:")))
    return {
        "key": record["key"],
        "status": "CONFIRMED",
        "reason": "title, authors and year match",
        "source": sources[0],
        "sources": list(sources),
        "verified_via": via,
        "checks": {"title_score": 1.0, "matched_authors": record["authors"][:1], "year_diff": 0},
        "paper": record,
        "candidate": {"key": record["key"], "title": record["title"]},
    }


def corrected(record: dict, candidate: dict, discrepancies: list[dict]) -> dict:
    """A CORRECTED result: `record` identified, the citation (`candidate`) wrong as
    `discrepancies` say (each {"field", "cited", "record", "note"})."""
    result = confirmed(record)
    result.update(
        key=candidate["key"],
        status="CORRECTED",
        reason="; ".join(f"{d['field']}: {d['note']}" for d in discrepancies),
        candidate=candidate,
        discrepancies=discrepancies,
    )
    return result


def unconfirmed(
    candidate: dict,
    reason: str = "arXiv API returned no results for this ID",
    suggestion: dict | None = None,
) -> dict:
    result = {
        "key": candidate.get("key") or f"arXiv:{candidate.get('arxiv_id')}",
        "status": "UNCONFIRMED",
        "reason": reason,
        "source": None,
        "verified_via": [],
        "checks": {},
        "paper": None,
        "candidate": candidate,
    }
    if suggestion:
        result["suggestion"] = {k: v for k, v in suggestion.items()}
    return result


def verification(results: list[dict], verified_at: str = "2026-02-10T12:00:00Z") -> dict:
    sources = sorted({s for r in results for s in (r.get("sources") or (r["source"],)) if s})
    return {
        "verified_at": verified_at,
        "sources_queried": sources or ["arxiv"],
        "results": results,
        "summary": {
            "total": len(results),
            "confirmed": sum(r["status"] == "CONFIRMED" for r in results),
            "corrected": sum(r["status"] == "CORRECTED" for r in results),
            "unconfirmed": sum(r["status"] == "UNCONFIRMED" for r in results),
        },
    }


def verify_batch(script, candidates: list[dict]) -> tuple[dict, dict[str, dict]]:
    """verify_batch.py's document for `candidates` (a run that succeeds, schema-valid) and its
    results by key; `script` is the conftest fixture that runs a plugin script."""
    run = script("verify_batch.py", input=json.dumps(candidates))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    document = run.json()
    assert schema_errors("verification", document) == []
    return document, {result["key"]: result for result in document["results"]}
