"""Every request of one first visit, on the page's clock: when it was sent, its first byte, its last.

    python -m bench.waterfall [--site DIR] [--phone | --network 20mbit|100mbit]

A fresh Chromium opens the lesson (as bench/engines.py opens it: `--phone` is its phone, with its own line and
CPU) and waits for stage pytest; then one line per request that finished by then (the page's, its workers' and
its service worker's), in the order they were sent, and the worker's marks. Shows where a line stands idle and
what shares it before ready (bench/README.md, issue 41's fifth step). A benchmark's tool: nothing is asserted.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from authoring.serve import start_in_thread
from bench import engines
from bench.run import LESSON

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=REPO / "site")
    parser.add_argument("--phone", action="store_true", help="bench/engines.py's phone: its line and its CPU")
    parser.add_argument("--network", choices=["20mbit", "100mbit"], default="")
    args = parser.parse_args()
    from bench.network import PROFILES
    from playwright.sync_api import sync_playwright

    server, url = start_in_thread(args.site)
    finished = []
    try:
        with sync_playwright() as play:
            browser = engines.ChromiumEngine(play, args.phone, PROFILES[args.network] if args.network else None)
            try:
                browser.context.on("requestfinished", lambda request: finished.append(request))
                browser.open(url + LESSON)
                browser.wait(engines.SITE_READY)
                origin = browser.js("() => performance.timeOrigin")
                marks = browser.js("() => window.tinyllm.python.timeline.marks") or {}
                time.sleep(0.5)  # the last events of what finished before ready
                rows = []
                unknown = []
                for request in finished:
                    timing = request.timing
                    if timing["startTime"] <= 0:  # Chromium gives no timing for a worker's own script
                        unknown.append(request.url.replace(url, "/"))
                        continue
                    sent = timing["startTime"] - origin
                    rows.append((sent, sent + max(timing["responseStart"], 0), sent + max(timing["responseEnd"], 0),
                                 request.resource_type, request.url.replace(url, "/")))
            finally:
                browser.close()
    finally:
        server.shutdown()
    print(f"{'sent':>8} {'first':>8} {'last':>8}  {'type':<10} request (ms since navigation)")
    for sent, first, last, kind, path in sorted(rows):
        print(f"{sent:8.0f} {first:8.0f} {last:8.0f}  {kind:<10} {path}")
    for path in unknown:
        print(f"{'?':>8} {'?':>8} {'?':>8}  {'':<10} {path} (no timing reported)")
    print("marks: " + ", ".join(f"{k} {v:,.0f}" for k, v in sorted(marks.items(), key=lambda kv: kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
