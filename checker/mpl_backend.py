"""The matplotlib backend of the browser's runs (checker/figures.py `prepare` selects it): matplotlib's own Agg
renderer, with a `show` that hands the open figures to checker/figures.py instead of opening a window.

Imported by matplotlib only, once it is installed; nothing else in the checker imports matplotlib.
"""
from __future__ import annotations

from matplotlib.backend_bases import FigureManagerBase
from matplotlib.backends.backend_agg import FigureCanvasAgg

from . import figures

FigureCanvas = FigureCanvasAgg
FigureManager = FigureManagerBase


def show(*args, **kwargs) -> None:
    """`plt.show()`: in a run, the open figures become images in the output; in a check they are only closed."""
    figures.show()
