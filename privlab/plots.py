"""Figure helpers shared by the papers' experiments (presentation only, no science).

Figures are built with matplotlib's object API on the Agg backend, so they render the
same with or without a display.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def new_figure(width: float, height: float, *, ncols: int = 1, nrows: int = 1, **kw: Any) -> tuple[Any, Any]:
    """A figure and its axes: one Axes for a single panel, else a flat array of them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False, **kw)
    return (fig, axes[0, 0]) if nrows == ncols == 1 else (fig, axes.ravel())


def boxplot_panels(
    wide: Any, panel_col: str, xcol: str, title: str, sub_titles: Callable[[Any], str] | None = None
) -> Any:
    """Box plots drawn from pre-computed statistics, one panel per value of ``panel_col``.

    ``wide`` has a column MultiIndex (``("mc"|"exact", stat)``) and an index holding
    ``panel_col`` and ``xcol``: boxes from the sampled quartiles and fences, red ticks at
    the exact quartiles.
    """
    panels = list(dict.fromkeys(wide.index.get_level_values(panel_col)))
    fig, axes = new_figure(3.2 * len(panels), 3.4, ncols=len(panels))
    axes = np.atleast_1d(axes)
    for ax, value in zip(axes, panels):
        g = wide.xs(value, level=panel_col, drop_level=False).reset_index()
        stats = [
            {
                "med": r[("mc", "median")],
                "q1": r[("mc", "q1")],
                "q3": r[("mc", "q3")],
                "whislo": r[("mc", "lower_fence")],
                "whishi": r[("mc", "upper_fence")],
                "fliers": [],
                "label": f"{r[(xcol, '')]:g}",
            }
            for _, r in g.iterrows()
        ]
        ax.bxp(stats, showfliers=False)
        ax.plot(range(1, len(g) + 1), g[("exact", "q1")], "r_", ms=10)
        ax.plot(range(1, len(g) + 1), g[("exact", "q3")], "r_", ms=10, label="exact quartiles")
        ax.set_xlabel(xcol)
        ax.set_title(sub_titles(value) if sub_titles else f"{panel_col} = {value:g}", fontsize=9)
        ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
        ax.tick_params(axis="x", labelsize=7)
    axes[0].set_ylabel("noise ratio (R - f(D)) / range")
    axes[0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
