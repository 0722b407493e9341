"""Landlock (Linux 5.13 and later): a process, and every process it starts, may write only beneath
the folders it names; reading and executing stay allowed everywhere.

The sandbox runs the snippet's interpreter through this file as a program:

    python -I -S landlock.py FOLDER -- PROGRAM ARG...

restricts itself to writing beneath FOLDER (and to /dev/null, /dev/zero, /dev/full), then
executes PROGRAM in its place. A restriction cannot be undone, and every child inherits it. When
it cannot be applied, PROGRAM does not run: the program exits FAILED with one line on stderr
starting with FAILED_PREFIX. `python -I -S landlock.py --probe FOLDER` checks, in FOLDER, that a
restricted process really is kept from writing outside (exit 0) or not.

Standard library only, and no package-relative import: it runs as a script, with `-S`.
"""

from __future__ import annotations

import ctypes
import os
import platform
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
WRITE_FILE = 1 << 1
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
# Every right that changes the file system. Reading, listing and executing are not handled, so
# they stay allowed everywhere; nor is IOCTL_DEV (ABI 5), which concerns devices, not files.
WRITE_RIGHTS_V1 = (
    WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK
    | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM
)  # fmt: skip
# Devices a program may write to wherever it runs: writes to them change no file.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
FAILED = 125  # the exit status when the restriction could not be applied
FAILED_PREFIX = "math sandbox: Landlock"


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
    return WRITE_RIGHTS_V1 | (REFER if abi >= 2 else 0) | (TRUNCATE if abi >= 3 else 0)


def restrict_writes(folders: Sequence[str]) -> None:
    """From now on this process and its children write only beneath `folders` (and to DEVICES).
    OSError when Landlock is missing or refuses; then nothing has been restricted."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available in this kernel")
    libc, handled = _libc(), write_rights(abi)
    # struct landlock_ruleset_attr: only its first field, handled_access_fs (a kernel reads a
    # shorter struct as if the later fields, network and scopes, were zero)
    attr = ctypes.c_uint64(handled)
    ruleset = _call(libc, CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(8), 0)
    try:
        rules = [(folder, handled) for folder in folders]
        # a device is a file, not a folder: it takes only the rights of files
        rules += [(d, handled & (WRITE_FILE | TRUNCATE)) for d in DEVICES if os.path.exists(d)]
        for path, rights in rules:
            fd = os.open(path, O_PATH | os.O_CLOEXEC)
            try:
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
        restrict_writes([inside])
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


def main(argv: Sequence[str]) -> int:
    if len(argv) == 2 and argv[0] == "--probe":
        return 0 if probe(argv[1]) else 1
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write(f"{FAILED_PREFIX}: usage: landlock.py FOLDER -- PROGRAM ARG...\n")
        return FAILED
    try:
        restrict_writes([argv[0]])
    except OSError as exc:
        sys.stderr.write(f"{FAILED_PREFIX} could not confine the snippet's writes ({exc}): "
                         "it did not run\n")  # fmt: skip
        return FAILED
    sys.stdout.flush()
    os.execvp(argv[2], list(argv[2:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
