"""The pinned Claude Code binaries the validator and harness tests drive.

Two versions are supported, and CI runs both (tools/run-tests):

- CURRENT_VERSION, the release users get today: the whole suite runs on it;
- OLDEST_VERSION, the oldest release the plugin supports: a smoke subset (tests marked
  `claude`, plus the validator) runs on it.

A run picks one with MATH_TEST_CLAUDE_CODE_VERSION (default CURRENT_VERSION). `claude_binary()`
returns that version's platform binary from `.cache/claude-code-<version>/`, installing the npm
package `@anthropic-ai/claude-code@<version>` there first when it is absent (one folder per
version, so both coexist). npm 11 does not run the package's postinstall, so we call the platform
package's binary directly (`@anthropic-ai/claude-code-<os>-<arch>/claude`) rather than the
`claude` wrapper script. The install goes to a scratch folder renamed into place when complete,
under a lock, so parallel test runs never see half an install.

Moving the pin: set CURRENT_VERSION to the new release (`npm view @anthropic-ai/claude-code
version`), run `tools/run-tests`, fix what the harness or the plugin needs, and say in the harness's
module doc what the new release does differently. Raise OLDEST_VERSION only when the plugin drops
support for a release (the README's requirements name it). Old `.cache/claude-code-*` folders may
be deleted by hand.

A missing npm or a failed install raises `ClaudeCodeUnavailable`: the tests that need the binary
fail with that message rather than skip, because CI must prove the plugin loads.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from filelock import FileLock

CURRENT_VERSION = "2.1.332"
OLDEST_VERSION = "2.1.197"
VERSION_VARIABLE = "MATH_TEST_CLAUDE_CODE_VERSION"
ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache"


class ClaudeCodeUnavailable(RuntimeError):
    """The pinned Claude Code is not installed and could not be installed."""


def pinned_version() -> str:
    """The version this test run drives: $MATH_TEST_CLAUDE_CODE_VERSION, else CURRENT_VERSION."""
    version = os.environ.get(VERSION_VARIABLE) or CURRENT_VERSION
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise ClaudeCodeUnavailable(
            f"{VERSION_VARIABLE}={version!r} is not a Claude Code version such as {CURRENT_VERSION}"
        )
    return version


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def install_dir(version: str) -> Path:
    return CACHE / f"claude-code-{version}"


def platform_package() -> str:
    """The optional npm package that carries the native binary for this machine."""
    system = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform)
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    if system is None or arch is None:
        raise ClaudeCodeUnavailable(f"no Claude Code binary package for {sys.platform}/{machine}")
    if system == "linux" and _is_musl():
        return f"@anthropic-ai/claude-code-linux-{arch}-musl"
    return f"@anthropic-ai/claude-code-{system}-{arch}"


def _is_musl() -> bool:
    return not platform.libc_ver()[0] and Path("/etc/alpine-release").exists()


def binary_path(folder: Path) -> Path:
    name = "claude.exe" if sys.platform == "win32" else "claude"
    return folder / "node_modules" / platform_package() / name


def installed_version(binary: Path) -> str | None:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return out.stdout.split()[0] if out.returncode == 0 and out.stdout.strip() else None


def install(version: str, folder: Path) -> None:
    """npm-install `version` into a scratch folder beside `folder`, then rename it into place."""
    npm = shutil.which("npm")
    if npm is None:
        raise ClaudeCodeUnavailable(
            "npm is not on PATH: install Node.js/npm so the tests can fetch "
            f"@anthropic-ai/claude-code@{version} into {folder}"
        )
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    scratch.chmod(0o755)  # mkdtemp makes it private; the install is shared
    command = [
        npm,
        "install",
        "--prefix",
        str(scratch),
        "--no-audit",
        "--no-fund",
        "--save-exact",
        f"@anthropic-ai/claude-code@{version}",
    ]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=900)
        if run.returncode != 0:
            tail = "\n".join((run.stderr or run.stdout).strip().splitlines()[-5:])
            raise ClaudeCodeUnavailable(
                f"`{' '.join(command)}` failed (exit {run.returncode}):\n{tail}"
            )
        if folder.exists():  # an unusable earlier install: replaced whole
            shutil.rmtree(folder)
        scratch.rename(folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def claude_binary(version: str | None = None, folder: Path | None = None) -> Path:
    """The binary of `version` (default: pinned_version()), installed on first use.

    Raises ClaudeCodeUnavailable.
    """
    version = version or pinned_version()
    return _installed(version, folder or install_dir(version))


@functools.cache
def _installed(version: str, folder: Path) -> Path:
    binary = binary_path(folder)
    if installed_version(binary) != version:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(folder.parent / f".{folder.name}.lock"):
            if installed_version(binary) != version:  # another run may have installed it
                install(version, folder)
        if installed_version(binary) != version:
            raise ClaudeCodeUnavailable(
                f"npm installed @anthropic-ai/claude-code@{version} but {binary} "
                f"is missing or reports another version"
            )
    if not os.access(binary, os.X_OK):
        raise ClaudeCodeUnavailable(f"{binary} is not executable")
    return binary


def running_version() -> tuple[int, ...]:
    """The version the harness drives in this run, for the few checks that differ by release."""
    return version_tuple(pinned_version())
