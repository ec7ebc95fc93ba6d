"""Running a lesson's example cells on CPython at build time, each as `python -c CODE` would, in a fresh process.

The result is a CompletedProcess whose stderr holds the traceback as `python -c` prints it (`File "<string>",
line N`), which mdwidgets/pycell.py turns into one line. This is the plain runner; the build installs a faster one
with the same contract (`use`: authoring/examples.py forks each run from a server that imported numpy and
matplotlib once), so the widgets themselves import nothing of the author's toolchain.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from checker.isolation import child_environment, write_tree

TIMEOUT_S = 120
PRELOAD = ["numpy", "matplotlib", "matplotlib.pyplot"]  # what a faster runner may import ahead of every run
Runner = Callable[[str, dict], subprocess.CompletedProcess]


def run_plain(code: str, files: dict[str, str]) -> subprocess.CompletedProcess:
    """Run `code` with `files` (path under the import root -> source) importable, matplotlib on Agg."""
    with tempfile.TemporaryDirectory(prefix="tl-example-") as root:
        write_tree(Path(root), files)
        env = child_environment([root], {"MPLCONFIGDIR": str(Path(root) / ".mpl")})
        try:
            return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT_S,
                                  cwd=root if files else None, env=env)
        except subprocess.TimeoutExpired:
            return timed_out(code)


def timed_out(code: str) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess([sys.executable, "-c", code], 1, "",
                                       f"TimeoutError: the example ran for more than {TIMEOUT_S} s\n")


_runner: list[Runner] = [run_plain]


def use(runner: Runner) -> None:
    """Run examples with `runner` from now on (same arguments and result as run_plain)."""
    _runner[0] = runner


def run(code: str, files: dict[str, str]) -> subprocess.CompletedProcess:
    """Run an example with the runner in use."""
    return _runner[0](code, files)
