"""Hostile snippets against the sandbox, in every mode this machine has: changing a file's
metadata outside the snippet's folder, connecting to a Unix socket, reading another process's
environment, leaving processes behind (setsid, a bounded fork burst). Each is refused or
contained; the fallback (no namespaces) runs only with the user's allowance, and its result names
every protection that ran. Real processes, real kernels: a mode this machine lacks is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
import uuid

import mathtools.sandbox.run as sandbox
import pytest
from conftest import SCRIPTS
from mathtools.core.errors import EnvironmentProblem
from mathtools.sandbox import isolation, landlock, probes, workdirs
from mathtools.sandbox.namespaces import mount_namespace_works
from mathtools.sandbox.runwatch import PROCESS_LIMIT

PYTHON = sys.executable
# (namespaces, filesystem mode): the default, a mount namespace instead of Landlock, and the
# fallback without namespaces (with Landlock, and with nothing confining writes)
MODES = {
    "default": (True, "landlock"),
    "mount-namespace": (True, "mount-namespace"),
    "fallback": (False, "landlock"),
    "fallback-unconfined": (False, "none"),
}


def skip_without(mode):
    """Skip the test where this machine has no `mode` (of MODES)."""
    namespaces, filesystem = MODES[mode]
    works = {
        "landlock": probes.landlock_works,
        "mount-namespace": mount_namespace_works,
        "none": lambda: True,
    }[filesystem]
    if not works() or (namespaces and not probes.shielded()):
        pytest.skip(f"no {mode} mode on this machine")


def run_in(mode, code, **options):
    namespaces, filesystem = MODES[mode]
    skip_without(mode)
    if not probes.seccomp_works():
        pytest.skip("no seccomp filter for this machine: `isolation.metadata` says unprotected")
    allow = not namespaces or filesystem == "none"  # the user's allowance, as compute.py gives it
    return sandbox.run_sandboxed(
        code,
        PYTHON,
        network_namespace=namespaces,
        filesystem=filesystem,
        allow_unsandboxed=allow,
        **options,
    )


METADATA = """\
import json, os
tried = {}
for name, change in [
    ("chmod", lambda path: os.chmod(path, 0)),
    ("chmod-same-mode", lambda path: os.chmod(path, os.stat(path).st_mode & 0o7777)),
    ("utime", lambda path: os.utime(path, (0, 0))),
    ("setxattr", lambda path: os.setxattr(path, "user.math", b"changed")),
    ("chown", lambda path: os.chown(path, os.getuid(), os.getgid())),
]:
    for where, path in PATHS.items():
        try:
            change(path)
            tried[f"{name} {where}"] = "changed"
        except OSError as exc:
            tried[f"{name} {where}"] = type(exc).__name__
with open("scratch.txt", "w") as handle:
    handle.write("kept")
tried["scratch write"] = open("scratch.txt").read()
print(json.dumps(tried))
"""


@pytest.mark.parametrize("mode", list(MODES))
def test_a_snippet_changes_no_files_metadata(tmp_path, mode):
    """The reported defect: chmod 777 on the plugin's compute.py, mode 0 on a user's file,
    utime and setxattr outside the snippet's folder (the plugin's file keeps its mode here:
    a refused chmod to the mode it has changes nothing either way)."""
    user_file = tmp_path / "notes.md"
    user_file.write_text("mine\n")
    before = {path: os.stat(path) for path in (user_file, SCRIPTS / "compute.py")}
    paths = {"outside": str(user_file), "plugin": str(SCRIPTS / "compute.py")}
    result = run_in(mode, METADATA.replace("PATHS", repr(paths)))
    assert result["outcome"] == "ok", result["stderr"]
    tried = json.loads(result["stdout"])
    assert tried.pop("scratch write") == "kept"
    assert set(tried.values()) == {"PermissionError"}, tried
    for path, was in before.items():
        now = os.stat(path)
        assert (stat.S_IMODE(now.st_mode), now.st_mtime_ns) == (
            stat.S_IMODE(was.st_mode),
            was.st_mtime_ns,
        )
    assert os.listxattr(user_file) == []
    assert result["isolation"]["metadata"].startswith("seccomp")
    assert isolation.SECCOMP_PROTECTION in result["isolation"]["protections"]


def test_compute_refuses_the_reproductions_chmod_and_connect(script, tmp_path, unix_listener):
    """The report's reproduction, through compute.py in its default mode: mode 0 on a user's
    file, then a connection to a listening Unix socket."""
    if not (probes.shielded() and probes.seccomp_works()):
        pytest.skip("no namespaces or no seccomp filter here: the tests above cover each mode")
    path, server = unix_listener
    user_file = tmp_path / "notes.md"
    user_file.write_text("mine\n")
    code = (
        "import os, socket\n"
        f"try: os.chmod({str(user_file)!r}, 0)\n"
        "except PermissionError: print('chmod refused')\n"
        "client = socket.socket(socket.AF_UNIX)\n"
        f"client.connect({str(path)!r})\n"
        "client.sendall(b'FROM-SANDBOX')\n"
    )
    argv = ("compute.py", "run", "-", "--python", PYTHON, "--no-record")
    run = script(*argv, input=code, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    result = run.json()
    assert result["stdout"] == "chmod refused\n" and result["outcome"] == "error"
    assert stat.S_IMODE(user_file.stat().st_mode) != 0
    with pytest.raises(BlockingIOError):
        server.accept()


@pytest.fixture
def unix_listener(tmp_path):
    path = tmp_path / "listener.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    server.setblocking(False)
    yield path, server
    server.close()


@pytest.mark.parametrize("mode", list(MODES))
def test_a_snippet_connects_to_no_unix_socket(unix_listener, mode):
    path, server = unix_listener
    code = (
        "import socket\n"
        "client = socket.socket(socket.AF_UNIX)\n"
        f"client.connect({str(path)!r})\n"
        "client.sendall(b'FROM-SANDBOX')\n"
        "print('connected')\n"
    )
    result = run_in(mode, code)
    assert result["outcome"] == "error" and "connected" not in result["stdout"]
    assert "PermissionError" in result["stderr"]
    with pytest.raises(BlockingIOError):
        server.accept()  # nothing ever arrived


@pytest.mark.parametrize("mode", list(MODES))
def test_socketpair_still_works(mode):
    """An unnamed connected pair reaches nobody: multiprocessing's Pipe needs it."""
    code = (
        "import socket\n"
        "left, right = socket.socketpair()\n"
        "left.sendall(b'ping')\n"
        "print(right.recv(4).decode())\n"
    )
    result = run_in(mode, code)
    assert (result["outcome"], result["stdout"]) == ("ok", "ping\n"), result["stderr"]


# Reads the environment of every ancestor and of every process in /proc, looking for CANARY
# (where Landlock confines reads, /proc cannot even be listed: no hit either).
ENVIRONS = """\
import os
seen, pid, listed = [], os.getppid(), set()
try:
    while pid > 1:
        seen.append(pid)
        with open(f"/proc/{pid}/status") as handle:
            pid = int(handle.read().split("PPid:")[1].split()[0])
    listed = set(os.listdir("/proc"))
except PermissionError:
    pass
hits = []
for entry in listed | {str(p) for p in seen}:
    try:
        with open(f"/proc/{entry}/environ", "rb") as handle:
            if CANARY.encode() in handle.read():
                hits.append(entry)
    except OSError:
        continue
print("hits", sorted(hits))
"""


def test_no_ancestor_environment_is_readable_by_default(script, tmp_path):
    """The shell that started Claude Code holds its keys in its environment: compute.py, the
    snippet's ancestor, starts with a canary in its own."""
    if not probes.shielded():
        pytest.skip("no user, mount and PID namespaces here: the fallback needs the allowance")
    canary = f"canary-{uuid.uuid4().hex}"
    code = ENVIRONS.replace("CANARY", repr(canary))
    env = {**os.environ, "MATH_TEST_CANARY": canary}
    argv = ("compute.py", "run", "-", "--python", PYTHON, "--no-record")
    run = script(*argv, input=code, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.json()["stdout"] == "hits []\n", run.json()["stderr"]


def test_the_fallback_does_not_run_without_the_users_allowance(script, tmp_path):
    """Without `unshare` (an empty PATH here) the snippet would run beside compute.py and read
    every process's environment and the workspace's config: compute.py refuses, naming the key
    that allows it, and the sandbox too."""
    (tmp_path / ".math").mkdir()
    (tmp_path / "bin").mkdir()
    env = {**os.environ, "PATH": str(tmp_path / "bin")}
    argv = ("compute.py", "run", "-", "--python", PYTHON, "--no-record")
    run = script(*argv, input="print('ran')\n", env=env, cwd=tmp_path)
    assert run.returncode == 4, run.stdout + run.stderr
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "unconfined" and "ran" not in run.stdout
    assert '"allow_unsandboxed_compute": true' in error["message"]
    with pytest.raises(EnvironmentProblem, match="no user, mount and PID namespaces"):
        sandbox.run_sandboxed("print('ran')\n", PYTHON, network_namespace=False)


def test_the_allowed_fallback_runs_and_names_what_protected_it(script, tmp_path):
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text('{"allow_unsandboxed_compute": true}')
    (tmp_path / "bin").mkdir()
    env = {**os.environ, "PATH": str(tmp_path / "bin")}
    argv = ("compute.py", "run", "-", "--python", PYTHON, "--no-record")
    run = script(*argv, input="print('ran')\n", env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    result = run.json()
    assert result["stdout"] == "ran\n"
    protections = result["isolation"]["protections"]
    assert "PID namespace" not in protections and "network namespace" not in protections
    if probes.seccomp_works():
        assert isolation.SECCOMP_PROTECTION in protections
        assert result["isolation"]["network"] == "seccomp: no sockets"
    assert isolation.REAPER_PROTECTION in protections
    assert result["isolation"]["processes"].startswith("reaper")


def left_behind(marker, wait=3.0):
    """Pids of live processes whose command line holds `marker`, after `wait` seconds to go."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    holds = marker.encode() in handle.read()
                with open(f"/proc/{entry}/stat") as handle:
                    live = handle.read().rsplit(")", 1)[1].split()[0] != "Z"
            except OSError:
                continue
            if holds and live:
                found.append(int(entry))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


# Starts 20 processes that each leave the session (setsid) and sleep; then, with `WAIT`,
# waits past the wall-time limit. Bounded: 20 processes, each ended by the test if it survives.
ESCAPES = """\
import os, sys, time
for _ in range(20):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(SLEEP, ["sleep", "SECONDS"])
        os._exit(0)
print("started", flush=True)
if WAIT:
    time.sleep(300)
"""


def escapes(seconds, wait):
    """ESCAPES sleeping `seconds` (by sleep's full path: PATH may be emptied)."""
    sleep = shutil.which("sleep") or "/bin/sleep"
    code = ESCAPES.replace("SLEEP", repr(sleep)).replace("SECONDS", seconds)
    return code.replace("WAIT", str(wait))


@pytest.mark.parametrize("wait", [False, True], ids=["finished", "timed-out"])
@pytest.mark.parametrize("mode", list(MODES))
def test_no_process_outlives_the_snippet(mode, wait):
    seconds = str(3000 + uuid.uuid4().int % 997)  # a marker no other process carries
    code = escapes(seconds, wait)
    try:
        result = run_in(mode, code, timeout=3 if wait else 30)
        assert result["stdout"] == "started\n", result["stderr"]
        assert result["outcome"] == ("timeout" if wait else "ok")
        assert left_behind(f"sleep\x00{seconds}\x00") == []
    finally:
        for pid in left_behind(f"sleep\x00{seconds}\x00", wait=0):
            os.kill(pid, 9)


def test_in_the_fallback_a_snippet_cannot_signal_its_reaper():
    """The reaper stays outside the sandbox: Landlock's signal scope (ABI 6) keeps the snippet
    from killing it (and with it the end of its processes)."""
    if landlock.abi_version() < 6:
        pytest.skip("no Landlock signal scope here: the docs say the reaper can be killed")
    result = run_in("fallback", "import os\nos.kill(os.getppid(), 0)\n")
    assert result["outcome"] == "error" and "PermissionError" in result["stderr"]


def test_under_landlock_abi_5_a_device_takes_no_ioctl():
    """RNDGETENTCNT on /dev/urandom, opened for reading: allowed to any user, refused under
    Landlock's ioctl right (ABI 5)."""
    if landlock.abi_version() < 5:
        pytest.skip("no Landlock ioctl right in this kernel")
    code = (
        "import fcntl, struct\n"
        "with open('/dev/urandom', 'rb') as device:\n"
        "    fcntl.ioctl(device, 0x80045200, struct.pack('i', 0))\n"
    )
    result = run_in("default", code)
    assert result["outcome"] == "error" and "PermissionError" in result["stderr"]
    assert "landlock: device ioctls only there" in result["isolation"]["protections"]


def test_in_the_fallback_the_snippets_processes_end_when_compute_is_killed(tmp_path):
    """kill -9 of compute.py (Claude Code ending a call) leaves the reaper alone: it then ends
    the snippet and every process it started."""
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text('{"allow_unsandboxed_compute": true}')
    (tmp_path / "bin").mkdir()
    seconds = str(3000 + uuid.uuid4().int % 997)
    marker = f"sleep\x00{seconds}\x00"
    code = escapes(seconds, True)
    argv = [PYTHON, str(SCRIPTS / "compute.py"), "run", "-", "--python", PYTHON, "--no-record"]
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "PATH": str(tmp_path / "bin"), "TMPDIR": str(tmp_path / "tmp")}
    compute = subprocess.Popen(argv, stdin=subprocess.PIPE, cwd=tmp_path, env=env)
    try:
        compute.stdin.write(code.encode())
        compute.stdin.close()
        deadline = time.monotonic() + 20
        while len(left_behind(marker, wait=0)) < 20 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(left_behind(marker, wait=0)) == 20, "the snippet never started its processes"
        compute.kill()
        compute.wait()
        assert left_behind(marker, wait=5.0) == []
        # its folder outlives it (no `finally` ran), until a later run sweeps it away
        (left,) = (tmp_path / "tmp").glob(f"{workdirs.PREFIX}{compute.pid}-*")
        later = time.time() + workdirs.STALE_AFTER_S + 1
        assert workdirs.sweep(tmp_path / "tmp", now=later) == [left] and not left.exists()
    finally:
        compute.kill()
        compute.wait()
        for pid in left_behind(marker, wait=0):
            os.kill(pid, 9)


# -- issue 52: inode flags, leftover FIFOs, the end of compute.py, a process and memory cap ---

FS_IOC_GETFLAGS, FS_NODUMP_FL = 0x80086601, 0x40

# Opens PATH read-only and sets nodump through each SETFLAGS request seccomp.py refuses.
SET_FLAGS = """\
import fcntl, json, struct
tried = {}
with open(PATH, "rb") as handle:
    for name, request in REQUESTS.items():
        try:
            fcntl.ioctl(handle, request, struct.pack("l", FLAGS))
            tried[name] = "changed"
        except OSError as exc:
            tried[name] = type(exc).__name__
print(json.dumps(tried))
"""


def inode_flags(path):
    import array
    import fcntl

    flags = array.array("l", [0])
    with open(path, "rb") as handle:
        fcntl.ioctl(handle, FS_IOC_GETFLAGS, flags)
    return flags[0]


@pytest.mark.parametrize("mode", list(MODES))
def test_a_snippet_sets_no_inode_flag_on_a_file_outside_its_folder(tmp_path, mode):
    """The report's repro: FS_IOC_SETFLAGS (nodump, noatime, sync; immutable and append-only as
    root) on a file opened read-only, LITERATURE.md among them."""
    from mathtools.sandbox import seccomp

    target = tmp_path / "LITERATURE.md"
    target.write_text("kept\n")
    try:
        before = inode_flags(target)
    except OSError:
        pytest.skip("this file system has no inode flags")
    requests = {
        name: seccomp.SETFLAGS_REQUESTS[name] for name in ("FS_IOC_SETFLAGS", "FS_IOC32_SETFLAGS")
    }
    code = SET_FLAGS.replace("PATH", repr(str(target))).replace("REQUESTS", repr(requests))
    # named as readable: the filter, not Landlock's reads, is what must refuse
    result = run_in(mode, code.replace("FLAGS", str(before | FS_NODUMP_FL)), readable=[target])
    assert result["outcome"] == "ok", result["stderr"]
    assert set(json.loads(result["stdout"]).values()) == {"PermissionError"}, result["stdout"]
    assert inode_flags(target) == before


# Replaces the files compute.py reads back with FIFOs, then ends: nothing writes to them.
FIFOS = """\
import os
for name in ("environment.json", "stdout", "stderr", "wait-status"):
    try:
        os.unlink(name)
    except FileNotFoundError:
        pass
    os.mkfifo(name)
print("left FIFOs", flush=True)
"""


@pytest.mark.parametrize("mode", list(MODES))
def test_fifos_the_snippet_leaves_never_hold_the_run(mode):
    """The report's repro: a FIFO in place of environment.json (or stdout, wait-status) blocked
    compute.py forever once the snippet ended, past --timeout. Run in a thread here, so that a
    hang fails the test instead of holding it."""
    import threading

    results = []
    worker = threading.Thread(
        target=lambda: results.append(run_in(mode, FIFOS, timeout=10)), daemon=True
    )
    worker.start()
    worker.join(40)
    assert not worker.is_alive(), "the run waited on a FIFO the snippet left"
    (result,) = results
    assert result["stdout"] == "left FIFOs\n"
    assert result["wall_time_s"] < 10 and result["outcome"] == "ok", result


def compute_mode_env(tmp_path, mode):
    """compute.py's environment (and workspace) for one of MODES, or a skip."""
    namespaces, filesystem = MODES[mode]
    skip_without(mode)
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text('{"allow_unsandboxed_compute": true}')
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    env[probes.FILESYSTEM_VARIABLE] = filesystem
    if not namespaces:
        (tmp_path / "bin").mkdir()
        env["PATH"] = str(tmp_path / "bin")
    return env


@pytest.mark.parametrize("ending", ["SIGKILL", "SIGTERM"])
@pytest.mark.parametrize("mode", list(MODES))
def test_the_snippets_processes_end_when_compute_is_killed_in_every_mode(tmp_path, mode, ending):
    """The report's repro: in the default mode the snippet and its setsid children outlived a
    killed compute.py (Claude Code ends a call with SIGTERM or SIGKILL), past --timeout."""
    import signal

    env = compute_mode_env(tmp_path, mode)
    seconds = str(3000 + uuid.uuid4().int % 997)
    marker = f"sleep\x00{seconds}\x00"
    argv = [PYTHON, str(SCRIPTS / "compute.py"), "run", "-", "--python", PYTHON, "--no-record"]
    compute = subprocess.Popen(argv, stdin=subprocess.PIPE, cwd=tmp_path, env=env)
    try:
        compute.stdin.write(escapes(seconds, True).encode())
        compute.stdin.close()
        deadline = time.monotonic() + 20
        while len(left_behind(marker, wait=0)) < 20 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(left_behind(marker, wait=0)) == 20, "the snippet never started its processes"
        compute.send_signal(getattr(signal, ending))
        compute.wait()
        assert left_behind(marker, wait=5.0) == []
    finally:
        compute.kill()
        compute.wait()
        for pid in left_behind(marker, wait=0):
            os.kill(pid, 9)


# Forks up to 150 sleeping children (bounded; each ends in 30 s anyway), then waits.
FORKS = """\
import os, time
started = 0
try:
    for _ in range(150):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        started += 1
except OSError as exc:
    print("refused after", started, flush=True)
time.sleep(30)
"""


@pytest.mark.parametrize("mode", list(MODES))
def test_a_run_has_a_process_cap_root_included(mode):
    """The report: as root no process cap held (256-400 forks). The run now ends once it has
    more than PROCESS_LIMIT processes, whoever runs it (or the kernel refuses the fork first)."""
    result = run_in(mode, FORKS, timeout=25)
    refused = result["stdout"].startswith("refused after")
    if refused:
        assert int(result["stdout"].split()[2]) <= PROCESS_LIMIT
    else:
        assert result["outcome"] == "process_limit", result
        assert result["wall_time_s"] < 20
    assert f"at most {PROCESS_LIMIT} processes" in " ".join(result["isolation"]["protections"])


# Four processes of 120 MB each: under the per-process limit, over the run's 256 MB.
MEMORY = """\
import os, time
for _ in range(3):
    if os.fork() == 0:
        break
block = b"x" * (120 * 2**20)
time.sleep(30)
"""


@pytest.mark.parametrize("mode", list(MODES))
def test_a_run_has_a_memory_cap_across_its_processes(mode):
    """The report: memory was limited per process only (4 x 1.2 GB)."""
    result = run_in(mode, MEMORY, timeout=25, memory_mb=256)
    assert result["outcome"] == "memory", result
    assert result["wall_time_s"] < 20
