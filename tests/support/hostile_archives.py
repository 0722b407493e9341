"""Hostile LaTeX source archives, SYNTHESIZED for the tests of
mathtools/services/latex_source.py and of `arxiv_query.py theorems`: each is what a malicious or
broken arXiv answer could hold, with the error code it must give (one line, exit 3, never a
traceback).
"""

from __future__ import annotations

import gzip
import io
import tarfile


def tar_of(*entries: tarfile.TarInfo | tuple[str, bytes], **options) -> bytes:
    """A tar holding `entries`: (name, content) files, or TarInfo headers as given."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", **options) as tar:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                tar.addfile(entry)
            else:
                name, content = entry
                info = tarfile.TarInfo(name)
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def bomb() -> bytes:
    """51 MB of zeros gzipped in 50 kB, built without holding the 51 MB."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as out:
        block = b"\0" * (1 << 20)
        for _ in range(51):
            out.write(block)
    return buffer.getvalue()


def many_members() -> bytes:
    return gzip.compress(tar_of(*[(f"f{n}.tex", b"") for n in range(10_000)]))


def broken_tar() -> bytes:
    data = bytearray(tar_of(("main.tex", b"\\documentclass{article}")))
    data[0:4] = b"XXXX"  # the header's checksum no longer holds
    return gzip.compress(bytes(data))


HOSTILE = {
    "gzip bomb": (bomb, "archive_too_large"),
    "path traversal": (lambda: gzip.compress(tar_of(("../evil.tex", b"x"))), "unsafe_archive"),
    "absolute path": (lambda: gzip.compress(tar_of(("/etc/evil.tex", b"x"))), "unsafe_archive"),
    "symbolic link": (
        lambda: gzip.compress(tar_of(special("a.tex", tarfile.SYMTYPE, "/etc/passwd"))),
        "unsafe_archive",
    ),
    "hard link": (
        lambda: gzip.compress(tar_of(("b.tex", b"x"), special("a.tex", tarfile.LNKTYPE, "b.tex"))),
        "unsafe_archive",
    ),
    "device": (lambda: gzip.compress(tar_of(special("d", tarfile.CHRTYPE))), "unsafe_archive"),
    "fifo": (lambda: gzip.compress(tar_of(special("p", tarfile.FIFOTYPE))), "unsafe_archive"),
    "10,000 members": (many_members, "unsafe_archive"),
    "malformed gzip": (lambda: b"\x1f\x8b\x08\x00" + b"\xff" * 64, "malformed_archive"),
    "malformed tar": (broken_tar, "malformed_archive"),
    "name not UTF-8": (
        lambda: gzip.compress(
            tar_of(("caf\xe9.tex", b"x"), format=tarfile.USTAR_FORMAT, encoding="latin-1")
        ),
        "bad_member_name",
    ),
    "binary single file": (lambda: gzip.compress(b"\x00\x01\x02 not TeX"), "not_tex"),
}
