#!/usr/bin/env python3
"""Write the README's script reference from the scripts' own `--help`, its one source.

Each script gets a `### \\`NAME.py\\`` heading, the first paragraph of its `--help` and the usage
line of each of its commands (argparse's, as `NAME.py COMMAND --help` prints it), with a pointer
to `--help` for the rest. The section sits between the BEGIN and END markers of README.md; the
text around it is the README's own. tests/test_readme_reference.py fails when README.md differs
from what this tool writes, so a changed flag or docstring is one `python3
tools/make_readme_reference.py` away from the README.

Usage: tools/make_readme_reference.py [--check]   (--check: exit 1 and print a diff instead of
writing when README.md is out of date)
"""

from __future__ import annotations

import argparse
import difflib
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
README = ROOT / "README.md"
BEGIN = (
    "<!-- BEGIN script reference: written by tools/make_readme_reference.py from each script's"
    " --help; edit the scripts, not this section -->"
)
END = "<!-- END script reference -->"
# argparse wraps at $COLUMNS: fixed, so the README does not depend on the terminal that made it
HELP_ENV = {**os.environ, "COLUMNS": "100", "MATH_DEBUG": ""}
COMMAND_LINE = re.compile(r"^    (\S+)")  # a command under argparse's "COMMAND" heading


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
    """The description's first paragraph, unwrapped (the README wraps it as prose)."""
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


def reference() -> str:
    """The section between the markers, as the scripts' --help gives it now."""
    scripts = sorted(path.name for path in SCRIPTS.glob("*.py"))
    with ThreadPoolExecutor(max_workers=4) as pool:
        sections = list(pool.map(script_section, scripts))
    return "\n".join(sections)


def readme_with(section: str, readme: str) -> str:
    head, rest = readme.split(BEGIN + "\n", 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n\n{section}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a diff")
    args = parser.parse_args(argv)
    current = README.read_text(encoding="utf-8")
    wanted = readme_with(reference(), current)
    if wanted == current:
        return 0
    if args.check:
        diff = difflib.unified_diff(
            current.splitlines(True), wanted.splitlines(True), "README.md", "generated"
        )
        sys.stdout.writelines(diff)
        return 1
    README.write_text(wanted, encoding="utf-8")
    print("README.md: script reference rewritten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
