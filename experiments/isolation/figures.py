"""The isolation experiments' figures, declared as specs over their result tables (presentation only).

Rates are probabilities: each point is successes / trials with its 95% Wilson interval; a cell
with no success is its 95% upper bound (a triangle) inside the grey band "below resolution",
never a point. Sanitizers and adversaries are printed by their names in the talk's words.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privlab.figures import (
    Axis,
    FigureSpec,
    Interval,
    Layer,
    Panel,
    Reference,
    config_value,
    figure,
    style_map,
    wilson_bounds,
)
from privlab.isolation.rates import BEST, natural_rows

__all__ = ["isolation_vs_d", "isolation_vs_c_T", "bad_sanitizer", "utility", "real_data", "sanitizer_name"]

SANITIZERS = {
    "aux_only": "no release (auxiliary draws only)",
    "histogram": "histogram",
    "perturbed_one": "one point perturbed",
    "hist_perturb": "histogram + perturbation",
    "hist_perturb_len_side": "histogram + perturbation, noise ~ cell side",
    "perturbation": "perturbation",
    "bad_sanitizer": "bad sanitizer",
}
ADVERSARIES = {
    "distribution_draw": "a draw from the distribution",
    "cell_uniform": "a uniform point of the cell",
    "cell_centre": "the cell's centre",
    "perturbed_point": "the perturbed point",
    "cell_uniform_or_perturbed_point": "cell point or perturbed point",
    "cell_centre_or_perturbed_point": "cell centre or perturbed point",
    BEST: "best of its adversaries",
    "released_row": "the released row",
    "column_midpoint": "released row, hidden column at its midpoint",
}
DATA = {"minmax": "min-max scaled", "rank": "rank scaled"}

RATE = Axis("isolation success rate", scale="log", probability=True)
WILSON = Interval("wilson", successes="successes", trials="trials")
NOTE = "points: successes / trials with 95% Wilson intervals; no success: 95% upper bound (▼)"


def sanitizer_name(name: str) -> str:
    """A sanitizer's name in words (unknown ones with their underscores as spaces)."""
    return SANITIZERS.get(name, name.replace("_", " "))


def _adversary(name: str) -> str:
    return ADVERSARIES.get(name, name.replace("_", " "))


def _data_name(name: str) -> str:
    """``acs_minmax`` -> ``ACS, min-max scaled``; ``uniform_cube`` -> ``uniform on the cube``."""
    if name == "uniform_cube":
        return "uniform on the cube"
    base, _, scaling = name.partition("_")
    base = {"acs": "ACS", "adult": "Adult"}.get(base, base)
    return f"{base}, {DATA.get(scaling, scaling)}" if scaling else base


def _rate_layer(dodge: float = 0.0) -> Layer:
    """Successes / trials with Wilson intervals; ``dodge`` keeps the series' intervals and
    upper bounds at one x apart."""
    return Layer("rate", interval=WILSON, successes="successes", upper="wilson_upper", dodge=dodge)


def _someone_upper(g: pd.DataFrame) -> np.ndarray:
    return wilson_bounds(g.successes_any, g.trials_any)[1]


@figure(
    ledger=("s24.row1", "s24.row2", "s24.row3", "s18.corollary", "s14.bound", "s8.considerably"),
    about="privlab's picture of the talk's results table (slide 24): isolation rate against d per sanitization",
)
def isolation_vs_d(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Rate vs d per sanitizer: its natural adversaries solid, the best of them dashed, 2^-d dotted."""
    natural = set(natural_rows(df).adversary)
    rows = df[df.adversary.isin(natural) | (df.adversary == BEST)].sort_values("d", kind="stable")
    label = rows.sanitizer.map(sanitizer_name) + ": " + rows.adversary.map(_adversary)
    rows = rows.assign(series=label)
    dashed = {lbl: "--" for lbl, adv in zip(label, rows.adversary) if adv == BEST}
    dd = np.sort(df.d.unique()).astype(float)
    bound = (Reference("$2^{-d}$ (the talk's corollary)", y=2.0**-dd, x=dd),)
    step = float(np.diff(dd).min()) if len(dd) > 1 else 1.0
    panel = Panel(
        rows,
        "d",
        Axis("dimension d", integer=True),
        RATE,
        (_rate_layer(dodge=step / 16),),
        title="(a) isolating the target: natural adversaries (solid), best of all of them (dashed)",
        references=bound,
    )
    # the claims on isolating *someone* read this rate (the natural adversaries measure it)
    anyone = rows[rows.adversary != BEST]
    anyone = anyone[anyone.trials_any.notna()]
    someone = Panel(
        anyone,
        "d",
        Axis("dimension d", integer=True),
        Axis("rate of isolating someone (any record)", scale="log", probability=True),
        (
            Layer(
                "rate_any",
                interval=Interval("wilson", successes="successes_any", trials="trials_any"),
                successes="successes_any",
                upper=_someone_upper,
                dodge=step / 16,
            ),
        ),
        title="(b) isolating someone: any of the n records (natural adversaries)",
        references=bound,
    )
    title = f"Isolation vs d (n = {int(df.n.iloc[0]):,}, T = {int(df['T'].iloc[0])})"
    styles = style_map(label, linestyles=dashed)
    return FigureSpec(title, (panel, someone), styles, ncols=2, panel_size=(6.0, 4.2), notes=(NOTE,))


@figure(
    ledger=("s7.isolation", "s13.alone"),
    about="privlab's figure: isolation rate against the talk's c and T, one panel per sanitization",
)
def isolation_vs_c_T(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Rate vs c, one panel per sanitizer, one line per T: one colour per T in every panel. Each
    panel names its natural adversary; where a sanitizer has several adversaries, the best of
    them per target is drawn dashed (hollow markers) beside it."""
    nat = natural_rows(df).sort_values(["T", "c"], kind="stable")
    nat = nat.assign(series=[f"T = {t}" for t in nat["T"]])
    best = df[df.adversary == BEST].set_index(["sanitizer", "T", "c"])
    keys = pd.MultiIndex.from_frame(nat[["sanitizer", "T", "c"]])
    nat = nat.assign(
        best_rate=best.rate.reindex(keys).to_numpy(),
        best_successes=best.successes.reindex(keys).to_numpy(),
        best_trials=best.trials.reindex(keys).to_numpy(),
        best_upper=best.wilson_upper.reindex(keys).to_numpy(),
    )
    styles = style_map([f"T = {t}" for t in sorted(nat["T"].unique())])
    best_layer = Layer(
        "best_rate",
        name="best of its adversaries (dashed)",
        marker="o",
        linestyle="--",
        hollow=True,
        interval=Interval("wilson", successes="best_successes", trials="best_trials"),
        successes="best_successes",
        upper="best_upper",
        dodge=0.04,
    )
    others = df.groupby("sanitizer").adversary.agg(lambda a: [v for v in dict.fromkeys(a) if v != BEST])
    panels = []
    for san in dict.fromkeys(nat.sanitizer):
        g = nat[nat.sanitizer == san]
        adversary = _adversary(str(g.adversary.iloc[0]))
        several = len(others.get(san, [])) > 1 and g.best_rate.notna().all()
        title = f"{sanitizer_name(san)}\nsolid: {adversary}" + (
            "\ndashed: best of all its adversaries" if several else ""
        )
        layers = (_rate_layer(dodge=0.04), best_layer) if several else (_rate_layer(dodge=0.04),)
        panels.append(Panel(g, "c", Axis("ball-radius factor c", scale="log2"), RATE, layers, title=title))
    title = f"Isolation vs c and T (d = {int(df.d.iloc[0])})"
    return FigureSpec(title, tuple(panels), styles, ncols=4, panel_size=(3.6, 3.4), notes=(NOTE,))


@figure(ledger=("s9.passes", "s9.distance"), about="privlab's figure of slide 9's bad sanitizer")
def bad_sanitizer(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Rate vs the fraction of attributes released exactly, per stretch (colour) and adversary (line)."""
    rows = df.sort_values(["stretch", "adversary", "fraction_disclosed"], kind="stable")
    rows = rows.assign(series=[f"stretch {s:g}: {_adversary(a)}" for s, a in zip(rows.stretch, rows.adversary)])
    stretches = list(dict.fromkeys(rows.stretch))
    colours = style_map([f"{s:g}" for s in stretches])
    fixed = {lbl: colours[f"{s:g}"].color for lbl, s in zip(rows.series, rows.stretch)}
    dashed = {lbl: "--" for lbl, a in zip(rows.series, rows.adversary) if a != "released_row"}
    styles = style_map(list(dict.fromkeys(rows.series)), fixed=fixed, linestyles=dashed)
    step = float(np.diff(np.sort(rows.fraction_disclosed.unique())).min())
    xaxis = Axis("fraction of attributes released exactly")
    panel = Panel(rows, "fraction_disclosed", xaxis, RATE, (_rate_layer(dodge=step / 12),))
    title = f"Bad sanitizer (d = {int(df.d.iloc[0])}): disclosure without isolation"
    return FigureSpec(title, (panel,), styles, panel_size=(6.2, 4.0), notes=(NOTE,))


@figure(ledger=("s10.means", "s15.clustering", "s15.density"), about="privlab's utility measurements (slides 10, 15)")
def utility(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Column-mean error, k-means cost ratio and box-count error vs d, one line per sanitizer."""
    rows = df.assign(series=df.sanitizer.map(sanitizer_name))
    styles = style_map(list(dict.fromkeys(rows.series)))
    measures = (
        ("mean_error_rms", Axis("RMS error of the column means", "data units")),
        ("kmeans_cost_ratio", Axis("k-means cost: SDB centres / RDB optimum")),
        ("box_query_mae", Axis("box-count error", "fraction of the points")),
    )
    tolerance = config_value(cfg, "claims.kmeans_tolerance")
    kmeans = (
        () if tolerance is None else (Reference(f"{tolerance:g}: 'nearly as well' (privlab's reading)", y=tolerance),)
    )
    panels = tuple(
        Panel(
            rows,
            "d",
            Axis("dimension d", integer=True),
            axis,
            (Layer(col),),
            title=axis.quantity,
            references=kmeans if col == "kmeans_cost_ratio" else (),
        )
        for col, axis in measures
    )
    title = f"Utility on a Gaussian mixture (n = {int(df.n.iloc[0]):,}, T = {int(df['T'].iloc[0])})"
    return FigureSpec(title, panels, styles, ncols=3, panel_size=(3.6, 3.3))


@figure(ledger=("s21.scaling",), about="privlab's figure: isolation on real records against uniform data (slide 21)")
def real_data(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Natural adversaries' rates per sanitizer, one bar per data set (the run's real data, uniform)."""
    nat = natural_rows(df)
    nat = nat.assign(series=nat.data.map(_data_name), where=nat.sanitizer.map(sanitizer_name))
    styles = style_map(list(dict.fromkeys(nat.series)))
    layer = Layer("rate", kind="bar", interval=WILSON, successes="successes", upper="wilson_upper")
    panel = Panel(
        nat, "where", Axis("sanitizer", scale="category"), Axis("isolation success rate", probability=True), (layer,)
    )
    real = sorted({_data_name(d).split(",")[0] for d in nat.data if d != "uniform_cube"})
    size = f"d = {int(df.d.iloc[0])}, n = {int(df.n.iloc[0]):,}"
    title = f"Isolation on real records ({', '.join(real)}) vs uniform data ({size})"
    return FigureSpec(title, (panel,), styles, panel_size=(7.0, 3.8), notes=(NOTE,))
