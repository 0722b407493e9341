"""arXiv LaTeX source answers from ../shared/recordings/arxiv-src/ (beside the clone; never copied
into the repository), as bytes, as stand-in replies, and their ground truth (expected/<id>.json).

Each recording is JSON: {"request": {"method", "url"}, "status_code", "headers", "body_base64",
...}; the body is the exact bytes a client gets. The folder's README section "arxiv-src" says
which parts are real (the five papers' files) and which synthesized (the PDF, the error pages,
the redirect, every tar/gzip wrapper). Tests that need the folder skip, naming it, when it is
absent (`require()`).
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import tarfile
from functools import cache
from urllib.parse import urlsplit

from support import shared
from support.scripted_server import Reply

SRC_RECORDINGS = shared.path("recordings", "arxiv-src")  # found by support/shared.py
PAPERS = ("1010.3170", "1110.4324", "2008.10111", "2203.01718", "2405.16513")
# Sent by the stand-in for a /src path no recording holds (the shape of arXiv's "No document"
# page, the id put in its text: synthesized like the recording it copies).
UNKNOWN_ID_RECORDING = "2501.99999"
MAIN_2405 = "HK2024-counterexample.tex"  # 2405.16513's main file
# The .bib a copy of 2405.16513 is given (its source names references.bib and does not hold it):
# SYNTHESIZED for the tests, the two entries written from the arXiv records of the cited papers.
REFERENCES_BIB = r"""@article{bezdek-bezdek,
  author = {Bezdek, D\'aniel and Bezdek, K\'aroly},
  title = {Shortest billiard trajectories},
  year = {2011},
  eprint = {1110.4324},
}
@article{Mink-Bill-Rudolf,
  author = {Krupp, Stefan and Rudolf, Daniel},
  title = {The Minkowski billiard characterization of the {EHZ}-capacity of convex
    Lagrangian products},
  year = {2022},
  eprint = {2203.01718},
}
"""
ABSTRACT = re.compile(r"\\begin\{abstract\}(.*?)\\end\{abstract\}", re.S)


def present() -> bool:
    return SRC_RECORDINGS.is_dir()


def require() -> None:
    """Skip the calling test when the shared recordings are not beside the clone."""
    shared.require("recordings/arxiv-src")


def load(name: str) -> dict:
    """The recording `<name>.json` ("2008.10111", "abc", "e-print_2008.10111")."""
    require()
    return json.loads((SRC_RECORDINGS / f"{name}.json").read_text(encoding="utf-8"))


def body(name: str) -> bytes:
    return base64.b64decode(load(name)["body_base64"])


def expected(arxiv_id: str) -> dict:
    require()
    path = SRC_RECORDINGS / "expected" / f"{arxiv_id}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def reply(name: str) -> Reply:
    """The recording as a ScriptedServer reply: its status, headers and bytes (the stand-in's
    server sets Content-Length itself, so the recorded Transfer-Encoding is left out)."""
    recorded = load(name)
    headers = {
        key: value
        for key, value in recorded["headers"].items()
        if key.lower() not in ("transfer-encoding", "content-length")
    }
    return Reply(recorded["status_code"], base64.b64decode(recorded["body_base64"]), headers)


@cache
def _by_path() -> dict[str, str]:
    """Recorded request path ("/src/2008.10111", "/e-print/2008.10111") -> recording name."""
    if not present():
        return {}
    found = {}
    for path in sorted(SRC_RECORDINGS.glob("*.json")):
        url = json.loads(path.read_text(encoding="utf-8"))["request"]["url"]
        found[urlsplit(url).path] = path.stem
    return found


def answer(route: str) -> Reply:
    """The stand-in's answer to `/src/<id>` or `/e-print/<id>` (`route`, below the service
    prefix): the recording for that path; for any other id, arXiv's 404 "No document" page
    (synthesized from the recorded one); without the shared folder, a 404 saying so."""
    if not present():
        return Reply(404, f"the stand-in has no arXiv LaTeX source recordings ({SRC_RECORDINGS})\n")
    name = _by_path().get(route)
    if name is not None:
        return reply(name)
    asked = route.split("/", 2)[-1]
    unknown = reply(UNKNOWN_ID_RECORDING)
    page = unknown.payload().replace(UNKNOWN_ID_RECORDING.encode(), asked.encode())
    return Reply(404, page, unknown.headers)


def abstract(arxiv_id: str) -> str:
    """The abstract of a recorded paper, as its own LaTeX source writes it (the first
    `abstract` environment of its .tex files, whitespace folded; LaTeX kept); "" when the
    recording holds none. Read from ../shared, so that the repository holds no copy of it."""
    data = body(arxiv_id)
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    texts = [data]
    if tarfile.is_tarfile(io.BytesIO(data)):
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            texts = [
                archive.extractfile(member).read()  # type: ignore[union-attr]
                for member in archive.getmembers()
                if member.isfile() and member.name.endswith(".tex")
            ]
    for text in texts:
        found = ABSTRACT.search(text.decode("utf-8", errors="replace"))
        if found:
            return " ".join(found.group(1).split())
    return ""
