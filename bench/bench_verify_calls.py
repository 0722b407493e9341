#!/usr/bin/env python3
"""API calls and time to verify 100 identified candidates: batched versus one call per paper.

The 100 candidates are the first 100 (by id) of the 106 distinct arXiv entries in
../shared/recordings/arxiv/, each cited with its recorded arXiv id, title, authors and year, so
every one should come out CONFIRMED. Both ways run against the stand-in server
(tests/support/standin.py), with the rate-limit intervals at 0 and no cache, and count the
requests that reach it:

  batched       verify_batch.py on all 100: one arXiv id_list call, one S2 /paper/batch call.
  one by one    the same verifier asked about one candidate at a time, as a model that fetches each
                paper separately would: an id_list call and a batch call per paper.

The local times show the work on our side; the projection multiplies the calls by the services'
real intervals (arXiv one request every 3 s, Semantic Scholar 1 a second with a key), which is
what dominates against the real APIs. Target: at most 2 calls for 100, against 100 or more.

Run: .venv/bin/python bench/bench_verify_calls.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from standin_calls import PLUGIN, calls, standin_scratch

CANDIDATES = 100


def build_candidates(standin) -> list[dict]:
    from mathtools.services.arxiv import ArxivClient
    from support.standin import load_index

    ids = sorted(load_index().arxiv)[:CANDIDATES]
    papers = ArxivClient(use_cache=False).fetch_ids(ids).papers
    standin.counts.clear()
    return [
        {"title": p.title, "authors": p.authors, "year": p.year, "arxiv_id": p.arxiv_id}
        for p in papers
    ]


def batched_script(standin, path: Path) -> tuple[dict, float, int]:
    started = time.perf_counter()
    run = subprocess.run(
        [sys.executable, str(PLUGIN / "scripts" / "verify_batch.py"), str(path), "--no-cache"],
        capture_output=True,
        text=True,
        check=True,
    )
    elapsed = time.perf_counter() - started
    confirmed = json.loads(run.stdout)["summary"]["confirmed"]
    counts = dict(standin.counts)
    standin.counts.clear()
    return counts, elapsed, confirmed


def in_process(standin, path: Path, one_by_one: bool) -> tuple[dict, float, int]:
    from mathtools.gate.candidates import load_candidates
    from mathtools.gate.verification import Verifier

    candidates, _ = load_candidates([str(path)])
    groups = [[c] for c in candidates] if one_by_one else [candidates]
    started = time.perf_counter()
    confirmed = 0
    for group in groups:
        document = Verifier(use_cache=False).verify(group)
        confirmed += document["summary"]["confirmed"]
    elapsed = time.perf_counter() - started
    counts = dict(standin.counts)
    standin.counts.clear()
    return counts, elapsed, confirmed


def main() -> None:
    with standin_scratch() as (standin, scratch):
        path = scratch / "candidates.json"
        path.write_text(json.dumps(build_candidates(standin)), encoding="utf-8")
        rows = [
            ("batched: verify_batch.py", *batched_script(standin, path)),
            ("batched: in process", *in_process(standin, path, one_by_one=False)),
            ("one call per paper: in process", *in_process(standin, path, one_by_one=True)),
        ]
    print(f"Verifying {CANDIDATES} candidates with arXiv ids against the stand-in server")
    print(
        f"{'way':34} {'arXiv':>6} {'S2':>6} {'calls':>6} {'confirmed':>10} {'local':>9} "
        f"{'at real rate limits':>20}"
    )
    for name, counts, elapsed, confirmed in rows:
        arxiv, s2, projected = calls(counts)
        print(
            f"{name:34} {arxiv:>6} {s2:>6} {arxiv + s2:>6} {confirmed:>10} "
            f"{elapsed:>8.2f}s {projected:>19.0f}s"
        )
    batched_calls = sum(rows[0][1].values())
    single_calls = sum(rows[2][1].values())
    print(f"target: <= 2 calls batched ({batched_calls}), >= 100 one by one ({single_calls})")


if __name__ == "__main__":
    main()
