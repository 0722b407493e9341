"""The program between the sandbox and the snippet's interpreter: confines itself, then executes
the interpreter in its place, so that the confinement holds for the snippet and every process it
starts (neither Landlock nor a seccomp filter can be undone). The sandbox runs it as

    python -I -S -c BOOT SCRIPTS [--writes FOLDER [--read PATH]...] [--seccomp] [--reap STATUS]
        -- PROGRAM ARG...

(`launch_command()` in probes.py): `--writes` keeps writes beneath FOLDER (landlock.py), and with
`--read` reads beneath FOLDER and the PATHs (each `--read` names one), `--seccomp`
installs seccomp.py's filter, and `--reap` (where there is no PID namespace to end the snippet's
processes with it) first forks: this process stays behind outside the confinement as a child
subreaper, so that every process the snippet leaves, one that called setsid too, becomes its
child; when the snippet ends, or this process gets SIGTERM (the wall-time limit, or the end of
its parent, compute.py, killed or not), it kills all of them, writes the snippet's wait status
to STATUS and exits. Under Landlock ABI 6 the snippet
cannot signal it.

When a confinement cannot be applied, PROGRAM does not run: exit FAILED with one line on stderr
starting with FAILED_PREFIX. `--probe landlock|seccomp FOLDER` checks in FOLDER that one of them
really holds here (exit 0) or not (exit 1).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from . import landlock, seccomp

FAILED = 125  # the exit status when a confinement could not be applied
FAILED_PREFIX = "math sandbox: could not confine"
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
REAP_DEADLINE_S = 10.0  # killing what the snippet left takes far less; a bound, not a wait
PROBES: dict[str, Callable[[str], bool]] = {"landlock": landlock.probe, "seccomp": seccomp.probe}


class _Stopped(Exception):
    """SIGTERM reached the reaper while it waited for the snippet: the wall-time limit is over."""


_WAITING = [False]  # whether the reaper still waits for the snippet (SIGTERM ends the wait)


def _stop(signum: int, frame: object) -> None:
    if _WAITING[0]:
        raise _Stopped


class Process(NamedTuple):
    """One process as /proc/<pid>/stat shows it."""

    parent: int
    threads: int
    resident_pages: int


def processes() -> dict[int, Process]:
    """Every process now, from /proc (one read of each /proc/<pid>/stat)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isascii() or not entry.isdecimal():  # a process id, not "self"
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            with open(f"/proc/{entry}/stat", "rb") as handle:
                # after the command's ")": state is field 3, so field n is at n - 3
                fields = handle.read().rsplit(b")", 1)[1].split()
            found[int(entry)] = Process(int(fields[1]), int(fields[17]), int(fields[21]))
    return found


def descendants(root: int, table: dict[int, Process] | None = None) -> set[int]:
    """Every process below `root` in `table` (default: now), from /proc's parent links."""
    children: dict[int, list[int]] = {}
    for pid, process in (processes() if table is None else table).items():
        children.setdefault(process.parent, []).append(pid)
    found, frontier = set(), [root]
    while frontier:
        below = children.get(frontier.pop(), [])
        frontier += [pid for pid in below if pid not in found]
        found.update(below)
    return found


def kill_descendants() -> None:
    """SIGKILL every process below this one until none is left: each one killed hands its own
    children to this process (a subreaper), which kills and reaps them in turn."""
    deadline = time.monotonic() + REAP_DEADLINE_S
    while time.monotonic() < deadline:
        left = descendants(os.getpid())
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        if not left:
            return
        time.sleep(0.005)


def reap(status_file: str, start: Callable[[], None]) -> int:
    """Run `start` (confine and execute the snippet) in a child, as a subreaper; see the module
    docstring. Returns this process's exit status."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(ctypes.c_ulong(PR_SET_CHILD_SUBREAPER), ctypes.c_ulong(1), 0, 0, 0) != 0:
        error = ctypes.get_errno()
        return _failed("the snippet's processes", OSError(error, os.strerror(error)))
    # SIGTERM (the limit) or the end of compute.py, its parent, ends the wait
    _WAITING[0] = True
    signal.signal(signal.SIGTERM, _stop)
    libc.prctl(ctypes.c_ulong(PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGTERM), 0, 0, 0)
    child = os.fork()
    if child == 0:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            start()
        finally:
            os._exit(FAILED)
    status = None
    try:
        while status is None:
            pid, waited = os.wait()
            status = waited if pid == child else None
        _WAITING[0] = False
    except _Stopped:
        _WAITING[0] = False
    if status is None:  # the snippet first, so that its status is its own
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)
        status = os.waitpid(child, 0)[1]
    kill_descendants()
    # a new file: whatever the snippet left under its name (a FIFO) is not waited on
    with contextlib.suppress(OSError):
        os.unlink(status_file)
    with contextlib.suppress(OSError):
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        descriptor = os.open(status_file, flags, 0o600)
        os.write(descriptor, str(status).encode())
        os.close(descriptor)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def _failed(what: str, exc: OSError) -> int:
    sys.stderr.write(f"{FAILED_PREFIX} {what} ({exc}): it did not run\n")
    return FAILED


def confine_and_execute(
    writes: str | None, reads: Sequence[str] | None, filter_calls: bool, argv: Sequence[str]
) -> int:
    """Apply the confinements asked for, then execute `argv` in place of this process; returns
    FAILED (after one line on stderr) when one cannot be applied."""
    try:
        if writes is not None:
            landlock.restrict([writes], reads)
    except OSError as exc:
        return _failed("the snippet's writes with Landlock", exc)
    try:
        if filter_calls:
            seccomp.install()
    except OSError as exc:
        return _failed("the snippet's system calls with seccomp", exc)
    sys.stdout.flush()
    os.execvp(argv[0], list(argv))


def main(argv: Sequence[str]) -> int:
    if len(argv) == 3 and argv[0] == "--probe" and argv[1] in PROBES:
        return 0 if PROBES[argv[1]](argv[2]) else 1
    options, rest = list(argv), []
    if "--" in options:
        at = options.index("--")
        options, rest = options[:at], options[at + 1 :]
    writes = reap_status = None
    reads: list[str] | None = None
    filter_calls = False
    while options:
        name = options.pop(0)
        if name in ("--writes", "--reap") and options:
            value = options.pop(0)
            writes, reap_status = (value, reap_status) if name == "--writes" else (writes, value)
        elif name == "--read" and options:
            reads = [*(reads or []), options.pop(0)]
        elif name == "--seccomp":
            filter_calls = True
        else:
            rest = []
            break
    if not rest:
        sys.stderr.write(
            f"{FAILED_PREFIX}: usage: launcher.py [--writes FOLDER [--read PATH]...] [--seccomp] "
            "[--reap STATUS] -- PROGRAM ARG...\n"
        )
        return FAILED
    if reap_status is None:
        return confine_and_execute(writes, reads, filter_calls, rest)
    status_file = reap_status

    def start() -> None:
        confine_and_execute(writes, reads, filter_calls, rest)

    return reap(status_file, start)
