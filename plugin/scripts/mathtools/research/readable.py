"""What a snippet may read where Landlock confines its reads (sandbox.py): its interpreter's
folders, asked of the interpreter itself, the system's programs and libraries, and the files its
caller names; never a home folder, a workspace or the whole file system."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

# What every snippet may read beside its interpreter's folders, its own and the files its caller
# names (Landlock): programs, shared libraries and the loader's cache, time zones, locales, the
# CPU and memory facts numeric libraries ask about, random devices. Never a home folder, /etc as
# a whole (/etc/shadow) or another process's /proc.
SYSTEM_READS = (
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
    "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/os-release",
    "/dev/urandom", "/dev/random", "/proc/cpuinfo", "/proc/meminfo", "/sys/devices/system/cpu",
)  # fmt: skip
# Asks an interpreter (run with -I, as the snippet's) where it and its libraries live.
INTERPRETER_PATHS = (
    "import json, os, sys; print(json.dumps([os.path.realpath(sys.executable), sys.prefix, "
    "sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, *sys.path]))"
)


@lru_cache(maxsize=8)
def _interpreter_paths(python: str) -> tuple[str, ...]:
    """Where `python` and the libraries it imports live (its prefixes, sys.path), asked once."""
    with contextlib.suppress(OSError, subprocess.SubprocessError, ValueError):
        asked = subprocess.run(
            [python, "-I", "-c", INTERPRETER_PATHS],
            capture_output=True,
            timeout=30,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
        )
        paths = json.loads(asked.stdout)
        return tuple(path for path in paths if isinstance(path, str) and path)
    return (os.path.dirname(os.path.realpath(python)),)


def readable_paths(python: Path | str, named: Iterable[Path | str] = ()) -> list[str]:
    """What a snippet run by `python` may read beside its own folder: SYSTEM_READS, the
    interpreter's folders and `named` (the files a request names). A folder of the interpreter
    that holds a home folder, the workspace or the whole file system is left out (a library
    there does not import; its secrets stay unread)."""
    guarded = {Path.home().resolve(), Path("/home"), Path("/root"), Path.cwd().resolve()}
    kept = []
    for path in _interpreter_paths(str(python)):
        resolved = Path(path).resolve()
        if not any(place.is_relative_to(resolved) for place in guarded):
            kept.append(str(resolved))
    return [*SYSTEM_READS, *dict.fromkeys(kept), *(str(Path(p).resolve()) for p in named)]
