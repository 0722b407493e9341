"""A seccomp filter (Linux 3.17 and later, x86-64 and AArch64): system calls a snippet has no
business making fail with EPERM, in the process that installs it and every process it starts.

Landlock keeps a snippet's writes in its folder but does not cover a file's metadata, and
nothing short of a filter covers Unix sockets. Refused, on every file (the snippet's own too:
a filter sees numbers, not paths):
  - permissions, owners, timestamps and extended attributes: the chmod, chown, utime and
    setxattr/removexattr families (shutil.copy, which copies permissions, fails; copyfile works);
  - inode flags (immutable, append-only, nodump, noatime, sync...) and the inode version: the
    ioctl(2) requests SETFLAGS_REQUESTS, which need only a file opened for reading;
  - creating a socket of any family (socket(2)): no Unix socket of another program can be
    reached, and no network either; socketpair(2), an unnamed connected pair, stays allowed;
  - io_uring (its requests would bypass the filter), ptrace, process_vm_readv/writev and
    pidfd_getfd (reading or taking over another process of the user).
A system call of another architecture (a 32-bit one from a 64-bit process, x32) kills the
process. The filter is a classic BPF program built here, installed with prctl(2); standard
library only (no libseccomp binding is needed).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
# BPF instructions (include/uapi/linux/filter.h) and filter returns (linux/seccomp.h)
LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
JUMP_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JUMP_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
RETURN = 0x06  # BPF_RET | BPF_K
ALLOW = 0x7FFF0000
KILL_PROCESS = 0x80000000
REFUSE = 0x00050000 | errno.EPERM  # SECCOMP_RET_ERRNO with EPERM
NUMBER_OFFSET, ARCH_OFFSET = 0, 4  # struct seccomp_data: int nr; __u32 arch; ...
# ...; __u64 instruction_pointer; __u64 args[6]: ioctl's request is args[1], an unsigned int to
# the kernel, so its low word alone decides (high bits are ignored, and must not let it pass)
REQUEST_OFFSET = 24 if sys.byteorder == "little" else 28
X32_BIT = 0x40000000  # x86-64's x32 ABI: the same calls under other numbers

# The refused calls, by name; each architecture lists the ones it has.
METADATA_CALLS = (
    "chmod", "fchmod", "fchmodat", "fchmodat2",
    "chown", "fchown", "lchown", "fchownat",
    "utime", "utimes", "futimesat", "utimensat",
    "setxattr", "lsetxattr", "fsetxattr", "setxattrat",
    "removexattr", "lremovexattr", "fremovexattr", "removexattrat",
)  # fmt: skip
SOCKET_CALLS = ("socket",)
PROCESS_CALLS = ("io_uring_setup", "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd")
REFUSED = METADATA_CALLS + SOCKET_CALLS + PROCESS_CALLS
# ioctl requests refused (include/uapi/linux/fs.h: _IOW('f', 2, long), _IOW('f', 2, int),
# _IOW('v', 2, long), _IOW('v', 2, int), _IOW('X', 32, struct fsxattr)); other ioctls run
SETFLAGS_REQUESTS = {
    "FS_IOC_SETFLAGS": 0x40086602,
    "FS_IOC32_SETFLAGS": 0x40046602,
    "FS_IOC_SETVERSION": 0x40087602,
    "FS_IOC32_SETVERSION": 0x40047602,
    "FS_IOC_FSSETXATTR": 0x401C5820,
}

# System call numbers (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h)
# and the AUDIT_ARCH_* value the kernel puts in seccomp_data.arch.
ARCHITECTURES: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (
        0xC000003E,
        {
            "chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452,
            "chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
            "utime": 132, "utimes": 235, "futimesat": 261, "utimensat": 280,
            "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "setxattrat": 463,
            "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199, "removexattrat": 466,
            "socket": 41, "io_uring_setup": 425, "ptrace": 101, "process_vm_readv": 310,
            "process_vm_writev": 311, "pidfd_getfd": 438, "ioctl": 16,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "fchmod": 52, "fchmodat": 53, "fchmodat2": 452, "fchownat": 54, "fchown": 55,
            "utimensat": 88,
            "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463,
            "removexattr": 14, "lremovexattr": 15, "fremovexattr": 16, "removexattrat": 466,
            "socket": 198, "io_uring_setup": 425, "ptrace": 117, "process_vm_readv": 270,
            "process_vm_writev": 271, "pidfd_getfd": 438, "ioctl": 29,
        },
    ),
}  # fmt: skip
ARCHITECTURES["arm64"] = ARCHITECTURES["aarch64"]


def machine() -> str | None:
    """This machine's architecture as ARCHITECTURES names it, or None where there is no filter."""
    name = platform.machine().lower()
    return name if sys.platform.startswith("linux") and name in ARCHITECTURES else None


def _instruction(code: int, jump_true: int, jump_false: int, value: int) -> bytes:
    return struct.pack("=HBBI", code, jump_true, jump_false, value)


def program(arch: str) -> bytes:
    """The filter for `arch`, as the bytes of its sock_filter array: other architectures are
    killed, (on x86-64) x32 calls too, the REFUSED calls and the SETFLAGS_REQUESTS ioctls fail
    with EPERM, the rest run."""
    audit_arch, numbers = ARCHITECTURES[arch]
    refused = sorted({numbers[name] for name in REFUSED if name in numbers})
    code = [
        _instruction(LOAD_WORD, 0, 0, ARCH_OFFSET),
        _instruction(JUMP_EQUAL, 1, 0, audit_arch),
        _instruction(RETURN, 0, 0, KILL_PROCESS),
        _instruction(LOAD_WORD, 0, 0, NUMBER_OFFSET),
    ]
    if arch == "x86_64":
        code.append(_instruction(JUMP_AT_LEAST, 0, 1, X32_BIT))
        code.append(_instruction(RETURN, 0, 0, KILL_PROCESS))
    # ioctl: its request decides; each refused one jumps over the ones after it to the REFUSE
    requests = sorted(SETFLAGS_REQUESTS.values())
    block = [_instruction(LOAD_WORD, 0, 0, REQUEST_OFFSET)]
    for index, request in enumerate(requests):
        block.append(_instruction(JUMP_EQUAL, len(requests) - index, 0, request))
    block += [_instruction(RETURN, 0, 0, ALLOW), _instruction(RETURN, 0, 0, REFUSE)]
    code.append(_instruction(JUMP_EQUAL, 0, len(block), numbers["ioctl"]))
    code += block
    # each refused number jumps over the ones after it and the ALLOW to the shared REFUSE
    for index, number in enumerate(refused):
        code.append(_instruction(JUMP_EQUAL, len(refused) - index, 0, number))
    code.append(_instruction(RETURN, 0, 0, ALLOW))
    code.append(_instruction(RETURN, 0, 0, REFUSE))
    return b"".join(code)


class _Program(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def install() -> None:
    """From now on this process and its children cannot make the REFUSED calls (EPERM).
    OSError when the filter cannot be installed here; then nothing has been restricted."""
    arch = machine()
    if arch is None:
        raise OSError(f"no seccomp filter for {platform.system()} on {platform.machine()}")
    code = program(arch)
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    # required of a process without CAP_SYS_ADMIN; also keeps set-user-ID programs from
    # gaining privileges
    _prctl(libc, PR_SET_NO_NEW_PRIVS, 1, 0)
    _prctl(libc, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog))


def _prctl(libc: ctypes.CDLL, option: int, value: int, pointer: int) -> None:
    arguments = (ctypes.c_ulong(option), ctypes.c_ulong(value), ctypes.c_void_p(pointer or None))
    if libc.prctl(*arguments, ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def probe(folder: str) -> bool:
    """Whether, once the filter is installed, chmod on a file of `folder`, setting its inode
    flags and creating a Unix socket are refused while writing the file still works. Filters
    this process: call it in a process of its own."""
    import socket

    path = os.path.join(folder, "probe")
    try:
        install()
        with open(path, "w") as handle:
            handle.write("1")
    except OSError:
        return False

    def set_flags() -> None:  # no flag: a filter that failed would change nothing
        import fcntl

        with open(path, "rb") as handle:
            fcntl.ioctl(handle, SETFLAGS_REQUESTS["FS_IOC_SETFLAGS"], struct.pack("l", 0))

    attempts = (lambda: os.chmod(path, 0o600), set_flags, lambda: socket.socket(socket.AF_UNIX))
    for attempt in attempts:
        try:
            attempt()
        except PermissionError:
            continue
        return False
    return True
