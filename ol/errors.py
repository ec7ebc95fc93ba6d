"""What every part of `ol` may raise or return to the shell: OlError and the exit codes.

Its own module, with nothing of `ol` imported, so that a module low in `ol` (ol/installed.py, which
ol/checkrun.py calls) can raise an OlError without importing ol/report.py, which prints checkrun's outcomes:
that import closed a circle (tests/unit/test_layers.py `module_cycles`).
"""
from __future__ import annotations

# Exit codes: 0 success; 1 the check ran and did not pass, or ol refused (would overwrite, diff before a pass,
# a dependency not passed); 2 the request could not be carried out (unknown id, missing file, bad manifest).
FAILED, BAD_INPUT = 1, 2


class OlError(Exception):
    """A message for the learner and the exit code that goes with it."""

    def __init__(self, message: str, code: int = BAD_INPUT):
        super().__init__(message)
        self.code = code
