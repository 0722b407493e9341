#!/usr/bin/env python3
"""Write the generated parts of the docs from their one home.

Each generated part sits between a BEGIN and an END marker (`<!-- BEGIN NAME: written by
tools/make_reference.py ... -->`, `<!-- END NAME -->`); the text around it is the document's own.

- docs/reference.md, "exit codes": the table of `mathtools.core.errors.EXIT_MEANINGS`.
- docs/reference.md, "script reference": each script's `--help`, in short (a `### \\`NAME.py\\``
  heading, the first paragraph of its `--help` and the usage line of each of its commands, as
  `NAME.py COMMAND --help` prints it), in two groups: the scripts a slash command or an agent
  calls (named in plugin/commands/*.md or plugin/agents/*.md), and the tools for people, which
  none calls.
- plugin/protocols/literature-protocol.md, "domain map": § 5's table of
  `mathtools.core.domains.DOMAINS` and `MSC`.
- plugin/schemas/source.schema.json, whole: the sources' code names and names, from
  `mathtools.core.sources.REGISTRY` (the other schemas refer to it).

tests/test_reference.py fails when a document differs from what this tool writes, so a changed
flag, docstring, exit code or domain is one `python3 tools/make_reference.py` away from the docs.

Usage: tools/make_reference.py [--check]   (--check: exit 1 and print a diff instead of writing
when a document is out of date)
"""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from textwrap import fill

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "plugin"
SCRIPTS = PLUGIN / "scripts"
REFERENCE = ROOT / "docs" / "reference.md"
PROTOCOL = PLUGIN / "protocols" / "literature-protocol.md"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

from mathtools.core import domains, errors, sources  # noqa: E402


def begin(name: str, source: str) -> str:
    return (
        f"<!-- BEGIN {name}: written by tools/make_reference.py from {source};"
        " edit that, not this section -->"
    )


def end(name: str) -> str:
    return f"<!-- END {name} -->"


# argparse wraps at $COLUMNS: fixed, so the docs do not depend on the terminal that made them
HELP_ENV = {**os.environ, "COLUMNS": "100", "MATH_DEBUG": ""}
COMMAND_LINE = re.compile(r"^    (\S+)")  # a command under argparse's "COMMAND" heading


@functools.cache  # tests/test_named_paths.py and tests/test_reference.py read the same helps
def help_text(script: str, *command: str) -> str:
    """What `script [command] --help` prints."""
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / script), *command, "--help"],
        capture_output=True,
        text=True,
        env=HELP_ENV,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{script} {' '.join(command)} --help failed: {done.stdout}{done.stderr}")
    return done.stdout


def usage(text: str) -> str:
    """The usage block of a --help text, without `usage: ` (continuation lines keep their
    alignment under the first argument)."""
    block = text.split("\n\n", 1)[0].removeprefix("usage: ")
    indent = len("usage: ")
    lines = [
        line[indent:] if line.startswith(" " * indent) else line for line in block.splitlines()
    ]
    return "\n".join(lines)


def first_paragraph(text: str) -> str:
    """The description's first paragraph, unwrapped (the docs wrap it as prose)."""
    description = text.split("\n\n", 2)[1]
    return " ".join(line.strip() for line in description.splitlines())


def commands(text: str) -> list[str]:
    """The commands a --help lists under its COMMAND positional argument, in its order."""
    if "\npositional arguments:\n  COMMAND\n" not in text:
        return []
    listing = text.split("\npositional arguments:\n  COMMAND\n", 1)[1].split("\n\n", 1)[0]
    return [match.group(1) for match in map(COMMAND_LINE.match, listing.splitlines()) if match]


def script_section(script: str) -> str:
    top = help_text(script)
    names = commands(top)
    with ThreadPoolExecutor(max_workers=4) as pool:
        usages = list(pool.map(lambda name: usage(help_text(script, name)), names))
    synopsis = "\n".join(usages) if names else usage(top)
    more = f"`{script} --help`" + (f" and `{script} COMMAND --help`" if names else "")
    return (
        f"### `{script}`\n\n{fill(first_paragraph(top) + ' Everything else: ' + more, 100)}.\n\n"
        f"```text\n{synopsis}\n```\n"
    )


def all_scripts() -> list[str]:
    return sorted(path.name for path in SCRIPTS.glob("*.py"))


def called_by_the_model() -> dict[str, list[str]]:
    """Each script a slash command or an agent names, with the files that name it."""
    runbooks = sorted([*PLUGIN.glob("commands/*.md"), *PLUGIN.glob("agents/*.md")])
    texts = {path.name: path.read_text(encoding="utf-8") for path in runbooks}
    found: dict[str, list[str]] = {}
    for script in all_scripts():
        names = [name for name, text in texts.items() if f"scripts/{script}" in text]
        if names:
            found[script] = names
    return found


def script_reference() -> str:
    """The "script reference" section, as the scripts' --help and the runbooks give it now."""
    scripts = all_scripts()
    with ThreadPoolExecutor(max_workers=4) as pool:
        sections = dict(zip(scripts, pool.map(script_section, scripts), strict=True))
    called = called_by_the_model()
    model = [name for name in scripts if name in called]
    people = [name for name in scripts if name not in called]
    listed = ", ".join(f"`{name}`" for name in people)
    parts = [
        "## The scripts the commands and agents call\n\n"
        + fill(
            "The model runs these, as the slash commands (plugin/commands/) and agents "
            "(plugin/agents/) name them; you can run them too.",
            100,
        )
        + "\n",
        *(sections[name] for name in model),
        "## Tools for people\n\n"
        + fill(
            f"No command or agent calls these: {listed}. They are for a person at a terminal: a "
            "look at one source, one step of a search or the run store on its own (the scripts "
            "above do the same through the library; docs/examples.md shows them at work).",
            100,
        )
        + "\n",
        *(sections[name] for name in people),
    ]
    return "\n".join(parts)


def exit_codes() -> str:
    rows = [f"| {code} | {meaning} |" for code, meaning in errors.EXIT_MEANINGS.items()]
    return "\n".join(["| exit code | meaning |", "|---|---|", *rows]) + "\n"


def domain_map() -> str:
    rows = [
        f"| `{name}` | {', '.join(cats.primary)} | {', '.join(cats.secondary)} | "
        f"{', '.join(domains.MSC[name])} | "
        f"{', '.join(a for a, row in domains.ALIASES.items() if row == name)} |"
        for name, cats in domains.DOMAINS.items()
    ]
    head = [
        "| domain | primary | secondary | MSC 2020 (zbMATH Open) | also accepted as |",
        "|---|---|---|---|---|",
    ]
    return "\n".join([*head, *rows]) + "\n"


# (file, section name, what it is written from, how to write it)
PARTS = (
    (REFERENCE, "exit codes", "mathtools/core/errors.py's EXIT_MEANINGS", exit_codes),
    (REFERENCE, "script reference", "each script's --help", script_reference),
    (PROTOCOL, "domain map", "mathtools/core/domains.py", domain_map),
)


def source_schema() -> str:
    """schemas/source.schema.json: the registry's code names; in $defs its names and the
    Source field of a LITERATURE.md entry (names joined by ", "; `both` from the files written
    when there were two sources)."""
    names = "|".join(re.escape(s.name).replace("\\ ", " ") for s in sources.REGISTRY)
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "source.schema.json",
        "title": "Source",
        "description": (
            "A bibliographic source's code name, as a record's or a result's `source`: the rows "
            "of scripts/mathtools/core/sources.py's REGISTRY, in its order. Written by "
            "tools/make_reference.py from the registry; do not edit."
        ),
        "enum": list(sources.SOURCES),
        "$defs": {
            "name": {"enum": list(sources.NAMES.values()), "description": "a source's name"},
            "field": {
                "type": "string",
                "pattern": f"^(both|({names})(, ({names}))*)$",
                "description": (
                    "a LITERATURE.md entry's Source: the names of the sources that confirmed "
                    "it, in the registry's order (`both`: arXiv and Semantic Scholar, in a file "
                    "written when there were two sources)"
                ),
            },
        },
    }
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


# (file, what it is written from, how to write it): whole files
FILES = ((PLUGIN / "schemas" / "source.schema.json", source_schema),)


def with_section(text: str, name: str, source: str, body: str) -> str:
    """`text` with its section `name` replaced by `body`."""
    head, rest = text.split(begin(name, source) + "\n", 1)
    _, tail = rest.split(end(name), 1)
    return f"{head}{begin(name, source)}\n\n{body}\n{end(name)}{tail}"


def wanted() -> dict[Path, tuple[str, str]]:
    """Each document: (as it is, as the tool writes it)."""
    docs: dict[Path, tuple[str, str]] = {}
    for path, name, source, make in PARTS:
        current, text = docs.get(path, (path.read_text(encoding="utf-8"),) * 2)
        docs[path] = (current, with_section(text, name, source, make()))
    for path, write in FILES:
        docs[path] = (path.read_text(encoding="utf-8") if path.exists() else "", write())
    return docs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a diff")
    args = parser.parse_args(argv)
    stale = 0
    for path, (current, text) in wanted().items():
        if text == current:
            continue
        stale += 1
        name = path.relative_to(ROOT).as_posix()
        if args.check:
            diff = difflib.unified_diff(
                current.splitlines(True), text.splitlines(True), name, "generated"
            )
            sys.stdout.writelines(diff)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"{name}: generated sections rewritten")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
