"""The command line every script shares: argument parsing, running a script's main, and output.

Every error is printed as one line of JSON on stdout, `{"error": {"code": ..., "message": ...}}`,
never as a traceback; the exit codes are errors.py's.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, overload

from .core import (
    EXIT_BAD_INPUT,
    EXIT_ENVIRONMENT,
    EXIT_INTERNAL,
    EXIT_OK,
    BadInput,
    MathError,
    check_writable,
    dumps,
    environment,
    marked,
    numbered_lines,
    printable,
    read_source,
    redact,
    shown,
    write_file,
)

if TYPE_CHECKING:
    from .core import SearchResult

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


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports usage errors as our one-line JSON error (exit 2), and prints the
    script's docstring (its `description`) as written: examples and tables keep their lines."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise BadInput(f"{self.prog}: {message} (see --help)", code="usage")

    def add_commands(self) -> argparse._SubParsersAction[ArgumentParser]:
        """Subcommands, stored in `args.command`. A missing one is reported by parse_args, after
        unknown options (argparse's required=True would report it first and hide them)."""
        self._commands = self.add_subparsers(dest="command", metavar="COMMAND")
        return self._commands

    # argparse's own signature is overloaded on a caller's namespace class; ours never takes one.
    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: None = None
    ) -> argparse.Namespace:
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


def lookup_options(no_cache_help: str = "do not answer from the cache") -> ArgumentParser:
    """A parent parser giving a look-up script's subcommand `--out FILE` (the full JSON there, a
    summary printed) and `--no-cache`."""
    parent = ArgumentParser(add_help=False)
    parent.add_argument("--out", metavar="FILE", help="write the full JSON here; print a summary")
    parent.add_argument("--no-cache", action="store_true", help=no_cache_help)
    return parent


def _named_files(parsed: argparse.Namespace, exclude: str) -> list[str]:
    """Every argument value (lists too) other than `exclude`: the files the call may read."""
    values = []
    for name, value in vars(parsed).items():
        if name != exclude:
            values += value if isinstance(value, list) else [value]
    return [value for value in values if isinstance(value, str) and value not in ("", "-")]


def print_error(code: str, message: str) -> None:
    message = printable(redact(message))
    print(json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False), flush=True)


def run(main: Callable[[Sequence[str]], int | None], argv: Sequence[str] | None = None) -> NoReturn:
    """Run a script's main(argv) and turn every failure into a one-line JSON error and exit code."""
    argv = sys.argv[1:] if argv is None else argv
    try:
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


def emit(data: object, out: str | None = None, summary: Iterable[str] = ()) -> None:
    """Print `data` as JSON; with `out`, write it to that file and print only the summary lines
    (not the path: the caller named it)."""
    if out is None:
        sys.stdout.write(dumps(data))
        return
    write_file(out, dumps(marked(data)))
    for line in summary:
        sys.stdout.write(line + "\n")


def emit_search_result(result: SearchResult, query_line: str, out: str | None) -> None:
    """A look-up script's answer: the result carrying its call as a query line (what the script
    wrote with search/querylines.query_line, and lit_update.py record-run stores as the run's
    query), emitted as emit() does."""
    result.query_line = query_line
    emit(result.to_dict(), out, result.summary_lines())


def acknowledge(data: object) -> None:
    """Print as ONE line of JSON what the model reads whole at each call: an acknowledgement
    after a call that stored or wrote something it gave (ids and counts, never its own input
    echoed), the research loop's next step, a computation's run."""
    sys.stdout.write(redact(json.dumps(data, ensure_ascii=False)) + "\n")


def read_items(
    source: str, check: Callable[[str], object], what: str = "input", split: bool = False
) -> list[str]:
    """The items of numbered_lines(source) (each line's words, comma or space separated, when
    `split`), each passed to `check`. An item `check` refuses (BadInput) is named by its line
    number, never quoted: a file given by mistake (a config holding a key, /proc/self/environ)
    is not echoed back."""
    items = []
    for number, line in numbered_lines(source, what):
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


@overload
def text_arg(value: str) -> str: ...
@overload
def text_arg(value: None) -> None: ...
def text_arg(value: str | None) -> str | None:
    """An option's text as given, or read from stdin ('-') or a file ('@FILE'): long or multi-line
    text (LaTeX especially) then needs no shell quoting."""
    if value is None or (value != "-" and not value.startswith("@")):
        return value
    return read_source("-" if value == "-" else value[1:], "file")
