"""What run.run_sandboxed returns for one snippet, as compute.py prints it in JSON and
computation.py writes it into COMPUTATION.md, and how its outcome is named (outcome)."""

from __future__ import annotations

import signal
from typing import TypedDict


class Truncated(TypedDict):
    stdout: bool
    stderr: bool


class RunLimits(TypedDict):
    timeout_s: float
    memory_mb: int


class Isolation(TypedDict):
    """What confined the snippet, each as one phrase (run.py's module docstring)."""

    network: str
    memory: str
    processes: str
    process_count: str
    files: str
    workspace: str
    filesystem: str  # "landlock", "mount-namespace" or "none"
    metadata: str
    workdir: str
    protections: list[str]


class SnippetEnvironment(TypedDict, total=False):
    """What the snippet's interpreter reported (sandbox.RUNNER); empty when it never ran."""

    implementation: str
    python: str
    platform: str
    packages: dict[str, str]


class RunResult(TypedDict):
    outcome: str
    exit_code: int | None
    signal: str | None
    timed_out: bool
    wall_time_s: float
    stdout: str
    stderr: str
    truncated: Truncated
    limits: RunLimits
    isolation: Isolation
    environment: SnippetEnvironment


def outcome(
    returncode: int, timed_out: bool, stderr: str, flooded: bool, exceeded: str | None
) -> str:
    """What became of a run (RunResult.outcome), from how it ended and what it left."""
    if exceeded:
        return exceeded
    if timed_out or returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "timeout"
    if returncode == -signal.SIGXFSZ or (returncode != 0 and flooded):
        # Python ignores SIGXFSZ: its write fails with EFBIG and the snippet dies of OSError
        return "output_limit"
    if returncode != 0 and any(
        sign in stderr for sign in ("MemoryError", "Cannot allocate memory", "bad_alloc")
    ):
        return "memory"
    if returncode < 0:
        return "killed"
    return "ok" if returncode == 0 else "error"
