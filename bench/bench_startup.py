#!/usr/bin/env python3
"""Start-up cost of scripts/arxiv_query.py: `--help` and a cache-hit search, against a bare
`python -c pass`, median wall-clock ms over N runs of fresh processes.

The cache is filled once from a local server that serves a real arXiv recording; the timed
search then answers from the cache (no network, no rate-limit wait), which is what a repeated
query costs the model.

  .venv/bin/python bench/bench_startup.py [--runs N]

Target: the cache-hit query at most 250 ms median on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path.insert(0, str(ROOT / "tests"))
SCRIPT = PLUGIN / "scripts" / "arxiv_query.py"
from support import shared  # noqa: E402

RECORDING = shared.RECORDINGS / "arxiv" / "q_testing_s0_m10_bc5a6c384fe9.json"  # ../shared
QUERY = ["search", "--query", "testing", "--limit", "10", "--out", "result.json"]
TARGET_MS = 250.0


def median_ms(argv: list[str], env: dict, cwd: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument(
        "--keep-env",
        action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE if set (every run then recompiles every module)",
    )
    args = parser.parse_args()
    runs = args.runs

    from support.scripted_server import Reply, ScriptedServer

    recorded = json.loads(shared.need(RECORDING).read_text(encoding="utf-8"))
    content = recorded["body"].encode("latin-1")  # the recordings keep bytes as latin-1 text
    python = sys.executable
    with tempfile.TemporaryDirectory() as work, ScriptedServer([Reply(200, content)]) as server:
        env = {
            **os.environ,
            "MATH_CACHE_DIR": str(Path(work) / "cache"),
            "MATH_ARXIV_API_URL": f"{server.url}/api/query",
            "MATH_ARXIV_MIN_INTERVAL": "0",
        }
        if not args.keep_env and env.pop("PYTHONDONTWRITEBYTECODE", None):
            print("note: PYTHONDONTWRITEBYTECODE dropped so bytecode is cached as for a user")
        # Fills the HTTP cache (and the bytecode cache): the only request the server sees.
        subprocess.run([python, str(SCRIPT), *QUERY], env=env, cwd=work, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        rows = [
            ("python -c pass", median_ms([python, "-c", "pass"], env, work, runs)),
            ("arxiv_query.py --help", median_ms([python, str(SCRIPT), "--help"], env, work, runs)),
            ("arxiv_query.py search (cache hit)", median_ms([python, str(SCRIPT), *QUERY], env,
                                                          work, runs)),
        ]  # fmt: skip
        assert len(server.received) == 1, "the timed searches must all be cache hits"
    print(f"{'command':<36}{'median ms':>10}{'over bare':>11}")
    for name, ms in rows:
        print(f"{name:<36}{ms:>10.0f}{ms - rows[0][1]:>+11.0f}")
    hit = rows[-1][1]
    verdict = "meets" if hit <= TARGET_MS else "misses"
    print(f"cache-hit query: {hit:.0f} ms median ({verdict} the {TARGET_MS:.0f} ms target)")
    print(f"runs={runs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
