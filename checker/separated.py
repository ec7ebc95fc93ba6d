"""The tests' side of a separated check: the learner's interpreter started, loaded and seen as modules.

checker/judge.py `check(..., separate=connect)` runs the hidden suite here, in an interpreter where no learner
code ever runs. `connect()` starts a learner interpreter and returns its channel (`send`, `recv`, `close`):
checker/learnerproc.py `spawn` on CPython, a second worker in the browser. `Learner.load` sends the files and
turns a failed import into the same texts the single-interpreter path gives; `install` puts a stand-in module
(checker/boundary.py `RemoteModule`) in sys.modules for every module of the learner's files, so the hidden tests
import and call them as usual. A time limit, Stop or crash during a call ends that learner interpreter; the next
call starts a fresh one, loaded again, under the same stand-in modules.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Mapping

from . import boundary
from .isolation import CappedStream, TestTimeout, alarm, module_name, write_tree

LOAD_GRACE = 2.0  # seconds beyond the time limit the tests' side waits for a load before it ends the learner's


def module_names(files) -> list[str]:
    """Every module the files define, parents first: tinyllm, tinyllm.prob, tinyllm.prob.sampling."""
    names = set()
    for rel in files:
        parts = module_name(rel).split(".")
        names.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return sorted(names, key=lambda n: (n.count("."), n))


class Tests(boundary.TestsSide):
    """The tests' side with a learner interpreter that can be started again: after a call that did not come back
    (a time limit, Stop, a crash, a malformed answer) the interpreter is ended, and the next request starts
    another, loaded with the same files; handles of the old one no longer work."""

    def __init__(self, learner: "Learner"):
        super().__init__(None)
        self.learner = learner

    def request(self, op, target=None, args=(), kwargs=None, **extra):
        if self.channel is None:
            self.learner.restart()
        try:
            return super().request(op, target, args, kwargs, **extra)
        except BaseException as exc:
            if not getattr(exc, "_tl_answer", False):
                self.learner.end()
            raise

    def _answer(self, message, known):
        try:
            return super()._answer(message, known)
        except BaseException as exc:
            if message["op"] == "raise" and not isinstance(exc, boundary.BoundaryError):
                exc._tl_answer = True  # the learner's code raised it: its interpreter is fine
            raise


class Learner:
    """The learner's interpreter for one check, as the tests' side sees it."""

    def __init__(self, connect: Callable[[], object], files: Mapping[str, str], learner: str,
                 time_limit: float | None):
        self.connect, self.files, self.learner, self.time_limit = connect, dict(files), learner, time_limit
        self.side = Tests(self)
        self.modules: dict[str, boundary.RemoteModule] = {}
        self.sandbox: list[str] = []
        self.limit = ""  # a limit that ended one of its interpreters (checker/learnerproc.py `Child.over_limit`)

    def _start(self) -> dict:
        channel = self.connect()
        self.side.channel = channel
        self.side.forget()
        hello = self.side.receive()
        if hello.get("op") != "hello":
            raise boundary.BoundaryError("the learner's interpreter did not start")
        self.sandbox = [str(s) for s in hello.get("sandbox") or []][:10]
        self.side.send({"op": "load", "files": self.files, "learner": self.learner, "time_limit": self.time_limit})
        loaded = self.side.receive()
        if loaded.get("op") != "loaded":
            raise boundary.BoundaryError("the learner's interpreter did not load the files")
        return loaded

    def load(self) -> dict:
        """{"status": "ok"} or how the import failed: {"status": "error" | "timeout", "message", "traceback"}."""
        try:
            with alarm(((self.time_limit or 0) + LOAD_GRACE) if self.time_limit else None):
                loaded = self._start()
        except (TestTimeout, KeyboardInterrupt):
            self.end()
            return {"status": "timeout", "traceback": ""}
        except (boundary.BoundaryError, OSError) as exc:
            self.end()
            return {"status": "error", "message": f"your code ended Python while importing ({exc})",
                    "traceback": ""}
        status = loaded.get("status") if loaded.get("status") in ("ok", "error", "timeout") else "error"
        return {"status": status, "message": str(loaded.get("message") or "")[:boundary.TEXT_CAP],
                "traceback": str(loaded.get("traceback") or "")[:20 * boundary.TEXT_CAP]}

    def install(self, modules: dict) -> None:
        """A stand-in in `modules` (sys.modules) for every module of the files, each an attribute of its parent."""
        for name in module_names(self.files):
            stand_in = self.side.import_module(name)
            if not isinstance(stand_in, boundary.RemoteModule):
                raise boundary.BoundaryError(f"{name} is not a module")
            self.modules[name] = stand_in
            modules[name] = stand_in

    def restart(self) -> None:
        """A fresh learner interpreter after the last one ended: loaded again, the stand-in modules pointed at
        its modules."""
        self.side.generation += 1
        loaded = self.load()
        if loaded["status"] != "ok":
            raise boundary.LearnerGone("your code could not be loaded again after it was stopped")
        for name, stand_in in self.modules.items():
            fresh = self.side.import_module(name)
            stand_in.__dict__.clear()
            stand_in.__dict__.update(fresh.__dict__)
            self.side.imports[fresh.__dict__["_tl_number"]] = stand_in

    def over_limit(self) -> str:
        """Which limit of the learner's process its code went past during this check (memory, its folder's
        quota), or "": a check that did is not passed, whatever its tests say. The browser's learner worker has
        no such limits to report (its engine's own)."""
        channel = self.side.channel
        self.limit = self.limit or (channel.over_limit() if hasattr(channel, "over_limit") else "")
        return self.limit

    def end(self) -> None:
        """End the learner's interpreter; what the stand-in modules remembered of it is forgotten."""
        self.over_limit()
        channel, self.side.channel = self.side.channel, None
        if channel is not None:
            channel.close()
        for stand_in in self.modules.values():
            for name in [k for k in stand_in.__dict__ if not k.startswith("_")]:
                del stand_in.__dict__[name]

    def finish(self) -> str:
        """What the learner's code printed; the interpreter is ended after."""
        out = ""
        if self.side.channel is not None:
            try:
                with alarm(2.0):
                    self.side.send({"op": "finish"})
                    done = self.side.receive()
                out = str(done.get("stdout") or "") if done.get("op") == "finished" else ""
            except (boundary.BoundaryError, OSError, TestTimeout):
                out = ""
        self.end()
        return out[: 2 * 100_000]


# ---- the learner's side --------------------------------------------------------------------------------------

def _load(message: dict, folder: Path, side: boundary.LearnerSide) -> dict:
    """Write the files, import the learner's module first and then the others, under the time limit; the texts
    of a failure are made here, with the names the learner knows."""
    from .messages import exception_line, format_traceback, frames

    files = {str(k): str(v) for k, v in dict(message.get("files") or {}).items()}
    learner, limit = str(message.get("learner")), message.get("time_limit")
    src = folder / "src"
    write_tree(src, files)
    sys.path.insert(0, str(src))
    names = {str(src / rel): rel for rel in files} | {str((src / rel).resolve()): rel for rel in files}
    side.display = names.get
    try:
        with alarm(float(limit) if limit else None):
            for rel in [learner] + sorted(r for r in files if r != learner):
                __import__(module_name(rel))
    except (KeyboardInterrupt, TestTimeout) as exc:
        return {"status": "timeout", "traceback": frames(exc, names)}
    except BaseException as exc:  # noqa: BLE001 - a learner's failure is a result
        return {"status": "error", "message": exception_line(exc, names), "traceback": format_traceback(exc, names)}
    return {"status": "ok"}


def serve_learner(channel, folder: Path, held: list[str]) -> None:
    """The learner's interpreter's loop (checker/learnerproc.py on CPython, the learner's worker in the browser):
    say `hello` with the sandbox layers that hold, then `load`, the tests' requests, and `finish` (what the code
    printed). Returns after `finish`, or raises LearnerGone when the tests' side has gone."""
    out = CappedStream()
    sys.stdout = sys.stderr = out
    side = boundary.LearnerSide(channel)
    side.send({"op": "hello", "sandbox": held})
    while True:
        message = side.receive()
        if message["op"] == "load":
            side.send({"op": "loaded", **_load(message, folder, side)})
        elif message["op"] == "finish":
            side.send({"op": "finished", "stdout": out.getvalue()})
            return
        else:
            side.serve(message)


class JsChannel:
    """A channel over one end of web/src/shared/sync-channel.js, in Pyodide: `recv` waits in slices, so that an
    interrupt (Stop, the page's time limit) lands in Python between them."""

    def __init__(self, end, slice_ms: int = 50):
        self.end, self.slice_ms = end, slice_ms

    def send(self, data: bytes) -> None:
        from pyodide.ffi import to_js

        if not self.end.send(to_js(data)):
            raise boundary.LearnerGone("the other side has closed the channel")

    def recv(self) -> bytes | None:
        while True:
            got = self.end.recv(self.slice_ms)
            if isinstance(got, int):
                if got < 0:
                    return None
                continue
            return got.to_bytes()

    def close(self) -> None:
        self.end.close()
