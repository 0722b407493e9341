"""The `requests` side of one HTTP call, under the HTTP layer (http.py): a session that keeps
secrets on their host, the request prepared and its connection opened before the rate limiter's
turn, the body read to a deadline, and which of requests' errors mean what.

Why the connection is opened first: a service measures the interval between the arrivals of
requests, and the limiter reserves their starts. A request on a new connection arrives its set-up
later than its start (DNS, TCP, a TLS handshake: some round trips), the next one on the kept-open
connection at once; so a process's first gap came short by that set-up (2.94 s for arXiv's 3 s).
Everything that takes time before the first byte leaves (preparing the request, reading the
environment's proxies and CA bundle, connecting) therefore happens before the turn, and the turn
is followed by the send alone.

`requests` is imported inside the functions: a call the cache answers never imports it.
"""

from __future__ import annotations

import contextlib
import ssl
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from ..core import USER_AGENT, ServiceError

if TYPE_CHECKING:  # imported on a cache miss only (see above)
    import requests

MAX_BODY_BYTES = 64 << 20
READ_CHUNK = 1 << 16
# Headers that carry a secret: dropped when a redirect leaves the host (requests drops only
# Authorization by itself); the User-Agent, which carries the contact address, is reset to the
# product token.
SECRET_HEADERS = ("x-api-key",)


class Connection(Protocol):
    """What is used here of a kept-open connection (urllib3's HTTP(S)Connection)."""

    is_closed: bool
    timeout: object  # a number of seconds is set
    sock: object  # a socket once connected (an ssl.SSLSocket over TLS)

    def connect(self) -> None: ...

    def close(self) -> None: ...


class DeadlineExceeded(Exception):
    """A request's answer did not arrive in full before its deadline (retried like a timeout)."""


def new_session() -> requests.Session:
    """A requests Session that never forwards a secret header to another host."""
    import requests

    class Session(requests.Session):
        def rebuild_auth(
            self, prepared_request: requests.PreparedRequest, response: requests.Response
        ) -> None:
            # types-requests leaves these two methods unannotated
            super().rebuild_auth(prepared_request, response)  # type: ignore[no-untyped-call]
            strip = self.should_strip_auth(  # type: ignore[no-untyped-call]
                response.request.url, prepared_request.url
            )
            if strip:
                for name in SECRET_HEADERS:
                    prepared_request.headers.pop(name, None)
                # the contact address travels in the User-Agent: another host gets the product
                prepared_request.headers["User-Agent"] = USER_AGENT

    return Session()


def prepare(
    session: requests.Session,
    method: str,
    url: str,
    body: bytes | None,
    headers: Mapping[str, str],
) -> tuple[requests.PreparedRequest, dict[str, Any]]:
    """The request as `session.request` would send it, and the settings it would send it with
    (the environment's proxies and CA bundle; streamed): `session.send(request, **settings)`."""
    import requests

    request = session.prepare_request(
        requests.Request(method, url, data=body or {}, headers=dict(headers))
    )
    settings = session.merge_environment_settings(request.url, {}, True, None, None)
    return request, dict(settings)


def connect_ahead(
    session: requests.Session,
    request: requests.PreparedRequest,
    settings: Mapping[str, Any],
    timeout: float,
) -> Connection | None:
    """Open the kept-open connection `session.send(request, **settings)` will take, unless it is
    open already (module doc), and return it (None through a proxy: urllib3 sets up the tunnel
    on a new connection only, at the send). A failure to connect raises what the send would have
    raised (requests.ConnectionError, ConnectTimeout or SSLError, the cause in `.args[0]`)."""
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.exceptions import ConnectTimeoutError, HTTPError, MaxRetryError, NewConnectionError
    from urllib3.exceptions import SSLError as TlsFailure
    from urllib3.util.wait import wait_for_read

    adapter = session.get_adapter(str(request.url))
    if not isinstance(adapter, HTTPAdapter):
        return None
    pool: Any = adapter.get_connection_with_tls_context(  # an HTTP(S)ConnectionPool
        request, settings.get("verify", True), settings.get("proxies"), settings.get("cert")
    )
    if pool.proxy is not None:
        return None
    connection: Connection = (
        pool._get_conn()
    )  # the pool hands this one to the send next (last in, first out)
    try:
        if connection.is_closed:
            connection.timeout = timeout
            began = time.monotonic()
            connection.connect()
            sock = connection.sock
            if isinstance(sock, ssl.SSLSocket) and sock.version() == "TLSv1.3":
                # its session tickets follow the handshake by a round trip: at most its time
                wait_for_read(sock, timeout=time.monotonic() - began)
                read_pending_records(connection)
    except (HTTPError, OSError) as exc:
        connection.close()
        cause: Exception = TlsFailure(exc) if isinstance(exc, ssl.SSLError) else exc
        failure = MaxRetryError(pool, request.path_url, cause)
        if isinstance(cause, ConnectTimeoutError) and not isinstance(cause, NewConnectionError):
            raise requests.ConnectTimeout(failure, request=request) from None
        if isinstance(cause, TlsFailure):
            raise requests.exceptions.SSLError(failure, request=request) from None
        raise requests.ConnectionError(failure, request=request) from None
    finally:
        pool._put_conn(connection)
    return connection


def read_pending_records(connection: Connection | None) -> None:
    """Take in what a TLS server sent on an idle connection unasked (TLS 1.3 session tickets,
    sent once the handshake is done), without waiting. Left unread, they make the fresh
    connection look readable, which urllib3 takes for one the server closed: it would connect
    again at the send, after the turn. App data or the end of the connection (the server did
    close it) closes it here, and the send connects anew."""
    sock = getattr(connection, "sock", None)
    if connection is None or not isinstance(sock, ssl.SSLSocket):
        return
    timeout = sock.gettimeout()
    sock.settimeout(0.0)
    try:
        sock.recv(1)  # when nothing but TLS's own records had come: SSLWantReadError
    except ssl.SSLWantReadError:
        sock.settimeout(timeout)  # a quiet connection, ready for the send
        return
    except OSError:
        pass
    connection.close()


def read_body(reply: requests.Response, deadline: float, source_name: str) -> bytes:
    """The body of a streamed requests answer, read as it arrives until `deadline` (a
    time.monotonic() value): a trickle of bytes, each within the read timeout, still ends there."""
    import requests
    from urllib3.exceptions import HTTPError, ReadTimeoutError
    from urllib3.response import HTTPResponse

    raw: Any = reply.raw  # urllib3 1 or 2, or vcrpy's replay: no one type fits them all
    if isinstance(raw, HTTPResponse) and hasattr(raw, "read1"):

        def read() -> bytes:  # urllib3 2: whatever has arrived, without waiting for more
            return raw.read1(READ_CHUNK, decode_content=True)
    else:  # another transport (vcrpy's replay, urllib3 1): requests reads it its own way
        pieces = reply.iter_content(READ_CHUNK)

        def read() -> bytes:
            return next(pieces, b"")

    chunks: list[bytes] = []
    size = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise DeadlineExceeded
        with contextlib.suppress(AttributeError, OSError):
            raw.connection.sock.settimeout(remaining)  # a silent server ends at the deadline too
        try:
            chunk = read()
        except (ReadTimeoutError, TimeoutError):
            raise DeadlineExceeded from None
        except (HTTPError, OSError) as exc:
            raise requests.exceptions.ChunkedEncodingError(str(exc)) from None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ServiceError(
                f"{source_name} sent an answer larger than {MAX_BODY_BYTES >> 20} MB: {reply.url}",
                code="service_unavailable",
            )


def transient_errors() -> tuple[type[BaseException], ...]:
    """What requests raises for a failure worth retrying: no connection, a timeout, a cut body."""
    import requests

    return (
        requests.ConnectionError,
        requests.Timeout,
        requests.exceptions.ChunkedEncodingError,
        requests.exceptions.ContentDecodingError,
    )


def unreachable(exc: BaseException) -> bool:
    """Whether a requests error is a connection refused or a host name that did not resolve (no
    connection was made at all), as opposed to a timeout or a connection cut mid-answer."""
    import requests
    from urllib3.exceptions import NewConnectionError

    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return (
        isinstance(exc, requests.ConnectionError)
        and not isinstance(exc, requests.Timeout)
        and isinstance(reason, NewConnectionError)
    )


def url_errors() -> tuple[type[BaseException], ...]:
    """What requests raises for an address it cannot request (no scheme, a scheme it lacks)."""
    import requests

    return (
        requests.exceptions.InvalidURL,
        requests.exceptions.MissingSchema,
        requests.exceptions.InvalidSchema,
    )


def request_errors() -> tuple[type[BaseException], ...]:
    """Every other failure the HTTP stack raises: a service failure, never a traceback."""
    import http.client

    import requests

    return (requests.RequestException, http.client.HTTPException, ValueError, OSError)


def requestable(url: str) -> bool:
    """Whether `url` is an http(s) address with a host that requests can send."""
    import requests

    try:
        parts = urlsplit(url)
        requests.PreparedRequest().prepare_url(url, None)
    except (ValueError, requests.RequestException):
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)
