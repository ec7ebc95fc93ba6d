"""Start-up and first Check in each browser engine, and on a phone: the built site against the bare Pyodide page.

    python -m bench.engines [--engine chromium|firefox|webkit|phone] [--runs 3] [--site DIR] [--label NAME]
                            [--out bench/results] [--first-verdict [--network 20mbit]]
                            [--against DIR [--repeat] [--name NAME]]

For every run, a fresh browser (an empty profile) opens the bare page (bench/bare/) and reads when it could grade;
another fresh browser opens the lesson page, reads when it could grade (the worker client's timeline, on the
page's clock from navigation), waits 10 s as a reader would, scrolls to E7.3's cell and waits for its editor
(bench/run.py NEAR_CELL `arrived`), pastes the reference and presses Check. Medians of the runs, and ratios to
the bare page of the same engine in the same run. The engines are driven as the engine matrix drives them
(tests/e2e/engines.py): Chromium through Playwright, Firefox over WebDriver BiDi, WebKitGTK over classic WebDriver
on a virtual display.

`phone` is Chromium as a phone: a 390×844 viewport, the CPU slowed 4× (DevTools `Emulation.setCPUThrottlingRate`,
which slows the page's renderer process: its workers run in it) and a mobile line (DevTools' "Fast 4G": 9 Mbit/s
down, 170 ms latency), applied to the page, its worker and its service worker (bench/network.py `throttle`). The
other network profiles stay Chromium's (bench/README.md says why). A benchmark, never a test: nothing is
asserted.

`--first-verdict` measures instead the first verdict of a learner who pastes and checks as soon as the page lets
them: a fresh browser opens the lesson, puts the reference in E7.3's cell the moment it exists and presses Check;
the time from navigation to the verdict, over the bare page's ready in the same engine and run. With it, where the
time went: the worker's marks (web/src/worker/boot/context.js MARKS) and the check's moments, on the page's clock,
medians of the runs, into `first-verdict-latest.md` (one column per engine or `--label`). `--network 20mbit`
(Chromium only) puts the page, its workers and its service worker on bench/network.py's 20 Mbit/s, 40 ms line.

`--against DIR` compares two builds where one run's spread is as large as the change: the other build's site and
this one alternate run by run, each in a fresh browser, with no bare page: the ready, the first Check after 10 s
and the check's own moments (how long it waited for the worker, how long it took there), medians and every run.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.run import ARGS, LESSON, NEAR_CELL, reference
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
CHECK = """async (code) => {""" + NEAR_CELL + """
    const cell = document.querySelector('.tl-cell[data-exercise="e7-3"]');
    await arrived(cell);
    cell.tlCell.editor.setCode(code);
    const t0 = performance.now();
    const result = await cell.tlCell.check();
    return [performance.now() - t0, cell.dataset.status];
}"""


class ChromiumEngine:
    """Chromium through Playwright, optionally as a phone (PHONE); the same calls as tests/e2e/engines.py."""

    def __init__(self, play, phone: bool, network: dict | None = None):
        self.browser = play.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                            args=ARGS)
        self.context = self.browser.new_context(**({"viewport": PHONE["viewport"], "is_mobile": True,
                                                      "has_touch": True} if phone else {}))
        self.page = self.context.new_page()
        conditions = PHONE["network"] if phone else network  # the phone has its own line
        if conditions:
            from bench.network import throttle

            throttle(self.context, self.page, conditions)
        if phone:
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


def launch(engine: str, play, network: dict | None = None):
    if engine in ("chromium", "phone"):
        return ChromiumEngine(play, engine == "phone", network)
    return Firefox() if engine == "firefox" else WebKit()


def bare_ready(engine: str, play, url: str, network: dict | None = None, attempts: int = 3) -> float:
    """The bare page's ready, in a fresh browser. A bare page that reports a failure (BARE_READY's -1: WebKit's
    did once in nine runs) is opened again in another fresh browser, up to `attempts` times, and never enters
    the medians."""
    for attempt in range(1, attempts + 1):
        browser = launch(engine, play, network)
        try:
            browser.open(url + "bench/bare/")
            ready = browser.wait(BARE_READY)
        finally:
            browser.close()
        if ready >= 0:
            return ready
        print(f"{engine}: the bare page failed to start (attempt {attempt} of {attempts})", file=sys.stderr)
    raise RuntimeError(f"{engine}: the bare page failed to start {attempts} times")


def one_run(engine: str, play, url: str) -> dict:
    out = {"bare_ready": bare_ready(engine, play, url)}
    site = site_run(engine, play, url)
    return {**out, "site_ready": site["site_ready"], "first_check": site["first_check"]}


STRAIGHT_AWAY = """async (code) => {""" + NEAR_CELL + """
    const cell = document.querySelector('.tl-cell[data-exercise="e7-3"]');
    await mounted(cell);
    cell.tlCell.editor.setCode(code);
    await cell.tlCell.check();
    const timeline = window.tinyllm.python.timeline;
    return [performance.now(), cell.dataset.status, timeline];
}"""
# The cell there to paste into, brought into view first as a reader scrolls to it.
CELL_THERE = "() => {" + NEAR_CELL + " return !!near(document.querySelector('.tl-cell[data-exercise=\"e7-3\"]'))?.tlCell; }"
# The rows of the first verdict's account, in order: the worker's marks (context.js MARKS), then the check's.
CHECK_ROWS = {"sent": "the Check sent (the cell exists, the reference pasted)",
              "started": "the check started in the worker (it waited for stage pytest)",
              "verdict": "the verdict on the page"}


def straight_away(engine: str, play, url: str, network: dict | None) -> tuple[float, dict]:
    """The site's first verdict straight away, in a fresh browser: (ms since navigation, the page's timeline)."""
    browser = launch(engine, play, network)
    try:
        browser.open(url + LESSON)
        browser.wait(CELL_THERE)
        done, status, timeline = browser.js(STRAIGHT_AWAY, reference("e7-3"))
        if status != "passed":
            raise RuntimeError(f"{engine}: the reference did not pass: {status}")
    finally:
        browser.close()
    return done, timeline


def first_verdict_run(engine: str, play, url: str, network: dict | None) -> dict:
    """The bare page's ready, then the site's first verdict straight away and its timeline, in fresh browsers."""
    out = {"bare_ready": bare_ready(engine, play, url, network)}
    done, timeline = straight_away(engine, play, url, network)
    check = timeline.get("firstCheck") or {}
    out.update({"first_verdict": done, **{f"mark {k}": v for k, v in (timeline.get("marks") or {}).items()},
                "sent": check.get("sent"), "started": check.get("started"), "verdict": check.get("done"),
                "tests": check.get("tests"), "snapshot": bool(timeline.get("snapshot"))})
    return out


def first_verdict_main(args, url: str) -> int:
    from bench.network import PROFILES
    from playwright.sync_api import sync_playwright

    network = PROFILES[args.network] if args.network else None
    if network and args.engine not in ("chromium",):
        raise SystemExit("--network shapes Chromium's traffic only (bench/README.md, \"Each engine, and a phone\")")
    runs = []
    with sync_playwright() as play:
        for i in range(args.runs):
            runs.append(first_verdict_run(args.engine, play, url, network))
            print(f"{args.engine}: run {i + 1}/{args.runs}: {runs[-1]}", file=sys.stderr)
    keys = [k for k in runs[0] if k != "snapshot" and all(r.get(k) is not None for r in runs)]
    med = {k: round(statistics.median(r[k] for r in runs), 1) for k in keys}
    column = {**med, "runs": len(runs), "restored": sum(r["snapshot"] for r in runs),
              "ratios": [round(r["first_verdict"] / r["bare_ready"], 3) for r in runs],
              "ratio": round(med["first_verdict"] / med["bare_ready"], 3)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "first-verdict-latest.json"
    table = json.loads(path.read_text()) if path.is_file() else {}
    name = args.label or args.engine + (f" {args.network}" if args.network else "")
    table[name] = column
    path.write_text(json.dumps(table, indent=1) + "\n")
    (out / "first-verdict-latest.md").write_text(first_verdict_markdown(table))
    print(first_verdict_markdown({name: column}))
    return 0


def worker_marks() -> dict[str, str]:
    """The worker's marks and what each means, in order, as web/src/worker/boot/context.js MARKS lists them."""
    text = (REPO / "web" / "src" / "worker" / "boot" / "context.js").read_text()
    block = re.search(r"export const MARKS = Object\.freeze\(\{(.*?)\}\);", text, re.S)
    return dict(re.findall(r'^\s*(\w+): "([^"]*)",$', block.group(1), re.M)) if block else {}


def first_verdict_markdown(table: dict) -> str:
    """One column per engine: where the time to the first verdict went, ms since navigation (medians)."""
    names = list(table)
    lines = ["| ms since navigation (median) | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]

    def row(label, key):
        cells = [f"{table[n][key]:,.0f}" if table[n].get(key) is not None else "–" for n in names]
        if any(c != "–" for c in cells):
            lines.append(f"| {label} | " + " | ".join(cells) + " |")

    for key, what in worker_marks().items():
        row(what, f"mark {key}")
    for key, what in CHECK_ROWS.items():
        row(what, key)
    row("… of which the tests' own bodies (ms)", "tests")
    row("**the bare page's ready**", "bare_ready")
    lines.append("| **first verdict ÷ bare ready** (per run) | " + " | ".join(
        f"**{table[n]['ratio']:.2f}×** ({', '.join(f'{x:.2f}' for x in table[n]['ratios'])})" for n in names) + " |")
    lines.append("| runs (restored from the snapshot) | " + " | ".join(
        f"{table[n]['runs']} ({table[n]['restored']})" for n in names) + " |")
    return "\n".join(lines) + ("\n\nFresh-browser runs: the lesson opened, the reference pasted into E7.3's cell as soon "
                               "as it exists and checked (bench/engines.py --first-verdict).\n")


def served_copy(site: Path):
    """A copy of a built site with the bare page beside it (bench/bare/), served on localhost: (server, url)."""
    root = Path(tempfile.mkdtemp()) / "site"
    shutil.copytree(site, root)
    shutil.copytree(REPO / "bench" / "bare", root / "bench" / "bare")
    return start_in_thread(root)


REPEAT_AFTER_S = 20  # after the first Check, before the repeat visit: the service worker keeps the page's scope


def site_run(engine: str, play, url: str, repeat: bool = False) -> dict:
    """One fresh browser: the lesson's ready, then after 10 s of reading the first Check of E7.3, with the
    check's moments from the page's timeline (sent, started in the worker, done; the tests' own bodies); with
    `repeat` (Chromium), 20 s later the service worker stopped and the lesson opened again in the same browser:
    that visit's ready (every file from the offline copy, hashed once by the new service worker)."""
    browser = launch(engine, play)
    try:
        t0 = time.monotonic()
        browser.open(url + LESSON)
        out = {"site_ready": browser.wait(SITE_READY)}
        time.sleep(max(0.0, READ_S - (time.monotonic() - t0)))
        out["first_check"], status = browser.js(CHECK, reference("e7-3"))
        if status != "passed":
            raise RuntimeError(f"{engine}: the reference did not pass: {status}")
        check = browser.js("() => window.tinyllm.python.timeline.firstCheck || {}")
        if repeat:
            time.sleep(REPEAT_AFTER_S)
            # A later visit: the browser has ended the idle service worker (DevTools' ServiceWorker.stopAllWorkers),
            # so the next one starts with nothing in memory, as on another day.
            session = browser.context.new_cdp_session(browser.page)
            session.send("ServiceWorker.enable")
            session.send("ServiceWorker.stopAllWorkers")
            browser.open(url + LESSON)
            out["repeat visit ready"] = browser.wait(SITE_READY)
    finally:
        browser.close()
    if check.get("sent") is not None:
        out["waited for the worker"] = check["started"] - check["sent"]
        out["in the worker"] = check["done"] - check["started"]
        out["tests' bodies"] = check.get("tests")
    return out


def against_main(args) -> int:
    """Two builds alternating run by run (`--against` first), fresh browsers: medians, each run, the ratio."""
    from playwright.sync_api import sync_playwright

    sides = {"before": Path(args.against), "after": Path(args.site)}
    served = {side: served_copy(site) for side, site in sides.items()}
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    lost: list[str] = []
    try:
        with sync_playwright() as play:
            for i in range(args.runs):
                for side, (_, url) in served.items():
                    for attempt in range(3):  # a browser that crashed or hung loses its run, which is run again
                        try:
                            runs[side].append(site_run(args.engine, play, url, args.repeat))
                            break
                        except Exception as exc:  # noqa: BLE001 - WebDriver's and Playwright's errors alike
                            lost.append(f"{side} run {i + 1}: {str(exc).splitlines()[0][:200].rstrip('.')}")
                            print(f"{args.engine} {side}: run {i + 1} lost ({lost[-1]}), run again", file=sys.stderr)
                    else:
                        raise RuntimeError(f"{args.engine} {side}: run {i + 1} lost three times")
                    print(f"{args.engine} {side}: run {i + 1}/{args.runs}: {runs[side][-1]}", file=sys.stderr)
    finally:
        for server, _ in served.values():
            server.shutdown()
    keys = [k for k in runs["after"][0] if all(r.get(k) is not None for rs in runs.values() for r in rs)]
    lines = [f"# {args.engine}: {sides['before']} (before) and {sides['after']} (after), alternating run by run",
             "", f"`python -m bench.engines --engine {args.engine} --runs {args.runs} --against …`; fresh browsers, "
             f"ms on the page's clock; medians, then every run in order."
             + (f" Runs lost and run again ({len(lost)}): " + "; ".join(lost) + "." if lost else ""), "",
             "| ms | before | after | after ÷ before | before, each run | after, each run |",
             "|---|---:|---:|---:|---|---|"]
    for key in keys:
        med = {side: statistics.median(r[key] for r in runs[side]) for side in sides}
        each = {side: ", ".join(f"{r[key]:,.0f}" for r in runs[side]) for side in sides}
        ratio = f"{med['after'] / med['before']:.2f}×" if med["before"] else "–"
        lines.append(f"| {key.replace('_', ' ')} | {med['before']:,.0f} | {med['after']:,.0f} | {ratio} | "
                     f"{each['before']} | {each['after']} |")
    text = "\n".join(lines) + "\n"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.name or 'engines-' + args.engine + '-against'}.md").write_text(text)
    print(text)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["chromium", "firefox", "webkit", "phone"], default="chromium")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--site", default=str(REPO / "site"))
    parser.add_argument("--out", default=str(REPO / "bench" / "results"))
    parser.add_argument("--label", default="", help="the table's row name (default: the engine), e.g. to keep an "
                                                    "earlier build's row beside this one's")
    parser.add_argument("--first-verdict", action="store_true", help="paste and check as soon as the cell exists, "
                        "and account for the time (first-verdict-latest.md)")
    parser.add_argument("--network", choices=["20mbit", "100mbit"], default="",
                        help="with --first-verdict: Chromium on that emulated line (bench/network.py PROFILES)")
    parser.add_argument("--against", default="", metavar="DIR",
                        help="another build's site/: the two alternate run by run (that one first), each run the "
                             "ready and the first Check after 10 s with the check's own moments, no bare page")
    parser.add_argument("--repeat", action="store_true", help="with --against: each run also opens the lesson "
                        "again 20 s after its first Check, its service worker stopped first, and reads that visit's ready (Chromium)")
    parser.add_argument("--name", default="", help="with --against: the results' file name (default "
                                                   "engines-<engine>-against)")
    args = parser.parse_args()
    if args.repeat and args.engine not in ("chromium", "phone"):
        raise SystemExit("--repeat stops the service worker through Chromium's DevTools: chromium or phone only")
    if args.against:
        return against_main(args)
    server, url = served_copy(Path(args.site))
    if args.first_verdict:
        try:
            return first_verdict_main(args, url)
        finally:
            server.shutdown()
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
