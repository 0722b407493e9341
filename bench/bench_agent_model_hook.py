#!/usr/bin/env python3
"""What the PreToolUse hook (hooks/agent_model.py) adds to every Agent tool call: median
wall-clock ms of a fresh hook process answering one call, with an override to apply and without
a workspace, against a bare `python3 -c pass`, over N runs.

  .venv/bin/python bench/bench_agent_model_hook.py [--runs N]

Target: at most 150 ms median with an override on this machine (an agent run takes minutes; the
hook must stay out of sight).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
HOOK = PLUGIN / "hooks" / "agent_model.py"
TARGET_MS = 150.0


def median_ms(argv: list[str], stdin: str, cwd: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, input=stdin, text=True, cwd=cwd, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    python = sys.executable
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as empty:
        (Path(work) / ".math").mkdir()
        config = {"problems": [], "archived": [], "models": {"proof": "sonnet"}}
        (Path(work) / ".math" / "config.json").write_text(json.dumps(config))
        call = {"subagent_type": "math:proof", "prompt": "Continue the proof.", "description": "d"}

        def event(cwd: str) -> str:
            return json.dumps({"tool_name": "Agent", "tool_input": call, "cwd": cwd})

        bare = median_ms([python, "-c", "pass"], "", work, runs)
        override = median_ms([python, str(HOOK)], event(work), work, runs)
        none = median_ms([python, str(HOOK)], event(empty), empty, runs)
    print(f"agent_model.py hook, median of {runs} fresh processes (target <= {TARGET_MS:.0f} ms)")
    print(f"  bare python3 -c pass      {bare:7.1f} ms")
    print(f"  hook, override applied    {override:7.1f} ms")
    print(f"  hook, no workspace        {none:7.1f} ms")
    verdict = "met" if override <= TARGET_MS else "MISSED"
    print(f"target: override applied at most {TARGET_MS:.0f} ms: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
