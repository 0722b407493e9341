"""Defects found by a fault and fuzz campaign (issue 15), one test (or a few) per defect.

Every failing service answer here is synthesized (ScriptedServer / the stand-in's fault modes):
no recording holds them.
"""

from __future__ import annotations

import json
import time

import pytest
from conftest import run_script
from support.faults import DEUTSCH, MARKOV

ARXIV_ID = "1605.08386"


# -- 1. --out replaces only a file this plugin wrote -------------------------------------------


@pytest.mark.parametrize("name", [".math/config.json", "package.json", "list.json"])
def test_out_refuses_a_json_file_the_plugin_did_not_write(standin, tmp_path, name):
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    original = '{"semantic_scholar_api_key": "k", "name": "x"}\n'
    if name == "list.json":
        original = "[1, 2, 3]\n"
    target.write_text(original, encoding="utf-8")
    run = run_script("arxiv_query.py", "get", ARXIV_ID, "--out", str(target))
    assert run.returncode == 2, run.stdout
    assert json.loads(run.stdout)["error"]["code"] == "cannot_write"
    assert target.read_text(encoding="utf-8") == original


def test_out_replaces_its_own_earlier_output_which_carries_the_marker(standin, tmp_path):
    target = tmp_path / "found.json"
    for _ in range(2):  # the second call replaces the first call's file
        run = run_script("arxiv_query.py", "get", ARXIV_ID, "--out", str(target))
        assert run.returncode == 0, run.stdout
    document = json.loads(target.read_text(encoding="utf-8"))
    assert document["written_by"] == "math"
    assert [paper["arxiv_id"] for paper in document["papers"]] == [ARXIV_ID]


def test_out_never_replaces_the_workspace_config_even_with_the_marker(standin, tmp_path):
    config = tmp_path / ".math" / "config.json"
    config.parent.mkdir()
    config.write_text('{"written_by": "math"}\n', encoding="utf-8")
    run = run_script("arxiv_query.py", "get", ARXIV_ID, "--out", str(config))
    assert run.returncode == 2
    assert config.read_text(encoding="utf-8") == '{"written_by": "math"}\n'


# -- 2. secrets never leak ---------------------------------------------------------------------

SECRET = "SeCrEtKeY123"


@pytest.mark.parametrize("key", [f"{SECRET}\nX", f"{SECRET}\x00", f"{SECRET} two", "ключ"])
def test_a_malformed_key_in_the_environment_is_refused_without_quoting_it(standin, key):
    run = run_script(
        "s2_lookup.py",
        "get",
        "ARXIV:1605.08386",
        env={**_env(), "SEMANTIC_SCHOLAR_API_KEY": key.replace("\x00", "\x01")},
    )
    assert run.returncode == 4, run.stdout + run.stderr
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "bad_api_key"
    assert "SEMANTIC_SCHOLAR_API_KEY" in error["message"]
    assert SECRET not in run.stdout + run.stderr and "ключ" not in run.stdout + run.stderr


def test_a_malformed_key_in_the_workspace_config_is_refused_without_quoting_it(standin, tmp_path):
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text(
        json.dumps({"semantic_scholar_api_key": f"{SECRET}\nX"}), encoding="utf-8"
    )
    run = run_script("s2_lookup.py", "get", "ARXIV:1605.08386", cwd=tmp_path)
    assert run.returncode == 4, run.stdout + run.stderr
    assert "semantic_scholar_api_key" in json.loads(run.stdout)["error"]["message"]
    assert SECRET not in run.stdout + run.stderr


def _env(**changes):
    import os

    return {**os.environ, **changes}


# -- 5. every environment variable checked once, one line naming it -----------------------------


@pytest.mark.parametrize(
    "name, value",
    [
        ("MATH_HTTP_TIMEOUT", "0"),
        ("MATH_HTTP_TIMEOUT", "-1"),
        ("MATH_ARXIV_MIN_INTERVAL", "inf"),
        ("MATH_ARXIV_MIN_INTERVAL", "nan"),
        ("MATH_S2_MIN_INTERVAL", "1" * 5000),
        ("MATH_HTTP_RETRIES", "nan"),
        ("MATH_HTTP_RETRIES", "2.5"),
        ("MATH_HTTP_BACKOFF", "abc"),
        ("MATH_CACHE_TTL", "-5"),
        ("MATH_LOCK_TIMEOUT", "abc"),
        ("MATH_ARXIV_API_URL", "export.arxiv.org/api/query"),
        ("MATH_S2_API_URL", "ftp://example.org/graph"),
        ("MATH_CACHE_DIR", "a\nb"),
        ("MATH_LITERATURE_DB", "x" * 70000),
        ("MATH_WORKSPACE", "w\x01"),
        ("MATH_CONTACT_EMAIL", "ann at example dot org"),
    ],
)
@pytest.mark.parametrize("script_name", ["arxiv_query.py", "journal.py", "lit_update.py"])
def test_a_bad_environment_variable_is_one_line_naming_it(name, value, script_name):
    args = {"arxiv_query.py": ["get", ARXIV_ID], "journal.py": ["list"], "lit_update.py": ["runs"]}
    run = run_script(script_name, *args[script_name], env=_env(**{name: value}))
    assert run.returncode == 4, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    [line] = run.stdout.splitlines()
    error = json.loads(line)["error"]
    assert error["code"] == "bad_environment"
    assert error["message"].startswith(name)
    assert len(error["message"]) < 300


def test_an_error_body_echoing_the_key_is_redacted(monkeypatch):
    """Synthesized: a gateway's 400 and 403 bodies that echo the request headers."""
    from support.scripted_server import Reply, ScriptedServer

    echo = json.dumps({"message": f"bad request; headers: x-api-key={SECRET}; accept=*/*"})
    for status in (400, 403):
        with ScriptedServer(
            default=Reply(status, echo, {"Content-Type": "application/json"})
        ) as server:
            env = _env(MATH_S2_API_URL=server.url, SEMANTIC_SCHOLAR_API_KEY=SECRET)
            run = run_script("s2_lookup.py", "get", "ARXIV:1605.08386", env=env)
        assert run.returncode in (2, 3), run.stdout
        assert "x-api-key=[redacted]" in run.stdout  # the message is kept, the key is not
        assert SECRET not in run.stdout + run.stderr


def test_a_redirect_to_another_host_does_not_carry_the_key(monkeypatch):
    """Synthesized: the S2 stand-in redirects to a second server on another host name."""
    from support.scripted_server import Reply, ScriptedServer

    record = {"paperId": "a" * 40, "externalIds": {"ArXiv": ARXIV_ID}, "title": "T", "authors": []}
    with ScriptedServer(default=Reply(200, json.dumps(record))) as elsewhere:
        other_host = elsewhere.url.replace("127.0.0.1", "localhost")
        moved = Reply(302, "", {"Location": f"{other_host}/graph/v1/paper/x"})
        with ScriptedServer([moved]) as server:
            run = run_script(
                "s2_lookup.py", "get", "ARXIV:1605.08386",
                env=_env(MATH_S2_API_URL=f"{server.url}/graph/v1", SEMANTIC_SCHOLAR_API_KEY=SECRET),
            )  # fmt: skip
        assert server.received[0].headers.get("x-api-key") == SECRET
    assert run.returncode == 0, run.stdout
    [arrived] = elsewhere.received
    assert "x-api-key" not in {name.lower() for name in arrived.headers}


@pytest.mark.parametrize("script_name", ["s2_lookup.py", "arxiv_query.py"])
def test_an_ids_file_line_that_is_not_an_id_is_named_not_quoted(tmp_path, script_name):
    (tmp_path / ".math").mkdir()
    config = tmp_path / ".math" / "config.json"
    config.write_text(json.dumps({"semantic_scholar_api_key": SECRET}), encoding="utf-8")
    command = "batch" if script_name == "s2_lookup.py" else "get"
    for source in (str(config), "/proc/self/environ"):
        run = run_script(script_name, command, "--ids-file", source, env=_env(LEAK=SECRET))
        assert run.returncode == 2, run.stdout
        message = json.loads(run.stdout)["error"]["message"]
        assert "line 1" in message and source in message
        assert SECRET not in run.stdout + run.stderr


# -- 3 and 4. malformed answers never confirm, never crash: the other service verifies ---------


def _verify(candidates):
    run = run_script("verify_batch.py", "-", input=json.dumps(candidates))
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 0, run.stdout
    document = json.loads(run.stdout)
    return document, {result["key"]: result for result in document["results"]}


@pytest.mark.parametrize(
    "fault",
    ["s2_record_without_ids", "s2_junk_items", "s2_list_for_object", "s2_wrong_types", "http_400"],
)
def test_a_malformed_or_rejecting_semantic_scholar_fails_and_arxiv_verifies(standin, fault):
    from support import faults

    standin.corrupt("s2", faults.S2[fault])
    document, results = _verify([MARKOV, DEUTSCH])
    assert set(document["source_errors"]) == {"semantic_scholar"}
    assert results["markov"]["status"] == "CONFIRMED"
    assert results["markov"]["source"] == "arxiv"
    assert results["deutsch"]["status"] == "UNCONFIRMED"


@pytest.mark.parametrize(
    "fault", ["atom_entry_without_id", "atom_garbage_year", "atom_fabricated_title", "http_400"]
)
def test_a_malformed_or_rejecting_arxiv_fails_and_semantic_scholar_verifies(standin, fault):
    from support import faults

    standin.corrupt("arxiv", faults.ARXIV[fault])
    document, results = _verify([MARKOV, DEUTSCH])
    assert set(document["source_errors"]) == {"arxiv"}
    assert results["markov"]["status"] == "UNCONFIRMED"
    assert results["deutsch"]["status"] == "CONFIRMED"
    assert results["deutsch"]["source"] == "semantic_scholar"


def test_a_record_without_its_identifiers_never_confirms_a_title(standin):
    """The campaign's case: a Semantic Scholar title match lacking paperId and externalIds
    confirmed the cited title (a fabricated one, there). Now it is a malformed answer."""
    from support import faults

    standin.corrupt("s2", faults.s2_record_without_ids)
    title_only = {key: DEUTSCH[key] for key in ("key", "title", "authors", "year")}
    document, results = _verify([title_only])
    assert results["deutsch"]["status"] == "UNCONFIRMED"
    assert set(document["source_errors"]) == {"semantic_scholar"}


def test_a_search_result_input_with_a_total_that_is_not_a_number_is_taken(standin, tmp_path):
    found = run_script("arxiv_query.py", "get", ARXIV_ID)
    document = {**json.loads(found.stdout), "total_results": "many"}
    (tmp_path / "found.json").write_text(json.dumps(document), encoding="utf-8")
    run = run_script("verify_batch.py", str(tmp_path / "found.json"))
    assert run.returncode == 0, run.stdout
    assert json.loads(run.stdout)["inputs"]["discovery_totals"] == {"arxiv": 1}


# -- 6. every request has a deadline; the rate-limit lock is never held during a transfer --------


def test_a_trickling_server_is_cut_off_at_the_deadline(monkeypatch):
    """Synthesized: one byte every half second; a read timeout alone would never fire."""
    from mathtools.core.errors import ServiceError
    from mathtools.services.http import ServiceClient
    from support.scripted_server import Reply, ScriptedServer

    monkeypatch.setenv("MATH_HTTP_TIMEOUT", "1")
    monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
    trickle = Reply(200, "x" * 400, drip=0.5)  # 200 s to send it all
    with ScriptedServer(default=trickle) as server:
        started = time.monotonic()
        with pytest.raises(ServiceError) as caught:
            ServiceClient("test", "Test", 0.0, use_cache=False).get(f"{server.url}/x")
    assert time.monotonic() - started < len(trickle.payload()) * trickle.drip / 10
    assert "deadline" in caught.value.message


def test_a_huge_retry_after_ends_the_call_at_once(monkeypatch):
    from mathtools.core.errors import ServiceError
    from mathtools.services.http import ServiceClient
    from support.scripted_server import Reply, ScriptedServer

    retry_after = 100000
    refusal = Reply(429, "later", {"Retry-After": str(retry_after)})
    started = time.monotonic()
    with ScriptedServer(default=refusal) as server, pytest.raises(ServiceError) as caught:
        ServiceClient("test", "Test", 0.0, use_cache=False).get(f"{server.url}/x")
    assert time.monotonic() - started < retry_after / 1000  # a fraction: no flake under load
    assert len(server.received) == 1
    assert "100000" in caught.value.message


HTTP_CLIENT = """
import sys, time
sys.path.insert(0, sys.argv[1])
from mathtools.services.http import ServiceClient
started = time.monotonic()
ServiceClient("test", "Test", 0.2, use_cache=False).get(sys.argv[2])
print(time.monotonic() - started)
"""


def test_a_slow_transfer_does_not_hold_other_processes(tmp_path):
    """Synthesized: one process's answer takes 60 s; another, started just after, is done while
    the first still receives (an order, not a time: no flake under load)."""
    import subprocess
    import sys

    from conftest import SCRIPTS
    from support.scripted_server import Reply, ScriptedServer

    slow = Reply(200, "x" * 120, drip=0.5)
    with ScriptedServer([slow], default=Reply(200, "ok")) as server:
        first = subprocess.Popen(
            [sys.executable, "-c", HTTP_CLIENT, str(SCRIPTS), f"{server.url}/slow"],
            stdout=subprocess.PIPE,
        )
        try:
            while not server.received:
                time.sleep(0.05)
            second = subprocess.run(
                [sys.executable, "-c", HTTP_CLIENT, str(SCRIPTS), f"{server.url}/fast"],
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            still_receiving = first.poll() is None
        finally:
            first.kill()
            first.communicate()
    assert second.returncode == 0, second.stderr
    assert still_receiving, "the second process waited for the first one's transfer"


def test_an_unusable_cache_folder_fails_at_once(tmp_path):
    started = time.monotonic()
    run = run_script(
        "arxiv_query.py", "get", ARXIV_ID, env=_env(MATH_CACHE_DIR="/proc"), timeout=30
    )
    assert run.returncode == 4, run.stdout
    assert json.loads(run.stdout)["error"]["code"] == "cache_unusable"
    assert time.monotonic() - started < 15


# -- 5. bad input is one line and exit 2, never a traceback --------------------------------------


def _bad_input(run):
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 2, run.stdout + run.stderr
    [line] = run.stdout.splitlines()
    return json.loads(line)["error"]


def _run_bytes(*args: bytes | str, input: bytes | None = None):
    """A script run whose arguments may hold bytes that are not UTF-8."""
    import subprocess
    import sys

    from conftest import SCRIPTS, ScriptRun

    argv = [sys.executable, str(SCRIPTS / args[0]), *args[1:]]
    proc = subprocess.run(argv, input=input, capture_output=True, timeout=60)
    return ScriptRun(
        proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8", "replace")
    )


def test_an_argument_that_is_not_utf8_is_bad_input():
    error = _bad_input(_run_bytes("arxiv_query.py", "search", "--title", b"heat\xff\xfe"))
    assert "UTF-8" in error["message"]


def test_a_very_long_path_is_bad_input(tmp_path):
    long_path = str(tmp_path / ("x" * 60000))
    for args in (("verify_batch.py", long_path), ("lit_update.py", "validate", long_path)):
        error = _bad_input(run_script(*args))
        assert len(error["message"]) < 600


def test_an_endless_input_is_refused_at_its_size_cap():
    error = _bad_input(run_script("verify_batch.py", "/dev/zero", timeout=60))
    assert "MB" in error["message"]


def test_deeply_nested_json_and_huge_numbers_are_bad_input(tmp_path):
    (tmp_path / "nested.json").write_text("[" * 100000 + "]" * 100000, encoding="utf-8")
    (tmp_path / "digits.json").write_text(f'[{{"title": "x", "year": {"9" * 5000}}}]')
    for name in ("nested.json", "digits.json"):
        _bad_input(run_script("verify_batch.py", str(tmp_path / name)))


# -- 9. the sandbox ----------------------------------------------------------------------------


def _compute(*args, code: str, env=None, cwd=None):
    import sys

    argv = ["compute.py", "run", "-", "--python", sys.executable, "--no-record", *args]
    run = run_script(*argv, input=code, env=env, cwd=cwd)
    assert "Traceback" not in run.stderr and run.returncode == 0, run.stdout + run.stderr
    return run.json()


def test_the_workspace_is_read_only_to_the_snippet(tmp_path):
    import mathtools.sandbox.run as sandbox

    (tmp_path / ".math").mkdir()
    literature = tmp_path / "LITERATURE.md"
    literature.write_text("kept\n", encoding="utf-8")
    code = f"open({str(literature)!r}, 'a').write('overwritten')\n"
    result = _compute(code=code, cwd=tmp_path)
    if not sandbox.can_hide_files():
        pytest.skip("no user and mount namespaces here: the docs say the workspace is writable")
    assert result["outcome"] == "error" and "Read-only file system" in result["stderr"]
    assert literature.read_text(encoding="utf-8") == "kept\n"
    assert result["isolation"]["workspace"] == f"read-only: {tmp_path}"


def test_the_snippet_sees_no_process_of_the_host():
    import mathtools.sandbox.run as sandbox

    code = (
        "import os\n"
        "for pid in os.listdir('/proc'):\n"
        "    if pid.isdigit():\n"
        "        try: print(open(f'/proc/{pid}/cmdline', 'rb').read())\n"
        "        except OSError: pass\n"
    )
    result = _compute(code=code)
    if not sandbox.can_hide_files():
        pytest.skip("no PID and mount namespaces here: the docs say host processes show")
    assert "pytest" not in result["stdout"] and "compute.py" not in result["stdout"]


def test_no_process_the_snippet_can_read_holds_the_key(tmp_path):
    """Without namespaces (no `unshare` on PATH), where the user allowed it, the snippet runs
    beside compute.py as the same user and can read /proc/<pid>/environ: compute.py must not
    carry the key there."""
    (tmp_path / "bin").mkdir()
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text('{"allow_unsandboxed_compute": true}')
    code = (
        "import os\n"
        "hits = []\n"
        "try: listed = os.listdir('/proc')\n"
        "except PermissionError: listed = []  # Landlock confines reads\n"
        "for pid in listed:\n"
        "    try: environ = open(f'/proc/{pid}/environ', 'rb').read()\n"
        "    except OSError: continue\n"
        f"    if {SECRET.encode()!r} in environ: hits.append(pid)\n"
        "print('readable', len(listed), 'hits', hits)\n"
    )
    env = _env(SEMANTIC_SCHOLAR_API_KEY=SECRET, PATH=str(tmp_path / "bin"))
    result = _compute(code=code, env=env, cwd=tmp_path)
    assert "PID namespace" not in result["isolation"]["protections"]
    assert "hits []" in result["stdout"], result["stdout"]


def test_output_flooding_is_the_output_limit():
    import sys

    import mathtools.sandbox.run as sandbox

    code = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    result = sandbox.run_sandboxed(code, sys.executable, timeout=60)
    assert result["outcome"] == "output_limit", result["stderr"][-300:]


# -- 10. minor -----------------------------------------------------------------------------------


def test_compute_checks_computation_md_before_running_the_snippet(tmp_path, tmp_path_factory):
    import sys

    problem = tmp_path / ".math" / "problems" / "harmonic"
    problem.mkdir(parents=True)
    (problem / "COMPUTATION.md").write_bytes("Gödel\n".encode("latin-1"))
    ran = tmp_path_factory.mktemp("outside") / "ran"
    code = f"open({str(ran)!r}, 'w').write('ran')\n"
    args = ("compute.py", "run", "-", "--python", sys.executable, "--dir", str(problem))
    run = run_script(*args, "--title", "t", input=code)
    assert run.returncode == 2, run.stdout
    assert not ran.exists()  # the snippet never ran: its result could not have been recorded


def test_validate_takes_a_path_with_a_newline_as_a_path(tmp_path):
    """The path names no file: it is not read as LITERATURE.md text."""
    text = "---\nproblem: x\n---\n# Literature\n"
    error = _bad_input(run_script("lit_update.py", "validate", text))
    assert error["code"] == "file_not_found"


def test_an_empty_run_store_is_not_written_by_a_read(tmp_path):
    store = tmp_path / "empty.db"
    store.write_bytes(b"")
    run = run_script("lit_update.py", "runs", "--db", str(store))
    assert run.returncode == 2, run.stdout
    assert json.loads(run.stdout)["error"]["code"] == "no_store"
    assert store.read_bytes() == b""


def test_a_merge_refusing_its_input_leaves_nothing_behind(tmp_path):
    (tmp_path / "v.json").write_text('{"results": 5}', encoding="utf-8")
    literature = tmp_path / "new-problem" / "LITERATURE.md"
    args = ("--literature", str(literature), "--verified", str(tmp_path / "v.json"))
    _bad_input(run_script("lit_update.py", "merge", *args, "--query-summary", "q"))
    assert not literature.parent.exists()  # no folder, no LITERATURE.md.lock


def test_check_refs_out_replaces_its_own_earlier_output(standin, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{markov,\n  title = {Heat-bath random walks with Markov bases},\n"
        "  author = {Stanley, Caprice and Windisch, Tobias},\n  year = {2016},\n"
        "  eprint = {1605.08386},\n  archivePrefix = {arXiv}\n}\n",
        encoding="utf-8",
    )
    out = tmp_path / "check.json"
    for _ in range(2):
        run = run_script("check_refs.py", str(bib), "--out", str(out))
        assert run.returncode in (0, 1), run.stdout
    assert json.loads(out.read_text(encoding="utf-8"))["written_by"] == "math"


def test_binary_data_as_a_snippet_on_stdin_is_bad_input():
    import sys

    args = ("compute.py", "run", "-", "--python", sys.executable, "--no-record")
    error = _bad_input(_run_bytes(*args, input=bytes(range(256)) * 4))
    assert "UTF-8" in error["message"]


def test_latex_runs_without_the_key_in_its_environment(tmp_path, monkeypatch):
    """A stand-in pdflatex (no TeX here) records the environment it was given."""
    from mathtools.research import texbuild

    seen = tmp_path / "seen-env"
    fake = tmp_path / "bin" / "pdflatex"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\n/usr/bin/env > {seen}\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEY", SECRET)
    (tmp_path / "OUTPUT.tex").write_text("\\documentclass{article}\n")
    texbuild.compile_pdf(tmp_path, timeout=10)
    assert "PATH=" in seen.read_text() and SECRET not in seen.read_text()
