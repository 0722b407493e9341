"""scripts/compute.py and the sandbox under it: real child processes, real limits, a real listener.

The snippets run with this test run's interpreter (`--python`), so no test installs SymPy.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import sys
import time

import pytest
from mathtools import frontmatter, sandbox

PYTHON = sys.executable


def test_a_result_carries_output_exit_status_and_environment():
    result = sandbox.run("import sys\nprint(6 * 7)\nprint('note', file=sys.stderr)\n", PYTHON)
    assert result["outcome"] == "ok" and result["exit_code"] == 0
    assert result["stdout"] == "42\n" and result["stderr"] == "note\n"
    assert result["environment"]["python"] == platform.python_version()
    assert isinstance(result["environment"]["packages"], dict)


def test_the_library_versions_are_those_the_snippet_sees():
    from importlib.metadata import version

    result = sandbox.run("import yaml\n", PYTHON, packages=("pyyaml", "requests", "no-such-dist"))
    assert result["environment"]["packages"] == {
        "pyyaml": version("pyyaml"),
        "requests": version("requests"),
    }
    assert result["isolation"]["memory"] == "RLIMIT_AS"


def test_a_runaway_loop_is_killed_at_the_wall_time_limit_with_its_children():
    code = (
        "import subprocess, sys\n"
        "child = subprocess.Popen(['sleep', '300'])\n"
        "print(child.pid, flush=True)\n"
        "while True:\n    pass\n"
    )
    result = sandbox.run(code, PYTHON, timeout=1.5)
    assert result["outcome"] == "timeout" and result["timed_out"] is True
    assert result["signal"] == "SIGKILL" and result["exit_code"] is None
    assert 1.5 <= result["wall_time_s"] < 30
    child = int(result["stdout"].split()[0])
    time.sleep(0.2)
    assert not running(child)


def running(pid):
    """Whether process `pid` exists and is not a zombie (a killed orphan awaiting its reaper)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_memory_exhaustion_is_contained():
    result = sandbox.run(
        "block = bytearray(2 * 1024**3)\nprint('allocated')\n", PYTHON, memory_mb=256
    )
    assert result["outcome"] == "memory"
    assert result["exit_code"] == 1
    assert "MemoryError" in result["stderr"] and "allocated" not in result["stdout"]


def test_an_exception_is_captured_with_the_snippets_traceback():
    result = sandbox.run("def f(n):\n    return 1 // n\n\nprint(f(0))\n", PYTHON)
    assert (result["outcome"], result["exit_code"]) == ("error", 1)
    assert result["stderr"].startswith("Traceback (most recent call last):\n")
    assert 'File "snippet.py", line 4' in result["stderr"]
    assert "ZeroDivisionError: integer division or modulo by zero" in result["stderr"]
    assert "runner.py" not in result["stderr"]


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    yield server
    server.close()


@pytest.mark.parametrize("namespace", [True, False], ids=["default", "python-guard"])
def test_no_network_even_to_a_listening_local_server(listener, namespace):
    port = listener.getsockname()[1]
    code = (
        "import socket\n"
        f"socket.create_connection(('127.0.0.1', {port}), timeout=5)\n"
        "print('connected')\n"
    )
    result = sandbox.run(code, PYTHON, network_namespace=namespace)
    assert result["outcome"] == "error" and "connected" not in result["stdout"]
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing ever arrived
    expected = "namespace" if namespace and sandbox.namespace_prefix() else "python-guard"
    assert result["isolation"]["network"] == expected
    if expected == "python-guard":
        assert "network access is disabled" in result["stderr"]


def test_the_snippet_works_in_a_temporary_folder_that_is_removed(tmp_path):
    code = "import os\nopen('scratch.txt', 'w').write('x')\nprint(os.getcwd())\n"
    result = sandbox.run(code, PYTHON)
    workdir = result["stdout"].strip()
    assert workdir != str(tmp_path) and "math-compute-" in workdir
    assert not os.path.exists(workdir)


def test_runaway_output_is_cut():
    result = sandbox.run("print('x' * 1_000_000)\n", PYTHON)
    assert result["truncated"]["stdout"] is True
    assert len(result["stdout"]) == sandbox.OUTPUT_LIMIT_BYTES


# --- the script and COMPUTATION.md ---


@pytest.fixture
def problem(tmp_path):
    folder = tmp_path / ".math" / "problems" / "harmonic"
    folder.mkdir(parents=True)
    return folder


def compute(script, folder, code, *args):
    return script(
        "compute.py", "run", "-", "--python", PYTHON, "--dir", str(folder), *args, input=code
    )


def test_runs_are_recorded_under_their_requests_before_the_summary(script, problem):
    first = compute(script, problem, "print(sum(range(10)))\n", "--title", "sum", "--request", "2")
    assert first.returncode == 0, first.stdout
    assert first.json()["recorded"]["computation"] == 1
    text = (problem / "COMPUTATION.md").read_text()
    data, body = frontmatter.split(text)
    assert (data["problem"], data["status"], data["computations"]) == ("harmonic", "complete", 1)
    assert "## Computation 1: sum\n\n**Request from:** PROOF.md, Request 2" in body
    assert "```text\n45\n```" in body

    # the agent writes its interpretation; the next run keeps it and lands after it
    (problem / "COMPUTATION.md").write_text(
        text.replace("_Pending: the computation agent", "Sum is 45, as claimed. _Old: the")
    )
    code = "print('```')\nraise ValueError('bad n')\n"
    second = compute(script, problem, code, "--title", "fails", "--purpose", "edge case")
    assert second.returncode == 0 and second.json()["outcome"] == "error"
    data, body = frontmatter.split((problem / "COMPUTATION.md").read_text())
    assert (data["status"], data["computations"]) == ("error", 2)
    assert "Sum is 45, as claimed." in body
    assert body.index("## Computation 1") < body.index("## Computation 2")
    assert body.index("## Computation 2") < body.index("## Summary for Proof Agent")
    assert "**Request from:** a direct request (/math:compute)" in body
    assert "````python\nprint('```')" in body  # a fence longer than the code's own backticks
    assert "ValueError: bad n" in body


def test_no_record_needs_no_problem(script):
    run = script("compute.py", "run", "-", "--python", PYTHON, "--no-record", input="print(1)\n")
    assert run.returncode == 0
    assert run.json()["stdout"] == "1\n" and run.json()["recorded"] is None


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        ((), "print(1)\n", "--title is required"),
        (("--title", "t"), "   \n", "empty"),
        (("--title", "t", "--python", "/no/such/python"), "print(1)\n", "no such interpreter"),
        (("--title", "t", "--timeout", "0"), "print(1)\n", "--timeout"),
    ],
)
def test_bad_input_is_one_json_line_and_records_nothing(script, problem, args, code, needle):
    run = compute(script, problem, code, *args)
    assert run.returncode == 2
    assert needle in json.loads(run.stdout)["error"]["message"]
    assert not (problem / "COMPUTATION.md").exists()


def test_a_missing_snippet_file_is_one_json_line(script, tmp_path):
    run = script("compute.py", "run", str(tmp_path / "nope.py"), "--no-record")
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"] == {
        "code": "file_not_found",
        "message": f"snippet not found: {tmp_path / 'nope.py'}",
    }
