"""A paper's LaTeX source from arXiv (`<MATH_ARXIV_SRC_URL>/<id>[vN]`), read from the bytes alone,
and unpacked in memory within bounds.

What arXiv sends (../shared/recordings/README.md, "arxiv-src", from arXiv's own server code):
- 200 with the stored file as is: a gzipped tar (several files), a gzipped single TeX file (no
  tar, no name inside), or for a PDF-only submission the PDF itself; also PostScript, HTML and
  DVI submissions. `Content-Type: application/gzip` for both gzip kinds, so the headers never
  decide: the bytes do. gzip magic -> gunzip, then `ustar` at offset 257 -> tar, else one TeX
  file (called SINGLE_FILE_NAME); `%PDF-` -> no LaTeX source. Older answers came with
  `Content-Encoding: x-gzip`, which HTTP clients undo, so a bare tar or plain TeX is read too.
- 404/403 HTML pages: "No document for" (an unknown id or version), "No article for" (an id arXiv
  cannot parse), "has been withdrawn", "File unavailable"; 403 for a LaTeX source the author
  keeps private and for a blocked robot. Each is a NoLatexSource naming its reason. A 404 page
  that is none of these is not read as "no LaTeX source": the service is failing (a wrong
  MATH_ARXIV_SRC_URL, a proxy), and is named so.
- `/e-print/<id>` answers 301 to `/src/<id>` (the Location may be relative): redirects are
  followed.

Requests go through http.py as the arXiv API's do, under the same rate limiter (one request
every MATH_ARXIV_MIN_INTERVAL seconds across processes, the API's and these together), the same
cache, deadline and retries. A truncated gzip body is retried like any unusable answer.

Unpacking never writes to disk and refuses, for the whole paper, with an UnusableLatexSource (one
line, exit 3): more than MAX_MEMBERS members, more than MAX_UNPACKED_BYTES unpacked (a gzip bomb
stops there), a file over MAX_FILE_BYTES, a member whose path is absolute or climbs out (`..`), a
link (symbolic or hard), a device or FIFO, a member name that is not UTF-8, a malformed gzip or
tar, and a "TeX file" holding NUL bytes (binary, not TeX). A TeX file that is not UTF-8 is read
as Latin-1 (texsource.decode), not refused.
"""

from __future__ import annotations

import html
import io
import posixpath
import re
import tarfile
import zlib
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import quote

from ..core import ServiceError, arxiv_id_text, arxiv_src_url, min_interval
from .http import RequestRejected, Response, ServiceClient, UnusableBody

MAX_MEMBERS = 2000
MAX_UNPACKED_BYTES = 50 << 20  # the whole unpacked answer: tar headers and every file
MAX_FILE_BYTES = 20 << 20
SINGLE_FILE_NAME = "paper.tex"  # arXiv's single-file answer carries no name: we give it this one
GZIP_MAGIC = b"\x1f\x8b"
TAR_MAGIC_OFFSET = 257

Reason = Literal[
    "unknown_id",
    "invalid_id",
    "withdrawn",
    "unavailable",
    "access_denied",
    "pdf_only",
    "postscript_only",
    "html_only",
    "dvi_only",
]
Archive = Literal["tar.gz", "gz", "tar", "tex"]

# The h1 texts of arXiv's error pages (arxiv-browse templates), first match wins.
_PAGES: tuple[tuple[str, Reason], ...] = (
    ("has been withdrawn", "withdrawn"),
    ("no document for", "unknown_id"),
    ("no article for", "invalid_id"),
    ("file unavailable", "unavailable"),
    ("access denied", "access_denied"),
)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")


class UnusableLatexSource(ServiceError):
    """arXiv's answer for one paper cannot be read (safely): one line naming the paper and why."""

    default_code = "unusable_latex_source"


class TruncatedGzip(UnusableLatexSource):
    default_code = "truncated_archive"


@dataclass(frozen=True)
class NoLatexSource:
    """arXiv holds no LaTeX source to read for the paper, and why."""

    reason: Reason
    message: str


@dataclass(frozen=True)
class Unpacked:
    """The files of a LaTeX source answer, in memory, names relative to the archive's root."""

    archive: Archive
    members: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class LatexSourceAnswer:
    """What asking arXiv for one paper's LaTeX source gave."""

    arxiv_id: str
    version: int | None
    url: str
    outcome: Unpacked | NoLatexSource
    from_cache: bool = False


# --- reading the bytes ---------------------------------------------------------------------------


def read_body(body: bytes, what: str = "the answer") -> Unpacked | NoLatexSource:
    """The LaTeX source files in a 200 answer's `body`, or why there are none;
    UnusableLatexSource when the body cannot be read safely (`what` names the paper in the
    message)."""
    if not body:
        raise UnusableLatexSource(f"{what} is empty", code="empty_answer")
    compressed = body.startswith(GZIP_MAGIC)
    data = gunzip(body, what) if compressed else body
    kind = _kind(data)
    if kind is not None:
        return NoLatexSource(kind, f"arXiv holds no LaTeX source for {what}: {_KIND_TEXT[kind]}")
    if data[TAR_MAGIC_OFFSET : TAR_MAGIC_OFFSET + 5] == b"ustar":
        return Unpacked("tar.gz" if compressed else "tar", read_tar(data, what))
    if b"\x00" in data:
        raise UnusableLatexSource(
            f"{what} is neither a tar archive nor a TeX file (it holds binary data)",
            code="not_tex",
        )
    return Unpacked("gz" if compressed else "tex", {SINGLE_FILE_NAME: data})


_KIND_TEXT: dict[Reason, str] = {
    "pdf_only": "the submission is a PDF only",
    "postscript_only": "the submission is PostScript only",
    "html_only": "the submission is HTML",
    "dvi_only": "the submission is a DVI file only",
}


def _kind(data: bytes) -> Reason | None:
    """A submission that is not LaTeX, recognised by its first bytes."""
    head = data[:1024].lstrip()
    if head.startswith(b"%PDF-"):
        return "pdf_only"
    if head.startswith(b"%!PS"):
        return "postscript_only"
    if head[:2] == b"\xf7\x02":
        return "dvi_only"
    if head[:14].lower().startswith((b"<!doctype html", b"<html")):
        return "html_only"
    return None


def gunzip(data: bytes, what: str = "the answer", limit: int = MAX_UNPACKED_BYTES) -> bytes:
    """`data` gunzipped (every concatenated member), never more than `limit` bytes."""
    out = bytearray()
    rest = data
    while rest.startswith(GZIP_MAGIC):
        stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = rest
        try:
            while pending and not stream.eof:
                out += stream.decompress(pending, limit + 1 - len(out))
                if len(out) > limit:
                    raise UnusableLatexSource(
                        f"{what} unpacks to more than {limit >> 20} MB (a gzip bomb?): refused",
                        code="archive_too_large",
                    )
                pending = stream.unconsumed_tail
        except zlib.error as exc:
            raise UnusableLatexSource(
                f"{what} is a malformed gzip file ({exc})", "malformed_archive"
            ) from None
        if not stream.eof:
            raise TruncatedGzip(f"{what} is a truncated gzip file")
        rest = stream.unused_data
    return bytes(out)


def read_tar(data: bytes, what: str = "the answer") -> dict[str, bytes]:
    """The regular files of the tar `data`, read into memory within the bounds above."""
    members: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(
            fileobj=io.BytesIO(data), mode="r:", encoding="utf-8", errors="surrogateescape"
        ) as tar:
            for count, info in enumerate(_MemberIterator(tar), 1):
                if count > MAX_MEMBERS:
                    raise _unsafe(what, f"it holds more than {MAX_MEMBERS:,} members")
                name = member_name(info.name, what)
                if info.isdir():
                    continue
                if info.issym() or info.islnk():
                    raise _unsafe(what, f"member {name!r} is a link")
                if not info.isfile():
                    raise _unsafe(what, f"member {name!r} is a device or FIFO, not a file")
                if info.size > MAX_FILE_BYTES:
                    raise _unsafe(what, f"member {name!r} is larger than {MAX_FILE_BYTES >> 20} MB")
                total += info.size
                if total > MAX_UNPACKED_BYTES:
                    raise _unsafe(what, f"its files hold more than {MAX_UNPACKED_BYTES >> 20} MB")
                handle = tar.extractfile(info)
                content = handle.read() if handle else b""
                if len(content) != info.size:
                    raise UnusableLatexSource(
                        f"{what}: member {name!r} is cut short", "malformed_archive"
                    )
                if name:
                    members[name] = content
    except (tarfile.TarError, EOFError, ValueError, OSError) as exc:
        raise UnusableLatexSource(
            f"{what} is a malformed tar archive ({exc})", "malformed_archive"
        ) from None
    return members


class _MemberIterator:
    """tar.next() one member at a time: a 10,000-member archive stops at MAX_MEMBERS + 1
    instead of being listed whole first."""

    def __init__(self, tar: tarfile.TarFile):
        self.tar = tar

    def __iter__(self) -> _MemberIterator:
        return self

    def __next__(self) -> tarfile.TarInfo:
        info = self.tar.next()
        if info is None:
            raise StopIteration
        return info


def member_name(raw: str, what: str = "the answer") -> str:
    """A member's path, normalised (`./a/b.tex` -> `a/b.tex`); UnusableLatexSource for a name
    that is not UTF-8 (tarfile keeps such bytes as surrogates), absolute, or climbing out with
    `..`."""
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise UnusableLatexSource(
            f"{what} has a member name that is not UTF-8", "bad_member_name"
        ) from None
    if "\x00" in raw or not raw.isprintable():
        raise _unsafe(what, "a member name holds control characters")
    name = posixpath.normpath(raw.replace("\\", "/")) if raw else ""
    if (
        name.startswith("/")
        or name == ".."
        or name.startswith("../")
        or re.match(r"[A-Za-z]:", name)
    ):
        raise _unsafe(what, f"member {raw!r} points outside the archive")
    return "" if name == "." else name


def _unsafe(what: str, why: str) -> UnusableLatexSource:
    return UnusableLatexSource(f"{what} is refused: {why}", code="unsafe_archive")


def no_latex_source_page(status: int, body: bytes, what: str) -> NoLatexSource | None:
    """The NoLatexSource an arXiv error page (404, 403) states, None when the page is none of
    arXiv's (then the service is failing, not the paper missing)."""
    text = body[:65536].decode("utf-8", "replace")
    heading = _H1.search(text)
    said = " ".join(html.unescape(_TAG.sub("", heading.group(1))).split()) if heading else ""
    lowered = (said or text).lower()
    for words, reason in _PAGES:
        if words in lowered:
            return NoLatexSource(reason, f"arXiv has no LaTeX source for {what}: {said or words}")
    if status == 403:
        return NoLatexSource(
            "access_denied", f"arXiv denied access to the LaTeX source of {what} (HTTP 403)"
        )
    return None


# --- the client ----------------------------------------------------------------------------------


SERVER_NAME = "arXiv's LaTeX source server"  # MATH_ARXIV_SRC_URL: another endpoint than the API's


class LatexSourceClient:
    """Ask arXiv for papers' LaTeX sources through the shared, rate-limited HTTP layer."""

    def __init__(self, use_cache: bool = True):
        self.base_url = arxiv_src_url()
        # "arxiv": the API client's limiter and interval, so the two together stay polite; its
        # own name, so that a failing LaTeX source server is never reported as arXiv failing
        self.http = ServiceClient("arxiv", SERVER_NAME, min_interval("arxiv"), use_cache=use_cache)

    @property
    def network_calls(self) -> int:
        return self.http.network_calls

    def url(self, arxiv_id: str, version: int | None = None) -> str:
        return f"{self.base_url}/{quote(arxiv_id_text(arxiv_id, version), safe='/')}"

    def fetch(self, arxiv_id: str, version: int | None = None) -> LatexSourceAnswer:
        """The LaTeX source of `arxiv_id` (a normalised id, without version) at `version` (None: the
        latest). Raises ServiceError when arXiv keeps failing, UnusableLatexSource when its answer
        cannot be read safely, RequestRejected for an HTTP 400."""
        url = self.url(arxiv_id, version)
        what = f"arXiv:{arxiv_id_text(arxiv_id, version)}"
        read: list[Unpacked | NoLatexSource] = []

        def check(response: Response) -> object:
            if not response.content:
                raise UnusableBody("an empty answer")
            try:
                read.append(read_body(response.content, what))
            except TruncatedGzip as exc:
                raise UnusableBody(exc.message) from None
            return None

        response = self.http.get(url, check=check)
        if response.status == 200:
            outcome = read[-1] if read else read_body(response.content, what)
        elif response.status in (403, 404):
            page = no_latex_source_page(response.status, response.content, what)
            if page is None:
                raise ServiceError(
                    f"{SERVER_NAME} answered HTTP {response.status} with a page that is not one "
                    f"of its 'no LaTeX source' pages: {url}",
                    code="service_unavailable",
                )
            outcome = page
        elif response.status == 400:
            raise RequestRejected(
                f"{SERVER_NAME} rejected the request (HTTP 400): {url}", "arxiv_rejected"
            )
        else:
            raise ServiceError(
                f"{SERVER_NAME} answered HTTP {response.status}: {url}", code="service_unavailable"
            )
        return LatexSourceAnswer(arxiv_id, version, url, outcome, response.from_cache)
