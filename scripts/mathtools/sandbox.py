"""Run a Python snippet in a separate, confined process and capture what happened.

The snippet runs in a fresh temporary folder (its cwd and HOME, removed afterwards) with:
  - a wall-time limit: the whole process group is killed when it runs out;
  - a memory limit (RLIMIT_AS) and a CPU-time backstop (RLIMIT_CPU), where the OS has them;
  - no network: a network namespace with no interfaces (`unshare --net`) when the kernel lets us
    make one, else a guard in the interpreter that refuses every socket connection (weaker: code
    that reaches the C socket layer directly is not stopped);
  - a bounded amount of captured output.
The result says which of these applied, and which library versions the snippet saw.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MEMORY_MB = 2048
OUTPUT_LIMIT_BYTES = 200_000  # per stream kept in the result
FILE_SIZE_LIMIT_BYTES = 64 * 2**20  # any one file the snippet writes, its output included
# Libraries whose versions are reported when installed (the snippet may use any of them).
REPORTED_PACKAGES = ("sympy", "mpmath", "numpy", "scipy", "networkx", "gmpy2")

# Runs inside the child: reports the environment, installs the socket guard if asked, then runs
# the snippet as __main__ so that an exception prints its usual traceback and exits 1.
RUNNER = """\
import json, os, platform, re, runpy, sys

# Installed versions from the dist-info folder names (importlib.metadata would cost ~0.1 s).
wanted, packages = sys.argv[3].split(","), {}
for folder in sys.path:
    try:
        names = os.listdir(folder or ".")
    except OSError:
        continue
    for name in names:
        found = re.match(r"([A-Za-z0-9_.]+)-([^-]+)\\.(?:dist|egg)-info$", name)
        if found and found.group(1).lower().replace("_", "-") in wanted:
            packages.setdefault(found.group(1).lower().replace("_", "-"), found.group(2))
with open("environment.json", "w") as handle:
    json.dump({"python": platform.python_version(),
               "implementation": platform.python_implementation(),
               "platform": platform.platform(), "executable": sys.executable,
               "packages": packages}, handle)
if sys.argv[2] == "guard":
    import socket

    def _refuse(*args, **kwargs):
        raise PermissionError("network access is disabled in the math computation sandbox")

    for _name in ("connect", "connect_ex", "sendto", "sendmsg"):
        setattr(socket.socket, _name, _refuse)
    socket.getaddrinfo = socket.create_connection = _refuse
del wanted, packages, handle
sys.argv = [sys.argv[1]]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except Exception:
    import traceback

    # The traceback from the snippet's first frame on: the runner's frames say nothing.
    kind, error, frames = sys.exc_info()
    while frames is not None and frames.tb_frame.f_code.co_filename != sys.argv[0]:
        frames = frames.tb_next
    traceback.print_exception(kind, error, frames)
    sys.exit(1)
"""


@lru_cache(maxsize=1)
def namespace_prefix() -> tuple[str, ...] | None:
    """The command prefix that runs a program in a new, empty network namespace, if permitted."""
    unshare = shutil.which("unshare")
    if not unshare or not sys.platform.startswith("linux"):
        return None
    for prefix in ((unshare, "--net", "--map-root-user"), (unshare, "--net")):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
            if probe.returncode == 0:
                return prefix
    return None


def _limit(memory_mb: int, timeout: float):
    """preexec_fn for the child: memory, CPU time, file size and core dumps (POSIX)."""
    try:
        import resource
    except ImportError:  # Windows
        return None

    def apply() -> None:
        memory = memory_mb * 2**20
        cpu = int(timeout) + 1
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT_BYTES, FILE_SIZE_LIMIT_BYTES))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _read(path: Path) -> tuple[str, bool]:
    with open(path, "rb") as handle:
        data = handle.read(OUTPUT_LIMIT_BYTES + 1)
    truncated = len(data) > OUTPUT_LIMIT_BYTES
    return data[:OUTPUT_LIMIT_BYTES].decode("utf-8", errors="replace"), truncated


def _outcome(returncode: int, timed_out: bool, stderr: str) -> str:
    if timed_out or returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "timeout"
    if returncode == -signal.SIGXFSZ:
        return "output_limit"
    if returncode != 0 and any(
        sign in stderr for sign in ("MemoryError", "Cannot allocate memory", "bad_alloc")
    ):
        return "memory"
    if returncode < 0:
        return "killed"
    return "ok" if returncode == 0 else "error"


def run(
    code: str,
    python: Path | str = sys.executable,
    timeout: float = DEFAULT_TIMEOUT_S,
    memory_mb: int = DEFAULT_MEMORY_MB,
    network_namespace: bool = True,
    packages: tuple[str, ...] = REPORTED_PACKAGES,
) -> dict[str, Any]:
    """Run `code` with `python` under the limits; return what happened (never raises for the
    snippet's own failures). `network_namespace=False` forces the in-interpreter socket guard;
    `packages` are the distributions whose installed versions the result reports."""
    prefix = namespace_prefix() if network_namespace else None
    workdir = Path(tempfile.mkdtemp(prefix="math-compute-"))
    try:
        (workdir / "snippet.py").write_text(code, encoding="utf-8")
        (workdir / "runner.py").write_text(RUNNER, encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(workdir),
            "TMPDIR": str(workdir),
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0",  # reproducible set and dict orders
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
            "MPLBACKEND": "Agg",
            # one thread each: BLAS thread pools reserve address space the memory limit counts
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
        }
        argv = [
            *(prefix or ()),
            str(python),
            "-I",
            "runner.py",
            "snippet.py",
            "namespace" if prefix else "guard",
            ",".join(packages),
        ]
        started = time.monotonic()
        with open(workdir / "stdout", "wb") as out, open(workdir / "stderr", "wb") as err:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                cwd=workdir,
                env=env,
                start_new_session=True,
                preexec_fn=_limit(memory_mb, timeout),
            )
            timed_out = False
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            # Whatever is left of the group (the snippet's own children too) goes now.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        elapsed = time.monotonic() - started
        stdout, stdout_cut = _read(workdir / "stdout")
        stderr, stderr_cut = _read(workdir / "stderr")
        environment: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError):
            environment = json.loads((workdir / "environment.json").read_text())
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    returncode = proc.returncode
    return {
        "outcome": _outcome(returncode, timed_out, stderr),
        "exit_code": returncode if returncode >= 0 else None,
        "signal": signal.Signals(-returncode).name if returncode < 0 else None,
        "timed_out": timed_out,
        "wall_time_s": round(elapsed, 3),
        "stdout": stdout,
        "stderr": stderr,
        "truncated": {"stdout": stdout_cut, "stderr": stderr_cut},
        "limits": {"timeout_s": timeout, "memory_mb": memory_mb},
        "isolation": {
            "network": "namespace" if prefix else "python-guard",
            "memory": "RLIMIT_AS" if _limit(memory_mb, timeout) else "none",
            "wall_time": "process group killed at the limit",
            "workdir": "temporary folder, removed afterwards",
        },
        "environment": environment,
    }
