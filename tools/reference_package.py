"""Assemble the course's reference library `tinyllm` from the exercises' reference solutions.

Each exercise's reference is the canonical version of one module of the library learners rebuild piece by piece
(M06.3 -> tinyllm/rand/pcg32.py, M07.1 -> tinyllm/prob/sampling.py, M07.6 -> tinyllm/prob/rejection.py, ...),
so the package is generated, never kept as a second copy.

    python -m tools.reference_package DEST     writes DEST/tinyllm/... (importable with DEST on sys.path)
"""
from __future__ import annotations

import sys
from pathlib import Path

from course import manifest
from checker.isolation import write_tree


def files() -> dict[str, str]:
    """Import path -> source of every exercise whose learner file belongs to the tinyllm package."""
    return {ex.import_path: ex.reference.read_text(encoding="utf-8")
            for ex in manifest.load_all().values() if ex.import_path.startswith("tinyllm/")}


def write(dest: Path) -> list[str]:
    """Write the package under `dest`; returns the module paths written."""
    found = files()
    write_tree(dest, found)
    return sorted(found)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tools.reference_package DEST")
    for path in write(Path(sys.argv[1])):
        print(path)
