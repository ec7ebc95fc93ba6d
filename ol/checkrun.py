"""Run one `judge.check` in a fresh interpreter, watched by a wall-clock watchdog (used by `ol check`).

Why a subprocess: learner code shares the interpreter with whatever judges it. In a child process it cannot
change the state of `ol` itself, nothing it leaves behind (modules, monkeypatches, threads) reaches the next check,
and the parent can kill it outright. The judge's SIGALRM stops a pure-Python infinite loop inside a test, but not
a long call into C, a `time.sleep` whose interruption is swallowed, nor a loop that catches every exception; only
killing the process stops those.

How the watchdog knows where the child is: the child appends one line per phase to a file
(`import`, then `collect` when pytest starts, then `test <name>` as each test starts, then `finish`; the
watchdog's own phases, for a child it may have to kill, not the judge's result `phase`); this module
doubles as the pytest plugin that writes them (loaded through PYTEST_PLUGINS, since the judge owns `pytest.main`).
Each phase gets the exercise's time limit plus a grace period; the judge's own timeout normally fires first and
yields a proper result, so the watchdog only acts when nothing else could.

Child protocol: `python -m ol.checkrun FOLDER` reads FOLDER/request.json (the keyword arguments of
`judge.check`) and writes FOLDER/result.json (the judge's result) before exiting.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from checker import isolation, sandbox

from . import installed

PHASE_ENV = "OL_PHASE_FILE"
BOOT_LIMIT = 60.0  # seconds for a fresh interpreter to import pytest and the checker: generous, a loaded laptop
POLL = 0.05
CHECKER_ROOT = Path(__file__).resolve().parent.parent  # the folder holding the `checker` package


@dataclass(frozen=True)
class Outcome:
    """What happened to the child: a judge result, or why there is none.

    result:  the judge's result dict, when the child finished
    stopped: "" or the phase in which the watchdog killed it ("boot", "import", "collect", "test", "finish",
             "overall"); `test` names the test that was running, `elapsed` the seconds since the start
    crash:   "" or a description of an unexpected end of the child (a segfault, os._exit at import)
    """

    result: dict | None
    stopped: str = ""
    test: str = ""
    elapsed: float = 0.0
    crash: str = ""


def grace(time_limit: float) -> float:
    """Extra seconds the watchdog allows on top of the judge's own limit before it kills."""
    return 2.0 + 0.25 * time_limit


def _child_env(phase_file: Path) -> dict[str, str]:
    # The learner's shell may carry PYTEST_ADDOPTS, PYTHONPATH pointing at their own `python/` folder, or
    # PYTHONINSPECT; none of them may change how the hidden tests run (checker.isolation.child_environment).
    # PYTHONPATH is the folder holding `checker` (hidden tests use checker.stats) and this package, never the
    # learner's; the plugin is the phase reporter below.
    return isolation.child_environment([str(CHECKER_ROOT)], {"PYTEST_PLUGINS": "ol.checkrun",
                                                             PHASE_ENV: str(phase_file)})


def _kill(proc: subprocess.Popen) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)  # the whole group: processes the learner started die too
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _phases(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []


def judge_in_child(request: dict, *, tests: int, separate: bool = False) -> Outcome:
    """Run `judge.check(**request)` in a child interpreter and return its Outcome; never raises for learner code.

    `request` holds the judge's keyword arguments except `workdir`; `tests` is the number of catalogue tests,
    which bounds the whole run at about time_limit * (tests + 2) seconds in addition to the per-phase limits.
    `separate`: the learner's code runs in a sandboxed process of its own and the hidden tests in the child
    (checker/separated.py), for a verdict that counts for someone else (`ol class`, `ol export`). Either way the
    installed package is compared with its wheel's hashes before and after (ol/installed.py): a change raises
    installed.Changed, which names the file.
    """
    installed.verify()
    try:
        return _judged(dict(request, separate=separate), tests)
    finally:
        installed.verify()


def _judged(request: dict, tests: int) -> Outcome:
    limit = float(request.get("time_limit") or 10.0)
    per_phase = limit + grace(limit)
    overall = BOOT_LIMIT + per_phase * (tests + 2)
    with tempfile.TemporaryDirectory(prefix="ol-check-", ignore_cleanup_errors=True) as tmp:
        folder = Path(tmp)
        (folder / "request.json").write_text(json.dumps(request), encoding="utf-8")
        phase_file = folder / "phases"
        with open(folder / "stdout", "wb") as out, open(folder / "stderr", "wb") as err:
            start = time.monotonic()
            proc = subprocess.Popen([sys.executable, "-m", "ol.checkrun", str(folder)], cwd=folder,
                                    env=_child_env(phase_file), stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=err, start_new_session=hasattr(os, "killpg"))
            seen, phase, since = 0, "boot", start
            try:
                while proc.poll() is None:
                    time.sleep(POLL)
                    now = time.monotonic()
                    lines = _phases(phase_file)
                    if len(lines) > seen:
                        seen, phase, since = len(lines), lines[-1], now
                    budget = BOOT_LIMIT if phase == "boot" else per_phase
                    if now - since > budget or now - start > overall:
                        _kill(proc)
                        kind, _, name = phase.partition(" ")
                        return Outcome(None, stopped="overall" if now - since <= budget else kind, test=name,
                                       elapsed=now - start)
            finally:
                if proc.poll() is None:  # Ctrl-C in the parent, or any other way out
                    _kill(proc)
        elapsed = time.monotonic() - start
        result_file = folder / "result.json"
        if result_file.exists():
            return Outcome(json.loads(result_file.read_text(encoding="utf-8")), elapsed=elapsed)
        code = proc.returncode
        how = f"ended by signal {-code}" if code < 0 else f"ended with exit code {code}"
        where = (_phases(phase_file) or ["boot"])[-1]
        # the last lines of what the interpreter said (e.g. "Fatal Python error: Segmentation fault"), without
        # traceback frames: those would be the checker's, which a learner cannot act on
        said = (folder / "stderr").read_text(encoding="utf-8", errors="replace").splitlines()
        tail = [line for line in said if line.strip() and not line[:1].isspace()
                and not line.startswith("Traceback")][-3:]
        return Outcome(None, test=where.partition(" ")[2], elapsed=elapsed,
                       crash="\n".join([f"{how} during {where.partition(' ')[0]}", *tail]))


# ---- the child side ---------------------------------------------------------------------------------------------

def _phase(text: str) -> None:
    path = os.environ.get(PHASE_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text + "\n")


def pytest_configure(config) -> None:  # pytest hook: the learner's module imported, the hidden tests load now
    _phase("collect")


def pytest_runtest_logstart(nodeid, location) -> None:  # pytest hook
    name = nodeid.rsplit("::", 1)[-1].split("[", 1)[0]
    _phase("test " + name)


def pytest_sessionfinish(session, exitstatus) -> None:  # pytest hook
    _phase("finish")


def _limit_memory(cap: int) -> None:
    """At most `cap` bytes of address space for this process (and the learner's it starts, which sets its own):
    an answer too large for it is a MemoryError here, the check an error, not a teacher's machine out of memory."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ImportError, ValueError, OSError):  # Windows, or a lower hard limit already
        pass


def _child(folder: Path) -> int:
    import pytest  # noqa: F401 - imported before the learner's clock starts

    from checker import judge, learnerproc

    request = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    separate = learnerproc.connector(folder / "learners") if request.pop("separate", False) else None
    if separate is not None:  # the hidden tests' side holds what learner code answers: as much as the learner
        _limit_memory(sandbox.MEMORY_CAP)
    # The judge times the import of the learner's module and each test (SIGALRM); the parent's wall clock
    # catches what an alarm cannot interrupt.
    _phase("import")
    result = judge.check(workdir=str(folder / "work"), separate=separate, **request)
    tmp = folder / "result.tmp"
    tmp.write_text(json.dumps(result), encoding="utf-8")
    os.replace(tmp, folder / "result.json")
    return 0


if __name__ == "__main__":
    code = _child(Path(sys.argv[1]))
    sys.stdout.flush()
    os._exit(code)  # do not wait for threads the learner's code may have left running
