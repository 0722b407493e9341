#!/usr/bin/env python3
"""What a service refusing connections costs: `literature.py verify` on the sample, and
`check_refs.py` on a .bib with every service unreachable, at the default retries and backoff.

verify   the sample problem (examples/sample-problem/PROBLEM.md) is discovered and judged once
         against the stand-in server (tests/support/standin.py: the real recordings), then
         `literature.py verify` runs with a fresh cache, all services healthy, and again with one
         service's URL pointing at a port where nothing listens (connections refused), each
         service in turn. Target: at most 5 s longer than healthy.
check    `check_refs.py` on a 30-entry .bib (recorded arXiv ids and DOIs, as bench_check_refs.py
         builds it) with all four service URLs refusing connections. Target: done in <= 10 s,
         every entry pending (not checked, not called fabricated).

The rate-limit intervals are 0 (a local server); MATH_HTTP_RETRIES, MATH_HTTP_BACKOFF and
MATH_HTTP_TIMEOUT keep their defaults, which is what the backoff costs against a dead service.

Run: .venv/bin/python bench/bench_faults.py [--entries 30]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from standin_calls import PLUGIN, ROOT

sys.path.insert(0, str(ROOT / "tools"))
DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens, connections are refused
URLS = {
    "arXiv": ("MATH_ARXIV_API_URL", "/api/query"),
    "Semantic Scholar": ("MATH_S2_API_URL", "/graph/v1"),
    "zbMATH Open": ("MATH_ZBMATH_API_URL", "/zbmath/v1"),
    "Crossref": ("MATH_CROSSREF_API_URL", "/crossref"),
}
VERIFY_TARGET_S = 5.0
CHECK_TARGET_S = 10.0


def base_env(scratch: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MATH_")}
    env.pop("SEMANTIC_SCHOLAR_API_KEY", None)
    env.update(
        MATH_LITERATURE_DB=str(scratch / "literature.db"),
        MATH_PLUGIN_DATA=str(scratch / "plugin-data"),
        **{f"MATH_{s}_MIN_INTERVAL": "0" for s in ("ARXIV", "S2", "ZBMATH", "CROSSREF")},
    )
    return env


def script(name: str, args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(PLUGIN / "scripts" / name), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{name} {' '.join(args)}: exit {done.returncode}\n{done.stdout}")
    return elapsed, done.stdout


def verify_rows(standin, scratch: Path) -> list[tuple[str, float, str]]:
    from demo_pipeline import PLANTED, SAMPLE, Workspace, create_problem

    env = {**base_env(scratch), **standin.env(), "MATH_CACHE_DIR": str(scratch / "c0")}
    folder = scratch / "ws"
    folder.mkdir()
    slug = create_problem(Workspace(folder, env), SAMPLE)
    _, listing = script("literature.py", ["discover", slug], env, folder)
    lines = listing.splitlines()
    search = next(line.split(": ", 1)[1] for line in lines if line.startswith("search folder: "))
    keys = [line.split(" | ", 1)[0] for line in listing.splitlines() if " | " in line]
    judged = [
        {"key": key, "label": "partial" if n else "strong", "confidence": 0.7, "rationale": "b"}
        for n, key in enumerate(keys)
    ]
    (folder / search / "judgements-i1.json").write_text(
        json.dumps({"judgements": judged, "remembered": list(PLANTED)}), encoding="utf-8"
    )
    script("literature.py", ["judge", search], env, folder)
    rows = []
    for n, (name, (variable, path)) in enumerate([("all healthy", ("", "")), *URLS.items()], 1):
        run_env = {**env, "MATH_CACHE_DIR": str(scratch / f"c{n}")}
        if variable:
            run_env[variable] = DEAD + path
        elapsed, out = script("literature.py", ["verify", search], run_env, folder)
        rows.append((name if n == 1 else f"{name} refusing", elapsed, out.splitlines()[0]))
    return rows


def check_row(scratch: Path, bib: Path) -> tuple[float, dict]:
    env = {**base_env(scratch), "MATH_CACHE_DIR": str(scratch / "cdead")}
    env.update({variable: DEAD + path for variable, path in URLS.values()})
    elapsed, out = script("check_refs.py", [str(bib), "--json"], env, scratch)
    return elapsed, json.loads(out)["summary"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=30)
    entries = parser.parse_args().entries
    from support.standin import StandIn

    with tempfile.TemporaryDirectory() as name, StandIn() as standin:
        scratch = Path(name)
        os.environ.update(MATH_CACHE_DIR=str(scratch / "cbib"), MATH_ARXIV_MIN_INTERVAL="0")
        os.environ.update(standin.env())
        from bench_check_refs import build_bib  # asks the stand-in for the recorded papers

        bib = scratch / "refs.bib"
        bib.write_text(build_bib(entries), encoding="utf-8")
        rows = verify_rows(standin, scratch)
        check_elapsed, summary = check_row(scratch, bib)
    healthy = rows[0][1]
    print("literature.py verify on the sample problem (stand-in services, default retries)")
    print(f"{'services':34} {'time':>7} {'vs healthy':>11} {'target':>8}  first line")
    met = True
    for name, elapsed, first in rows:
        extra = elapsed - healthy
        ok = extra <= VERIFY_TARGET_S
        met &= ok
        print(
            f"{name:34} {elapsed:>6.2f}s {extra:>+10.2f}s {'<= +5 s':>8}  {first}"
            + ("" if ok else "  NOT met")
        )
    pending = summary.get("pending", 0)
    checked_ok = check_elapsed <= CHECK_TARGET_S and pending == entries
    met &= checked_ok
    print(f"check_refs.py on a {entries}-entry .bib, every service refusing connections")
    print(
        f"{'every service refusing':34} {check_elapsed:>6.2f}s {pending:>6} of {entries} pending"
        f"   target <= {CHECK_TARGET_S:g} s, all pending" + ("" if checked_ok else "  NOT met")
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
