"""A local HTTP server that answers from a script of responses and records every request.

For synthesized cases no recording covers (429, 503, truncated bodies, HTML error pages, timeouts):
each test queues exactly the answers it needs, then asserts on what arrived and when.

When a request arrived is the kernel's word where it gives one (Linux: SO_TIMESTAMPNS, the moment
its first byte reached the server's socket), not the moment a busy server thread got round to
reading it: a rate-limit test measures the client, not the server's scheduling.
"""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (to provoke read timeouts)
    truncate_to: int | None = None  # send only this many body bytes but announce them all
    drip: float = 0.0  # seconds between body bytes, sent one at a time (a trickling server)

    def payload(self) -> bytes:
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body


@dataclass
class Received:
    method: str
    path: str  # path with query string, as sent
    headers: dict[str, str]
    body: bytes
    arrived: float  # time.time() on arrival: the kernel's receive time where it says (above)


# Linux's SO_TIMESTAMPNS (asm-generic/socket.h; the socket module does not name it): a socket
# with it set hands out, with the bytes it received, the time.time() they arrived.
SO_TIMESTAMPNS = 35


def _arrival(connection: socket.socket) -> float:
    """When the first unread byte on `connection` arrived (it waits for one), without reading it
    (a TLS connection's: the first byte of the record that carries the request)."""
    try:
        with socket.socket(fileno=os.dup(connection.fileno())) as raw:
            _data, ancillary, _flags, _address = raw.recvmsg(
                1, socket.CMSG_SPACE(16), socket.MSG_PEEK
            )
    except OSError:
        return time.time()
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            seconds, nanoseconds = struct.unpack("qq", data[:16])
            return seconds + nanoseconds / 1e9
    return time.time()


@dataclass(frozen=True)
class Tls:
    """HTTPS: the server's certificate and key (self_signed() makes a pair), and how long it
    waits before each new connection's handshake (a far server's round trips)."""

    certificate: str
    key: str
    handshake_delay: float = 0.0


def self_signed(folder, handshake_delay: float = 0.0) -> Tls:
    """A certificate for 127.0.0.1 and its key, made by openssl in `folder` (the test skips
    without openssl). A client trusts it through REQUESTS_CA_BUNDLE=<certificate>."""
    import pytest

    if shutil.which("openssl") is None:
        pytest.skip("needs openssl on PATH to make a test certificate")
    certificate, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return Tls(certificate, key, handshake_delay)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    tls: ssl.SSLContext | None = None

    def get_request(self):
        connection, address = super().get_request()
        if self.tls is not None:  # the handshake is the handler's (after its delay)
            connection = self.tls.wrap_socket(
                connection, server_side=True, do_handshake_on_connect=False
            )
        return connection, address

    def handle_error(self, request, client_address):  # a client that hung up, a refused cert
        pass


class ScriptedServer:
    """`with ScriptedServer([Reply(...), ...]) as server:` then point a client at `server.url`.

    Replies are used in order; once they run out, `default` answers every further request.
    A subclass may answer by computing a reply instead: it overrides `reply_to`. By default each
    connection carries one request (HTTP/1.0); `keep_alive` answers HTTP/1.1 and keeps it open
    for the next, as the real services do; `tls` serves HTTPS.
    """

    def __init__(
        self,
        replies=(),
        default: Reply | None = None,
        port: int = 0,
        keep_alive: bool = False,
        tls: Tls | None = None,
    ):
        self.replies = deque(replies)
        self.default = default or Reply(500, "no scripted reply left")
        self.received: list[Received] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"
            arrived = 0.0

            def setup(self):
                if tls is not None:
                    time.sleep(tls.handshake_delay)
                    self.request.do_handshake()
                super().setup()

            def handle_one_request(self):
                self.arrived = _arrival(self.connection)
                super().handle_one_request()

            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                received = Received(self.command, self.path, dict(self.headers), body, self.arrived)
                with outer._lock:
                    outer.received.append(received)
                    reply = outer.reply_to(received)
                if reply.delay:
                    time.sleep(reply.delay)
                payload = reply.payload()
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                sent = payload if reply.truncate_to is None else payload[: reply.truncate_to]
                try:
                    if reply.drip:
                        self.wfile.flush()
                        for byte in sent:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(reply.drip)
                    else:
                        self.wfile.write(sent)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                if reply.truncate_to is not None:
                    self.close_connection = True

            do_GET = do_POST = _answer

            def log_message(self, *args):  # keep test output clean
                pass

        self.httpd = _Server(("127.0.0.1", port), Handler)
        if sys.platform == "linux":  # the accepted sockets inherit it
            self.httpd.socket.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        if tls is not None:
            self.httpd.tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            self.httpd.tls.load_cert_chain(tls.certificate, tls.key)
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"

    def reply_to(self, received: Received) -> Reply:
        """The answer to one request (called under the server's lock): the next scripted reply."""
        return self.replies.popleft() if self.replies else self.default

    def __enter__(self) -> ScriptedServer:
        # A short poll interval: shutdown() waits for one poll, 0.5 s by default.
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
