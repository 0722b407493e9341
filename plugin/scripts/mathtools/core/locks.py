"""Cross-process locks: one writer at a time for a file, across every script running at once."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from .config import lock_timeout
from .errors import EnvironmentProblem


def lock_file(path: Path) -> Path:
    """Where the lock for `path` lives: for a file of a problem folder (`.math/problems/<slug>/`)
    in `.math/.locks/`, so that the problem folder holds only the research's own files; for any
    other file the side file `<path>.lock`."""
    absolute = path.absolute()
    for parent in absolute.parents:
        if parent.name == "problems" and parent.parent.name == ".math":
            relative = absolute.relative_to(parent.parent)
            return parent.parent / ".locks" / ("__".join(relative.parts) + ".lock")
    return Path(str(path) + ".lock")


@contextlib.contextmanager
def locked(path: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold an exclusive cross-process lock for `path` (on the file `lock_file(path)` names); a
    writer waits MATH_LOCK_TIMEOUT seconds for another process's lock before giving up clearly."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    side = lock_file(path)
    side.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(side), timeout=lock_timeout() if timeout is None else timeout)
    try:
        with lock:
            yield
    except Timeout:
        raise EnvironmentProblem(
            f"another process has held the lock on {path} for over {lock.timeout:g} s; "
            "try again once it has finished",
            code="locked",
        ) from None


@contextlib.contextmanager
def held_if_free(path: Path) -> Iterator[bool]:
    """The lock for `path` (lock_file) if no process holds it now, without waiting: yields
    whether this process holds it, until the block ends."""
    side = lock_file(Path(path))
    side.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(side), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        yield False
        return
    try:
        yield True
    finally:
        lock.release()
