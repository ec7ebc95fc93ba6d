"""The build's example runner with a fork server: example cells run as `python -c CODE` would, but forked.

An example that plots imports matplotlib.pyplot (about 0.9 s) and every example imports numpy (0.2 s): at a
hundred pages, run against a reference and a starter each, that was most of a cold page check (170 s of it
at 100 exercises). A fork server (authoring/forkserver.py) imports both once per build and forks a child per
run: the child starts with them loaded and nothing of another run, puts the run's files first on sys.path,
captures stdout and stderr, and exits with the code's status. Where there is no fork (Windows), or the server
is gone, each run is mdwidgets/examples.py's plain `python -c`. Either way the result is the same
CompletedProcess. The build installs this runner into the widgets (`install`): mdwidgets imports nothing of the
author's toolchain, so the packages' imports point one way (tests/unit/test_layers.py).
"""
from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from authoring import forkserver
from checker.isolation import child_environment, write_tree
from mdwidgets import examples as plain

_server: forkserver.Server | None = None
_lock = threading.Lock()
_config_dir: tempfile.TemporaryDirectory | None = None


def install() -> None:
    """Make the widgets run their examples through this module's fork server."""
    plain.use(run)


def run(code: str, files: dict[str, str]) -> subprocess.CompletedProcess:
    """Run `code` with `files` (path under the import root -> source) importable, matplotlib on Agg: forked from
    the server when there is one, else as plain `python -c`."""
    server = _fork_server()
    if server is None:
        return plain.run_plain(code, files)
    with tempfile.TemporaryDirectory(prefix="tl-example-") as root:
        write_tree(Path(root), files)
        try:
            return _forked(server, code, root, root if files else None)
        except forkserver.ServerGone:
            pass
    return plain.run_plain(code, files)


def _fork_server() -> forkserver.Server | None:
    """This process's example server, started on first use (None where fork is not available)."""
    global _server, _config_dir
    if not forkserver.AVAILABLE:
        return None
    with _lock:
        if _server is None:  # started once: a server that is gone leaves the plain processes to do the rest
            _config_dir = _config_dir or tempfile.TemporaryDirectory(prefix="tl-mpl-")
            here = str(Path(__file__).resolve().parent.parent)
            env = child_environment([here], {"MPLCONFIGDIR": _config_dir.name})
            _server = forkserver.Server("authoring.examples:child", env, plain.PRELOAD, cwd=_config_dir.name)
            atexit.register(_server.close)
        return None if _server.gone else _server


def _forked(server: forkserver.Server, code: str, root: str, cwd: str | None) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="tl-example-run-") as folder:
        Path(folder, "job.json").write_text(json.dumps({"code": code, "root": root, "cwd": cwd}), encoding="utf-8")
        status = server.run(folder, plain.TIMEOUT_S)
        if status is None:
            return plain.timed_out(code)
        out, err = (Path(folder, name) for name in ("stdout.txt", "stderr.txt"))
        return subprocess.CompletedProcess([sys.executable, "-c", code], status, _text(out), _text(err))


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def child(folder: str) -> int:
    """In a forked child (forkserver.py): run the job in `folder` as `python -c` would; its exit status."""
    spec = json.loads(Path(folder, "job.json").read_text(encoding="utf-8"))
    out = os.open(os.path.join(folder, "stdout.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    sys.path.insert(0, spec["root"])
    os.environ["PYTHONPATH"] = spec["root"]
    os.chdir(spec["cwd"] or folder)
    sys.argv = ["-c"]
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        exec(compile(spec["code"], "<string>", "exec"), namespace)  # noqa: S102 - the author's example, as python -c
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)  # as the interpreter does with sys.exit("message")
        return 1
    except BaseException as exc:  # noqa: BLE001 - reported as python -c reports it
        import traceback

        tb = exc.__traceback__.tb_next  # drop this frame: the traceback starts in the example, as with -c
        traceback.print_exception(type(exc), exc, tb)
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return 0
