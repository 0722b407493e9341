"""A local HTTP server that answers from a script of responses and records every request.

For synthesized cases no recording covers (429, 503, truncated bodies, HTML error pages, timeouts):
each test queues exactly the answers it needs, then asserts on what arrived and when.
"""

from __future__ import annotations

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
    arrived: float  # time.time() on arrival


class ScriptedServer:
    """`with ScriptedServer([Reply(...), ...]) as server:` then point a client at `server.url`.

    Replies are used in order; once they run out, `default` answers every further request.
    A subclass may answer by computing a reply instead: it overrides `reply_to`.
    """

    def __init__(self, replies=(), default: Reply | None = None, port: int = 0):
        self.replies = deque(replies)
        self.default = default or Reply(500, "no scripted reply left")
        self.received: list[Received] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                received = Received(self.command, self.path, dict(self.headers), body, time.time())
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

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

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
