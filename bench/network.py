"""Start-up over a network: the built site against the bare Pyodide page under Chromium's network emulation.

    python -m bench.network [--runs 3] [--profiles 20mbit,100mbit,localhost] [--server plain,gzip]
                            [--after 60] [--site DIR] [--out bench/results]

For every server kind (plain: files as they are; gzip: compressing text, JavaScript, JSON and WebAssembly on the
fly, as common static hosts do), every profile and every run, a fresh browser opens the bare page (bench/bare/)
and, in another fresh browser, the lesson page. The profile is applied with the DevTools protocol's
`Network.emulateNetworkConditions` to the page (its dedicated workers share the page's conditions) and to every
service worker as it starts (a target of its own, attached paused so its first request is throttled too).

The server counts what it sent, by request: bytes and files before the page was ready to grade, in the minute
after (cut short once the offline copy is complete and the line has been quiet for a few seconds), and on a
repeat visit in the same browser. A file sent twice with a 200 in the first minute is listed by name. A third
fresh browser pastes the reference into the cell as soon as the cell exists and presses Check: navigation to
verdict. A benchmark, never a test: nothing is asserted, the issue's targets are printed next to the ratios.
"""
from __future__ import annotations

import argparse
import email.utils
import functools
import gzip
import io
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.run import ARGS, GRADE, LESSON, NEAR_CELL, READY, STAGE_WATCH, reference
from authoring.serve import Handler, start_in_thread

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "site"
MBIT = 1e6 / 8
PROFILES = {  # DevTools units: latency in ms, throughput in bytes per second
    "20mbit": {"offline": False, "latency": 40, "downloadThroughput": 20 * MBIT, "uploadThroughput": 10 * MBIT},
    "100mbit": {"offline": False, "latency": 20, "downloadThroughput": 100 * MBIT, "uploadThroughput": 50 * MBIT},
    "localhost": None,
}
TARGETS = {"20mbit": "ready ≤ 0.7×, bytes before ready ≤ 1.0×, no file sent twice",
           "100mbit": "ready ≤ 0.5×", "localhost": "ready ≤ 0.4×, Check straight away ≤ 0.5× bare ready"}
COMPRESSIBLE = (".html", ".js", ".mjs", ".css", ".json", ".wasm", ".svg", ".txt", ".xml", ".map")
QUIET_S = 4.0   # the line counts as quiet after this long without a byte
BARE = "bench/bare/"


# ---- the server -------------------------------------------------------------------------------------------------

@dataclass
class Sent:
    t: float          # time.time() when the response was complete
    path: str
    status: int
    bytes: int
    asked: float = 0.0  # time.time() when its request had been read (0: not known)


@dataclass
class Log:
    """Every response the server sent, in order."""
    entries: list[Sent] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_byte: float = 0.0

    def add(self, entry: Sent) -> None:
        with self.lock:
            self.entries.append(entry)
            self.last_byte = entry.t

    def take(self) -> list[Sent]:
        with self.lock:
            out, self.entries = self.entries, []
            return out

    def since(self, t: float) -> list[Sent]:
        with self.lock:
            return [e for e in self.entries if e.t >= t]


@functools.lru_cache(maxsize=512)
def _gzipped(path: str, mtime: float) -> bytes:
    return gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)


def handler(log: Log, compress: bool) -> type:
    class Counting(Handler):
        def send_head(self):
            path = self.translate_path(self.path)
            if os.path.isdir(path) and self.path.split("?")[0].endswith("/"):
                path = os.path.join(path, "index.html")
            accepts = "gzip" in self.headers.get("Accept-Encoding", "")
            if not (compress and accepts and path.endswith(COMPRESSIBLE) and os.path.isfile(path)):
                return super().send_head()
            stat = os.stat(path)
            since = self.headers.get("If-Modified-Since")
            if since and email.utils.parsedate_to_datetime(since).timestamp() >= int(stat.st_mtime):
                self.send_response(304)
                self.end_headers()
                return None
            body = _gzipped(path, stat.st_mtime)
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Last-Modified", self.date_time_string(int(stat.st_mtime)))
            self.end_headers()
            return io.BytesIO(body)

        def copyfile(self, source, outputfile):
            start = source.tell()
            super().copyfile(source, outputfile)
            self._sent = source.tell() - start

        def send_response(self, code, message=None):
            self._status = code
            super().send_response(code, message)

        def parse_request(self):
            self._asked = time.time()  # the request line is in: a kept-alive connection waited for it until now
            return super().parse_request()

        def handle_one_request(self):
            self._sent, self._status, self._asked = 0, None, 0.0
            super().handle_one_request()
            if self._status is not None:
                log.add(Sent(time.time(), self.path.split("?")[0], self._status, self._sent, self._asked))

    return Counting


# ---- the browser ------------------------------------------------------------------------------------------------

def fresh_browser(play):
    """A browser with an empty profile of its own on disk, as a learner's first visit has: its HTTP cache is a
    disk cache (an incognito context's is in memory and keeps no file over a few MB, the core among them)."""
    profile = tempfile.mkdtemp(prefix="tl-bench-profile-")
    context = play.chromium.launch_persistent_context(
        profile, executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
    context.on("close", lambda _: shutil.rmtree(profile, ignore_errors=True))
    return context, context.pages[0] if context.pages else context.new_page()


def throttle(context, page, conditions: dict | None) -> None:
    """Apply `conditions` to the page (and so its dedicated workers) and to every service worker it starts."""
    if conditions is None:
        return
    session = context.new_cdp_session(page)
    session.send("Network.enable")
    session.send("Network.emulateNetworkConditions", conditions)

    def attached(event):
        calls = [("Runtime.runIfWaitingForDebugger", {})]
        if event["targetInfo"]["type"] == "service_worker":
            calls = [("Network.enable", {}), ("Network.emulateNetworkConditions", conditions), *calls]
        try:
            for i, (method, params) in enumerate(calls):
                message = json.dumps({"id": 10_000 + i, "method": method, "params": params})
                session.send("Target.sendMessageToTarget", {"sessionId": event["sessionId"], "message": message})
        except Exception:  # noqa: BLE001 - a target attached as the browser closes: nothing left to throttle
            pass

    session.on("Target.attachedToTarget", attached)
    session.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": False})


SW_STATUS = """() => new Promise((resolve) => {
    const sw = navigator.serviceWorker;
    if (!sw || !sw.controller) return resolve(null);
    const timer = setTimeout(() => resolve(null), 1000);
    sw.addEventListener('message', function once(e) {
        if (!e.data || e.data.type !== 'tl-sw-status') return;
        sw.removeEventListener('message', once); clearTimeout(timer); resolve(e.data);
    });
    sw.controller.postMessage({type: 'tl-sw-status', page: location.href});
})"""


def copy_complete(status: dict | None) -> bool:
    """The offline copy holds what a first visit of the page saves (its scope, since issue 34; before, the whole
    site), with no fill on its way: `status` is the service worker's answer to SW_STATUS."""
    if not status or status.get("filling"):
        return False
    return bool(status["pageSaved"]) if "pageSaved" in status else status.get("cached", 0) >= status.get("total", 1)


def _ready_ms(page, bare: bool) -> float:
    if bare:
        page.wait_for_function("() => window.benchDone", timeout=600_000)
        marks = page.evaluate("window.benchDone")
        if "failed" in marks:
            raise RuntimeError(f"the bare page failed: {page.inner_text('#log')}")
        return marks["pytest"]
    page.wait_for_function(READY, timeout=600_000)
    return page.evaluate(GRADE)


def _sum(entries: list[Sent]) -> int:
    return sum(e.bytes for e in entries)


def _by_path(entries) -> dict[str, int]:
    """Bytes sent per path (what bench/parts.py reads from the files, as measured)."""
    out: dict[str, int] = {}
    for e in entries:
        out[e.path] = out.get(e.path, 0) + e.bytes
    return out


def visit(play, url: str, log: Log, conditions: dict | None, bare: bool, after_s: float) -> dict:
    """A first visit, the minute after it, and a repeat visit, in one fresh browser."""
    context, page = fresh_browser(play)
    try:
        context.add_init_script(STAGE_WATCH)
        throttle(context, page, conditions)
        log.take()
        page.goto(url + (BARE if bare else LESSON), wait_until="commit")
        ready = _ready_ms(page, bare)
        timeline = {} if bare else page.evaluate("window.tinyllm.python.timeline")
        start = None if bare else ("snapshot" if timeline.get("snapshot") else "cold")
        origin = page.evaluate("performance.timeOrigin") / 1000
        ready_at = origin + ready / 1000
        deadline = ready_at + after_s
        while time.time() < deadline:
            time.sleep(1.0)
            quiet = time.time() - max(log.last_byte, ready_at) > QUIET_S
            if quiet and (bare or copy_complete(page.evaluate(SW_STATUS))):
                break
        first = log.take()
        # What came before ready is what was asked for before the worker was ready (its own mark, on the page's
        # clock): the server's moment of completing a response says little under DevTools' throttling, which
        # holds the bytes back in the browser, and the page learns of ready a moment after the worker, which has
        # by then asked for the parts that come after (once counted before ready: bench/README.md, issue 41).
        worker_ready = (timeline.get("marks") or {}).get("pytestReady")
        cut = origin + worker_ready / 1000 if worker_ready else ready_at
        asked_before = lambda e: (e.asked or e.t) <= cut  # noqa: E731
        before = [e for e in first if asked_before(e)]
        window = [e for e in first if e.t <= origin + 60 + ready / 1000]
        counts: dict[str, int] = {}
        for e in window:
            if e.status == 200:
                counts[e.path] = counts.get(e.path, 0) + 1
        twice = sorted(p for p, n in counts.items() if n > 1)
        offline = None if bare else page.evaluate(SW_STATUS)
        page.goto(url + (BARE if bare else LESSON), wait_until="commit")
        repeat = _ready_ms(page, bare)
        time.sleep(2.0)
        again = log.take()
        return {"ready": ready, "start": start, "bytes_before_ready": _sum(before), "files_before_ready": len(before),
                "sent_before_ready": _by_path(before), "sent_after_ready": _by_path(e for e in first if not asked_before(e)),
                "bytes_after_ready": _sum(first) - _sum(before), "watched_s": round(time.time() - ready_at, 1),
                "sent_twice": twice, "offline": offline and {k: offline.get(k) for k in ("cached", "total")},
                "repeat_ready": repeat, "repeat_bytes": _sum(again)}
    finally:
        context.close()


def check_straight_away(play, url: str, conditions: dict | None) -> float:
    """ms from navigation until the verdict of the reference, pasted and checked as soon as the cell exists."""
    context, page = fresh_browser(play)
    try:
        throttle(context, page, conditions)
        page.goto(url + LESSON, wait_until="commit")
        page.wait_for_function("() => {" + NEAR_CELL + " return near(document.querySelector(\".tl-cell[data-exercise='e7-3']\"))?.tlCell; }",
                               timeout=600_000)
        return page.evaluate("""async (code) => {
            const cell = document.querySelector(".tl-cell[data-exercise='e7-3']");
            cell.tlCell.editor.setCode(code);
            await cell.tlCell.check();
            return performance.now();
        }""", reference("e7-3"))
    finally:
        context.close()


# ---- the runs and the report ------------------------------------------------------------------------------------

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def measure(site: Path, servers: list[str], profiles: list[str], runs: int, after_s: float, log=print) -> dict:
    results: dict = {}
    with sync_playwright() as play:
        for kind in servers:
            record = Log()
            server, url = start_in_thread(site, base=handler(record, kind == "gzip"))
            try:
                for name in profiles:
                    conditions = PROFILES[name]
                    rows = []
                    for i in range(runs):
                        row = {"bare": visit(play, url, record, conditions, True, after_s),
                               "site": visit(play, url, record, conditions, False, after_s),
                               "check_straight_away": check_straight_away(play, url, conditions)}
                        log(f"{kind} {name} run {i + 1}: bare ready {row['bare']['ready']:.0f} ms "
                            f"{row['bare']['bytes_before_ready'] / 1e6:.1f} MB; site ready {row['site']['ready']:.0f} ms "
                            f"{row['site']['bytes_before_ready'] / 1e6:.1f} MB ({row['site']['start']}), "
                            f"+{row['site']['bytes_after_ready'] / 1e6:.1f}"
                            f" MB after, twice: {row['site']['sent_twice']}; check straight away "
                            f"{row['check_straight_away']:.0f} ms")
                        rows.append(row)
                    results[f"{kind}/{name}"] = rows
            finally:
                server.shutdown()
    return results


def summary(rows: list[dict]) -> dict:
    def med(side: str, key: str):
        return median([r[side][key] for r in rows])
    out = {side: {k: med(side, k) for k in ("ready", "bytes_before_ready", "bytes_after_ready", "repeat_ready",
                                             "repeat_bytes")} for side in ("bare", "site")}
    out["check_straight_away"] = median([r["check_straight_away"] for r in rows])
    out["sent_twice"] = sorted({p for r in rows for p in r["site"]["sent_twice"]})
    starts = [r["site"].get("start") or "not recorded" for r in rows]
    out["starts"] = ", ".join(f"{s} ×{starts.count(s)}" for s in sorted(set(starts)))
    return out


def _ratio(a, b) -> str:
    return f"{a / b:.2f}×" if a is not None and b else "–"


def report(results: dict, meta: dict) -> str:
    lines = [f"# Start-up over a network ({meta['commit']}, {meta['date']})", "",
             f"{meta['runs']} run(s) per profile, medians; each visit in a fresh browser; bytes counted by the server "
             "(page, workers and service worker together). Ratios are site ÷ bare page of the same run set.", "",
             "| server / profile | bare ready | site ready | ratio | bytes before ready: bare / site (ratio) | "
             "site bytes in the minute after | files sent twice | repeat: ready (bare / site), site bytes | "
             "Check straight away (÷ bare ready) | site's start | target |",
             "|---|---:|---:|---:|---|---:|---|---|---:|---|---|"]
    for key, rows in results.items():
        s = summary(rows)
        b, t = s["bare"], s["site"]
        profile = key.split("/")[1]
        lines.append(
            f"| {key} | {b['ready'] / 1000:.2f} s | {t['ready'] / 1000:.2f} s | {_ratio(t['ready'], b['ready'])} | "
            f"{b['bytes_before_ready'] / 1e6:.1f} / {t['bytes_before_ready'] / 1e6:.1f} MB "
            f"({_ratio(t['bytes_before_ready'], b['bytes_before_ready'])}) | {t['bytes_after_ready'] / 1e6:.1f} MB | "
            f"{', '.join(s['sent_twice']) or 'none'} | {b['repeat_ready'] / 1000:.2f} / {t['repeat_ready'] / 1000:.2f} s, "
            f"{t['repeat_bytes']} B | {s['check_straight_away'] / 1000:.2f} s "
            f"({_ratio(s['check_straight_away'], b['ready'])}) | {s['starts']} | {TARGETS[profile]} |")
    lines += ["", "The bare page has no service worker: its repeat visit is served by the HTTP cache (revalidated, "
              "so its bytes are 304 replies), and it has no offline copy to fill in the minute after. The site's "
              "start says how Python started on each first visit (worker.js): restored from the snapshot or cold. "
              "Since issue 41 the snapshot and the packs have one copy, their zstd frames, on every line (before, a "
              "line measured fast took LZ4 files).", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profiles", default="20mbit,100mbit,localhost")
    parser.add_argument("--server", default="plain,gzip", help="plain, gzip or both (default plain,gzip)")
    parser.add_argument("--after", type=float, default=60.0, help="seconds watched after ready (default 60)")
    parser.add_argument("--site", type=Path, default=SITE)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    parser.add_argument("--name", default="network-latest", help="file name of the results, without suffix")
    args = parser.parse_args(argv)
    profiles = [p for p in args.profiles.split(",") if p]
    servers = [s for s in args.server.split(",") if s]
    unknown = [p for p in profiles if p not in PROFILES] + [s for s in servers if s not in ("plain", "gzip")]
    if unknown:
        parser.error(f"unknown profile or server: {', '.join(unknown)}")
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} is not a built site (make build)")
    # A private copy, with the bare page beside the site's files: a build during the run changes nothing here.
    root = Path(tempfile.mkdtemp()) / "site"
    shutil.copytree(args.site, root)
    shutil.copytree(REPO / "bench" / "bare", root / BARE)
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    meta = {"commit": commit, "date": time.strftime("%Y-%m-%d %H:%M"), "runs": args.runs, "site": str(args.site)}
    results = measure(root, servers, profiles, args.runs, args.after)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    text = report(results, meta)
    (args.out / f"{args.name}.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
