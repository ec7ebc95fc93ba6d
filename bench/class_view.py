"""The class view under load: every claimed pass of a class checked again on the class page of the real site.

    python -m bench.class_view [--engine chromium|firefox|webkit] [--learners 30] [--site site] [--out bench/results]
    python -m bench.class_view --ol [--learners 30] [--exercises E7.3,M06.3,M07.1,M07.6]

A class is made here: `--learners` exports, each claiming every exercise of the course passed with the reference
plus a line of its own (so no two learners' code is alike and nothing is answered from the page's cache of
results; a module's dependencies are the learner's own passes, as the page's rule takes them). A fresh browser
opens the class page of a copy of the built site (site/, `make build`), the files are handed to its file input
at once, and the clock runs from then until the page says every pass was checked again (`data-state="done"`):
the workers' cold start is in it. Meanwhile the page's main thread is watched: a 50 ms timer's lateness
(every engine), the longest task (Chromium's Long Tasks API), and in Chromium a key pressed every 2 s, whose
latency the Event Timing API measures (from the key press to the next frame; it reports those over 16 ms). A benchmark, never a test: it
asserts only that every pass held, since the code is the reference's.

`--ol` hands the same class to `ol class` instead (this checkout's, on the separated path, `--jobs 2`): the
clock runs from its start to its end, and its peak memory (its own and its checks', the largest of them:
getrusage's children) is reported with it; `--exercises` keeps only those exercises' claims (the ids, comma
separated; each keeps what it builds on).
"""
from __future__ import annotations

import argparse
import base64
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from authoring.serve import start_in_thread
from bench.run import ARGS
from course import manifest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from engines import Firefox, WebKit  # noqa: E402  (the engine matrix's drivers)

CLASS = "class/"
WATCH = """() => {
  const w = window.benchClass = { lags: [], longest: 0, events: [] };
  let last = performance.now();
  w.timer = setInterval(() => { const now = performance.now(); w.lags.push(Math.max(0, now - last - 50)); last = now; }, 50);
  const supported = PerformanceObserver.supportedEntryTypes || [];
  if (supported.includes('longtask')) {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) w.longest = Math.max(w.longest, e.duration); })
      .observe({ type: 'longtask' });
  } else w.longest = null;
  if (supported.includes('event')) {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) w.events.push(e.duration); })
      .observe({ type: 'event', durationThreshold: 16 });
  } else w.events = null;
  return true;
}"""
# The files are made into File objects first, apart, so that decoding them (the harness's work) is not measured.
PREPARE = """(files) => {
  const list = new DataTransfer();
  for (const [name, b64] of files) list.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
  window.benchFiles = list.files;
  return true;
}"""
ADD = """() => {
  const input = document.querySelector('input[type=file][data-class-files]');
  window.benchClass.t0 = performance.now();
  input.files = window.benchFiles;
  input.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
}"""
DONE = "() => document.querySelector('.tl-class').dataset.state === 'done' && performance.now() - window.benchClass.t0"
RESULT = """() => { clearInterval(window.benchClass.timer);
  const rows = document.querySelector('.tl-class').tlClass.rows;
  const verdicts = rows.flatMap((r) => Object.values(r.cells).map((c) => c.verdict));
  return { lags: window.benchClass.lags, longest: window.benchClass.longest, events: window.benchClass.events,
    workers: document.querySelector('.tl-class').tlClass.workers, learners: rows.length,
    passed: verdicts.filter((v) => v === 'passed').length, other: verdicts.filter((v) => v !== 'passed').length }; }"""


def class_files(count: int, only: set[str] | None = None) -> list[tuple[str, bytes]]:
    """`count` exports, each claiming every exercise passed (those of `only`, by id, when given) with the
    reference and a line of its own."""
    exercises = manifest.load_all()
    files = []
    for n in range(1, count + 1):
        data = {}
        for ex in exercises.values():
            if only and ex.id not in only:
                continue
            code = ex.reference.read_text(encoding="utf-8") + f"\n# learner {n:03d}\n"
            data[f"code:{ex.slug}"] = {"code": code, "at": 1796119200000 + n}
            data[f"result:{ex.slug}"] = {"status": "passed", "tests": [], "code": code, "at": 1796119200000 + n}
            data[f"help:{ex.slug}"] = {"hints": n % 3, "failed": n % 4}
        doc = {"format": "tinyllm-progress", "version": "v1", "saved": "2026-12-01T10:00:00Z", "course": "tinyllm",
               "build": "bench", "origin": "browser", "learner": f"Learner {n:03d}", "data": data}
        files.append((f"learner-{n:03d}.json", json.dumps(doc).encode()))
    return files


class Chromium:
    """Chromium through Playwright; presses a key every 2 s while it waits, for the Event Timing API to time."""

    def __init__(self, play):
        self.browser = play.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
        self.page = self.browser.new_context(viewport={"width": 1280, "height": 900}).new_page()

    def open(self, url: str) -> None:
        self.page.goto(url)

    def js(self, fn: str, *args):
        return self.page.evaluate(f"(args) => ({fn})(...args)", list(args))

    def wait(self, fn: str, timeout: float):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                found = self.js(fn)
            except Exception:  # noqa: BLE001 - a navigation (the page's one reload) destroyed the context
                found = None
            if found:
                return found
            self.page.keyboard.press("Shift")
            time.sleep(2)
        raise TimeoutError(f"waited {timeout:g} s for {fn}")

    def close(self) -> None:
        self.browser.close()


def measure(engine: str, play, url: str, files: list[tuple[str, bytes]], timeout: float) -> dict:
    load = os.getloadavg()[0]  # the machine is shared: how busy it was says how far to trust the times
    browser = Chromium(play) if engine == "chromium" else Firefox() if engine == "firefox" else WebKit()
    try:
        browser.open(url + CLASS)
        # A first visit reloads itself once the service worker takes it, to check apart (issue 52): the files are
        # handed over once the page says how it checks (an older build: at once).
        boundary = browser.wait("() => ['separated', 'single', 'refused'].includes(document.querySelector("
                                "'.tl-class')?.dataset.boundary) && document.querySelector('.tl-class').dataset.boundary",
                                timeout=120)
        if boundary == "refused":
            raise RuntimeError("the class page shows no verdicts here (no service worker)")
        browser.js(PREPARE, [[name, base64.b64encode(data).decode()] for name, data in files])
        time.sleep(1)
        browser.js(WATCH)
        browser.js(ADD)
        wall = browser.wait(DONE, timeout=timeout)
        got = browser.js(RESULT)
    finally:
        browser.close()
    lags = sorted(got["lags"]) or [0]
    return {"engine": engine, "path": boundary, "learners": got["learners"], "checks": got["passed"] + got["other"],
            "held": got["passed"], "workers": got["workers"], "wall_s": round(wall / 1000, 1),
            "lag_max_ms": round(lags[-1]), "lag_p95_ms": round(lags[int(0.95 * (len(lags) - 1))]),
            "longest_task_ms": None if got["longest"] is None else round(got["longest"]),
            "slowest_input_ms": round(max(got["events"], default=0)) if engine == "chromium" else None,
            "inputs": len(got["events"]) if engine == "chromium" else None,
            "load": round(max(load, os.getloadavg()[0]), 1)}


def measure_ol(files: list[tuple[str, bytes]], jobs: int = 2) -> dict:
    """`ol class` on the class: wall time, passes held, and the peak memory of it and its checks."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="tl-class-") as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        for name, data in files:
            (folder / name).write_bytes(data)
        script = ("import resource, subprocess, sys, time\nstart = time.monotonic()\n"
                  "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
                  "print(code, time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        run = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "ol", "class", str(folder), "--csv",
                              str(Path(tmp) / "class.csv"), "--jobs", str(jobs)], cwd=tmp, capture_output=True,
                             text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        code, wall, peak = run.stdout.split()
        rows = list(csv.DictReader(io.StringIO((Path(tmp) / "class.csv").read_text(encoding="utf-8-sig"))))
    verdicts = [v for r in rows for k, v in r.items() if k.endswith(" verdict") and v in ("passed", "not-reproduced")]
    return {"engine": "ol class", "path": "separated", "learners": len(rows), "checks": len(verdicts),
            "held": verdicts.count("passed"), "workers": jobs, "wall_s": round(float(wall), 1), "exit": int(code),
            "peak_mb": round(int(peak) / 1024), "lag_max_ms": None, "lag_p95_ms": None, "longest_task_ms": None,
            "slowest_input_ms": None, "inputs": None, "load": round(max(load, os.getloadavg()[0]), 1)}


def markdown(rows: list[dict]) -> str:
    def ms(v):
        return "—" if v is None else f"{v:,} ms"
    lines = ["| engine | path | learners | passes checked again (held) | workers | wall time | timer lateness max / "
             "p95 | longest task | slowest key press (presses over 16 ms) | machine load |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        inputs = "—" if r["slowest_input_ms"] is None else f"{r['slowest_input_ms']:,} ms ({r['inputs']})"
        lines.append(f"| {r['engine']} | {r.get('path', 'single')} | {r['learners']} | {r['checks']} ({r['held']}) | "
                     f"{r['workers']} | "
                     f"{r['wall_s']:,} s | {ms(r['lag_max_ms'])} / {ms(r['lag_p95_ms'])} | {ms(r['longest_task_ms'])} | "
                     f"{inputs} | {r.get('load', '—')} |")
    return "\n".join(lines) + (
        "\n\nThe real course's class page (site/), a fresh browser per row; wall time from handing the files to the "
        "page until every claimed pass was checked again, the workers' cold start included. Timer lateness: how "
        "late a 50 ms timer on the page's main thread fired; longest task: Chromium's Long Tasks API; key press: "
        "Event Timing's duration of a key pressed every 2 s while the checks ran, and how many took over 16 ms; "
        "machine load: the 1-minute load average (2 cores, shared with other work), the larger of before and "
        "after (bench/class_view.py).\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="append", choices=["chromium", "firefox", "webkit"])
    parser.add_argument("--learners", type=int, action="append", help="class sizes (default: 30)")
    parser.add_argument("--site", default=str(REPO / "site"))
    parser.add_argument("--out", default=str(REPO / "bench" / "results"))
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--isolate", action="store_true", help="serve with cross-origin isolation: the class page "
                        "then checks on the separated path (each learner's code in a worker of its own)")
    parser.add_argument("--label", default="", help="a name for the build measured, kept with its rows")
    parser.add_argument("--ol", action="store_true", help="time `ol class` on the class instead of a browser")
    parser.add_argument("--exercises", help="only these exercises' claims (ids, comma separated)")
    args = parser.parse_args()
    if args.ol:
        only = set(args.exercises.split(",")) if args.exercises else None
        for size in args.learners or [30]:
            row = measure_ol(class_files(size, only))
            print(json.dumps(row))
        return 0
    root = Path(tempfile.mkdtemp()) / "site"
    shutil.copytree(Path(args.site), root)
    server, url = start_in_thread(root, isolate=args.isolate)
    out = Path(args.out)
    path = out / "class-latest.json"
    table = json.loads(path.read_text()) if path.is_file() else {}
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as play:
            for engine in args.engine or ["chromium"]:
                for size in args.learners or [30]:
                    row = measure(engine, play, url, class_files(size), args.timeout)
                    if args.label:
                        row["path"] += f" ({args.label})"
                    print(json.dumps(row), file=sys.stderr)
                    table[f"{engine}-{size}-{row['path']}"] = row
    finally:
        server.shutdown()
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(table, indent=1) + "\n")
    rows = sorted(table.values(), key=lambda r: (r["learners"], ["chromium", "firefox", "webkit"].index(r["engine"])))
    (out / "class-latest.md").write_text(markdown(rows))
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
