"""Figure helpers shared by the papers' experiments (presentation only, no science).

Figures are built with matplotlib's object API on the Agg backend, so they render the
same with or without a display.
"""

from __future__ import annotations

from typing import Any


def new_figure(width: float, height: float, *, ncols: int = 1, nrows: int = 1, **kw: Any) -> tuple[Any, Any]:
    """A figure and its axes: one Axes for a single panel, else a flat array of them."""
    # matplotlib: about 0.3 s to import, loaded only to draw
    import matplotlib

    matplotlib.use("Agg")
    # matplotlib: about 0.3 s to import, loaded only to draw
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False, **kw)
    return (fig, axes[0, 0]) if nrows == ncols == 1 else (fig, axes.ravel())
