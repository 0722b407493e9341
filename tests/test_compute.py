"""scripts/compute.py and the sandbox under it: real child processes, real limits, a real listener.

The snippets run with this test run's interpreter (`--python`), so no test installs SymPy.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import sys
import time
import uuid

import mathtools.sandbox.run as sandbox
import pytest
from conftest import run_script
from mathtools.core import frontmatter
from mathtools.sandbox import probes, workdirs
from mathtools.sandbox.namespaces import mount_namespace_works, pid_namespace
from mathtools.sandbox.runwatch import PROCESS_LIMIT
from support import tournament as t

PYTHON = sys.executable


def test_a_result_carries_output_exit_status_and_environment():
    result = sandbox.run_sandboxed(
        "import sys\nprint(6 * 7)\nprint('note', file=sys.stderr)\n", PYTHON
    )
    assert result["outcome"] == "ok" and result["exit_code"] == 0
    assert result["stdout"] == "42\n" and result["stderr"] == "note\n"
    assert result["environment"]["python"] == platform.python_version()
    assert isinstance(result["environment"]["packages"], dict)


def test_the_library_versions_are_those_the_snippet_sees():
    from importlib.metadata import version

    result = sandbox.run_sandboxed(
        "import yaml\n", PYTHON, packages=("pyyaml", "requests", "no-such-dist")
    )
    assert result["environment"]["packages"] == {
        "pyyaml": version("pyyaml"),
        "requests": version("requests"),
    }
    assert result["isolation"]["memory"].startswith("RLIMIT_AS per process")


def test_a_runaway_loop_is_killed_at_the_wall_time_limit_with_its_children():
    code = f"import subprocess\nsubprocess.Popen(['sleep', '{SLEEP}'])\nwhile True:\n    pass\n"
    result = sandbox.run_sandboxed(code, PYTHON, timeout=1.5)
    assert result["outcome"] == "timeout" and result["timed_out"] is True
    assert result["signal"] == "SIGKILL" and result["exit_code"] is None
    assert 1.5 <= result["wall_time_s"] < 30
    assert not sleeping()


def running(pid):
    """Whether process `pid` exists and is not a zombie (a killed orphan awaiting its reaper)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_memory_exhaustion_is_contained():
    result = sandbox.run_sandboxed(
        "block = bytearray(2 * 1024**3)\nprint('allocated')\n", PYTHON, memory_mb=256
    )
    assert result["outcome"] == "memory"
    assert result["exit_code"] == 1
    assert "MemoryError" in result["stderr"] and "allocated" not in result["stdout"]


def test_an_exception_is_captured_with_the_snippets_traceback():
    result = sandbox.run_sandboxed("def f(n):\n    return 1 // n\n\nprint(f(0))\n", PYTHON)
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


@pytest.mark.parametrize("namespace", [True, False], ids=["default", "fallback"])
def test_no_network_even_to_a_listening_local_server(listener, namespace):
    port = listener.getsockname()[1]
    code = (
        "import socket\n"
        f"socket.create_connection(('127.0.0.1', {port}), timeout=5)\n"
        "print('connected')\n"
    )
    result = sandbox.run_sandboxed(
        code, PYTHON, network_namespace=namespace, allow_unsandboxed=True
    )
    assert result["outcome"] == "error" and "connected" not in result["stdout"]
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing ever arrived
    assert result["isolation"]["network"] == expected_network(namespace)


def expected_network(namespace):
    """What `isolation.network` says here: a namespace, else the seccomp filter, else (on an
    architecture without a filter) the Python guard."""
    if namespace and sandbox.namespace_prefix():
        return "namespace"
    return "seccomp: no sockets" if probes.seccomp_works() else "python-guard (best effort)"


def test_the_snippet_works_in_a_temporary_folder_that_is_removed(tmp_path):
    code = "import os\nopen('scratch.txt', 'w').write('x')\nprint(os.getcwd())\n"
    result = sandbox.run_sandboxed(code, PYTHON)
    workdir = result["stdout"].strip()
    assert workdir != str(tmp_path) and "math-compute-" in workdir
    assert not os.path.exists(workdir)


def test_runaway_output_is_cut():
    result = sandbox.run_sandboxed("print('x' * 1_000_000)\n", PYTHON)
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
    (problem / "PROOF.md").write_text("## Computation Requests\n\n### Request 2: a sum\n")
    first = compute(script, problem, "print(sum(range(10)))\n", "--title", "sum", "--request", "2")
    assert first.returncode == 0, first.stdout
    assert first.json()["recorded"]["computation"] == 1
    text = (problem / "COMPUTATION.md").read_text()
    data, body = frontmatter.split_frontmatter(text)
    # not complete before its Interpretation is written
    assert (data["problem"], data["status"], data["computations"]) == (
        "harmonic",
        "interpreting",
        1,
    )
    assert "## Computation 1: sum\n\n**Request from:** PROOF.md, Request 2" in body
    assert "```text\n45\n```" in body

    # the agent writes its interpretation; the next run keeps it and lands after it
    (problem / "COMPUTATION.md").write_text(
        text.replace("_Pending: the computation agent", "Sum is 45, as claimed. _Old: the")
    )
    code = "print('```')\nraise ValueError('bad n')\n"
    second = compute(script, problem, code, "--title", "fails", "--purpose", "edge case")
    assert second.returncode == 0 and second.json()["outcome"] == "error"
    data, body = frontmatter.split_frontmatter((problem / "COMPUTATION.md").read_text())
    assert (data["status"], data["computations"]) == ("interpreting", 2)
    said = script(
        "compute.py", "interpret", "2", "--text", "the edge case fails", "--dir", str(problem)
    )
    assert said.json()["status"] == "error"  # a failed run is not hidden by an earlier success
    assert "Sum is 45, as claimed." in body
    assert body.index("## Computation 1") < body.index("## Computation 2")
    assert body.index("## Computation 2") < body.index("## Summary for Proof Agent")
    assert "**Request from:** a direct request (/math:compute)" in body
    assert "````python\nprint('```')" in body  # a fence longer than the code's own backticks
    assert "ValueError: bad n" in body


def test_no_record_needs_no_problem(script):
    run = script("compute.py", "run", "-", "--python", PYTHON, "--no-record", input="print(1)\n")
    assert run.returncode == 0 and run.stdout.count("\n") == 1  # one line, read whole
    assert run.json()["stdout"] == "1\n" and run.json()["recorded"] is None


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        ((), "print(1)\n", "--title is required"),
        (("--title", "t"), "   \n", "empty"),
        (("--title", "t", "--python", "/no/such/python"), "print(1)\n", "no such interpreter"),
        (("--title", "t", "--timeout", "0"), "print(1)\n", "--timeout"),
        (("--title", "t", "--timeout", "nan"), "print(1)\n", "--timeout"),
        (("--title", "t", "--timeout", "inf"), "print(1)\n", "--timeout"),
        (("--title", "t", "--timeout", "1e308"), "print(1)\n", "--timeout"),
        (("--title", "t", "--memory-mb", str(2**70)), "print(1)\n", "--memory-mb"),
    ],
)
def test_bad_input_is_one_json_line_and_records_nothing(script, problem, args, code, needle):
    run = compute(script, problem, code, *args)
    assert run.returncode == 2
    assert needle in json.loads(run.stdout)["error"]["message"]
    assert not (problem / "COMPUTATION.md").exists()


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (lambda path: path.mkdir(), "a folder, not an interpreter"),
        (lambda path: path.write_text("#!/bin/sh\n"), "not executable"),
    ],
    ids=["folder", "not-executable"],
)
def test_a_python_that_cannot_run_is_bad_input_before_anything_runs(
    script, problem, tmp_path, make, needle
):
    make(tmp_path / "py")
    run = compute(script, problem, "print(1)\n", "--title", "t", "--python", str(tmp_path / "py"))
    assert run.returncode == 2, run.stdout
    assert json.loads(run.stdout)["error"]["message"] == f"--python {tmp_path / 'py'}: {needle}"
    assert not (problem / "COMPUTATION.md").exists()


def test_a_relative_python_is_found_from_where_compute_runs(script, tmp_path):
    """The snippet runs in a temporary folder; `--python venv/bin/python` means this folder's."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(PYTHON)
    run = script("compute.py", "run", "-", "--python", "bin/python", "--no-record", input="1\n")
    assert run.returncode == 0 and run.json()["outcome"] == "ok", run.stdout


def test_a_missing_snippet_file_is_one_json_line(script, tmp_path):
    run = script("compute.py", "run", str(tmp_path / "nope.py"), "--no-record")
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"] == {
        "code": "file_not_found",
        "message": f"snippet not found: {tmp_path / 'nope.py'}",
    }


# --- escapes the limits must not allow ---


def test_a_child_that_leaves_the_process_group_dies_with_the_snippet():
    """`setsid` puts a child in its own session, out of reach of a process-group kill."""
    if not pid_namespace():
        pytest.skip("no PID namespace here: the sandbox says so in `isolation.processes`")
    code = (
        "import subprocess\n"
        f"child = subprocess.Popen(['setsid', 'sleep', '{SLEEP}'])\n"
        "print(child.pid, flush=True)\n"
        "import time\ntime.sleep(300)\n"
    )
    started = time.monotonic()
    result = sandbox.run_sandboxed(code, PYTHON, timeout=1.5)
    assert result["outcome"] == "timeout" and time.monotonic() - started < 30
    assert result["isolation"]["processes"].startswith("PID namespace")
    assert not sleeping()


def test_background_children_end_with_the_snippet_even_when_it_finishes_normally():
    if not pid_namespace():
        pytest.skip("no PID namespace here")
    code = f"import os\nos.system('setsid sleep {SLEEP} &')\nprint('done')\n"
    result = sandbox.run_sandboxed(code, PYTHON)
    assert (result["outcome"], result["stdout"]) == ("ok", "done\n")
    assert not sleeping()


# how long the escapes here sleep: a number no other process on a shared machine sleeps for
SLEEP = str(3000 + uuid.uuid4().int % 997)


def sleeping(wait=2.0):
    """Pids of live `sleep SLEEP` processes (what the escapes here start), after they had `wait`
    seconds to go: a killed process takes a moment to leave /proc."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as handle:
                        if handle.read() == f"sleep\x00{SLEEP}\x00".encode() and running(
                            int(entry)
                        ):
                            found.append(int(entry))
                except OSError:
                    continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


FORK_BURST = """\
import os, time
started = 0
try:
    for _ in range(400):
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        started += 1
except OSError as exc:
    print("refused after", started, type(exc).__name__, flush=True)
else:
    print("forked", started, flush=True)
"""


@pytest.mark.parametrize("namespaces", [True, False], ids=["default", "fallback"])
def test_a_fork_burst_is_capped_and_its_processes_end_with_the_snippet(namespaces):
    """RLIMIT_NPROC does not bind root, so as root the sandbox runs as `nobody` for this test,
    with the system's Python (this test run's may live where `nobody` cannot read). The
    fallback (no namespaces) runs with the user's allowance."""
    program = (
        "import json, os, sys\n"
        f"sys.path.insert(0, {str(sandbox.Path(sandbox.__file__).parents[2])!r})\n"
        "if os.geteuid() == 0:\n"
        "    os.setgroups([]); os.setgid(65534); os.setuid(65534)\n"
        "import mathtools.sandbox.run as sandbox\n"
        f"result = sandbox.run_sandboxed({FORK_BURST!r}, sys.executable, timeout=20, "
        f"network_namespace={namespaces}, allow_unsandboxed={not namespaces})\n"
        "print(json.dumps(result))\n"
    )
    python = "/usr/bin/python3" if os.geteuid() == 0 else PYTHON
    if not os.path.exists(python):
        pytest.skip("running as root without a system Python that `nobody` can run")
    ran = subprocess.run([python, "-c", program], capture_output=True, text=True, cwd="/tmp")
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert result["outcome"] == "ok", result
    refused, count = result["stdout"].split()[:3:2]
    assert refused == "refused" and 0 < int(count) <= PROCESS_LIMIT
    assert result["isolation"]["process_count"].startswith("RLIMIT_NPROC")


@pytest.mark.parametrize(
    "code",
    [
        "import _socket\n"
        "raw = _socket.socket()\n"
        "raw.settimeout(5)\n"
        "raw.connect(('127.0.0.1', {port}))\n"
        "print('connected')\n",
        "import subprocess, sys\n"
        "subprocess.run([sys.executable, '-c', 'import socket; "
        'socket.create_connection(("127.0.0.1", {port}), timeout=5)\'], check=True)\n'
        "print('connected')\n",
        "import subprocess\n"
        "subprocess.run(['bash', '-c', 'echo x > /dev/tcp/127.0.0.1/{port}'], check=True)\n"
        "print('connected')\n",
        "import ctypes, socket, struct\n"
        "libc = ctypes.CDLL(None)\n"
        "fd = libc.socket(2, 1, 0)\n"
        "address = struct.pack('!HH4s8x', 2, {port}, socket.inet_aton('127.0.0.1'))\n"
        "address = struct.pack('=H', 2) + address[2:]\n"
        "if fd >= 0 and libc.connect(fd, address, 16) == 0:\n"
        "    print('connected')\n"
        "raise SystemExit(1)\n",
    ],
    ids=["raw-_socket", "child-interpreter", "bash-dev-tcp", "ctypes"],
)
def test_the_fallback_reaches_no_network(listener, code):
    """The reported defect: without a network namespace, subprocess, ctypes and bash's /dev/tcp
    reached the network past the Python guard; the seccomp filter refuses every socket."""
    port = listener.getsockname()[1]
    code = code.format(port=port)
    result = sandbox.run_sandboxed(code, PYTHON, network_namespace=False, allow_unsandboxed=True)
    assert result["outcome"] == "error" and "connected" not in result["stdout"]
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert result["isolation"]["network"] == expected_network(False)


def test_the_workspace_config_with_the_api_key_is_hidden_from_the_snippet(tmp_path):
    config = tmp_path / ".math" / "config.json"
    config.parent.mkdir()
    config.write_text('{"semantic_scholar_api_key": "sk-secret"}')
    code = f"print(repr(open({str(config)!r}).read()))\n"
    # the mount namespace's hiding; under Landlock the read is refused (test_sandbox_reads.py)
    mounts = sandbox.can_hide_files() and mount_namespace_works()
    filesystem = "mount-namespace" if mounts else None
    result = sandbox.run_sandboxed(code, PYTHON, hidden=(config,), filesystem=filesystem)
    if not sandbox.can_hide_files():
        assert "sk-secret" in result["stdout"]
        assert result["isolation"]["files"].startswith("readable")
        return
    assert result["outcome"] == "ok" and result["stdout"] == "''\n"
    assert result["isolation"]["files"].endswith(f"hidden: {config}")
    assert "sk-secret" in config.read_text()  # hidden, not touched


def test_compute_hides_the_workspace_config_it_runs_for(script, problem, tmp_path):
    config = tmp_path / ".math" / "config.json"
    config.write_text('{"semantic_scholar_api_key": "sk-secret"}')
    code = f"print(open({str(config)!r}).read())\n"
    run = compute(script, problem, code, "--title", "peek")
    assert run.returncode == 0
    if sandbox.can_hide_files():
        assert "sk-secret" not in run.stdout
        assert "sk-secret" not in (problem / "COMPUTATION.md").read_text()
    assert run.json()["isolation"]["files"] in (problem / "COMPUTATION.md").read_text()


def test_a_computation_md_in_another_encoding_is_bad_input_and_left_alone(script, problem):
    first = compute(script, problem, "print(1)\n", "--title", "one")
    assert first.returncode == 0, first.stdout
    path = problem / "COMPUTATION.md"
    path.write_bytes(path.read_bytes() + "Gödel\n".encode("latin-1"))
    before = path.read_bytes()
    run = compute(script, problem, "print(2)\n", "--title", "two")
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "unreadable"
    assert path.read_bytes() == before


# --- the contact address is a secret like the API key ---

ADDRESS = f"researcher-{uuid.uuid4().hex[:8]}@example.org"
ENVIRONS = f"""\
import os
address = {ADDRESS!r}
print("os.environ", any(address in value for value in os.environ.values()))
try:  # refused where Landlock confines reads
    with open("/proc/self/environ", "rb") as handle:
        print("/proc/self/environ", address.encode() in handle.read())
except PermissionError:
    print("/proc/self/environ", False)
try:
    with open(f"/proc/{{os.getppid()}}/environ", "rb") as handle:
        print("parent readable", bool(handle.read()))
except OSError:
    print("parent readable", False)
hits = []
try:
    listed = os.listdir("/proc")
except PermissionError:
    listed = []
for pid in listed:
    try:
        with open(f"/proc/{{pid}}/environ", "rb") as handle:
            if address.encode() in handle.read():
                hits.append(pid)
    except OSError:
        continue
print("hits", hits)
"""


@pytest.mark.parametrize("namespaces", [True, False], ids=["default", "no-namespaces"])
def test_no_environment_the_snippet_can_read_holds_the_contact_address(
    script, tmp_path, namespaces
):
    """Without namespaces (no `unshare` on PATH) the snippet runs beside compute.py and reads
    its /proc/<pid>/environ: compute.py must not carry MATH_CONTACT_EMAIL there either."""
    # about the environment, not writes: run even where nothing confines them
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text('{"allow_unsandboxed_compute": true}')
    env = {**os.environ, "MATH_CONTACT_EMAIL": ADDRESS}
    if not namespaces:
        (tmp_path / "bin").mkdir()
        env["PATH"] = str(tmp_path / "bin")
    argv = ("compute.py", "run", "-", "--python", PYTHON, "--no-record")
    run = script(*argv, input=ENVIRONS, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    result = run.json()
    assert result["outcome"] == "ok", result["stderr"]
    lines = result["stdout"].splitlines()
    assert lines[:2] == ["os.environ False", "/proc/self/environ False"]
    assert lines[3] == "hits []", result["stdout"]
    if not namespaces:
        assert "PID namespace" not in result["isolation"]["protections"]


def test_a_later_run_sweeps_the_folder_of_a_run_whose_owner_is_gone(tmp_path):
    """compute.py killed with SIGKILL runs no `finally`: its folder is removed by the next run
    once its owner is gone, never a live run's, a young one's or a folder of another name."""
    gone = subprocess.run([PYTHON, "-c", "import os; print(os.getpid())"], capture_output=True)
    dead = int(gone.stdout)
    stale = tmp_path / f"{workdirs.PREFIX}{dead}-abc"
    live = tmp_path / f"{workdirs.PREFIX}{os.getpid()}-def"
    other = tmp_path / f"{workdirs.PREFIX}notapid"
    for folder in (stale, live, other):
        folder.mkdir()
        (folder / "stdout").write_text("x")
    old = time.time() - workdirs.STALE_AFTER_S - 5
    for folder in (stale, live, other):
        os.utime(folder, (old, old))
    young = tmp_path / f"{workdirs.PREFIX}{dead}-ghi"
    young.mkdir()
    assert workdirs.sweep(tmp_path) == [stale]
    assert not stale.exists() and live.exists() and other.exists() and young.exists()


def test_interpret_records_the_requests_journal_entry_in_the_same_call(tmp_path):
    """The computation agent's one call after a request's last run: the Interpretation, the
    Summary row and the COMP journal entry; a bad strategy or outcome writes neither file."""
    cwd = tmp_path / "ws"
    folder = t.new_problem(cwd)
    (folder / "PROOF.md").write_text(t.proof("asking", t.NOW), encoding="utf-8")
    snippet = folder / "computations" / "request-1.py"
    snippet.parent.mkdir()
    snippet.write_text(t.SNIPPETS[1], encoding="utf-8")
    t.script(
        cwd, "compute.py", "run", str(snippet), "--request", "1", "--title", "h(T) for n <= 5",
        "--python", sys.executable, "--problem", t.SLUG,
    )  # fmt: skip
    before = [(folder / name).read_text() for name in ("COMPUTATION.md", "JOURNAL.md")]
    interpret = ["compute.py", "interpret", "1", "--text", "all odd (n <= 5)", "--result",
                 "all odd", "--implication", "supports Step 2", "--problem", t.SLUG]  # fmt: skip
    for bad, code in ((["--strategy", "induction", "--outcome", "SUCCEEDED"], "bad_strategy"),
                      (["--strategy", "exhaustive-search", "--outcome", "DONE"], "bad_outcome"),
                      (["--strategy", "exhaustive-search"], "usage")):  # fmt: skip
        refused = run_script(*interpret, *bad, cwd=cwd)
        assert refused.returncode == 2 and code in refused.stdout + refused.stderr, bad
        assert [(folder / name).read_text() for name in ("COMPUTATION.md", "JOURNAL.md")] == before
    done = json.loads(t.script(
        cwd, *interpret, "--strategy", "exhaustive-search", "--outcome", "SUCCEEDED",
        "--tags", "tournaments,parity",
    ))  # fmt: skip
    assert done["journal"] == "COMP-001" and done["request"] == 1
    assert "all odd (n <= 5)" in (folder / "COMPUTATION.md").read_text()
    entry = (folder / "JOURNAL.md").read_text().split("### COMP-001: ", 1)[1]
    assert entry.startswith("Request 1: h(T) for n <= 5\n")
    for line in ("- **Agent:** computation", "exhaustive-search", "SUCCEEDED",
                 "all odd (n <= 5)", "- **Insight/Takeaway:** supports Step 2",
                 "(computations/request-1.py)", "tournaments, parity"):  # fmt: skip
        assert line in entry, line


def _asking_twice(tmp_path):
    """The tournament problem's PROOF.md asking two requests, and their snippets written."""
    cwd = tmp_path / "ws"
    folder = t.new_problem(cwd)
    (folder / "PROOF.md").write_text(t.proof("asking", t.NOW), encoding="utf-8")
    (folder / "computations").mkdir()
    snippets = []
    for request in (1, 2):
        snippets.append(folder / "computations" / f"request-{request}.py")
        snippets[-1].write_text(t.SNIPPETS[request], encoding="utf-8")
    return cwd, folder, snippets


def test_a_call_after_and_keeps_the_first_calls_options(tmp_path):
    """`--and`'s calls take the first's --python, limits and problem when they do not say: the
    subcommand's defaults once overwrote them (argparse writes a subcommand's defaults over the
    namespace it is given), so the second run had 30 s, 1024 MB and the plugin's interpreter."""
    cwd, folder, snippets = _asking_twice(tmp_path)
    runs = json.loads(t.script(
        cwd, "compute.py", "run", str(snippets[0]), "--request", "1", "--title", "n <= 5",
        "--python", sys.executable, "--timeout", "17", "--memory-mb", "700",
        "--problem", t.SLUG,
        "--and", str(snippets[1]), "--request", "2", "--title", "n = 6, 7", "--timeout", "19",
    ))  # fmt: skip
    assert [r["outcome"] for r in runs] == ["ok", "ok"]
    environments = (folder / "COMPUTATION.md").read_text().split("### Environment")[1:]
    limits = [line for part in environments for line in part.splitlines() if "- limits:" in line]
    assert [line.split(";")[0] for line in limits] == [
        "- limits: 17 s wall time, 700 MB memory", "- limits: 19 s wall time, 700 MB memory",
    ]  # fmt: skip
    interpreters = [part.strip().splitlines()[0] for part in environments]
    assert interpreters[0] == interpreters[1]


def test_one_call_runs_and_interprets_every_open_request(tmp_path):
    """The computation agent's two requests: one `compute.py run` call for both snippets (the
    second after `--and`, with its own request, title and purpose, the first's problem and
    interpreter), one `interpret` call for both runs and their journal entries; a refused
    part is named in its place and does not stop the others."""
    cwd, folder, snippets = _asking_twice(tmp_path)
    runs = json.loads(t.script(
        cwd, "compute.py", "run", str(snippets[0]), "--request", "1", "--title", "n <= 5",
        "--python", sys.executable, "--problem", t.SLUG,
        "--and", str(snippets[1]), "--request", "2", "--title", "n = 6, 7",
    ))  # fmt: skip
    assert [r["outcome"] for r in runs] == ["ok", "ok"]
    assert [r["recorded"]["request"] for r in runs] == [1, 2]
    # the second run, confined as the first, says so: its isolation is not printed twice
    assert runs[0]["isolation"]["protections"] and runs[1]["isolation"] == "as the first run's"
    environments = (folder / "COMPUTATION.md").read_text().split("### Environment")[1:]
    assert len(environments) == 2 and environments[0].split("###")[0].count("\n- ") == 5
    said = run_script(
        "compute.py", "interpret", "1", "--text", "all odd to 5", "--result", "odd",
        "--implication", "supports Step 2", "--strategy", "exhaustive-search",
        "--outcome", "SUCCEEDED", "--problem", t.SLUG,
        "--and", "9", "--text", "no such run",
        "--and", "2", "--text", "all odd at 6, 7", "--result", "odd", "--implication",
        "supports Step 2", "--strategy", "numerical-experiment", "--outcome", "SUCCEEDED",
        cwd=cwd,
    )  # fmt: skip
    assert said.returncode == 2 and said.stdout.count("\n") == 1
    first, missing, second = json.loads(said.stdout)
    assert (first["journal"], second["journal"]) == ("COMP-001", "COMP-002")
    assert not {"file", "title"} & {*first, *second}  # the model's own words, not echoed
    assert missing["error"]["code"] == "no_pending_interpretation"
    recorded = (folder / "COMPUTATION.md").read_text()
    assert "all odd to 5" in recorded and "all odd at 6, 7" in recorded
    assert frontmatter.read_frontmatter(recorded, "COMPUTATION.md")["status"] == "complete"
