"""The snippet's folder in the temporary directory: made for one run and named after the process
that runs it, so that the folder of a run whose compute.py was killed (Claude Code ending a call
with SIGKILL: no `finally` runs) is recognised and removed by the next run."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

PREFIX = "math-compute-"
NAME = re.compile(rf"^{PREFIX}(\d+)-")
# A folder younger than this is left alone even when its owner looks gone: its owner may live
# in another PID namespace that shares the temporary directory.
STALE_AFTER_S = 60.0


def make() -> Path:
    """A new folder for one run, owned by this process."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))


def _owner_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True


def sweep(root: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove the folders of runs whose owner is gone (and that are older than STALE_AFTER_S);
    return them. Only this user's folders, and only the ones this module named."""
    root = Path(tempfile.gettempdir()) if root is None else root
    now = time.time() if now is None else now
    removed = []
    with contextlib.suppress(OSError):
        for folder in root.iterdir():
            match = NAME.match(folder.name)
            if not match or _owner_alive(int(match.group(1))):
                continue
            with contextlib.suppress(OSError):
                info = folder.lstat()
                mine = info.st_uid == os.getuid() and folder.is_dir() and not folder.is_symlink()
                if mine and now - info.st_mtime > STALE_AFTER_S:
                    shutil.rmtree(folder, ignore_errors=True)
                    removed.append(folder)
    return removed
