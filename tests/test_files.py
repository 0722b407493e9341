"""Writing and reading files: atomic replacement, permissions, locks, encodings."""

from __future__ import annotations

import os
import stat

import pytest
from mathtools.files import atomic_write


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_file_gets_the_mode_the_umask_allows(tmp_path, umask):
    previous = os.umask(umask)
    try:
        atomic_write(tmp_path / "new.json", "{}")
    finally:
        os.umask(previous)
    assert mode(tmp_path / "new.json") == 0o666 & ~umask
    assert (tmp_path / "new.json").read_text() == "{}"


def test_an_existing_files_mode_is_kept(tmp_path):
    path = tmp_path / "script.sh"
    path.write_text("old")
    path.chmod(0o750)
    atomic_write(path, "new")
    assert mode(path) == 0o750 and path.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["script.sh"]  # no temporary file left
