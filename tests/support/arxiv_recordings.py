"""Real arXiv answers from ../shared/recordings/arxiv/ (support/shared.py), as bytes and as
ScriptedServer replies.

The recordings store the raw response bytes decoded as latin-1 (see their README), so the real
UTF-8 XML is `body.encode("latin-1")`; reading the body as text would give mojibake.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from support import shared
from support.scripted_server import Reply

ARXIV_RECORDINGS = shared.RECORDINGS / "arxiv"
ATOM_TYPE = {"Content-Type": "application/atom+xml; charset=utf-8"}


def recording_path(prefix: str) -> Path:
    """The one recording whose name starts with `prefix` ("id_abc_", "earlier-2026/q_testing_")."""
    shared.require("recordings/arxiv")
    found = sorted(ARXIV_RECORDINGS.glob(f"{prefix}*.json"))
    assert len(found) == 1, f"{prefix!r} matches {found}"
    return found[0]


def load(prefix: str) -> dict:
    return json.loads(recording_path(prefix).read_text(encoding="utf-8"))


def body(prefix: str) -> bytes:
    """The response bytes exactly as arXiv sent them."""
    return body_of(recording_path(prefix))


def body_of(path: Path) -> bytes:
    return json.loads(path.read_text(encoding="utf-8"))["body"].encode("latin-1")


def reply(prefix: str) -> Reply:
    """The recording as a ScriptedServer reply: same status, same bytes."""
    recording = load(prefix)
    return Reply(recording["status_code"], body(prefix), dict(ATOM_TYPE))


def query_params(url: str) -> dict[str, str]:
    """A URL's (or a received request path's) query parameters, decoded, one value each."""
    query = parse_qs(urlsplit(url).query, keep_blank_values=True)
    return {name: values[0] for name, values in query.items()}


def all_recordings() -> list[Path]:
    return sorted(ARXIV_RECORDINGS.rglob("*.json"))
