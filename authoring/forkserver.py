"""Fresh interpreters without their start-up: fork servers for validation's child processes.

Validation runs every job in a process that shares nothing with the others' runs (validate.py: a hidden test
that draws from an unseeded generator, or depends on hash order, must be seen to change its verdict). Starting
Python and importing numpy and pytest costs about 0.4 s of CPU per process, five processes per exercise: most
of a large course's validation. A fork server imports them once and forks one child per job. The child has
those modules loaded and nothing of any other job; it reseeds `random` and numpy's global generator from the
operating system (forks would otherwise all inherit the server's state and draw the same numbers) and exits
when its job is done.

What a fork cannot renew is the string-hash seed, fixed when the server started. The runs of one exercise
are therefore spread over several servers (`Pool`), each started with a seed of its own, so the runs of an
exercise see as many different hash orders as there are servers.

Protocol, one line each way per event: the client writes a job's folder (the server's children call one
function with it, `job`); the server answers `started PID`
once it has forked, then `ended PID CODE` when that child exits (CODE as subprocess reports it: negative for a
signal). Only on a system with `os.fork` (not Windows, not Pyodide); validate.py starts plain processes there.
"""
from __future__ import annotations

import os
import queue
import select
import signal
import subprocess
import sys
import threading
from concurrent.futures import Future

AVAILABLE = hasattr(os, "fork") and sys.platform != "emscripten"
POLL_S = 0.02  # how often the server looks for children that ended while any are running

_SERVE = "import sys; from authoring.forkserver import serve; serve(sys.argv[1:])"


class ServerGone(RuntimeError):
    """The fork server exited (or never started): the caller falls back to a plain process."""


# ---- the server (its own process) --------------------------------------------------------------------------------

def serve(argv: list[str]) -> None:
    """`argv`: the job's function as `module:name`, then the modules to import first. Fork a child per folder
    read from stdin until stdin closes; each calls the function with its folder and exits with what it returns."""
    import importlib

    for name in argv[1:]:
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # not installed here: a child that needs it imports it, and fails, as a fresh process would
    module, name = argv[0].split(":")
    job = getattr(importlib.import_module(module), name)
    stdin, out = sys.stdin.fileno(), sys.stdout
    pending, running = b"", set()
    while True:
        ready, _, _ = select.select([stdin], [], [], POLL_S if running else None)
        if ready:
            chunk = os.read(stdin, 65536)
            if not chunk:
                break
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                pid = os.fork()
                if pid == 0:
                    _child(job, line.decode())
                running.add(pid)
                out.write(f"started {pid}\n")
                out.flush()
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            running.discard(pid)
            out.write(f"ended {pid} {os.waitstatus_to_exitcode(status)}\n")
            out.flush()
    for pid in running:  # the client is gone: so are its jobs
        os.kill(pid, signal.SIGKILL)


def _child(job, folder: str) -> None:
    """In the forked child: run `job(folder)` as a fresh process would, then exit. Never returns."""
    code = 1
    try:
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        err = os.open(os.path.join(folder, "stderr.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(err, 2)
        os.chdir(folder)
        _reseed()
        code = job(folder)
    except BaseException:  # noqa: BLE001 - whatever happens, the server must not go on running in this child
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)  # _exit: no atexit handlers of the server, no threads the job left running


def _reseed() -> None:
    """New entropy for the generators a job could use unseeded (each fork has a copy of the server's)."""
    import random

    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


# ---- the client -----------------------------------------------------------------------------------------------------

class Server:
    """One fork server process whose children run `job` ("module:function"), started with `env` (it draws its
    own hash seed unless that sets PYTHONHASHSEED) after importing `preload`."""

    def __init__(self, job: str, env: dict[str, str], preload: list[str], cwd: str | None = None):
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVE, job, *preload], env=env, cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1)
        self.lock = threading.Lock()
        self.starts: queue.Queue[Future] = queue.Queue()
        self.ends: dict[int, Future] = {}
        self.gone = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            kind, *fields = line.split()
            if kind == "started":
                pid = int(fields[0])
                with self.lock:
                    self.ends.setdefault(pid, Future())
                self.starts.get().set_result(pid)
            elif kind == "ended":
                with self.lock:
                    self.ends.setdefault(int(fields[0]), Future()).set_result(int(fields[1]))
        with self.lock:
            self.gone = True
            waiting = [f for f in self.ends.values() if not f.done()]
        for future in waiting:
            future.set_exception(ServerGone("the fork server exited"))
        while not self.starts.empty():
            self.starts.get().set_exception(ServerGone("the fork server exited"))

    def run(self, folder: str, timeout: float) -> int | None:
        """Fork a child for the job in `folder` and wait for it: its exit code, or None when it was killed for
        running past `timeout` seconds. Raises ServerGone when the server cannot fork."""
        started: Future = Future()
        with self.lock:
            if self.gone:
                raise ServerGone("the fork server exited")
            self.starts.put(started)
            try:
                self.proc.stdin.write(folder + "\n")
                self.proc.stdin.flush()
            except OSError as err:
                raise ServerGone(f"the fork server exited ({err})") from None
        pid = started.result()
        with self.lock:
            ended = self.ends[pid]
        try:
            return ended.result(timeout=timeout)
        except TimeoutError:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            ended.exception()  # wait until the server has seen it end
            return None
        finally:
            with self.lock:
                self.ends.pop(pid, None)

    def close(self) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Pool:
    """`size` fork servers, each with its own hash seed; `server(i)` is the one for an exercise's run i."""

    def __init__(self, size: int, job: str, env: dict[str, str], preload: list[str], cwd: str | None = None):
        self.servers = [Server(job, env, preload, cwd) for _ in range(size)]

    def server(self, i: int) -> Server:
        return self.servers[i % len(self.servers)]

    def close(self) -> None:
        for server in self.servers:
            server.close()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
