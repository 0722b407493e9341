#!/usr/bin/env python3
"""How the gate answers each kind of citation: the labelled fixture, kind by kind, against targets.

tests/data/verdict_fixture.json (written by tools/make_verdict_fixture.py) holds real recorded
papers cited correctly and miscited the way each kind of hallucination does (issue 16). All of
it goes through one verify_batch.py run against the stand-in server (tests/support/standin.py,
answering from ../shared/recordings/), and the table shows, per kind, how many came out CONFIRMED,
CORRECTED and UNCONFIRMED, beside the targets:

  every miscited kind      flagged (CORRECTED or UNCONFIRMED) in at least 95% of cases;
  fabricated, swapped, merged, placeholder, near-miss (and impossible year, malformed id):
                           never CONFIRMED;
  real                     at least 97% CONFIRMED and 100% CONFIRMED or CORRECTED.

Run: .venv/bin/python bench/bench_verdict.py [--show-misses]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path[:0] = [str(PLUGIN / "scripts"), str(ROOT / "tests")]
FIXTURE = ROOT / "tests" / "data" / "verdict_fixture.json"
FLAG_TARGET = 0.95
REAL_CONFIRMED_TARGET = 0.97


def run(cases: list[dict]) -> list[dict]:
    """verify_batch.py's results for the cases' candidates, through the stand-in server."""
    from support.standin import StandIn

    with StandIn() as standin, tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "candidates.json"
        path.write_text(json.dumps([c["candidate"] for c in cases]), encoding="utf-8")
        env = {
            **os.environ,
            **standin.env(),
            "MATH_CACHE_DIR": str(Path(tmp) / "cache"),
            "MATH_ARXIV_MIN_INTERVAL": "0",
            "MATH_S2_MIN_INTERVAL": "0",
        }
        env.pop("SEMANTIC_SCHOLAR_API_KEY", None)
        done = subprocess.run(
            [sys.executable, str(PLUGIN / "scripts" / "verify_batch.py"), str(path), "--no-cache"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
    return json.loads(done.stdout)["results"]


def table(cases: list[dict], results: list[dict]) -> tuple[list[str], bool]:
    """The per-kind lines and whether every target is met."""
    by_kind: dict[str, Counter] = {}
    for case, result in zip(cases, results, strict=True):
        by_kind.setdefault(case["kind"], Counter())[result["status"]] += 1
    head = f"{'kind':<24}{'n':>4}{'CONF':>6}{'CORR':>6}{'UNCO':>6}  {'measured':<36}target"
    lines, met = [head], True
    for kind, counts in by_kind.items():
        n = sum(counts.values())
        confirmed, corrected = counts["CONFIRMED"], counts["CORRECTED"]
        sample = next(c for c in cases if c["kind"] == kind)
        if kind == "real":
            measured = f"{confirmed / n:.0%} CONFIRMED, {(confirmed + corrected) / n:.0%} accepted"
            target = f">= {REAL_CONFIRMED_TARGET:.0%} CONFIRMED, 100% accepted"
            ok = confirmed / n >= REAL_CONFIRMED_TARGET and counts["UNCONFIRMED"] == 0
        else:
            flagged = (n - confirmed) / n
            measured = f"{flagged:.0%} flagged" + (f", {confirmed} CONFIRMED" if confirmed else "")
            target = f">= {FLAG_TARGET:.0%} flagged" + (", 0 CONFIRMED" if sample["strict"] else "")
            ok = flagged >= FLAG_TARGET and not (sample["strict"] and confirmed)
        met &= ok
        lines.append(
            f"{kind:<24}{n:>4}{confirmed:>6}{corrected:>6}{counts['UNCONFIRMED']:>6}  "
            f"{measured:<36}{target}{'' if ok else '  MISSED'}"
        )
    return lines, met


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--show-misses", action="store_true", help="print each case off target")
    parser.add_argument("--per-kind", type=int, metavar="N", help="only the first N of each kind")
    args = parser.parse_args(argv)
    cases = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
    if args.per_kind:
        kept: Counter = Counter()
        for case in cases:
            kept[case["kind"]] += 1
            case["kept"] = kept[case["kind"]] <= args.per_kind
        cases = [case for case in cases if case["kept"]]
    results = run(cases)
    lines, met = table(cases, results)
    print(f"{len(cases)} labelled citations of recorded papers, one verify_batch.py run")
    print("\n".join(lines))
    print(f"all targets met: {'yes' if met else 'no'}")
    if args.show_misses:
        for case, result in zip(cases, results, strict=True):
            wrong = (
                result["status"] != "CONFIRMED"
                if case["kind"] == "real"
                else result["status"] == "CONFIRMED"
            )
            if wrong:
                print(f"{case['candidate']['key']} {result['status']}: {result['reason'][:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
