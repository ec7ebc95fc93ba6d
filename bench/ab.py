"""Two builds of the site side by side: the first verdict straight away (as `bench.engines --first-verdict`), in
fresh browsers, the two builds' runs interleaved (A B, B A, ...) so that a machine's slow minutes fall on both,
and the medians of the worker's marks compared (bench/README.md, issue 41's third step).

    python -m bench.ab SITE_A SITE_B [--runs 6] [--engine chromium|firefox|webkit|phone] [--network 20mbit] [--bare]

SITE_A and SITE_B are built sites (a copy of `site/` kept before a change, and `site/` after it). Prints each run,
then one row per mark: its median in A and in B, ms since navigation. With --bare, the bare Pyodide page is opened
too, once per pair of runs, and each build's first verdict is also given over that pair's bare ready.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from bench import engines

ROWS = ["coreIn", "stdlibIn", "coreCompiled", "snapshotIn", "restored", "warmed", "numpyIn", "numpyWritten",
        "numpyCompiled", "numpyFirstImport", "numpyMoreIn", "numpyMoreWritten", "pytestReady"]


def one_run(engine: str, play, url: str, network: dict | None) -> dict:
    done, timeline = engines.straight_away(engine, play, url, network)
    return {**(timeline.get("marks") or {}), "verdict": done, "tests": (timeline.get("firstCheck") or {}).get("tests")}


def table(runs: dict[str, list[dict]]) -> str:
    def median(side: str, key: str, form: str = "{:,.0f}") -> str:
        values = [r[key] for r in runs[side] if r.get(key) is not None]
        return form.format(statistics.median(values)) if values else "–"
    labels = {**engines.worker_marks(), "verdict": "the verdict on the page", "tests": "the tests' own bodies"}
    lines = ["| mark (median, ms) | A | B |", "|---|---:|---:|"]
    for key in [*ROWS, "verdict", "tests"]:
        lines.append(f"| {labels.get(key, key)} | {median('A', key)} | {median('B', key)} |")
    if any(r.get("ratio") for r in runs["A"] + runs["B"]):
        lines.append(f"| the first verdict ÷ the bare page's ready, same pair | {median('A', 'ratio', '{:.2f}×')} | "
                     f"{median('B', 'ratio', '{:.2f}×')} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--engine", choices=["chromium", "firefox", "webkit", "phone"], default="chromium")
    parser.add_argument("--network", choices=["20mbit", "100mbit"], default="")
    parser.add_argument("--bare", action="store_true", help="also the bare page's ready, once per pair of runs")
    args = parser.parse_args()
    from bench.network import PROFILES
    from playwright.sync_api import sync_playwright

    network = PROFILES[args.network] if args.network else None
    servers = {"A": engines.served_copy(args.a), "B": engines.served_copy(args.b)}
    runs: dict[str, list[dict]] = {"A": [], "B": []}
    try:
        with sync_playwright() as play:
            for i in range(args.runs):
                bare = engines.bare_ready(args.engine, play, servers["A"][1], network) if args.bare else None
                for side in ("A", "B") if i % 2 == 0 else ("B", "A"):
                    runs[side].append(one_run(args.engine, play, servers[side][1], network))
                    if bare:
                        runs[side][-1]["ratio"] = runs[side][-1]["verdict"] / bare
                    print(f"{side} {i + 1}/{args.runs}: " + ", ".join(
                        f"{k} {runs[side][-1][k]:,.0f}" for k in [*ROWS, "verdict"] if runs[side][-1].get(k)),
                        file=sys.stderr)
    finally:
        for server, _ in servers.values():
            server.shutdown()
    print(table(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
