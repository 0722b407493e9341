"""Replay recorded HTTP interactions (vcrpy cassettes) through a local ScriptedServer.

The recordings come in two YAML flavours, and both go through `load`:
- vcrpy's own: `response: {status: {code: ...}, body: {string: ...}}`;
- the older httpx one: `response: {status_code: ..., content: ...}`.
A single file may mix them (errors/500_batch.yaml does).

`serving_s2(interactions, monkeypatch)` serves the recorded answers in order, with
MATH_S2_API_URL at the local server (recorded URLs use the real host). Afterwards `mismatches`
says where the requests that arrived differ from the recorded ones (method, path, query
parameters as a set, JSON body), so a replay test checks what we sent as well as what we do with
the answer.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

import yaml

from . import shared
from .scripted_server import Received, Reply, ScriptedServer

BASE_PATH = "/graph/v1"
# Hop-by-hop and framing headers describe the original transfer, not the body we serve.
NOT_REPLAYED = {"connection", "content-length", "content-encoding", "transfer-encoding"}


@dataclass(frozen=True)
class Interaction:
    method: str
    uri: str
    request_body: bytes
    status: int
    headers: dict[str, str]
    body: bytes

    def reply(self) -> Reply:
        headers = {k: v for k, v in self.headers.items() if k.lower() not in NOT_REPLAYED}
        return Reply(self.status, self.body, headers)

    @property
    def params(self) -> list[tuple[str, str]]:
        return parse_qsl(urlsplit(self.uri).query, keep_blank_values=True)

    def param(self, name: str) -> str:
        return dict(self.params)[name]

    @property
    def json_body(self):
        return _json(self.request_body) if self.request_body else None


@functools.cache
def load(path: Path) -> tuple[Interaction, ...]:
    """Every interaction of a cassette, whichever flavour each one is in."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: large cassettes load fast
    data = yaml.load(shared.need(path).read_text(encoding="utf-8"), Loader=loader)
    return tuple(_interaction(item["request"], item["response"]) for item in data["interactions"])


def _interaction(request: dict, response: dict) -> Interaction:
    if "status_code" in response:  # httpx flavour
        status, body = response["status_code"], response.get("content")
    else:  # vcrpy flavour
        status, body = response["status"]["code"], (response.get("body") or {}).get("string")
    headers = {
        name: values[0] if isinstance(values, list) else values
        for name, values in (response.get("headers") or {}).items()
    }
    return Interaction(
        method=request["method"],
        uri=request["uri"],
        request_body=_bytes(request.get("body") or request.get("content")),
        status=int(status),
        headers=headers,
        body=_bytes(body),
    )


def _bytes(value) -> bytes:
    if value is None:
        return b""
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


@contextlib.contextmanager
def serving_s2(items: Iterable[Interaction | Reply], monkeypatch) -> Iterator[ScriptedServer]:
    """Serve recorded interactions (or scripted Replies) in order, with MATH_S2_API_URL pointing
    at the server, so the client in this process and scripts started now both reach it."""
    replies = [item if isinstance(item, Reply) else item.reply() for item in items]
    with ScriptedServer(replies) as server:
        monkeypatch.setenv("MATH_S2_API_URL", server.url + BASE_PATH)
        yield server


def mismatches(
    received: Sequence[Received],
    recorded: Sequence[Interaction],
    ignore_params: Iterable[str] = (),
) -> list[str]:
    """Where the requests that arrived differ from the recorded ones; [] when they agree.

    Paths and ids compare case-insensitively and without a `DOI:` prefix: S2 treats
    `CorpusID:`/`CorpusId:` and a bare or prefixed DOI alike, and our client always sends the
    prefix. `ignore_params` names query parameters a recording client sent that do not change
    the answer (e.g. offset/limit on bulk search, which pages by token).
    """
    ignored = set(ignore_params)
    problems = []
    if len(received) != len(recorded):
        problems.append(f"{len(received)} requests arrived, {len(recorded)} recorded")
    for n, (got, want) in enumerate(zip(received, recorded, strict=False)):
        got_split, want_split = urlsplit(got.path), urlsplit(want.uri)
        if got.method != want.method:
            problems.append(f"#{n}: method {got.method} != {want.method}")
        got_path = _canonical(got_split.path)
        want_path = _canonical(want_split.path)
        if got_path != want_path:
            problems.append(f"#{n}: path {got_path} != {want_path}")
        got_params = _params(got_split.query, ignored)
        want_params = _params(want_split.query, ignored)
        if got_params != want_params:
            problems.append(f"#{n}: query {got_params} != {want_params}")
        if want.request_body and _ids(got.body) != _ids(want.request_body):
            problems.append(f"#{n}: body {got.body!r} != {want.request_body!r}")
    return problems


def _canonical(text: str) -> str:
    return unquote(text).lower().replace("doi:", "")


def _params(query: str, ignored: set[str]) -> list[tuple[str, str]]:
    return sorted(
        (name, value)
        for name, value in parse_qsl(query, keep_blank_values=True)
        if name not in ignored
    )


def _json(body: bytes):
    data = json.loads(body)
    # The older recording client posted json.dumps(payload) as a JSON string: decode it again.
    return json.loads(data) if isinstance(data, str) else data


def _ids(body: bytes) -> list[str]:
    return [_canonical(paper_id) for paper_id in _json(body)["ids"]]
