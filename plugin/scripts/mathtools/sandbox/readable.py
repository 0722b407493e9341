"""What a snippet may read (run.py): its interpreter's folders, asked of the interpreter
itself, the system's programs and libraries, and the files its caller names; never a home folder,
a workspace or the whole file system. Landlock allows exactly these (readable_paths); a mount
namespace covers what else lies in home folders, the workspace and /etc (covered)."""

from __future__ import annotations

import contextlib
import json
import os
import stat
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
    """What a snippet run by `python` may read beside its own folder: SYSTEM_READS, `python`
    itself, the interpreter's folders and `named` (the files a request names). A folder of the
    interpreter that holds a home folder, the workspace or the whole file system is left out (a
    library there does not import; its secrets stay unread)."""
    guarded = {Path.home().resolve(), Path("/home"), Path("/root"), Path.cwd().resolve()}
    # the program run itself, wherever it lies: a venv's python may be a file of its own (a copy,
    # or a wrapper script) in the plugin's data folder, under the home folder
    kept = [str(Path(python).resolve())]
    for path in _interpreter_paths(str(python)):
        resolved = Path(path).resolve()
        if not any(place.is_relative_to(resolved) for place in guarded):
            kept.append(str(resolved))
    return [*SYSTEM_READS, *dict.fromkeys(kept), *(str(Path(p).resolve()) for p in named)]


# Where a mount namespace covers everything the snippet need not read: home folders (and the
# caller's roots: the workspace) wholly but for the kept paths; in /etc only what the system
# keeps from other users (/etc/shadow, sudoers, SSH host keys), as programs read the rest.
HOME_ROOTS = ("/root", "/home")
PRIVATE_ROOTS = ("/etc",)
PRIVATE_DEPTH = 3  # how deep below /etc private files are looked for


def _private(root: Path) -> list[str]:
    """The entries below `root` other users may not read (no read permission for others)."""
    found: list[str] = []
    for folder, folders, files in os.walk(root):
        depth = len(Path(folder).relative_to(root).parts)
        for name in [*folders, *files]:
            entry = Path(folder) / name
            with contextlib.suppress(OSError):
                mode = entry.lstat().st_mode
                if not stat.S_ISLNK(mode) and not mode & stat.S_IROTH:
                    found.append(str(entry))
        # a private folder is covered whole; deeper than PRIVATE_DEPTH nothing is looked for
        folders[:] = [f for f in folders if str(Path(folder) / f) not in found]
        if depth + 1 >= PRIVATE_DEPTH:
            folders[:] = []
    return found


def covered(kept: Iterable[str], roots: Iterable[Path | str] = ()) -> list[str]:
    """What a mount namespace covers so that a snippet reads only `kept` paths below HOME_ROOTS
    and `roots` (the user's home, the workspace), and nothing private of PRIVATE_ROOTS: each
    entry there that neither is, lies in nor leads to a kept path. A symbolic link is never
    covered (mount would follow it); what it leads to is covered or not where it lies."""
    wanted = [Path(path) for path in kept]
    found: list[str] = []

    def cover(folder: Path) -> None:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.is_symlink() or any(entry == p or p in entry.parents for p in wanted):
                continue  # a link, kept, or inside what is kept
            if any(entry in path.parents for path in wanted):
                if entry.is_dir():
                    cover(entry)  # it leads to a kept path: cover what else it holds
                continue
            found.append(str(entry))

    tops = list(dict.fromkeys(Path(root).resolve() for root in (*HOME_ROOTS, *roots)))
    for top in tops:
        held = any(top != other and other in top.parents for other in tops)
        if top.is_dir() and not held and not any(p == top or p in top.parents for p in wanted):
            cover(top)
    for root in PRIVATE_ROOTS:
        found += _private(Path(root))
    return found
