"""Figures as checked artifacts: every figure is drawn from a declared spec, and `audit` reads a
drawn figure back against that spec and its result table.

A paper's figure function builds a `FigureSpec` from the result table (and, where the figure
shows a threshold of the claims, from the run's config): its panels, each panel's rows with the
legend label of every row (the *series*), the layers drawn for every series (a line, points with
an interval, the exact counterpart dotted, bars, boxes), each axis's quantity, unit and scale,
the reference lines, and ONE map from series label to style shared by every panel. `render`
draws the spec (one legend for the whole figure, outside the panels) and `audit` checks a drawn
figure, whatever code drew it, the way a reader looks at it:

* every legend entry draws exactly its label's rows (a reader identifies a series by its colour,
  marker and fill, and a layer by its marker and line style), and every declared series is drawn;
* every axis is labelled with its quantity (and unit), at the declared scale;
* intervals are drawn where declared, named in the figure, and stay in [0, 1] for probabilities;
* a cell with zero successes is an upper-bound marker inside a shaded "below resolution" band,
  never a Wilson whisker from 0, and the bounds of several series at one point are dodged apart;
* ±k s.e. intervals of different series at one x do not overlap (``Layer.dodge``);
* rows without a value (a solver that timed out) are marked, not silently left out;
* series drawn on top of each other differ in marker or line style and are annotated;
* a claim about a small gap has a difference panel; colours the paper names are used;
* quick-profile cells with too few trials are marked unresolved, and the shading says so in the legend;
* no legend covers data, tick labels do not run together, no bars on a log axis, a symmetric-log
  axis does not switch scale where the boxes' quartiles sit, a log axis labels no minor tick,
  colours of look-alike entries differ, and no code name (``snake_case``) is printed.

Figures use matplotlib's object API on the Agg backend, so they render the same with or without
a display.
"""

from __future__ import annotations

import math
import re
import textwrap
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

__all__ = [
    "Axis",
    "Style",
    "Interval",
    "Layer",
    "Reference",
    "Panel",
    "FigureSpec",
    "Drawn",
    "figure",
    "style_map",
    "gap_label",
    "render",
    "audit",
    "draw",
    "config_value",
    "wilson_bounds",
    "PALETTE",
    "MARKERS",
]

Column = str | Callable[[pd.DataFrame], Any]  # a table column, or a function of a panel's rows

# a qualitative palette without greys (grey and black are kept for references and layer entries)
PALETTE = (
    "#1f77b4",  # blue
    "#ff7f0e",  # orange
    "#2ca02c",  # green
    "#d62728",  # red
    "#9467bd",  # purple
    "#8c564b",  # brown
    "#e377c2",  # pink
    "#17becf",  # cyan
    "#bcbd22",  # olive
    "#393b79",  # dark blue
    "#637939",  # moss
    "#e7ba52",  # ochre
    "#7b4173",  # plum
    "#ff1493",  # deep pink
)
NAMED = {"blue": PALETTE[0], "orange": PALETTE[1], "green": PALETTE[2], "red": PALETTE[3], "purple": PALETTE[4]}
MARKERS = ("o", "s", "^", "D", "P", "X", "*", "<", ">", "h", "p", "d", "8", "H")  # no "v": it marks upper bounds
UNRESOLVED = "#fbf3e4"  # the face of a panel whose cells have too few trials
NEUTRAL = "#444444"  # layer entries of the legend (exact, upper bound, ...): a reader matches marker and line
COINCIDE_TOL = 0.012  # two series closer than this fraction of the axes everywhere are drawn on top of each other
MIN_COLOUR_DISTANCE = 22.0  # CIE76 Delta E: entries with the same marker and line must differ in colour by this
_CODE_NAME = re.compile(r"\b[a-z][a-z0-9]+(?:_[a-z0-9]+)*_[a-z0-9]{2,}\b")  # hist_perturb, not f_i


# ---------------------------------------------------------------------------------------
# the spec
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Axis:
    """What an axis shows: its quantity, unit (``""`` for a pure number) and scale.

    ``scale`` is ``linear``, ``log``, ``log2``, ``symlog`` (with ``linthresh``) or ``category``
    (one tick per distinct value, in the panel's order). ``probability`` marks probabilities:
    their intervals must stay in [0, 1]. ``compact`` writes large tick values as 100K, 2M.
    """

    quantity: str
    unit: str = ""
    scale: str = "linear"
    probability: bool = False
    linthresh: float | None = None
    integer: bool = False
    compact: bool = False
    limits: tuple[float | None, float | None] | None = None
    rotation: float = 0.0  # of the tick labels

    @property
    def label(self) -> str:
        return f"{self.quantity} [{self.unit}]" if self.unit else self.quantity


@dataclass(frozen=True)
class Style:
    """How one series is drawn in every panel: colour, marker, line style and whether its markers are filled."""

    color: str
    marker: str = "o"
    linestyle: str = "-"
    filled: bool = True


@dataclass(frozen=True)
class Interval:
    """An interval drawn around each value: ``wilson`` (the score interval of ``successes`` in
    ``trials`` at ``level``; it stays in [0, 1]), ``se`` (``k`` standard errors from column ``se``)
    or ``range`` (from column ``low`` to column ``high``: e.g. the fastest and slowest of repeated
    timings, ``what`` saying what the range is)."""

    kind: str
    successes: Column = ""
    trials: Column = ""
    se: Column = ""
    k: float = 2.0
    level: float = 0.95
    clip: tuple[float, float] | None = None  # an se interval of a probability: cut to [0, 1]
    low: Column = ""
    high: Column = ""
    what: str = "range"

    @property
    def name(self) -> str:
        if self.kind == "wilson":
            return f"{self.level:.0%} Wilson interval"
        if self.kind == "se":
            return f"±{self.k:g} s.e." + (f" (cut to [{self.clip[0]:g}, {self.clip[1]:g}])" if self.clip else "")
        if self.kind == "range":
            return self.what
        raise ValueError(f"interval kind must be wilson, se or range, got {self.kind!r}")

    def bounds(self, rows: pd.DataFrame, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper ends for each row (NaN where there is nothing to draw)."""
        if self.kind == "wilson":
            return wilson_bounds(values(rows, self.successes), values(rows, self.trials), self.level)
        if self.kind == "range":
            return values(rows, self.low), values(rows, self.high)
        half = self.k * values(rows, self.se)
        if self.clip is not None:
            return np.clip(y - half, *self.clip), np.clip(y + half, *self.clip)
        return y - half, y + half


@dataclass(frozen=True)
class Layer:
    """What is drawn for every series of a panel.

    The first layer of a panel is its *primary* layer, drawn in the series' own style; a further
    layer overrides ``marker`` and/or ``linestyle`` and has a ``name``, its legend entry (drawn in a
    neutral colour: a reader matches the series by colour, the layer by marker and line).

    ``kind``: ``line``, ``points``, ``step``, ``bar`` or ``box`` (``y`` then maps ``q1``, ``med``,
    ``q3``, ``lo``, ``hi`` to columns). ``successes`` with ``upper``: rows with no success are drawn
    as an upper bound (``v``) inside a shaded band "below resolution", never as a point.
    ``missing`` names a column whose text says why a row has no value (e.g. a solver's status):
    such rows get a marker at their x. ``resolution`` = (trials column, minimum): rows with fewer
    trials are marked unresolved in their panel. ``fill`` shades the area under a step curve.
    """

    y: Column | Mapping[str, Column]
    name: str = ""
    kind: str = "line"
    marker: str | None = None
    linestyle: str | None = None
    interval: Interval | None = None
    successes: Column | None = None
    upper: Column | None = None
    missing: Column | None = None
    resolution: tuple[Column, float] | None = None
    fill: bool = False
    markersize: float | None = None
    hollow: bool = False
    only: tuple[str, ...] | None = None  # draw it for these series only (e.g. boxes for the simulated series)
    dodge: float = 0.0  # x offset between neighbouring series (octaves on a log axis), so intervals stay apart


@dataclass(frozen=True)
class Reference:
    """A line that does not come from the table's series: a bound, a threshold, a printed value.

    A horizontal line at ``y`` (a number), a vertical one at ``x`` (a number, ``vertical=True``) or
    the curve through the points ``(x, y)``.
    """

    label: str
    y: Any = None
    x: Any = None
    vertical: bool = False
    color: str = "black"
    linestyle: str = ":"
    marker: str = ""


@dataclass(frozen=True)
class Reading:
    """A threshold read from the paper's words (a claim's declared reading), drawn dashed and
    labelled on the difference panel of its gap ``a - b``: at ``value``, or at ``value`` times b
    where ``relative`` (a reading of "slightly above" as a fraction of the lower curve)."""

    gap: tuple[str, str]
    value: float
    label: str
    relative: bool = False


@dataclass(frozen=True)
class Panel:
    """One panel: its rows (``data``, with the legend label of each row in column ``series``), its
    x column, the two axes, the layers drawn for each series and its reference lines.

    ``gaps`` = pairs of series labels (a, b) whose difference a - b a claim reads: drawn in a
    difference panel beneath, with the ``readings`` of the claims about them. ``xorder`` fixes the
    order of a category axis.
    """

    data: pd.DataFrame
    x: Column
    xaxis: Axis
    yaxis: Axis
    layers: tuple[Layer, ...]
    title: str = ""
    series: str = "series"
    references: tuple[Reference, ...] = ()
    gaps: tuple[tuple[str, str], ...] = ()
    xorder: tuple[Any, ...] | None = None
    notes: tuple[str, ...] = ()
    readings: tuple[Reading, ...] = ()


@dataclass(frozen=True)
class FigureSpec:
    """A whole figure: its title, panels (``ncols`` per row), the one style map of its series,
    the colours the paper names for some series (checked) and caption notes (e.g. what the
    intervals are), printed under the title."""

    title: str
    panels: tuple[Panel, ...]
    styles: Mapping[str, Style]
    ncols: int = 1
    panel_size: tuple[float, float] = (4.6, 3.3)
    notes: tuple[str, ...] = ()
    paper_colours: Mapping[str, str] = field(default_factory=dict)
    diagram: Callable[[Any], None] | None = None  # a drawing without data axes (e.g. an assignment diagram)
    sharey: bool = False  # one y scale for every panel, so that panels compare directly


# ---------------------------------------------------------------------------------------
# building blocks
# ---------------------------------------------------------------------------------------
def values(rows: pd.DataFrame, col: Column) -> np.ndarray:
    """A column (or a function of the rows) as a float array."""
    out = col(rows) if callable(col) else rows[col]
    return np.asarray(out, dtype=float).reshape(-1)


def wilson_bounds(successes: Any, trials: Any, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of ``successes`` in ``trials`` (elementwise; NaN where trials is 0 or NaN)."""
    # SciPy: slow to import, loaded only for this computation
    from scipy import stats

    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    z = float(stats.norm.ppf(0.5 + level / 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        lo = np.where(k <= 0, 0.0, np.maximum(0.0, centre - half))
        hi = np.where(k >= n, 1.0, np.minimum(1.0, centre + half))
    bad = ~(n > 0)
    return np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)


def gap_label(a: str, b: str) -> str:
    """The legend label of the difference a - b."""
    return f"{a} − {b}"


def style_map(
    labels: Sequence[str],
    *,
    fixed: Mapping[str, str] | None = None,
    linestyles: Mapping[str, str] | None = None,
    markers: Mapping[str, str] | None = None,
    hollow: Sequence[str] = (),
) -> dict[str, Style]:
    """One style per series label, shared by every panel of a figure: distinct colours (``fixed``
    ones first, e.g. those the paper names; then the palette's others in order) and distinct
    markers, so that series drawn on top of each other stay apart."""
    fixed = {k: NAMED.get(v, v) for k, v in (fixed or {}).items()}
    free = [c for c in PALETTE if c not in fixed.values()]
    out: dict[str, Style] = {}
    for i, label in enumerate(dict.fromkeys(labels)):
        color = fixed.get(label) or free[(len(out) - sum(lbl in fixed for lbl in out)) % len(free)]
        marker = (markers or {}).get(label, MARKERS[i % len(MARKERS)])
        out[label] = Style(color, marker, (linestyles or {}).get(label, "-"), label not in hollow)
    return out


def config_value(cfg: Any, key: str) -> Any:
    """The config value at dotted ``key``, or None without a config (or without the key)."""
    if cfg is None:
        return None
    return OmegaConf.select(cfg, key, default=None)


@dataclass(frozen=True)
class Drawn:
    """A registered figure: ``build(table, cfg)`` gives its spec; calling it draws the figure.

    ``ledger`` names the paper's ledger items the figure shows: its own item (the paper's
    caption) first, then the statements its claims read. ``about`` says what the figure is
    where the paper has no such figure.
    """

    build: Callable[[pd.DataFrame, Any], FigureSpec]
    ledger: tuple[str, ...] = ()
    about: str = ""

    def spec(self, table: pd.DataFrame, cfg: Any = None) -> FigureSpec:
        return self.build(table, cfg)

    def __call__(self, table: pd.DataFrame, cfg: Any = None) -> Any:
        return render(self.spec(table, cfg))

    def audit(self, table: pd.DataFrame, cfg: Any = None) -> list[str]:
        """Draw the figure and check it against its spec (see `audit`)."""
        # matplotlib: about 0.3 s to import, loaded only to draw
        import matplotlib.pyplot as plt

        spec = self.spec(table, cfg)
        fig = render(spec)
        try:
            return audit(fig, spec)
        finally:
            plt.close(fig)


def figure(*, ledger: Sequence[str] = (), about: str = "") -> Callable[[Callable[..., FigureSpec]], Drawn]:
    """Decorator: a ``(table, cfg) -> FigureSpec`` function becomes a registered `Drawn` figure."""

    def wrap(build: Callable[..., FigureSpec]) -> Drawn:
        return Drawn(build, tuple(ledger), about)

    return wrap


def draw(fn: Callable[..., Any], table: pd.DataFrame, cfg: Any = None) -> Any:
    """Draw a registered figure: a `Drawn` gets the run's config, a plain function only the table."""
    return fn(table, cfg) if isinstance(fn, Drawn) else fn(table)


def draw_audited(fn: Callable[..., Any], table: pd.DataFrame, cfg: Any = None) -> tuple[Any, list[str] | None]:
    """Draw a registered figure as `draw` does and read it back against its spec and table (`audit`):
    the figure and the problems found (None for a plain function, which declares no spec to read)."""
    if not isinstance(fn, Drawn):
        return fn(table), None
    spec = fn.spec(table, cfg)
    fig = render(spec)
    return fig, audit(fig, spec)


# ---------------------------------------------------------------------------------------
# rendering
# ---------------------------------------------------------------------------------------
def _pyplot() -> Any:
    # matplotlib: about 0.3 s to import, loaded only to draw
    import matplotlib

    matplotlib.use("Agg")
    # matplotlib: about 0.3 s to import, loaded only to draw
    import matplotlib.pyplot as plt

    return plt


def _xpos(panel: Panel, rows: pd.DataFrame) -> np.ndarray:
    """x of each row: the column's value, or its position on a category axis."""
    if panel.xaxis.scale != "category":
        return values(rows, panel.x)
    order = _xcategories(panel)
    raw = panel.x(rows) if callable(panel.x) else rows[panel.x]
    return np.asarray([order.index(v) for v in raw], dtype=float)


def _xcategories(panel: Panel) -> list[Any]:
    if panel.xorder is not None:
        return list(panel.xorder)
    raw = panel.x(panel.data) if callable(panel.x) else panel.data[panel.x]
    return list(dict.fromkeys(raw))


def _layer_style(style: Style, layer: Layer) -> tuple[str, str, str]:
    marker = style.marker if layer.marker is None else layer.marker
    ls = style.linestyle if layer.linestyle is None else layer.linestyle
    if layer.kind == "points":
        ls = ""
    return style.color, marker, ls


def _mfc(style: Style) -> str:
    return style.color if style.filled else "white"


def _series(panel: Panel, layer: Layer | None = None) -> list[tuple[str, pd.DataFrame]]:
    out = [(str(k), g) for k, g in panel.data.groupby(panel.series, sort=False)]
    return [(k, g) for k, g in out if layer is None or layer.only is None or k in layer.only]


def _layer_x(panel: Panel, layer: Layer, label: str, rows: pd.DataFrame, styles: Mapping[str, Style]) -> np.ndarray:
    """x of each row as the layer draws it: dodged by the series' rank among the layer's series."""
    x = _xpos(panel, rows)
    if not layer.dodge or layer.kind in ("bar", "box"):
        return x
    labels = [lbl for lbl in styles if lbl in {k for k, _ in _series(panel, layer)}]
    shift = (labels.index(label) - (len(labels) - 1) / 2) * layer.dodge
    return x * 2.0**shift if panel.xaxis.scale in ("log", "log2") else x + shift


def _bar_layout(panel: Panel, styles: Mapping[str, Style]) -> tuple[dict[str, float], float]:
    bars = {lbl for lay in panel.layers if lay.kind == "bar" for lbl, _ in _series(panel, lay)}
    labels = [lbl for lbl in styles if lbl in bars]
    width = 0.8 / max(len(labels), 1)
    return {lbl: -0.4 + width / 2 + i * width for i, lbl in enumerate(labels)}, width


def _configure_axis(ax: Any, which: str, axis: Axis, panel: Panel) -> None:
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator  # matplotlib: only drawing needs it

    setter = ax.set_xscale if which == "x" else ax.set_yscale
    target = ax.xaxis if which == "x" else ax.yaxis
    if axis.scale == "log":
        from matplotlib.ticker import NullFormatter  # matplotlib: only drawing needs it

        setter("log")
        target.set_minor_formatter(NullFormatter())  # 2x10^-2, 3x10^-2, ... crowd; see _two_log_labels
    elif axis.scale == "log2":
        setter("log", base=2)
    elif axis.scale == "symlog":
        lin = axis.linthresh or 1.0
        setter("symlog", linthresh=lin, linscale=0.5)
        target.set_minor_locator(NullLocator())
        plain = target.get_major_formatter()
        # no label on the ticks inside or next to the linear part: they would run into 0's
        target.set_major_formatter(FuncFormatter(lambda v, pos: "" if 0 < abs(v) < 3 * lin else plain(v, pos)))
    elif axis.scale == "category" and which == "x":
        cats = _xcategories(panel)
        wrapped = ["\n".join(textwrap.fill(line, 18) for line in str(c).split("\n")) for c in cats]  # keep given breaks
        ax.set_xticks(np.arange(len(cats)), wrapped)
    if axis.rotation:
        target.set_tick_params(labelrotation=axis.rotation)
    if axis.integer:
        target.set_major_locator(MaxNLocator(integer=True))
    if axis.compact:
        target.set_major_formatter(FuncFormatter(lambda v, _: _compact(v)))
    (ax.set_xlabel if which == "x" else ax.set_ylabel)(axis.label)


def _apply_limits(ax: Any, panel: Panel) -> None:
    """Declared limits, after autoscaling (a None end keeps the autoscaled one)."""
    for axis, get, set_ in ((panel.xaxis, ax.get_xlim, ax.set_xlim), (panel.yaxis, ax.get_ylim, ax.set_ylim)):
        if axis.limits is not None:
            lo, hi = get()
            set_(lo if axis.limits[0] is None else axis.limits[0], hi if axis.limits[1] is None else axis.limits[1])


def _collapsed(lo: float, hi: float) -> bool:
    """A view no wider than rounding around a nonzero value (its points lie on the frame)."""
    return 0 < abs(hi - lo) <= 1e-9 * abs((lo + hi) / 2)


def _widen_single_value(ax: Any) -> None:
    """An axis whose data hold one value, up to rounding (log-axis positions computed in two ways
    differ by an ulp), autoscales to a view a few ulps wide that draws its points on the frame:
    give it a decade each side on a log axis, or the view matplotlib gives one exact value."""
    for target, get, set_ in ((ax.xaxis, ax.get_xlim, ax.set_xlim), (ax.yaxis, ax.get_ylim, ax.set_ylim)):
        with warnings.catch_warnings():  # one exact value: matplotlib widens it itself, and says so
            warnings.filterwarnings("ignore", message="Attempting to set identical", category=UserWarning)
            lo, hi = get()
        mid = (lo + hi) / 2
        if np.isfinite(mid) and _collapsed(lo, hi):
            log = target.get_scale() == "log" and mid > 0
            set_(*((mid / 10, mid * 10) if log else target.get_major_locator().nonsingular(mid, mid)))


def _two_log_labels(ax: Any) -> None:
    """A base-10 log axis whose view holds fewer than two powers of ten gets major ticks at 1, 2
    and 5 times them, labelled as plain numbers, instead of crowded minor labels (2x10^-2, 3x10^-2, ...)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # matplotlib: only drawing needs it

    for target, lim, scale in ((ax.xaxis, ax.get_xlim(), ax.get_xscale()), (ax.yaxis, ax.get_ylim(), ax.get_yscale())):
        if scale != "log" or getattr(target.get_transform(), "base", 10) != 10:
            continue
        lo, hi = sorted(lim)
        if lo <= 0 or np.floor(np.log10(hi)) - np.ceil(np.log10(lo)) >= 1:
            continue
        target.set_major_locator(LogLocator(10, subs=(1.0, 2.0, 5.0)))
        target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.3g}"))
        target.set_minor_formatter(NullFormatter())


def _compact(v: float) -> str:
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(v) >= div:
            return f"{v / div:g}{suffix}"
    return f"{v:g}"


@dataclass
class _Drawn:
    """What the renderer drew of one series: kept to mark coincidences."""

    label: str
    line: Any
    x: np.ndarray
    y: np.ndarray


def _draw_layer(ax: Any, panel: Panel, layer: Layer, styles: Mapping[str, Style], drawn: list[_Drawn]) -> dict:
    """Draw one layer for every series of the panel; returns what the legend must explain."""
    used: dict[str, Any] = {}
    if layer.kind == "box":
        _draw_boxes(ax, panel, layer)
        return {"box": True}
    offsets, width = _bar_layout(panel, styles) if layer.kind == "bar" else ({}, 0.0)
    for label, rows in _series(panel, layer):
        style = styles[label]
        color, marker, ls = _layer_style(style, layer)
        x, y = _layer_x(panel, layer, label, rows, styles), values(rows, layer.y)  # type: ignore[arg-type]
        zero = np.zeros(len(rows), bool)
        if layer.successes is not None:
            zero = values(rows, layer.successes) == 0
            y = np.where(zero, np.nan, y)
        if layer.kind == "bar":
            xb = x + offsets[label]
            ok = np.isfinite(y)
            ax.bar(xb[ok], y[ok], width, color=color, edgecolor="black", linewidth=0.5, label=label)
            if layer.interval is not None:
                _draw_interval(ax, xb, y, rows, layer.interval, "#777777", ok)
        else:
            kw: dict[str, Any] = {"color": color, "marker": marker or "None", "linestyle": ls or "None"}
            mfc = "none" if layer.hollow else _mfc(style)
            kw.update(mfc=mfc if marker else "none", ms=layer.markersize or 5.0, label=label)
            if layer.kind == "step":
                kw["drawstyle"] = "steps-post"
            (line,) = ax.plot(x, y, **kw)
            if not layer.name:
                drawn.append(_Drawn(label, line, x, y))
            if layer.fill:
                ok = np.isfinite(y)
                ax.fill_between(x[ok], y[ok], step="post", alpha=0.15, color=color, gid="fill", lw=0)
            if layer.interval is not None:
                _draw_interval(ax, x, y, rows, layer.interval, color, np.isfinite(y))
                used["interval"] = layer.interval
        if zero.any():
            up = values(rows, layer.upper)[zero]  # type: ignore[arg-type]
            xz = (x + offsets[label])[zero] if layer.kind == "bar" else x[zero]
            edge = "black" if _hex(color) == "#ffffff" else color  # a white series' bound stays visible
            ax.plot(xz, up, color=color, mec=edge, marker="v", linestyle="None", ms=6, label=f"{label}: upper bound")
            used.setdefault("upper", []).extend(up.tolist())
        if layer.missing is not None:
            gone = ~np.isfinite(values(rows, layer.y))  # type: ignore[arg-type]
            if gone.any():
                reasons = (layer.missing(rows) if callable(layer.missing) else rows[layer.missing]).astype(str)
                used.setdefault("missing", set()).update(np.asarray(reasons)[gone].tolist())
                ax.plot(
                    x[gone],
                    np.full(gone.sum(), 0.03),
                    color=color,
                    marker="x",
                    linestyle="None",
                    ms=8,
                    mew=2,
                    transform=ax.get_xaxis_transform(),
                    gid="missing",
                    clip_on=False,
                )
        if layer.resolution is not None:
            col, minimum = layer.resolution
            n = values(rows, col)
            if (n < minimum).any():
                used.setdefault("unresolved", []).append((label, int(np.nanmin(n)), minimum))
    return used


def _draw_interval(
    ax: Any, x: np.ndarray, y: np.ndarray, rows: pd.DataFrame, interval: Interval, color: str, ok: np.ndarray
) -> None:
    lo, hi = interval.bounds(rows, y)
    ok = ok & np.isfinite(lo) & np.isfinite(hi)
    if ok.any():
        ax.vlines(x[ok], lo[ok], hi[ok], color=color, lw=1.1, gid="interval")


def _draw_boxes(ax: Any, panel: Panel, layer: Layer) -> None:
    cols = layer.y
    assert isinstance(cols, Mapping)
    rows = pd.concat([g for _, g in _series(panel, layer)])
    x = _xpos(panel, rows)
    q = {k: values(rows, c) for k, c in cols.items()}
    stats = [
        {"med": q["med"][i], "q1": q["q1"][i], "q3": q["q3"][i], "whislo": q["lo"][i], "whishi": q["hi"][i]}
        for i in range(len(rows))
    ]
    parts = ax.bxp(
        stats,
        positions=x,
        widths=0.55,
        showfliers=False,
        manage_ticks=False,
        medianprops={"color": PALETTE[1]},
        boxprops={"color": "black"},
    )
    for kind, artists in parts.items():
        for a in artists:
            a.set_gid(f"box:{kind}")


def _draw_reference(ax: Any, ref: Reference) -> None:
    kw = {"color": ref.color, "linestyle": ref.linestyle or "None", "marker": ref.marker or "None", "lw": 1.2}
    if ref.x is None and np.ndim(ref.y) == 0:
        ax.axhline(float(ref.y), label=ref.label, **kw)
    elif ref.vertical:
        ax.axvline(float(ref.x), label=ref.label, **kw)
    else:
        ax.plot(np.asarray(ref.x, float), np.asarray(ref.y, float), label=ref.label, **kw)


def _axes_xy(ax: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Points in axes coordinates (0..1 across the panel), after the axes' scales."""
    pts = np.column_stack([np.asarray(x, float), np.asarray(y, float)])
    with np.errstate(all="ignore"):
        return ax.transLimits.transform(ax.transScale.transform(pts))


def coinciding(ax: Any, series: Sequence[tuple[str, np.ndarray, np.ndarray]]) -> list[list[str]]:
    """Groups of series labels whose points lie on top of each other in ``ax``: the same x values
    (at least two) and y closer than `COINCIDE_TOL` of the axes' height at every one of them."""
    ax.get_xlim(), ax.get_ylim()  # apply pending autoscaling
    pts = []
    for label, x, y in series:
        ok = np.isfinite(x) & np.isfinite(y)
        if ok.sum() < 2:
            continue
        order = np.argsort(x[ok], kind="stable")
        pts.append((label, x[ok][order], _axes_xy(ax, x[ok][order], y[ok][order])[:, 1]))
    groups: list[list[str]] = []
    for i, (a, xa, ya) in enumerate(pts):
        for b, xb, yb in pts[i + 1 :]:
            if a == b or len(xa) != len(xb) or not np.allclose(xa, xb, rtol=1e-9, atol=1e-12):
                continue
            if np.all(np.abs(ya - yb) <= COINCIDE_TOL):
                for g in groups:
                    if a in g or b in g:
                        g.extend(lbl for lbl in (a, b) if lbl not in g)
                        break
                else:
                    groups.append([a, b])
    return groups


def _mark_coincidences(ax: Any, drawn: list[_Drawn], styles: Mapping[str, Style]) -> list[str]:
    groups = coinciding(ax, [(d.label, d.x, d.y) for d in drawn])
    order = list(styles)
    for group in groups:
        group.sort(key=order.index)
        for rank, label in enumerate(group):  # the first drawn largest, so that every marker shows
            for d in drawn:
                if d.label == label:
                    d.line.set_markersize(d.line.get_markersize() * (1 + 0.6 * (len(group) - 1 - rank)))
                    d.line.set_zorder(2.0 + 0.01 * rank)
    return [f"coincide: {', '.join(g)}" for g in groups]


def render(spec: FigureSpec) -> Any:
    """Draw ``spec``: panels in a grid (a difference panel beneath each panel with gaps), one
    legend for the figure outside the panels, the caption notes under the title."""
    plt = _pyplot()
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if spec.diagram is not None:
        fig = plt.figure(figsize=spec.panel_size, layout="constrained")
        ax = fig.add_subplot()
        spec.diagram(ax)
        fig.suptitle(_title(spec), fontsize=10)
        return fig
    n = len(spec.panels)
    ncols = max(1, min(spec.ncols, n))
    nrows = -(-n // ncols)
    gaps = any(p.gaps for p in spec.panels)
    pw, ph = spec.panel_size
    width = max(pw * ncols, 6.0)
    fig = plt.figure(figsize=(width, ph * nrows * (1.4 if gaps else 1.0) + 0.6), layout="constrained")
    grid = fig.add_gridspec(nrows * (2 if gaps else 1), ncols, height_ratios=[3, 1.2] * nrows if gaps else None)
    entries: dict[str, Any] = {}
    seen_labels: list[str] = []
    handles: list[Any] = []
    first = None
    for i, panel in enumerate(spec.panels):
        r, c = divmod(i, ncols)
        ax = fig.add_subplot(grid[r * (2 if gaps else 1), c], sharey=first if spec.sharey else None)
        first = first or ax
        ax.set_gid(f"panel:{i}")
        _configure_axis(ax, "x", panel.xaxis, panel)
        _configure_axis(ax, "y", panel.yaxis, panel)
        drawn: list[_Drawn] = []
        used: dict[str, Any] = {}
        for layer in panel.layers:
            for k, v in _draw_layer(ax, panel, layer, spec.styles, drawn).items():
                if isinstance(v, list):
                    used.setdefault(k, []).extend(v)
                elif isinstance(v, set):
                    used.setdefault(k, set()).update(v)
                else:
                    used[k] = v
            if layer.name:
                entries.setdefault(f"layer:{layer.name}", layer)
        for label in dict.fromkeys(panel.data[panel.series].astype(str)):
            if label not in seen_labels:
                seen_labels.append(label)
        for ref in panel.references:
            _draw_reference(ax, ref)
            entries.setdefault(f"ref:{ref.label}", ref)
        _widen_single_value(ax)
        _apply_limits(ax, panel)
        _two_log_labels(ax)
        notes = list(panel.notes) + _mark_coincidences(ax, drawn, spec.styles)
        if used.get("upper"):
            lo, _ = ax.get_ylim()
            ax.axhspan(lo, max(used["upper"]), color="0.88", zorder=0, lw=0, label="below resolution")
            ax.set_ylim(bottom=lo)
            entries["band"] = True
        if used.get("missing"):
            entries["missing"] = sorted(used["missing"])
        if used.get("unresolved"):
            least = min(n for _, n, _ in used["unresolved"])
            minimum = used["unresolved"][0][2]
            notes.append(f"unresolved: {least} trials in the cell (< {minimum:g}); intervals are wide")
            ax.set_facecolor(UNRESOLVED)
            entries["unresolved"] = minimum
        if used.get("box"):
            entries["box"] = True
        title = panel.title + "".join(f"\n({t})" for t in notes)
        ax.set_title(title, fontsize=8.5)
        if panel.gaps:
            _draw_gaps(fig.add_subplot(grid[r * 2 + 1, c], sharex=ax), panel, spec.styles, i, seen_labels)
    bars = {lbl for p in spec.panels for lay in p.layers if lay.kind == "bar" for lbl, _ in _series(p, lay)}
    order = list(spec.styles)
    for label in sorted(seen_labels, key=order.index):  # the style map's order: a figure's sorted series stay sorted
        st = spec.styles[label]
        primary = next((lay for p in spec.panels for lay in p.layers if label in dict(_series(p, lay))), Layer(""))
        if primary.kind == "box":
            handles.append(Line2D([], [], color="black", label=label))
        elif label in bars:
            handles.append(Patch(facecolor=st.color, edgecolor="black", lw=0.5, label=label))
        else:
            color, marker, ls = _layer_style(st, primary)
            handles.append(
                Line2D(
                    [],
                    [],
                    color=color,
                    marker=marker or "None",
                    linestyle=ls or "None",  # type: ignore[arg-type]
                    mfc=_mfc(st) if marker else "none",
                    label=label,
                )
            )
    readings = {r.label: spec.styles[gap_label(*r.gap)].color for p in spec.panels if p.gaps for r in p.readings}
    handles += [Line2D([], [], color=c, linestyle="--", lw=1.0, label=label) for label, c in readings.items()]
    for key, what in entries.items():
        if key.startswith("layer:"):
            lay = what
            marker = lay.marker or ""
            ls = "" if lay.kind == "points" else (lay.linestyle if lay.linestyle is not None else "-")
            handles.append(
                Line2D(
                    [],
                    [],
                    color=NEUTRAL,
                    marker=marker or "None",
                    linestyle=ls or "None",  # type: ignore[arg-type]
                    mfc="none" if lay.hollow else NEUTRAL,
                    label=lay.name,
                )
            )
        elif key.startswith("ref:"):
            ref = what
            handles.append(
                Line2D(
                    [],
                    [],
                    color=ref.color,
                    linestyle=ref.linestyle or "None",
                    marker=ref.marker or "None",
                    label=ref.label,
                )
            )
    if entries.get("band"):
        handles.append(Line2D([], [], color=NEUTRAL, marker="v", linestyle="None", label="no success: 95% upper bound"))
        handles.append(Patch(facecolor="0.88", label="below resolution"))
    if "unresolved" in entries:
        label = f"shaded panel: fewer than {entries['unresolved']:g} trials in its cell"
        handles.append(Patch(facecolor=UNRESOLVED, edgecolor="0.6", lw=0.5, label=label))
    for reason in list(entries.get("missing", [])):
        handles.append(Line2D([], [], color=NEUTRAL, marker="x", mew=2, linestyle="None", label=f"no value: {reason}"))
    if any(lay.interval for p in spec.panels for lay in p.layers):
        names = dict.fromkeys(lay.interval.name for p in spec.panels for lay in p.layers if lay.interval)
        handles.append(
            Line2D([], [], color=NEUTRAL, marker="|", ms=10, linestyle="None", label="bars: " + ", ".join(names))
        )
    if handles:
        longest = max(len(h.get_label()) for h in handles)
        ncol = max(1, min(len(handles), int(width * 72 / (7.5 * 0.55 * longest + 40))))
        fig.legend(handles=handles, loc="outside lower center", fontsize=7.5, frameon=False, ncols=ncol)
        w, h = fig.get_size_inches()
        fig.set_size_inches(w, h + 0.19 * -(-len(handles) // ncol) + 0.15)
    fig.suptitle(_title(spec), fontsize=10)
    return fig


def _title(spec: FigureSpec) -> str:
    return spec.title + ("\n" + "; ".join(spec.notes) if spec.notes else "")


def _gap_values(panel: Panel, a: str, b: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """x and a - b of the primary layer where both series have a value (and the combined s.e.)."""
    layer = panel.layers[0]
    frames = {}
    for label, rows in _series(panel):
        if label in (a, b):
            y = values(rows, layer.y)  # type: ignore[arg-type]
            se = None
            if layer.interval is not None and layer.interval.kind == "se":
                se = values(rows, layer.interval.se)
            frames[label] = pd.DataFrame({"x": _xpos(panel, rows), "y": y, "se": se if se is not None else np.nan})
    if a not in frames or b not in frames:
        return np.array([]), np.array([]), None
    m = frames[a].merge(frames[b], on="x", suffixes=("_a", "_b")).dropna(subset=["y_a", "y_b"])
    se = (
        np.sqrt(m.se_a**2 + m.se_b**2).to_numpy()
        if layer.interval is not None and layer.interval.kind == "se"
        else None
    )
    return m.x.to_numpy(float), (m.y_a - m.y_b).to_numpy(float), se


def _lower_values(panel: Panel, label: str, x: np.ndarray) -> np.ndarray:
    """The primary layer's values of series ``label`` at the positions ``x``."""
    for name, rows in _series(panel):
        if name == label:
            at = dict(zip(_xpos(panel, rows), values(rows, panel.layers[0].y)))  # type: ignore[arg-type]
            return np.array([at.get(v, np.nan) for v in x], dtype=float)
    return np.full(x.size, np.nan)


def _draw_gaps(ax: Any, panel: Panel, styles: Mapping[str, Style], i: int, seen: list[str]) -> None:
    ax.set_gid(f"difference:{i}")
    k = panel.layers[0].interval.k if panel.layers[0].interval is not None else 2.0
    for a, b in panel.gaps:
        label = gap_label(a, b)
        st = styles[label]
        x, d, se = _gap_values(panel, a, b)
        ax.plot(x, d, color=st.color, marker=st.marker, linestyle=st.linestyle, ms=4, label=label)
        if se is not None:
            ax.vlines(x, d - k * se, d + k * se, color=st.color, lw=1.1, gid="interval")
        if label not in seen:
            seen.append(label)
    for r in panel.readings:
        if r.gap not in panel.gaps:
            raise ValueError(f"reading {r.label!r} is about the gap {r.gap}, which the panel does not draw")
        x, d, _ = _gap_values(panel, *r.gap)
        if not x.size:
            continue
        level = np.full(x.size, r.value)
        if r.relative:  # a fraction of the lower curve b: b = a - (a - b), taken where both are drawn
            level = r.value * _lower_values(panel, r.gap[1], x)
        ax.plot(x, level, color=styles[gap_label(*r.gap)].color, linestyle="--", lw=1.0, label=r.label, gid="reading")
    ax.axhline(0, color="0.6", lw=0.8, gid="guide")
    ax.set_xlabel(panel.xaxis.label)
    ax.set_ylabel(f"difference\n[{panel.yaxis.unit}]" if panel.yaxis.unit else "difference", fontsize=8)
    ax.tick_params(labelsize=7)


# ---------------------------------------------------------------------------------------
# reading a drawn figure back
# ---------------------------------------------------------------------------------------
def _hex(color: Any) -> str:
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.colors import to_hex

    try:
        return to_hex(color, keep_alpha=False)
    except (ValueError, TypeError):
        arr = np.asarray(color, float).reshape(-1, 4)
        return to_hex(arr[0], keep_alpha=False) if len(arr) else ""


def _marker(m: Any) -> str:
    return "" if m in (None, "None", "none", "", " ") else str(m)


def _ls(ls: Any) -> str:
    if ls in (None, "None", "none", "", " "):
        return ""
    return {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}.get(ls, str(ls))


@dataclass(frozen=True)
class _Key:
    """How a reader tells drawn things apart."""

    color: str
    marker: str
    linestyle: str
    fill: str  # the marker face colour ("" without marker)


def _line_key(line: Any) -> _Key:
    marker = _marker(line.get_marker())
    mfc = line.get_markerfacecolor()
    fill = "" if not marker else ("none" if str(mfc).lower() == "none" else _hex(mfc))
    return _Key(_hex(line.get_color()), marker, _ls(line.get_linestyle()), fill)


def _legend_entries(fig: Any, ax: Any) -> list[tuple[str, _Key | None, str]]:
    """(label, key, kind) of the legend a reader reads ``ax`` with: its own, else the figure's."""
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    legends = [ax.get_legend()] if ax.get_legend() is not None else []
    if not legends:
        legends = list(fig.legends) + [a.get_legend() for a in fig.axes if a.get_legend() is not None]
    out: list[tuple[str, _Key | None, str]] = []
    for leg in legends:
        for handle, text in zip(leg.legend_handles, leg.texts):
            label = text.get_text()
            if isinstance(handle, Line2D):
                out.append((label, _line_key(handle), "line"))
            elif isinstance(handle, Patch):
                out.append((label, _Key(_hex(handle.get_facecolor()), "", "", ""), "patch"))
            elif isinstance(handle, LineCollection):  # an errorbar's entry: its data line carries the style
                line = next(
                    (c[0] for a in fig.axes for c in a.containers if c.get_label() == label and c[0] is not None), None
                )
                out.append((label, _line_key(line) if line is not None else None, "line"))
            else:
                out.append((label, None, "other"))
    return out


def _data_axes(fig: Any) -> tuple[list[Any], list[Any]]:
    """The panels and the difference panels of a figure (by the renderer's ids, else every visible axes with data)."""
    tagged = [a for a in fig.axes if str(a.get_gid() or "").startswith("panel:")]
    if tagged:
        return tagged, [a for a in fig.axes if str(a.get_gid() or "").startswith("difference:")]
    return [a for a in fig.axes if a.get_visible() and a.has_data()], []


def _texts(fig: Any, ax: Any | None = None) -> list[str]:
    out = [t.get_text() for t in fig.texts]
    if fig._suptitle is not None:
        out.append(fig._suptitle.get_text())
    for a in [ax] if ax is not None else fig.axes:
        out += [a.get_title(loc) for loc in ("left", "center", "right")] + [t.get_text() for t in a.texts]
    for leg in list(fig.legends) + [a.get_legend() for a in fig.axes if a.get_legend() is not None]:
        out += [t.get_text() for t in leg.texts]
    return [t for t in out if t]


def _points(line: Any) -> tuple[np.ndarray, np.ndarray]:
    xy = np.asarray(line.get_xydata(), float).reshape(-1, 2)
    ok = np.isfinite(xy).all(axis=1)
    return xy[ok, 0], xy[ok, 1]


def _same_points(x1: Any, y1: Any, x2: Any, y2: Any, xtol: float = 0.0) -> bool:
    if len(x1) != len(x2):
        return False
    a = sorted(zip(np.round(np.asarray(x1, float), 9), np.asarray(y1, float)))
    b = sorted(zip(np.round(np.asarray(x2, float), 9), np.asarray(y2, float)))
    for (xa, ya), (xb, yb) in zip(a, b):
        if abs(xa - xb) > xtol + 1e-9 * max(1.0, abs(xb)) or not math.isclose(ya, yb, rel_tol=1e-7, abs_tol=1e-12):
            return False
    return True


@dataclass
class _Expect:
    """What one (panel, series, layer) should show."""

    label: str
    layer: Layer
    x: np.ndarray
    y: np.ndarray
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    xtol: float = 0.0


def _expected(panel: Panel, styles: Mapping[str, Style]) -> list[_Expect]:
    out = []
    offsets, _ = _bar_layout(panel, styles) if any(lay.kind == "bar" for lay in panel.layers) else ({}, 0.0)
    for layer in panel.layers:
        if layer.kind == "box":
            continue
        for label, rows in _series(panel, layer):
            x, y = _layer_x(panel, layer, label, rows, styles), values(rows, layer.y)  # type: ignore[arg-type]
            if layer.successes is not None:
                y = np.where(values(rows, layer.successes) == 0, np.nan, y)
            lo = hi = None
            if layer.interval is not None:
                lo, hi = layer.interval.bounds(rows, y)
            xtol = 0.0
            if layer.kind == "bar":
                x, xtol = x + offsets.get(label, 0.0), 1e-6
            out.append(_Expect(label, layer, x, y, lo, hi, xtol))
    return out


def audit(fig: Any, spec: FigureSpec) -> list[str]:
    """Everything in the drawn ``fig`` that disagrees with ``spec`` and its table, one line each
    (empty: the figure is faithful). ``fig`` may come from any drawing code."""
    fig.canvas.draw()
    problems: list[str] = []
    title = fig._suptitle.get_text().split("\n")[0] if fig._suptitle is not None else ""
    if len(fig.axes) == 1 and not title:
        title = fig.axes[0].get_title()
    if title.split("\n")[0] != spec.title:
        problems.append(f"title says {title!r}, the spec {spec.title!r}")
    problems += _code_names(fig)
    if spec.diagram is not None:
        return problems
    panels, diffs = _data_axes(fig)
    if len(panels) != len(spec.panels):
        problems.append(f"{len(panels)} data panel(s) drawn, the spec has {len(spec.panels)}")
    for i, (ax, panel) in enumerate(zip(panels, spec.panels)):
        where = f"panel {i + 1}" + (f" ({panel.title})" if panel.title else "")
        problems += [f"{where}: {p}" for p in _audit_panel(fig, ax, panel, spec)]
    problems += _audit_gaps(fig, panels, diffs, spec)
    problems += _audit_legend_keys(fig, spec)
    problems += _audit_layout(fig)
    return problems


def _code_names(fig: Any) -> list[str]:
    texts = _texts(fig)
    for ax in fig.axes:
        texts += [ax.get_xlabel(), ax.get_ylabel()]
        texts += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    out = []
    for t in dict.fromkeys(texts):
        plain = re.sub(r"\$[^$]*\$", "", t)
        found = _CODE_NAME.findall(plain)
        if found:
            out.append(f"prints the code name(s) {', '.join(dict.fromkeys(found))} in {t!r}")
    return out


def _audit_panel(fig: Any, ax: Any, panel: Panel, spec: FigureSpec) -> list[str]:
    out: list[str] = []
    out += _audit_axes_labels(fig, ax, panel)
    entries = _legend_entries(fig, ax)
    by_key: dict[_Key, str] = {k: lbl for lbl, k, kind in entries if k is not None}
    layer_by_style: dict[tuple[str, str], str] = {}
    for lbl, k, _ in entries:
        if k is not None and lbl not in spec.styles:  # a layer's entry (exact, simulated, ...), not a series'
            layer_by_style.setdefault((k.marker, k.linestyle), lbl)
    labels = set(panel.data[panel.series].astype(str))
    expected = _expected(panel, spec.styles)
    texts = " ".join(_texts(fig, ax))
    refs = {r.label: r for r in panel.references}
    # soundness: every drawn series says what it is, and draws that label's rows
    from matplotlib.container import BarContainer

    drawn_series: list[tuple[str, np.ndarray, np.ndarray, Any]] = []
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.container import ErrorbarContainer

    caps = {id(cap) for c in ax.containers if isinstance(c, ErrorbarContainer) for cap in c.lines[1]}
    for line in ax.lines:
        gid = str(line.get_gid() or "")
        if gid.startswith("box:") or gid in ("guide", "missing") or id(line) in caps:
            continue
        x, y = _points(line)
        if not len(x):
            continue
        key = _line_key(line)
        label = by_key.get(key)
        layer_name = None
        unshown = False
        if label is None:
            same_colour = [lbl for lbl, k, _ in entries if k is not None and k.color == key.color and lbl in labels]
            if same_colour:
                label = same_colour[0]
                layer_name = layer_by_style.get((key.marker, key.linestyle))
                if key.marker == "v" and key.linestyle == "":
                    layer_name = "upper bound"
                unshown = layer_name is None
        if label is None:
            out.append(
                f"draws a line the legend does not name ({key.color}, marker {key.marker or 'none'}, "
                f"line {key.linestyle or 'none'})"
            )
            continue
        if label in refs:
            continue
        if label not in labels and label in spec.styles:
            out.append(f"the legend's {label!r} draws rows that are not {label!r}'s (this panel has none)")
            continue
        if label not in labels:
            continue
        if layer_name == "upper bound":
            continue  # checked with the zero-success cells
        cands = [e for e in expected if e.label == label]
        if layer_name is not None:
            named = [e for e in cands if e.layer.name == layer_name]
            cands = named or cands
        if unshown:
            out.append(
                f"draws {label!r} with marker {key.marker or 'none'} and line {key.linestyle or 'none'}, "
                "a style its legend entry does not show"
            )
        if not any(_same_points(x, y, *_finite(e.x, e.y), e.xtol) for e in cands):
            out.append(f"the legend's {label!r} draws {len(x)} point(s) that are not its rows' values")
        elif not layer_name:
            drawn_series.append((label, x, y, line))
    for c in ax.containers:
        if isinstance(c, BarContainer) and c.patches:
            colour = _hex(c.patches[0].get_facecolor())
            label = next((lbl for lbl, k, kind in entries if k is not None and k.color == colour), None)
            xs = np.array([p.get_x() + p.get_width() / 2 for p in c.patches])
            ys = np.array([p.get_y() + p.get_height() for p in c.patches])
            if label is None:
                out.append(f"draws bars the legend does not name ({colour})")
            elif label not in labels:
                out.append(f"the legend's {label!r} draws bars that are not {label!r}'s rows")
            elif not any(
                _same_points(xs, ys, *_finite(e.x, e.y), max(e.xtol, 0.5)) for e in expected if e.label == label
            ):
                out.append(f"the legend's {label!r} draws bars that are not its rows' values")
    # completeness: every declared series is drawn
    lines = [_points(line) for line in ax.lines]
    bars = [
        (np.array([p.get_x() + p.get_width() / 2 for p in c.patches]), np.array([p.get_height() for p in c.patches]))
        for c in ax.containers
        if isinstance(c, BarContainer)
    ]
    for e in expected:
        x, y = _finite(e.x, e.y)
        if not len(x):
            continue
        pool = bars if e.layer.kind == "bar" else lines
        tol = 0.5 if e.layer.kind == "bar" else e.xtol
        if not any(_same_points(px, py, x, y, tol) for px, py in pool):
            what = f"{e.label!r}" + (f" ({e.layer.name})" if e.layer.name else "")
            out.append(f"{what} is not drawn: no line or bars show its {len(x)} value(s)")
    out += _audit_view(ax)
    out += _audit_intervals(fig, ax, panel, expected, texts)
    out += _audit_zero(ax, panel, spec.styles)
    out += _audit_missing(fig, ax, panel, spec.styles)
    out += _audit_references(ax, panel, entries)
    out += _audit_coincidences(ax, drawn_series, texts, entries)
    out += _audit_resolution(panel, texts)
    if _hex(ax.get_facecolor()) == UNRESOLVED and not any(
        k is not None and k.color == UNRESOLVED for _, k, _ in entries
    ):
        out.append("its shading (too few trials) is not explained in the legend")
    out += _audit_boxes(ax, panel)
    return out


def _audit_view(ax: Any) -> list[str]:
    """Drawn values outside the panel's view: a reader never sees them."""
    out = []
    for line in ax.lines:
        if line.get_transform() != ax.transData or str(line.get_gid() or "") == "guide":
            continue
        x, y = _points(line)
        if not len(x):
            continue
        pts = _axes_xy(ax, x, y)
        outside = ~np.all((pts >= -1e-6) & (pts <= 1 + 1e-6), axis=1)
        if outside.any():
            out.append(f"{int(outside.sum())} point(s) of {line.get_label()!r} lie outside the panel's view")
    return out


def _finite(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ok = np.isfinite(x) & np.isfinite(y)
    return x[ok], y[ok]


def _audit_axes_labels(fig: Any, ax: Any, panel: Panel) -> list[str]:
    out = []
    sup = {
        "x": fig._supxlabel.get_text() if fig._supxlabel else "",
        "y": fig._supylabel.get_text() if fig._supylabel else "",
    }
    for which, axis in (("x", panel.xaxis), ("y", panel.yaxis)):
        text = (ax.get_xlabel() if which == "x" else ax.get_ylabel()) or sup[which]
        if not text:
            out.append(f"the {which} axis has no label (it shows {axis.label!r})")
        elif text != axis.label:
            out.append(f"the {which} axis says {text!r}, the spec {axis.label!r}")
        scale = ax.get_xscale() if which == "x" else ax.get_yscale()
        want = {"log2": "log", "category": "linear"}.get(axis.scale, axis.scale)
        if scale != want:
            out.append(f"the {which} axis is {scale}, the spec {axis.scale}")
        elif axis.scale == "log2":
            base = (ax.xaxis if which == "x" else ax.yaxis).get_transform().base
            if base != 2:
                out.append(f"the {which} axis is log base {base:g}, the spec base 2")
    return out


def _segments(ax: Any) -> list[tuple[float, float, float]]:
    """Vertical segments (x, low, high) of the intervals drawn in ``ax``."""
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.collections import LineCollection

    out = []
    for coll in ax.collections:
        if isinstance(coll, LineCollection):
            for seg in coll.get_segments():
                seg = np.asarray(seg, float)
                if len(seg) >= 2 and np.allclose(seg[:, 0], seg[0, 0]):
                    out.append((float(seg[0, 0]), float(seg[:, 1].min()), float(seg[:, 1].max())))
    return out


def _audit_intervals(fig: Any, ax: Any, panel: Panel, expected: list[_Expect], texts: str) -> list[str]:
    out = []
    segs = _segments(ax)
    if panel.yaxis.probability:
        bad = [(x, lo, hi) for x, lo, hi in segs if lo < -1e-9 or hi > 1 + 1e-9]
        if bad:
            x, lo, hi = bad[0]
            out.append(f"{len(bad)} interval(s) of a probability leave [0, 1] (at x = {x:g}: {lo:.3g}..{hi:.3g})")
    all_texts = " ".join(_texts(fig))
    for e in expected:
        if e.layer.interval is None or e.lo is None or e.hi is None:
            continue
        if e.layer.interval.name not in all_texts:
            out.append(f"{e.label!r}: its intervals ({e.layer.interval.name}) are not named in the figure")
        ok = np.isfinite(e.x) & np.isfinite(e.y) & np.isfinite(e.lo) & np.isfinite(e.hi)
        missing = 0
        for x, lo, hi in zip(e.x[ok], e.lo[ok], e.hi[ok]):
            if not any(
                abs(sx - x) <= max(e.xtol, 1e-9 * max(1, abs(x)))
                and math.isclose(slo, lo, rel_tol=1e-6, abs_tol=1e-12)
                and math.isclose(shi, hi, rel_tol=1e-6, abs_tol=1e-12)
                for sx, slo, shi in segs
            ):
                missing += 1
        if missing:
            out.append(f"{e.label!r}: {missing} of its {int(ok.sum())} {e.layer.interval.name}(s) not drawn")
    out += _audit_zero_intervals(panel)
    out += _audit_interval_overlap(expected)
    return out


def _audit_zero_intervals(panel: Panel) -> list[str]:
    """A Wilson interval at a cell with no success runs from 0 to its upper bound: drawn as a
    whisker it looks like a measured spread; such a cell is an upper bound (``successes``, ``upper``)."""
    out = []
    for layer in panel.layers:
        iv = layer.interval
        if iv is None or iv.kind != "wilson" or layer.successes is not None:
            continue
        for label, rows in _series(panel, layer):
            k, n = values(rows, iv.successes), values(rows, iv.trials)
            zero = int(np.sum((k == 0) & (n > 0)))
            if zero:
                out.append(f"{label!r}: {zero} whisker(s) from 0 at cells with no success (draw upper bounds)")
    return out


def _audit_interval_overlap(expected: list[_Expect]) -> list[str]:
    """±k s.e. intervals of different series drawn at the same x and overlapping: a reader cannot
    tell whose whisker is whose (dodge the series)."""
    segs: dict[float, list[tuple[str, float, float]]] = {}
    for e in expected:
        if e.layer.interval is None or e.layer.interval.kind != "se" or e.lo is None or e.hi is None:
            continue
        for x, lo, hi in zip(e.x, e.lo, e.hi):
            if np.isfinite(x) and np.isfinite(lo) and np.isfinite(hi) and hi > lo:
                segs.setdefault(round(float(x), 9), []).append((e.label, float(lo), float(hi)))
    for x, items in segs.items():
        for i, (a, lo_a, hi_a) in enumerate(items):
            for b, lo_b, hi_b in items[i + 1 :]:
                if a != b and min(hi_a, hi_b) > max(lo_a, lo_b):
                    return [f"the intervals of {a!r} and {b!r} overlap at x = {x:g} (dodge the series)"]
    return []


def _audit_zero(ax: Any, panel: Panel, styles: Mapping[str, Style]) -> list[str]:
    out = []
    upper_all: list[float] = []
    stacked: dict[tuple[float, float], list[str]] = {}
    for layer in panel.layers:
        if layer.successes is None or layer.upper is None:
            continue
        for label, rows in _series(panel, layer):
            zero = values(rows, layer.successes) == 0
            if not zero.any():
                continue
            x, up = _layer_x(panel, layer, label, rows, styles)[zero], values(rows, layer.upper)[zero]
            xtol = 0.5 if layer.kind == "bar" else 1e-9
            upper_all += up.tolist()
            if layer.kind != "bar":  # bars are side by side; markers of series at one point hide each other
                for xi, ui in zip(x, up):
                    stacked.setdefault((round(float(xi), 9), round(float(ui), 12)), []).append(label)
            y = values(rows, layer.y)[zero]  # type: ignore[arg-type]
            for line in ax.lines:
                px, py = _points(line)
                for xi, yi in zip(x, y):
                    if np.any(np.isclose(px, xi) & np.isclose(py, yi)) and _marker(line.get_marker()) not in ("v", ""):
                        out.append(f"{label!r}: a cell with zero successes (x = {xi:g}) is drawn as a point")
                        break
            marks = [_points(line) for line in ax.lines if _marker(line.get_marker()) == "v"]
            for xi, ui in zip(x, up):
                if not any(np.any((np.abs(px - xi) <= xtol) & np.isclose(py, ui)) for px, py in marks):
                    out.append(f"{label!r}: the zero-success cell at x = {xi:g} has no upper-bound marker at {ui:.3g}")
    for (xi, _), labels in stacked.items():
        labels = list(dict.fromkeys(labels))  # one series' layers may agree on a bound (best-of and its natural)
        if len(labels) > 1:
            out.append(f"upper-bound markers of {', '.join(labels)} are stacked at x = {xi:g} (dodge the series)")
    if upper_all:
        bands = [p for p in ax.patches if "below resolution" in str(p.get_label())]
        top = max(upper_all)
        if not bands:
            out.append(f"zero-success cells without a shaded 'below resolution' band (up to {top:.3g})")
        elif max(p.get_bbox().y1 for p in bands) < top * (1 - 1e-9):
            out.append(f"the 'below resolution' band ends below the largest upper bound {top:.3g}")
    return out


def _audit_missing(fig: Any, ax: Any, panel: Panel, styles: Mapping[str, Style]) -> list[str]:
    out = []
    for layer in panel.layers:
        if layer.missing is None:
            continue
        legend = " ".join(_texts(fig))
        for label, rows in _series(panel, layer):
            gone = ~np.isfinite(values(rows, layer.y))  # type: ignore[arg-type]
            if not gone.any():
                continue
            reasons = np.asarray((layer.missing(rows) if callable(layer.missing) else rows[layer.missing]).astype(str))
            for xi, why in zip(_layer_x(panel, layer, label, rows, styles)[gone], reasons[gone]):
                marked = any(
                    _marker(line.get_marker()) == "x" and np.any(np.isclose(np.asarray(line.get_xdata(), float), xi))
                    for line in ax.lines
                )
                if not marked or why not in legend:
                    out.append(f"{label!r} has no value at x = {xi:g} ({why}) and the figure does not mark it")
    return out


def _audit_references(ax: Any, panel: Panel, entries: list[tuple[str, _Key | None, str]]) -> list[str]:
    out = []
    names = {lbl for lbl, _, _ in entries}
    for ref in panel.references:
        if ref.label not in names:
            out.append(f"the reference {ref.label!r} is not in the legend")
        found = False
        for line in ax.lines:
            xy = np.asarray(line.get_xydata(), float)
            if ref.x is None and np.ndim(ref.y) == 0:
                found |= len(xy) > 0 and np.allclose(xy[:, 1], float(ref.y)) and line.get_transform() != ax.transData
                found |= len(xy) > 0 and np.allclose(xy[:, 1], float(ref.y)) and _ls(line.get_linestyle()) != ""
            elif ref.vertical:
                found |= len(xy) > 0 and np.allclose(xy[:, 0], float(ref.x))
            else:
                found |= _same_points(xy[:, 0], xy[:, 1], np.asarray(ref.x, float), np.asarray(ref.y, float))
        if not found:
            out.append(f"the reference {ref.label!r} is not drawn")
    return out


def _audit_coincidences(
    ax: Any,
    drawn: list[tuple[str, np.ndarray, np.ndarray, Any]],
    texts: str,
    entries: list[tuple[str, _Key | None, str]],
) -> list[str]:
    out = []
    keys = {lbl: _line_key(line) for lbl, _, _, line in drawn}
    for group in coinciding(ax, [(lbl, x, y) for lbl, x, y, _ in drawn]):
        styles = {(keys[lbl].marker, keys[lbl].linestyle, keys[lbl].fill in ("none", "#ffffff")) for lbl in group}
        if len(styles) < len(group):
            out.append(f"{', '.join(group)} are drawn on top of each other with the same marker, fill and line")
        if "coincide" not in texts or not all(lbl in texts for lbl in group):
            out.append(f"{', '.join(group)} coincide and nothing says so")
    return out


def _audit_resolution(panel: Panel, texts: str) -> list[str]:
    for layer in panel.layers:
        if layer.resolution is None:
            continue
        col, minimum = layer.resolution
        n = values(panel.data, col)
        if (n < minimum).any() and "unresolved" not in texts:
            return [
                f"{int(np.nanmin(n))} trials in a plotted cell (< {minimum:g}) and the panel is not marked unresolved"
            ]
    return []


def _audit_boxes(ax: Any, panel: Panel) -> list[str]:
    out = []
    for layer in panel.layers:
        if layer.kind != "box":
            continue
        cols = layer.y
        assert isinstance(cols, Mapping)
        rows = pd.concat([g for _, g in _series(panel, layer)])
        q1, q3 = values(rows, cols["q1"]), values(rows, cols["q3"])
        boxes = [line for line in ax.lines if line.get_gid() == "box:boxes"]
        spans = sorted((float(np.min(b.get_ydata())), float(np.max(b.get_ydata()))) for b in boxes)
        want = sorted(zip(q1.tolist(), q3.tolist()))
        if len(spans) != len(want) or not np.allclose(spans, want, rtol=1e-7, atol=0):
            out.append(f"{len(spans)} box(es) drawn, not the {len(want)} quartile boxes of the rows")
        if ax.get_yscale() == "symlog":
            lin = ax.yaxis.get_transform().linthresh
            edges = np.abs(np.concatenate([q1, q3]))
            near = edges[(edges > lin / 3) & (edges < 3 * lin)]
            if len(near):
                out.append(f"the symmetric-log axis switches scale at {lin:.2g}, where {len(near)} quartile(s) sit")
    if ax.get_yscale() == "symlog" and not any(lay.kind == "box" for lay in panel.layers):
        lin = ax.yaxis.get_transform().linthresh
        for _, y in (_points(line) for line in ax.lines):
            near = np.abs(y)[(np.abs(y) > lin / 3) & (np.abs(y) < 3 * lin)]
            if len(near):
                out.append(f"the symmetric-log axis switches scale at {lin:.2g}, where the data sit")
                break
    return out


def _audit_gaps(fig: Any, panels: list[Any], diffs: list[Any], spec: FigureSpec) -> list[str]:
    out = []
    candidates = diffs or [a for a in fig.axes if "difference" in a.get_ylabel().lower()]
    for panel in spec.panels:
        for a, b in panel.gaps:
            x, d, _ = _gap_values(panel, a, b)
            if not len(x):
                continue
            if not any(_same_points(*_points(line), x, d) for ax in candidates for line in ax.lines):
                out.append(
                    f"{panel.title or 'a panel'}: the claim reads the gap {gap_label(a, b)}, "
                    "which no difference panel draws"
                )
    return out


def _lab(color: str) -> np.ndarray:
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.colors import to_rgb

    rgb = np.asarray(to_rgb(color), float)
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ lin / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _audit_legend_keys(fig: Any, spec: FigureSpec) -> list[str]:
    out = []
    seen: dict[str, _Key] = {}
    for ax in fig.axes:
        for label, key, _ in _legend_entries(fig, ax):
            if key is not None:
                seen.setdefault(label, key)
    for label, colour in spec.paper_colours.items():
        want = _hex(NAMED.get(colour, colour))
        if label in seen and seen[label].color != want:
            out.append(f"the paper draws {label!r} in {colour}; the figure in {seen[label].color}")
        elif label not in seen:
            out.append(f"the paper draws {label!r} in {colour}; the figure's legend has no {label!r}")
    series = [(lbl, k) for lbl, k in seen.items() if k.color and (k.marker or k.linestyle)]
    for i, (a, ka) in enumerate(series):
        for b, kb in series[i + 1 :]:
            if (ka.marker, ka.linestyle, ka.fill == ka.color) == (kb.marker, kb.linestyle, kb.fill == kb.color):
                if float(np.linalg.norm(_lab(ka.color) - _lab(kb.color))) < MIN_COLOUR_DISTANCE:
                    out.append(f"{a!r} and {b!r} share marker and line and their colours are hard to tell apart")
    return out


def _audit_layout(fig: Any) -> list[str]:
    out = []
    renderer = fig.canvas.get_renderer()
    legends = [(leg, ax) for ax in fig.axes if (leg := ax.get_legend()) is not None]
    legends += [(leg, None) for leg in fig.legends]
    for leg, owner in legends:
        box = leg.get_window_extent(renderer)
        for ax in [owner] if owner is not None else fig.axes:
            for line in ax.lines:
                if str(line.get_gid() or "") in ("guide",):
                    continue
                xy = np.asarray(line.get_xydata(), float)
                xy = xy[np.isfinite(xy).all(axis=1)]
                if not len(xy):
                    continue
                if len(xy) > 1 and _ls(line.get_linestyle()):
                    t = np.linspace(0, 1, 12)[:, None, None]
                    xy = (xy[:-1][None] * (1 - t) + xy[1:][None] * t).reshape(-1, 2)
                pts = line.get_transform().transform(xy)
                inside = (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)
                if inside.any():
                    out.append(f"a legend covers the data of {line.get_label()!r}")
                    break
    for i, ax in enumerate(fig.axes):
        xticks = ax.get_xticklabels() + ax.get_xticklabels(minor=True)
        for which, ticks in (("x", xticks), ("y", ax.get_yticklabels() + ax.get_yticklabels(minor=True))):
            boxes = [t.get_window_extent(renderer) for t in ticks if t.get_visible() and t.get_text()]
            boxes.sort(key=lambda b: b.x0 if which == "x" else b.y0)
            for p, q in zip(boxes, boxes[1:]):
                if (q.x0 < p.x1 - 0.5) if which == "x" else (q.y0 < p.y1 - 0.5):
                    out.append(f"axes {i + 1}: its {which} tick labels run together")
                    break
    for i, ax in enumerate(fig.axes):
        for which, scale, minor in (
            ("x", ax.get_xscale(), ax.get_xticklabels(minor=True)),
            ("y", ax.get_yscale(), ax.get_yticklabels(minor=True)),
        ):
            shown = [t.get_text() for t in minor if t.get_visible() and t.get_text()]
            if scale == "log" and shown:
                out.append(
                    f"axes {i + 1}: its {which} axis labels minor ticks of a log scale ({', '.join(shown[:3])}, ...)"
                )
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.container import BarContainer

    for i, ax in enumerate(fig.axes):
        if ax.get_yscale() == "log" and any(isinstance(c, BarContainer) for c in ax.containers):
            out.append(f"axes {i + 1}: bars on a log axis")
        for which, (lo, hi) in (("x", ax.get_xlim()), ("y", ax.get_ylim())):
            if _collapsed(lo, hi):
                out.append(
                    f"axes {i + 1}: its {which} axis spans only {lo:.17g} to {hi:.17g}: its points lie on the frame"
                )
    return out
