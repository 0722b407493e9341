"""Reading and writing files: bounded reads with clear errors, atomic writes, and never replacing a
file this plugin did not write."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from .errors import BadInput, redact, shown
from .schemas import schema_errors


def atomic_write(path: Path, data: str | bytes, durable: bool = True) -> None:
    """Replace `path` with `data` in one step: readers see the old file or the new one, never a mix.

    The temporary file lives in the same folder (a rename across file systems is not atomic) and is
    flushed to disk before the rename, unless not `durable`: a file rewritten at every use, whose
    loss in a crash costs nothing, where an fsync's milliseconds matter (the rate limiter's). An
    existing file's permissions are kept; a new file gets those the umask allows, as open() would
    give it (not mkstemp's private 0600). Text replacing a file whose lines end in CRLF (a Windows
    editor's) gets CRLF too: our readers see LF either way, and the person's file keeps its line
    endings instead of changing on every line.
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
            if durable:
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


def universal_newlines(text: str) -> str:
    """`text` with CRLF and CR line ends as LF, as a file opened in text mode reads."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: Path | str, what: str = "file", regular: bool = False) -> str:
    """A UTF-8 text file, without the byte-order mark some Windows editors put first; a missing or
    unreadable one is BadInput naming `what` and the path. With `regular`, only a regular file is
    read: a FIFO, a device or a folder is BadInput at once (opening a FIFO would wait forever for
    a writer), as for a file the plugin reads by itself (.math/config.json)."""
    try:
        with _open(path, regular) as handle:
            data = handle.read(MAX_INPUT_BYTES + 1)  # /dev/zero, a FIFO: never unbounded
        if len(data) > MAX_INPUT_BYTES:
            raise too_large(f"{what} {shown(str(path))}")
        return universal_newlines(data.decode("utf-8-sig"))
    except FileNotFoundError:
        raise BadInput(f"{what} not found: {shown(str(path))}", code="file_not_found") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise BadInput(f"cannot read {what} {shown(str(path))}: {reason}", "unreadable") from None


def _open(path: Path | str, regular: bool) -> BinaryIO:
    if not regular:
        return open(path, "rb")
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(errno.EINVAL, "not a regular file")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


# Every input (a file, stdin) is read up to this size: /dev/zero as an input ends with BadInput.
MAX_INPUT_BYTES = 32 << 20


# The first key of every JSON object an --out FILE receives: only a file carrying it (one this
# plugin wrote) may be replaced by a later --out. Documented in schemas/README.md.
OUTPUT_MARKER = ("written_by", "math")
# An earlier output larger than this is not read to look for the marker (it is refused instead).
MAX_MARKED_OUTPUT_BYTES = 64 << 20


def check_writable(path: str, inputs: Iterable[str] = ()) -> None:
    """BadInput naming `path` unless a file can be written there (an --out FILE) without losing
    anything: not a folder or a device, not one of the call's `inputs`, not the workspace's
    .math/config.json, and not an existing file other than an empty one or an earlier output of
    this plugin (see _replaceable): a package.json or a PROBLEM.md is kept."""
    target = Path(path)
    if target.is_dir():
        raise BadInput(f"--out {shown(path)} is a folder, not a file", code="cannot_write")
    if target.name == "config.json" and target.resolve().parent.name == ".math":
        raise BadInput(
            f"--out {shown(path)} is the workspace configuration: write the output elsewhere",
            code="cannot_write",
        )
    if target.exists():
        if not target.is_file():
            raise BadInput(f"--out {shown(path)} is not a regular file", code="cannot_write")
        if any(Path(name).is_file() and target.samefile(name) for name in inputs):
            raise BadInput(
                f"--out {shown(path)} is also an input of this call: write the output elsewhere",
                code="cannot_write",
            )
        if not _replaceable(target):
            raise BadInput(
                f"--out {shown(path)} exists and was not written by this plugin; it would be "
                "lost: write the output elsewhere",
                code="cannot_write",
            )
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # atomic_write creates the missing folders below it
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise BadInput(
            f"cannot write --out {shown(path)}: {shown(str(folder))} is not a writable folder",
            "cannot_write",
        )


def _replaceable(path: Path) -> bool:
    """Is `path` empty, or an earlier output of this plugin: a JSON object with OUTPUT_MARKER, or
    a candidate list (schemas/candidates.schema.json)?"""
    try:
        if path.stat().st_size > MAX_MARKED_OUTPUT_BYTES:
            return False
        content = path.read_bytes()
    except OSError:
        return False
    if not content.strip():
        return True
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        return False
    key, value = OUTPUT_MARKER
    if isinstance(data, list) and data:
        # refine.py keep's candidate list: an array carries no marker, so its schema says it
        return not schema_errors("candidates", data)
    return isinstance(data, dict) and data.get(key) == value


def marked(data: object) -> object:
    """`data` as an --out file receives it: an object gets OUTPUT_MARKER as its first key."""
    if not isinstance(data, dict):
        return data
    key, value = OUTPUT_MARKER
    return {key: value, **{k: v for k, v in data.items() if k != key}}


def dumps(data: object) -> str:
    """The one JSON encoding used everywhere: stable key order, UTF-8, indented; a secret a
    service echoed into its data is redacted."""
    return redact(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"


def write_file(path: str | Path, text: str) -> None:
    """Write a file the caller named (--out, a search folder's files); one that cannot be written
    is BadInput naming it, not an internal error."""
    try:
        atomic_write(Path(path), text)
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror or exc}", code="cannot_write") from None


def read_source(source: str, what: str = "input", regular: bool = False) -> str:
    """The text of a file, or of stdin when `source` is "-", at most MAX_INPUT_BYTES; BadInput
    naming what was unreadable."""
    if source == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise too_large(f"{what} on stdin")
        try:
            return universal_newlines(data.decode("utf-8-sig"))
        except UnicodeDecodeError:
            raise BadInput(f"{what} on stdin is not UTF-8 text", code="unreadable") from None
    return read_text(source, what, regular)


def read_json(source: str, what: str = "input", regular: bool = False) -> Any:
    """Read JSON from a path or '-' (stdin); bad JSON is BadInput naming the line. `regular`: as
    read_text's."""
    text = read_source(source, what, regular)
    name = "stdin" if source == "-" else shown(source)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"{what} {name} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            code="bad_json",
        ) from None
    except (ValueError, RecursionError):  # a 5,000-digit number; arrays nested 100,000 deep
        raise BadInput(
            f"{what} {name} is JSON we do not take: a number of over 4,300 digits or nesting "
            "thousands of levels deep",
            code="bad_json",
        ) from None


def too_large(what: str) -> BadInput:
    return BadInput(f"{what} is larger than {MAX_INPUT_BYTES >> 20} MB", code="too_large")


def numbered_lines(source: str, what: str) -> list[tuple[int, str]]:
    """The non-empty, non-comment lines of a path or '-' (stdin), stripped, with their numbers."""
    lines = (line.strip() for line in read_source(source, what).splitlines())
    return [(n, line) for n, line in enumerate(lines, 1) if line and not line.startswith("#")]


def resolved(path: Path) -> Path:
    """`path` with its links followed; a symlink loop is BadInput naming it (RuntimeError or
    OSError, by Python version)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        raise BadInput(f"{path}: a symbolic link loop, or unreadable", code="unreadable") from None


def distinct_outputs(outputs: dict[str, str | None]) -> None:
    """BadInput when two output options (--fix, --report, --out) name the same file: the later
    write would silently replace the earlier."""
    seen: dict[Path, str] = {}
    for option, name in outputs.items():
        if not name:
            continue
        target = resolved(Path(name))
        if target in seen:
            raise BadInput(
                f"{seen[target]} and {option} name the same file {name}: give each its own",
                code="usage",
            )
        seen[target] = option
