"""Landlock (Linux 5.13 and later): a process, and every process it starts, may write only beneath
the folders it names and, when it names what it reads, read (and execute) only beneath those and
the folders it writes; otherwise reading and executing stay allowed everywhere. Where the
kernel's Landlock has them, also: truncating (ABI 3) and device ioctls (ABI 5) only there, and
(ABI 6) no signal to, and no abstract Unix socket of, a process outside the restriction
(compute's reaper, the user's shell). A restriction cannot be undone, and every child inherits
it. launcher.py applies it to the snippet's interpreter.

Standard library only: launcher.py runs with `-S`.
"""

from __future__ import annotations

import ctypes
import os
import platform
import stat
import sys
from collections.abc import Sequence

# The system calls (include/uapi/asm-generic/unistd.h): one number on every architecture since
# Linux 5.1, except alpha, which adds 110 to each.
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1 << 0  # landlock_create_ruleset(NULL, 0, this) returns the ABI version
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
O_PATH = getattr(os, "O_PATH", 0o10000000)

# Filesystem access rights (include/uapi/linux/landlock.h), with the ABI version that added them.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2: link or rename a file into another folder
TRUNCATE = 1 << 14  # ABI 3: truncate(2), ftruncate(2), open with O_TRUNC
IOCTL_DEV = 1 << 15  # ABI 5: ioctl(2) on a character or block device
# Every right that changes the file system, and device ioctls. Reading, listing and executing
# are handled only when the caller names what may be read (READ_RIGHTS).
WRITE_RIGHTS_V1 = (
    WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK
    | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM
)  # fmt: skip
READ_RIGHTS = EXECUTE | READ_FILE | READ_DIR  # executing a file reads it
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # all a file's rule may hold
# Devices a program may write to wherever it runs: writes to them change no file.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
# Scopes (ABI 6): what a restricted process cannot reach outside its restriction.
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # struct landlock_path_beneath_attr is packed
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _call(libc: ctypes.CDLL, number: int, *args: object) -> int:
    result = int(libc.syscall(ctypes.c_long(number), *args))
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    return result


def abi_version() -> int:
    """The Landlock ABI the kernel offers; 0 where there is none (not Linux, an older kernel,
    Landlock left out of the boot's security modules, or a system call filter refusing it)."""
    if not sys.platform.startswith("linux") or platform.machine() == "alpha":
        return 0
    try:
        return _call(_libc(), CREATE_RULESET, None, ctypes.c_size_t(0), CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0


def write_rights(abi: int) -> int:
    """The write rights ABI `abi` knows: a kernel refuses a ruleset naming rights it lacks."""
    return (
        WRITE_RIGHTS_V1
        | (REFER if abi >= 2 else 0)
        | (TRUNCATE if abi >= 3 else 0)
        | (IOCTL_DEV if abi >= 5 else 0)
    )


def scopes(abi: int) -> int:
    """The scopes ABI `abi` knows (none before 6)."""
    return SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0


def protections(abi: int, reads: bool = False) -> list[str]:
    """What restrict applies under ABI `abi` (`reads`: with reads named), as the sandbox's result
    names it."""
    named = ["landlock: writes only in the snippet's folder"]
    named += (
        [
            "landlock: reads only of the interpreter, its libraries, the system's programs and "
            "the snippet's folder"
        ]
        if reads
        else []
    )
    named += ["landlock: truncation only there"] if abi >= 3 else []
    named += ["landlock: device ioctls only there"] if abi >= 5 else []
    named += ["landlock: no signal or abstract Unix socket outside the sandbox"] if abi >= 6 else []
    return named


def restrict(writes: Sequence[str], reads: Sequence[str] | None = None) -> None:
    """From now on this process and its children write only beneath `writes` (and to DEVICES)
    and, unless `reads` is None, read, list and execute only beneath `reads`, `writes` and
    DEVICES (a path in `reads` that does not exist is left out). OSError when Landlock is missing
    or refuses; then nothing has been restricted."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    libc = _libc()
    read_rights = READ_RIGHTS if reads is not None else 0
    handled = write_rights(abi) | read_rights
    # struct landlock_ruleset_attr: handled_access_fs, handled_access_net (none handled: the
    # seccomp filter refuses sockets), scoped; a kernel before ABI 6 gets the first field only
    attr = (ctypes.c_uint64 * 3)(handled, 0, scopes(abi))
    size = ctypes.sizeof(attr) if abi >= 6 else 8
    ruleset = _call(libc, CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    try:
        rules = [(folder, handled, True) for folder in writes]
        rules += [(d, handled, False) for d in DEVICES]
        rules += [(path, read_rights, False) for path in reads or ()]
        for path, rights, required in rules:
            try:
                fd = os.open(path, O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                if required:
                    raise
                continue
            try:
                if not stat.S_ISDIR(os.fstat(fd).st_mode):  # a file takes only a file's rights
                    rights &= FILE_RIGHTS
                rule = _PathBeneath(rights, fd)
                _call(libc, ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0)
            finally:
                os.close(fd)
        # required of a process without CAP_SYS_ADMIN; also keeps set-user-ID programs from
        # gaining privileges
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error))
        _call(libc, RESTRICT_SELF, ruleset, 0)
    finally:
        os.close(ruleset)


def probe(folder: str) -> bool:
    """Whether a process restricted to `folder`/inside can write there and to /dev/null, and
    cannot write `folder`/outside. Restricts this process: call it in a process of its own."""
    inside = os.path.join(folder, "inside")
    os.makedirs(inside, exist_ok=True)
    try:
        restrict([inside])
        with open(os.path.join(inside, "written"), "w") as handle:
            handle.write("1")
        with open(os.devnull, "w") as handle:
            handle.write("1")
    except OSError:
        return False
    try:
        with open(os.path.join(folder, "outside"), "w") as handle:
            handle.write("1")
    except PermissionError:
        return True
    return False
