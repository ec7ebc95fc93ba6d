"""Each kind of page on a phone: Lighthouse's mobile audit of the built site, served compressed as static hosts serve it.

    python -m bench.pages [--site site] [--before DIR] [--runs 3] [--only PATH ...] [--out bench/results]
                          [--name pages-latest]      (make bench-pages [RUNS=N] [BEFORE=DIR])

Lighthouse (bench/lighthouse/package.json: pinned, installed there on first use, never part of the site or its
tests) audits one page of each kind (authoring/page_kinds.py: the widget blocks on it), the largest of its kind by
its HTML's bytes, in Debian's Chromium, with its default mobile profile: a phone's screen, the CPU slowed 4× and
a slow 4G line, both simulated from the page's own trace. Each audit is a fresh browser with an empty profile, as
a learner's first visit; a page that reloads itself on a first visit (the class page, to check apart) is audited
on a second visit instead (SECOND_VISIT). The site is served by bench/network.py's `gzip` server, which
compresses HTML, CSS, JavaScript, JSON and WebAssembly as GitHub Pages or Netlify do.

With `--before DIR`, another build of the site is audited in the same run, page for page (the pages are chosen
from `--site`'s kinds), the two interleaved so that whatever else the machine does falls on both alike. With
`--theme`, so are copies of the site with mkdocs-material's script run as the page loads, alone and giving back
to it each of the theme's components that the build hands to the page (tools/page_html.py OWN_COMPONENTS): what
each costs. `--also LABEL=DIR` adds
more builds (a step of the work) between the two. Every
figure is the median of the runs. A benchmark, never a test: nothing here asserts a score or a time; the issue's
targets are printed beside the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from authoring import page_kinds
from authoring.serve import start_in_thread
from bench import network
from bench.run import ARGS

REPO = Path(__file__).resolve().parent.parent
LIGHTHOUSE = REPO / "bench" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = {"FCP": "first-contentful-paint", "LCP": "largest-contentful-paint", "TBT": "total-blocking-time",
           "CLS": "cumulative-layout-shift", "SI": "speed-index"}
TARGETS = "performance ≥ 90, TBT ≤ 200 ms, LCP ≤ 2.5 s, CLS ≤ 0.1; accessibility, best practices and SEO 100"


def lighthouse_cli() -> Path:
    """Lighthouse's command, installed from bench/lighthouse's lock file the first time it is wanted."""
    cli = LIGHTHOUSE / "node_modules" / "lighthouse" / "cli" / "index.js"
    if not cli.is_file():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(LIGHTHOUSE)], check=True)
    return cli


# Kinds of page audited on a second visit. The class page reloads itself on a first visit, once its offline copy is
# installed, so that it checks apart (issue 52); Lighthouse cannot audit a page that navigates away during its trace.
# Such a page is audited as the teacher then sees it: a second visit, the service worker already in control.
SECOND_VISIT = {"class"}  # kinds, as page_kinds.describe writes them


def audit(cli: Path, url: str, profile: Path | None = None) -> dict:
    """One Lighthouse run of one address: its report, as Lighthouse wrote it. With `profile`, the run opens a copy
    of that browser profile and keeps its storage (a second visit); without, an empty profile (a first visit)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        flags, extra = ["--headless=new", *ARGS], []
        if profile is not None:
            shutil.copytree(profile, Path(tmp) / "profile")
            flags.append(f"--user-data-dir={Path(tmp) / 'profile'}")  # after chrome-launcher's own: it wins
            extra.append("--disable-storage-reset")
        env = {**os.environ, "CHROME_PATH": shutil.which("chromium") or "/usr/bin/chromium"}
        done = subprocess.run(["node", str(cli), url, "--quiet", "--output=json", f"--output-path={out}",
                               f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={' '.join(flags)}",
                               *extra], env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not out.is_file():
            raise RuntimeError(f"Lighthouse wrote no report for {url}:\n{done.stderr.decode(errors='replace')[-2000:]}")
        return json.loads(out.read_text(encoding="utf-8"))


def first_visit(url: str, into: Path, timeout_s: float = 60) -> None:
    """A first visit of `url` in a browser profile kept in `into`: the page is opened and left until its service
    worker controls it and it has finished loading (after any reload of its own)."""
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as play:
        context = play.chromium.launch_persistent_context(
            str(into), executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.goto(url)
            deadline = time.monotonic() + timeout_s
            controlled = "!!navigator.serviceWorker.controller && document.readyState === 'complete'"
            while time.monotonic() < deadline:
                try:
                    if page.evaluate(controlled):
                        page.wait_for_timeout(1000)  # a reload it was about to make
                        if page.evaluate(controlled):
                            return
                except Error:  # the page navigated while asked: ask again
                    pass
                page.wait_for_timeout(250)
            raise RuntimeError(f"{url}: no service worker in control after {timeout_s:.0f} s")
        finally:
            context.close()


def figures(report: dict) -> dict:
    """What the table shows of one report: the category scores (0-100), the metrics (ms; CLS unitless), the live
    page's element count and its main thread's time per kind of work (ms)."""
    audits = report["audits"]
    found = {c: round(100 * (report["categories"][c]["score"] or 0)) for c in CATEGORIES}
    found.update({name: audits[key]["numericValue"] for name, key in METRICS.items()})
    found["elements"] = audits["dom-size"]["numericValue"]
    found["main"] = {item["groupLabel"]: item["duration"]
                     for item in audits["mainthread-work-breakdown"]["details"]["items"]}
    found["failed"] = sorted(ref["id"] for c in CATEGORIES[1:] for ref in report["categories"][c]["auditRefs"]
                             if ref["weight"] and _below_full(audits[ref["id"]].get("score")))
    return found


def audited(cli: Path, url: str, profile: Path | None = None, tries: int = 3) -> tuple[dict, int]:
    """The figures of one complete Lighthouse run of `url`, and how many runs before it were thrown away: a run
    whose trace Lighthouse could not read (an audit with an error and no details) is run again, up to `tries`."""
    for attempt in range(tries):
        report = audit(cli, url, profile)
        try:
            return figures(report), attempt
        except (KeyError, TypeError):
            broken = sorted(key for key, a in report.get("audits", {}).items() if a.get("errorMessage"))
            print(f"  a run of {url} came back incomplete ({', '.join(broken[:3]) or 'no audits'}): run again",
                  file=sys.stderr, flush=True)
    raise RuntimeError(f"{tries} runs of {url} came back incomplete")


def _below_full(score) -> bool:
    """A scored audit that did not pass in full (None: not applicable, or informative only)."""
    return score is not None and score < 1


def median_of(runs: list[dict]) -> dict:
    """The median of each figure over runs; the main thread's kinds of work by their median; every audit that
    failed in any run."""
    keys = [k for k in runs[0] if k not in ("main", "failed")]
    out = {k: statistics.median(r[k] for r in runs) for k in keys}
    kinds = {k for r in runs for k in r["main"]}
    out["main"] = {k: statistics.median(r["main"].get(k, 0) for r in runs) for k in kinds}
    out["failed"] = sorted({a for r in runs for a in r["failed"]})
    out["runs"] = len(runs)
    return out


def serve_all(sites: dict[str, Path]) -> tuple[dict[str, str], list]:
    """Each site on a port of its own, compressed."""
    urls, servers = {}, []
    for label, site in sites.items():
        server, url = start_in_thread(site, base=network.handler(network.Log(), True))
        urls[label] = url
        servers.append(server)
    return urls, servers


def chosen_pages(site: Path, only: list[str]) -> list[tuple[str, str]]:
    """(kind described, path) of the largest page of each kind, or of the paths asked for."""
    pages = page_kinds.built_pages(site)
    if only:
        return [(page_kinds.describe(p.kind), p.path) for p in pages if p.path in only]
    largest = page_kinds.largest_of_each_kind(pages)
    return sorted(((page_kinds.describe(kind), page.path) for kind, page in largest.items()), key=lambda kp: kp[1])


def run(sites: dict[str, Path], pages: list[tuple[str, str]], runs: int) -> tuple[dict, int]:
    """Every page on every site, `runs` times, interleaved: ({label: {path: medians}}, incomplete runs redone)."""
    cli = lighthouse_cli()
    urls, servers = serve_all(sites)
    raw: dict[str, dict[str, list]] = {label: {path: [] for _, path in pages} for label in sites}
    thrown, profiles = 0, tempfile.TemporaryDirectory(prefix="tl-pages-")
    try:
        visited = {}
        for kind, path in pages:
            if kind not in SECOND_VISIT:
                continue
            for label in sites:
                visited[label, path] = Path(profiles.name) / f"{label}-{len(visited)}"
                first_visit(urls[label] + path, visited[label, path])
        for n in range(runs):
            for _, path in pages:
                for label in sites:
                    started = time.monotonic()
                    found, again = audited(cli, urls[label] + path, visited.get((label, path)))
                    raw[label][path].append(found)
                    thrown += again
                    print(f"run {n + 1}/{runs} {label} /{path}: performance {raw[label][path][-1]['performance']}"
                          f" ({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
    finally:
        for server in servers:
            server.shutdown()
        profiles.cleanup()
    return ({label: {path: median_of(found) for path, found in by_path.items()} for label, by_path in raw.items()},
            thrown)


def top_costs(main: dict, n: int = 3) -> str:
    return ", ".join(f"{k.lower()} {v / 1000:.1f} s" for k, v in sorted(main.items(), key=lambda kv: -kv[1])[:n])


def table(results: dict, pages: list[tuple[str, str]]) -> str:
    """One row per page and site, as Markdown."""
    head = ("| page kind (its largest page) | build | runs | performance | FCP | LCP | TBT | CLS | DOM elements "
            "| a11y / best practices / SEO | main thread's top costs |")
    lines = [head, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for kind, path in pages:
        visit = ", second visit" if kind in SECOND_VISIT else ""
        for label, by_path in results.items():
            m = by_path[path]
            failed = f" (failed: {', '.join(m['failed'])})" if m["failed"] else ""
            lines.append(
                f"| {kind} (/{path}{visit}) | {label} | {m['runs']} | {m['performance']:.0f} "
                f"| {m['FCP'] / 1000:.1f} s "
                f"| {m['LCP'] / 1000:.1f} s | {m['TBT']:,.0f} ms | {m['CLS']:.3f} | {m['elements']:,.0f} "
                f"| {m['accessibility']:.0f} / {m['best-practices']:.0f} / {m['seo']:.0f}{failed} "
                f"| {top_costs(m['main'])} |")
    return "\n".join(lines)


def theme_variants(site: Path, into: Path) -> dict[str, Path]:
    """Copies of a built site in which mkdocs-material's script runs as the page loads, as it did before the build
    left it to the page (tools/page_html.py), alone ("theme's script") and with one of the theme's components that
    the build hands to the page given back to it: what each of theirs costs a phone against the page's own
    (web/src/page/theme.js). Only the pages are copied; the rest is linked."""
    import re

    from tools import page_html

    inert = re.compile(r'<script type="text/x-tl-later" data-tl="theme-script" data-src="([^"]*)"></script>')
    variants = {}
    for name in ("script", *page_html.OWN_COMPONENTS):
        copy = into / f"theme-{name}"
        for path in site.iterdir():
            (copy / path.name).parent.mkdir(parents=True, exist_ok=True)
            if path.name == "assets" or path.is_file():
                (copy / path.name).symlink_to(path.resolve())
            else:
                shutil.copytree(path, copy / path.name)
        for page in copy.rglob("*.html"):
            if page.is_symlink():
                continue
            text = page.read_text(encoding="utf-8")
            text = inert.sub(r'<script src="\1"></script>', text)
            page.write_text(text.replace(f'data-tl-component="{name}"', f'data-md-component="{name}"'),
                            encoding="utf-8")
        variants[f"theme's {name}"] = copy
    return variants


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=REPO / "site", help="the built site (default site/)")
    parser.add_argument("--before", type=Path, help="another build to audit in the same run, page for page")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=[], help="these paths (e7/the-speed-up/) instead of one per kind")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    parser.add_argument("--name", default="pages-latest")
    parser.add_argument("--also", nargs="*", default=[], metavar="LABEL=DIR",
                        help="more builds to audit in the same run, between --before and --site (a step's build)")
    parser.add_argument("--theme", action="store_true",
                        help="also the site with each theme component the build hands to the page given back")
    args = parser.parse_args(argv)
    steps = {label: Path(folder).resolve() for label, folder in (item.split("=", 1) for item in args.also)}
    sites = ({"before": args.before.resolve(), **steps, "after": args.site.resolve()} if args.before
             else {**steps, "this build": args.site.resolve()})
    scratch = tempfile.TemporaryDirectory()
    if args.theme:
        sites.update(theme_variants(args.site.resolve(), Path(scratch.name)))
    pages = chosen_pages(args.site, args.only)
    results, thrown = run(sites, pages, args.runs)
    redone = f" {thrown} run(s) came back incomplete from Lighthouse and were run again." if thrown else ""
    text = (f"# Each kind of page on a phone: Lighthouse's mobile audit, served compressed\n\n"
            f"`python -m bench.pages {' '.join(argv if argv is not None else sys.argv[1:])}`; targets (issue 51): "
            f"{TARGETS}. Medians of {args.runs} runs.{redone}\n\n{table(results, pages)}\n")
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.md").write_text(text, encoding="utf-8")
    (args.out / f"{args.name}.json").write_text(json.dumps({"pages": pages, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
