#!/usr/bin/env python3
"""What the computation sandbox costs: the wall time of a trivial snippet run bare, under the
socket guard, and in a network namespace, side by side (median of N runs each).

    python3 bench/bench_compute.py [N]
"""

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin" / "scripts"))
import mathtools.sandbox.run as sandbox

CODE = "print(sum(range(1000)))\n"


def median_seconds(run, n):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    rows = [
        (
            "bare python3 -c",
            lambda: subprocess.run([sys.executable, "-c", CODE], check=True, capture_output=True),
        ),
        (
            "sandbox, no namespaces",
            lambda: sandbox.run_sandboxed(CODE, network_namespace=False, allow_unsandboxed=True),
        ),
    ]
    if sandbox.namespace_prefix():
        rows.append(("sandbox, network namespace", lambda: sandbox.run_sandboxed(CODE)))
    else:
        print("(no network namespace on this machine: that row is left out)")
    print(f"{'how the snippet ran':<30} {'median wall time':>18}   (n={n})")
    for name, run in rows:
        print(f"{name:<30} {median_seconds(run, n) * 1000:>15.1f} ms")


if __name__ == "__main__":
    main()
