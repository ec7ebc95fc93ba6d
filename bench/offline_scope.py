"""What a first visit downloads in the background for the offline copy (issue 34), measured in Chromium.

    python -m bench.offline_scope measure --site DIR [--exercises DIR] --label TEXT [--pages URL ...]
    python -m bench.offline_scope course [--count 100] --keep DIR [--platform DIR] [--label TEXT]

`measure` serves a built site on 127.0.0.1 and, for each page (by default a lesson and a module that builds on
others, from the middle of the site's exercise index), opens it twice, each time in a fresh Chromium with an
empty profile on disk:

1. with service workers blocked: what the page itself needs (the page, its scripts, Python, the bundle of the
   warm-up check, the search index), until the line has been quiet for a few seconds after Python is ready;
2. as a learner's first visit: the same, then the offline copy's idle-time fill, until the service worker says
   the copy holds what the visit saves (the page's scope since issue 34; the whole site before it) and the line
   has been quiet.

The first visit's background download is what the server sent in the second visit for files the first did not
ask for (each file counts once: the copy downloads no file twice, and the figures list any that was). With the
course's exercise folder (`--exercises`), those files are told apart by tools/offline.py's groups, computed for
that site whatever its sw.js holds, so a build from before issue 34 is sorted the same way: the platform, the
page's unit (its chapter or module with what it builds on) and the rest (other units, pages of no unit, optional
packages no unit imports, `ol`'s package index). Each run adds or replaces its label's rows in
`bench/results/offline-scope-latest.json` and rewrites the Markdown report next to it.

`course` generates a course of N exercises as bench/course.py does (a copy of the platform, `--platform` or this
checkout frozen), builds it with a validation cache of its own under `--keep`, and measures it: the N = 100
figure. A build from before issue 34 is measured the same way with `--platform` set to a checkout of that commit
(its front end bundled: `make bundle` there). A benchmark: nothing is asserted.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench import course as course_bench
from bench.network import QUIET_S, Log, handler
from bench.run import ARGS, READY, STAGE_WATCH
from authoring.serve import start_in_thread
from tools import offline

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "results" / "offline-scope-latest.md"
CAP_S = 240  # at most this long for one visit
PACKAGES = ("course", "ol", "authoring")  # what bench/course.py's freeze may leave out, and the build needs


def chromium() -> str:
    return shutil.which("chromium") or "/usr/bin/chromium"


def default_pages(site: Path) -> list[str]:
    """A lesson and a module with requirements, each the middle one of its kind in the exercise index."""
    index = json.loads((site / offline.BUNDLES / "index.json").read_text(encoding="utf-8"))
    lessons = [e for e in index if e["kind"] == "lesson"]
    modules = [e for e in index if e["kind"] == "module" and e["requires"]] or \
              [e for e in index if e["kind"] == "module"]
    return [offline.page_url(kind[len(kind) // 2]["page"]) for kind in (lessons, modules) if kind]


SW_STATUS = """(page) => new Promise((resolve) => {
    const sw = navigator.serviceWorker;
    if (!sw || !sw.controller) return resolve(null);
    const timer = setTimeout(() => resolve(null), 1000);
    sw.addEventListener('message', function once(e) {
        if (!e.data || e.data.type !== 'tl-sw-status') return;
        sw.removeEventListener('message', once); clearTimeout(timer); resolve(e.data);
    });
    sw.controller.postMessage({type: 'tl-sw-status', page});
})"""


def _copy_holds_the_visit(page) -> bool:
    status = page.evaluate(SW_STATUS, page.url)
    if not status or status.get("filling"):
        return False
    return bool(status["pageSaved"]) if "pageSaved" in status else status["cached"] >= status["total"]


def visit(play, url: str, log: Log, with_sw: bool) -> dict[str, int]:
    """Open `url` in a fresh browser; {path: bytes} of every 200 the server sent until the visit was over."""
    profile = tempfile.mkdtemp(prefix="tl-scope-profile-")
    context = play.chromium.launch_persistent_context(profile, executable_path=chromium(), args=ARGS,
                                                      service_workers="allow" if with_sw else "block")
    try:
        context.add_init_script(STAGE_WATCH)
        # Python restores the snapshot whatever the line's meter reads (a loaded machine may read slow and start
        # cold): both visits alike.
        context.add_init_script("localStorage.setItem('tl-start', 'snapshot')")
        page = context.pages[0] if context.pages else context.new_page()
        log.take()
        page.goto(url)
        has_cells = page.evaluate("() => document.querySelector('.tl-cell') !== null")
        if has_cells:
            page.wait_for_function(READY, timeout=CAP_S * 1000)
        started = time.time()
        while time.time() - started < CAP_S:
            time.sleep(1.0)
            quiet = time.time() - max(log.last_byte, started) > QUIET_S
            if quiet and (not with_sw or _copy_holds_the_visit(page)):
                break
        else:
            print(f"  {url}: not over after {CAP_S} s", file=sys.stderr)
        sent: dict[str, int] = {}
        twice = []
        for entry in log.take():
            if entry.status != 200:
                continue
            if entry.path in sent:
                twice.append(entry.path)
            sent[entry.path] = sent.get(entry.path, 0) + entry.bytes
        return {"sent": sent, "twice": sorted(set(twice))}
    finally:
        context.close()
        shutil.rmtree(profile, ignore_errors=True)


def _group_of(groups: offline.Groups | None, page: str):
    """path -> "platform" | "unit" | "other units and the rest", for the page's scope in `groups`."""
    if groups is None:
        return lambda _path: "unknown"
    platform = set(groups.platform)
    mine = set(next((u.files for u in groups.units if page in u.pages), ()))

    def group(path: str) -> str:
        url = path.lstrip("/")
        if url == "sw.js":
            return "platform"  # the service worker itself, which the build lists in no group
        return "platform" if url in platform else "unit" if url in mine or url == page else "rest"

    return group


def measure_site(site: Path, exercises: Path | None, pages: list[str], log_line=print) -> list[dict]:
    """One row per page: what the page needs, what its first visit downloads in the background, by group."""
    files, _version = offline.precache_list(site)
    urls = [url for url, _hash in files]
    groups = offline.groups(site, urls, exercises) if exercises else None
    whole = offline.precache(site)["bytes"]
    optional = {f"/assets/pyodide/{name}" for package in offline._optional_packages(site) for name in package.files}
    log = Log()
    server, base = start_in_thread(site, base=handler(log, compress=False))
    rows = []
    try:
        with sync_playwright() as play:
            for page in pages:
                own = visit(play, base + page, log, with_sw=False)
                first = visit(play, base + page, log, with_sw=True)
                background = {p: n for p, n in first["sent"].items() if p not in own["sent"]}
                group = _group_of(groups, page)
                by_group: dict[str, int] = {}
                for path, n in background.items():
                    by_group[group(path)] = by_group.get(group(path), 0) + n
                rest = sorted(path for path in background if group(path) == "rest")
                largest = sorted(background, key=lambda p: -background[p])[:8]
                row = {"page": page, "page_bytes": sum(own["sent"].values()), "page_files": len(own["sent"]),
                       "rest_files": rest if len(rest) <= 20 else rest[:20] + [f"... {len(rest) - 20} more"],
                       "largest": {p: background[p] for p in largest},
                       "background_bytes": sum(background.values()), "background_files": len(background),
                       "by_group": by_group, "whole_course_bytes": whole, "sent_twice": first["twice"],
                       "optional_bytes": sum(n for path, n in background.items() if path in optional),
                       "background": background,
                       "first_visit_bytes": sum(first["sent"].values())}
                log_line(f"  {page}: page {row['page_bytes']:,} B, background {row['background_bytes']:,} B "
                         f"({row['background_files']} files) {by_group}")
                rows.append(row)
    finally:
        server.shutdown()
        server.server_close()
    return rows


def _mb(n: int) -> str:
    return f"{n / 1e6:.2f} MB"


def report(results: dict) -> str:
    lines = ["# A first visit's background download for the offline copy", "",
             "`python -m bench.offline_scope` (bench/README.md, \"The offline copy's scope\"). Target at N = 100 "
             "(issue 34): beyond what the page needs, at most the pages of its chapter or module and their "
             "dependencies.", "",
             "| site | page | the page's own download | first visit's background download | of which the platform "
             "| of which its unit | of which the rest | of which optional packages | background files "
             "| whole course (precache) | files sent twice |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, entry in results.items():
        for row in entry["rows"]:
            g = row["by_group"]
            lines.append(f"| {label} | `{row['page']}` | {_mb(row['page_bytes'])} | {_mb(row['background_bytes'])} "
                         f"| {_mb(g.get('platform', 0))} | {_mb(g.get('unit', 0))} | {_mb(g.get('rest', 0))} "
                         f"| {_mb(row['optional_bytes'])} | {row['background_files']} | {_mb(row['whole_course_bytes'])} "
                         f"| {len(row['sent_twice']) or 'none'} |")
    lines += ["", "The page's own download: a visit with service workers blocked, until the line is quiet after "
              "Python is ready. The background download: what a first visit with the service worker sent besides, "
              "until the copy held what the visit saves. Groups are tools/offline.py's for each site (the platform, "
              "the page's unit, the rest), computed from the course's exercises whatever the build's sw.js knows of "
              "them; optional packages (matplotlib) are in a unit whose pages' code imports them, else in the rest. "
              "Python restores its snapshot in both visits (`tl-start`)."]
    for label, entry in results.items():
        lines.append(f"- {label}: {entry['site']}, {entry['commit']}, {entry['date']}")
    return "\n".join(lines) + "\n"


def record(label: str, site: Path, rows: list[dict], out: Path, commit: str) -> None:
    data_file = out.with_suffix(".json")
    results = json.loads(data_file.read_text(encoding="utf-8")) if data_file.is_file() else {}
    results[label] = {"site": str(site), "commit": commit, "date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    data_file.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    out.write_text(report(results), encoding="utf-8")
    print(f"wrote {out} and {data_file.name}")


def _commit(where: Path) -> str:
    return subprocess.run(["git", "describe", "--always", "--dirty"], cwd=where, capture_output=True,
                          text=True).stdout.strip() or "?"


def build_course(count: int, keep: Path, platform: Path | None) -> course_bench.Generated:
    """Generate a course of `count` exercises under `keep` and build it (validation cached in `keep`)."""
    keep.mkdir(parents=True, exist_ok=True)
    frozen = platform.resolve() if platform else course_bench.freeze(Path(tempfile.mkdtemp(dir=keep)) / "platform")
    for package in PACKAGES:  # the build imports them from the platform folder (tools/ol_wheel.py reads them there)
        if not (frozen / package).is_dir():
            shutil.copytree(REPO / package, frozen / package, ignore=shutil.ignore_patterns("__pycache__"))
    root = keep / f"n{count}"
    shutil.rmtree(root, ignore_errors=True)
    course = course_bench.generate(root, count, platform=frozen)
    print(f"N={count}: generated in {root}; building with {frozen}", flush=True)
    built = course_bench._build(course, keep / "validate-cache")
    print(f"N={count}: built in {built['s']:.0f} s", flush=True)
    return course


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.offline_scope", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("measure", help="measure a built site")
    one.add_argument("--site", type=Path, default=REPO / "site")
    one.add_argument("--exercises", type=Path, help="the course's exercises (default: this checkout's, for site/)")
    one.add_argument("--label", required=True)
    one.add_argument("--commit", help="the commit the site was built from (default: this checkout's)")
    gen = sub.add_parser("course", help="generate a course of N exercises, build it and measure it")
    gen.add_argument("--count", type=int, default=100)
    gen.add_argument("--keep", type=Path, required=True, metavar="DIR")
    gen.add_argument("--platform", type=Path, help="a platform folder to build with (default: freeze this checkout)")
    gen.add_argument("--label")
    for p in (one, gen):
        p.add_argument("--pages", nargs="*", help="URLs relative to the site (default: a lesson and a module)")
        p.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.command == "course":
        course = build_course(args.count, args.keep.resolve(), args.platform)
        site, exercises = course.root / "site", course.exercises
        label = args.label or f"N = {args.count}"
        commit = _commit(args.platform or REPO)
    else:
        site = args.site.resolve()
        exercises = args.exercises or (REPO / "exercises" if site == (REPO / "site").resolve() else None)
        label, commit = args.label, args.commit or _commit(REPO)
    pages = args.pages or default_pages(site)
    print(f"{label}: {site}", flush=True)
    rows = measure_site(site, exercises, pages)
    record(label, site, rows, args.out, commit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
