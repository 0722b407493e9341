"""Writing files so that nothing is ever half-written or lost to a concurrent writer."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def atomic_write(path: Path, data: str | bytes) -> None:
    """Replace `path` with `data` in one step: readers see the old file or the new one, never a mix.

    The temporary file lives in the same folder (a rename across file systems is not atomic) and is
    flushed to disk before the rename. An existing file's permissions are kept; a new file gets
    those the umask allows, as open() would give it (not mkstemp's private 0600). Text replacing a
    file whose lines end in CRLF (a Windows editor's) gets CRLF too: our readers see LF either
    way, and the person's file keeps its line endings instead of changing on every line.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        if _ends_lines_with_crlf(path):
            data = data.replace("\r\n", "\n").replace("\n", "\r\n")
        payload = data.encode("utf-8")
    else:
        payload = data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _ends_lines_with_crlf(path: Path) -> bool:
    """Does the existing file at `path` end its first line with CRLF?"""
    try:
        with open(path, "rb") as handle:
            return handle.readline(1 << 16).endswith(b"\r\n")
    except OSError:  # absent, a folder, unreadable: nothing to keep
        return False


def _umask() -> int:
    # The only portable way to read the umask is to set it; set it straight back.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def locked(path: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold an exclusive cross-process lock for `path` (on the side file `<path>.lock`); a writer
    waits MATH_LOCK_TIMEOUT seconds for another process's lock before giving up clearly."""
    from filelock import FileLock, Timeout

    from .cli import EnvironmentProblem
    from .config import lock_timeout

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(path) + ".lock", timeout=lock_timeout() if timeout is None else timeout)
    try:
        with lock:
            yield
    except Timeout:
        raise EnvironmentProblem(
            f"another process has held the lock on {path} for over {lock.timeout:g} s; "
            "try again once it has finished",
            code="locked",
        ) from None


def universal_newlines(text: str) -> str:
    """`text` with CRLF and CR line ends as LF, as a file opened in text mode reads."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: Path | str, what: str = "file") -> str:
    """A UTF-8 text file, without the byte-order mark some Windows editors put first; a missing or
    unreadable one is BadInput naming `what` and the path."""
    from .cli import MAX_INPUT_BYTES, BadInput, shown, too_large

    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_INPUT_BYTES + 1)  # /dev/zero, a FIFO: never unbounded
        if len(data) > MAX_INPUT_BYTES:
            raise too_large(f"{what} {shown(str(path))}")
        return universal_newlines(data.decode("utf-8-sig"))
    except FileNotFoundError:
        raise BadInput(f"{what} not found: {shown(str(path))}", code="file_not_found") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise BadInput(f"cannot read {what} {shown(str(path))}: {reason}", "unreadable") from None
