"""A generative fuzz test over every script: its arguments, its input files and the environment.

A seeded case generator (reproducible: the seed and the case are in every failure message) starts
from a valid call of each script and subcommand and changes one thing: an argument's value, the
content of an input file, or an environment variable of the contract, to a hostile value from
the fault campaign of issue 15 (bytes that are not UTF-8, a 60,000-character path, /dev/zero,
deeply nested JSON, 5,000-digit numbers, nan/inf, control characters, a folder, ...). Whatever the
case, a script ends with exit 0 to 4 and no traceback; an exit of 2 to 4 is exactly one JSON error
line. Services are the stand-in (tests/support/standin.py). Bounded for CI: CASES runs on two
workers (about 40 s on two cores).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import SCRIPTS
from mathtools.core import config
from support.standin import StandIn

SEED = 15
CASES = 216  # six per call
WORKERS = 2
RUN_TIMEOUT_S = 45

# Hostile argument values; "{file:NAME}" is a workspace file holding hostile content (FILES).
VALUES: list[str | bytes] = [
    "",
    " ",
    "-",
    "0",
    "-1",
    "nan",
    "inf",
    "1e309",
    "9" * 5000,
    "x" * 60000,
    "a\nb",
    "\x01\x02",
    "../../../../etc/passwd",
    "/dev/zero",
    "/proc/self/environ",
    "/",
    "@/dev/zero",
    "@/proc/self/environ",
    "{",
    "[]",
    "null",
    "{file:binary}",
    "{file:nested}",
    "{file:digits}",
    "{file:shapes}",
    "{file:empty}",
    "{file:literature}",
    b"\xff\xfe\xc3(",
    "ARXIV:",
    "2104.99999v0",
    "S2:" + "g" * 40,
    "}, note = {x",
    "\\input{/etc/passwd}",
    # the second campaign: digits str.isdigit takes and int() refuses, a URL urlsplit refuses,
    # a folder outside the workspace, a FIFO-free but hostile LITERATURE.md and .bib
    "zbMATH:²",
    "1605.08386v²",
    "CorpusId:²³",
    "²⁰²¹",
    "http://[::1",
    "../PWNED-rel",
    "{file:superscripts}",
    "{file:laughs}",
]
FILES: dict[str, bytes] = {
    "binary": bytes(range(256)) * 8,
    "nested": b"[" * 50000 + b"]" * 50000,
    "digits": b'[{"key": "k", "title": "t", "year": ' + b"9" * 5000 + b"}]",
    "shapes": json.dumps(
        {"source": "arxiv", "papers": [1, "x", None, {"title": 5}], "total_results": "many"}
    ).encode(),
    "empty": b"",
    "literature": b"---\nproblem: [\n---\n### REF-001: \xff\n",
    "superscripts": (
        "## Search History\n\n| Date | Query Summary | arXiv Results | S2 Results | New Confirmed |"
        "\n|---|---|---|---|---|\n| 2026-01-01 | q | ¹¹ | ² | ¹¹ |\n\n## Confirmed References\n\n"
        "### REF-001: T\n- **Authors:** A B\n- **Year:** ²⁰²¹\n"
    ).encode(),
    "laughs": "\n".join(
        ['@string{s0 = "aaaaaaaaaa"}']
        + [f"@string{{s{i} = s{i - 1} # s{i - 1}}}" for i in range(1, 40)]
        + ["@article{k, title = s39, year = {²⁰²¹}}"]
    ).encode(),
}
ENV_VALUES = ["nan", "inf", "-1", "0", "abc", "9" * 5000, "a\nb", "/proc", "/dev/null", "ftp://x",
              "http://[::1", "²"]  # fmt: skip

PYTHON = sys.executable
# A valid call of every script and subcommand ({problem} is the workspace's problem).
CALLS: list[list[str]] = [
    ["arxiv_query.py", "search", "--title", "heat-bath random walk", "--limit", "3"],
    ["arxiv_query.py", "get", "1605.08386", "--out", "found.json"],
    ["s2_lookup.py", "search", "--query", "quantum computer", "--limit", "3"],
    ["s2_lookup.py", "bulk", "--query", "quantum", "--max", "5"],
    ["s2_lookup.py", "match", "--title", "Quantum theory, the Church-Turing principle"],
    ["s2_lookup.py", "get", "DOI:10.1098/rspa.1985.0070"],
    ["s2_lookup.py", "batch", "--ids-file", "ids.txt"],
    ["s2_lookup.py", "references", "DOI:10.1098/rspa.1985.0070", "--limit", "5"],
    ["verify_batch.py", "candidates.json", "--out", "verified.json"],
    ["plan_queries.py", "--per-query", "3", "--problem", "{problem}"],
    ["lit_update.py", "validate", "{problem_dir}/LITERATURE.md"],
    [
        "lit_update.py",
        "merge",
        "--literature",
        "{problem_dir}/LITERATURE.md",
        "--verified",
        "verified-in.json",
        "--query-summary",
        "q",
    ],
    ["lit_update.py", "runs", "--table"],
    ["lit_update.py", "judgements", "1"],
    [
        "lit_update.py",
        "record-run",
        "--problem",
        "{problem}",
        "--iteration",
        "1",
        "--source",
        "arxiv",
        "--query",
        "q",
    ],
    ["lit_update.py", "judge", "--run", "1", "--judgements", "judgements.json"],
    ["refine.py", "feedback", "--runs", "1"],
    ["refine.py", "next", "--runs", "1", "--query", "heat bath"],
    ["refine.py", "keep", "--runs", "1", "--out", "kept.json"],
    [
        "journal.py",
        "add",
        "--category",
        "LIT",
        "--strategy",
        "broad-survey",
        "--outcome",
        "SUCCEEDED",
        "--title",
        "t",
        "--tried",
        "x",
        "--insight",
        "y",
    ],
    ["journal.py", "check", "--strategy", "broad-survey"],
    ["journal.py", "validate"],
    ["journal.py", "taxonomy"],
    ["state.py", "show"],
    ["state.py", "next"],
    ["state.py", "transition", "LITERATURE", "--reason", "r"],
    ["workspace.py", "status"],
    ["workspace.py", "dashboard"],
    ["workspace.py", "resume"],
    ["workspace.py", "notation"],
    ["workspace.py", "new-problem", "--title", "A new problem", "--no-switch"],
    ["workspace.py", "switch", "{problem}"],
    ["bib_export.py"],
    ["check_refs.py", "refs.bib", "--out", "check.json", "--report", "check.md"],
    ["latex.py", "check"],
    ["compute.py", "run", "snippet.py", "--python", PYTHON, "--no-record", "--timeout", "5"],
]


@pytest.fixture(scope="module")
def standin():
    with StandIn() as server:
        yield server


@pytest.fixture(scope="module")
def template(tmp_path_factory, standin):
    """A workspace with one problem and the input files the calls name."""
    root = tmp_path_factory.mktemp("fuzz-template")
    env = _base_env(standin, root)
    for call in (
        ["workspace.py", "init"],
        [
            "workspace.py",
            "new-problem",
            "--title",
            "Heat-bath random walks",
            "--domain",
            "combinatorics",
        ],
    ):
        done = subprocess.run(_argv(call), cwd=root, env=env, capture_output=True, timeout=60)
        assert done.returncode == 0, done.stdout
    problem = json.loads((root / ".math" / "config.json").read_text())["current_problem"]
    candidate = {"key": "k", "title": "Heat-bath random walks with Markov bases", "year": 2016}
    (root / "candidates.json").write_text(json.dumps([candidate]))
    (root / "verified-in.json").write_text(json.dumps({"results": []}))
    (root / "judgements.json").write_text(json.dumps([{"key": "k", "label": "strong"}]))
    (root / "ids.txt").write_text("DOI:10.1098/rspa.1985.0070\n")
    (root / "snippet.py").write_text("print(sum(range(10)))\n")
    (root / "refs.bib").write_text(
        "@article{markov, title = {Heat-bath random walks with Markov bases},"
        " author = {Stanley, Caprice}, year = {2016}, eprint = {1605.08386}}\n"
    )
    for name, content in FILES.items():
        (root / name).write_bytes(content)
    return root, problem


def _argv(call: list[str | bytes]) -> list[str | bytes]:
    return [PYTHON, str(SCRIPTS / call[0]), *call[1:]]


def _base_env(standin, root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SEMANTIC_SCHOLAR_API_KEY"}
    env.update(standin.env())
    env.update(
        MATH_CACHE_DIR=str(root / "cache"),
        MATH_LITERATURE_DB=str(root / ".math" / "literature.db"),
        MATH_HTTP_RETRIES="0",
        MATH_HTTP_TIMEOUT="3",
        MATH_LOCK_TIMEOUT="5",
    )
    return env


WITHOUT_COMMANDS = ("verify_batch.py", "plan_queries.py", "bib_export.py", "check_refs.py")

Case = tuple[list[str | bytes], dict[str, str], bytes]  # arguments, environment changes, stdin


def _cases(problem: str) -> list[Case]:
    """CASES cases, each a valid call with one thing made hostile: an option's or argument's
    value, an extra argument, or an environment variable; stdin always holds hostile bytes."""
    rng = random.Random(SEED)
    cases = []
    for number in range(CASES):
        call: list[str | bytes] = [
            part.replace("{problem}", problem).replace("{problem_dir}", f".math/problems/{problem}")
            for part in CALLS[number % len(CALLS)]
        ]
        first_value = 1 if call[0] in WITHOUT_COMMANDS else 2
        values = [n for n in range(first_value, len(call)) if not str(call[n]).startswith("--")]
        changes: dict[str, str] = {}
        kind = rng.choice(("value", "value", "value", "extra", "env"))
        value = rng.choice(VALUES)
        if isinstance(value, str) and value.startswith("{file:"):
            value = value[len("{file:") : -1]
        if kind == "value" and values:
            call[rng.choice(values)] = value
        elif kind == "env":
            changes[rng.choice(config.NAMES)] = rng.choice(ENV_VALUES)
        else:
            call.insert(rng.randrange(first_value, len(call) + 1), value)
        cases.append((call, changes, FILES[rng.choice(sorted(FILES))][:100_000]))
    return cases


def _run(case, template_root: Path, env: dict[str, str], folder: Path) -> str | None:
    """Run one case in its own copy of the workspace; a description of what went wrong, if."""
    call, changes, stdin = case
    shutil.copytree(template_root, folder, ignore=shutil.ignore_patterns("cache"))
    env = {**env, "MATH_CACHE_DIR": str(folder / "cache"),
           "MATH_LITERATURE_DB": str(folder / ".math" / "literature.db")}  # fmt: skip
    env.update({k: v.replace("\n", "\\n") if k.endswith("_URL") else v for k, v in changes.items()})
    try:
        done = subprocess.run(
            _argv(call), cwd=folder, env=env, capture_output=True, timeout=RUN_TIMEOUT_S,
            input=stdin,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"no answer within {RUN_TIMEOUT_S} s"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    stdout = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    if "Traceback" in stderr or done.returncode not in (0, 1, 2, 3, 4):
        return f"exit {done.returncode}: {stdout[-300:]} {stderr[-600:]}"
    if done.returncode >= 2:
        lines = stdout.splitlines()
        try:
            error = json.loads(lines[-1])["error"]
        except (IndexError, ValueError, KeyError, TypeError):
            return f"exit {done.returncode} without a JSON error line: {stdout[-300:]}"
        if len(lines) != 1 or error.get("code") == "internal_error":
            return f"exit {done.returncode}: {stdout[-300:]}"
    return None


@pytest.mark.slow  # 86 s on a loaded 2-core machine: CI runs it
def test_no_case_ends_in_a_traceback_or_exit_5(template, standin, tmp_path):
    root, problem = template
    env = _base_env(standin, root)
    cases = _cases(problem)
    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = list(
            pool.map(
                lambda item: _run(item[1], root, env, tmp_path / f"case-{item[0]}"),
                enumerate(cases),
            )
        )
    failures = [
        f"case {n} (seed {SEED}): {cases[n][0][:8]!r:.300} env {cases[n][1]!r:.120}: {problem}"
        for n, problem in enumerate(outcomes)
        if problem is not None
    ]
    assert not failures, "\n".join(failures)
