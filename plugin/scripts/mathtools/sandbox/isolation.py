"""What confined one snippet's run: the confinement run.py decided for it (Confinement) and how
the result names it (`isolation`, RunResult.isolation; run.py's module docstring says what each
protection does)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from . import landlock
from .runresult import Isolation
from .runwatch import PROCESS_LIMIT

SECCOMP_PROTECTION = (
    "seccomp: no chmod, chown, utime or xattr call, no socket, no io_uring, ptrace or "
    "process_vm call"
)
COVERED_PROTECTION = (
    "mount namespace: home folders and the workspace covered but for the interpreter's and the "
    "snippet's folders, and /etc's private files"
)
COVERED_FILES = (
    "readable: every file the user can read but in home folders and the workspace (only the "
    "interpreter's and the snippet's folders there) and /etc's private files"
)
REAPER_PROTECTION = "reaper: a subreaper outside the sandbox kills every process the snippet left"


@dataclass(frozen=True)
class Confinement:
    """What confines one run, decided before it starts (run._confine) and reported after it
    (`isolation`)."""

    prefix: tuple[str, ...] | None  # the unshare command, where namespaces are available
    writes: str  # filesystem_mode: landlock, mount-namespace or none
    in_pid_namespace: bool
    filtered: bool  # seccomp's filter
    guarded: bool  # the Python network guard, where nothing else stops sockets
    reaping: bool  # launcher.py's reaper, outside a PID namespace
    watching: bool  # the run's processes, from /proc
    hide: list[str]
    frozen: list[str]
    covering: list[str]
    writable: list[str]
    reads: list[str]  # Landlock's readable paths
    readable: list[str]  # the caller's
    processes: int | None  # RLIMIT_NPROC
    limits: Callable[[], None] | None  # the child's preexec_fn
    memory_mb: int


def isolation(c: Confinement) -> Isolation:
    """What confined the run, each as one phrase (run.run_sandboxed's last stage)."""
    protections = [
        *(["network namespace"] if c.prefix else []),
        *(["PID namespace"] if c.in_pid_namespace else []),
        *(["mount namespace: " + ", ".join(c.hide) + " hidden"] if c.hide else []),
        *([COVERED_PROTECTION] if c.covering else []),
        *(["mount namespace: " + ", ".join(c.frozen) + " read-only"] if c.frozen else []),
        *(["mount namespace: only the snippet's folder writable"] if c.writable else []),
        *(landlock.protections(landlock.abi_version(), bool(c.reads)) if c.reads else []),
        *([SECCOMP_PROTECTION] if c.filtered else []),
        *([REAPER_PROTECTION] if c.reaping else []),
        *(
            [f"watch: at most {PROCESS_LIMIT} processes and {c.memory_mb} MB in the run"]
            if c.watching
            else []
        ),
        *(["python network guard"] if c.guarded else []),
        *(["RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE"] if c.limits else []),
        *(["RLIMIT_NPROC"] if c.limits and c.processes is not None and os.getuid() != 0 else []),
        "environment: an allow-list of variables, no secret",
    ]
    return {
        "network": (
            "namespace"
            if c.prefix
            else "seccomp: no sockets"
            if c.filtered
            else "python-guard (best effort)"
        ),
        "memory": (
            f"RLIMIT_AS per process; the run ends past {c.memory_mb} MB resident across its "
            "processes"
            if c.watching
            else "RLIMIT_AS per process"
            if c.limits
            else "none"
        ),
        "processes": (
            "PID namespace: every process ends with the snippet"
            if c.in_pid_namespace
            else "reaper: every process it started, setsid or not, ends with the snippet"
            if c.reaping
            else "process group killed at the limit (a child that calls setsid escapes)"
        ),
        "process_count": (
            f"RLIMIT_NPROC: at most {PROCESS_LIMIT} more than the user's own"
            if c.processes is not None and os.getuid() != 0
            else "none from the kernel (it exempts root from RLIMIT_NPROC)"
            if c.processes is not None
            else "none from the kernel"
        )
        + (f"; the run ends past {PROCESS_LIMIT} processes and threads" if c.watching else ""),
        "files": (
            "readable: only the snippet's folder, its interpreter's folders, the system's "
            "programs and libraries" + "".join(f", {path}" for path in map(str, c.readable))
            if c.reads
            else COVERED_FILES + "".join(f"; hidden: {path}" for path in c.hide)
            if c.covering
            else "readable: every file the user can read; hidden: " + ", ".join(c.hide)
            if c.hide
            else "readable: the snippet can read every file the user can"
            + ("" if c.in_pid_namespace else ", and every process's environment")
        ),
        "workspace": (
            "read-only: " + ", ".join(c.frozen)
            if c.frozen
            else "read-only: the snippet writes only in its temporary folder"
            if c.writes != "none"
            else "writable: the snippet can write every file the user can"
        ),
        "filesystem": c.writes,
        "metadata": (
            "seccomp: no file's permissions, owner, times or extended attributes change"
            if c.filtered
            else "unprotected: the snippet can change those of every file the user owns"
        ),
        "workdir": "temporary folder, removed afterwards",
        "protections": protections,
    }
