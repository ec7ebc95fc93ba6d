"""Two builds of the site side by side: the first verdict straight away (as `bench.engines --first-verdict`), in
fresh browsers, the two builds' runs interleaved (A B, B A, ...) so that a machine's slow minutes fall on both,
and the medians of the worker's marks compared (bench/README.md, issue 41's third step).

    python -m bench.ab SITE_A SITE_B [--runs 6] [--engine chromium|firefox|webkit|phone] [--network 20mbit]
                       [--bare | --repeat]

SITE_A and SITE_B are built sites (a copy of `site/` kept before a change, and `site/` after it). Prints each run,
then one row per mark: its median in A and in B, ms since navigation. With --bare, the bare Pyodide page is opened
too, once per pair of runs, and each build's first verdict is also given over that pair's bare ready. With
--repeat, each run is a repeat visit instead: the lesson opened until ready and its offline copy complete, then
opened again in the same browser, whose marks and ready (the page's stage pytest) are compared.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from bench import engines

ROWS = ["coreIn", "stdlibIn", "coreCompiled", "snapshotIn", "restored", "warmed", "numpyIn", "numpyWritten",
        "numpyCompiled", "numpyFirstImport", "numpyMoreIn", "numpyMoreWritten", "pytestReady"]


def one_run(engine: str, play, url: str, network: dict | None) -> dict:
    done, timeline = engines.straight_away(engine, play, url, network)
    return {**(timeline.get("marks") or {}), "verdict": done, "tests": (timeline.get("firstCheck") or {}).get("tests")}


def repeat_run(engine: str, play, url: str, network: dict | None, wait_s: float = 120) -> dict:
    """A first visit until ready and the offline copy complete, then the repeat visit in the same browser: its
    marks and its ready, ms since its own navigation."""
    from bench.network import SW_STATUS, copy_complete

    browser = engines.launch(engine, play, network)
    try:
        browser.open(url + engines.LESSON)
        browser.wait(engines.SITE_READY)
        deadline = time.monotonic() + wait_s
        while not copy_complete(browser.js(SW_STATUS)):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{engine}: the offline copy was not complete {wait_s:.0f} s after ready")
            time.sleep(0.5)
        browser.open(url + engines.LESSON)
        browser.wait(engines.SITE_READY)
        timeline = browser.js("() => window.tinyllm.python.timeline")
    finally:
        browser.close()
    return {**(timeline.get("marks") or {}), "ready": timeline["pytest"]}


def table(runs: dict[str, list[dict]]) -> str:
    def median(side: str, key: str, form: str = "{:,.0f}") -> str:
        values = [r[key] for r in runs[side] if r.get(key) is not None]
        return form.format(statistics.median(values)) if values else "–"
    labels = {**engines.worker_marks(), "verdict": "the verdict on the page", "tests": "the tests' own bodies",
              "ready": "the repeat visit's ready on the page: stage pytest"}
    lines = ["| mark (median, ms) | A | B |", "|---|---:|---:|"]
    repeat = any("ready" in r for r in runs["A"] + runs["B"])  # repeat_run's: a ready, no check
    for key in [*ROWS, *(["ready"] if repeat else ["verdict", "tests"])]:
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
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--bare", action="store_true", help="also the bare page's ready, once per pair of runs")
    what.add_argument("--repeat", action="store_true", help="the repeat visit, after the offline copy is complete")
    args = parser.parse_args()
    from bench.network import PROFILES
    from playwright.sync_api import sync_playwright

    network = PROFILES[args.network] if args.network else None
    servers = {"A": engines.served_copy(args.a), "B": engines.served_copy(args.b)}
    runs: dict[str, list[dict]] = {"A": [], "B": []}
    try:
        with sync_playwright() as play:
            run = repeat_run if args.repeat else one_run
            for i in range(args.runs):
                bare = engines.bare_ready(args.engine, play, servers["A"][1], network) if args.bare else None
                for side in ("A", "B") if i % 2 == 0 else ("B", "A"):
                    runs[side].append(run(args.engine, play, servers[side][1], network))
                    if bare:
                        runs[side][-1]["ratio"] = runs[side][-1]["verdict"] / bare
                    print(f"{side} {i + 1}/{args.runs}: " + ", ".join(
                        f"{k} {runs[side][-1][k]:,.0f}" for k in [*ROWS, "verdict", "ready"] if runs[side][-1].get(k)),
                        file=sys.stderr)
    finally:
        for server, _ in servers.values():
            server.shutdown()
    print(table(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
