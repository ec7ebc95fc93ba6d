"""How well the build guesses a fold's height, and the fit its guess comes from (tools/page_html.py `PER`).

    python -m bench.fold_heights [--site site]

A fold out of view is not laid out (content-visibility), so until the reader nears it the page takes its height
from the build's estimate: a wrong one moves the scroll bar, and the text below once the fold is drawn. For every
page with folds, at a phone's width (390 px) and a wide screen's (1280 px), Chromium draws every fold and reads its
height in lines of body text; the script prints, per width, the least-squares fit of those heights to what each
fold holds (blocks, characters, table rows, code lines, displayed formulas), the error of that fit, and the error
of the estimate the build wrote. A benchmark, never a test: nothing is asserted.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
from pathlib import Path

from authoring import page_kinds
from authoring.serve import start_in_thread
from bench.run import ARGS
from tools import page_html

REPO = Path(__file__).resolve().parent.parent
WIDTHS = {"narrow": 390, "wide": 1280}
KEYS = list(page_html.PER["narrow"])  # the order of a fold's data-holds (tools/page_html.py features)
DRAWN = """() => { const s = document.createElement('style');
    s.textContent = '.md-typeset .tl-fold { content-visibility: visible !important; }';
    document.head.append(s);
    return new Promise((r) => requestAnimationFrame(() => r([...document.querySelectorAll('.tl-fold')].map((f) =>
        [f.dataset.holds, f.getBoundingClientRect().height / (1.6 * parseFloat(getComputedStyle(f).fontSize)),
         parseFloat(getComputedStyle(f).getPropertyValue('--tl-fold-' + (innerWidth < 960 ? 'narrow' : 'wide')))]))));
}"""


def measure(site: Path, only: list[str] | None = None) -> dict[str, list[tuple[dict, float, float]]]:
    """Per width: (what a fold holds, its drawn height in lines, the build's estimate) for every fold (of the pages
    whose paths are in `only`, when given)."""
    from playwright.sync_api import sync_playwright

    server, url = start_in_thread(site)
    found: dict[str, list] = {w: [] for w in WIDTHS}
    try:
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=ARGS)
            for name, width in WIDTHS.items():
                page = browser.new_page(viewport={"width": width, "height": 844})
                for built in page_kinds.built_pages(site):
                    if 'class="tl-fold"' not in built.html or (only is not None and "/" + built.path not in only):
                        continue
                    page.goto(url + built.path)
                    page.evaluate("document.fonts.ready.then(() => new Promise((r) => setTimeout(r, 500)))")
                    found[name] += [(dict(zip(KEYS, map(int, holds.split()))), lines, guess)
                                    for holds, lines, guess in page.evaluate(DRAWN)]
                page.close()
            browser.close()
    finally:
        server.shutdown()
    return found


def fit(rows: list[tuple[dict, float, float]]) -> tuple[dict[str, float], float]:
    """Coefficients per feature that minimise the squares of the relative errors (a fold of 10 lines guessed as 20
    is as wrong as one of 100 guessed as 200), and the fit's median relative error."""
    import numpy as np

    keys = list(rows[0][0])
    a = np.array([[f[k] for k in keys] for f, _, _ in rows], float)
    y = np.array([lines for _, lines, _ in rows])
    coef = np.linalg.lstsq(a / y[:, None], np.ones_like(y), rcond=None)[0]
    return dict(zip(keys, coef.round(4).tolist())), float(np.median(np.abs(a @ coef / y - 1)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, action="append", help="a built site (default site/); given more "
                        "than once, the folds of every site are fitted together")
    parser.add_argument("--only", nargs="+", metavar="PATH", help="only these pages of the last --site (such as / "
                        "for the home, /e7/ for a chapter)")
    args = parser.parse_args(argv)
    sites = [s.resolve() for s in args.site or [REPO / "site"]]
    found: dict[str, list] = {w: [] for w in WIDTHS}
    for k, site in enumerate(sites):
        for name, rows in measure(site, args.only if k == len(sites) - 1 else None).items():
            found[name] += rows
    for name, rows in found.items():
        coef, error = fit(rows)
        built = statistics.median(abs(guess / lines - 1) for _, lines, guess in rows)
        print(f"{name} ({WIDTHS[name]} px), {len(rows)} folds: fit {coef}, its median error {error:.0%}; "
              f"the build's estimate, median error {built:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
