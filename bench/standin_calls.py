"""What the call-counting benchmarks (bench_verify_calls.py, bench_check_refs.py) share: the
stand-in server (tests/support/standin.py) with a fresh cache and no rate-limit wait, and the
requests it counted, projected at the services' real intervals (arXiv one request every 3 s,
Semantic Scholar 1 a second with a key)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path[:0] = [str(PLUGIN / "scripts"), str(ROOT / "tests")]
REAL_INTERVAL_S = {"arxiv": 3.0, "s2": 1.0}


@contextmanager
def standin_scratch() -> Iterator[tuple[object, Path]]:
    """(the running stand-in, a scratch folder), every service URL and the cache pointing there."""
    with tempfile.TemporaryDirectory() as scratch:
        os.environ.update(
            MATH_CACHE_DIR=str(Path(scratch) / "cache"),
            MATH_ARXIV_MIN_INTERVAL="0",
            MATH_S2_MIN_INTERVAL="0",
            MATH_ZBMATH_MIN_INTERVAL="0",
            MATH_CROSSREF_MIN_INTERVAL="0",
        )
        from support.standin import StandIn  # needs tests/ on the path, set above

        with StandIn() as standin:
            os.environ.update(standin.env())
            yield standin, Path(scratch)


def calls(counts: dict[str, int]) -> tuple[int, int, float]:
    """(arXiv requests, Semantic Scholar requests, seconds they take at the real intervals)."""
    arxiv = sum(n for k, n in counts.items() if k.startswith("arxiv"))
    s2 = sum(n for k, n in counts.items() if k.startswith("s2"))
    return arxiv, s2, arxiv * REAL_INTERVAL_S["arxiv"] + s2 * REAL_INTERVAL_S["s2"]
