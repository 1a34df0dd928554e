"""The figures of a sweep report (presentation only): verdict maps of the claims and metric plots.

Every figure draws exactly the table it is given and says on its axes what they are: the
verdict maps colour each job of the sweep by a claim's verdict (a strip for one swept
parameter, a heat map for two, one heat map per value of the others beyond); the metric plots
draw a result column against a swept parameter, averaged over each job's rows, one series per
value of the table's categorical columns, with its interval (from a ``*_se`` column or lower
and upper bounds) and its exact counterpart overlaid, on log scales where values span decades.
"""

from __future__ import annotations

import itertools
import textwrap
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import yaml

from .plots import new_figure

VERDICT_COLOURS = {
    "agree": "#1f7a3a",
    "disagree": "#b3261e",
    "inconclusive": "#d9a21b",
    "info": "#8a94a6",
    "absent": "#ffffff",
}
VERDICT_CODES = {"agree": 0, "disagree": 1, "inconclusive": 2, "info": 3, "absent": 4}
MAX_PANELS = 12  # facets drawn; beyond, the figure says how many it leaves out
MAX_SERIES = 8  # series per panel; beyond, the first categorical column only
DECADES = 100.0  # a positive axis whose values span this factor or more is drawn on a log scale
Z = 1.96  # intervals of +-1.96 standard errors (95 % normal)


def sorted_values(values: Any) -> list[Any]:
    """Distinct values in their natural order (numbers by size, lists element by element, then the
    rest by text)."""
    unique = list(dict.fromkeys(v for v in values if not _missing(v)))
    parsed = [_as_list(v) for v in unique]
    if unique and all(isinstance(v, list) for v in parsed):  # a list-valued parameter: [0.55] < [0.6] < [0.55, 0.6]
        try:
            return [u for _, u in sorted(zip(parsed, unique), key=lambda pair: (len(pair[0]), pair[0]))]
        except TypeError:
            pass
    try:
        return sorted(unique)
    except TypeError:
        return sorted(unique, key=lambda v: (not isinstance(v, (int, float)), str(v)))


def _as_list(value: Any) -> Any:
    """A list value, or its text as a sweep's store keeps it ("[0.55]"), as a list; anything else as is."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str) and value.startswith("[") and value.endswith("]"):
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        return parsed if isinstance(parsed, list) else value
    return value


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA


def label(value: Any) -> str:
    """A value as a tick or legend reads it: 0.55, not "[0.55]", for a list of one; "0.5, 0.6" for more."""
    items = _as_list(value)
    if isinstance(items, list):
        return ", ".join(label(v) for v in items) if items else "(none)"
    return f"{value:g}" if isinstance(value, float) else str(value)


def wrap(title: str, fig: Any) -> str:
    """``title`` broken into lines that fit the figure's width (9-point text)."""
    return "\n".join(textwrap.wrap(title, max(30, int(fig.get_figwidth() * 14))))


def log_scale(values: Any) -> bool:
    """Do positive ``values`` span two decades or more (then draw them on a log scale)?"""
    arr = pd.to_numeric(pd.Series(list(values)), errors="coerce").to_numpy(float)
    arr = arr[np.isfinite(arr)]
    return bool(arr.size and (arr > 0).all() and arr.max() / arr.min() >= DECADES)


# ---------------------------------------------------------------------------------------
# verdict maps
# ---------------------------------------------------------------------------------------
def _grid(frame: pd.DataFrame, rows: str | None, cols: str) -> tuple[list[Any], list[Any], np.ndarray]:
    """The verdict codes of ``frame`` (one row per job: the swept columns and ``verdict``) on a
    grid of ``rows`` x ``cols`` values (a strip when ``rows`` is None)."""
    xs = sorted_values(frame[cols])
    ys = sorted_values(frame[rows]) if rows else [None]
    grid = np.full((len(ys), len(xs)), VERDICT_CODES["absent"])
    for _, r in frame.iterrows():
        if _missing(r[cols]) or (rows and _missing(r[rows])):
            continue
        grid[ys.index(r[rows]) if rows else 0, xs.index(r[cols])] = VERDICT_CODES[r["verdict"]]
    return ys, xs, grid


def _draw_grid(
    ax: Any, ys: list[Any], xs: list[Any], grid: np.ndarray, xlabel: str, ylabel: str | None, *, origin: str = "lower"
) -> None:
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.colors import ListedColormap

    cmap = ListedColormap([VERDICT_COLOURS[v] for v in VERDICT_CODES])
    ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=len(VERDICT_CODES) - 0.5, aspect="auto", origin=origin)
    long = len(xs) > 6 or max((len(label(x)) for x in xs), default=0) > 8
    ax.set_xticks(range(len(xs)), [label(x) for x in xs], rotation=90 if long else 0, fontsize=7)
    ax.set_yticks(range(len(ys)), [label(y) for y in ys] if ylabel else [""] * len(ys), fontsize=7)
    ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    ax.set_xticks(np.arange(-0.5, len(xs)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(ys)), minor=True)
    ax.grid(which="minor", color="#d6d6d6", lw=0.6)
    ax.tick_params(which="minor", length=0)


def _legend(fig: Any, present: set[str]) -> None:
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.patches import Patch

    handles = [
        Patch(facecolor=VERDICT_COLOURS[v], edgecolor="#999999", label=v if v != "absent" else "no such claim / no job")
        for v in VERDICT_CODES
        if v in present
    ]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=7, frameon=False)


def verdict_overview(frame: pd.DataFrame, swept: Sequence[str], claims: Sequence[str], title: str) -> Any:
    """Every claim's verdict in every job: one strip per claim (rows), jobs in the order of the
    swept parameters' values (columns). ``frame``: job, the swept columns, claim, verdict."""
    jobs = frame.drop_duplicates("job")[["job", *swept]]
    jobs = jobs.sort_values(list(swept), key=lambda s: s.map(lambda v: (str(type(v)), v)), kind="stable")
    order = list(jobs["job"])
    grid = np.full((len(claims), len(order)), VERDICT_CODES["absent"])
    index = {c: i for i, c in enumerate(claims)}
    col = {j: i for i, j in enumerate(order)}
    for c, j, v in zip(frame["claim"], frame["job"], frame["verdict"]):
        if c in index:
            grid[index[c], col[j]] = VERDICT_CODES[v]
    rows = jobs[list(swept)].itertuples(index=False)
    if len(swept) == 1:
        xs = [label(row[0]) for row in rows]
    else:
        xs = [", ".join(f"{k}={label(v)}" for k, v in zip(swept, row)) for row in rows]
    short = [c if len(c) <= 70 else c[:67] + "..." for c in claims]
    width = min(18.0, 2.5 + 0.06 * max(len(c) for c in short) + 0.3 * len(order))
    height = 1.6 + 0.28 * len(claims) + (0.06 * max(len(x) for x in xs) if len(swept) > 1 else 0)
    fig, ax = new_figure(width, height)
    _draw_grid(ax, short, xs, grid, ", ".join(swept) if len(swept) == 1 else "job", None, origin="upper")
    ax.set_yticks(range(len(claims)), short, fontsize=7)
    if len(order) > 40:  # too many jobs to label each
        ax.set_xticks([])
    ax.set_title(wrap(title, fig), fontsize=9)
    _legend(fig, {v for v, code in VERDICT_CODES.items() if (grid == code).any()})
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def verdict_map(frame: pd.DataFrame, swept: Sequence[str], title: str) -> Any:
    """One claim's verdict over the swept parameters: a strip (one parameter), a heat map (two),
    one heat map per combination of the others' values beyond (at most `MAX_PANELS`).
    ``frame``: one row per job, the swept columns and ``verdict`` (``absent`` where the job has
    no such claim)."""
    swept = list(swept)
    if len(swept) == 1:
        ys, xs, grid = _grid(frame, None, swept[0])
        fig, ax = new_figure(min(12.0, 2.5 + 0.45 * len(xs)), 1.9)
        _draw_grid(ax, ys, xs, grid, swept[0], None)
        ax.set_yticks([])
        panels = [grid]
    else:
        rows, cols, rest = swept[0], swept[1], swept[2:]
        combos = list(itertools.product(*[sorted_values(frame[k]) for k in rest])) or [()]
        shown = combos[:MAX_PANELS]
        ncols = min(3, len(shown))
        nrows = -(-len(shown) // ncols)
        fig, axes = new_figure(4.2 * ncols, 0.8 + 2.8 * nrows, ncols=ncols, nrows=nrows)
        axes = np.atleast_1d(axes)
        panels = []
        for ax, combo in zip(axes, shown):
            part = frame
            for k, v in zip(rest, combo):
                part = part[part[k] == v]
            ys, xs, grid = _grid(part, rows, cols)
            _draw_grid(ax, ys, xs, grid, cols, rows)
            panels.append(grid)
            if rest:
                ax.set_title(", ".join(f"{k}={label(v)}" for k, v in zip(rest, combo)), fontsize=8)
        for ax in axes[len(shown) :]:
            ax.set_visible(False)
        if len(combos) > len(shown):
            title += f" (first {len(shown)} of {len(combos)} panels)"
    fig.suptitle(wrap(title, fig), fontsize=9)
    present = {v for v, code in VERDICT_CODES.items() if any((g == code).any() for g in panels)}
    _legend(fig, present)
    fig.tight_layout(rect=(0, 0.1 if len(swept) == 1 else 0.05, 1, 0.95))
    return fig


# ---------------------------------------------------------------------------------------
# metric plots
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """A result column to plot, with the columns that go with it."""

    column: str
    se: str | None = None  # its standard error
    low: str | None = None  # lower and upper bounds (when no s.e.)
    high: str | None = None
    exact: str | None = None  # its exact (or analytic) counterpart


def companions(column: str, columns: Sequence[str]) -> Metric:
    """The s.e., bounds and exact counterpart of ``column`` among ``columns``, by privlab's naming:
    ``<m>_se`` (``mc_se`` of ``mc``); ``<m>_low``/``<m>_high`` or ``<m>_lower``/``<m>_upper``;
    ``<m>_exact``, ``exact_<m>``, ``exact_<rest>`` of ``mc_<rest>``, ``exact`` of ``mc``, ``<stem>_exact``
    of ``<stem>_mean``."""
    have = set(columns)
    se = f"{column}_se" if f"{column}_se" in have else None
    low = high = None
    for a, b in (("_low", "_high"), ("_lower", "_upper")):
        if f"{column}{a}" in have and f"{column}{b}" in have:
            low, high = f"{column}{a}", f"{column}{b}"
            break
    candidates = [f"{column}_exact", f"exact_{column}"]
    if column.startswith("mc_"):
        candidates.append("exact_" + column[3:])
    if column == "mc":
        candidates.append("exact")
    if column.endswith("_mean"):
        candidates.append(column[: -len("_mean")] + "_exact")
    exact = next((c for c in candidates if c in have and c != column), None)
    return Metric(column, se, low, high, exact)


def _series(frame: pd.DataFrame, categorical: Sequence[str]) -> list[str]:
    """The categorical columns whose combinations name the series (at most `MAX_SERIES` of them)."""
    varying = [c for c in categorical if frame[c].nunique(dropna=True) > 1]
    combos = frame[varying].drop_duplicates().shape[0] if varying else 1
    if combos <= MAX_SERIES:
        return varying
    few = [c for c in varying if frame[c].nunique() <= MAX_SERIES]
    return few[:1]


def aggregate(frame: pd.DataFrame, by: Sequence[str], metric: Metric) -> pd.DataFrame:
    """The mean of the metric (and of its exact counterpart and bounds) over the rows of each
    group ``by``, with the standard error of the mean from the rows' s.e. (sqrt(sum se^2) / k)."""
    cols = [c for c in (metric.column, metric.exact, metric.low, metric.high) if c]
    data = frame[[*by, *cols, *([metric.se] if metric.se else [])]].copy()
    for c in cols + ([metric.se] if metric.se else []):
        data[c] = pd.to_numeric(data[c], errors="coerce").astype(float)
    grouped = data.groupby(list(by), sort=True, dropna=False)
    out = grouped[cols].mean()
    out["rows"] = grouped.size()
    if metric.se:
        out["se"] = grouped[metric.se].apply(lambda s: float(np.sqrt(np.nansum(np.square(s))) / max(len(s), 1)))
    return out.reset_index()


def metric_plot(
    frame: pd.DataFrame,
    x: str,
    metric: Metric,
    *,
    panels: str | None,
    categorical: Sequence[str],
    title: str,
    names: dict[str, str] | None = None,
) -> Any:
    """``metric`` against swept parameter ``x``: one panel per value of ``panels`` (another swept
    parameter, or None), one series per combination of the categorical columns; error bars of
    +-1.96 s.e. (or the bounds), the exact counterpart dashed. ``names`` maps a column to the
    quantity its axis shows (`quantities`); a column without one is named as it is."""
    names = names or {}
    series = _series(frame, categorical)
    panel_values = sorted_values(frame[panels]) if panels else [None]
    shown = panel_values[:MAX_PANELS]
    ncols = min(3, len(shown))
    nrows = -(-len(shown) // ncols)
    fig, axes = new_figure(4.6 * ncols, 0.6 + 3.0 * nrows, ncols=ncols, nrows=nrows, sharey=True)
    axes = np.atleast_1d(axes)
    xs_all = sorted_values(frame[x])
    numeric_x = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs_all)
    position = {v: (v if numeric_x else i) for i, v in enumerate(xs_all)}
    agg = aggregate(frame, [x, *([panels] if panels else []), *series], metric)
    averaged = bool((agg["rows"] > 1).any())
    colours = [f"C{i}" for i in range(10)]
    for ax, pv in zip(axes, shown):
        part = agg if panels is None else agg[agg[panels] == pv]
        groups = part.groupby(series, sort=True, dropna=False) if series else [((), part)]
        for i, (key, g) in enumerate(groups):
            key = key if isinstance(key, tuple) else (key,)
            name = ", ".join(f"{c}={label(v)}" for c, v in zip(series, key)) or metric.column
            g = g.sort_values(x, key=lambda s: s.map(position))
            xv = g[x].map(position).to_numpy(float)
            y = g[metric.column].to_numpy(float)
            colour = colours[i % len(colours)]
            if metric.se:
                ax.errorbar(
                    xv, y, yerr=Z * g["se"].to_numpy(float), marker="o", ms=3, capsize=2, color=colour, label=name
                )
            elif metric.low and metric.high:
                ax.plot(xv, y, marker="o", ms=3, color=colour, label=name)
                ax.fill_between(
                    xv, g[metric.low].to_numpy(float), g[metric.high].to_numpy(float), color=colour, alpha=0.15
                )
            else:
                ax.plot(xv, y, marker="o", ms=3, color=colour, label=name)
            if metric.exact:
                ax.plot(xv, g[metric.exact].to_numpy(float), ls="--", marker="x", ms=4, color=colour, lw=1)
        if metric.exact:  # one legend entry for every series' dashed exact line
            ax.plot([], [], ls="--", marker="x", color="0.35", lw=1, label=f"exact ({metric.exact}), per series")
        if not numeric_x:
            ax.set_xticks(range(len(xs_all)), [label(v) for v in xs_all], rotation=30, fontsize=7)
        elif log_scale(xs_all):
            ax.set_xscale("log")
        if panels:
            ax.set_title(f"{panels} = {label(pv)}", fontsize=8)
        ax.set_xlabel(names.get(x, x))
    values = [agg[metric.column]]
    if metric.exact:
        values.append(agg[metric.exact])
    if log_scale(pd.concat(values)):
        for ax in axes[: len(shown)]:
            ax.set_yscale("log")
    what = names.get(metric.column, metric.column) + (" (mean over each job's rows)" if averaged else "")
    axes[0].set_ylabel(what)
    for ax in axes[len(shown) :]:
        ax.set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    if len(labels) > 3:  # beside the panels, not over the curves
        axes[len(shown) - 1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    elif labels:
        axes[0].legend(fontsize=7)
    interval = (
        f"; bars: +-{Z} s.e. ({metric.se})"
        if metric.se
        else f"; band: {metric.low}..{metric.high}"
        if metric.low
        else ""
    )
    more = f" (first {len(shown)} of {len(panel_values)} panels)" if len(panel_values) > len(shown) else ""
    fig.suptitle(wrap(f"{title}{interval}{more}", fig), fontsize=9)
    with warnings.catch_warnings():  # a legend beside the panels: savefig's tight box makes room for it
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
    return fig


def heatmap(frame: pd.DataFrame, rows: str, cols: str, metric: str, title: str) -> Any:
    """``metric`` (mean over every row of each job pair) over two swept parameters."""
    data = frame[[rows, cols, metric]].copy()
    data[metric] = pd.to_numeric(data[metric], errors="coerce").astype(float)
    grid = data.pivot_table(index=rows, columns=cols, values=metric, aggfunc="mean")
    grid = grid.reindex(index=sorted_values(grid.index), columns=sorted_values(grid.columns))
    fig, ax = new_figure(5.2, 4.0)
    values = grid.to_numpy(float)
    norm = None
    if log_scale(values.ravel()):
        # matplotlib: about 0.3 s to import, loaded only to draw
        from matplotlib.colors import LogNorm

        norm = LogNorm()
    im = ax.imshow(values, aspect="auto", origin="lower", cmap="viridis", norm=norm)
    ax.set_xticks(range(grid.shape[1]), [label(v) for v in grid.columns], rotation=45, fontsize=7)
    ax.set_yticks(range(grid.shape[0]), [label(v) for v in grid.index], fontsize=7)
    ax.set_xlabel(cols)
    ax.set_ylabel(rows)
    fig.colorbar(im, ax=ax, label=f"{metric} (mean over the job's rows)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig
