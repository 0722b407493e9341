"""What every script shares at the command line: errors, exit codes and JSON output.

Exit codes (documented in the README, relied on by the agents):
  0  success
  1  a `validate` or `check` found violations (listed in the JSON output)
  2  bad input: arguments, files, ids, JSON the caller gave, an --out that cannot be written,
     a request the service rejected (HTTP 400)
  3  a service still failing after the bounded retries, or answering malformed data
  4  the environment: a contract variable out of range, dependencies could not be installed, a
     tool is missing, the cache folder is unusable, another process keeps a file locked
  5  an internal error (a bug: set MATH_DEBUG=1 to see the traceback)

Every error is printed as one line of JSON on stdout, `{"error": {"code": ..., "message": ...}}`,
never as a traceback.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_BAD_INPUT = 2
EXIT_SERVICE = 3
EXIT_ENVIRONMENT = 4
EXIT_INTERNAL = 5

# Any input (a file, stdin) is read up to this size: /dev/zero as an input ends with BadInput.
MAX_INPUT_BYTES = 32 << 20
# A file-system error about a path the caller named is bad input; any other is the environment.
_BAD_PATH_ERRNOS = frozenset(
    {
        errno.ENAMETOOLONG,
        errno.ENOENT,
        errno.ENOTDIR,
        errno.EISDIR,
        errno.ELOOP,
        errno.EACCES,
        errno.EPERM,
        errno.EINVAL,
        errno.EEXIST,
    }
)


# Values never to be printed (an API key), registered where they are read (config.py): every
# error line and stderr note passes through redact(), whatever a service echoed back.
_SECRETS: set[str] = set()
REDACTED = "[redacted]"


def keep_secret(value: str) -> None:
    _SECRETS.add(value)


def redact(text: str) -> str:
    for secret in _SECRETS:
        text = text.replace(secret, REDACTED)
    return text


class MathError(Exception):
    """An error we expect and explain; `code` is a short machine-readable name."""

    exit_code = EXIT_INTERNAL
    default_code = "error"

    def __init__(self, message: str, code: str | None = None):
        message = redact(message)  # a service may have echoed a secret into what we quote
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code


class BadInput(MathError):
    exit_code = EXIT_BAD_INPUT
    default_code = "bad_input"


class ServiceError(MathError):
    exit_code = EXIT_SERVICE
    default_code = "service_unavailable"


class EnvironmentProblem(MathError):
    exit_code = EXIT_ENVIRONMENT
    default_code = "environment"


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports usage errors as our one-line JSON error (exit 2), and prints the
    script's docstring (its `description`) as written: examples and tables keep their lines."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise BadInput(f"{self.prog}: {message} (see --help)", code="usage")

    def add_commands(self) -> argparse._SubParsersAction:
        """Subcommands, stored in `args.command`. A missing one is reported by parse_args, after
        unknown options (argparse's required=True would report it first and hide them)."""
        self._commands = self.add_subparsers(dest="command", metavar="COMMAND")
        return self._commands

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        for number, arg in enumerate(sys.argv[1:] if args is None else args, 1):
            if not printable(arg) == arg:  # bytes that are not UTF-8 arrive as lone surrogates
                raise BadInput(f"argument {number} is not valid UTF-8 text", code="bad_argument")
        parsed = super().parse_args(args, namespace)
        commands = getattr(self, "_commands", None)
        if commands is not None and parsed.command is None:
            self.error(f"choose a command: {', '.join(commands.choices)}")
        if getattr(parsed, "out", None):
            # before any work whose result would then be lost
            check_writable(parsed.out, _named_files(parsed, exclude="out"))
        return parsed


def run_store_option() -> ArgumentParser:
    """A parent parser giving a subcommand `--db`: the run store (config.literature_db resolves
    it: --db, else $MATH_LITERATURE_DB, else .math/literature.db)."""
    parent = ArgumentParser(add_help=False)
    parent.add_argument(
        "--db", help="the run store (default: $MATH_LITERATURE_DB, else .math/literature.db)"
    )
    return parent


def _named_files(parsed: argparse.Namespace, exclude: str) -> list[str]:
    """Every argument value (lists too) other than `exclude`: the files the call may read."""
    values = []
    for name, value in vars(parsed).items():
        if name != exclude:
            values += value if isinstance(value, list) else [value]
    return [value for value in values if isinstance(value, str) and value not in ("", "-")]


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


def shown(text: str, limit: int = 200) -> str:
    """`text` (a path, an argument) as an error message quotes it: at most `limit` characters,
    and bytes that are not UTF-8 (they reach argv as lone surrogates) escaped."""
    text = str(text)
    if len(text) > limit:
        text = f"{text[: limit // 2]}...({len(text)} characters)...{text[-limit // 4 :]}"
    return printable(text)


def printable(text: str) -> str:
    """`text` with lone surrogates (undecodable bytes of argv or a file name) as backslash escapes:
    printing it never fails."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


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
        from .schemas import errors

        return not errors("candidates", data)
    return isinstance(data, dict) and data.get(key) == value


def marked(data: Any) -> Any:
    """`data` as an --out file receives it: an object gets OUTPUT_MARKER as its first key."""
    if not isinstance(data, dict):
        return data
    key, value = OUTPUT_MARKER
    return {key: value, **{k: v for k, v in data.items() if k != key}}


def dumps(data: Any) -> str:
    """The one JSON encoding used everywhere: stable key order, UTF-8, indented; a secret a
    service echoed into its data is redacted."""
    return redact(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"


def print_error(code: str, message: str) -> None:
    message = printable(redact(message))
    print(json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False), flush=True)


def run(main: Callable[[Sequence[str]], int | None], argv: Sequence[str] | None = None) -> NoReturn:
    """Run a script's main(argv) and turn every failure into a one-line JSON error and exit code."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        from .config import environment

        environment()  # every variable checked once, before any work: one line naming a bad one
        status = main(argv) or EXIT_OK
    except MathError as exc:
        print_error(exc.code, exc.message)
        status = exc.exit_code
    except KeyboardInterrupt:
        print_error("interrupted", "interrupted")
        status = 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); nothing left to say.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = EXIT_OK
    except OSError as exc:
        # A path no check foresaw (60,000 characters, a loop of links, a full disk): the file
        # system's word, with the path shortened, and no traceback.
        bad_path = exc.errno in _BAD_PATH_ERRNOS
        where = f": {shown(exc.filename)}" if exc.filename else ""
        print_error("bad_path" if bad_path else "os_error", f"{exc.strerror or exc}{where}")
        status = EXIT_BAD_INPUT if bad_path else EXIT_ENVIRONMENT
    except Exception as exc:
        if os.environ.get("MATH_DEBUG"):
            import traceback

            traceback.print_exc()
        print_error(
            "internal_error",
            f"{type(exc).__name__}: {exc} (a bug in math; MATH_DEBUG=1 shows a traceback)",
        )
        status = EXIT_INTERNAL
    sys.stdout.flush()
    raise SystemExit(status)


def emit(data: Any, out: str | None = None, summary: Iterable[str] = ()) -> None:
    """Print `data` as JSON; with `out`, write it to that file and print only the summary lines
    (not the path: the caller named it)."""
    if out is None:
        sys.stdout.write(dumps(data))
        return
    write_file(out, dumps(marked(data)))
    for line in summary:
        sys.stdout.write(line + "\n")


def write_file(path: str | Path, text: str) -> None:
    """Write a file the caller named (--out, a run folder's files); one that cannot be written
    is BadInput naming it, not an internal error."""
    from .files import atomic_write

    try:
        atomic_write(Path(path), text)
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror or exc}", code="cannot_write") from None


def acknowledge(data: Any) -> None:
    """Print a short acknowledgement as ONE line of JSON: what the model reads back after a call
    that stored or wrote something it gave (ids and counts, never its own input echoed)."""
    sys.stdout.write(redact(json.dumps(data, ensure_ascii=False)) + "\n")


def read_source(source: str, what: str = "input") -> str:
    """The text of a file, or of stdin when `source` is "-", at most MAX_INPUT_BYTES; BadInput
    naming what was unreadable."""
    if source == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise too_large(f"{what} on stdin")
        from .files import universal_newlines

        try:
            return universal_newlines(data.decode("utf-8-sig"))
        except UnicodeDecodeError:
            raise BadInput(f"{what} on stdin is not UTF-8 text", code="unreadable") from None
    from .files import read_text

    return read_text(source, what)


def read_json(source: str, what: str = "input") -> Any:
    """Read JSON from a path or '-' (stdin); bad JSON is BadInput naming the line."""
    text = read_source(source, what)
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


def read_lines(source: str, what: str = "input") -> list[str]:
    """Non-empty, non-comment lines from a path or '-' (stdin)."""
    return [line for _, line in _numbered_lines(source, what)]


def read_items(
    source: str, check: Callable[[str], object], what: str = "input", split: bool = False
) -> list[str]:
    """The items of read_lines(source) (each line's words, comma or space separated, when
    `split`), each passed to `check`. An item `check` refuses (BadInput) is named by its line
    number, never quoted: a file given by mistake (a config holding a key, /proc/self/environ)
    is not echoed back."""
    items = []
    for number, line in _numbered_lines(source, what):
        for item in line.replace(",", " ").split() if split else [line]:
            try:
                check(item)
            except BadInput as exc:
                name = "stdin" if source == "-" else shown(source)
                raise BadInput(
                    f"{what} {name} line {number}: not valid ({exc.code}); the file must hold "
                    "one id a line",
                    code=exc.code,
                ) from None
            items.append(item)
    return items


def _numbered_lines(source: str, what: str) -> list[tuple[int, str]]:
    lines = (line.strip() for line in read_source(source, what).splitlines())
    return [(n, line) for n, line in enumerate(lines, 1) if line and not line.startswith("#")]


def text_arg(value: str | None) -> str | None:
    """An option's text as given, or read from stdin ('-') or a file ('@FILE'): long or multi-line
    text (LaTeX especially) then needs no shell quoting."""
    if value is None or (value != "-" and not value.startswith("@")):
        return value
    return read_source("-" if value == "-" else value[1:], "file")
