"""The first run of a script without its dependencies installs them once into the plugin's venv.

A bare interpreter (a venv made --without-pip, so none of requirements.txt is importable) stands in
for a mathematician's fresh python3. No test installs from the network: the fast path is shown
with a ready venv, and the install path with a package index that refuses connections.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PLUGIN, SCRIPTS
from mathtools.core import bootstrap, installation, installer, pluginhome
from support import venvs

ANY_SCRIPT = sorted(SCRIPTS.glob("*.py"))[0]


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory):
    return venvs.bare_python(tmp_path_factory.mktemp("bare"))


def _env(data_dir, **extra):
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("MATH_PLUGIN", "CLAUDE_PLUGIN"))
    }
    return {**env, "CLAUDE_PLUGIN_DATA": str(data_dir), **extra}


def test_reuses_a_ready_venv_without_installing(bare_python, tmp_path):
    venvs.ready_venv(tmp_path, bootstrap.requirements_digest())
    run = subprocess.run(
        [bare_python, ANY_SCRIPT, "--help"], capture_output=True, text=True, env=_env(tmp_path)
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "usage:" in run.stdout
    assert "installing" not in run.stderr


def _offline(data_dir, **extra):
    """No route to a package index (the discard port refuses), no pip configuration of this
    machine's, and no uv: pip's own failure, with the bootstrap's retry default."""
    offline = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
        "UV_INDEX_URL": "http://127.0.0.1:9/simple",  # should a uv be on PATH after all
        "PIP_TIMEOUT": "2",
        "PIP_NO_CACHE_DIR": "1",
        "PIP_FIND_LINKS": "",
    }
    environment = _env(data_dir, **{**offline, **extra})
    environment.pop("PIP_RETRIES", None)
    return environment


def _error(run) -> str:
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1, run.stdout
    error = json.loads(lines[0])["error"]
    assert error["code"] == "environment"
    assert "Traceback" not in run.stdout + run.stderr
    return error["message"]


def test_changed_requirements_trigger_a_reinstall_and_offline_fails_in_one_line(
    bare_python, tmp_path
):
    venvs.ready_venv(tmp_path, "0" * 64)  # built from some other requirements file
    run = subprocess.run(
        [bare_python, ANY_SCRIPT, "--help"],
        capture_output=True,
        text=True,
        env=_offline(tmp_path),
        timeout=300,
    )
    assert run.returncode == bootstrap.EXIT_ENVIRONMENT
    message = _error(run)
    assert "refused the connection" in message  # the cause, not "no matching distribution"
    assert "pip install -r" not in message  # refused by an externally managed python3
    # A data folder the command alone would not find (no Claude Code install of this copy): it
    # names it, so a person builds the very venv this run looks for.
    assert f"when the network is back, run: MATH_PLUGIN_DATA={tmp_path} python3 " in message
    assert "installation.py install" in message
    assert "installing the plugin's Python dependencies" in run.stderr

    # The next call within RETRY_AFTER does not try again: the same cause, at once.
    marker = json.loads((tmp_path / bootstrap.FAILURE_MARKER).read_text())
    assert marker["error"] == message
    again = subprocess.run(
        [bare_python, ANY_SCRIPT, "--help"], capture_output=True, text=True, env=_offline(tmp_path)
    )
    assert again.returncode == bootstrap.EXIT_ENVIRONMENT
    assert _error(again).startswith(message + " (this failed ")
    assert "installing" not in again.stderr

    # Once RETRY_AFTER has passed, a call tries again.
    marker["time"] -= bootstrap.RETRY_AFTER
    (tmp_path / bootstrap.FAILURE_MARKER).write_text(json.dumps(marker))
    later = subprocess.run(
        [bare_python, ANY_SCRIPT, "--help"], capture_output=True, text=True, env=_offline(tmp_path)
    )
    assert "installing the plugin's Python dependencies" in later.stderr
    assert "(this failed" not in _error(later)


@pytest.mark.parametrize(
    ("output", "meaning"),
    [
        (
            "WARNING: Retrying (Retry(total=0)) after connection broken by 'ProxyError('Unable to "
            "connect to proxy', NewConnectionError('Failed to establish a new connection'))'\n"
            "ERROR: No matching distribution found for requests==2.34.2",
            "the proxy failed",
        ),
        ("ERROR: Could not install packages: [Errno 28] No space left on device", "disk is full"),
        (
            "WARNING: Retrying ... NewConnectionError: Failed to establish a new connection: "
            "[Errno -3] Temporary failure in name resolution\nERROR: No matching distribution",
            "no network",
        ),
        (
            "error: Failed to fetch: `https://pypi.org/simple/requests/`\n  Caused by: dns error",
            "no network",
        ),
        (
            "ERROR: Could not find a version that satisfies the requirement requests==2.34.2 "
            "(from versions: none)\nERROR: No matching distribution found for requests==2.34.2",
            "no network, or an index without",
        ),
        ("ERROR: Read timed out. (read timeout=10)", "did not answer in time"),
        ("ERROR: something else entirely", "something else entirely"),
    ],
)
def test_the_cause_of_a_failed_install_is_named(output, meaning):
    """Synthesized pip and uv outputs: the reason comes first, with the line that shows it."""
    found = installer.cause(output)
    assert meaning in found
    assert "No matching distribution" not in found


def test_a_script_waits_with_a_progress_line_while_another_process_installs(bare_python, tmp_path):
    import fcntl

    venv = venvs.ready_venv(tmp_path, "0" * 64)  # stale until the "other process" finishes
    with open(tmp_path / "venv.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the background install, holding the lock
        waiting = subprocess.Popen(
            [bare_python, ANY_SCRIPT, "--help"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_offline(tmp_path),
        )
        # While the lock is held, the script says it waits, then again every PROGRESS_EVERY s.
        said = [_line_within(waiting.stderr, 30), _line_within(waiting.stderr, 30)]
        (venv / ".requirements.sha256").write_text(bootstrap.requirements_digest() + "\n")
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, out + err
    assert "math: waiting for the plugin's Python dependencies" in said[0]
    assert said[1].startswith("math: still waiting for the background install (5 s)"), said
    assert "installing" not in err
    assert "usage:" in out


def _line_within(stream, seconds: float) -> str:
    """The next line of `stream`, or "" when none comes within `seconds`."""
    import selectors

    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        if not selector.select(timeout=seconds):
            return ""
    return stream.readline()


@pytest.mark.parametrize(
    ("output", "kind", "remedy"),
    [
        (  # pip 24's words for a refused connection, internals and all
            "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, "
            "status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3."
            "connection.HTTPConnection object at 0x7f3a2c1d5f10>: Failed to establish a new "
            "connection: [Errno 111] Connection refused')': /simple/requests/\n"
            "ERROR: No matching distribution found for requests==2.34.2",
            "network",
            "when the network is back, run: MATH_PLUGIN_DATA=",
        ),
        (  # Debian/Ubuntu without python3-venv
            "The virtual environment was not created successfully because ensurepip is not "
            "available.  On Debian/Ubuntu systems, you need to install the python3-venv package",
            "python",
            "sudo apt install python3-venv",
        ),
        ("ERROR: [Errno 28] No space left on device", "disk", "free some disk space"),
        ("ProxyError('Cannot connect to proxy.')", "proxy", "HTTPS_PROXY"),
    ],
)
def test_a_failed_install_reads_as_one_human_line_with_a_fix(output, kind, remedy, monkeypatch):
    """Synthesized installer outputs: the cause in words (never pip's Retry(...) or object
    addresses) and a fix that works on Debian/Ubuntu (never `pip install -r`, which an
    externally managed python3 refuses)."""
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    meaning, found = installer.classify(output)
    assert found == kind
    for internal in ("Retry(", "object at 0x", "NewConnectionError", "_vendor"):
        assert internal not in meaning
    if kind == "network":
        assert meaning == "the package index refused the connection (http://127.0.0.1:9/simple)"
    assert remedy in bootstrap.fix(kind)
    assert "pip install -r" not in bootstrap.fix(kind) and "\n" not in bootstrap.fix(kind)


def _recent_failure_in_a_child(venv, limit_memory=False):
    """bootstrap.recent_failure(venv) in a child process (ended after 20 s: a read that blocks),
    with its address space capped at 1 GiB when `limit_memory`."""
    cap = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30));"
    code = (
        f"{cap if limit_memory else ''}import sys; sys.path.insert(0, {str(SCRIPTS)!r});"
        "from pathlib import Path; from mathtools.core import bootstrap;"
        f"print(bootstrap.recent_failure(Path({str(venv)!r})))"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)


def test_a_fifo_at_the_failure_marker_is_no_failure_and_never_blocks(tmp_path):
    """A FIFO where install-failed.json belongs is not one we wrote: no recorded failure, and
    reading it never waits for a writer (every script's first step would hang)."""
    os.mkfifo(tmp_path / bootstrap.FAILURE_MARKER)
    run = _recent_failure_in_a_child(tmp_path / "venv")
    assert (run.returncode, run.stdout.strip()) == (0, "None"), run.stderr


def test_a_huge_failure_marker_is_not_read_whole(tmp_path):
    """A 4 GiB (sparse) file at install-failed.json is not one we wrote: it is not read whole
    (which, with the address space capped at 1 GiB, ends in a MemoryError)."""
    with open(tmp_path / bootstrap.FAILURE_MARKER, "wb") as handle:
        handle.truncate(4 << 30)
    run = _recent_failure_in_a_child(tmp_path / "venv", limit_memory=True)
    assert (run.returncode, run.stdout.strip()) == (0, "None"), run.stderr


def test_a_fifo_where_the_prompt_hook_notes_its_sessions_does_not_block(bare_python, tmp_path):
    """The prompt hook reads and writes install-failed-shown.json: a FIFO there is replaced,
    never opened (either would wait for the other end), and the failure is shown."""
    marker = {"error": "could not install: no network", "time": time.time()}
    (tmp_path / bootstrap.FAILURE_MARKER).write_text(json.dumps(marker))
    os.mkfifo(tmp_path / "install-failed-shown.json")
    run = subprocess.run(
        [bare_python, str(installation.__file__), "report", "--hook"],
        input='{"session_id": "s"}', capture_output=True, text=True, timeout=60,
        env=_env(tmp_path),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "no network" in json.loads(run.stdout)["systemMessage"]
    assert (tmp_path / "install-failed-shown.json").is_file()


def test_a_recorded_failure_is_still_read(tmp_path):
    marker = {"error": "could not install: no network", "time": time.time() - 5}
    (tmp_path / bootstrap.FAILURE_MARKER).write_text(json.dumps(marker))
    message, age = bootstrap.recent_failure(tmp_path / "venv")
    assert message == "could not install: no network" and 5 <= age < 60


def test_the_prompt_hook_shows_a_recorded_failure_once_a_session(tmp_path, monkeypatch, capsys):
    """The UserPromptSubmit hook (hooks.json): a failed install becomes a systemMessage, which
    Claude Code displays (tests/test_install_screen.py sees it on screen), once a session."""
    message = "could not install the plugin's Python dependencies into X: no network; fix"
    marker = {"error": message, "time": time.time()}
    (tmp_path / bootstrap.FAILURE_MARKER).write_text(json.dumps(marker))
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path))
    monkeypatch.setattr(bootstrap, "dependencies_importable", lambda: False)

    def prompt(session):
        assert installation.report(json.dumps({"session_id": session, "prompt": "hi"})) == 0
        return capsys.readouterr().out.splitlines()

    (line,) = prompt("s1")
    answer = json.loads(line)
    assert answer["systemMessage"] == f"math plugin: {message}"
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert message in answer["hookSpecificOutput"]["additionalContext"]
    assert prompt("s1") == []  # said once in this session
    assert len(prompt("s2")) == 1  # a new session is told again


def test_the_prompt_hook_says_nothing_without_a_failure(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path))
    monkeypatch.setattr(bootstrap, "dependencies_importable", lambda: False)
    assert installation.report("{}") == 0 and capsys.readouterr().out == ""


def test_the_prompt_hook_waits_for_a_running_install(tmp_path, monkeypatch, capsys):
    """An install that fails while the hook waits is reported at this very prompt."""
    import fcntl
    import threading

    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path))
    monkeypatch.setattr(bootstrap, "dependencies_importable", lambda: False)
    lock = open(tmp_path / "venv.lock", "a+")  # noqa: SIM115 (released by the thread)
    fcntl.flock(lock, fcntl.LOCK_EX)

    def fail_later():
        time.sleep(1)
        marker = {"error": "could not install: no network", "time": time.time()}
        (tmp_path / bootstrap.FAILURE_MARKER).write_text(json.dumps(marker))
        lock.close()

    threading.Thread(target=fail_later).start()
    assert installation.report('{"session_id": "s"}') == 0
    assert "no network" in json.loads(capsys.readouterr().out)["systemMessage"]


def test_the_prompt_hook_waits_long_enough_and_says_so():
    """The prompt hook waits for a running install up to REPORT_WAIT s: long enough for a loaded
    2-core machine (20 s for `python -m venv` alone, then pip), within its own `timeout` in
    hooks.json with room for Python's start-up under load (Claude Code would kill it and show
    nothing), which stays below Claude Code's default 600 s. Its statusMessage is what the
    spinner shows while it waits (tests/test_install_screen.py sees it on screen)."""
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    (report,) = [
        hook
        for entry in hooks["UserPromptSubmit"]
        for hook in entry["hooks"]
        if hook["command"].endswith('installation.py" report --hook')
    ]
    assert bootstrap.REPORT_WAIT >= 60
    assert bootstrap.REPORT_WAIT + 20 <= report["timeout"] <= 600
    assert f"up to {bootstrap.REPORT_WAIT} s" in report["statusMessage"]
    assert not report.get("async")


def test_the_hooks_write_no_bytecode_into_the_plugin():
    """Claude Code installs plugin/ as it is on disk (CONTRIBUTING.md, "Release"): the hooks run
    `python3 -B`, and the Bash tool's scripts write under PYTHONPYCACHEPREFIX (export-env)."""
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    commands = [
        hook["command"] for entries in hooks.values() for e in entries for hook in e["hooks"]
    ]
    assert commands and all(command.startswith("python3 -B ") for command in commands)


@pytest.mark.slow  # builds a venv with pip: CI runs it (CONTRIBUTING.md "Run the tests")
def test_an_older_python3_builds_the_venv_with_a_newer_one_on_path(tmp_path):
    """macOS's python3 is 3.9: the venv is made with python3.13 ... python3.10 from PATH."""
    old = _python("3.9")
    newer = _python("3.12")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3.12").symlink_to(newer)
    env = _offline(tmp_path / "data", PATH=f"{bin_dir}:/usr/bin:/bin")
    run = subprocess.run(
        [old, ANY_SCRIPT, "--help"], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == bootstrap.EXIT_ENVIRONMENT
    assert "refused the connection" in _error(run)  # got as far as pip, in a 3.12 venv
    config = (tmp_path / "data" / "venv" / "pyvenv.cfg").read_text()
    assert "version = 3.12" in config or "version_info = 3.12" in config, config


def test_an_older_python3_alone_says_exactly_what_to_install(tmp_path):
    old = _python("3.9")
    env = _offline(tmp_path / "data", PATH=str(tmp_path / "empty"))  # no newer python, no uv
    run = subprocess.run([old, ANY_SCRIPT, "--help"], capture_output=True, text=True, env=env)
    assert run.returncode == bootstrap.EXIT_ENVIRONMENT
    message = _error(run)
    assert "needs Python 3.10 or newer, but python3 is 3.9" in message
    assert "install Python 3.12" in message and "uv" in message


def _python(version: str) -> Path:
    """An interpreter of `version` from pyenv, or skip (CI images without one)."""
    found = sorted((Path.home() / ".pyenv" / "versions").glob(f"{version}.*/bin/python{version}"))
    if not found:
        pytest.skip(f"no Python {version} here (pyenv)")
    return found[-1]


def test_session_start_hooks_export_the_data_dir_and_report_a_failed_install(tmp_path):
    """hooks/hooks.json's two commands, run as Claude Code runs them (synthesized environment)."""
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]["SessionStart"]
    commands = [hook for entry in hooks for hook in entry["hooks"]]
    export, install = commands
    assert not export.get("async") and install.get("async") is True
    env_file = tmp_path / "env.sh"
    env = _offline(tmp_path / "data", CLAUDE_PLUGIN_ROOT=str(PLUGIN), CLAUDE_ENV_FILE=str(env_file))
    env.pop("MATH_PLUGIN_DATA", None)
    env["PATH"] = f"{Path(venvs.bare_python(tmp_path / 'bare')).parent}:/usr/bin:/bin"

    def hook(command):
        return subprocess.run(
            command["command"], shell=True, capture_output=True, text=True, env=env, timeout=300
        )

    exported = hook(export)
    assert exported.returncode == 0 and exported.stdout == ""
    assert env_file.read_text() == (
        f"export MATH_PLUGIN_DATA={tmp_path / 'data'}\n"
        f"export PYTHONPYCACHEPREFIX={tmp_path / 'data' / 'pycache'}\n"
    )

    reported = hook(install)
    assert reported.returncode == 0, reported.stderr
    output = json.loads(reported.stdout)
    assert output["systemMessage"].startswith("math plugin: could not install")
    assert "refused the connection" in output["systemMessage"]
    context = output["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart"
    assert "refused the connection" in context["additionalContext"]

    shutil.rmtree(tmp_path / "data" / "venv")
    venvs.ready_venv(tmp_path / "data", bootstrap.requirements_digest())
    quiet = hook(install)  # ready: nothing to say
    assert (quiet.returncode, quiet.stdout) == (0, "")


def test_fast_path_costs_no_imports(tmp_path):
    """With the dependencies importable, ensure() only looks them up: nothing heavy is imported."""
    code = (
        f"import sys, time; sys.path.insert(0, {str(SCRIPTS)!r}); t = time.perf_counter();"
        "from mathtools.core import bootstrap; bootstrap.ensure();"
        "print(time.perf_counter() - t, 'requests' in sys.modules, 'lxml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    _, requests_loaded, lxml_loaded = out.stdout.split()
    assert (requests_loaded, lxml_loaded) == ("False", "False")


def test_digest_follows_the_requirements_file(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("requests==1\n")
    first = bootstrap.requirements_digest(req)
    req.write_text("requests==2\n")
    assert bootstrap.requirements_digest(req) != first


# --- extra requirement sets (requirements-<name>.txt), installed on a feature's first use ---


def _demo_extra(monkeypatch, root, module, requirement):
    """A stand-in extra `demo` (requirements-demo.txt under a stand-in plugin root)."""
    root.mkdir(exist_ok=True)
    (root / "requirements-demo.txt").write_text(requirement + "\n")
    monkeypatch.setattr(bootstrap, "PLUGIN_ROOT", root)
    monkeypatch.setitem(bootstrap.EXTRAS, "demo", (module,))
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # never the network
    return root / "requirements-demo.txt"


def _wheel(folder, name="demo_extra"):
    """A minimal pure-Python wheel, built by hand so that pip can install it offline."""
    import zipfile

    path = folder / f"{name}-1.0-py3-none-any.whl"
    info = f"{name}-1.0.dist-info"
    files = {
        f"{name}/__init__.py": "VALUE = 42\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    files[f"{info}/RECORD"] = "".join(f"{n},,\n" for n in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def test_an_extra_this_interpreter_has_needs_no_venv(monkeypatch, tmp_path):
    _demo_extra(monkeypatch, tmp_path / "plugin", "json", "json-is-stdlib")
    assert bootstrap.extra_python("demo", tmp_path / "venv") == Path(sys.executable)
    assert not (tmp_path / "venv").exists()


def test_an_extra_installs_once_into_the_venv_under_its_own_stamp(monkeypatch, tmp_path, capsys):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    (venv / ".requirements.sha256").write_text(bootstrap.requirements_digest() + "\n")
    requirements = _demo_extra(
        monkeypatch, tmp_path / "plugin", "demo_extra", str(_wheel(tmp_path))
    )
    stamp = venv / ".requirements-demo.sha256"
    stamp.write_text("0" * 64 + "\n")  # a stale stamp, hard-linked: replaced, not rewritten
    os.link(stamp, tmp_path / "old-stamp")

    python = bootstrap.extra_python("demo", venv)
    assert python == venv / "bin" / "python"
    assert "installing the plugin's demo dependencies" in capsys.readouterr().err
    probe = subprocess.run(
        [python, "-c", "import demo_extra; print(demo_extra.VALUE)"], capture_output=True, text=True
    )
    assert probe.stdout.strip() == "42"
    assert stamp.read_text().strip() == bootstrap.requirements_digest(requirements)
    assert (tmp_path / "old-stamp").read_text() == "0" * 64 + "\n"
    assert [p.name for p in venv.glob(".requirements-demo*")] == [stamp.name]
    assert (venv / ".requirements.sha256").exists()  # the base set was not reinstalled

    assert bootstrap.extra_python("demo", venv) == python
    assert "installing" not in capsys.readouterr().err


def test_an_extra_that_cannot_install_fails_in_one_json_line(monkeypatch, tmp_path, capsys):
    venv = venvs.ready_venv(tmp_path, bootstrap.requirements_digest())
    requirements = _demo_extra(
        monkeypatch, tmp_path / "plugin", "no_such_module_here", "no-such-package-here==1.0"
    )
    with pytest.raises(SystemExit) as stopped:
        bootstrap.extra_python("demo", venv)
    assert stopped.value.code == bootstrap.EXIT_ENVIRONMENT
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    message = json.loads(lines[0])["error"]["message"]
    assert "pip install -r" not in message and str(requirements) not in message
    assert "when the network is back, run: the same command again" in message
    assert not (venv / ".requirements-demo.sha256").exists()


def test_the_compute_extra_is_pinned_in_its_own_file():
    pins = (PLUGIN / "requirements-compute.txt").read_text()
    assert "sympy==" in pins
    assert set(bootstrap.EXTRAS["compute"]) == {"sympy", "mpmath"}


def test_tests_never_use_the_real_plugin_data_folder(tmp_path):
    """Even when pytest runs inside Claude Code, where CLAUDE_PLUGIN_DATA is set."""
    assert bootstrap.data_dir() == tmp_path / "plugin-data"


def _fake_uv(bin_dir: Path, log: Path, fail_with: str | None = None) -> None:
    """A stand-in `uv` (synthesized): logs its arguments; `uv venv` makes a venv whose python is
    this test run's (so it has every dependency), `uv pip install` succeeds, or both fail with
    `fail_with` on stderr as uv would."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    failing = f'echo "{fail_with}" >&2; exit 2' if fail_with else ""
    (bin_dir / "uv").write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{log}"\n'
        f"{failing}\n"
        'if [ "$1" = venv ]; then\n'
        "  for last; do :; done\n"
        '  mkdir -p "$last/bin"\n'
        f'  printf \'#!/bin/sh\\nexec "{sys.executable}" "$@"\\n\' > "$last/bin/python"\n'
        '  chmod +x "$last/bin/python"\n'
        "fi\n"
    )
    (bin_dir / "uv").chmod(0o755)


def test_uv_on_path_builds_the_venv_instead_of_pip(bare_python, tmp_path):
    log = tmp_path / "uv.log"
    _fake_uv(tmp_path / "bin", log)
    env = _offline(tmp_path / "data", PATH=f"{tmp_path / 'bin'}:{bare_python.parent}:/usr/bin:/bin")
    run = subprocess.run(
        [bare_python, ANY_SCRIPT, "--help"], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    venv = tmp_path / "data" / "venv"
    assert log.read_text().splitlines() == [
        f"venv --quiet --python {bare_python} {venv}",
        f"pip install --quiet --python {venv / 'bin' / 'python'} -r {PLUGIN / 'requirements.txt'}",
    ]
    assert (venv / ".requirements.sha256").read_text().strip() == bootstrap.requirements_digest()


def test_uv_provides_the_interpreter_when_python3_is_older_and_its_failure_is_named(tmp_path):
    old = _python("3.9")
    log = tmp_path / "uv.log"
    _fake_uv(tmp_path / "bin", log, fail_with="error: Failed to fetch: dns error: failed to lookup")
    env = _offline(tmp_path / "data", PATH=str(tmp_path / "bin"))
    run = subprocess.run([old, ANY_SCRIPT, "--help"], capture_output=True, text=True, env=env)
    assert run.returncode == bootstrap.EXIT_ENVIRONMENT
    assert "no network: the package index's name did not resolve" in _error(run)
    assert log.read_text().split()[:4] == ["venv", "--quiet", "--python", ">=3.10"]


def _claude_code_install(tmp_path, monkeypatch, installs: dict, marketplaces: dict) -> Path:
    """A Claude Code configuration folder holding `installs` (installed_plugins.json's plugins)
    and `marketplaces` (known_marketplaces.json), written as Claude Code writes them (the shape
    tests/test_install_e2e.py reads from the real one)."""
    config = tmp_path / "claude-config"
    (config / "plugins").mkdir(parents=True)
    record = {"version": 2, "plugins": installs}
    (config / "plugins" / "installed_plugins.json").write_text(json.dumps(record))
    (config / "plugins" / "known_marketplaces.json").write_text(json.dumps(marketplaces))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.delenv("CLAUDE_CODE_PLUGIN_CACHE_DIR", raising=False)
    return config / "plugins"


def _plugin_copy(folder: Path) -> Path:
    (folder / ".claude-plugin").mkdir(parents=True)
    (folder / ".claude-plugin" / "plugin.json").write_text('{"name": "math"}')
    return folder


def test_the_data_folder_claude_code_gives_an_installed_copy_is_found(tmp_path, monkeypatch):
    """Claude Code's name for it: the id `plugin@marketplace`, all but [A-Za-z0-9_-] made `-`;
    the copy is its install record's installPath, or lies in its marketplace's folder."""
    cached = _plugin_copy(tmp_path / "cache" / "math" / "0.3.1")
    clone = tmp_path / "src" / "math"
    from_clone = _plugin_copy(clone / "plugin")
    plugins = _claude_code_install(
        tmp_path,
        monkeypatch,
        {"math@my market.place": [{"installPath": str(cached)}], "other@x": []},
        {"my market.place": {"installLocation": str(clone)}},
    )
    expected = plugins / "data" / "math-my-market-place"
    assert pluginhome.installed_data_dir(cached) == expected
    assert pluginhome.installed_data_dir(from_clone) == expected
    assert pluginhome.installed_data_dir(_plugin_copy(tmp_path / "elsewhere")) is None

    # Without MATH_PLUGIN_DATA (a terminal), a script of that copy uses that folder; the command
    # a failure prints then needs no MATH_PLUGIN_DATA, and says who uses what it builds.
    monkeypatch.setattr(bootstrap, "PLUGIN_ROOT", from_clone)
    monkeypatch.setattr(installation.bootstrap, "PLUGIN_ROOT", from_clone)
    monkeypatch.delenv("MATH_PLUGIN_DATA")
    assert bootstrap.data_dir() == expected
    assert bootstrap.install_again().startswith("python3 ")
    assert "Claude Code's sessions" in installation.used_by()
    monkeypatch.setenv("MATH_PLUGIN_DATA", str(tmp_path / "a-plugin-dir-session"))
    assert bootstrap.install_again().startswith(f"MATH_PLUGIN_DATA={tmp_path}/a-plugin-dir-session")


@pytest.mark.parametrize(
    "installs",
    [
        {},  # not installed
        {"math@one": [{"installPath": "COPY"}], "math@two": [{"installPath": "COPY"}]},
        {"math@one": "not a list", "math": [{"installPath": 7}]},
    ],
    ids=["none", "two-marketplaces", "malformed"],
)
def test_no_data_folder_of_claude_codes_is_guessed(installs, tmp_path, monkeypatch):
    """No install, two that hold the copy, or a record not as Claude Code writes it: the
    terminal's own folder, which `installation.py install` says no session uses."""
    copy = _plugin_copy(tmp_path / "copy")
    text = json.dumps(installs).replace("COPY", str(copy))
    _claude_code_install(tmp_path, monkeypatch, json.loads(text), {})
    assert pluginhome.installed_data_dir(copy) is None
    monkeypatch.setattr(installation.bootstrap, "PLUGIN_ROOT", copy)
    monkeypatch.delenv("MATH_PLUGIN_DATA")
    assert "the scripts you run at a terminal only" in installation.used_by()
