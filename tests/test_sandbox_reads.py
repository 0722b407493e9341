"""What a snippet may read (issue 52): its interpreter, the system's libraries, its own folder and
the files the request names; never the signing key, the workspace config with the Semantic
Scholar key, a home folder (~/.ssh) or /etc/shadow, recorded or not, in every mode with Landlock.
And compute.py's own environment, which a snippet beside it could read without a PID namespace,
keeps only an allow-list of variables (no ANTHROPIC_API_KEY). Real processes, real kernels: a
mode this machine lacks is skipped.
"""

from __future__ import annotations

import json
import os
import sys
import uuid

import mathtools.sandbox.run as sandbox
import pytest
from mathtools.sandbox import isolation, probes

PYTHON = sys.executable
S2_KEY = f"s2-{uuid.uuid4().hex}"

# Tries each path of PATHS: "read" (with what it held), or the error's name.
READS = """\
import json, os
tried = {}
for path in PATHS:
    try:
        if os.path.isdir(path):
            tried[path] = "listed " + ",".join(sorted(os.listdir(path)))
        else:
            with open(path, "rb") as handle:
                tried[path] = "read " + handle.read(200).decode("utf-8", "replace")
    except OSError as exc:
        tried[path] = type(exc).__name__
print(json.dumps(tried))
"""


@pytest.fixture
def secrets(tmp_path):
    """A workspace with its config (an S2 key) and signing key, and a home with an SSH key."""
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    (workspace / ".math" / "problems" / "p").mkdir(parents=True)
    (workspace / ".math" / "config.json").write_text(
        json.dumps({"semantic_scholar_api_key": S2_KEY})
    )
    (workspace / ".math" / "signing.key").write_text('{"key": "secret-signing-key"}')
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    return workspace, home


def landlock_mode():
    if not probes.landlock_works():
        pytest.skip("no Landlock here: reads are confined only where it is")


def compute(script, workspace, home, code, *args, env=None):
    env = {**os.environ, "HOME": str(home), **(env or {})}
    env.pop("MATH_WORKSPACE", None)
    argv = ("compute.py", "run", "-", "--python", PYTHON, *args)
    return script(*argv, input=code, env=env, cwd=workspace)


def reads(paths):
    return READS.replace("PATHS", repr([str(path) for path in paths]))


@pytest.mark.parametrize("recorded", [False, True], ids=["no-record", "recorded"])
def test_in_the_default_mode_the_snippet_cannot_read_keys_or_a_home_folder(
    script, secrets, recorded
):
    """The report's repros: ~/.ssh/id_rsa, the workspace's config.json (the S2 key) and
    signing.key (with it a snippet could forge run records and STATE.md digests, in --no-record
    runs too), /etc/shadow as root: each a refusal."""
    landlock_mode()
    if not probes.shielded():
        pytest.skip("no user, mount and PID namespaces: not the default mode")
    workspace, home = secrets
    targets = [
        home / ".ssh" / "id_rsa",
        home / ".ssh",
        home,
        workspace / ".math" / "config.json",
        workspace / ".math" / "signing.key",
        "/etc/shadow",
    ]
    if recorded:  # compute.py makes the workspace's key itself
        (workspace / ".math" / "signing.key").unlink()
        (workspace / ".math" / "problems" / "p" / "PROOF.md").write_text("# Proof\n")
        args = ("--dir", str(workspace / ".math" / "problems" / "p"), "--title", "reads")
    else:
        args = ("--no-record",)
    run = compute(script, workspace, home, reads(targets), *args)
    assert run.returncode == 0, run.stdout + run.stderr
    result = run.json()
    assert result["outcome"] == "ok", result["stderr"]
    tried = json.loads(result["stdout"])
    assert set(tried.values()) == {"PermissionError"}, tried
    key = json.loads((workspace / ".math" / "signing.key").read_text())["key"]
    assert S2_KEY not in run.stdout and key not in run.stdout
    assert result["isolation"]["files"].startswith("readable: only the snippet's folder")


MODES = {  # (namespaces, filesystem mode) where Landlock confines reads
    "default": (True, "landlock"),
    "fallback": (False, "landlock"),
}


@pytest.mark.parametrize("mode", list(MODES))
def test_the_sandbox_reads_only_what_a_computation_needs(secrets, mode):
    landlock_mode()
    namespaces, filesystem = MODES[mode]
    if namespaces and not probes.shielded():
        pytest.skip("no namespaces here")
    workspace, home = secrets
    data = workspace / "data.txt"
    data.write_text("1 2 3\n")
    other = workspace / "other.txt"
    other.write_text("not named\n")
    code = reads([data, other, home / ".ssh" / "id_rsa", "/etc/shadow", "/proc/1/environ"])
    # and what the computation needs: its interpreter's library, the system's, its own folder
    code += "import decimal, fractions, json as j, ctypes.util\n"
    code += "open('scratch', 'w').write('x'); print(open('scratch').read())\n"
    result = sandbox.run_sandboxed(
        code,
        PYTHON,
        network_namespace=namespaces,
        filesystem=filesystem,
        allow_unsandboxed=not namespaces,
        readable=[data],
    )
    assert result["outcome"] == "ok", result["stderr"]
    first, second = result["stdout"].splitlines()
    tried = json.loads(first)
    assert tried.pop(str(data)) == "read 1 2 3\n"
    assert set(tried.values()) == {"PermissionError"}, tried
    assert second == "x"


def test_compute_lets_the_snippet_read_the_files_the_request_names(script, secrets):
    landlock_mode()
    workspace, home = secrets
    data = workspace / "table.csv"
    data.write_text("n,h\n1,1\n")
    code = reads([data, workspace / "elsewhere.txt"])
    (workspace / "elsewhere.txt").write_text("unnamed\n")
    (workspace / ".math" / "config.json").write_text('{"allow_unsandboxed_compute": true}')
    run = compute(script, workspace, home, code, "--no-record", "--read", str(data))
    assert run.returncode == 0, run.stdout + run.stderr
    tried = json.loads(run.json()["stdout"])
    assert tried == {
        str(data): "read n,h\n1,1\n",
        str(workspace / "elsewhere.txt"): ("PermissionError"),
    }
    assert str(data) in run.json()["isolation"]["files"]
    missing = compute(script, workspace, home, code, "--no-record", "--read", "nowhere.csv")
    assert missing.returncode == 2 and "nowhere.csv" in missing.json()["error"]["message"]


# Every environment this snippet can read: its own, and (without a PID namespace) every
# process's in /proc, compute.py's among them.
ENVIRONS = """\
import os
found = set()
for name in ("self", *os.listdir("/proc")):
    try:
        with open(f"/proc/{name}/environ", "rb") as handle:
            environ = handle.read()
    except OSError:
        continue
    found.update(word for word in CANARIES if word.encode() in environ)
found.update(word for word in CANARIES if word in str(os.environ))
print("found", sorted(found))
"""


def test_the_fallback_keeps_only_an_allow_list_in_computes_environment(script, tmp_path):
    """The fallback with nothing confining reads (no namespaces, MATH_SANDBOX_FILESYSTEM=none):
    the snippet reads every process's environment, compute.py's too, which used to keep
    ANTHROPIC_API_KEY and every caller variable but two."""
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text('{"allow_unsandboxed_compute": true}')
    (tmp_path / "bin").mkdir()  # no unshare: no namespaces
    anthropic, caller = f"sk-ant-{uuid.uuid4().hex}", f"caller-{uuid.uuid4().hex}"
    code = ENVIRONS.replace("CANARIES", repr([anthropic, caller]))
    env = {
        **os.environ,
        "PATH": str(tmp_path / "bin"),
        "ANTHROPIC_API_KEY": anthropic,
        "SOME_CALLER_VARIABLE": caller,
        probes.FILESYSTEM_VARIABLE: "none",
    }
    argv = ("compute.py", "run", "-", "--python", PYTHON, "--no-record")
    run = script(*argv, input=code, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    result = run.json()
    assert result["isolation"]["filesystem"] == "none"
    assert result["stdout"] == "found []\n", result["stderr"]


def test_the_allowed_environment_keeps_what_compute_needs_and_nothing_else(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    monkeypatch.setenv("MATH_CONTACT_EMAIL", "me@example.org")
    monkeypatch.setenv("MATH_CACHE_DIR", "/somewhere")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    kept = sandbox.allowed_environment()
    assert "ANTHROPIC_API_KEY" not in kept and "MATH_CONTACT_EMAIL" not in kept
    assert kept["MATH_CACHE_DIR"] == "/somewhere" and kept["LC_ALL"] == "C.UTF-8"
    assert set(kept) <= set(os.environ)
    assert all(
        name in sandbox.KEPT_VARIABLES or name.startswith(sandbox.KEPT_PREFIXES) for name in kept
    )


def test_in_the_mount_namespace_mode_keys_and_home_folders_read_as_empty(script, secrets):
    """Without Landlock a mount namespace covers the home folders and the workspace (all but the
    interpreter's and the snippet's folders) and /etc's private files: each reads as empty."""
    from mathtools.sandbox.namespaces import mount_namespace_works

    if not (probes.shielded() and mount_namespace_works()):
        pytest.skip("no mount namespaces here")
    workspace, home = secrets
    (workspace / "notes.md").write_text("a workspace file\n")
    targets = [
        home / ".ssh" / "id_rsa",
        home / ".ssh",
        workspace / ".math" / "config.json",
        workspace / ".math" / "signing.key",
        workspace / "notes.md",
        "/etc/shadow",
    ]
    env = {probes.FILESYSTEM_VARIABLE: "mount-namespace"}
    run = compute(script, workspace, home, reads(targets), "--no-record", env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    result = run.json()
    assert result["outcome"] == "ok", result["stderr"]
    tried = json.loads(result["stdout"])
    home_listed = tried.pop(str(home / ".ssh"))
    assert home_listed in ("listed ", "FileNotFoundError"), home_listed  # an empty folder
    assert set(tried.values()) <= {"read ", "FileNotFoundError"}, tried
    assert S2_KEY not in run.stdout and "secret-signing-key" not in run.stdout
    assert isolation.COVERED_PROTECTION in result["isolation"]["protections"]


def test_an_interpreter_that_is_a_file_in_the_home_folder_runs(script, secrets):
    """The plugin's venv lives in Claude Code's data folder, under the home folder; its python may
    be a file of its own there (a copy, or a wrapper script as tests/support/venvs.py makes).
    That one file is read and run; the rest of the home folder stays unread. Found by the
    research loop's end-to-end test, where the launcher's exec of such a wrapper was refused."""
    landlock_mode()
    workspace, home = secrets
    venv = home / ".claude" / "plugins" / "data" / "math" / "venv" / "bin"
    venv.mkdir(parents=True)
    wrapper = venv / "python"
    wrapper.write_text(f'#!/bin/sh\nexec "{PYTHON}" "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "HOME": str(home)}
    env.pop("MATH_WORKSPACE", None)
    code = reads([home / ".ssh" / "id_rsa"])
    ran = script(
        "compute.py",
        "run",
        "-",
        "--python",
        str(wrapper),
        "--no-record",
        input=code,
        env=env,
        cwd=workspace,
    )
    answer = json.loads(ran.stdout)
    assert answer.get("outcome") == "ok", ran.stdout + ran.stderr
    assert json.loads(answer["stdout"]) == {str(home / ".ssh" / "id_rsa"): "PermissionError"}
