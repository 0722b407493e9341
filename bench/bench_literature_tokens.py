#!/usr/bin/env python3
"""Tokens a model reads during one /math:literature run, per candidate, side by side with what a
model fetching the raw API pages would read (the README's demo pipeline, run quietly).

"Read through the scripts" is the bytes of everything the runbook's script calls print to
stdout, divided by 4. "Raw pages" is the bytes of every Atom/JSON response the same run fetched
(the HTTP cache holds each one), divided by 4: what a model calling arXiv and Semantic Scholar
with a web-fetch tool would have read to do the same work.

  .venv/bin/python bench/bench_literature_tokens.py [--live]

Target: at most 150 tokens per candidate through the scripts.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from demo_pipeline import SAMPLE, TARGET_TOKENS_PER_CANDIDATE, run_demo  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--live", action="store_true", help="the real APIs instead of recordings")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="math-bench-") as folder:
        figures = run_demo(Path(folder) / "ws", SAMPLE, args.live, say=lambda _line: None)
    n = max(figures["candidates"], 1)
    print(f"one /math:literature run on {SAMPLE.parent.name}: {figures['candidates']} candidates,")
    print(f"{figures['script_calls']} script calls, {figures['raw_responses']} API responses")
    print(f"{'':24}{'tokens':>10}{'per candidate':>16}")
    for name, tokens in (
        ("through the scripts", figures["stdout_tokens"]),
        ("raw Atom/JSON pages", figures["raw_tokens"]),
    ):
        print(f"{name:24}{tokens:>10}{tokens / n:>16.1f}")
    ratio = figures["raw_tokens"] / max(figures["stdout_tokens"], 1)
    met = figures["stdout_tokens"] / n <= TARGET_TOKENS_PER_CANDIDATE
    verdict = "met" if met else "NOT met"
    print(f"raw / scripts {ratio:.1f}x; target <= {TARGET_TOKENS_PER_CANDIDATE} each: {verdict}")
    for script, size in sorted(figures["stdout_bytes"].items(), key=lambda item: -item[1]):
        print(f"  {script:20} {size // 4:>7} tokens")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
