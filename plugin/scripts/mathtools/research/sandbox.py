"""Run a Python snippet in a separate, confined process and capture what happened.

The snippet runs in a fresh temporary folder (its cwd and HOME, removed afterwards, or by the next
run when compute.py was killed: workdirs.py) with:
  - a wall-time limit: everything it started is killed when it runs out. Where the kernel lets us
    make namespaces (`unshare`, namespaces.py), the snippet runs in its own PID namespace, so every
    process it starts (even one that left its process group with `setsid`) ends with it, at the
    limit or when it finishes; elsewhere confine.py's reaper, a child subreaper left outside the
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
    kernel has it (landlock.py, applied last by confine.py, as Landlock forbids the mounts below;
    with truncation, device ioctls, signals and abstract Unix sockets kept inside too where its
    ABI has them), else in a mount namespace where every mount but the folder's is read-only (the
    namespace's own /proc excepted: unshare must write the nested namespace's uid map), else not
    at all (confinement.py finds which). FILESYSTEM_VARIABLE forces one of them, for tests and
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
(confinement.needs_allowance), the run is refused unless the caller allows it
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
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import cast

from ..core import BadInput, EnvironmentProblem, is_digits
from . import confine, landlock, workdirs
from .confinement import FILESYSTEM_VARIABLE, filesystem_mode, launcher, seccomp_works
from .namespaces import can_hide_files, hiding, namespace_prefix
from .runresult import RunResult, SnippetEnvironment

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MEMORY_MB = 2048
MAX_TIMEOUT_S = 86400.0  # a day: longer is a mistake, and beyond any rlimit's range
MIN_MEMORY_MB, MAX_MEMORY_MB = 64, 2**20  # Python needs 64 MB to start; 1 TiB bounds RLIMIT_AS
PROCESS_LIMIT = 64  # processes (threads count too) a run may have at once
WATCH_INTERVAL_S = 0.1  # how often the run's processes, memory and wall time are checked
ENVIRONMENT_LIMIT_BYTES = 2**20  # the runner's environment.json and wait status: far less
# What every snippet may read beside its interpreter's folders, its own and the files its caller
# names (Landlock): programs, shared libraries and the loader's cache, time zones, locales, the
# CPU and memory facts numeric libraries ask about, random devices. Never a home folder, /etc as
# a whole (/etc/shadow) or another process's /proc.
SYSTEM_READS = (
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
    "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/os-release",
    "/dev/urandom", "/dev/random", "/proc/cpuinfo", "/proc/meminfo", "/sys/devices/system/cpu",
)  # fmt: skip
# Asks an interpreter (run with -I, as the snippet's) where it and its libraries live.
INTERPRETER_PATHS = (
    "import json, os, sys; print(json.dumps([os.path.realpath(sys.executable), sys.prefix, "
    "sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, *sys.path]))"
)
OUTPUT_LIMIT_BYTES = 200_000  # per stream kept in the result
FILE_SIZE_LIMIT_BYTES = 64 * 2**20  # any one file the snippet writes, its output included
# Libraries whose versions are reported when installed (the snippet may use any of them).
REPORTED_PACKAGES = ("sympy", "mpmath", "numpy", "scipy", "networkx", "gmpy2")
GUARD_FOLDER = "guard"  # in the workdir; holds the sitecustomize.py below, on PYTHONPATH
# the snippet's wait status, written by whoever stays behind to end its processes: the runner as
# PID 1 of a PID namespace, else confine.py's reaper
WAIT_STATUS_FILE = "wait-status"
# an empty file in the workdir, bound over each hidden file: under Landlock, reading a file there
# is refused (its inode has no rule), where /dev/null's would read as empty
BLANK_FILE = ".hidden"
UNCONFINED = (
    "nothing here keeps a snippet from writing outside its folder (neither Landlock nor user and "
    f"mount namespaces are available, or {FILESYSTEM_VARIABLE}=none), so it did not run; to run "
    'snippets unconfined anyway, set "allow_unsandboxed_compute": true in .math/config.json'
)
UNSHIELDED = (
    "this machine gives a snippet no user, mount and PID namespaces of its own (no `unshare`, or "
    "the kernel refuses them), so it could read other processes' environments (API keys among "
    "them) and the workspace's .math/config.json; it did not run; to run snippets here anyway, "
    'with the protections that remain, set "allow_unsandboxed_compute": true in .math/config.json'
)
SECCOMP_PROTECTION = (
    "seccomp: no chmod, chown, utime or xattr call, no socket, no io_uring, ptrace or "
    "process_vm call"
)
REAPER_PROTECTION = "reaper: a subreaper outside the sandbox kills every process the snippet left"

# The fallback network guard, a sitecustomize module: Python imports it at startup from
# PYTHONPATH, so it reaches the interpreters the snippet starts as well as the snippet's own.
# An audit hook sees the C socket layer (`_socket` too) and cannot be removed once added.
NETWORK_GUARD = """\
import sys


def _refuse_network(event, args):
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        if getattr(args[0], "family", None) == 1:  # AF_UNIX: a local pipe, not the network
            return
    elif not event.startswith(("socket.getaddrinfo", "socket.gethostby", "socket.getnameinfo")):
        return
    raise PermissionError("network access is disabled in the math computation sandbox")


sys.addaudithook(_refuse_network)
"""

# Runs inside the child: stays behind as the namespace's init when it is PID 1, reports the
# environment, installs the network guard if asked, then runs the snippet as __main__ so that an
# exception prints its usual traceback and exits 1.
RUNNER = """\
import json, os, platform, re, runpy, sys

if os.getpid() == 1:
    # PID 1 of the snippet's own PID namespace. The snippet must not be PID 1 (the kernel drops
    # signals PID 1 has no handler for, SIGXCPU included), so this process forks it, reaps
    # orphans, and exits when it ends, which ends every process left in the namespace.
    snippet = os.fork()
    if snippet:
        while True:
            pid, status = os.wait()
            if pid == snippet:
                break
        # a new file: whatever the snippet left under its name (a FIFO) is not waited on
        try:
            os.unlink("__WAIT_STATUS_FILE__")
        except OSError:
            pass
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            os.write(os.open("__WAIT_STATUS_FILE__", flags, 0o600), str(status).encode())
        except OSError:
            pass
        os._exit(0)

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
    runpy.run_path(os.path.join("__GUARD_FOLDER__", "sitecustomize.py"))
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
""".replace("__WAIT_STATUS_FILE__", WAIT_STATUS_FILE).replace("__GUARD_FOLDER__", GUARD_FOLDER)

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
        "SSL_CERT_FILE", "SSL_CERT_DIR",
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


def _user_processes() -> int | None:
    """How many processes (threads, as RLIMIT_NPROC counts them) this user runs now (Linux)."""
    uid, count = str(os.getuid()), 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not is_digits(entry):
            continue
        with contextlib.suppress(OSError):
            fields = dict(
                line.split(":", 1)
                for line in Path(f"/proc/{entry}/status").read_text().splitlines()
            )
            if fields["Uid"].split()[0] == uid:
                count += int(fields["Threads"])
    return count


@lru_cache(maxsize=8)
def _interpreter_paths(python: str) -> tuple[str, ...]:
    """Where `python` and the libraries it imports live (its prefixes, sys.path), asked once."""
    with contextlib.suppress(OSError, subprocess.SubprocessError, ValueError):
        asked = subprocess.run(
            [python, "-I", "-c", INTERPRETER_PATHS],
            capture_output=True,
            timeout=30,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
        )
        paths = json.loads(asked.stdout)
        return tuple(path for path in paths if isinstance(path, str) and path)
    return (os.path.dirname(os.path.realpath(python)),)


def readable_paths(python: Path | str, named: Iterable[Path | str] = ()) -> list[str]:
    """What a snippet run by `python` may read beside its own folder: SYSTEM_READS, the
    interpreter's folders and `named` (the files a request names). A folder of the interpreter
    that holds a home folder, the workspace or the whole file system is left out (a library
    there does not import; its secrets stay unread)."""
    guarded = {Path.home().resolve(), Path("/home"), Path("/root"), Path.cwd().resolve()}
    kept = []
    for path in _interpreter_paths(str(python)):
        resolved = Path(path).resolve()
        if not any(place.is_relative_to(resolved) for place in guarded):
            kept.append(str(resolved))
    return [*SYSTEM_READS, *dict.fromkeys(kept), *(str(Path(p).resolve()) for p in named)]


def _read_regular(folder: int, name: str, limit: int) -> bytes | None:
    """Up to `limit` + 1 bytes of the regular file `name` in the folder open as `folder`; None
    when it is anything else (a FIFO the snippet left there is refused, never waited on, and a
    symbolic link is not followed) or cannot be read."""
    try:
        fd = os.open(
            name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder
        )
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def _usage(root: int) -> tuple[int, int]:
    """The processes (threads, as RLIMIT_NPROC counts them) below `root` and the memory they
    hold (resident bytes)."""
    table = confine.processes()
    below = [table[pid] for pid in confine.descendants(root, table) if pid in table]
    page = os.sysconf("SC_PAGE_SIZE")
    return sum(p.threads for p in below), sum(p.resident_pages for p in below) * page


def _limit(
    memory_mb: int, timeout: float, processes: int | None, end_with_us: int
) -> Callable[[], None] | None:
    """preexec_fn for the child: memory, CPU time, processes, file size, core dumps (POSIX), and
    on Linux the signal `end_with_us` when this process ends (killed too): SIGKILL ends unshare,
    whose --kill-child then ends the PID namespace; SIGTERM tells confine.py's reaper to end what
    the snippet started."""
    try:
        import resource
    except ImportError:  # Windows
        return None

    def apply() -> None:
        if sys.platform.startswith("linux"):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(
                ctypes.c_ulong(confine.PR_SET_PDEATHSIG), ctypes.c_ulong(end_with_us), 0, 0, 0
            )
            if os.getppid() != parent:  # we ended before the signal was asked for
                os._exit(confine.FAILED)
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


def _captured(fd: int) -> tuple[str, bool]:
    """A stream's capture, from the file this process opened for it (whatever the snippet did
    to its name), cut at OUTPUT_LIMIT_BYTES."""
    data = os.pread(fd, OUTPUT_LIMIT_BYTES + 1, 0)
    truncated = len(data) > OUTPUT_LIMIT_BYTES
    return data[:OUTPUT_LIMIT_BYTES].decode("utf-8", errors="replace"), truncated


def _exceeded(root: int, memory_mb: int) -> str | None:
    """The outcome when the run's processes below `root` are more than PROCESS_LIMIT
    ("process_limit") or hold more than `memory_mb` between them ("memory"); else None."""
    count, resident = _usage(root)
    if count > PROCESS_LIMIT:
        return "process_limit"
    return "memory" if resident > memory_mb * 2**20 else None


def _outcome(
    returncode: int, timed_out: bool, stderr: str, flooded: bool, exceeded: str | None
) -> str:
    if exceeded:
        return exceeded
    if timed_out or returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "timeout"
    if returncode == -signal.SIGXFSZ or (returncode != 0 and flooded):
        # Python ignores SIGXFSZ: its write fails with EFBIG and the snippet dies of OSError
        return "output_limit"
    if returncode != 0 and any(
        sign in stderr for sign in ("MemoryError", "Cannot allocate memory", "bad_alloc")
    ):
        return "memory"
    if returncode < 0:
        return "killed"
    return "ok" if returncode == 0 else "error"


def _process_cap() -> int | None:
    """RLIMIT_NPROC for the snippet: the user's processes now plus PROCESS_LIMIT (the kernel counts
    every process of the user, not only the snippet's), within the current hard limit."""
    try:
        import resource
    except ImportError:
        return None
    running = _user_processes()
    if running is None:
        return None
    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    cap = running + PROCESS_LIMIT
    return cap if hard == resource.RLIM_INFINITY else min(cap, hard)


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
    processes = _process_cap()
    limits = _limit(memory_mb, timeout, processes, signal.SIGTERM if reaping else signal.SIGKILL)
    readable = list(readable)
    reads = readable_paths(python, readable) if writes == "landlock" else []
    watching = sys.platform.startswith("linux")  # the run's processes, from /proc
    folder = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # read back by fd
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
        if guarded:
            (workdir / GUARD_FOLDER).mkdir()
            (workdir / GUARD_FOLDER / "sitecustomize.py").write_text(NETWORK_GUARD)
            env["PYTHONPATH"] = str(workdir / GUARD_FOLDER)
        command = [
            str(python),
            "-I",
            "runner.py",
            "snippet.py",
            "guard" if guarded else "kernel",
            ",".join(packages),
        ]
        # confine.py last, after any mounts: Landlock and the filter forbid mounting
        options = [
            *(["--writes", str(workdir)] if writes == "landlock" else []),
            *(option for path in reads for option in ("--read", path)),
            *(["--seccomp"] if filtered else []),
            *(["--reap", WAIT_STATUS_FILE] if reaping else []),
        ]
        command = [*launcher(), *options, "--", *command] if options else command
        writable = [str(workdir.resolve())] if writes == "mount-namespace" else []
        if prefix:
            confined = hide or frozen or writable
            blank = workdir / BLANK_FILE  # bound over each hidden file
            blank.touch()
            hider = hiding(prefix, hide, frozen, writable, str(blank))
            command = [*(hider if confined else prefix), *command]
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
                preexec_fn=limits,
            )
            timed_out, exceeded = False, None
            while proc.poll() is None and not exceeded:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=min(WATCH_INTERVAL_S, left))
                if watching and proc.returncode is None:
                    exceeded = _exceeded(proc.pid, memory_mb)
            if proc.returncode is None and reaping:
                proc.terminate()  # the reaper kills what the snippet started, setsid or not
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=confine.REAP_DEADLINE_S)
            # Whatever is left of the group (the snippet's own children too) goes now.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=confine.REAP_DEADLINE_S)
            elapsed = time.monotonic() - started
            returncode = -signal.SIGKILL if proc.returncode is None else proc.returncode
            # the snippet's own status, from whoever stayed behind to end its processes
            with contextlib.suppress(ValueError):
                status = int(_read_regular(folder, WAIT_STATUS_FILE, 32) or b"")
                returncode = os.waitstatus_to_exitcode(status)
            stdout, stdout_cut = _captured(out.fileno())
            stderr, stderr_cut = _captured(err.fileno())
            flooded = any(
                os.fstat(stream.fileno()).st_size >= FILE_SIZE_LIMIT_BYTES for stream in (out, err)
            )
        environment: SnippetEnvironment = {}
        with contextlib.suppress(ValueError, UnicodeDecodeError):
            reported = json.loads(
                _read_regular(folder, "environment.json", ENVIRONMENT_LIMIT_BYTES) or b"{}"
            )
            if isinstance(reported, dict):
                environment = cast(SnippetEnvironment, reported)
        if not environment and stderr.startswith(confine.FAILED_PREFIX):  # it never ran
            raise EnvironmentProblem(stderr.splitlines()[0], code="unconfined")
    finally:
        os.close(folder)
        shutil.rmtree(workdir, ignore_errors=True)
    protections = [
        *(["network namespace"] if prefix else []),
        *(["PID namespace"] if in_pid_namespace else []),
        *(["mount namespace: " + ", ".join(hide) + " hidden"] if hide else []),
        *(["mount namespace: " + ", ".join(frozen) + " read-only"] if frozen else []),
        *(["mount namespace: only the snippet's folder writable"] if writable else []),
        *(landlock.protections(landlock.abi_version(), bool(reads)) if reads else []),
        *([SECCOMP_PROTECTION] if filtered else []),
        *([REAPER_PROTECTION] if reaping else []),
        *(
            [f"watch: at most {PROCESS_LIMIT} processes and {memory_mb} MB in the run"]
            if watching
            else []
        ),
        *(["python network guard"] if guarded else []),
        *(["RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE"] if limits else []),
        *(["RLIMIT_NPROC"] if limits and processes is not None and os.getuid() != 0 else []),
        "environment: an allow-list of variables, no secret",
    ]
    return {
        "outcome": _outcome(returncode, timed_out, stderr, flooded, exceeded),
        "exit_code": returncode if returncode >= 0 else None,
        "signal": signal.Signals(-returncode).name if returncode < 0 else None,
        "timed_out": timed_out,
        "wall_time_s": round(elapsed, 3),
        "stdout": stdout,
        "stderr": stderr,
        "truncated": {"stdout": stdout_cut, "stderr": stderr_cut},
        "limits": {"timeout_s": timeout, "memory_mb": memory_mb},
        "isolation": {
            "network": (
                "namespace"
                if prefix
                else "seccomp: no sockets"
                if filtered
                else "python-guard (best effort)"
            ),
            "memory": (
                f"RLIMIT_AS per process; the run ends past {memory_mb} MB resident across its "
                "processes"
                if watching
                else "RLIMIT_AS per process"
                if limits
                else "none"
            ),
            "processes": (
                "PID namespace: every process ends with the snippet"
                if in_pid_namespace
                else "reaper: every process it started, setsid or not, ends with the snippet"
                if reaping
                else "process group killed at the limit (a child that calls setsid escapes)"
            ),
            "process_count": (
                f"RLIMIT_NPROC: at most {PROCESS_LIMIT} more than the user's own"
                if processes is not None and os.getuid() != 0
                else "none from the kernel (it exempts root from RLIMIT_NPROC)"
                if processes is not None
                else "none from the kernel"
            )
            + (f"; the run ends past {PROCESS_LIMIT} processes and threads" if watching else ""),
            "files": (
                "readable: only the snippet's folder, its interpreter's folders, the system's "
                "programs and libraries" + "".join(f", {path}" for path in map(str, readable))
                if reads
                else "hidden from the snippet: "
                + ", ".join(hide)
                + "; every other file the user can read is readable"
                if hide
                else "readable: the snippet can read every file the user can"
                + ("" if in_pid_namespace else ", and every process's environment")
            ),
            "workspace": (
                "read-only: " + ", ".join(frozen)
                if frozen
                else "read-only: the snippet writes only in its temporary folder"
                if writes != "none"
                else "writable: the snippet can write every file the user can"
            ),
            "filesystem": writes,
            "metadata": (
                "seccomp: no file's permissions, owner, times or extended attributes change"
                if filtered
                else "unprotected: the snippet can change those of every file the user owns"
            ),
            "workdir": "temporary folder, removed afterwards",
            "protections": protections,
        },
        "environment": environment,
    }
