#!/usr/bin/env python3
"""Run a Python/SymPy snippet in a sandbox and record it in the problem's COMPUTATION.md.

The snippet runs in a separate process in a temporary folder, with a wall-time limit (in its own
PID namespace where the OS allows one, else a reaper kills what it left; it ends with this
script, killed or not), a memory limit per process and for the whole run, a cap on the run's
processes, no network and no socket (an empty network namespace, and a seccomp filter that also
refuses chmod, chown, utime, xattr and inode-flag calls on every file), the workspace's
.math/config.json and signing key hidden and the workspace read-only (where namespaces allow),
no API key or contact address in any environment the snippet can read (this script keeps only an
allow-list of variables), and bounded output; `isolation` in the output says which of these held
(`protections` names each). The snippet writes only in its temporary folder (Landlock, else a
mount namespace; `isolation.filesystem` says which) and, under Landlock, reads only its
interpreter, the system's libraries, that folder and the files --read names. Where neither is
available, or there are no user, mount and PID namespaces (no `unshare`), the run is refused
(exit 4) unless .math/config.json has "allow_unsandboxed_compute": true. The result carries
stdout, stderr, the exit status, the outcome (ok, error, timeout, memory, process_limit, killed,
output_limit) and the library versions the snippet saw. Unless --no-record, code, output and
environment are appended to COMPUTATION.md under the PROOF.md request the run answers, with a
run record (digests of the code and output, marked with the workspace's signing key, which the
snippet cannot read where it is hidden) in computations/runs.jsonl: only a recorded run answers a
request.

SymPy is installed into the plugin's environment on the first computation
(requirements-compute.txt); --python runs the snippet with another interpreter instead (one with
Sage, say) and installs nothing.

subcommands:
  run CODE               CODE is a file, or - for stdin; --request N must be a `### Request N`
                         of PROOF.md
  interpret N --text T   write computation N's Interpretation (COMPUTATION.md's status is
                         `interpreting` until every run has one); --refutes STEPS (or none)
                         adds its **Refutes:** line, which steps of PROOF.md the output
                         refutes; with --result R and
                         --implication I also its row of the Summary for Proof Agent table;
                         with --strategy S --outcome O [--tags a,b] also the request's COMP
                         journal entry (I is its insight, T its reasoning)
  several in one call: each after `--and`, with its own CODE or N and options, the first's
  for those it does not give (--problem, --python, the limits, --tags); a list is printed,
  a refused one's error in its place (exit 2), the others run; a later run confined as the
  first was has "isolation": "as the first run's"

example:
  compute.py run check.py --request 2 --title "h(n) for n <= 50" --problem twin-primes

Exit codes: 0 the snippet ran (whatever its outcome: read `outcome`), 2 bad input, 4 environment
(the computation libraries could not be installed, or nothing here can confine the snippet's
writes or give it namespaces, and the workspace did not allow it), 5 internal error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import EXIT_BAD_INPUT, BadInput, ensure, extra_python, read_source  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.core import allow_unsandboxed_compute, math_dir, workspace_root  # noqa: E402
from mathtools.research import (  # noqa: E402
    KEY_FILE,
    add,
    add_arguments,
    check_entry,
    check_recordable,
    interpret,
    math_dir_of,
    parse_tags,
    record_computation,
    refuted_steps,
    resolve,
    signing_key,
)
from mathtools.sandbox import (  # noqa: E402
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT_S,
    check_limits,
    interpreter,
    needs_allowance,
    run_sandboxed,
    with_allowed_environment,
)

with_allowed_environment()  # before anything: /proc/<pid>/environ would show keys to a snippet


def _interpret(args: argparse.Namespace) -> dict[str, object]:
    """The Interpretation and Summary row of a run; with --strategy and --outcome, the request's
    COMP journal entry too (checked before either file is written), in the same call."""
    slug, where = resolve(args.problem, args.dir)
    journal = args.strategy is not None or args.outcome is not None
    if journal:
        if not (args.strategy and args.outcome and args.implication):
            raise BadInput(
                "a journal entry needs --strategy, --outcome and --implication", code="usage"
            )
        named = f"Computation {args.number}"
        check_entry("COMP", args.strategy, args.outcome, named, named, args.implication)
    refutes = None if args.refutes is None else refuted_steps(where, args.refutes)
    done = interpret(where, args.number, args.text, args.result, args.implication, refutes)
    if not journal:
        return dict(done)
    request = done["request"]
    snippet = Path("computations") / f"request-{request}.py"
    added = add(
        problem=slug,
        category="COMP",
        strategy=args.strategy,
        outcome=args.outcome,
        title=f"Request {request}: {done['title']}" if request else done["title"],
        tags=parse_tags(args.tags),
        tried=f"{done['title']} (Computation {args.number})",
        reasoning=args.text,
        artifacts=["COMPUTATION.md", *([str(snippet)] if (where / snippet).exists() else [])],
        related=["PROOF.md"] if request else [],
        insight=args.implication,
        agent="computation",
    )
    return {**done, "journal": added["id"]}


def main(argv: Sequence[str]) -> None:
    parser = cli.ArgumentParser(description=__doc__)
    commands = parser.add_commands()
    run_command = commands.add_parser("run", help="run a snippet in the sandbox and record it")
    run_command.add_argument("code", metavar="CODE", help="the snippet: a .py file, or - for stdin")
    run_command.add_argument("--title", help="a short description (required unless --no-record)")
    run_command.add_argument(
        "--request", type=int, metavar="N", help="the PROOF.md request it answers"
    )
    run_command.add_argument("--purpose", help="why this computation helps")
    run_command.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="S",
        help="wall-time limit in seconds (default %(default)g)",
    )
    run_command.add_argument(
        "--memory-mb",
        type=int,
        default=DEFAULT_MEMORY_MB,
        metavar="MB",
        help="memory limit (default %(default)d)",
    )
    run_command.add_argument(
        "--python", metavar="PATH", help="run with this interpreter; install nothing"
    )
    run_command.add_argument(
        "--no-record", action="store_true", help="run only; leave COMPUTATION.md"
    )
    run_command.add_argument(
        "--read",
        action="append",
        default=[],
        metavar="PATH",
        help="a file or folder the snippet may read (repeatable); nothing else of the workspace",
    )
    add_arguments(run_command)
    interpret_command = commands.add_parser(
        "interpret", help="write computation N's Interpretation in COMPUTATION.md"
    )
    interpret_command.add_argument("number", type=int, metavar="N", help="the computation's number")
    interpret_command.add_argument(
        "--text", required=True, help="what the result means for the proof"
    )
    interpret_command.add_argument("--result", help="the Summary row's result, in a few words")
    interpret_command.add_argument("--implication", help="the Summary row's meaning for the proof")
    interpret_command.add_argument(
        "--refutes",
        metavar="STEPS",
        help="the PROOF.md steps the output refutes, as PROOF.md names them (comma-separated), "
        "or none: the Interpretation's **Refutes:** line, the loop's verdict on each step",
    )
    interpret_command.add_argument(
        "--strategy", help="with --outcome: also record the COMP journal entry of this strategy"
    )
    interpret_command.add_argument("--outcome", help="the journal entry's outcome")
    interpret_command.add_argument("--tags", default="", help="the journal entry's tags, a,b")
    add_arguments(interpret_command)
    groups = _groups(parser, commands, argv)
    call = _acknowledged if groups[0].command == "interpret" else _run
    if len(groups) == 1:
        cli.acknowledge(call(groups[0]))
        return
    done: list[dict[str, object]] = []
    for args in groups:  # one refused does not stop the others, nor hide what they did
        try:
            done.append(call(args))
        except BadInput as exc:
            done.append({"error": {"code": exc.code, "message": exc.message}})
    cli.acknowledge(_isolation_once(done))
    if any("error" in item for item in done):
        raise SystemExit(EXIT_BAD_INPUT)


def _acknowledged(args: argparse.Namespace) -> dict[str, object]:
    """An interpretation's answer without what the model gave or knows (the run's title, the
    COMPUTATION.md it wrote in): the computation, its status, its request and journal id."""
    return {k: v for k, v in _interpret(args).items() if k not in ("file", "title")}


def _isolation_once(done: list[dict[str, object]]) -> list[dict[str, object]]:
    """Several runs of one call: a run confined as the first run was says so in a word, not in
    the same twenty lines again (COMPUTATION.md records each run's isolation whole)."""
    first = next((item["isolation"] for item in done if "isolation" in item), None)
    shown = False
    for item in done:
        if "isolation" in item and item["isolation"] == first:
            if shown:
                item["isolation"] = SAME_ISOLATION
            shown = True
    return done


SAME_ISOLATION = "as the first run's"


def _groups(
    parser: cli.ArgumentParser,
    commands: argparse._SubParsersAction[cli.ArgumentParser],
    argv: Sequence[str],
) -> list[argparse.Namespace]:
    """The calls one command line makes: each after `--and` is the first's subcommand with its
    own snippet or number and options, and the first's options it does not give (--problem,
    --python, the limits). All are parsed before any runs: a malformed line runs nothing."""
    words = list(argv)
    groups = [parser.parse_args(words[: words.index("--and")] if "--and" in words else words)]
    # The first's values become the subcommand's defaults: argparse writes a subcommand's
    # defaults over a namespace passed in, so inheriting through one lost them all.
    first = vars(groups[0])
    commands.choices[groups[0].command].set_defaults(
        **{k: first[k] for k in _INHERITED if k in first}
    )
    while "--and" in words:
        words = words[words.index("--and") + 1 :]
        own = words[: words.index("--and")] if "--and" in words else words
        groups.append(parser.parse_args([groups[0].command, *own]))
    return groups


# What a call after `--and` takes from the first when it does not say (its snippet or number,
# title, purpose, request, text and journal fields are its own).
_INHERITED = ("problem", "dir", "python", "timeout", "memory_mb", "no_record", "read", "tags")


def _run(args: argparse.Namespace) -> dict[str, object]:
    """Run one snippet in the sandbox and record it (unless --no-record); its result."""
    check_limits(args.timeout, args.memory_mb)
    if not args.no_record and not (args.title and args.title.strip()):
        raise BadInput("--title is required to record the run (or pass --no-record)")
    if args.request is not None and args.request < 1:
        raise BadInput("--request is a request number from PROOF.md (1, 2, ...)")
    folder = None
    if not args.no_record:  # resolve first: a bad problem must not cost a computation
        slug, folder = resolve(args.problem, args.dir)
    try:
        code = read_source(args.code, "snippet")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(
            f"cannot read the snippet {args.code}: {exc}", code="file_not_found"
        ) from None
    if not code.strip():
        raise BadInput("the snippet is empty")
    python = interpreter(args.python) if args.python else extra_python("compute")

    if folder is not None:  # unreadable: refused before the computation, not after it
        check_recordable(folder, args.request)
    # The workspace config may hold the Semantic Scholar key, and the signing key marks the run
    # records (a snippet that read it could forge them, recorded or not): the snippet has no
    # business with either; nor with writing LITERATURE.md or anything else of the workspace.
    hidden = [math_dir(folder) / "config.json", math_dir(folder) / KEY_FILE]
    if folder is not None:  # the run is recorded: its key exists before the run, to be hidden
        signing_key(math_dir_of(folder))
        hidden.append(math_dir_of(folder) / KEY_FILE)
    readable = [Path(path) for path in args.read]
    missing = [str(path) for path in readable if not path.exists()]
    if missing:
        raise BadInput(f"--read {missing[0]}: no such file or folder", code="file_not_found")
    # Where nothing keeps the snippet's writes in its folder, only the user's say-so runs it.
    unconfined = needs_allowance() and allow_unsandboxed_compute(folder)
    result = run_sandboxed(
        code,
        python,
        timeout=args.timeout,
        memory_mb=args.memory_mb,
        hidden=hidden,
        read_only=[workspace_root(folder)],
        allow_unsandboxed=unconfined,
        readable=readable,
    )
    recorded = None
    if folder is not None:
        recorded = record_computation(
            folder, slug, code, result, " ".join(args.title.split()), args.request, args.purpose
        )
    return {**result, "recorded": recorded}


if __name__ == "__main__":
    cli.run(main)
