"""Run a Python snippet in a separate, confined process and capture what happened.

The snippet runs in a fresh temporary folder (its cwd and HOME, removed afterwards, or by the next
run when compute.py was killed: workdirs.py) with:
  - a wall-time limit: everything it started is killed when it runs out. Where the kernel lets us
    make namespaces (`unshare`, namespaces.py), the snippet runs in its own PID namespace, so every
    process it starts (even one that left its process group with `setsid`) ends with it, at the
    limit or when it finishes; elsewhere launcher.py's reaper, a child subreaper left outside the
    sandbox, does the same: it kills every process the snippet left when it ends or at the limit.
    Either ends with the caller, killed too: the parent-death signal (SIGKILL to unshare, whose
    --kill-child ends the namespace; SIGTERM to the reaper). One deadline bounds the whole call:
    the files read back afterwards are read from descriptors opened before the run, or opened
    non-blocking as regular files only (a FIFO the snippet left is refused, never waited on);
  - a memory limit per process (RLIMIT_AS), a CPU-time backstop (RLIMIT_CPU), a cap on how many
    more processes it may start (RLIMIT_NPROC; the kernel does not apply it to root), and, watched
    every WATCH_INTERVAL_S from /proc whoever runs it, root included, at most PROCESS_LIMIT
    processes and threads and the memory limit resident across the run's processes (past either,
    the run is ended: outcome "process_limit" or "memory");
  - no network, no Unix socket and no change to any file's metadata: seccomp.py's filter refuses
    creating sockets (socketpair excepted), chmod, chown, utime, xattr and inode-flag (ioctl)
    calls, io_uring, ptrace
    and process_vm calls, where there is a filter for the machine (x86-64, AArch64); and a
    network namespace with no interfaces when the kernel lets us make one. With neither, a
    best-effort guard, an audit hook in every Python interpreter the snippet starts (through a
    sitecustomize on PYTHONPATH), refuses socket connections and name lookups (not for curl,
    ctypes or `python -I`);
  - writes only in its folder (and to /dev/null, /dev/zero, /dev/full): with Landlock where the
    kernel has it (landlock.py, applied last by launcher.py, as Landlock forbids the mounts below;
    with truncation, device ioctls, signals and abstract Unix sockets kept inside too where its
    ABI has them), else in a mount namespace where every mount but the folder's is read-only (the
    namespace's own /proc excepted: unshare must write the nested namespace's uid map), else not
    at all (probes.py finds which). FILESYSTEM_VARIABLE forces one of them, for tests and
    diagnostics;
  - reads, under Landlock, only of readable_paths (its interpreter's folders, SYSTEM_READS, the
    files the caller names) and its folder: never a home folder, the signing key or a workspace's
    config.json;
  - files named in `hidden` (the workspace's .math/config.json, which may hold the Semantic Scholar
    key, and its signing key) bound over by an empty file of the run (unreadable under Landlock,
    empty otherwise), folders named in `read_only` (the workspace) cannot be written, and /proc
    shows only the snippet's own processes, where user, mount and PID namespaces are available
    (shielded); with neither Landlock nor those the snippet can read every file the user can and
    every process's environment (the shell that started Claude Code holds its keys there);
  - no secret in any environment it can read: its own gets only an allow-list of variables, and
    compute.py re-executes itself with only KEPT_VARIABLES (with_allowed_environment) before
    anything, as /proc/<pid>/environ shows a process's environment as it started;
  - a bounded amount of captured output; writing more than FILE_SIZE_LIMIT_BYTES to a stream is
    the outcome "output_limit".
Where nothing confines its writes, or it gets no namespaces of its own
(probes.needs_allowance), the run is refused unless the caller allows it
(`allow_unsandboxed`; compute.py: the workspace's allow_unsandboxed_compute). The result's
`isolation` says which of these held (`protections` names every one that ran), and
`environment` which library versions the snippet saw.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from ..core import BadInput, EnvironmentProblem
from . import launcher, workdirs
from .isolation import Confinement, isolation
from .namespaces import can_hide_files, hiding, namespace_prefix
from .probes import FILESYSTEM_VARIABLE, filesystem_mode, launch_command, seccomp_works
from .readable import covered, readable_paths
from .runresult import RunResult, SnippetEnvironment, Truncated, outcome
from .runwatch import (
    WATCH_INTERVAL_S,
    captured,
    over_caps,
    process_cap,
    read_regular,
)
from .snippetrunner import GUARD_FOLDER, NETWORK_GUARD, RUNNER, WAIT_STATUS_FILE

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MEMORY_MB = 2048
MAX_TIMEOUT_S = 86400.0  # a day: longer is a mistake, and beyond any rlimit's range
MIN_MEMORY_MB, MAX_MEMORY_MB = 64, 2**20  # Python needs 64 MB to start; 1 TiB bounds RLIMIT_AS
ENVIRONMENT_LIMIT_BYTES = 2**20  # the runner's environment.json and wait status: far less
OUTPUT_LIMIT_BYTES = 200_000  # per stream kept in the result
FILE_SIZE_LIMIT_BYTES = 64 * 2**20  # any one file the snippet writes, its output included
# Libraries whose versions are reported when installed (the snippet may use any of them).
REPORTED_PACKAGES = ("sympy", "mpmath", "numpy", "scipy", "networkx", "gmpy2")
# an empty file in the workdir, bound over each hidden file: under Landlock, reading a file there
# is refused (its inode has no rule), where /dev/null's would read as empty
BLANK_FILE = ".hidden"
UNCONFINED = (
    "nothing here keeps a snippet from writing outside its folder or reading your files "
    "(~/.ssh, .math/signing.key: neither Landlock nor user and mount namespaces are available, "
    f"or {FILESYSTEM_VARIABLE}=none), so it did not run; to run "
    'snippets unconfined anyway, set "allow_unsandboxed_compute": true in .math/config.json'
)
UNSHIELDED = (
    "this machine gives a snippet no user, mount and PID namespaces of its own (no `unshare`, or "
    "the kernel refuses them): without Landlock too it could read every file and process "
    "environment your user can (API keys, .math/config.json, .math/signing.key, ~/.ssh); it did "
    "not run; to run snippets here anyway, with the protections that remain, set "
    '"allow_unsandboxed_compute": true in .math/config.json'
)
# Variables never passed on, and never left in compute.py's own /proc/<pid>/environ.
SECRET_VARIABLES = ("SEMANTIC_SCHOLAR_API_KEY", "MATH_CONTACT_EMAIL")
_SCRUBBED_MARKER = "MATH_SECRETS_SCRUBBED"
# All compute.py keeps of its caller's environment (allowed_environment): what it, the plugin's
# install (uv, pip) and the interpreters need. A snippet beside it (no PID namespace, reads not
# confined) could read the rest in /proc/<pid>/environ: ANTHROPIC_API_KEY, a cloud token...
KEPT_VARIABLES = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR", "TERM", "VIRTUAL_ENV",
        "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE",
        "PYTHONIOENCODING", "PYTHONUTF8",
    }
)  # fmt: skip
KEPT_PREFIXES = ("LC_", "MATH_", "XDG_", "UV_", "PIP_", "CLAUDE_PLUGIN_")


def environment_without_secrets() -> dict[str, str]:
    """This process's environment for a child that runs other people's input (LaTeX)."""
    return {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES}


def allowed_environment() -> dict[str, str]:
    """This process's environment cut to KEPT_VARIABLES and KEPT_PREFIXES, without secrets."""
    return {
        k: v
        for k, v in environment_without_secrets().items()
        if k in KEPT_VARIABLES or k.startswith(KEPT_PREFIXES)
    }


def _execute_again(env: dict[str, str]) -> None:
    """Re-execute this process with `env` (once: a second time is an exec that did not take)."""
    if os.environ.get(_SCRUBBED_MARKER):  # never loop
        return
    env[_SCRUBBED_MARKER] = "1"
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)


def without_secrets() -> None:
    """Re-execute this process without SECRET_VARIABLES if it has any: a program running beside
    it as the same user could read them in /proc/<our pid>/environ, which shows the environment a
    process started with whatever os.environ says since. Call it first, before stdin is read
    (the new process reads it instead)."""
    if any(name in os.environ for name in SECRET_VARIABLES):
        _execute_again(environment_without_secrets())


def with_allowed_environment() -> None:
    """Re-execute this process with allowed_environment() if it has any other variable (as
    without_secrets, which it includes): for compute.py, whose snippet may run beside it."""
    allowed = allowed_environment()
    if set(os.environ) - set(allowed) - {_SCRUBBED_MARKER}:
        _execute_again(allowed)


def _limit(
    memory_mb: int, timeout: float, processes: int | None, end_with_us: int
) -> Callable[[], None] | None:
    """preexec_fn for the child: memory, CPU time, processes, file size, core dumps (POSIX), and
    on Linux the signal `end_with_us` when this process ends (killed too): SIGKILL ends unshare,
    whose --kill-child then ends the PID namespace; SIGTERM tells launcher.py's reaper to end what
    the snippet started."""
    try:
        import resource
    except ImportError:  # Windows
        return None

    def apply() -> None:
        if sys.platform.startswith("linux"):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(
                ctypes.c_ulong(launcher.PR_SET_PDEATHSIG), ctypes.c_ulong(end_with_us), 0, 0, 0
            )
            if os.getppid() != parent:  # we ended before the signal was asked for
                os._exit(launcher.FAILED)
        memory = memory_mb * 2**20
        cpu = int(timeout) + 1
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT_BYTES, FILE_SIZE_LIMIT_BYTES))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if processes is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))

    parent = os.getpid()
    return apply


def check_limits(timeout: float, memory_mb: int) -> None:
    """BadInput unless the limits are ones the sandbox can set: a finite wall time up to a day
    (check_timeout), memory from 64 MB to 1 TiB."""
    check_timeout(timeout)
    if not MIN_MEMORY_MB <= memory_mb <= MAX_MEMORY_MB:
        raise BadInput(
            f"--memory-mb must be from {MIN_MEMORY_MB} to {MAX_MEMORY_MB} (got {memory_mb})",
            code="usage",
        )


def check_timeout(timeout: float) -> None:
    """BadInput unless `timeout` is a wall time a child process can be given: more than 0 and
    at most a day (so neither negative, NaN nor infinite)."""
    if not 0 < timeout <= MAX_TIMEOUT_S:
        raise BadInput(
            f"--timeout must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds "
            f"(got {timeout:g})",
            code="usage",
        )


def interpreter(name: str) -> Path:
    """The interpreter `--python NAME` names, as an absolute path (the snippet runs in another
    folder): a path, or else a command on PATH. BadInput unless it is an executable file: a
    folder or a file without execute permission could not run the snippet."""
    path = Path(name)
    if "/" not in name and not path.exists():
        found = shutil.which(name)
        path = Path(found) if found else path
    if path.is_dir():
        raise BadInput(f"--python {name}: a folder, not an interpreter")
    if not path.exists():
        raise BadInput(f"--python {name}: no such interpreter")
    if not os.access(path, os.X_OK):
        raise BadInput(f"--python {name}: not executable")
    return Path(os.path.abspath(path))  # not resolve(): a venv's python is a symlink


@dataclass(frozen=True)
class _Ended:
    """How the snippet's process ended and what it left."""

    outcome: str  # runresult.outcome
    returncode: int
    timed_out: bool
    elapsed: float
    stdout: str
    stderr: str
    truncated: Truncated
    environment: SnippetEnvironment


def run_sandboxed(
    code: str,
    python: Path | str = sys.executable,
    timeout: float = DEFAULT_TIMEOUT_S,
    memory_mb: int = DEFAULT_MEMORY_MB,
    network_namespace: bool = True,
    packages: tuple[str, ...] = REPORTED_PACKAGES,
    hidden: Iterable[Path | str] = (),
    read_only: Iterable[Path | str] = (),
    filesystem: str | None = None,
    allow_unsandboxed: bool = False,
    readable: Iterable[Path | str] = (),
) -> RunResult:
    """Run `code` with `python` under the limits; return what happened (never raises for the
    snippet's own failures). `network_namespace=False` forces the fallback (no namespaces: the
    reaper ends the snippet's processes); `packages` are the distributions whose installed
    versions the result reports; `hidden` files read as empty and `read_only` folders cannot be
    written where namespaces allow it. The snippet writes only in its folder (filesystem_mode,
    `filesystem` forcing one), and under Landlock reads only its folder, `readable` and
    readable_paths. Where nothing confines its writes, or it gets no namespaces of its
    own, EnvironmentProblem unless `allow_unsandboxed`."""
    check_limits(timeout, memory_mb)
    confinement, workdir = _confine(
        python,
        memory_mb,
        timeout,
        network_namespace,
        hidden,
        read_only,
        filesystem,
        allow_unsandboxed,
        readable,
    )
    folder = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # read back by fd
    try:
        command, env = _prepare(confinement, workdir, code, python, packages)
        ended = _execute(confinement, command, env, workdir, folder, timeout)
    finally:
        os.close(folder)
        shutil.rmtree(workdir, ignore_errors=True)
    returncode = ended.returncode
    return {
        "outcome": ended.outcome,
        "exit_code": returncode if returncode >= 0 else None,
        "signal": signal.Signals(-returncode).name if returncode < 0 else None,
        "timed_out": ended.timed_out,
        "wall_time_s": round(ended.elapsed, 3),
        "stdout": ended.stdout,
        "stderr": ended.stderr,
        "truncated": ended.truncated,
        "limits": {"timeout_s": timeout, "memory_mb": memory_mb},
        "isolation": isolation(confinement),
        "environment": ended.environment,
    }


def _confine(
    python: Path | str,
    memory_mb: int,
    timeout: float,
    network_namespace: bool,
    hidden: Iterable[Path | str],
    read_only: Iterable[Path | str],
    filesystem: str | None,
    allow_unsandboxed: bool,
    readable: Iterable[Path | str],
) -> tuple[Confinement, Path]:
    """The first stage: what this machine gives the run (refused where it is too little and
    the caller does not allow it), and the run's fresh folder."""
    prefix = namespace_prefix() if network_namespace else None
    writes = filesystem_mode(bool(prefix), filesystem)
    if writes == "none" and not allow_unsandboxed:
        raise EnvironmentProblem(UNCONFINED, code="unconfined")
    confining = bool(prefix) and can_hide_files()
    in_pid_namespace = "--pid" in (prefix or ())
    if not (confining and in_pid_namespace) and not allow_unsandboxed:
        raise EnvironmentProblem(UNSHIELDED, code="unconfined")
    filtered = seccomp_works()
    guarded = not prefix and not filtered  # the Python guard, where nothing else stops sockets
    reaping = not in_pid_namespace and sys.platform.startswith("linux")
    hide = list(dict.fromkeys(str(Path(name).resolve()) for name in hidden if Path(name).is_file()))
    hide = hide if confining else []
    workdirs.sweep()  # what killed runs left
    workdir = workdirs.make()
    frozen = [str(Path(name).resolve()) for name in read_only if Path(name).is_dir()]
    # a folder holding the workdir stays writable: the snippet's own files live there
    frozen = [f for f in frozen if confining and not workdir.resolve().is_relative_to(f)]
    # without Landlock a mount namespace covers what a computation need not read: home folders
    # and the workspace but for what the interpreters (the launcher's too) and the run need
    covering: list[str] = []
    if writes == "mount-namespace" and confining:
        scripts = str(Path(launcher.__file__).resolve().parents[2])
        needed = [*readable_paths(python, readable), *readable_paths(sys.executable), scripts]
        needed.append(str(workdir.resolve()))
        covering = [path for path in covered(needed, [Path.home(), *frozen]) if path not in hide]
    processes = process_cap()
    limits = _limit(memory_mb, timeout, processes, signal.SIGTERM if reaping else signal.SIGKILL)
    readable = list(readable)
    reads = readable_paths(python, readable) if writes == "landlock" else []
    watching = sys.platform.startswith("linux")  # the run's processes, from /proc
    writable = [str(workdir.resolve())] if writes == "mount-namespace" else []
    confinement = Confinement(
        prefix,
        writes,
        in_pid_namespace,
        filtered,
        guarded,
        reaping,
        watching,
        hide,
        frozen,
        covering,
        writable,
        reads,
        [str(path) for path in readable],
        processes,
        limits,
        memory_mb,
    )
    return confinement, workdir


def _prepare(
    c: Confinement, workdir: Path, code: str, python: Path | str, packages: tuple[str, ...]
) -> tuple[list[str], dict[str, str]]:
    """The second stage: the snippet and its runner written into `workdir`, and the command and
    environment that start them confined."""
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
    if c.guarded:
        (workdir / GUARD_FOLDER).mkdir()
        (workdir / GUARD_FOLDER / "sitecustomize.py").write_text(NETWORK_GUARD)
        env["PYTHONPATH"] = str(workdir / GUARD_FOLDER)
    command = [
        str(python),
        "-I",
        "runner.py",
        "snippet.py",
        "guard" if c.guarded else "kernel",
        ",".join(packages),
    ]
    # launcher.py last, after any mounts: Landlock and the filter forbid mounting
    options = [
        *(["--writes", str(workdir)] if c.writes == "landlock" else []),
        *(option for path in c.reads for option in ("--read", path)),
        *(["--seccomp"] if c.filtered else []),
        *(["--reap", WAIT_STATUS_FILE] if c.reaping else []),
    ]
    command = [*launch_command(), *options, "--", *command] if options else command
    if c.prefix:
        confined = c.hide or c.frozen or c.writable
        blank = workdir / BLANK_FILE  # bound over each hidden file
        blank.touch()
        hider = hiding(c.prefix, [*c.hide, *c.covering], c.frozen, c.writable, str(blank))
        command = [*(hider if confined else c.prefix), *command]
    return command, env


def _execute(
    c: Confinement,
    command: list[str],
    env: dict[str, str],
    workdir: Path,
    folder: int,
    timeout: float,
) -> _Ended:
    """The third stage: the snippet run and watched under one deadline, everything it started
    ended, and what it left read back (from `folder`, the run's folder opened before it)."""
    started = time.monotonic()
    deadline = started + timeout  # then the reaper's bound: one deadline for the whole call
    # the streams are read back from these files, opened here: whatever the snippet puts
    # under their names is never read
    with open(workdir / "stdout", "w+b") as out, open(workdir / "stderr", "w+b") as err:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=workdir,
            env=env,
            start_new_session=True,
            preexec_fn=c.limits,
        )
        timed_out, exceeded = False, None
        while proc.poll() is None and not exceeded:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=min(WATCH_INTERVAL_S, left))
            if c.watching and proc.returncode is None:
                exceeded = over_caps(proc.pid, c.memory_mb)
        if proc.returncode is None and c.reaping:
            proc.terminate()  # the reaper kills what the snippet started, setsid or not
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=launcher.REAP_DEADLINE_S)
        # Whatever is left of the group (the snippet's own children too) goes now.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=launcher.REAP_DEADLINE_S)
        elapsed = time.monotonic() - started
        returncode = -signal.SIGKILL if proc.returncode is None else proc.returncode
        # the snippet's own status, from whoever stayed behind to end its processes
        with contextlib.suppress(ValueError):
            status = int(read_regular(folder, WAIT_STATUS_FILE, 32) or b"")
            returncode = os.waitstatus_to_exitcode(status)
        stdout, stdout_cut = captured(out.fileno(), OUTPUT_LIMIT_BYTES)
        stderr, stderr_cut = captured(err.fileno(), OUTPUT_LIMIT_BYTES)
        flooded = any(
            os.fstat(stream.fileno()).st_size >= FILE_SIZE_LIMIT_BYTES for stream in (out, err)
        )
    environment: SnippetEnvironment = {}
    with contextlib.suppress(ValueError, UnicodeDecodeError):
        reported = json.loads(
            read_regular(folder, "environment.json", ENVIRONMENT_LIMIT_BYTES) or b"{}"
        )
        if isinstance(reported, dict):
            environment = cast(SnippetEnvironment, reported)
    if not environment and stderr.startswith(launcher.FAILED_PREFIX):  # it never ran
        raise EnvironmentProblem(stderr.splitlines()[0], code="unconfined")
    ran = outcome(returncode, timed_out, stderr, flooded, exceeded)
    truncated: Truncated = {"stdout": stdout_cut, "stderr": stderr_cut}
    return _Ended(ran, returncode, timed_out, elapsed, stdout, stderr, truncated, environment)
