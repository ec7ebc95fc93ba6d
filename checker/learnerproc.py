"""The learner's interpreter on CPython: a child process that runs learner code and nothing else, behind
checker/sandbox.py, answering the tests' side over two pipes (checker/boundary.py).

`python -m checker.learnerproc RFD WFD FOLDER`: reads requests from file descriptor RFD, writes answers to WFD,
and may write only under FOLDER. Before any learner code it imports what it needs, applies the sandbox and says
`hello` with the layers that hold. Then: `load` (write the files, import the learner's module first, then the
others, under the time limit; the texts of a failure are made here, with the learner's file names), the
boundary's requests (calls, attribute reads, imports), and `finish` (what the code printed), after which it exits.

`spawn` is the tests' end of it: the child started, its pipes wrapped as a channel.
"""
from __future__ import annotations

import itertools
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
from pathlib import Path

from .boundary_codec import MESSAGE_CAP, BoundaryError

HEADER = struct.Struct("<I")
CHECKER = Path(__file__).resolve().parent


class PipeChannel:
    """Messages over a pair of pipes, each a 4-byte length and the bytes; `recv` is None once the other end is
    closed."""

    def __init__(self, rfd: int, wfd: int):
        self.rfd, self.wfd = rfd, wfd

    def send(self, data: bytes) -> None:
        view = memoryview(HEADER.pack(len(data)) + data)
        while view:
            view = view[os.write(self.wfd, view):]

    def _exactly(self, n: int) -> bytes | None:
        parts, size = [], 0
        while size < n:
            chunk = os.read(self.rfd, min(n - size, 1 << 20))
            if not chunk:
                return None
            parts.append(chunk)
            size += len(chunk)
        return b"".join(parts)

    def recv(self) -> bytes | None:
        head = self._exactly(HEADER.size)
        if head is None:
            return None
        (n,) = HEADER.unpack(head)
        if n > MESSAGE_CAP:  # refused by its length, unread
            raise BoundaryError(f"a message of {n} bytes is more than the boundary carries")
        return self._exactly(n)

    def close(self) -> None:
        for fd in (self.rfd, self.wfd):
            try:
                os.close(fd)
            except OSError:
                pass


class Child(PipeChannel):
    """The tests' end of one learner process: its channel, and `close` kills it."""

    def __init__(self, proc: subprocess.Popen, rfd: int, wfd: int, folder: Path):
        super().__init__(rfd, wfd)
        self.proc, self.folder = proc, folder

    def close(self) -> None:
        super().close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def child_env(folder: Path, environ=None) -> dict[str, str]:
    from .isolation import child_environment

    keep = {k: v for k, v in (environ or os.environ).items() if k in ("PATH", "LANG", "LC_ALL", "SYSTEMROOT",
                                                                       "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    return child_environment([str(CHECKER.parent)], {"HOME": str(folder), "TMPDIR": str(folder),
                                                      "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}, keep)


def _one_cpu() -> None:
    """Keep this process, and the learner process it starts, on the CPU it runs on now (Linux): every call across
    the boundary wakes the other process, and a wake-up on another CPU costs more than the call itself here
    (120 against 58 us a round trip on this project's 2-core machine, bench/README.md)."""
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        return
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            cpu = int(f.read().rsplit(")", 1)[1].split()[36])
        os.sched_setaffinity(0, {cpu})
    except (OSError, ValueError, IndexError):
        pass


def spawn(folder: Path) -> Child:
    """Start a learner process that may write only under `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    _one_cpu()
    to_child, from_child = os.pipe(), os.pipe()
    proc = subprocess.Popen([sys.executable, "-s", "-m", "checker.learnerproc", str(to_child[0]), str(from_child[1]),
                             str(folder)], pass_fds=(to_child[0], from_child[1]), cwd=folder, env=child_env(folder),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(to_child[0])
    os.close(from_child[1])
    return Child(proc, from_child[0], to_child[1], folder)


def connector(workdir: str | Path):
    """A `separate` for checker/judge.py `check`: each call starts a learner process in a fresh folder under
    `workdir`, removed when it ends."""
    counter = itertools.count(1)
    return lambda: spawn(Path(workdir) / f"learner-{os.getpid()}-{next(counter)}")


# ---- the child ---------------------------------------------------------------------------------------------------

def readable_paths() -> list[Path]:
    """What the learner's interpreter may read: Python's own library, numpy, this checker, the system's shared
    libraries, and a few files of the system; nothing of the course's data, nor anyone's home."""
    paths = {Path(p) for key in ("stdlib", "platstdlib") if (p := sysconfig.get_paths().get(key))}
    paths.add(CHECKER)
    # never a folder that holds installed packages (a venv's lib/pythonX.Y is its platstdlib): pytest, the course
    packages = [Path(p).resolve() for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    paths = {p for p in paths if not any(pkg.is_relative_to(p.resolve()) for pkg in packages)}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        root = Path(numpy.__file__).resolve().parent
        paths |= {root, root.parent / "numpy.libs"}
    paths |= {Path(p) for p in ("/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/share/zoneinfo", "/etc/ld.so.cache",
                                "/dev/null", "/dev/urandom", "/proc/self", "/sys/devices/system/cpu")}
    return sorted(paths)


def main(rfd: int, wfd: int, folder: Path) -> int:
    import numpy  # noqa: F401 - loaded before the sandbox closes the site-packages folder

    from . import sandbox, separated

    held = sandbox.apply(folder, readable_paths())
    os.chdir(folder)
    separated.serve_learner(PipeChannel(rfd, wfd), folder, held)
    return 0


if __name__ == "__main__":
    try:
        code = main(int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]))
    except BaseException:  # noqa: BLE001 - the tests' side sees the pipe close, and says so
        code = 1
    os._exit(code)  # threads the learner's code left running end with it
