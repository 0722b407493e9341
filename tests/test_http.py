"""The shared HTTP layer against a local server: rate limit across processes, retries, cache.

Every failing answer here (429, 503, slow, cut off) is synthesized by ScriptedServer; no recording
has them for arXiv.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from itertools import pairwise

import pytest
from conftest import DEAD_URL, SCRIPTS
from mathtools.core import BY_CODE, runtime_dir
from mathtools.core.errors import BadInput, EnvironmentProblem, ServiceError
from mathtools.services import http
from mathtools.services.http import DO_NOT_CACHE, ServiceClient, UnusableBody, build_url
from support.scripted_server import Reply, ScriptedServer, self_signed

OK = Reply(200, "ok", {"Content-Type": "text/plain"})


def client(interval: float = 0.0, **kwargs) -> ServiceClient:
    return ServiceClient("test", "Test service", interval, **kwargs)


CLIENT_PROCESS = """
import sys
sys.path.insert(0, sys.argv[1])
from mathtools.services.http import ServiceClient
service = ServiceClient("test", "Test service", float(sys.argv[3]), use_cache=False)
for n in range(int(sys.argv[4])):
    service.get(f"{sys.argv[2]}/{sys.argv[5]}/{n}")
"""


def _gaps_of_two_processes(
    server: ScriptedServer, interval: float, each: int, caches=(None, None), **env: str
):
    """Two processes fetch `each` requests at once from `server` (with the MATH_CACHE_DIR of
    `caches` when given): the gaps between the arrivals of all their requests, in order (the
    server's kernel says when each arrived)."""
    procs = []
    for name, cache in zip(("a", "b"), caches, strict=True):
        argv = [CLIENT_PROCESS, str(SCRIPTS), server.url, str(interval), str(each), name]
        own = {"MATH_CACHE_DIR": str(cache)} if cache else {}
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", *argv],
                stderr=subprocess.PIPE,
                env={**os.environ, **env, **own},
            )
        )
    errors = [proc.communicate(timeout=60)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], errors
    assert {r.path.split("/")[1] for r in server.received} == {"a", "b"}
    arrivals = sorted(r.arrived for r in server.received)
    assert len(arrivals) == 2 * each
    return [later - earlier for earlier, later in pairwise(arrivals)]


def test_rate_limit_holds_across_two_processes():
    """Two processes fetch at once; every request arrives >= the interval after the previous."""
    interval = 0.3
    with ScriptedServer(default=OK) as server:
        gaps = _gaps_of_two_processes(server, interval, 3)
    assert min(gaps) >= interval, gaps


def test_two_cache_folders_keep_arxivs_gap(tmp_path):
    """The report: two MATH_CACHE_DIR values gave a 0.221 s arXiv gap. The limiter's state is
    the user's (XDG_RUNTIME_DIR, here the test's), whatever the cache folder."""
    interval = BY_CODE["arxiv"].min_interval  # 3 s
    caches = (tmp_path / "cache-a", tmp_path / "cache-b")
    with ScriptedServer(default=OK) as server:
        (gap,) = _gaps_of_two_processes(server, interval, 1, caches)
    assert gap >= interval, gap


def test_the_rate_limits_state_is_private_to_the_user(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert client().limiter.stamp.parent == runtime_dir() == tmp_path / "math"
    assert stat.S_IMODE((tmp_path / "math").stat().st_mode) == 0o700
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert runtime_dir().name == f"math-{os.getuid()}"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "math").rmdir()
    (tmp_path / "math").symlink_to(tmp_path / "elsewhere")  # not a folder of the user's own
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    with pytest.raises(EnvironmentProblem) as caught:
        runtime_dir()
    assert caught.value.code == "runtime_unusable"


def test_rate_limit_holds_from_the_first_call_when_connecting_takes_long(tmp_path):
    """A process's first request opens its connection (at arXiv: a TLS handshake, some round
    trips) before the limiter's turn, not after it: with 0.4 s handshakes on connections kept
    open, every request still arrives >= the interval after the previous, first calls included
    (it was 0.15 s for 0.5 s: the first call arrived 0.4 s after its turn, the second at once)."""
    interval, tls = 0.5, self_signed(tmp_path, handshake_delay=0.4)
    with ScriptedServer(default=OK, keep_alive=True, tls=tls) as server:
        gaps = _gaps_of_two_processes(server, interval, 3, REQUESTS_CA_BUNDLE=tls.certificate)
    assert min(gaps) >= interval, gaps


def test_waiting_for_the_limiter_is_announced_on_stderr_once(capsys, monkeypatch):
    """Once a process for each service: a literature search in issue 51's play read the same
    line 26 times (about 1,400 characters)."""
    monkeypatch.setattr(http, "ANNOUNCED", set())
    with ScriptedServer(default=OK) as server:
        service = client(interval=0.6, use_cache=False)
        for path in ("one", "two", "three"):
            service.get(f"{server.url}/{path}")
    first, second, third = (r.arrived for r in server.received)
    assert second - first >= 0.6 and third - second >= 0.6
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if "waiting" in x]
    assert "Test service's rate limit (one request every 0.6 s" in line, err


def test_a_short_limiter_wait_is_announced_too(capsys, monkeypatch):
    monkeypatch.setattr(http, "ANNOUNCED", set())
    with ScriptedServer(default=OK) as server:
        service = client(interval=0.3, use_cache=False)
        service.get(f"{server.url}/one")
        service.get(f"{server.url}/two")
    assert "waiting" in capsys.readouterr().err


def test_a_retry_waits_for_the_limiters_turn_and_says_the_whole_wait_once(capsys, monkeypatch):
    """A backoff shorter than the service's interval: the retry's line says the wait to the
    limiter's turn, and no "waiting" line follows it (one line for one wait; a follow-up with a
    service down read both before each of its retries)."""
    monkeypatch.setenv("MATH_HTTP_BACKOFF", "0.1")
    with ScriptedServer([Reply(503, "busy"), OK]) as server:
        assert client(interval=0.6, use_cache=False).get(f"{server.url}/x").status == 200
    first, second = (r.arrived for r in server.received)
    assert second - first >= 0.6
    err = capsys.readouterr().err
    assert "waiting" not in err, err
    (line,) = [x for x in err.splitlines() if "HTTP 503; retrying in" in x]
    assert float(line.split("retrying in ")[1].split(" s")[0]) >= 0.5, line


def test_429_with_retry_after_waits_that_long(capsys):
    with ScriptedServer([Reply(429, "slow down", {"Retry-After": "1"}), OK]) as server:
        response = client().get(f"{server.url}/x")
    assert response.status == 200 and response.content == b"ok"
    first, second = (r.arrived for r in server.received)
    assert second - first >= 1.0
    err = capsys.readouterr().err
    assert "HTTP 429; retrying in 1.0 s (retry 1 of 4)" in err


def test_429_with_an_http_date_retry_after(capsys):
    when = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 2))
    with ScriptedServer([Reply(429, "", {"Retry-After": when}), OK]) as server:
        assert client().get(f"{server.url}/x").status == 200
    first, second = (r.arrived for r in server.received)
    assert 0.5 <= second - first <= 3.5


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_retryable_statuses_without_retry_after_back_off_and_retry(status):
    with ScriptedServer([Reply(status, "busy"), Reply(status, "busy"), OK]) as server:
        service = client()
        response = service.get(f"{server.url}/x")
    assert response.status == 200
    assert service.network_calls == 3 and len(server.received) == 3


def test_backoff_grows_exponentially(capsys, monkeypatch):
    monkeypatch.setenv("MATH_HTTP_BACKOFF", "0.2")
    with ScriptedServer([Reply(503), Reply(503), Reply(503), OK]) as server:
        client().get(f"{server.url}/x")
    arrivals = [r.arrived for r in server.received]
    gaps = [b - a for a, b in pairwise(arrivals)]
    # jitter keeps each delay within [base/2, base] for base = 0.2, 0.4, 0.8
    for gap, base in zip(gaps, (0.2, 0.4, 0.8), strict=True):
        assert base / 2 <= gap <= base + 0.3, gaps
    assert capsys.readouterr().err.count("HTTP 503; retrying in") == 3


def test_retries_are_bounded_then_a_clean_service_error(monkeypatch):
    monkeypatch.setenv("MATH_HTTP_RETRIES", "2")
    with ScriptedServer(default=Reply(503, "down")) as server:
        service = client()
        with pytest.raises(ServiceError) as caught:
            service.get(f"{server.url}/x")
    assert len(server.received) == 3 and service.network_calls == 3
    assert caught.value.code == "service_unavailable"
    assert "HTTP 503" in caught.value.message and "3 attempts" in caught.value.message


def test_a_read_timeout_is_retried(monkeypatch):
    monkeypatch.setenv("MATH_HTTP_TIMEOUT", "0.3")
    with ScriptedServer([Reply(200, "late", delay=1.0), OK]) as server:
        response = client().get(f"{server.url}/x")
    assert response.content == b"ok" and len(server.received) == 2


def test_timeouts_every_time_end_in_a_service_error(monkeypatch):
    monkeypatch.setenv("MATH_HTTP_TIMEOUT", "0.2")
    monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
    with (
        ScriptedServer(default=Reply(200, "late", delay=0.6)) as server,
        pytest.raises(ServiceError) as caught,
    ):
        client().get(f"{server.url}/x")
    assert "Timeout" in caught.value.message


def test_a_truncated_body_is_retried():
    """The server announces 1000 bytes and sends 10, then closes the connection."""
    with ScriptedServer([Reply(200, "x" * 1000, truncate_to=10), OK]) as server:
        response = client().get(f"{server.url}/x")
    assert response.content == b"ok" and len(server.received) == 2


def test_a_refused_connection_is_a_service_error(monkeypatch):
    monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
    with pytest.raises(ServiceError) as caught:
        client().get(f"{DEAD_URL}/x")
    assert "ConnectionError" in caught.value.message


def test_a_certificate_the_client_does_not_trust_is_a_service_error(tmp_path, monkeypatch):
    """The connection opened before the limiter's turn fails as the send would have: an SSLError,
    retried, then a failing service; the server never sees a request."""
    monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
    server = ScriptedServer(default=OK, tls=self_signed(tmp_path))
    with server, pytest.raises(ServiceError) as caught:
        client().get(f"{server.url}/x")
    assert "SSLError" in caught.value.message and server.received == []


def test_a_check_can_reject_an_html_error_page():
    """An HTML page with status 200 (a proxy's error page) is retried via UnusableBody."""
    html = Reply(200, "<html><body>Unavailable</body></html>", {"Content-Type": "text/html"})

    def must_be_xml(response):
        if not response.content.startswith(b"<?xml"):
            raise UnusableBody("not XML")

    with ScriptedServer([html, Reply(200, "<?xml version='1.0'?><feed/>")]) as server:
        response = client().get(f"{server.url}/x", check=must_be_xml)
    assert response.content.startswith(b"<?xml") and len(server.received) == 2


def test_an_answer_a_check_marks_do_not_cache_is_returned_but_not_stored():
    with ScriptedServer([OK, OK]) as server:
        service = client()
        first = service.get(f"{server.url}/x", check=lambda response: DO_NOT_CACHE)
        second = service.get(f"{server.url}/x")
    assert first.content == b"ok" and not second.from_cache
    assert len(server.received) == 2


@pytest.mark.parametrize("status", [400, 403, 404])
def test_non_retryable_statuses_are_returned_once_and_not_cached(status):
    with ScriptedServer(default=Reply(status, "no")) as server:
        first = client().get(f"{server.url}/x")
        second = client().get(f"{server.url}/x")
    assert first.status == second.status == status
    assert len(server.received) == 2 and not second.from_cache


def test_a_cache_hit_sends_nothing_and_waits_for_nothing():
    with ScriptedServer([OK]) as server:
        assert not client().get(f"{server.url}/x").from_cache
        interval = 30
        slow = client(interval=interval)  # a wait would be obvious
        started = time.monotonic()
        cached = slow.get(f"{server.url}/x")
        elapsed = time.monotonic() - started
    assert cached.from_cache and cached.content == b"ok" and cached.status == 200
    assert len(server.received) == 1 and slow.network_calls == 0
    assert elapsed < interval / 10  # a fraction of the wait it would be: no flake under load


def test_no_cache_asks_again_and_refreshes_the_cache():
    with ScriptedServer([OK, Reply(200, "newer")]) as server:
        client().get(f"{server.url}/x")
        assert client(use_cache=False).get(f"{server.url}/x").content == b"newer"
        assert client().get(f"{server.url}/x").content == b"newer"
    assert len(server.received) == 2


def test_the_cache_expires_after_its_ttl(monkeypatch):
    monkeypatch.setenv("MATH_CACHE_TTL", "0")
    with ScriptedServer(default=OK) as server:
        client().get(f"{server.url}/x")
        client().get(f"{server.url}/x")
    assert len(server.received) == 2


def test_post_bodies_are_part_of_the_cache_key():
    with ScriptedServer([Reply(200, "one"), Reply(200, "two")]) as server:
        service = client()
        assert service.post(f"{server.url}/b", {"ids": [1]}).content == b"one"
        assert service.post(f"{server.url}/b", {"ids": [2]}).content == b"two"
        assert service.post(f"{server.url}/b", {"ids": [1]}).from_cache
    assert json.loads(server.received[0].body) == {"ids": [1]}
    assert server.received[0].headers["Content-Type"] == "application/json"


def test_request_headers_are_sent_but_never_cached(tmp_path):
    secret = "sk-test-NOT-A-REAL-KEY-1234"
    with ScriptedServer([OK]) as server:
        service = client(headers={"x-api-key": secret})
        service.get(f"{server.url}/x")
    assert server.received[0].headers["x-api-key"] == secret
    assert "math-claude-plugin" in server.received[0].headers["User-Agent"]
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_build_url_encodes_spaces_as_plus_and_keeps_only_safe_characters():
    url = build_url("https://x/api", {"q": 'ti:"a b" (c)', "n": 3, "skip": None}, safe=":")
    assert url == "https://x/api?q=ti:%22a+b%22+%28c%29&n=3"
    assert build_url("https://x/api", {}) == "https://x/api"


def test_service_failure_is_exit_3_with_one_json_line_at_the_cli(script):
    with ScriptedServer(default=Reply(503, "down")) as server:
        env = {**os.environ, "MATH_ARXIV_API_URL": f"{server.url}/api/query"}
        env["MATH_HTTP_RETRIES"] = "1"
        run = script("arxiv_query.py", "get", "1605.08386", env=env)
    assert run.returncode == 3
    [line] = run.stdout.splitlines()
    assert json.loads(line)["error"]["code"] == "service_unavailable"
    assert "Traceback" not in run.stderr


def test_a_malformed_service_url_is_bad_input_not_a_bug():
    with pytest.raises(BadInput) as caught:
        client().get("export.arxiv.org/api/query?id_list=1605.08386")
    assert caught.value.code == "bad_url"


def test_a_limiter_stamp_in_the_future_costs_at_most_one_interval(tmp_path):
    """The clock was set back: the stored last-request time lies an hour ahead."""
    service = client(interval=0.3, use_cache=False)
    service.limiter.stamp.parent.mkdir(parents=True, exist_ok=True)
    service.limiter.stamp.write_text(repr(time.time() + 3600))
    with ScriptedServer([OK]) as server:
        started = time.monotonic()
        service.get(f"{server.url}/x")
    assert time.monotonic() - started < 2.0


def test_the_limiter_stamp_is_replaced_in_one_step(tmp_path):
    """A reader never sees a half-written stamp: the file is replaced, not rewritten in place."""
    service = client(interval=0.0, use_cache=False)
    service.limiter.stamp.parent.mkdir(parents=True, exist_ok=True)
    service.limiter.stamp.write_text("0.0")
    os.link(service.limiter.stamp, tmp_path / "old-stamp")
    with ScriptedServer([OK]) as server:
        service.get(f"{server.url}/x")
    assert (tmp_path / "old-stamp").read_text() == "0.0"
    written = float(service.limiter.stamp.read_text().split()[1])  # "<next start> <written>"
    assert written > time.time() - 60


def test_the_user_agent_names_the_product_and_the_configured_contact(tmp_path, monkeypatch):
    """No URL of a repository in it; the address comes from MATH_CONTACT_EMAIL or config.json."""
    from mathtools.core import config

    with ScriptedServer([OK, OK]) as server:
        client().get(f"{server.url}/x")
        monkeypatch.setenv("MATH_CONTACT_EMAIL", "ann.lee@example.org")
        client().get(f"{server.url}/y")
    bare, contact = (request.headers["User-Agent"] for request in server.received)
    assert bare == config.USER_AGENT and "http" not in bare
    assert contact == f"{config.USER_AGENT} (mailto:ann.lee@example.org)"


def test_the_contact_email_comes_from_the_environment_else_the_workspace_config(
    tmp_path, monkeypatch
):
    from mathtools.core import config
    from mathtools.core.errors import BadInput, EnvironmentProblem

    monkeypatch.delenv("MATH_CONTACT_EMAIL", raising=False)
    assert config.contact_email() is None
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text('{"contact_email": "bo@example.org"}')
    assert config.contact_email() == "bo@example.org"
    monkeypatch.setenv("MATH_CONTACT_EMAIL", "ann@example.org")
    assert config.contact_email() == "ann@example.org"
    monkeypatch.setenv("MATH_CONTACT_EMAIL", "ann at example dot org")
    with pytest.raises(
        EnvironmentProblem, match="MATH_CONTACT_EMAIL='ann at example dot org' is not an"
    ):
        config.contact_email()
    monkeypatch.delenv("MATH_CONTACT_EMAIL")
    (tmp_path / ".math" / "config.json").write_text('{"contact_email": ["x@example.org"]}')
    with pytest.raises(BadInput, match=r"contact_email in .*config\.json"):
        config.contact_email()


def test_a_refused_connection_fails_fast_and_the_service_stays_failing(monkeypatch):
    """Connections refused (nothing listens): one quick retry at most, not the backoff meant for
    429, 5xx and timeouts; then every later call to that service in the process fails at once."""
    backoff = 30  # one backoff would be obvious: the bounds below are fractions of it
    monkeypatch.setenv("MATH_HTTP_RETRIES", "5")
    monkeypatch.setenv("MATH_HTTP_BACKOFF", str(backoff))
    service = ServiceClient("refusing", "Refusing service", 0.0)
    started = time.monotonic()
    with pytest.raises(ServiceError) as caught:
        service.get(f"{DEAD_URL}/x")
    assert time.monotonic() - started < backoff / 5
    assert service.network_calls <= 2
    assert caught.value.code == "service_unavailable"
    assert "refused or unresolvable" in caught.value.message
    again = ServiceClient("refusing", "Refusing service", 0.0)  # another client, same process
    started = time.monotonic()
    with pytest.raises(ServiceError) as caught:
        again.get(f"{DEAD_URL}/y")
    assert time.monotonic() - started < backoff / 10 and again.network_calls == 0
    assert "failing since" in caught.value.message or "unreachable" in caught.value.message


def test_an_unreachable_service_does_not_fail_another(monkeypatch):
    monkeypatch.setenv("MATH_HTTP_RETRIES", "0")
    with pytest.raises(ServiceError):
        ServiceClient("refused-one", "One", 0.0).get(f"{DEAD_URL}/x")
    with ScriptedServer(default=OK) as server:
        assert ServiceClient("refused-two", "Two", 0.0).get(f"{server.url}/x").status == 200
