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
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from authoring.serve import start_in_thread
from bench import engines

ROWS = ["restored", "warmed", "numpyIn", "numpyWritten", "numpyCompiled", "numpyFirstImport", "pytestReady"]


def serve(site: Path):
    root = Path(tempfile.mkdtemp()) / "site"
    shutil.copytree(site, root)
    shutil.copytree(engines.REPO / "bench" / "bare", root / "bench" / "bare")  # the bare page, for --bare
    return start_in_thread(root)


def one_run(engine: str, play, url: str, network: dict | None) -> dict:
    browser = engines.launch(engine, play, network)
    try:
        browser.open(url + engines.LESSON)
        browser.wait(engines.CELL_THERE)
        done, status, timeline = browser.js(engines.STRAIGHT_AWAY, engines.reference("e7-3"))
    finally:
        browser.close()
    if status != "passed":
        raise RuntimeError(f"{engine}: the reference did not pass: {status}")
    return {**(timeline.get("marks") or {}), "verdict": done, "tests": (timeline.get("firstCheck") or {}).get("tests")}


def table(runs: dict[str, list[dict]]) -> str:
    def median(side: str, key: str) -> str:
        values = [r[key] for r in runs[side] if r.get(key) is not None]
        return f"{statistics.median(values):,.0f}" if values else "–"
    lines = ["| mark (median, ms) | A | B |", "|---|---:|---:|"]
    for key in [*ROWS, "verdict", "tests", "ratio"]:
        if key == "ratio":
            if not any(r.get("ratio") for r in runs["A"] + runs["B"]):
                break
            ratio = lambda side: f"{statistics.median(r['ratio'] for r in runs[side]):.2f}×"  # noqa: E731
            lines.append(f"| the first verdict ÷ the bare page's ready, same pair | {ratio('A')} | {ratio('B')} |")
            break
        label = engines.worker_marks().get(key, {"verdict": "the verdict on the page",
                                                 "tests": "the tests' own bodies"}.get(key, key))
        lines.append(f"| {label} | {median('A', key)} | {median('B', key)} |")
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
    servers = {"A": serve(args.a), "B": serve(args.b)}
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
