"""One HTTP layer for every service: polite across processes, retried within bounds, cached.

- A cross-process rate limiter: a file lock plus the next free start time in the user's runtime
  folder (core's runtime_dir(), one per user and host whatever MATH_CACHE_DIR says), so parallel
  script runs together start a service's requests at least its interval apart (arXiv: 3 s).
  The lock is held only to reserve a start time, never during a transfer: a slow answer cannot
  make other processes wait (two slow answers may then overlap). A request takes its turn
  ready to go, its connection open (transport.py), so it arrives when its turn starts, a
  process's first request as much as its next.
- A deadline on every request: MATH_HTTP_TIMEOUT seconds from sending it to its last byte (a
  server trickling one byte at a time is cut off), and at most MAX_CALL_S for a call with all its
  retries and waits; a body over transport.MAX_BODY_BYTES is refused.
- Bounded retries with exponential backoff and jitter on 429, 5xx, connection errors, timeouts and
  unusable bodies (truncated XML, a transiently empty page), honouring Retry-After up to
  MAX_RETRY_AFTER_S; a service asking for a longer wait is failing now.
- A connection refused or a host name that does not resolve is no passing hiccup: one quick retry
  (UNREACHABLE_RETRY_S), then the service counts as failing for the rest of the process (every
  later request to its host fails at once, without a network call).
- A persistent SQLite response cache keyed by method, URL and body. A hit costs no network call and
  no rate-limit wait. Only successful (200) responses are stored, and never any request header, so
  a secret such as an API key reaches neither the cache file nor its keys. A check may accept an
  answer but keep it out of the cache (DO_NOT_CACHE): one it believes only for want of a better.
- A line on stderr whenever the limiter or a backoff makes the user wait.

`requests` is imported only on a cache miss: a cached call starts fast.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus, urlencode, urlsplit

from ..core import (
    EXIT_BAD_INPUT,
    BadInput,
    EnvironmentProblem,
    ServiceError,
    atomic_write,
    cache_dir,
    cache_ttl,
    http_backoff,
    http_retries,
    http_timeout,
    locked,
    printable,
    redact,
    runtime_dir,
    user_agent,
)
from . import transport
from .transport import DeadlineExceeded

if TYPE_CHECKING:  # requests is imported on a cache miss only (see above)
    import requests

Check = Callable[["Response"], object]  # see ServiceClient.request
# Whether a 404 is the service's own "no such record" (an answer, cached) rather than a wrong
# base URL or a proxy's page (a failing service: never cached); see ServiceClient.request.
NotFound = Callable[["Response"], bool]
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 60.0  # a longer Retry-After: the service counts as failing, no waiting
MAX_BACKOFF_S = 60.0
MAX_CALL_S = 300.0  # one call, every attempt and wait included
CONNECT_TIMEOUT_S = 10.0
LIMITER_LOCK_TIMEOUT_S = 60.0  # the limiter's lock is held for a moment: waiting longer is odd
# Added to a service's interval between request starts: connection set-up varies by some
# milliseconds, and the service measures the interval between arrivals.
START_MARGIN_S = 0.05
# A limiter wait at least this long is announced on stderr (shorter ones are not noticeable),
# once a process for each service: the rule, not each wait (a literature search waited for
# arXiv's turn 26 times, 26 lines of the model's reading saying the same).
ANNOUNCED_WAIT_S = 0.1
ANNOUNCED: set[str] = set()  # the services whose waits this process has announced
UNREACHABLE_RETRY_S = 0.5  # the one retry after a refused or unresolvable connection
# (service name, host) -> why: services this process found unreachable (see the docstring)
UNREACHABLE: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Response:
    """What a service answered. `url` is the request URL as sent (it never carries a secret)."""

    status: int
    content: bytes
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)  # lower-case names
    from_cache: bool = False

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.content)


class RequestRejected(ServiceError):
    """A service refused the request (HTTP 400, an unknown endpoint): bad input at a script's
    command line (exit 2), and, being a ServiceError, a failing source for the verification gate,
    so the other services go on verifying."""

    exit_code = EXIT_BAD_INPUT
    default_code = "request_rejected"


class UnusableBody(Exception):
    """Raised by a response check: this 200 answer is unusable; the request should be retried."""


def json_holding(response: Response, key: str, kind: type, what: str) -> None:
    """A response check: UnusableBody unless the answer is a JSON object whose `key` is a `kind`
    (`what` names it in the error: "Crossref's message object")."""
    try:
        data = response.json()
    except ValueError:
        raise UnusableBody("an answer that is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get(key), kind):
        raise UnusableBody(f"an answer without {what}")


# Returned by a response check: use this answer, but do not store it in the cache (it may be a
# transient one, such as an empty page where results were expected, that a later call should not
# be served for a day).
DO_NOT_CACHE = object()


def build_url(base: str, params: Mapping[str, object], safe: str = "") -> str:
    """`base?params`, with spaces as '+' and everything but `safe` percent-encoded."""
    items = [(k, str(v)) for k, v in params.items() if v is not None]
    if not items:
        return base
    return f"{base}?{urlencode(items, safe=safe, quote_via=quote_plus)}"


def say(message: str) -> None:
    print(f"math: {printable(redact(message))}", file=sys.stderr, flush=True)


class ResponseCache:
    """Successful responses on disk, keyed by a digest of method, URL and body."""

    def __init__(self, path: Path, ttl: float):
        self.path = path
        self.ttl = ttl
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            try:
                self._db = sqlite3.connect(self.path, timeout=30)
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, url TEXT NOT NULL,"
                    " status INTEGER NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL,"
                    " stored_at REAL NOT NULL)"
                )
            except sqlite3.Error as exc:
                self._db = None
                raise _unusable_cache(self.path, str(exc)) from None
        return self._db

    @staticmethod
    def key(method: str, url: str, body: bytes | None) -> str:
        digest = hashlib.sha256(f"{method} {url}\n".encode())
        digest.update(body or b"")
        return digest.hexdigest()

    def get(self, key: str) -> Response | None:
        row = (
            self._connect()
            .execute(
                "SELECT url, status, headers, body, stored_at FROM responses WHERE key = ?", (key,)
            )
            .fetchone()
        )
        if row is None or time.time() - row[4] > self.ttl:
            return None
        return Response(row[1], bytes(row[3]), row[0], json.loads(row[2]), from_cache=True)

    def put(self, key: str, response: Response) -> None:
        # Only a few response headers are useful later; request headers are never stored.
        headers = {k: v for k, v in response.headers.items() if k in ("content-type", "date")}
        with self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    response.url,
                    response.status,
                    json.dumps(headers),
                    response.content,
                    time.time(),
                ),
            )


class RateLimiter:
    """At most one request start per `interval` seconds for one service, across every process.

    A turn is taken with the request ready to go (transport.py: prepared, connection open), and
    the reservation is replaced without an fsync (its loss in a crash costs one turn): a first
    call, which waits for nobody, then starts within a moment of the time it reserved, as a
    waiting call does when it wakes (an fsync under the lock once made a first start late by its
    duration, and so a process's first gap short).
    """

    def __init__(self, name: str, source_name: str, interval: float, state_dir: Path):
        self.source_name = source_name
        self.interval = interval
        # "<next free start> <when written>", both time.time(): a reservation, not a lock
        self.stamp = state_dir / f"ratelimit-{name}.next"

    def wait_turn(self) -> None:
        """Reserve the next free start time (under the lock, for a moment), then wait for it
        without holding anything."""
        with locked(self.stamp, timeout=LIMITER_LOCK_TIMEOUT_S):
            now = time.time()
            free, written = self._read()
            if written > now + 1:
                free = now  # the clock was set back since: the stored times mean nothing
            start = max(now, free)
            following = start + self.interval + (START_MARGIN_S if self.interval else 0.0)
            atomic_write(self.stamp, f"{following!r} {now!r}", durable=False)
        wait = start - time.time()
        if wait > 0:
            if wait >= ANNOUNCED_WAIT_S and self.source_name not in ANNOUNCED:
                ANNOUNCED.add(self.source_name)
                say(
                    f"waiting {wait:.1f} s to respect {self.source_name}'s rate limit (one "
                    f"request every {self.interval:g} s; later waits go unsaid)"
                )
            time.sleep(wait)

    def free_in(self) -> float:
        """Seconds until the next free start, 0 when it is free now (read without the lock: the
        reservation is replaced in one step)."""
        now = time.time()
        free, written = self._read()
        return 0.0 if written > now + 1 else max(0.0, free - now)

    def _read(self) -> tuple[float, float]:
        try:
            free, _, written = self.stamp.read_text(encoding="utf-8").partition(" ")
            return float(free), float(written or free)
        except (OSError, ValueError):  # none yet, or lost in a crash: no reservation stands
            return 0.0, 0.0


class ServiceClient:
    """HTTP for one service. Non-retryable answers (400, 404, ...) are returned for the caller to
    interpret; retryable ones that persist past the retries raise ServiceError (exit code 3)."""

    def __init__(
        self,
        name: str,
        source_name: str,
        min_interval: float,
        headers: Mapping[str, str] | None = None,
        use_cache: bool = True,
    ):
        self.name = name
        self.source_name = source_name
        self.headers = {"User-Agent": user_agent(), **(headers or {})}
        self.use_cache = use_cache
        self.limiter = RateLimiter(name, source_name, min_interval, runtime_dir())
        self.cache = ResponseCache(_usable_cache_dir() / "http-cache.sqlite", cache_ttl())
        self.retries = http_retries()
        self.backoff = http_backoff()
        self.deadline = http_timeout()  # seconds for one request, first to last byte
        self.network_calls = 0
        self._session: requests.Session | None = None

    def get(
        self, url: str, check: Check | None = None, cache_not_found: bool | NotFound = False
    ) -> Response:
        return self.request("GET", url, check=check, cache_not_found=cache_not_found)

    def post(self, url: str, json_body: object, check: Check | None = None) -> Response:
        body = json.dumps(json_body, separators=(",", ":"), sort_keys=True).encode()
        return self.request("POST", url, body=body, check=check)

    def request(
        self,
        method: str,
        url: str,
        body: bytes | None = None,
        check: Check | None = None,
        headers: Mapping[str, str] | None = None,
        cache_not_found: bool | NotFound = False,
    ) -> Response:
        """Send (or answer from the cache). `check` sees every fresh 200: it may raise UnusableBody
        to have it retried, or return DO_NOT_CACHE to have it returned but not stored. With
        `cache_not_found`, a 404 is an answer too (a title no paper matches) and is stored; given
        as a function, only a 404 it accepts as the service's own "not found" is stored."""
        key = ResponseCache.key(method, url, body)
        if self.use_cache:
            cached = self.cache.get(key)
            if cached is not None:
                return cached
        host = (self.name, urlsplit(url).netloc)
        if host in UNREACHABLE:
            raise ServiceError(
                f"{self.source_name} unreachable earlier in this run ({UNREACHABLE[host]}); "
                f"not asked again: {url}",
                code="service_unavailable",
            )
        problem, retry_after = "", None
        ends = time.monotonic() + MAX_CALL_S
        unreachable = 0  # refused or unresolvable connections so far
        for attempt in range(self.retries + 1):
            if unreachable:
                if unreachable > 1 or attempt > self.retries:
                    break
                time.sleep(UNREACHABLE_RETRY_S)
            elif attempt:
                if retry_after is not None and retry_after > MAX_RETRY_AFTER_S:
                    raise ServiceError(
                        f"{self.source_name} asks to retry after {retry_after:g} s ({problem}); "
                        f"not waiting that long: {url}",
                        code="service_unavailable",
                    )
                if not self.back_off(attempt, problem, retry_after, ends=ends):
                    break
            retry_after = None
            try:
                response = self._send(method, url, body, headers)
            except DeadlineExceeded:
                problem = f"no complete answer within the {self.deadline:g} s deadline"
                continue
            except transport.transient_errors() as exc:
                problem = f"{type(exc).__name__}"
                if transport.unreachable(exc):
                    unreachable += 1
                    problem = f"connection refused or unresolvable: {type(exc).__name__}"
                continue
            except transport.url_errors() as exc:
                # A malformed base URL (e.g. MATH_ARXIV_API_URL without https://) is the
                # caller's input, not a bug and not worth retrying; a well-formed one that
                # failed so was redirected (to file:///..., to junk): the service's failure.
                if not transport.requestable(url):
                    raise BadInput(
                        f"{self.source_name}: cannot request {url}: {exc}", code="bad_url"
                    ) from None
                raise ServiceError(
                    f"{self.source_name} redirected to an address it may not: {url}",
                    code="service_unavailable",
                ) from None
            except transport.request_errors() as exc:  # a redirect loop, a broken header, ...
                raise ServiceError(
                    f"{self.source_name} failed ({type(exc).__name__}): {url}",
                    code="service_unavailable",
                ) from None
            if response.status in RETRY_STATUSES:
                problem = f"HTTP {response.status}"
                retry_after = _retry_after(response.headers.get("retry-after"))
                continue
            verdict = None
            if response.status == 200 and check is not None:
                try:
                    verdict = check(response)
                except UnusableBody as exc:
                    problem = str(exc)
                    continue
            if (response.status == 200 and verdict is not DO_NOT_CACHE) or (
                response.status == 404
                and (cache_not_found(response) if callable(cache_not_found) else cache_not_found)
            ):
                self.cache.put(key, response)
            return response
        if unreachable:
            UNREACHABLE[host] = problem
            raise ServiceError(
                f"{self.source_name} unreachable, connection {problem.removeprefix('connection ')}"
                f" (tried {unreachable} times; not asked again in this run): {url}",
                code="service_unavailable",
            )
        raise ServiceError(
            f"{self.source_name} still failing after {self.retries + 1} attempts ({problem}): "
            f"{url}",
            code="service_unavailable",
        )

    def _send(
        self, method: str, url: str, body: bytes | None, headers: Mapping[str, str] | None
    ) -> Response:
        if self._session is None:
            self._session = transport.new_session()
        send_headers = {**self.headers, **(headers or {})}
        if body is not None:
            send_headers["Content-Type"] = "application/json"
        self.network_calls += 1
        # All that takes time before the first byte leaves comes before the turn (transport.py)
        request, settings = transport.prepare(self._session, method, url, body, send_headers)
        connect_timeout = min(CONNECT_TIMEOUT_S, self.deadline)
        connection = transport.connect_ahead(self._session, request, settings, connect_timeout)
        self.limiter.wait_turn()
        transport.read_pending_records(connection)
        deadline = time.monotonic() + self.deadline
        reply = self._session.send(request, timeout=(connect_timeout, self.deadline), **settings)
        try:
            content = transport.read_body(reply, deadline, self.source_name)
        finally:
            reply.close()
        return Response(
            reply.status_code, content, url, {k.lower(): v for k, v in reply.headers.items()}
        )

    def back_off(
        self,
        attempt: int,
        problem: str,
        retry_after: float | None = None,
        budget: int | None = None,
        ends: float | None = None,
    ) -> bool:
        """Sleep before retry `attempt` (1-based) of `budget` (the HTTP retries unless a caller
        counts retries of its own), saying why on stderr. The sleep lasts at least until the
        rate limit's next turn, so that one line says the whole wait (a backoff shorter than the
        service's interval was followed by a second line, the limiter's "waiting", before each
        retry). False, without sleeping, when the sleep and one more request would end past
        `ends` (a time.monotonic() value)."""
        if retry_after is not None:
            delay = retry_after
        else:
            base = min(MAX_BACKOFF_S, self.backoff * 2 ** (attempt - 1))
            delay = base * (0.5 + random.random() / 2)
        delay = max(delay, self.limiter.free_in())
        if ends is not None and time.monotonic() + delay + self.deadline > ends:
            return False
        if delay >= 0.05:
            say(
                f"{self.source_name}: {problem}; retrying in {delay:.1f} s "
                f"(retry {attempt} of {self.retries if budget is None else budget})"
            )
        time.sleep(delay)
        return True


def _usable_cache_dir() -> Path:
    """The cache folder, created if need be; EnvironmentProblem naming it when it cannot be used."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # A real write, not os.access: root "may" write /proc, where no file can be created (a
        # lock there was retried until its timeout).
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise _unusable_cache(folder, exc.strerror or str(exc)) from None
    return folder


def _unusable_cache(path: Path, reason: str) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"cannot use the HTTP cache at {path} ({reason}); "
        "point MATH_CACHE_DIR at a writable folder",
        code="cache_unusable",
    )


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date); the caller caps them."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return max(seconds, 0.0) if math.isfinite(seconds) else None
