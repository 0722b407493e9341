"""Which Linux namespaces this machine gives the sandbox (through util-linux `unshare`), and the
command prefixes that use them: a user namespace (root in it, nobody outside), a mount namespace
to hide files and make folders read-only, a PID namespace whose /proc shows only the snippet's
processes and whose end ends them all, an empty network namespace. Each is tried once, in a
child, and remembered for the process.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

# unshare options, most confinement first: user+mount namespaces also let us hide files, a PID
# namespace ends every process with the snippet, a network namespace has no interfaces.
NAMESPACE_OPTIONS = (
    (
        "--user",
        "--map-root-user",
        "--mount",
        "--pid",
        "--fork",
        "--kill-child",
        "--net",
        "--mount-proc",  # a /proc of the snippet's PID namespace: no host process shows
    ),
    ("--pid", "--fork", "--kill-child", "--net"),  # root where user namespaces are turned off
    ("--net", "--map-root-user"),
    ("--net",),
)
# Makes each folder up to the first "--" read-only (a read-only bind mount over itself), binds
# its first argument, an empty file, over each file up to the second "--" (an empty read-only
# tmpfs over a folder there), then runs the rest of its arguments in a nested user and mount
# namespace: there the mounts, inherited from a more privileged namespace, are locked, so the
# snippet (root in its namespace) can neither unmount nor remount them.
# Folders between the second and third "--" stay writable (bound over themselves) while every
# other mount becomes read-only, keeping its other flags (changing a locked one is refused); the
# namespace's /proc is left alone (the nested unshare writes its uid map), and so is a mount that
# a covering one made unreachable. The working directory moves onto the (last) writable folder's
# new mount: the old one is read-only.
HIDE_SCRIPT = (
    "b=$1; shift; "
    'for d; do shift; [ "$d" = -- ] && break; '
    'mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" || exit 125; done; '
    'for f; do shift; [ "$f" = -- ] && break; if [ -d "$f" ] && [ ! -L "$f" ]; then '
    'mount -t tmpfs -o ro,size=4k,mode=755 math-hidden "$f"; else mount --bind "$b" "$f"; fi '
    "|| exit 125; done; "
    'w=; for d; do shift; [ "$d" = -- ] && break; mount --bind "$d" "$d" && cd "$d" || exit 125; '
    'w="$w$d\n"; done; '
    '[ -z "$w" ] || while read -r _ _ _ _ m o _; do '
    'case $m in *\\\\*) m=$(printf %b "$m");; /proc|/proc/*) continue;; esac; '
    'case "\n$w" in *"\n$m\n"*) continue;; esac; [ -e "$m" ] || continue; o=${o#rw}; o=${o#ro}; '
    'mount -o "remount,bind,ro$o" "$m" || exit 125; done < /proc/self/mountinfo; '
    'exec "$@"'
)
NESTED_NAMESPACE = ("--user", "--map-root-user", "--mount")


@lru_cache(maxsize=1)
def namespace_prefix() -> tuple[str, ...] | None:
    """The `unshare ...` command prefix that confines a program most, if the kernel permits any."""
    unshare = shutil.which("unshare")
    if not unshare or not sys.platform.startswith("linux"):
        return None
    for options in NAMESPACE_OPTIONS:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            probe = subprocess.run([unshare, *options, "true"], capture_output=True, timeout=10)
            if probe.returncode == 0:
                return (unshare, *options)
    return None


def pid_namespace() -> bool:
    """Whether snippets run in their own PID namespace (all their processes end with them)."""
    return "--pid" in (namespace_prefix() or ())


def hiding(
    prefix: tuple[str, ...],
    files: Sequence[str],
    folders: Sequence[str] = (),
    writable: Sequence[str] = (),
    blank: str = "/dev/null",
) -> list[str]:
    """The command prefix that runs a program with `files` reading as the empty file `blank` (a
    folder among them as an empty folder) and `folders` read-only; when `writable` names
    folders, everything else is read-only. (Under Landlock a file bound from a place without a
    rule of its own, not /dev/null, whose reading every program may need, is unreadable where it
    is bound.)"""
    return [
        *prefix, "sh", "-c", HIDE_SCRIPT, "sh", blank, *folders, "--", *files, "--", *writable,
        "--", prefix[0], *NESTED_NAMESPACE,
    ]  # fmt: skip


@lru_cache(maxsize=1)
def can_hide_files() -> bool:
    """Whether `run(hidden=...)` works here: tried once on a file of our own."""
    prefix = namespace_prefix()
    if not prefix or "--mount" not in prefix or not shutil.which("mount"):
        return False
    with tempfile.NamedTemporaryFile("w", prefix="math-hide-probe-") as probe:
        probe.write("visible")
        probe.flush()
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            folder = str(Path(probe.name).parent)
            seen = subprocess.run(
                [*hiding(prefix, [probe.name], [folder]), "cat", probe.name],
                capture_output=True,
                timeout=10,
            )
            return seen.returncode == 0 and seen.stdout == b""
    return False


@lru_cache(maxsize=1)
def mount_namespace_works() -> bool:
    """Whether a mount namespace can leave only one folder writable here: tried once."""
    prefix = namespace_prefix()
    if not prefix or "--mount" not in prefix or not shutil.which("mount"):
        return False
    with tempfile.TemporaryDirectory(prefix="math-mount-probe-") as folder:
        inside = Path(folder).resolve() / "inside"
        inside.mkdir()
        write = ": > written; : > ../outside"  # the second fails, and ends sh, when confined
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            command = [*hiding(prefix, [], [], [str(inside)]), "sh", "-c", write]
            subprocess.run(command, capture_output=True, timeout=10, cwd=inside)
        return (inside / "written").exists() and not (inside.parent / "outside").exists()
