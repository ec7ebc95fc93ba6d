"""What the network benchmark measured before ready, part by part: medians of its runs, one column per results file.

    python -m bench.measured_parts LABEL=bench/results/network-....json [LABEL=... ...]

bench/parts.py predicts the parts from a build's files; this reads what the server sent (bench/network.py
`sent_before_ready`, per path and per run) and groups it into parts, with every run's total, so that a table of
before and after shows whether the bytes before ready still move from run to run.
"""
from __future__ import annotations

import json
import re
import statistics
import sys

# (part, pattern of its paths); the first that matches takes a path, the last takes the rest.
GROUPS = [("pyodide.asm.wasm (core)", r"pyodide\.asm\.wasm"), ("memory snapshot (3 parts)", r"snapshot-"),
          ("standard library, start-up part", r"python_stdlib-start"), ("numpy pack", r"numpy-[^/]*-tl\.pack"),
          ("judge wheels pack", r"judge-wheels\.pack"), ("loader (pyodide.asm.mjs)", r"pyodide\.asm\.mjs"),
          ("the theme's search index", r"search_index"), ("standard library, the rest", r"python_stdlib-rest"),
          ("numpy, the rest", r"tl-rest\.pack"), ("judge wheels, the rest", r"judge-wheels-rest"),
          ("the page, its scripts, styles and fonts, the judge, the wheels list", r"")]


def site_visits(results: dict) -> list[dict]:
    """Every first visit of the site in a results file (the bare page's have no `start`)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if "sent_before_ready" in node and node.get("start"):
                found.append(node)
                return
            node = list(node.values())
        if isinstance(node, list):
            for value in node:
                walk(value)

    walk(results)
    return found


def grouped(visit: dict) -> dict[str, int]:
    parts = {name: 0 for name, _ in GROUPS}
    for path, sent in visit["sent_before_ready"].items():
        name = next(name for name, pattern in GROUPS if re.search(pattern, path))
        parts[name] += sent
    parts["total"] = sum(visit["sent_before_ready"].values())
    return parts


def table(columns: list[tuple[str, list[dict]]]) -> str:
    rows = [[grouped(v) for v in visits] for _, visits in columns]
    lines = ["| sent before ready (median of the runs, MB) | "
             + " | ".join(f"{label} ({len(visits)} runs)" for label, visits in columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for name in [name for name, _ in GROUPS] + ["total"]:
        cells = [f"{statistics.median(r[name] for r in runs) / 1e6:.2f}" for runs in rows]
        if name == "total":
            cells = [f"**{c}**" for c in cells]
        lines.append(f"| {'**total**' if name == 'total' else name} | " + " | ".join(cells) + " |")
    lines.append("| each run's total | " + " | ".join(", ".join(f"{r['total'] / 1e6:.2f}" for r in runs)
                                                   for runs in rows) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    columns = []
    for arg in argv:
        label, _, path = arg.partition("=")
        with open(path or label, encoding="utf-8") as f:
            columns.append((label if path else path, site_visits(json.load(f))))
    print(table(columns))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
