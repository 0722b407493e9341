"""The pinned Claude Code binary the validator and harness tests drive.

`claude_binary()` returns the platform binary from `.cache/claude-code`, installing the npm package
`@anthropic-ai/claude-code@CLAUDE_CODE_VERSION` there first when it is absent. npm 11 does not run
the package's postinstall, so we call the platform package's binary directly
(`@anthropic-ai/claude-code-<os>-<arch>/claude`) rather than the `claude` wrapper script.

A missing npm or a failed install raises `ClaudeCodeUnavailable`: the tests that need the binary
fail with that message rather than skip, because CI must prove the plugin loads.
"""

from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

CLAUDE_CODE_VERSION = "2.1.197"
ROOT = Path(__file__).resolve().parents[2]
INSTALL_DIR = ROOT / ".cache" / "claude-code"


class ClaudeCodeUnavailable(RuntimeError):
    """The pinned Claude Code is not installed and could not be installed."""


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


def binary_path(install_dir: Path = INSTALL_DIR) -> Path:
    name = "claude.exe" if sys.platform == "win32" else "claude"
    return install_dir / "node_modules" / platform_package() / name


def installed_version(binary: Path) -> str | None:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return out.stdout.split()[0] if out.returncode == 0 and out.stdout.strip() else None


def install(install_dir: Path = INSTALL_DIR) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise ClaudeCodeUnavailable(
            "npm is not on PATH: install Node.js/npm so the tests can fetch "
            f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} into {install_dir}"
        )
    install_dir.mkdir(parents=True, exist_ok=True)
    command = [
        npm,
        "install",
        "--prefix",
        str(install_dir),
        "--no-audit",
        "--no-fund",
        f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}",
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if run.returncode != 0:
        tail = "\n".join((run.stderr or run.stdout).strip().splitlines()[-5:])
        raise ClaudeCodeUnavailable(
            f"`{' '.join(command)}` failed (exit {run.returncode}):\n{tail}"
        )


@functools.cache
def claude_binary(install_dir: Path = INSTALL_DIR) -> Path:
    """The pinned binary, installed on first use. Raises ClaudeCodeUnavailable."""
    binary = binary_path(install_dir)
    if installed_version(binary) != CLAUDE_CODE_VERSION:
        install(install_dir)
        if installed_version(binary) != CLAUDE_CODE_VERSION:
            raise ClaudeCodeUnavailable(
                f"npm installed @anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} but {binary} "
                f"is missing or reports another version"
            )
    if not os.access(binary, os.X_OK):
        raise ClaudeCodeUnavailable(f"{binary} is not executable")
    return binary
