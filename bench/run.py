"""Start-up and run-time benchmark: the built site against a bare Pyodide page, in the same run.

    python -m bench.run [--runs 5] [--out bench/results]

Drives Debian's headless Chromium against the built site on 127.0.0.1. Every figure is the median of several
fresh-browser runs and is also printed as a ratio to the bare page (bench/bare/: one worker loading Pyodide,
numpy and pytest the plain way, from the same files), so the numbers hold on a noisy machine. Results are
written to bench/results/latest.json and latest.md.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from authoring.serve import Handler, start_in_thread

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "site"
ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--disable-quic", "--disable-gpu"]
LESSON, MODULE = "e7/rejection-correction/", "m07/rejection-sampling/"
# A code cell mounts as the reader nears it (web/src/page/widgets.js mountWhenNear), so the benchmarks scroll to
# one first, as a reader would. Declares `near(cell)` (scrolls to a cell still waiting, returns it), `mounted(cell)`
# (awaits its `tlCell`: a learner who pastes the moment the cell is there) and `arrived(cell)` (scrolls to the cell
# in any build, awaits its `tlCell` and then its editor's hand-over to CodeMirror, which starts once the editor is
# near the viewport, for up to 5 s: a learner who has reached the cell and then checks; the Check is timed after
# it, so that it is the Check's own time in every build), for the page functions below and in bench/engines.py and
# bench/network.py.
NEAR_CELL = """
    const near = (cell) => { if (cell && cell.tlLater) cell.scrollIntoView({ block: "center" }); return cell; };
    const mounted = async (cell) => {
        near(cell);
        while (!cell.tlCell) await new Promise((resolve) => requestAnimationFrame(resolve));
    };
    const arrived = async (cell) => {
        cell.scrollIntoView({ block: "center" });
        await mounted(cell);
        const upgraded = cell.tlCell.editor && cell.tlCell.editor.upgraded;
        if (upgraded) await Promise.race([upgraded, new Promise((resolve) => setTimeout(resolve, 5000))]);
    };
"""
# Records when the first code cell reports each Python stage, on the page's clock. Reading the DOM rather than
# the worker client keeps the benchmark usable on older builds of the site too (for before/after tables).
STAGE_WATCH = """
window.benchStages = {};
new MutationObserver(() => {
    const cell = document.querySelector('.tl-cell[data-python]');
    const stage = cell && cell.dataset.python;
    if (stage && !(stage in window.benchStages)) window.benchStages[stage] = performance.now();
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-python'], childList: true});
// A build whose cells mount only as the reader nears them (issue 51) shows a stage on no cell until then: its
// worker client's timeline has each stage's first time, on the same clock.
const timelineWatch = setInterval(() => {
    const timeline = window.tinyllm && window.tinyllm.python && window.tinyllm.python.timeline;
    for (const stage of ['python', 'numpy', 'pytest']) {
        if (timeline && timeline[stage] && !(stage in window.benchStages)) window.benchStages[stage] = timeline[stage];
    }
    if (window.benchStages.pytest) clearInterval(timelineWatch);
}, 50);
"""
# The stage at which Check works: "pytest" (called "judge" in builds before issue 24, which the before/after tables
# of bench/versions.py still measure).
READY = "() => window.benchStages && (window.benchStages.pytest || window.benchStages.judge)"
GRADE = "window.benchStages.pytest || window.benchStages.judge"


class Counter:
    """Bytes the server sent, by everyone, since the last reset."""

    def __init__(self):
        self.bytes = 0
        self.lock = threading.Lock()

    def add(self, n: int) -> None:
        with self.lock:
            self.bytes += n

    def take(self) -> int:
        with self.lock:
            n, self.bytes = self.bytes, 0
            return n


def serve(root: Path, isolate: bool, counter: Counter):
    class Counting(Handler):
        def copyfile(self, source, outputfile):
            start = source.tell()
            super().copyfile(source, outputfile)
            counter.add(source.tell() - start)

    return start_in_thread(root, isolate, base=Counting)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def reference(slug: str) -> str:
    from course import manifest
    return manifest.load(manifest.EXERCISES / slug).reference.read_text()


def set_code_and_check(page, slug: str, code: str) -> tuple[float, float | None]:
    """Put `code` in the cell and press Check. Returns the ms until the result is shown (page clock) and how
    long the hidden tests' bodies ran, as the judge measured them (None from a build that does not say)."""
    return tuple(page.evaluate("""async ([slug, code]) => {""" + NEAR_CELL + """
        const cell = document.querySelector(`.tl-cell[data-exercise='${slug}']`);
        await arrived(cell);
        cell.tlCell.editor.setCode(code);
        let durations = null;
        const seen = (e) => { if (e.detail.slug === slug) durations = e.detail.result.durations || null; };
        document.addEventListener("tl:result", seen);
        const t0 = performance.now();
        await cell.tlCell.check();
        const ms = performance.now() - t0;
        document.removeEventListener("tl:result", seen);
        return [ms, durations ? Object.values(durations).reduce((a, b) => a + b, 0) : null];
    }""", [slug, code]))


PLOT = "import matplotlib.pyplot as plt\nplt.plot([0, 1, 2], [0, 1, 4])\nplt.title('bench')\nplt.show()\n"

# The first plot of a page fetches matplotlib (~10 MB, loaded only when code imports it) and imports it; the second
# is the cost of drawing alone. Both as a cell's Run sends them, timed from the request to its result.
FIRST_PLOT = """async (code) => {
    const py = window.tinyllm.python;
    const plot = async () => {
        const t0 = performance.now();
        const r = await py.request('run', {code, filename: 'plot.py', files: {}}, {timeLimit: 120});
        if (r.status !== 'ok' || !(r.figures || []).some((f) => f.kind === 'image')) {
            throw new Error(`the plot failed: ${r.status} ${r.traceback}`);
        }
        return performance.now() - t0;
    };
    return [await plot(), await plot()];
}"""


# The console and the trace (issue 26), in a settled page, straight through the worker client as the console sends
# them: a Run of M07.6's reference (with M07.1's from its bundle), then ten `1 + 1` round trips (median), the time
# until the first step of a traced residual_distribution on 4 ids reaches the page, and a 10,000-step loop traced
# until the cap stops it. A build without the console (before issue 26) gives nulls.
EXPLORE = """async ([code, base]) => {
    const py = window.tinyllm.python;
    const bundle = async (slug) => (await fetch(new URL(`assets/tl/exercises/${slug}.json`, base))).json();
    const [own, dep] = await Promise.all([bundle('m07-6'), bundle('m07-1')]);
    const files = {[dep.importPath]: dep.reference};
    // A 10,000-step loop in the learner's file (only that file's lines are traced), beside the reference.
    const spin = '\\n\\ndef spin(n):\\n    t = 0\\n    for i in range(n):\\n        t += i\\n    return t\\n';
    const ran = await py.request('run', {code: code + spin, filename: own.importPath, files, run: 9001});
    if (ran.status !== 'ok') throw new Error(`the run failed: ${ran.traceback}`);
    const ask = (kind, code, opts = {}) => py.request('explore', {kind, code, run: 9001, filename: own.importPath,
                                                                  files}, {timeLimit: 60, ...opts});
    const trips = [];
    for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        const r = await ask('eval', '1 + 1');
        if (r.status !== 'ok' || r.stdout !== '2\\n') return null;
        trips.push(performance.now() - t0);
    }
    trips.sort((a, b) => a - b);
    let first = null;
    const t0 = performance.now();
    const traced = await ask('trace', 'residual_distribution([0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1])',
                             {onSteps: () => { first ??= performance.now() - t0; }});
    const whole = performance.now() - t0;
    const t1 = performance.now();
    const loop = await ask('trace', 'spin(10_000)');
    return {console_round_trip: trips[5], trace_first_step: first, trace_whole: whole,
            trace_steps: (traced.steps || []).length, trace_cap_loop: performance.now() - t1,
            trace_cap_cut: loop.cut === true};
}"""


def one_run(play, url: str, counter: Counter, check_module: bool) -> dict:
    """One fresh browser: bare page, then the site (cold, then a repeat visit), then the warm figures."""
    out: dict = {}
    for name, path in (("bare", "bench/bare/"), ("site", LESSON)):
        browser = play.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
        context = browser.new_context()
        context.add_init_script(STAGE_WATCH)
        page = context.new_page()
        counter.take()
        page.goto(url + path)
        if name == "bare":
            page.wait_for_function("() => window.benchDone", timeout=120_000)
            marks = page.evaluate("window.benchDone")
            if "failed" in marks:
                raise RuntimeError(f"the bare page failed: {page.inner_text('#log')}")
            out["bare"] = {"python": marks.get("python"), "numpy": marks.get("numpy"), "grade": marks.get("pytest"),
                           "bytes_cold": counter.take()}
            page.goto(url + path)
            page.wait_for_function("() => window.benchDone", timeout=120_000)
            out["bare"]["bytes_repeat"] = counter.take()
            out["bare"]["grade_repeat"] = page.evaluate("window.benchDone.pytest")
            page.evaluate("() => window.benchWorker.postMessage({code: 'x = 1'})")
            runs = []
            for _ in range(10):
                page.evaluate("() => { window.benchRun = null; window.benchWorker.postMessage({code: 'x = 1'}); }")
                page.wait_for_function("() => window.benchRun")
                runs.append(page.evaluate("window.benchRun.ms"))
            out["bare"]["warm_run"] = median(runs)
        else:
            page.wait_for_function(READY, timeout=120_000)
            t = page.evaluate("window.benchStages")
            site = {"python": t.get("python"), "numpy": t.get("numpy"), "grade": t.get("pytest") or t.get("judge"),
                    "bytes_cold": counter.take()}
            # Warm figures in the learner's steady state: after the first check the spare worker warms up and the
            # service worker precaches the site; both compete for the CPU, so let them finish first.
            site["first_check_e7_3_after_ready"] = set_code_and_check(page, "e7-3", reference("e7-3"))[0]
            page.wait_for_timeout(12_000)
            site["warm_run"] = page.evaluate("""async () => {
                const times = [];
                for (let i = 0; i < 20; i++) {
                    const t0 = performance.now();
                    await window.tinyllm.python.request('run', {code: 'x = 1', filename: 'a.py', files: {}});
                    times.push(performance.now() - t0);
                }
                times.sort((a, b) => a - b);
                return times[10];
            }""")
            site["warm_suite_e7_3"], site["bodies_e7_3"] = set_code_and_check(page, "e7-3", reference("e7-3"))
            page.wait_for_timeout(3000)  # let the service worker finish precaching
            counter.take()
            page.goto(url + LESSON)
            page.wait_for_function(READY, timeout=120_000)
            site["grade_repeat"] = page.evaluate(GRADE)
            site["bytes_repeat"] = counter.take()
            out["site"] = site
        browser.close()
    # First Check after reading for 10 s, on a fresh browser (E7.3, and M07.6 with reference dependencies).
    for slug, path in (("e7-3", LESSON), ("m07-6", MODULE)) if check_module else (("e7-3", LESSON),):
        browser = play.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
        page = browser.new_context().new_page()
        page.goto(url + path)
        if slug == "m07-6":
            page.evaluate("() => localStorage.setItem('tinyllm:v1:prefs:m07-6', JSON.stringify({refDeps: true}))")
        page.wait_for_timeout(10_000)
        out["site"][f"first_check_{slug.replace('-', '_')}_after_10s"] = set_code_and_check(page, slug, reference(slug))[0]
        if slug == "e7-3":
            out["site"]["first_plot"], out["site"]["warm_plot"] = page.evaluate(FIRST_PLOT, PLOT)
        if slug == "m07-6":  # E7.3's warm suite is measured above, in a settled page
            page.wait_for_timeout(12_000)
            out["site"]["warm_suite_m07_6"], out["site"]["bodies_m07_6"] = set_code_and_check(page, slug, reference(slug))
            try:
                out["site"].update(page.evaluate(EXPLORE, [reference(slug), url]) or {})
            except Exception as exc:  # noqa: BLE001 - an older build without the console: no figures
                print(f"no console figures: {str(exc).splitlines()[0]}", file=sys.stderr)
        browser.close()
    return out


def stop_to_ready(play, url: str, isolated: bool) -> float:
    """ms from pressing Stop on `while True: pass` until a one-line run has completed."""
    browser = play.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
    context = browser.new_context()
    context.add_init_script(STAGE_WATCH)
    page = context.new_page()
    page.goto(url + LESSON)
    page.wait_for_function(READY, timeout=120_000)
    page.evaluate("() => window.tinyllm.python.request('run', {code: 'x = 1', filename: 'a.py', files: {}})")
    page.wait_for_timeout(8000)  # the spare worker warms up once code has run
    ms = page.evaluate("""async () => {
        const py = window.tinyllm.python;
        const loop = py.request('run', {code: 'while True:\\n    pass', filename: 'a.py', files: {}});
        await new Promise((r) => setTimeout(r, 1000));
        const t0 = performance.now();
        py.stop();
        await loop;
        await py.request('run', {code: 'x = 1', filename: 'a.py', files: {}});
        return performance.now() - t0;
    }""")
    browser.close()
    return ms


def cpython_suite(site: Path, slug: str, runs: int = 5) -> tuple[float, float]:
    """(whole check, test bodies) in ms, medians of `runs` warm checks of the reference, on this machine's CPython,
    in-process, as `ol` runs them: the floor under the browser's warm figures (what the hidden suite itself
    costs), measured from the same bundles."""
    from checker import judge
    def load(name: str) -> dict:
        return json.loads((site / "assets" / "tl" / "exercises" / f"{name}.json").read_text())

    bundle = load(slug)
    files = {d["importPath"]: d["reference"] for d in map(load, bundle["requires"])}
    files[bundle["importPath"]] = bundle["reference"]
    totals, bodies = [], []
    for i in range(runs + 1):  # the first one warms up, as the browser's warm figures are taken after a check
        with tempfile.TemporaryDirectory() as workdir:
            t0 = time.perf_counter()
            result = judge.check(tests=bundle["tests"], files=files, learner=bundle["importPath"], workdir=workdir,
                                 names=bundle["names"])
            elapsed = (time.perf_counter() - t0) * 1000
        if result["status"] != "passed":
            raise RuntimeError(f"{slug}: the reference did not pass on CPython: {result['status']}")
        if i:
            totals.append(elapsed)
            bodies.append(sum(result.get("durations", {}).values()))
    return median(totals), median(bodies)


def build_time() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir",
                    tempfile.mkdtemp()], cwd=REPO, check=True, capture_output=True)
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", default=str(REPO / "bench" / "results"))
    parser.add_argument("--site", default=str(SITE), help="the built site to measure (default: site/)")
    parser.add_argument("--no-build-time", action="store_true", help="skip timing a build of this checkout")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp()) / "site"
    shutil.copytree(Path(args.site), root)
    shutil.copytree(REPO / "bench" / "bare", root / "bench" / "bare")
    counter = Counter()
    plain, url = serve(root, False, counter)
    isolated, iso_url = serve(root, True, Counter())
    runs, stops = [], {"plain": [], "isolated": []}
    with sync_playwright() as play:
        for i in range(args.runs):
            runs.append(one_run(play, url, counter, check_module=True))
            stops["plain"].append(stop_to_ready(play, url, False))
            stops["isolated"].append(stop_to_ready(play, iso_url, True))
            print(f"run {i + 1}/{args.runs} done", file=sys.stderr)
    plain.shutdown()
    isolated.shutdown()
    floor = {slug: cpython_suite(root, slug) for slug in ("e7-3", "m07-6")}
    report(runs, stops, None if args.no_build_time else build_time(), Path(args.out), floor)
    return 0


def report(runs: list[dict], stops: dict, build_ms: float, out: Path, floor: dict | None = None) -> None:
    bare = {k: median([r["bare"].get(k) for r in runs]) for k in runs[0]["bare"]}
    site = {k: median([r["site"].get(k) for r in runs]) for k in runs[0]["site"]}

    def spread(key: str | None) -> str:
        """The lowest and highest of the per-run ratios of a figure both pages have: how far one run's ratio
        strays from the ratio of the medians."""
        ratios = [r["site"][key] / r["bare"][key] for r in runs
                  if key and r["site"].get(key) is not None and r["bare"].get(key)]
        return f"{min(ratios):.3g}–{max(ratios):.3g}×" if len(ratios) > 1 else "—"

    def both(name: str, key: str) -> tuple:
        """A start-up figure the bare page has too: compared by the same key, with its per-run ratios."""
        return name, "ms", site[key], bare[key], key

    grade = bare["grade"]  # the yardstick for figures the bare page has no counterpart of
    rows = [
        both("navigation → Python ready", "python"),
        both("navigation → numpy ready", "numpy"),
        both("navigation → ready to grade", "grade"),
        both("repeat visit → ready to grade", "grade_repeat"),
        ("first Check E7.3 (after 10 s reading)", "ms", site["first_check_e7_3_after_10s"], grade, None),
        ("first Check M07.6 (after 10 s reading)", "ms", site["first_check_m07_6_after_10s"], grade, None),
        ("first plot after that Check (loads matplotlib)", "ms", site.get("first_plot"), grade, None),
        ("warm plot (one figure drawn)", "ms", site.get("warm_plot"), grade, None),
        ("warm trivial run (round trip)", "ms", site["warm_run"], grade, None),
        ("warm hidden suite E7.3", "ms", site["warm_suite_e7_3"], grade, None),
        ("warm hidden suite M07.6", "ms", site["warm_suite_m07_6"], grade, None),
        ("console: `1 + 1` after a Run (round trip, warm)", "ms", site.get("console_round_trip"), grade, None),
        ("trace residual_distribution, 4 ids: first step shown", "ms", site.get("trace_first_step"), grade, None),
        ("… the whole trace", "ms", site.get("trace_whole"), grade, None),
        ("trace a 10,000-step loop until the cap (1000 steps) stops it", "ms", site.get("trace_cap_loop"), grade, None),
        ("… of which the test bodies, E7.3", "ms", site.get("bodies_e7_3"), grade, None),
        ("… of which the test bodies, M07.6", "ms", site.get("bodies_m07_6"), grade, None),
        *((f"warm hidden suite {name} on this machine's CPython, in-process (the floor; bodies "
           f"{floor[slug][1]:,.1f} ms)", "ms", floor[slug][0], grade, None)
          for slug, name in (("e7-3", "E7.3"), ("m07-6", "M07.6")) if floor and slug in floor),
        ("Stop → ready, not isolated", "ms", median(stops["plain"]), grade, None),
        ("Stop → ready, isolated", "ms", median(stops["isolated"]), grade, None),
        ("bytes, cold load", "bytes", site["bytes_cold"], bare["bytes_cold"], None),
        ("bytes, repeat visit", "bytes", site["bytes_repeat"], bare["bytes_repeat"], None),
        ("site build (mkdocs, validation and snapshot cached)", "ms", build_ms, None, None),
    ]
    lines = ["| figure | site | bare page | ratio | per-run ratios |", "|---|---:|---:|---:|---:|"]
    for name, unit, mine, theirs, key in rows:
        ratio = f"{mine / theirs:.3g}×" if mine is not None and theirs else "—"
        fmt = (lambda v: f"{v:,.0f} B") if unit == "bytes" else (lambda v: f"{v:,.1f} ms")
        lines.append(f"| {name} | {fmt(mine) if mine is not None else '—'} | "
                     f"{fmt(theirs) if theirs is not None else '—'} | {ratio} | {spread(key)} |")
    note = (f"Median of {len(runs)} fresh-browser runs; ratios are to the bare page's figure of the same name, "
            f"or to the bare page's ready-to-grade time for figures it has no counterpart of. The last column is "
            f"the range of the ratios of single runs (site and bare page measured in the same run): most of it is "
            f"the bare page's own spread.")
    text = "\n".join(lines) + "\n\n" + note + "\n"
    print(text)
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.md").write_text(text)
    (out / "latest.json").write_text(json.dumps({"runs": runs, "stops": stops, "build_ms": build_ms, "cpython": floor,
                                                 "median": {"site": site, "bare": bare}}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
