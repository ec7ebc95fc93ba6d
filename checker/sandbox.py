"""What the operating system can take away from the learner's interpreter before it runs any learner code.

Used by checker/learnerproc.py on CPython (`ol check`, `ol class`), never in the browser, whose worker is the
sandbox. Each layer is what the OS offers an unprivileged process, applied when the kernel has it:

- Linux, Landlock (5.13+): the file system is read-only except the check's own folder, and only the folders
  Python and numpy need can be read (not the course's hidden tests or references, not the teacher's home);
  with Landlock ABI 4+ no TCP connection or listening socket; with ABI 6+ no signal to a process outside it.
- Linux, seccomp (x86_64 and aarch64): no new program (execve), no new process (fork, clone without
  CLONE_THREAD; threads stay), no socket at all, no ptrace or reading another process's memory, no signal to
  another process, no io_uring, no new namespaces.
- Linux, a network namespace of its own when the kernel lets this user make one: not even loopback; and with it
  a mount namespace where the check's folder is a tmpfs of its own, of at most FOLDER_BYTES and FOLDER_FILES
  (`quota`): a write past either fails with "No space left on device". A user namespace is made for that when
  the user is not root (measured on this project's machine: an unprivileged user may, as Debian allows).
- Everywhere on POSIX: rlimits on one file's size, core dumps, and the address space (`memory`, MEMORY_CAP:
  numpy imports in under 200 MB of it with one BLAS thread, as checker/learnerproc.py sets; an allocation past it
  is a MemoryError in the learner's code).

Where there is no tmpfs of its own, the tests' side counts what the folder holds from outside
(checker/learnerproc.py `FolderWatch`) and ends the learner's process past the same quota.

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

FILE_SIZE_CAP = 64 << 20  # bytes of one file the learner's code writes
FOLDER_BYTES = 64 << 20  # bytes of everything in the check's folder together
FOLDER_FILES = 1000  # files and folders in it
MEMORY_CAP = 1 << 30  # bytes of address space of the learner's process

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
                                mount=165, umount2=166, pivot_root=155, pidfd_open=434, pidfd_send_signal=424,
                                io_uring_setup=425, bpf=321)),
    "aarch64": (0xC00000B7, dict(socket=198, socketpair=199, connect=203, bind=200, execve=221, execveat=281,
                                 clone=220, clone3=435, ptrace=117, process_vm_readv=270, process_vm_writev=271,
                                 kill=129, tkill=130, tgkill=131, unshare=97, setns=268, mount=40, umount2=39,
                                 pivot_root=41, pidfd_open=434, pidfd_send_signal=424, io_uring_setup=425, bpf=280)),
}
# The new mount API, the same numbers on both: no way around the folder's tmpfs (unmounting it, mounting over it)
for _calls in (c for _, c in _SYSCALLS.values()):
    _calls.update(open_tree=428, move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433)
_CLONE_THREAD = 0x00010000
_EPERM, _ENOSYS = 1, 38


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def limits() -> list[str]:
    """rlimits that hold on every POSIX system: files written stay small, no core dump ("limits"); and the address
    space at most MEMORY_CAP ("memory") where the system takes that limit."""
    try:
        import resource
    except ImportError:  # Windows
        return []
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_CAP, FILE_SIZE_CAP))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    except (ValueError, OSError):  # a hard limit already lower, or a system without it
        return ["limits"]
    return ["limits", "memory"]


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


_NEWNS, _NEWUSER, _NEWNET = 0x00020000, 0x10000000, 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 0x4000, 1 << 18


def _map_user(uid: int, gid: int) -> bool:
    """In a new user namespace, be this same user (a file made on the folder's tmpfs needs a user it knows)."""
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w", encoding="ascii") as f:
                f.write(text)
    except OSError:
        return False
    return True


def _own_tmpfs(folder: Path) -> bool:
    """The folder as a tmpfs of its own, in this process's own mount namespace (nothing of it propagates out)."""
    libc = _libc()
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        return False
    options = f"size={FOLDER_BYTES},nr_inodes={FOLDER_FILES},mode=0700".encode()
    return libc.mount(b"tl-learner", str(folder).encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                      options) == 0


def _namespaces(folder: Path) -> list[str]:
    """A network namespace of its own ("netns"), and a mount namespace in which `folder` is a tmpfs of at most
    FOLDER_BYTES and FOLDER_FILES ("quota"): as root, or in a user namespace of its own as a user who may make
    one. The first of these the kernel allows."""
    if sys.platform != "linux":
        return []
    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    for flags in (_NEWNET | _NEWNS, _NEWUSER | _NEWNET | _NEWNS, _NEWNET, _NEWUSER | _NEWNET):
        if libc.unshare(flags) == 0:
            break
    else:
        return []
    mapped = not flags & _NEWUSER or _map_user(uid, gid)
    return ["netns"] + (["quota"] if flags & _NEWNS and mapped and _own_tmpfs(folder) else [])


def apply(writable: Path, readable: list[Path]) -> list[str]:
    """Apply every layer this system offers; the names of those that hold ("landlock-7", "seccomp", "netns",
    "quota", "limits", "memory")."""
    held = limits()
    held += _namespaces(writable)
    try:
        abi = _landlock(writable, readable)
    except OSError:
        abi = 0
    if abi:
        held.append(f"landlock-{abi}")
    if _seccomp():
        held.append("seccomp")
    return held
