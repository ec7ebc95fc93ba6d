"""Where a page's main thread goes while it loads on a phone: its long tasks, and what each one spent its time on.

    python -m bench.long_tasks [--site site] [--only PATH ...] [--cpu 4] [--seconds 8] [--runs 1]

Lighthouse (bench/pages.py) says how much the main thread was blocked; this says by what. Each page is opened in
a fresh Debian Chromium at a phone's size (390 px, touch), the CPU slowed `--cpu` times by DevTools (as
Lighthouse's mobile profile simulates it), the site served compressed (bench/network.py's gzip server). The page's
trace is recorded for `--seconds` after the load starts, and every task of the page's main thread longer than
50 ms is printed with its share of blocking time (its length past 50 ms, what Lighthouse's TBT adds up after the
first paint) and the work inside it: style, layout, paint, HTML parsing, script (by file), garbage collection.

The times are real (throttled), not simulated as Lighthouse's are, so they run higher than Lighthouse's; compare
pages and builds within one run, never against Lighthouse's figures. A benchmark: nothing is asserted.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import defaultdict
from pathlib import Path

from bench.engines import PHONE
from bench.pages import chosen_pages, serve_all
from bench.run import ARGS

CATEGORIES = "devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,blink.user_timing,loading"
# What a task's time is put down to: the trace's event names, grouped as DevTools groups them.
WORK = {
    "UpdateLayoutTree": "style", "RecalculateStyles": "style", "Layout": "layout", "PrePaint": "paint",
    "Paint": "paint", "Layerize": "paint", "UpdateLayer": "paint", "CompositeLayers": "paint",
    "ParseHTML": "parse HTML", "ParseAuthorStyleSheet": "parse CSS", "MajorGC": "GC", "MinorGC": "GC",
    "V8.GC_SCAVENGER": "GC", "BlinkGC.AtomicPhase": "GC", "v8.compile": "compile", "v8.compileModule": "compile",
}
SCRIPT = {"EvaluateScript", "v8.evaluateModule", "FunctionCall", "TimerFire", "EventDispatch", "FireAnimationFrame",
          "FireIdleCallback", "RunMicrotasks", "v8.run"}


def main_thread(events: list[dict], url: str) -> tuple[int, int] | None:
    """(pid, tid) of the renderer's main thread that loaded `url`."""
    names = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
             and e.get("args", {}).get("name") == "CrRendererMain"}
    for e in events:
        args = e.get("args", {})
        data = args.get("data") or args.get("beginData") or {}
        if e.get("name") == "ParseHTML" and str(data.get("url", "")).startswith(url) and (e["pid"], e["tid"]) in names:
            return e["pid"], e["tid"]
    return None


def exclusive(children: list[dict]) -> dict[str, float]:
    """Each event's own time (its length less that of the events inside it), by kind of work, in ms."""
    out: dict[str, float] = defaultdict(float)
    stack: list[dict] = []
    own: dict[int, float] = {}
    for e in sorted(children, key=lambda e: (e["ts"], -e.get("dur", 0))):
        while stack and stack[-1]["ts"] + stack[-1].get("dur", 0) <= e["ts"]:
            stack.pop()
        if stack:
            own[id(stack[-1])] -= e.get("dur", 0)
        own[id(e)] = e.get("dur", 0)
        stack.append(e)
    for e in children:
        out[kind(e)] += own[id(e)] / 1000
    return out


def kind(e: dict) -> str:
    name = e["name"]
    if name in WORK:
        return WORK[name]
    if name in SCRIPT:
        data = e.get("args", {}).get("data", {})
        source = str(data.get("url") or data.get("scriptName") or "")
        return "script " + (source.rsplit("/", 1)[-1].split("?")[0] or "(page)") if source else "script"
    return "other"


def long_tasks(trace: dict, url: str) -> tuple[list[dict], float | None]:
    """The main thread's tasks over 50 ms, each with its start (ms after navigation), length and work; and the first
    contentful paint (ms), if the trace has it."""
    events = trace["traceEvents"]
    thread = main_thread(events, url)
    if thread is None:
        raise SystemExit(f"no main thread parsed {url} in the trace")
    mine = [e for e in events if (e.get("pid"), e.get("tid")) == thread and e.get("ph") == "X"]
    start = min((e["ts"] for e in events if e.get("name") in ("navigationStart", "ParseHTML")
                 and (e.get("pid"), e.get("tid")) == thread), default=min(e["ts"] for e in mine))
    fcp = next((e["ts"] for e in events if e.get("name") == "firstContentfulPaint"
                and e.get("pid") == thread[0]), None)
    tasks = [e for e in mine if e["name"] in ("RunTask", "ThreadControllerImpl::RunTask") and e.get("dur", 0) > 50_000]
    found = []
    for task in tasks:
        end = task["ts"] + task["dur"]
        inside = [e for e in mine if e is not task and task["ts"] <= e["ts"] < end
                  and e["name"] not in ("RunTask", "ThreadControllerImpl::RunTask")]
        work = exclusive(inside)
        work["other"] = work.get("other", 0) + (task["dur"] / 1000 - sum(work.values()))
        found.append({"at": (task["ts"] - start) / 1000, "ms": task["dur"] / 1000, "work": dict(work)})
    return found, (fcp - start) / 1000 if fcp else None


def record(play, url: str, cpu: float, seconds: float, block: list[str] = ()) -> dict:
    browser = play.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
    try:
        context = browser.new_context(viewport=PHONE["viewport"], device_scale_factor=3, is_mobile=True,
                                      has_touch=True)
        for pattern in block:  # what the page would be without them (an experiment: the page's script, say)
            context.route(pattern, lambda route: route.abort())
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": cpu})
        browser.start_tracing(page=page, categories=CATEGORIES.split(","))
        page.goto(url, wait_until="load")
        page.wait_for_timeout(seconds * 1000)
        return json.loads(browser.stop_tracing())
    finally:
        browser.close()


def summary(tasks: list[dict], fcp: float | None) -> str:
    blocking = sum(t["ms"] - 50 for t in tasks if fcp is None or t["at"] >= fcp)
    lines = [f"first contentful paint {fcp:,.0f} ms; {len(tasks)} long tasks; blocking time after it "
             f"{blocking:,.0f} ms" if fcp is not None else f"{len(tasks)} long tasks; blocking {blocking:,.0f} ms", "",
             "| starts (ms) | task (ms) | its work (ms, largest first) |", "|---:|---:|---|"]
    for t in tasks:
        work = ", ".join(f"{k} {v:,.0f}" for k, v in sorted(t["work"].items(), key=lambda kv: -kv[1]) if v >= 5)
        lines.append(f"| {t['at']:,.0f} | {t['ms']:,.0f} | {work} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=Path("site"))
    parser.add_argument("--only", nargs="*", default=[], help="page paths (e7/rejection-correction/); default: the "
                        "largest page of each kind")
    parser.add_argument("--cpu", type=float, default=PHONE["cpu"], help="CPU slow-down (default: bench.engines' "
                        "phone's, Lighthouse's mobile one)")
    parser.add_argument("--seconds", type=float, default=8.0, help="how long after the load starts to record")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--block", nargs="*", default=[], help="address patterns the page is refused (**/tl.js)")
    parser.add_argument("--brief", action="store_true", help="one line a run, without the tasks")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    urls, servers = serve_all({"site": args.site})
    try:
        with sync_playwright() as play:
            for described, path in chosen_pages(args.site, args.only):
                for n in range(args.runs):
                    url = urls["site"] + path
                    tasks, fcp = long_tasks(record(play, url, args.cpu, args.seconds, args.block), url)
                    if args.brief:
                        print(f"/{path} run {n + 1}: " + summary(tasks, fcp).splitlines()[0], flush=True)
                        continue
                    print(f"## /{path} ({described}), run {n + 1}, CPU slowed {args.cpu:g}×\n")
                    print(summary(tasks, fcp) + "\n", flush=True)
    finally:
        for server in servers:
            server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
