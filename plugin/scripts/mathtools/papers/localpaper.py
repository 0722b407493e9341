"""A local paper's LaTeX as one document, read as an arXiv source is (texsource.build): the .tex
given is the main file, and the files it inputs (`\\input`, `\\include`, `\\subfile`, `\\import`,
a package the paper ships) are spliced in where LaTeX reads them, each line still knowing its
file and line. The paper's folder is seen as the archive's members, confined: a name that leaves
the folder (an absolute path, `..`, a link leading out), a missing file, a folder or a file
larger than the bibliography reader takes is not there (a missing input, listed and skipped).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from ..bibliography import read_file
from . import texsource

MAX_INPUT_BYTES = 20 * 1024 * 1024  # an input larger than this is no part of a paper's text


class PaperFolder(Mapping[str, bytes]):
    """The files of a paper's folder by their name relative to it, read when asked: a name
    outside the folder, or not a regular file, is not a member."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()

    def _path(self, name: str) -> Path | None:
        if not name or name.startswith("/") or "\x00" in name:
            return None
        path = (self.folder / name).resolve()
        if not path.is_relative_to(self.folder) or not path.is_file():
            return None
        return path

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._path(name) is not None

    def __getitem__(self, name: str) -> bytes:
        path = self._path(name)
        if path is None:
            raise KeyError(name)
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
        except OSError:
            return b""  # unreadable: read as empty, the rest of the paper still read
        return b"" if len(data) > MAX_INPUT_BYTES else data

    def __iter__(self) -> Iterator[str]:  # only what is asked for is read: nothing is listed
        return iter(())

    def __len__(self) -> int:
        return 0


def local_document(path: Path) -> texsource.Document:
    """The paper `path` (a .tex; BadInput when it cannot be read) with its inputs spliced in."""
    read_file(path, "LaTeX file")  # the main file itself: a one-line error when unusable
    return texsource.build(PaperFolder(path.parent), main=path.name)
