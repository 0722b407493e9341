"""Writing and reading files: atomic replacement, permissions, locks, encodings."""

from __future__ import annotations

import os
import stat

import pytest
from mathtools.core.errors import EXIT_ENVIRONMENT
from mathtools.core.files import atomic_write, numbered_lines, read_json
from mathtools.core.locks import locked


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


def test_a_lock_held_too_long_is_an_environment_problem(tmp_path):
    """Not an internal error (exit 5): another process is busy with the file."""
    with locked(tmp_path / "LITERATURE.md"), pytest.raises(Exception) as caught:  # noqa: SIM117
        with locked(tmp_path / "LITERATURE.md", timeout=0.1):
            pass
    assert caught.value.exit_code == EXIT_ENVIRONMENT and caught.value.code == "locked"
    assert str(tmp_path / "LITERATURE.md") in caught.value.message


def test_a_byte_order_mark_is_not_part_of_the_text(tmp_path):
    """Notepad and PowerShell write UTF-8 with a BOM; JSON and id lists must still read."""
    (tmp_path / "candidates.json").write_bytes(b"\xef\xbb\xbf" + '[{"title": "Ré"}]'.encode())
    (tmp_path / "ids.txt").write_bytes(b"\xef\xbb\xbf2104.12255\n")
    assert read_json(str(tmp_path / "candidates.json")) == [{"title": "Ré"}]
    assert numbered_lines(str(tmp_path / "ids.txt"), "ids") == [(1, "2104.12255")]


def test_a_file_with_crlf_line_endings_keeps_them(tmp_path):
    """A file a Windows editor saved: text read back with LF is written with CRLF again."""
    path = tmp_path / "NOTES.md"
    path.write_bytes(b"---\r\ntitle: x\r\n---\r\nhand note\r\n")
    atomic_write(path, path.read_text() + "added\n")
    assert path.read_bytes() == b"---\r\ntitle: x\r\n---\r\nhand note\r\nadded\r\n"
    fresh = tmp_path / "NEW.md"
    atomic_write(fresh, "a\nb\n")
    assert fresh.read_bytes() == b"a\nb\n"
