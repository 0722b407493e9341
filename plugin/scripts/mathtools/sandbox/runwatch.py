"""Watching a snippet's run from outside (run.py): how many processes it has and how much
memory they hold, read from /proc, with the caps past which the run is ended, RLIMIT_NPROC's
value, and reading back what the run left in its folder without ever waiting on it."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from ..core import is_digits
from . import launcher

PROCESS_LIMIT = 64  # processes (threads count too) a run may have at once
WATCH_INTERVAL_S = 0.1  # how often the run's processes, memory and wall time are checked


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


def read_regular(folder: int, name: str, limit: int) -> bytes | None:
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


def usage(root: int) -> tuple[int, int]:
    """The processes (threads, as RLIMIT_NPROC counts them) below `root` and the memory they
    hold (resident bytes)."""
    table = launcher.processes()
    below = [table[pid] for pid in launcher.descendants(root, table) if pid in table]
    page = os.sysconf("SC_PAGE_SIZE")
    return sum(p.threads for p in below), sum(p.resident_pages for p in below) * page


def over_caps(root: int, memory_mb: int) -> str | None:
    """The outcome when the run's processes below `root` are more than PROCESS_LIMIT
    ("process_limit") or hold more than `memory_mb` between them ("memory"); else None."""
    count, resident = usage(root)
    if count > PROCESS_LIMIT:
        return "process_limit"
    return "memory" if resident > memory_mb * 2**20 else None


def process_cap() -> int | None:
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


def captured(fd: int, limit: int) -> tuple[str, bool]:
    """A stream's capture, from the file this process opened for it (whatever the snippet did
    to its name), cut at `limit` bytes."""
    data = os.pread(fd, limit + 1, 0)
    truncated = len(data) > limit
    return data[:limit].decode("utf-8", errors="replace"), truncated
