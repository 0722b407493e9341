"""A snippet writes only in its own temporary folder, in every mode of confinement this machine
has (probes.FILESYSTEM_MODES, forced through MATH_SANDBOX_FILESYSTEM or `filesystem=`): not
beside that folder (`../../`), not in the plugin's scripts, not in the workspace, not elsewhere in
/tmp. Where nothing confines it (mode none), compute.py refuses to run it unless the workspace's
.math/config.json allows it, and then the result says "none". Real processes, real kernels: a mode
this machine lacks is skipped, saying so.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

import mathtools.sandbox.run as sandbox
import pytest
from conftest import SCRIPTS
from mathtools.core import config
from mathtools.core.errors import BadInput, EnvironmentProblem
from mathtools.sandbox import probes
from mathtools.sandbox.namespaces import mount_namespace_works

PYTHON = sys.executable
MODES = ("landlock", "mount-namespace", "none")  # what `isolation.filesystem` may say
CONFINED = MODES[:2]

# Tries each target, then the snippet's own folder and /dev/null; prints what happened as JSON.
WRITES = """\
import json, os
tried = {}
for name, path in json.loads(TARGETS).items():
    try:
        with open(path, "w") as handle:
            handle.write("written by a snippet")
        tried[name] = "written"
    except OSError as exc:
        tried[name] = type(exc).__name__
with open("scratch.txt", "w") as handle:
    handle.write("kept")
with open("scratch.txt") as handle:
    tried["scratch"] = handle.read()
with open(os.devnull, "w") as handle:
    handle.write("discarded")
tried["devnull"] = "written"
print(json.dumps(tried))
"""


def works(mode: str) -> bool:
    return {
        "landlock": probes.landlock_works,
        "mount-namespace": mount_namespace_works,
        "none": lambda: True,
    }[mode]()


def needs(mode: str) -> None:
    if not works(mode):
        pytest.skip(f"no {mode} on this machine: the sandbox falls back to the next mode")


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / ".math").mkdir()
    return tmp_path


@pytest.fixture
def targets(workspace):
    """Where a snippet must not write, each path new: `beside` is the reproduction's `../../x`
    (relative to the snippet's folder, a new folder in the temporary folder); whatever a run
    leaves there is removed afterwards."""
    tag = f"math-sandbox-test-{uuid.uuid4().hex[:12]}"
    temporary = Path(tempfile.gettempdir()).resolve()
    places = {
        "beside": (f"../../{tag}", temporary.parent / tag),
        "plugin": (str(SCRIPTS / f"{tag}.py"), SCRIPTS / f"{tag}.py"),
        "workspace": (str(workspace / f"{tag}.md"), workspace / f"{tag}.md"),
        "tmp": (str(temporary / tag), temporary / tag),
    }
    yield places
    for _, path in places.values():
        if path.is_file():
            path.unlink()


def snippet(targets) -> str:
    return WRITES.replace("TARGETS", repr(json.dumps({k: v[0] for k, v in targets.items()})))


def compute(script, workspace, code, mode, env=None):
    environment = {**os.environ, "MATH_SANDBOX_FILESYSTEM": mode, **(env or {})}
    argv = ("compute.py", "run", "-", "--python", PYTHON, "--no-record")
    return script(*argv, input=code, env=environment, cwd=workspace)


def assert_confined(result, targets, mode):
    assert result["outcome"] == "ok", result["stderr"]
    tried = json.loads(result["stdout"])
    for name, (_, path) in targets.items():
        assert not path.exists(), f"{mode}: the snippet wrote {path}"
        assert tried[name] in ("PermissionError", "OSError"), (name, tried[name])
    assert (tried["scratch"], tried["devnull"]) == ("kept", "written")
    assert result["isolation"]["filesystem"] == mode


@pytest.mark.parametrize("mode", CONFINED)
def test_compute_keeps_the_snippets_writes_in_its_folder(script, workspace, targets, mode):
    """The reported defect: `open("../../x", "w")` and a file in the plugin's scripts folder."""
    needs(mode)
    run = compute(script, workspace, snippet(targets), mode)
    assert run.returncode == 0, run.stdout + run.stderr
    assert_confined(run.json(), targets, mode)


@pytest.mark.parametrize(
    ("mode", "namespaces"),
    [("landlock", True), ("landlock", False), ("mount-namespace", True)],
    ids=["landlock", "landlock-without-namespaces", "mount-namespace"],
)
def test_the_sandbox_keeps_the_snippets_writes_in_its_folder(targets, mode, namespaces):
    needs(mode)
    result = sandbox.run_sandboxed(
        snippet(targets),
        PYTHON,
        network_namespace=namespaces,
        filesystem=mode,
        allow_unsandboxed=not namespaces,  # the fallback runs only with the user's allowance
    )
    assert_confined(result, targets, mode)
    assert result["isolation"]["workspace"].startswith("read-only")


def test_the_strongest_mode_is_the_default():
    assert probes.FILESYSTEM_MODES == MODES  # strongest first
    strongest = next(mode for mode in MODES if works(mode))
    assert probes.filesystem_mode() == strongest
    result = sandbox.run_sandboxed("print(1)\n", PYTHON, allow_unsandboxed=True)
    assert result["isolation"]["filesystem"] == strongest


def test_without_confinement_compute_refuses_to_run_the_snippet(script, workspace, targets):
    run = compute(script, workspace, snippet(targets), "none")
    assert run.returncode == 4, run.stdout + run.stderr
    assert len(run.stdout.splitlines()) == 1
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "unconfined"
    assert '"allow_unsandboxed_compute": true' in error["message"]
    assert not any(path.exists() for _, path in targets.values())


def test_the_sandbox_refuses_an_unconfined_run_unless_allowed(targets):
    with pytest.raises(EnvironmentProblem, match="did not run"):
        sandbox.run_sandboxed(snippet(targets), PYTHON, filesystem="none")
    assert not any(path.exists() for _, path in targets.values())


def test_a_workspace_that_allows_unconfined_runs_gets_them_and_the_result_says_so(
    script, workspace, targets
):
    (workspace / ".math" / "config.json").write_text('{"allow_unsandboxed_compute": true}')
    run = compute(script, workspace, snippet(targets), "none")
    assert run.returncode == 0, run.stdout + run.stderr
    result = run.json()
    assert result["outcome"] == "ok" and result["isolation"]["filesystem"] == "none"
    assert json.loads(result["stdout"])["scratch"] == "kept"
    # nothing stopped the writes: the plugin's folder, say (the fixture removes them)
    if os.access(SCRIPTS, os.W_OK):
        assert targets["plugin"][1].exists()


@pytest.mark.parametrize(
    ("value", "allowed"), [(None, False), (False, False), (True, True), ("yes", None), (1, None)]
)
def test_allow_unsandboxed_compute_is_true_or_false(workspace, value, allowed):
    (workspace / ".math" / "config.json").write_text(
        json.dumps({} if value is None else {"allow_unsandboxed_compute": value})
    )
    if allowed is None:
        with pytest.raises(BadInput, match=r"allow_unsandboxed_compute in \S+ must be true"):
            config.allow_unsandboxed_compute(workspace)
    else:
        assert config.allow_unsandboxed_compute(workspace) is allowed


def test_a_bad_allow_unsandboxed_compute_is_bad_input_when_it_is_needed(script, workspace):
    (workspace / ".math" / "config.json").write_text('{"allow_unsandboxed_compute": "yes"}')
    run = compute(script, workspace, "print(1)\n", "none")
    assert run.returncode == 2 and json.loads(run.stdout)["error"]["code"] == "bad_config"


@pytest.mark.parametrize("value", ["landlocked", "Landlock"])
def test_an_unknown_forced_mode_is_one_line_naming_the_variable(script, workspace, value):
    run = compute(script, workspace, "print(1)\n", value)
    assert run.returncode == 4, run.stdout + run.stderr
    assert json.loads(run.stdout)["error"]["message"].startswith("MATH_SANDBOX_FILESYSTEM=")


@pytest.mark.parametrize("mode", MODES)
def test_sympy_imports_and_computes_in_every_mode(mode):
    needs(mode)
    if importlib.util.find_spec("sympy") is None:
        pytest.skip(
            "SymPy is not installed in this test interpreter (compute.py installs it into the "
            "plugin's own environment, which tests never do)"
        )
    code = "import sympy\nx = sympy.Symbol('x')\nprint(sympy.factor(x**2 - 1))\n"
    result = sandbox.run_sandboxed(code, PYTHON, filesystem=mode, allow_unsandboxed=True)
    assert (result["outcome"], result["stdout"]) == ("ok", "(x - 1)*(x + 1)\n"), result["stderr"]
    assert result["isolation"]["filesystem"] == mode
