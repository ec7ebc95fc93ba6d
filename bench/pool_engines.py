"""Pool the per-run ready ratios of several `bench.engines` passes of the same rows (labels), run for run.

    python -m bench.pool_engines FILE.json [FILE.json ...]

Each file is an `engines-latest.json` that bench/engines.py wrote (`--out DIR`). A row's ratios are the site's ready
over the bare page's in each fresh-browser run; pooled over the passes, their median is less at the mercy of one
pass than either pass's own. Prints a Markdown table; asserts nothing.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def pooled(files: list[Path]) -> dict[str, list[float]]:
    rows: dict[str, list[float]] = {}
    for file in files:
        for label, row in json.loads(file.read_text(encoding="utf-8")).items():
            rows.setdefault(label, []).extend(row["ready_ratios"])
    return rows


def main(argv: list[str] | None = None) -> int:
    files = [Path(f) for f in (argv if argv is not None else sys.argv[1:])]
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    print("| row | runs | ready ÷ bare page, per run (pass by pass) | median |")
    print("|---|---:|---|---:|")
    for label, ratios in pooled(files).items():
        print(f"| {label} | {len(ratios)} | {', '.join(f'{x:.2f}' for x in ratios)} | "
              f"{statistics.median(ratios):.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
