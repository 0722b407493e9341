"""Every benchmark still runs and prints its figures (small sizes; the figures are not judged here:
targets live in the benchmarks' own output, never in timed tests)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT
from support.claude_code import CURRENT_VERSION

BENCHMARKS = {
    "bench_arxiv_parse.py --rounds 3": r"speed-up: [\d.]+x .*\n(.*\n)*  lxml tree only +[\d.]+",
    "bench_startup.py --runs 2": r"cache-hit query: \d+ ms median",
    "bench_verify_calls.py": r"batched: in process +1 +1 +2 +100",
    "bench_verdict.py --per-kind 2": r"API calls: \d+, [\d.]+ per candidate .*\n(.*\n)*"
    r"real +2 +\d+ +\d+ +\d+ .*\n(.*\n)*malformed_id +2 (.*\n)*book_as_article +2 ",
    "bench_lit_merge.py --sizes 50 --repeat 1": r"\n +50 +\d+ +[\d.]+ +[\d.]+",
    "bench_literature_tokens.py": r"\d+ distinct papers, .*\n(.*\n)*"
    r"through the scripts +\d+ +[\d.]+",
    "bench_literature_turns.py": r"one iteration +29 in 17 +\d+ in \d+ +1 .*\n"
    r"one refinement +38 in 23 +\d+ in \d+ +2 .*\n"
    r"a gap search +\d+ in \d+ +\d+ in \d+ +1 ",
    "bench_research_turns.py": r"tool calls +75 +\d+ +\d+ +<= 40 (NOT )?met\n"
    r"characters read +219,000 +[\d,]+ +[\d,]+ +<= 90,000 (NOT )?met\n"
    r"\d+ tool calls \(target <= 40\); ended in DONE",
    "bench_compute.py": r"sandbox, \S+ \S+ +[\d.]+ ms",
    "count_play.py --calls": r"== odd-cubes-sum\.json\.gz\n(.*\n)*math:referee #1: \d+ calls, "
    r"[\d,]+ characters\n  runbook \d+, prompt \d+\n(.*\n)*in all: \d+ calls, [\d,]+ characters",
    "bench_check_refs.py --entries 40 --papers 1110.4324": r"second run \(cached\) +0 +0 +0 +40 "
    r"(.*\n)*1110\.4324 +8 +\d+ +[\d.]+s +[\d.]+ +\d+ +[\d.]+",
    "bench_check_refs_uses.py": r"\n +1 +\d+ +\d+ 2/2 +\d+\n(.*\n)*.*named in <= 3 tool calls: met",
    "bench_faults.py --entries 4": r"Crossref refusing +[\d.]+s +[-+][\d.]+s(.*\n)*"
    r"every service refusing +[\d.]+s +\d+ of 4 pending",
    "bench_discovery.py": r"arXiv plan +\d+% +\d+% +\d+% +\d+ +[\d.]+ +[\d.]+ +\d+\n"
    r"arXiv baseline +\d+% +\d+% +- +- +[\d.]+ +[\d.]+ +\d+\n(.*\n)*both sources plan +\d+% +- +"
    r"- +- +[\d.]+ +[\d.]+ +\d+\n(.*\n)*searches emptied by screening( +0)+\n(.*\n)*"
    r"precision read first( +(?:[\d.]+|unlabelled: \d+))+\n(.*\n)*.*precision read first >= 0\.35",
    f"bench_idle_context.py --versions {CURRENT_VERSION}": r"\n2\.\d+\.\d+ +\d+ +\d+ +600  7 agent",
    "bench_agent_model_hook.py --runs 2": r"hook, override applied +[\d.]+ ms",
}


# The longest (9-95 s each on a loaded 2-core machine): CI runs them, a local run-tests does not.
SLOW = (
    "bench_literature_tokens.py",
    "bench_research_turns.py",
    "bench_literature_turns.py",
    "bench_discovery.py",
    "bench_verify_calls.py",
    "bench_faults.py",
    "bench_check_refs.py",
    "bench_verdict.py",
    "bench_idle_context.py",
)


@pytest.mark.parametrize(
    "command",
    [pytest.param(c, marks=pytest.mark.slow) if c.split()[0] in SLOW else c for c in BENCHMARKS],
)
def test_benchmark_runs_and_prints_its_figures(command):
    script, *args = command.split()
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        capture_output=True,
        text=True,
        # the library's bytecode where this run's own goes (conftest.py), never into plugin/
        env={**os.environ, "PYTHONPYCACHEPREFIX": sys.pycache_prefix or ""},
        timeout=900,  # the literature benches play six searches on the unseen problems too
    )
    if "needs ../shared/" in done.stderr:  # its data is not beside the clone: skip, counted
        pytest.skip(next(line for line in done.stderr.splitlines() if "needs ../shared/" in line))
    # Exit 1 is a benchmark's verdict that a target is missed, which it prints (`NOT met`): the
    # figures are judged there, not here (a run with one refinement misses the token target).
    missed = done.returncode == 1 and "NOT met" in done.stdout and not done.stderr.strip()
    assert done.returncode == 0 or missed, done.stdout + done.stderr
    assert re.search(BENCHMARKS[command], done.stdout), done.stdout
