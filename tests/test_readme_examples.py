"""The docs' `console` examples run as printed, against the stand-in, and print what they show.

Every ```console block of README.md and of docs/*.md is a transcript: `$ command` lines (a trailing
backslash continues one) and, under a command, the output it prints. Each block runs in a folder of
its own that holds the repository's `plugin/` and `examples/`, in order, through bash (pipes and
redirections as written), with arXiv and Semantic Scholar served by tests/support/standin.py from
the recordings. A command with output shown must print exactly those lines on stdout (`...` in a
shown line stands for any text); a command without must succeed. A block that needs a workspace
makes it with its own first lines, as a user would. Illustrative snippets, whose output depends on a
project's proof and files (state.py, compute.py, bib_export.py, latex.py), are ```text blocks.

The folder's `plugin/` is a fresh copy, and the commands run with PYTHONDONTWRITEBYTECODE and
PYTHONPYCACHEPREFIX unset, as at a reader's terminal: none of them may leave bytecode in it (a
`claude plugin install` from a clone copies plugin/ as it is on disk). The README's install
command (`installation.py install`) is held to the same.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from support.standin import StandIn

FENCE = re.compile(r"^```console\n(.*?)^```", re.M | re.S)


DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def console_blocks(path=None) -> list[str]:
    paths = [path] if path else DOCUMENTS
    return [block for doc in paths for block in FENCE.findall(doc.read_text(encoding="utf-8"))]


def transcript(block: str) -> list[tuple[str, list[str]]]:
    """(command, shown output lines) pairs of a console block."""
    steps: list[tuple[str, list[str]]] = []
    lines = block.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.startswith("$ "):
            assert steps, f"output before any command in a console block: {line!r}"
            steps[-1][1].append(line)
            continue
        command = line[2:]
        while command.endswith("\\"):
            command = command[:-1] + " " + lines[index].strip()
            index += 1
        steps.append((command, []))
    return steps


def matches(shown: list[str], printed: str) -> bool:
    want = [re.escape(line).replace(re.escape("..."), ".*") for line in shown]
    got = printed.rstrip("\n").splitlines()
    return len(want) == len(got) and all(
        re.fullmatch(pattern, line) for pattern, line in zip(want, got, strict=True)
    )


def _block_id(block: str) -> str:
    return transcript(block)[0][0].split()[0].rsplit("/", 1)[-1]


@pytest.fixture(scope="module")
def standin():
    with StandIn() as server:
        yield server


README_BLOCKS = console_blocks(ROOT / "README.md")
LINKED = ("plugin", "examples")


@pytest.fixture(scope="module")
def user_cache(tmp_path_factory):
    """The reader's ~/.cache, where the scripts keep their bytecode: one for the module's blocks."""
    return tmp_path_factory.mktemp("user-cache")


def reader_clone(folder: Path, monkeypatch, user_cache: Path) -> Path:
    """A clone as a reader has it: a fresh copy of plugin/ (no bytecode), examples/ linked; and a
    terminal's environment, which neither forbids bytecode nor says where it goes."""
    folder.mkdir()
    no_bytecode = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "plugin", folder / "plugin", ignore=no_bytecode)
    (folder / "examples").symlink_to(ROOT / "examples")
    for name in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(user_cache))
    return folder


def bytecode_in(plugin: Path) -> list[str]:
    return sorted(str(path.relative_to(plugin)) for path in plugin.rglob("*.pyc"))


@pytest.mark.parametrize("block", console_blocks(), ids=_block_id)
def test_a_readme_console_example_runs_as_printed(
    block, standin, tmp_path, monkeypatch, user_cache
):
    clone = reader_clone(tmp_path / "clone", monkeypatch, user_cache)  # conftest's caches beside
    scratch = tmp_path / "tmp"  # mktemp's folder: inside tmp_path, so nothing stays in /tmp
    scratch.mkdir()
    for name, value in standin.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MATH_WORKSPACE", str(clone))
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setenv("PATH", f"{sys.executable.rsplit('/', 1)[0]}:/usr/bin:/bin")
    for command, shown in transcript(block):
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=clone,
            capture_output=True,
            text=True,
            timeout=120,
        )
        account = f"$ {command}\nexit {done.returncode}\n{done.stdout}{done.stderr}"
        if shown:
            assert matches(shown, done.stdout), f"printed:\n{account}\nREADME shows:\n" + "\n".join(
                shown
            )
        else:
            assert done.returncode == 0, account
    if block in README_BLOCKS:  # a reader runs them in the clone: they write elsewhere
        left = sorted(p.name for p in clone.iterdir() if p.name not in LINKED)
        assert not left, f"the README's example wrote {left} where it ran"
    assert not bytecode_in(clone / "plugin"), bytecode_in(clone / "plugin")


def test_the_readmes_install_command_leaves_no_bytecode_in_the_plugin(
    tmp_path, monkeypatch, user_cache
):
    """`python3 path/to/math/plugin/scripts/mathtools/core/installation.py install`, as the README
    gives it, run at a terminal: it imports the library, then installs (here a stand-in uv that
    fails at once: synthesized; the install itself is tests/test_bootstrap.py's)."""
    (command,) = re.findall(
        r"`python3 path/to/math/(plugin/\S+/installation\.py) install`",
        " ".join((ROOT / "README.md").read_text(encoding="utf-8").split()),
    )
    clone = reader_clone(tmp_path / "math", monkeypatch, user_cache)
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "uv").write_text("#!/bin/sh\necho 'error: network is unreachable' >&2\nexit 2\n")
    (tools / "uv").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{sys.executable.rsplit('/', 1)[0]}:/usr/bin:/bin")
    done = subprocess.run(
        ["python3", str(clone / command), "install"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 4 and "no network" in done.stdout, done.stdout + done.stderr
    assert not bytecode_in(clone / "plugin"), bytecode_in(clone / "plugin")


def test_the_transcript_reader_joins_continued_lines_and_keeps_output():
    steps = transcript("$ a \\\n    b\nout 1\nout 2\n$ c\n")
    assert steps == [("a  b", ["out 1", "out 2"]), ("c", [])]
    assert matches(["x ... z"], "x y z\n") and not matches(["x"], "x\ny\n")


def test_every_console_example_is_found():
    assert [_block_id(block) for block in README_BLOCKS] == ["cd"]
    assert [_block_id(block) for block in console_blocks(ROOT / "docs/examples.md")][:4] == [
        "arxiv_query.py",
        "s2_lookup.py",
        "zbmath_lookup.py",
        "verify_batch.py",
    ]


def test_the_readme_is_for_users_and_short():
    """What it is, install, a session, the commands, configuration, where the docs are: the
    reference, the examples, the benchmarks and the layout live elsewhere."""
    assert (ROOT / "README.md").stat().st_size <= 15 * 1024
