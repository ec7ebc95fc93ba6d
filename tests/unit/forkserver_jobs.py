"""Jobs for test_forkserver.py, run in children forked by a fork server (imported there by module name)."""
import json
import os
import random
import sys
import time
from pathlib import Path


def draw(folder: str) -> int:
    """Write what an unseeded job would draw, and the hash seed's effect, to FOLDER/out.json."""
    import numpy

    Path(folder, "out.json").write_text(json.dumps({
        "numpy": numpy.random.rand(), "random": random.random(), "hash": hash("tinyllm"),
        "numpy_preloaded": "numpy" in sys.modules, "cwd": os.getcwd()}))
    return 0


def die(folder: str) -> int:
    print("about to go", file=sys.stderr)
    os._exit(3)


def hang(folder: str) -> int:
    time.sleep(600)
    return 0


def fail(folder: str) -> int:
    raise ValueError("a job that raises")
