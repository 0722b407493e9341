"""The workspace's signing key, `.math/signing.key`, and the marks made with it: what makes a
hand-made STATE.md digest (stateread.py) or a hand-typed computation run (computation.py) show.

A mark is an HMAC-SHA256 of what it vouches for, keyed by 32 random bytes that the scripts create
on first use and keep in the workspace's `.math/` folder (mode 0600, moved with the workspace, the
same from a terminal as from Claude Code). A digest recomputed with 0.1.0's formula (a SHA-256 of
STATE.md's fields, which anyone can compute) no longer passes, and neither does a run typed into
COMPUTATION.md by hand: the mark needs the key.

What it does not prevent: anyone who reads the key file, or imports the library and calls the code
that makes marks (stateread.digest_of, computation.record_computation), can make any mark; the model
can, with a Bash call, if it sets out to. The threat is an eager model taking a shortcut, not a
determined one; the key only turns the shortcut into a forgery that has to go and get it. Deleting
the key makes every mark of the workspace fail: STATE.md reads as hand-edited and every recorded run
as hand-typed. The way back is the user's: having checked the files, they type `/math:research
resign`, and `state.py resign` (statechanges.resign) seals every STATE.md and run record again
with the key made since.

0.1.0 sealed STATE.md with an unkeyed SHA-256. When a workspace's key is made, the digests its
STATE.md files hold then are kept in the key file (`unkeyed`), and stateread.py still reads those,
until their next move seals them with the key; a digest recomputed by hand later is not among them.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import TypedDict

from ..core import BadInput, read_text, split_frontmatter, stamp

KEY_FILE = "signing.key"


def math_dir_of(problem_folder: Path) -> Path:
    """The `.math/` folder of a problem folder `.math/problems/<slug>/`."""
    return Path(problem_folder).resolve().parent.parent


class Key(TypedDict):
    """`.math/signing.key`: the key, when it was made, and the digests of the STATE.md files that
    0.1.0 had sealed without a key when it was made (stateread.py still reads those)."""

    key: str
    created: str
    unkeyed: list[str]


def _read(path: Path) -> Key:
    try:
        data = json.loads(read_text(path, path.name))
        bytes.fromhex(data["key"])
        unkeyed = [str(digest) for digest in data.get("unkeyed") or []]
    except (ValueError, KeyError, TypeError, AttributeError):
        raise BadInput(
            f"{path} is damaged: delete it and the scripts make a new key, but then every "
            "STATE.md and recorded computation of the workspace reads as edited by hand until "
            "the user types /math:research resign",
            code="bad_key",
        ) from None
    return {"key": str(data["key"]), "created": str(data.get("created")), "unkeyed": unkeyed}


def _sealed_without_key(math_dir: Path) -> list[str]:
    """The `digest` of every problem's STATE.md now (before the workspace has a key, 0.1.0's)."""
    found = []
    for path in sorted(math_dir.glob("problems/*/STATE.md")):
        with contextlib.suppress(BadInput, OSError, UnicodeDecodeError):
            digest = split_frontmatter(read_text(path, path.name), str(path))[0].get("digest")
            if isinstance(digest, str):
                found.append(digest)
    return found


def signing_key(math_dir: Path) -> Key:
    """The workspace's key, made now if it has none."""
    path = math_dir / KEY_FILE
    if not path.exists():
        math_dir.mkdir(parents=True, exist_ok=True)
        record: Key = {
            "key": secrets.token_hex(32),
            "created": stamp(microseconds=True),
            "unkeyed": _sealed_without_key(math_dir),
        }
        made = path.with_name(f".{KEY_FILE}.{os.getpid()}.tmp")
        made.write_text(json.dumps(record) + "\n", encoding="utf-8")
        os.chmod(made, 0o600)
        try:
            os.link(made, path)  # fails if another process made one first: then theirs is used
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            os.replace(made, path)
        made.unlink(missing_ok=True)
    return _read(path)


def mark(math_dir: Path, payload: object) -> str:
    """The HMAC-SHA256 (hex) of `payload`, as canonical JSON, under the workspace's key."""
    text = json.dumps(payload, sort_keys=True, default=str).encode("utf-8")
    secret = bytes.fromhex(signing_key(math_dir)["key"])
    return hmac.new(secret, text, hashlib.sha256).hexdigest()


def matches(math_dir: Path, payload: object, given: object) -> bool:
    """Whether `given` is the mark of `payload`."""
    return isinstance(given, str) and hmac.compare_digest(mark(math_dir, payload), given)
