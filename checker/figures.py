"""Figures learner code draws with matplotlib, turned into images for the cell's output (the browser's Run).

matplotlib is loaded only when learner code imports it (web/src/worker/worker.js); `prepare` then makes this package's
backend (checker/mpl_backend.py: matplotlib's Agg renderer, whose `show` calls `show` here) the one pyplot uses.
During a run (`collecting`), `plt.show()` renders every open figure to a PNG, remembers where in the printed text
it was shown, and closes it; figures still open when the run ends are rendered after the text. Outside a run, in a
Check, nothing is drawn: `show` only closes the figures, and `close_all` runs after every run and check, so
memory does not grow from one run to the next.

Caps keep a run from flooding the page: at most MAX_FIGURES images per run, each at most MAX_PIXELS pixels (a
larger figure is drawn at a lower resolution) and MAX_DPI; what a cap left out is said in a note. Images keep a
white background, so they stay readable in the dark palette. Standard library only at import: matplotlib is
imported by `prepare`, never before, and this module is shipped in checker.zip and imported into the snapshot.
"""
from __future__ import annotations

import base64
import contextlib
import io
import os
import sys
from collections.abc import Iterator

BACKEND = "module://checker.mpl_backend"
MAX_FIGURES = 20          # images per run; later figures are counted in a note
MAX_PIXELS = 4_000_000    # per image (2000 x 2000); a larger figure is drawn at a lower dpi
MAX_DPI = 200
MIN_DPI = 10              # below this a figure is too large to be worth drawing: it is only named in a note
BACKGROUND = "white"


class Collector:
    """The images and notes of one run, in the order they were shown; `at` is the length of the printed text
    at that moment (None: at the end)."""

    def __init__(self) -> None:
        self.items: list[dict] = []
        self.shown = 0       # figures shown so far, drawn or not
        self.dropped = 0     # figures past MAX_FIGURES

    def add(self, fig, at: int | None) -> None:
        self.shown += 1
        if self.shown > MAX_FIGURES:
            self.dropped += 1
            return
        self.items.extend(render(fig, self.shown, at))

    def result(self) -> list[dict]:
        """The items, with a note for the figures past the cap."""
        if not self.dropped:
            return list(self.items)
        many = "figure was" if self.dropped == 1 else "figures were"
        note = f"{self.dropped} more {many} not shown: at most {MAX_FIGURES} figures are drawn per run."
        return [*self.items, {"kind": "note", "text": note}]


# The run being collected, under "collector"; None: a check, or no run (figures are not drawn). A dict whose
# contents change, not a module global that is rebound: checker/integrity.py watches this module's attributes.
_run: dict[str, Collector | None] = {"collector": None}


def _printed() -> int | None:
    """How much text the run has printed so far (the judge's capped stream), or None when stdout is not it."""
    size = getattr(sys.stdout, "size", None)
    return size if isinstance(size, int) else None


def _pyplot():
    """matplotlib.pyplot when learner code (or `prepare`) has imported it, else None: nothing to show or close."""
    return sys.modules.get("matplotlib.pyplot")


def show() -> None:
    """`plt.show()`: in a run, every open figure becomes an image at this point of the output; then (in a check
    too) they are closed."""
    plt = _pyplot()
    if plt is None:
        return
    collector = _run["collector"]
    if collector is not None:
        at = _printed()
        for number in plt.get_fignums():
            collector.add(plt.figure(number), at)
    plt.close("all")


def close_all() -> None:
    """Close every figure (after each run and check), so that none outlives the code that drew it."""
    plt = _pyplot()
    if plt is not None:
        plt.close("all")


@contextlib.contextmanager
def collecting() -> Iterator[Collector]:
    """A run's figures: shown ones as they are shown, the ones left open when the block ends after its text."""
    collector = Collector()
    _run["collector"] = collector
    try:
        yield collector
        plt = _pyplot()
        if plt is not None:
            for number in plt.get_fignums():
                collector.add(plt.figure(number), None)
    finally:
        _run["collector"] = None
        close_all()


def _title(fig) -> str:
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None and suptitle.get_text().strip():
        return suptitle.get_text().strip()
    for ax in fig.get_axes():
        for loc in ("center", "left", "right"):
            if ax.get_title(loc).strip():
                return ax.get_title(loc).strip()
    return ""


def _dpi(fig) -> float:
    """The resolution to draw `fig` at: its own, at most MAX_DPI, lowered so the image has at most MAX_PIXELS."""
    width, height = fig.get_size_inches()
    dpi = min(float(fig.dpi), MAX_DPI)
    area = max(float(width * height), 1e-9)
    if area * dpi * dpi > MAX_PIXELS:
        dpi = (MAX_PIXELS / area) ** 0.5
    return dpi


def render(fig, number: int, at: int | None) -> list[dict]:
    """`fig` as an image item (PNG, base64, its title or "figure N" as the text alternative), with a note when
    it had to be drawn smaller than asked, or a note alone when it is too large to draw or fails to draw."""
    title = _title(fig)
    alt = title or f"figure {number}"
    width, height = fig.get_size_inches()
    dpi = _dpi(fig)
    size = f"{width:g} x {height:g} inches"
    if dpi < MIN_DPI:
        return [{"kind": "note", "text": f"{alt} ({size}) is too large to draw.", "at": at}]
    buffer = io.BytesIO()
    try:
        # bbox_inches="tight", as notebooks draw inline figures: labels at the edge are not cut off.
        fig.savefig(buffer, format="png", dpi=dpi, facecolor=BACKGROUND, bbox_inches="tight")
    except Exception as exc:  # noqa: BLE001 - a figure that cannot be drawn is said, the run goes on
        return [{"kind": "note", "text": f"{alt} could not be drawn: {type(exc).__name__}: {exc}", "at": at}]
    items = [{"kind": "image", "mime": "image/png", "data": base64.b64encode(buffer.getvalue()).decode("ascii"),
              "alt": alt, "at": at}]
    if dpi < min(float(fig.dpi), MAX_DPI) - 0.5:
        items.append({"kind": "note", "text": f"{alt} ({size}) was drawn at {dpi:.0f} dpi to stay under "
                                              f"{MAX_PIXELS:,} pixels.", "at": at})
    return items


def prepare() -> None:
    """Make this package's backend pyplot's and import pyplot (the worker calls this once matplotlib's files are
    installed, before the run that imports it). Figures get a white background, whatever the page's palette."""
    os.environ["MPLBACKEND"] = BACKEND
    import matplotlib

    matplotlib.use(BACKEND)
    matplotlib.rcParams.update({"figure.facecolor": BACKGROUND, "savefig.facecolor": BACKGROUND})
    import matplotlib.pyplot  # noqa: F401

    from . import mpl_backend  # noqa: F401 - in sys.modules before learner code can change sys.path
