"""What the operating system can take away from the learner's interpreter before it runs any learner code.

Used by checker/learnerproc.py on CPython (`ol check`, `ol class`), never in the browser, whose worker is the
sandbox. Each layer is what the OS offers an unprivileged process, applied when the kernel has it:

- Linux, Landlock (5.13+): the file system is read-only except the check's own folder, and only the folders
  Python and numpy need can be read (not the course's hidden tests or references, not the teacher's home);
  with Landlock ABI 4+ no TCP connection or listening socket; with ABI 6+ no signal to a process outside it.
- Linux, seccomp (x86_64 and aarch64): no new program (execve), no new process (fork, clone without
  CLONE_THREAD; threads stay), no socket at all, no ptrace or reading another process's memory, no signal to
  another process, no io_uring, no new namespaces.
- Linux, a network namespace of its own when the kernel lets this user make one: not even loopback.
- Everywhere: rlimits on file size and core dumps.

`apply(writable, readable)` applies what it can and returns which layers hold, for the caller to report. macOS
and Windows get the process boundary and the limits only (ARCHITECTURE.md, "The trust boundary").
"""
from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys
from pathlib import Path

FILE_SIZE_CAP = 64 << 20

# Landlock (include/uapi/linux/landlock.h)
_CREATE, _ADD_RULE, _RESTRICT = 444, 445, 446
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FILE_RIGHTS = {1: 0b111, 3: 0b111 | 1 << 14, 5: 0b111 | 1 << 14 | 1 << 15}  # + TRUNCATE (3), IOCTL_DEV (5)
_ALL_FS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_READ = _EXECUTE | _READ_FILE | _READ_DIR
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2

# seccomp: (audit arch, {name: number}) per machine
_SYSCALLS = {
    "x86_64": (0xC000003E, dict(socket=41, socketpair=53, connect=42, bind=49, execve=59, execveat=322, fork=57,
                                vfork=58, clone=56, clone3=435, ptrace=101, process_vm_readv=310,
                                process_vm_writev=311, kill=62, tkill=200, tgkill=234, unshare=272, setns=308,
                                mount=165, pidfd_open=434, pidfd_send_signal=424, io_uring_setup=425, bpf=321)),
    "aarch64": (0xC00000B7, dict(socket=198, socketpair=199, connect=203, bind=200, execve=221, execveat=281,
                                 clone=220, clone3=435, ptrace=117, process_vm_readv=270, process_vm_writev=271,
                                 kill=129, tkill=130, tgkill=131, unshare=97, setns=268, mount=40, pidfd_open=434,
                                 pidfd_send_signal=424, io_uring_setup=425, bpf=280)),
}
_CLONE_THREAD = 0x00010000
_EPERM, _ENOSYS = 1, 38


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def limits() -> list[str]:
    """rlimits that hold on every POSIX system: files written stay small, no core dump."""
    try:
        import resource
    except ImportError:  # Windows
        return []
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_CAP, FILE_SIZE_CAP))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return ["limits"]


def landlock_abi() -> int:
    if sys.platform != "linux":
        return 0
    abi = _libc().syscall(_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(abi, 0)


def _landlock(writable: Path, readable: list[Path]) -> int:
    abi = landlock_abi()
    if abi < 1:
        return 0
    libc = _libc()
    fs = _ALL_FS[max(k for k in _ALL_FS if k <= abi)]
    file_rights = _FILE_RIGHTS[max(k for k in _FILE_RIGHTS if k <= abi)]
    fields = [fs] + ([3] if abi >= 4 else []) + ([3] if abi >= 6 else [])  # net: bind and connect; scope: both
    attr = struct.pack(f"<{len(fields)}Q", *fields)
    ruleset = libc.syscall(_CREATE, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return 0
    try:
        for path, rights in [*((p, _READ) for p in readable), (writable, fs)]:
            if not path.exists():
                continue
            allowed = rights if path.is_dir() else rights & file_rights
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = struct.pack("<Qi", allowed, fd)
                if libc.syscall(_ADD_RULE, ruleset, 1, ctypes.c_char_p(rule), 0) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock rule for {path}")
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.syscall(_RESTRICT, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _filter(arch: int, calls: dict[str, int], pid: int) -> list[tuple[int, int, int, int]]:
    """The seccomp program: (code, jt, jf, k) instructions."""
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    allow, kill, deny, nosys = 0x7FFF0000, 0x80000000, 0x00050000 | _EPERM, 0x00050000 | _ENOSYS
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, kill), (ld, 0, 0, 0)]
    if arch == _SYSCALLS["x86_64"][0]:  # the x32 numbers (bit 30) would name the same calls by other numbers
        prog += [(0x35, 0, 1, 0x40000000), (ret, 0, 0, kill)]
    denied = [n for name, n in calls.items() if name not in ("clone", "clone3", "kill", "tgkill")]
    for number in denied:
        prog += [(jeq, 0, 1, number), (ret, 0, 0, deny)]
    prog += [(jeq, 0, 1, calls["clone3"]), (ret, 0, 0, nosys)]  # glibc falls back to clone, which is checked
    # clone: a thread (CLONE_THREAD in the low word of args[0]) is allowed, a process is not
    prog += [(jeq, 0, 4, calls["clone"]), (ld, 0, 0, 16), (jset, 0, 1, _CLONE_THREAD), (ret, 0, 0, allow),
             (ret, 0, 0, deny)]
    # kill and tgkill: only to this process itself (raise(), faulthandler), never to another
    for name in ("kill", "tgkill"):
        prog += [(jeq, 0, 4, calls[name]), (ld, 0, 0, 16), (jeq, 1, 0, pid), (ret, 0, 0, deny), (ret, 0, 0, allow),
                 (ld, 0, 0, 0)]
    return prog + [(ret, 0, 0, allow)]


def _seccomp() -> bool:
    machine = platform.machine().lower().replace("arm64", "aarch64")
    if sys.platform != "linux" or machine not in _SYSCALLS:
        return False
    arch, calls = _SYSCALLS[machine]
    prog = _filter(arch, calls, os.getpid())
    filters = (_SockFilter * len(prog))(*(_SockFilter(*ins) for ins in prog))
    fprog = _SockFprog(len(prog), filters)
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _network_namespace() -> bool:
    """A network namespace of its own (CLONE_NEWNET, as root; with CLONE_NEWUSER as a user who may make one)."""
    if sys.platform != "linux":
        return False
    libc = _libc()
    return any(libc.unshare(flags) == 0 for flags in (0x40000000, 0x10000000 | 0x40000000))


def apply(writable: Path, readable: list[Path]) -> list[str]:
    """Apply every layer this system offers; the names of those that hold ("landlock-7", "seccomp", "netns",
    "limits")."""
    held = limits()
    if _network_namespace():
        held.append("netns")
    try:
        abi = _landlock(writable, readable)
    except OSError:
        abi = 0
    if abi:
        held.append(f"landlock-{abi}")
    if _seccomp():
        held.append("seccomp")
    return held
