"""The commands that build the plugin's Python environment and report on it, for the hooks and
for a person: `python3 <plugin>/scripts/mathtools/core/installation.py export-env | install
[--hook] | report --hook`. bootstrap.py is what every script runs first (ensure()) and the
install itself; this module only calls it.

Inside Claude Code (hooks/hooks.json), at SessionStart:
- `export-env` (waited for; instant) writes MATH_PLUGIN_DATA to CLAUDE_ENV_FILE, so later Bash
  tool calls find the data dir, and PYTHONPYCACHEPREFIX (pycache_dir()), so the scripts they run
  write their bytecode there, not into the plugin's folder, which a `claude plugin update` from a
  clone copies whole (CONTRIBUTING.md, "Release"); the hooks themselves run `python3 -B`;
- `install --hook` runs as an async hook: the session starts at once while it installs. A
  failure is printed as hook JSON (`systemMessage`, `additionalContext`), which Claude Code gives
  only to the model: an async hook's output is not displayed. Success prints nothing.
At each prompt, `report --hook` (UserPromptSubmit, waited for) waits up to REPORT_WAIT s for a
running install to finish or fail (meanwhile Claude Code 2.1.332's spinner shows the hook's
`statusMessage`, hooks.json; 2.1.197 shows its own word), then shows a recorded failure once a
session as a `systemMessage`, which Claude Code displays (tests/test_install_screen.py, with an
install slowed by 40 s): one line, the cause in words (network, proxy, disk, no suitable Python)
and a fix that works on Debian/Ubuntu. `install` without --hook is what a
person runs to try again at once after fixing the cause (the fix gives the command,
bootstrap.install_again()): it builds the venv in bootstrap.data_dir(), at a terminal the data
folder Claude Code gives this copy of the plugin when it installed it, so the running session's
next script call finds it, and prints one JSON line: the venv and which runs use it.

Standard library only, and Python 3.8 syntax, as bootstrap.py (whose module doc says why).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
import time
from pathlib import Path

if __name__ == "__main__":
    # Typed at a terminal as the README says: no bytecode into the plugin's folder, which a
    # `claude plugin install` from a clone copies whole (the hooks run `python3 -B`).
    sys.dont_write_bytecode = True
try:
    from . import bootstrap, installer, pluginhome
except ImportError:  # run as a script (the hooks): no package, so found as the scripts find it
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from mathtools.core import bootstrap, installer, pluginhome


def export_env() -> None:
    """SessionStart (waited for): tell later Bash tool calls where the data dir is.

    Claude Code (2.1.197 and 2.1.330, checked by tests/test_claude_harness.py) runs plugin
    SessionStart hooks in every mode, -p included, with CLAUDE_PLUGIN_DATA and CLAUDE_ENV_FILE
    set; the Bash tool gets neither variable but sources the exports written to CLAUDE_ENV_FILE.
    Python's bytecode goes to pycache_dir() (module doc).
    """
    env_file = os.environ.get("CLAUDE_ENV_FILE")
    if env_file and os.environ.get("CLAUDE_PLUGIN_DATA"):
        data = os.environ["CLAUDE_PLUGIN_DATA"]
        with open(env_file, "a") as handle:
            handle.write(
                f"export MATH_PLUGIN_DATA={shlex.quote(data)}\n"
                f"export PYTHONPYCACHEPREFIX={shlex.quote(str(bootstrap.pycache_dir()))}\n"
            )


def _hook_failure(event: str, message: str) -> None:
    """A failed install as `event` hook JSON: a systemMessage (the user), context (the model)."""
    context = (
        f"The math plugin's Python environment could not be installed: {message}. Its commands "
        f"fail until this is fixed; if the user runs one, tell them this cause and how to fix it."
    )
    output = {"hookEventName": event, "additionalContext": context}
    answer = {"systemMessage": f"math plugin: {message}", "hookSpecificOutput": output}
    print(json.dumps(answer), flush=True)


def install(hook: bool) -> int:
    """Build the venv now unless it is ready (a recorded failure is tried again).

    With `hook`, a failure is printed as SessionStart hook JSON: a systemMessage for the user and
    additionalContext for the model; otherwise as the scripts' one JSON error line, and success
    as one JSON line: the venv, and which sessions use it (used_by()).
    """
    if hook and bootstrap.dependencies_importable():
        return 0  # this python3 has it all (a developer's machine): no venv needed
    try:
        bootstrap.build(quiet=hook, retry=True)
    except installer.InstallFailed as exc:
        if not hook:
            bootstrap.fail(str(exc))
        _hook_failure("SessionStart", str(exc))
        return 0
    if not hook:
        print(json.dumps({"venv": str(bootstrap.venv_dir()), "used_by": used_by()}), flush=True)
    return 0


def used_by() -> str:
    """Which runs use the data folder `install` built (bootstrap.data_dir() says how it is found),
    in words for the person who typed the command."""
    if any(os.environ.get(var) for var in ("CLAUDE_PLUGIN_DATA", "MATH_PLUGIN_DATA")):
        return "the sessions whose data folder MATH_PLUGIN_DATA names"
    if pluginhome.installed_data_dir(bootstrap.PLUGIN_ROOT):
        return (
            "Claude Code's sessions: it is the data folder Claude Code gives this plugin "
            "(${CLAUDE_PLUGIN_DATA}); a running session uses it at its next prompt"
        )
    return (
        f"the scripts you run at a terminal only: Claude Code has not installed the plugin at "
        f"{bootstrap.PLUGIN_ROOT} from a marketplace, so its sessions keep their own venv in "
        f"their data folder (a session's failed install prints the command that builds that one)"
    )


def _json_object(text: str) -> dict[str, object]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def report(hook_input: str) -> int:
    """UserPromptSubmit (waited for): wait up to REPORT_WAIT s for a running install, then show
    a recorded failure to the user (a synchronous hook's systemMessage is displayed; module
    doc), the first time this session sees it. Nothing else prints."""
    if bootstrap.dependencies_importable():
        return 0
    venv = bootstrap.venv_dir()
    deadline = time.monotonic() + bootstrap.REPORT_WAIT
    while bootstrap.install_running(venv) and time.monotonic() < deadline:
        time.sleep(0.25)
    failure = bootstrap.recent_failure(venv)
    if failure is None:
        return 0
    message, _age = failure
    session = str(_json_object(hook_input).get("session_id") or "")
    told = bootstrap.failure_marker(venv).with_name("install-failed-shown.json")
    shown = _json_object(pluginhome.recorded_text(told) or "")
    if session and shown.get(session) == message:
        return 0  # said once this session: the scripts repeat it when they are called
    with contextlib.suppress(OSError):
        bootstrap.replace_record(told, json.dumps({session: message}))
    _hook_failure("UserPromptSubmit", message)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["export-env"]:
        export_env()
        return 0
    if args[:1] == ["install"] and set(args[1:]) <= {"--hook"}:
        # The hook's stdout is JSON for Claude Code: the "installing" line must not reach it.
        return install(hook="--hook" in args)
    if args == ["report", "--hook"]:
        return report(sys.stdin.read() if not sys.stdin.isatty() else "")
    print(
        "usage: installation.py export-env | install [--hook] | report --hook\n"
        "  export-env  (SessionStart hook) export MATH_PLUGIN_DATA and PYTHONPYCACHEPREFIX to\n"
        "              CLAUDE_ENV_FILE\n"
        "  install     build the plugin's Python environment now, trying again after a failure;\n"
        "              --hook: report a failure as SessionStart hook JSON\n"
        "  report --hook  (UserPromptSubmit hook) show a failed install to the user, once",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
