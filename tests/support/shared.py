"""The one place that finds the shared test data, `../shared/`, which is never copied into the
repository.

It sits beside the clone (`<clone>/../shared`); from a git worktree, beside the main clone the
worktree belongs to (the worktree's `.git` file names `<main>/.git/worktrees/<name>`).
MATH_TEST_SHARED names another folder (a path that does not exist runs the suite as a clone
without it would).

Its parts the tests read:

- `recordings/`: the real service answers the stand-in replays (arxiv/, s2/, zbmath/, crossref/,
  arxiv-src/; its README.md says where each comes from, its format and its traps);
- `corpus/`: the arXiv metadata corpus the discovery tests and benchmark search;
- `bibliographies/`: real bibliographies as people write them.

A test that needs a part calls `require("recordings")` (or uses a helper that does): without
it the test SKIPS with a reason starting "needs ../shared/<part>", and conftest.py's
`pytest_terminal_summary` prints one line naming what is missing and how many tests it skipped.
Outside pytest (a benchmark, the demo) the same call raises SharedMissing with that message.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VARIABLE = "MATH_TEST_SHARED"
SKIP_PREFIX = "needs ../shared/"
PYTEST_PID = "MATH_TEST_PYTEST_PID"  # set by tests/conftest.py to the pytest process's id


class SharedMissing(RuntimeError):
    """A part of the shared test data is not beside the clone."""


def locate(root: Path = ROOT) -> Path:
    """The shared folder: $MATH_TEST_SHARED, else ../shared beside the clone, else (from a git
    worktree) beside the main clone. Returned even when it does not exist."""
    named = os.environ.get(VARIABLE)
    if named:
        return Path(named).expanduser().resolve()
    beside = root.parent / "shared"
    dot_git = root / ".git"
    if not beside.exists() and dot_git.is_file():
        gitdir = Path(dot_git.read_text(encoding="utf-8").partition("gitdir:")[2].strip())
        if gitdir.parent.name == "worktrees":  # <main>/.git/worktrees/<name>
            return gitdir.parents[2].parent / "shared"
    return beside


SHARED = locate()
RECORDINGS = SHARED / "recordings"


def path(*parts: str) -> Path:
    """A path inside the shared folder (it may not exist)."""
    return SHARED.joinpath(*parts)


def present(*parts: str) -> bool:
    return path(*parts).exists()


def missing_message(part: str) -> str:
    return f"{SKIP_PREFIX}{part}: {path(part)} is missing (see CONTRIBUTING.md, 'Test data')"


def require(part: str) -> Path:
    """`path(part)`, or skip the running test (raise SharedMissing outside a test) naming what is
    missing. `part` is the top folder ("recordings", "corpus", "bibliographies") or below it
    ("recordings/arxiv-src")."""
    where = path(part)
    if where.exists():
        return where
    message = missing_message(part)
    if os.environ.get(PYTEST_PID) == str(os.getpid()):  # a test skips; a script it runs stops
        import pytest

        pytest.skip(message)
    raise SharedMissing(message)


def need(where: Path) -> Path:
    """`where`, a file in the shared folder; when the folder's part is missing, skip the test
    (raise SharedMissing outside one). A missing file in a present part is the caller's error."""
    if not where.exists():
        try:
            part = where.relative_to(SHARED).parts[0]
        except (ValueError, IndexError):
            return where
        require(part)
    return where
