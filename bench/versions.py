"""Two builds of the site side by side in one run: before and after a change of the Python in the browser.

    python -m bench.versions --before DIR [--after site] [--runs 3] [--profiles 20mbit,100mbit,localhost]
                             [--after-s 20] [--name versions-latest]

Each build is measured with its own bare page (bench/bare/, one worker loading that build's Pyodide, numpy and
pytest as Pyodide's docs describe), so each Pyodide release has its own yardstick. On localhost, the runs
alternate between the builds (bench/run.py `one_run`: ready to grade, the first Check after reading, the first
plot, bytes before ready, the repeat visit); over the emulated networks (bench/network.py `measure`), each profile
is measured for one build and then the other. A benchmark, never a test: nothing is asserted; the issue's targets
are printed beside the figures. Make the "before" copy with `make build` on the old commit and copy site/ away
(issue 25 kept Pyodide 0.27.7's build in ~/.cache/tinyllm/site-0.27.7).
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

from bench import network, parts
from bench.run import Counter, median, one_run, serve

REPO = Path(__file__).resolve().parent.parent
BARE = "bench/bare"
LOCAL = [  # (label, side, key): the figures compared on localhost, from one_run
    ("ready to grade (ms)", "site", "grade"),
    ("bare page ready to grade (ms)", "bare", "grade"),
    ("first Check after reading 10 s, E7.3 (ms)", "site", "first_check_e7_3_after_10s"),
    ("first Check after reading 10 s, M07.6 (ms)", "site", "first_check_m07_6_after_10s"),
    ("first plot (ms)", "site", "first_plot"),
    ("second plot (ms)", "site", "warm_plot"),
    ("warm E7.3 suite (ms)", "site", "warm_suite_e7_3"),
    ("bytes before ready", "site", "bytes_cold"),
    ("repeat visit: ready to grade (ms)", "site", "grade_repeat"),
    ("repeat visit: bytes", "site", "bytes_repeat"),
]


def private_copy(site: Path) -> Path:
    """A copy of `site` with the bare page beside its files, so a build during the run changes nothing."""
    root = Path(tempfile.mkdtemp()) / "site"
    shutil.copytree(site, root)
    shutil.copytree(REPO / BARE, root / BARE)
    return root


def pyodide_version(site: Path) -> str:
    return json.loads((site / "assets" / "pyodide" / "wheels.json").read_text()).get("pyodide", "?")


def labelled(before: Path, after: Path) -> dict[str, Path]:
    """The two builds by label: their Pyodide versions when those differ (issue 25), else "before" and "after"
    with the version (issue 30: one Pyodide, two builds), so that neither label hides the other."""
    a, b = pyodide_version(before), pyodide_version(after)
    if a != b:
        return {f"Pyodide {a}": before, f"Pyodide {b}": after}
    return {f"before ({a})": before, f"after ({b})": after}


def localhost(roots: dict[str, Path], runs: int) -> dict[str, list[dict]]:
    """`runs` fresh-browser runs of each build, alternating, each against its own server and byte counter."""
    out: dict[str, list[dict]] = {name: [] for name in roots}
    counters = {name: Counter() for name in roots}
    servers = {name: serve(root, False, counters[name]) for name, root in roots.items()}
    try:
        with sync_playwright() as play:
            for i in range(runs):
                for name, (_server, url) in servers.items():
                    out[name].append(one_run(play, url, counters[name], check_module=True))
                    print(f"localhost run {i + 1}/{runs}: {name} done", file=sys.stderr)
    finally:
        for server, _url in servers.values():
            server.shutdown()
    return out


def local_table(results: dict[str, list[dict]], names: list[str]) -> list[str]:
    before, after = names
    lines = [f"| figure | {before} | {after} | after / before |", "|---|---:|---:|---:|"]
    for label, side, key in LOCAL:
        a = median([r[side].get(key) for r in results[before]])
        b = median([r[side].get(key) for r in results[after]])
        ratio = f"{b / a:.2f}×" if a and b is not None else "–"
        lines.append(f"| {label} | {fmt(a)} | {fmt(b)} | {ratio} |")
    lines.append("")
    lines.append(f"Ready to grade against the bare page of the same Pyodide, localhost: {before} "
                 f"{ratio_of(results[before])}, {after} {ratio_of(results[after])} (target for {after}: ≤ 0.35×).")
    return lines


def ratio_of(runs: list[dict]) -> str:
    return f"{median([r['site']['grade'] for r in runs]) / median([r['bare']['grade'] for r in runs]):.2f}×"


def fmt(v) -> str:
    if v is None:
        return "–"
    return f"{v / 1e6:.1f} MB" if v > 100_000 else f"{v:,.0f}"


def network_table(results: dict[str, dict], names: list[str]) -> list[str]:
    before, after = names
    lines = ["| profile | figure | " + f"{before} | {after} | after / before |", "|---|---|---:|---:|---:|"]
    for profile in results[after]:
        rows = {name: results[name][profile] for name in names}
        figures = [("ready to grade (ms)", lambda r: r["site"]["ready"]),
                   ("bare page ready (ms)", lambda r: r["bare"]["ready"]),
                   ("bytes before ready", lambda r: r["site"]["bytes_before_ready"]),
                   ("Check straight away (ms)", lambda r: r["check_straight_away"]),
                   ("files sent twice", lambda r: len(r["site"]["sent_twice"]))]
        for label, get in figures:
            a = median([get(r) for r in rows[before]])
            b = median([get(r) for r in rows[after]])
            ratio = f"{b / a:.2f}×" if a else "–"
            lines.append(f"| {profile} | {label} | {fmt(a)} | {fmt(b)} | {ratio} |")
        against = [("ready ÷ bare page's ready", "ready", "ready"),
                   ("bytes before ready ÷ bare page's", "bytes_before_ready", "bytes_before_ready")]
        for label, site_key, bare_key in against:
            cells = [median([r["site"][site_key] / r["bare"][bare_key] for r in rows[n]]) for n in names]
            lines.append(f"| {profile} | {label} | {cells[0]:.2f}× | {cells[1]:.2f}× | |")
        cells = [median([r["check_straight_away"] / r["bare"]["ready"] for r in rows[n]]) for n in names]
        lines.append(f"| {profile} | Check straight away ÷ bare page's ready | {cells[0]:.2f}× | {cells[1]:.2f}× | |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the earlier build's site folder")
    parser.add_argument("--after", type=Path, default=REPO / "site", help="the later build (default: site/)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--network-runs", type=int, default=1)
    parser.add_argument("--profiles", default="20mbit,100mbit,localhost")
    parser.add_argument("--after-s", type=float, default=20.0, help="seconds watched after ready on a network")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    parser.add_argument("--name", default="versions-latest")
    args = parser.parse_args(argv)
    sites = labelled(args.before, args.after)
    names = list(sites)
    roots = {name: private_copy(site) for name, site in sites.items()}
    local = localhost(roots, args.runs)
    profiles = [p for p in args.profiles.split(",") if p]
    net: dict[str, dict] = {name: {} for name in names}
    for profile in profiles:
        for name in names:
            net[name].update(network.measure(roots[name], ["plain"], [profile], args.network_runs, args.after_s,
                                             log=lambda text, n=name: print(f"{n}: {text}", file=sys.stderr)))
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    meta = {"commit": commit, "date": time.strftime("%Y-%m-%d %H:%M"), "runs": args.runs,
            "network_runs": args.network_runs, "after_s": args.after_s, "sites": {n: str(s) for n, s in sites.items()}}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps({"meta": meta, "localhost": local, "network": net}, indent=1))
    text = "\n".join([
        f"# Before and after: {names[0]} and {names[1]}, side by side ({meta['date']}, {commit})", "",
        "What a first visit of the lesson downloads before ready, per part, read from each build's files "
        "(bench/parts.py; the sent column is what travels on a line the worker measures slow):", "",
        parts.table(sites), "",
        f"Localhost, median of {args.runs} fresh-browser runs per build, alternating (bench/run.py one_run):", "",
        *local_table(local, names), "",
        f"Emulated networks, plain server, {args.network_runs} run(s) per build and profile, watched "
        f"{args.after_s:g} s after ready (bench/network.py measure):", "",
        *network_table(net, names), "",
        "Targets (issue 30): 20 Mbit/s, bytes before ready ≤ 11 MB and ≤ 0.65× the bare page's, ready ≤ 0.45× "
        "the bare page's; localhost ready ≤ 0.35×, the first verdict (Check straight away) ≤ 0.5× the bare page's "
        "ready; a repeat visit no slower than before; every byte once (files sent twice: 0).",
    ])
    (args.out / f"{args.name}.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
