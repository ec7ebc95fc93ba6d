"""Where learner code runs: its output capped, its time limited, and everything it can change undone after.

The judge (checker/judge.py) runs learner code in its own interpreter: in the browser there is no other, and
validation runs hundreds of checks in one process. So whatever a check's code changes (sys.stdout, sys.path,
the modules it imported under names the next check reuses, a redefined `print` or `len`) must be put back when
the check ends; `isolated` does all of it in one place. Deliberate tampering with the machinery is noticed by
checker/integrity.py instead. Standard library only: this file ships to the browser with the judge.
"""
from __future__ import annotations

import builtins
import contextlib
import io
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping

OUTPUT_CAP = 100_000  # characters of learner output kept per run; the rest is dropped with a note


# Variables of the caller's shell that must not reach a child Python that judges or runs course code: a learner's
# PYTHONPATH pointing at their own folder, PYTHONINSPECT, a fixed PYTHONHASHSEED (it would hide a test that depends
# on set order), and every PYTEST_* (PYTEST_ADDOPTS could change how the hidden tests run).
DROPPED_ENV = frozenset({"PYTHONPATH", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONBREAKPOINT", "PYTHONSAFEPATH",
                         "PYTHONWARNINGS", "PYTHONHASHSEED"})


def child_environment(path: Iterable[str], extra: Mapping[str, str] | None = None,
                      environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a child Python (`ol check`, validation, the build's example runs): `environ` (else this
    process's) without DROPPED_ENV and PYTEST_*, with PYTHONPATH = `path` only, no bytecode written, no installed
    pytest plugins (as in the browser), matplotlib on Agg (a check never opens a window), then `extra`."""
    source = os.environ if environ is None else environ
    env = {k: v for k, v in source.items() if not k.startswith("PYTEST_") and k not in DROPPED_ENV}
    env.update({"PYTHONPATH": os.pathsep.join(path), "PYTHONDONTWRITEBYTECODE": "1",
                "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "MPLBACKEND": "Agg"})
    env.update(extra or {})
    return env


class TestTimeout(BaseException):
    """Raised inside a test that overran its time limit (CPython only; the browser interrupts instead)."""

    __test__ = False  # not a test class, though its name says so


class CappedStream(io.TextIOBase):
    """A text stream that keeps the first `cap` characters and drops the rest, counting what it dropped.

    A learner printing a million lines must not exhaust memory nor flood the page: the cap is enforced where the
    text is produced, so the dropped part costs almost nothing. Kept text is forwarded to `on_write` in batches
    (every `batch` characters or `interval` seconds, and at the end), so streaming to the page stays cheap.
    """

    def __init__(self, cap: int = OUTPUT_CAP, on_write: Callable[[str], None] | None = None,
                 batch: int = 4096, interval: float = 0.05):
        self.cap, self.on_write, self.batch, self.interval = cap, on_write, batch, interval
        self.parts: list[str] = []
        self.pending: list[str] = []
        self.pending_size = 0
        self.size = 0
        self.dropped = 0
        self.last_flush = time.monotonic()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = self.cap - self.size
        kept = text[:room] if room > 0 else ""
        self.dropped += len(text) - len(kept)
        if kept:
            self.parts.append(kept)
            self.size += len(kept)
            if self.on_write:
                self.pending.append(kept)
                self.pending_size += len(kept)
                if self.pending_size >= self.batch or time.monotonic() - self.last_flush >= self.interval:
                    self.flush()
        return len(text)

    def flush(self) -> None:
        if self.on_write and self.pending:
            text = "".join(self.pending)
            self.pending, self.pending_size = [], 0
            self.on_write(text)
        self.last_flush = time.monotonic()

    def getvalue(self) -> str:
        self.flush()
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[output truncated: {self.dropped:,} more characters not shown]\n"
        return text


@contextlib.contextmanager
def alarm(time_limit: float | None) -> Iterator[None]:
    """Raise TestTimeout in this thread after `time_limit` seconds (CPython main thread only; else no limit).

    The browser stops runaway code with an interrupt from outside instead, so in Pyodide this does nothing.
    """
    usable = (time_limit and sys.platform != "emscripten" and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def ring(signum, frame):
        raise TestTimeout()

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    """Write `files` (path under `root` -> source) under `root`, every folder on the way a regular package."""
    # Learner files always go to a fresh folder: a new sys.path entry gets a new finder, so no
    # importlib.invalidate_caches(), which in Pyodide rereads the standard library's zip index for every
    # zipimporter (~140 ms). A reused suite folder always holds the same file names, so finders stay right.
    for rel, source in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")
        parent = target.parent
        while parent != root:  # make every folder a regular package, so imports do not depend on cwd
            (parent / "__init__.py").touch(exist_ok=True)
            parent = parent.parent


def module_name(rel: str) -> str:
    """The module a file under the import root defines: `tinyllm.prob.sampling` for tinyllm/prob/sampling.py."""
    return rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def top_modules(files: Iterable[str]) -> set[str]:
    """The top-level module names that files (paths under an import root) define: `tinyllm` for tinyllm/x.py."""
    return {rel.split("/", 1)[0].removesuffix(".py") for rel in files}


def purge(prefixes: Iterable[str], *under: Path) -> None:
    """Forget learner and test modules (by name, or by living under a folder of `under`) so each check starts
    afresh."""
    prefixes = tuple(prefixes)
    folders = tuple(str(u) + os.sep for u in under)
    for mod, value in list(sys.modules.items()):
        path = getattr(value, "__file__", None) or ""
        if any(mod == p or mod.startswith(p + ".") for p in prefixes) or (folders and path.startswith(folders)):
            del sys.modules[mod]


def _restore_builtins(saved: dict) -> None:
    """Undo any change learner code made to builtins (a redefined `print`, `len`, `__import__`)."""
    current = builtins.__dict__
    for key in [k for k in current if k not in saved]:
        del current[key]
    current.update(saved)


@contextlib.contextmanager
def isolated(out: io.TextIOBase, root: Path, modules: Iterable[str], folders: Iterable[Path] = ()) -> Iterator[None]:
    """Learner code's surroundings for the length of the block, and everything it could change put back after.

    Inside: sys.stdout and sys.stderr write to `out`, `root` is first on sys.path, and no module named in
    `modules` (nor one under `folders`) is loaded, so nothing of an earlier check is reused. After, even on an
    exception: stdout, stderr, sys.path and builtins' namespace are as they were, and those modules are
    forgotten again, so nothing of this check reaches the next.
    """
    modules, folders = tuple(modules), tuple(folders)
    saved = sys.stdout, sys.stderr, list(sys.path), dict(builtins.__dict__)
    purge(modules, *folders)
    try:
        sys.path.insert(0, str(root))
        sys.stdout = sys.stderr = out
        yield
    finally:
        sys.stdout, sys.stderr = saved[0], saved[1]
        sys.path[:] = saved[2]
        _restore_builtins(saved[3])
        purge(modules, *folders)
