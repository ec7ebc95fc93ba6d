"""Start-up and first Check in each browser engine, and on a phone: the built site against the bare Pyodide page.

    python -m bench.engines [--engine chromium|firefox|webkit|phone] [--runs 3] [--site DIR] [--label NAME]
                            [--out bench/results]

For every run, a fresh browser (an empty profile) opens the bare page (bench/bare/) and reads when it could grade;
another fresh browser opens the lesson page, reads when it could grade (the worker client's timeline, on the
page's clock from navigation), waits 10 s as a reader would, pastes the reference and presses Check. Medians of
the runs, and ratios to the bare page of the same engine in the same run. The engines are driven as the engine
matrix drives them (tests/e2e/engines.py): Chromium through Playwright, Firefox over WebDriver BiDi, WebKitGTK
over classic WebDriver on a virtual display.

`phone` is Chromium as a phone: a 390×844 viewport, the CPU slowed 4× (DevTools `Emulation.setCPUThrottlingRate`,
which slows the page's renderer process: its workers run in it) and a mobile line (DevTools' "Fast 4G": 9 Mbit/s
down, 170 ms latency), applied to the page, its worker and its service worker (bench/network.py `throttle`). The
other network profiles stay Chromium's (bench/README.md says why). A benchmark, never a test: nothing is
asserted.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.run import ARGS, LESSON, reference
from authoring.serve import start_in_thread

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from engines import Firefox, WebKit  # noqa: E402  (the engine matrix's drivers)

MBIT = 1e6 / 8
PHONE = {"viewport": {"width": 390, "height": 844}, "cpu": 4,
         "network": {"offline": False, "latency": 170, "downloadThroughput": 9 * MBIT, "uploadThroughput": 9 * MBIT}}
READ_S = 10  # a reader's pause before the first Check
BARE_READY = "() => window.benchDone && (window.benchDone.failed ? -1 : window.benchDone.pytest)"
SITE_READY = "() => window.tinyllm && window.tinyllm.python && window.tinyllm.python.timeline.pytest"
CHECK = """async (code) => {
    const cell = document.querySelector('.tl-cell[data-exercise="e7-3"]');
    cell.tlCell.editor.setCode(code);
    const t0 = performance.now();
    const result = await cell.tlCell.check();
    return [performance.now() - t0, cell.dataset.status];
}"""


class ChromiumEngine:
    """Chromium through Playwright, optionally as a phone (PHONE); the same calls as tests/e2e/engines.py."""

    def __init__(self, play, phone: bool):
        self.browser = play.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                            args=ARGS)
        self.context = self.browser.new_context(**({"viewport": PHONE["viewport"], "is_mobile": True,
                                                      "has_touch": True} if phone else {}))
        self.page = self.context.new_page()
        if phone:
            from bench.network import throttle

            throttle(self.context, self.page, PHONE["network"])
            self.context.new_cdp_session(self.page).send("Emulation.setCPUThrottlingRate", {"rate": PHONE["cpu"]})

    def open(self, url: str) -> None:
        self.page.goto(url)

    def js(self, fn: str, *args):
        return self.page.evaluate(f"(args) => ({fn})(...args)", list(args))

    def wait(self, fn: str, timeout: float = 600):
        self.page.wait_for_function(fn, timeout=timeout * 1000)
        return self.js(fn)

    def close(self) -> None:
        self.browser.close()


def launch(engine: str, play):
    if engine in ("chromium", "phone"):
        return ChromiumEngine(play, engine == "phone")
    return Firefox() if engine == "firefox" else WebKit()


def one_run(engine: str, play, url: str) -> dict:
    out = {}
    browser = launch(engine, play)
    try:
        browser.open(url + "bench/bare/")
        out["bare_ready"] = browser.wait(BARE_READY)
    finally:
        browser.close()
    browser = launch(engine, play)
    try:
        t0 = time.monotonic()
        browser.open(url + LESSON)
        out["site_ready"] = browser.wait(SITE_READY)
        time.sleep(max(0.0, READ_S - (time.monotonic() - t0)))
        out["first_check"], status = browser.js(CHECK, reference("e7-3"))
        if status != "passed":
            raise RuntimeError(f"{engine}: the reference did not pass: {status}")
    finally:
        browser.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["chromium", "firefox", "webkit", "phone"], default="chromium")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--site", default=str(REPO / "site"))
    parser.add_argument("--out", default=str(REPO / "bench" / "results"))
    parser.add_argument("--label", default="", help="the table's row name (default: the engine), e.g. to keep an "
                                                    "earlier build's row beside this one's")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp()) / "site"
    shutil.copytree(Path(args.site), root)
    shutil.copytree(REPO / "bench" / "bare", root / "bench" / "bare")
    server, url = start_in_thread(root)
    runs = []
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as play:
            for i in range(args.runs):
                runs.append(one_run(args.engine, play, url))
                print(f"{args.engine}: run {i + 1}/{args.runs}: {runs[-1]}", file=sys.stderr)
    finally:
        server.shutdown()
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    ratios = [r["site_ready"] / r["bare_ready"] for r in runs]
    row = {"engine": args.engine, "runs": len(runs), **{k: round(v, 1) for k, v in med.items()},
           "ready_ratio": round(med["site_ready"] / med["bare_ready"], 3),
           "ready_ratios": [round(x, 3) for x in ratios],
           "first_check_ratio": round(med["first_check"] / med["bare_ready"], 3)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "engines-latest.json"
    table = json.loads(path.read_text()) if path.is_file() else {}
    table[args.label or args.engine] = row
    path.write_text(json.dumps(table, indent=1) + "\n")
    (out / "engines-latest.md").write_text(markdown(table))
    print(markdown({args.label or args.engine: row}))
    return 0


def markdown(table: dict) -> str:
    lines = ["| engine | runs | bare page ready | site ready | ratio (per run) | first Check after 10 s |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, r in table.items():
        lines.append(f"| {name} | {r['runs']} | {r['bare_ready']:,.0f} ms | {r['site_ready']:,.0f} ms | "
                     f"{r['ready_ratio']:.2f}× ({', '.join(f'{x:.2f}' for x in r['ready_ratios'])}) | "
                     f"{r['first_check']:,.0f} ms |")
    return "\n".join(lines) + ("\n\nMedians of fresh-browser runs; each ratio is the site's ready to grade over the "
                               "bare page's, same engine, same run (bench/engines.py).\n")


if __name__ == "__main__":
    sys.exit(main())
