#!/usr/bin/env python3
"""Time `lit_update.py merge` of 100 new references into LITERATURE.md files of growing size.

Each round is the whole in-process merge a user waits for: lock, read, parse, de-duplicate,
number, render, atomic write. Documents and inputs are synthesized (tests/support/verified.py).
Target: at most 1 s at 2,000 references, growing linearly with the document.

    .venv/bin/python bench/bench_lit_merge.py [--sizes 500 1000 2000 4000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
sys.path[:0] = [str(PLUGIN / "scripts"), str(ROOT / "tests")]

from mathtools.litdoc import literature, merging  # noqa: E402
from support.verified import confirmed, paper, unconfirmed, verification  # noqa: E402

NEW = 100
TARGET_SIZE, TARGET_SECONDS = 2000, 1.0


def document(size: int) -> str:
    """A LITERATURE.md with `size` REFs (from both sources) and size/10 UREFs."""
    results = [confirmed(paper(n, "semantic_scholar" if n % 2 else "arxiv")) for n in range(size)]
    results += [
        unconfirmed({"key": f"cand-{n}", "title": f"Believed {n}"}) for n in range(size // 10)
    ]
    doc = literature.parse_literature(literature.template("bench"))
    merging.merge(doc, verification(results), summary="seed")
    return doc.render()


def time_merge(text: str, size: int, folder: Path) -> float:
    path = folder / "LITERATURE.md"
    path.write_text(text, encoding="utf-8")
    new = verification([confirmed(paper(size + n)) for n in range(NEW)], "2026-03-01T00:00:00Z")
    start = time.perf_counter()
    report, _ = merging.merge_file(path, new, summary="bench")
    elapsed = time.perf_counter() - start
    assert len(report["added"]) == NEW
    return elapsed


def time_script(text: str, size: int, folder: Path) -> float:
    """Wall time of `lit_update.py merge` as the agent runs it, in a fresh interpreter."""
    path = folder / "LITERATURE.md"
    path.write_text(text, encoding="utf-8")
    new = folder / "verified.json"
    new.write_text(json.dumps(verification([confirmed(paper(size + n)) for n in range(NEW)])))
    command = [
        sys.executable,
        str(PLUGIN / "scripts" / "lit_update.py"),
        "merge",
        "--literature",
        str(path),
        "--verified",
        str(new),
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    parser.add_argument("--repeat", type=int, default=3, help="rounds per size (the best is shown)")
    args = parser.parse_args()

    print(f"merge {NEW} new references (best of {args.repeat})")
    print(f"{'refs':>6}  {'file KiB':>8}  {'seconds':>8}  {'ms per 1,000 refs':>17}")
    medians = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            text = document(size)
            rounds = [time_merge(text, size, Path(tmp)) for _ in range(args.repeat)]
            medians[size] = min(rounds)
            per_thousand = medians[size] * 1000 / (size / 1000)
            kib = len(text.encode()) / 1024
            print(f"{size:>6}  {kib:>8.0f}  {medians[size]:>8.3f}  {per_thousand:>17.1f}")
        if TARGET_SIZE in medians:
            print(
                f"through the script at {TARGET_SIZE} (interpreter start included): "
                f"{time_script(document(TARGET_SIZE), TARGET_SIZE, Path(tmp)):.3f} s"
            )
    if TARGET_SIZE in medians:
        verdict = "meets" if medians[TARGET_SIZE] <= TARGET_SECONDS else "MISSES"
        print(
            f"{verdict} the target: {medians[TARGET_SIZE]:.3f} s at {TARGET_SIZE} "
            f"(target <= {TARGET_SECONDS:.1f} s)"
        )
    sizes = sorted(medians)
    if len(sizes) > 1:
        growth = medians[sizes[-1]] / medians[sizes[0]]
        print(
            f"growth {sizes[0]} -> {sizes[-1]} refs: x{growth:.1f} time for "
            f"x{sizes[-1] / sizes[0]:.0f} size (linear: equal factors)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
