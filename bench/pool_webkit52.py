"""Issue 52's WebKit Check, pooled: every first-check run of the current build and of 000889b (the commit before
issue 52) from the alternating passes in bench/results/engines-issue52-webkit-*.md (A/B files only; the hold's
A/B, two builds after issue 52, is left out). Prints one row per pass, then all runs together.

    python -m bench.pool_webkit52 [--arrived]

The passes named engines-issue52-webkit-arrived-* time the Check after the reader has arrived at the cell (scrolled
to it in either build and its editor handed to CodeMirror: bench/run.py NEAR_CELL `arrived`); the earlier passes
pressed Check with the cell where it was. The two are pooled apart: `--arrived` for the first, the default for the
second.
"""
from __future__ import annotations

import math
import re
import statistics
import sys
from pathlib import Path

RESULTS = Path(__file__).with_name("results")
OLD = "wt-before52"  # where 000889b's site was built for these passes


def first_checks(path: Path) -> tuple[list[float], list[float]] | None:
    """(current build's runs, 000889b's runs) of one pass's first-check row; None for a file of other builds."""
    text = path.read_text(encoding="utf-8")
    title = re.search(r"^# webkit: (\S+) \(before\) and (\S+) \(after\)", text, re.M)
    row = re.search(r"^\| first check \|[^|]*\|[^|]*\|[^|]*\| ([^|]*) \| ([^|]*) \|", text, re.M)
    if not title or not row:
        return None
    before, after = title.groups()
    if (OLD in before) == (OLD in after):
        return None
    runs = [[float(v.replace(",", "")) for v in cell.split(", ")] for cell in row.groups()]
    return (runs[1], runs[0]) if OLD in before else (runs[0], runs[1])


def main(argv: list[str] | None = None) -> None:
    arrived = "--arrived" in (argv if argv is not None else sys.argv[1:])
    print("| pass | runs a side | current, median ms | 000889b, median ms | current ÷ 000889b |")
    print("|---|---:|---:|---:|---:|")
    now_all: list[float] = []
    old_all: list[float] = []
    ratios = []
    for path in sorted(RESULTS.glob("engines-issue52-webkit-*.md")):
        if ("-arrived-" in path.name) != arrived:
            continue
        got = first_checks(path)
        if got is None:
            continue
        now, old = got
        now_all += now
        old_all += old
        ratio = statistics.median(now) / statistics.median(old)
        ratios.append(ratio)
        print(f"| {path.stem} | {len(now)} | {statistics.median(now):,.0f} | {statistics.median(old):,.0f} | {ratio:.2f}× |")
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"| all runs together | {len(now_all)} | {statistics.median(now_all):,.0f} | {statistics.median(old_all):,.0f} "
          f"| {statistics.median(now_all) / statistics.median(old_all):.2f}× |")
    print(f"\ngeometric mean of the {len(ratios)} passes' ratios: {geo:.2f}×")


if __name__ == "__main__":
    main()
