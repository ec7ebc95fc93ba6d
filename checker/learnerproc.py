"""The learner's interpreter on CPython: a child process that runs learner code and nothing else, behind
checker/sandbox.py, answering the tests' side over two pipes (checker/boundary.py).

`python -m checker.learnerproc RFD WFD FOLDER`: reads requests from file descriptor RFD, writes answers to WFD,
and may write only under FOLDER. Before any learner code it imports what it needs, applies the sandbox and says
`hello` with the layers that hold. Then: `load` (write the files, import the learner's module first, then the
others, under the time limit; the texts of a failure are made here, with the learner's file names), the
boundary's requests (calls, attribute reads, imports), and `finish` (what the code printed), after which it exits.

`spawn` is the tests' end of it: the child started, its pipes wrapped as a channel, and its folder watched
(`FolderWatch`) where the sandbox could not give it a tmpfs of its own. A child ended by a limit says which:
past its memory (it exits with MEMORY_EXIT) or past its folder's quota (the watch ends it), as the LearnerGone
the tests' side gets, and so as the failed test's message.
"""
from __future__ import annotations

import itertools
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path

from .boundary_codec import MESSAGE_CAP, BoundaryError, LearnerGone
from .sandbox import FOLDER_BYTES, FOLDER_FILES, MEMORY_CAP

HEADER = struct.Struct("<I")
CHECKER = Path(__file__).resolve().parent
MEMORY_EXIT = 75  # the learner's process ran out of its address space (sandbox.MEMORY_CAP)
WATCH_EVERY = 0.1  # seconds between two counts of a learner's folder from outside


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


def folder_over(folder: Path, most_bytes: int = FOLDER_BYTES, most_files: int = FOLDER_FILES) -> str:
    """Why what `folder` holds is past its quota ("" when it is not): the bytes on disk of everything in it
    (a sparse file counts what it occupies), and its files and folders. Links are counted, never followed."""
    size = files = 0
    todo = [folder]
    while todo:
        try:
            with os.scandir(todo.pop()) as entries:
                for entry in entries:
                    files += 1
                    info = entry.stat(follow_symlinks=False)
                    size += info.st_blocks * 512 if hasattr(info, "st_blocks") else info.st_size
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(Path(entry.path))
                    if files > most_files:
                        return quota_message(f"{most_files} files and folders")
                    if size > most_bytes:
                        return quota_message(f"{most_bytes >> 20} MB")
        except OSError:  # gone meanwhile, or unreadable: what was counted stands
            continue
    return ""


def quota_message(most: str) -> str:
    return f"your code wrote more than a check's folder may hold ({most} in all), so its Python was ended"


class FolderWatch(threading.Thread):
    """Counts a learner's folder from outside every WATCH_EVERY seconds and ends the learner's process once it is
    past its quota: the quota where the sandbox could not make the folder a tmpfs of its own (macOS, a Linux
    without user namespaces), the learner's own writes overshooting it by at most what a tenth of a second
    writes. Where the folder is a tmpfs, this side sees the empty folder under it, and the tmpfs says no first."""

    def __init__(self, folder: Path, proc: subprocess.Popen, most_bytes: int = FOLDER_BYTES,
                 most_files: int = FOLDER_FILES):
        super().__init__(daemon=True, name="tl-folder-watch")
        self.folder, self.proc, self.exceeded = folder, proc, ""
        self.most = (most_bytes, most_files)
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(WATCH_EVERY) and self.proc.poll() is None:
            self.exceeded = folder_over(self.folder, *self.most)
            if self.exceeded:
                self.proc.kill()
                return


class Child(PipeChannel):
    """The tests' end of one learner process: its channel, and `close` kills it. A process that ended past a
    limit makes `recv` raise LearnerGone saying which."""

    def __init__(self, proc: subprocess.Popen, rfd: int, wfd: int, folder: Path):
        super().__init__(rfd, wfd)
        self.proc, self.folder = proc, folder
        self.limit = ""  # the limit that ended the process, once known
        self.watch = FolderWatch(folder, proc)
        self.watch.start()

    def recv(self) -> bytes | None:
        data = super().recv()
        if data is None:
            self.limit = self.limit or self.ended_by()
            if self.limit:
                raise LearnerGone(self.limit)
        return data

    def over_limit(self) -> str:
        """Which limit the learner's process went past, if any, counting its folder once more now: the watch
        counts only now and then, and a check may end between two of its counts."""
        self.limit = self.limit or self.watch.exceeded or folder_over(self.folder)
        return self.limit

    def ended_by(self) -> str:
        """Which limit ended the learner's process, or "" (it is running, or it ended otherwise)."""
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return ""
        if self.watch.exceeded:
            return self.watch.exceeded
        if code == MEMORY_EXIT:
            return (f"your code used more memory than a check allows ({MEMORY_CAP >> 20} MB), so its Python was "
                    f"ended")
        return ""

    def close(self) -> None:
        super().close()
        self.watch.stopped.set()
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
    except MemoryError:  # past sandbox.MEMORY_CAP where even the answer could not be made: the tests' side says so
        code = MEMORY_EXIT
    except BaseException:  # noqa: BLE001 - the tests' side sees the pipe close, and says so
        code = 1
    os._exit(code)  # threads the learner's code left running end with it
