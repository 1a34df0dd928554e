"""The multilevel paper's figures, declared as specs over the experiments' result tables (presentation only).

Figures 5 and 6 keep the slides' legend: open bars (□) for the Monte Carlo estimate given all
copies, filled ones (■) for the other estimate, here with 95% Wilson intervals on the number of
trials that fell in the plotted cell; a cell the quick profile hits too rarely is marked unresolved.
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
from privlab.stats import gof_effect_bound

__all__ = ["priors", "collusion", "equivalence", "agreement", "independent", "overhead", "RESOLVED_TRIALS"]

PANELS = ("uniform", "gaussian", "salary", "occupation")  # the slide's panels (a)-(d)
# a cell is resolved when its 95% Wilson interval is at most about ±0.05 wide (p = 1/2: 1.96 / (2 sqrt(n)))
RESOLVED_TRIALS = 400
WILSON = Interval("wilson", successes="successes", trials="n")
VALUE = Axis("sensitive value x", integer=True)


def _letters(names: list[str]) -> dict[str, str]:
    others = [n for n in names if n not in PANELS]
    return {n: "abcdefghij"[i] for i, n in enumerate([*PANELS, *others])}


def _value_axis(name: str, block: Any, by_frequency: bool = False) -> Axis:
    """The x axis of a law's panel, in its unit: a salary bin (its width), a category's rank
    (``by_frequency``: the codes run from the most frequent down) or its code."""
    get = block.get if hasattr(block, "get") else {}.get
    kind, width = get("kind"), get("bin_width")
    if kind in ("lognormal", "binned") and width is not None:
        unit = f"{float(width):g}K$ wide" if kind == "lognormal" else f"${float(width):,.0f} wide"
        return Axis("salary bin x", unit, integer=True)
    if kind == "marginal":
        return Axis(f"{name} rank x (1 = most frequent)" if by_frequency else f"{name} x (category code)", integer=True)
    return VALUE


@figure(ledger=("fig.priors",))
def priors(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """The slide "Distribution of Sensitive Values": one panel per law of X, lettered as the slide's."""
    names = list(dict.fromkeys(df.distribution))
    letter = _letters(names)
    rows = df.assign(series=df.distribution)
    panels = []
    for name in names:
        g = rows[rows.distribution == name]
        source = g.data.iloc[0] if g.data.iloc[0] != "-" else g.kind.iloc[0]
        block = config_value(cfg, f"distributions.{name}") or {}
        refs: tuple[Reference, ...] = ()
        notes: tuple[str, ...] = ()
        missing = block.get("missing") if hasattr(block, "get") else None
        if missing is not None:  # codes 0..s-1 with the missing entries as their own code: x = code + 1
            x_na = int(missing) + 1
            share = float(g.prior[g.x == x_na].sum())
            refs = (
                Reference(f"x = {x_na}: N/A (no category recorded)", x=[x_na], y=[share], linestyle="", marker="*"),
            )
            notes = (f"x = {x_na} is N/A, {share:.0%} of the law",)
        panels.append(
            Panel(
                g,
                "x",
                _value_axis(name, block, bool((np.diff(g.sort_values("x").prior.to_numpy()) <= 0).all())),
                Axis("Pr[X = x]", probability=True),
                (Layer("prior", kind="bar"),),
                title=f"({letter[name]}) {name} ({source}, s = {len(g)})",
                references=refs,
                notes=notes,
            )
        )
    return FigureSpec(
        "Distribution of sensitive values",
        tuple(panels),
        style_map(names),
        ncols=min(2, len(names)),
        panel_size=(4.8, 3.0),
    )


ALL = "approximated Pr[X = x | Ya, Yb, Yc]"
ONLY_C = "approximated Pr[X = x | Yc]"
EXACT = "exact (both, Theorem 1)"


@figure(ledger=("fig5", "theorem1", "fig56.values"))
def collusion(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 5: the Monte Carlo posteriors given all copies (□) and given Y_c (■), with 95% Wilson
    intervals on the trials in the cell, and the exact posterior (equal for both by Theorem 1)."""
    long = pd.concat(
        [
            df.assign(series=ALL, prob=df.mc_all, successes=(df.mc_all * df.count_all).round(), n=df.count_all),
            df.assign(series=ONLY_C, prob=df.mc_c, successes=(df.mc_c * df.count_c).round(), n=df.count_c),
            df.assign(series=EXACT, prob=df.exact_all, successes=np.nan, n=np.nan),
        ],
        ignore_index=True,
    )
    long = long.assign(upper=wilson_bounds(long.successes, long.n)[1])
    mc = Layer(
        "prob",
        kind="bar",
        interval=WILSON,
        only=(ALL, ONLY_C),
        resolution=("n", RESOLVED_TRIALS),
        successes="successes",
        upper="upper",  # a value no trial in the cell hit: its 95% upper bound, not a whisker from 0
    )
    exact = Layer("prob", kind="points", marker="_", markersize=9, only=(EXACT,))
    styles = style_map(
        [ALL, ONLY_C, EXACT], fixed={ALL: "#ffffff", ONLY_C: "#333333", EXACT: "red"}, markers={EXACT: "_"}
    )
    panels = []
    for name in dict.fromkeys(df.distribution):
        g = long[long.distribution == name]
        r = g.iloc[0]
        cell = f"y_a = {r.y_a}, y_b = {r.y_b}, y_c = {r.y_c}"
        panels.append(
            Panel(
                g,
                "x",
                VALUE,
                Axis("posterior probability", probability=True),
                (mc, exact),
                title=f"{name} ({cell}): {int(r.count_all):,} of {int(r.trials):,} trials in the cell",
            )
        )
    notes = ("bars: 95% Wilson intervals on the trials in the cell (given Ya, Yb, Yc) or in Yc's column",)
    return FigureSpec(
        "Figure 5: collusion is useless (Monte Carlo and exact)",
        tuple(panels),
        styles,
        panel_size=(9.5, 2.6),
        notes=notes,
    )


MC6 = "approximated Pr[Y = y | X = x]"
FORMULA = "theoretical value (uni-pert formula)"
CHAIN = "exact law of the copy (chain of Theorem 2)"


@figure(ledger=("fig6", "theorem2", "fig56.values"))
def equivalence(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 6: each copy's law given X, Monte Carlo (□, 95% Wilson intervals) against the uni-pert
    formula (■) and the exact chain law; points on a log axis."""
    long = pd.concat(
        [
            df.assign(
                series=MC6,
                prob=df.mc,
                successes=(df.mc * df.count_x).round(),
                n=df.count_x,
                upper=wilson_bounds((df.mc * df.count_x).round(), df.count_x)[1],
            ),
            df.assign(series=FORMULA, prob=df.uni_pert, successes=np.nan, n=np.nan),
            df.assign(series=CHAIN, prob=df.exact_chain, successes=np.nan, n=np.nan),
        ],
        ignore_index=True,
    )
    styles = style_map(
        [MC6, FORMULA, CHAIN],
        fixed={MC6: "#1f77b4", FORMULA: "#333333", CHAIN: "red"},
        markers={MC6: "s", FORMULA: "s", CHAIN: "_"},
        hollow=(MC6,),
    )
    layers = (  # the Monte Carlo estimate last, on top of the two exact laws it is compared with
        Layer("prob", kind="points", only=(FORMULA,), markersize=3.5),
        Layer("prob", kind="points", only=(CHAIN,), markersize=9),
        Layer(
            "prob",
            kind="points",
            interval=WILSON,
            only=(MC6,),
            markersize=6.5,
            resolution=("n", RESOLVED_TRIALS),
            successes="successes",
            upper="upper",
        ),  # log axis: a y that no trial hit is its upper bound
    )
    panels = []
    for name in dict.fromkeys(df.distribution):
        g = long[long.distribution == name]
        r = g.iloc[0]
        title = f"{name}: {r.recipient} (p = {r.p:g}), x = {r.x}: {int(r.count_x):,} trials with this x"
        panels.append(
            Panel(
                g,
                "y",
                Axis("value y of the copy", integer=True),
                Axis("Pr[Y = y | X = x]", scale="log", probability=True),
                layers,
                title=title,
            )
        )
    return FigureSpec(
        "Figure 6: each copy is a uni-pert copy (Monte Carlo and exact)",
        tuple(panels),
        styles,
        panel_size=(9.5, 2.6),
        notes=("bars: 95% Wilson intervals",),
    )


RECIPIENTS = {"Y_Alice": "Ya", "Y_Bob": "Yb", "Y_Charlie": "Yc"}  # the slides' copies: Alice's is Ya, ...


def _copies(table: str) -> str:
    """A table's variables in one naming: ``X,Y_Alice`` -> ``X, Ya``, as ``X,Ya,Yb,Yc`` -> ``X, Ya, Yb, Yc``."""
    return ", ".join(RECIPIENTS.get(v.strip(), v.strip()) for v in str(table).split(","))


@figure(ledger=("sec6.F",), about="privlab's goodness-of-fit check of the Monte Carlo table F (no figure in the paper)")
def agreement(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """(a) p-values of the goodness-of-fit tests of every Monte Carlo table against the exact joint, with
    the difference test's threshold (the family-wise alpha divided by the number of tables); (b) the
    upper bound of each table's departure from the law (Cohen's w) against the declared margin."""
    long = pd.concat(
        [df.assign(series="G-test p-value", prob=df.g_p), df.assign(series="chi-square p-value", prob=df.chi2_p)]
    )
    long = long.assign(where=[f"{d}: ({_copies(t)})" for d, t in zip(long.distribution, long.table)])
    alpha = config_value(cfg, "claims.alpha")
    refs = (
        ()
        if alpha is None
        else (
            Reference(
                f"α / {len(df)} tables = {alpha / len(df):.2g} (a p-value below rejects)",
                y=alpha / len(df),
                color="black",
                linestyle="--",
            ),
        )
    )
    panel = Panel(
        long,
        "where",
        Axis(
            "Monte Carlo table (distribution: its variables; Ya is Alice's copy, Yb Bob's, Yc Charlie's)",
            scale="category",
            rotation=90,
        ),
        Axis("p-value", scale="log", probability=True, limits=(None, 1.5)),
        (Layer("prob", kind="points", markersize=6),),
        references=refs,
        title="(a) the difference test: a p-value below the line rejects the law",
    )
    alpha, margin = config_value(cfg, "claims.alpha"), config_value(cfg, "claims.margin")
    level = 0.05 if alpha is None else float(alpha)
    bounds = [gof_effect_bound(x, int(g) - 1, n, alpha=level) for x, g, n in zip(df.chi2, df.groups, df.trials)]
    close = df.assign(
        series=f"upper {100 * (1 - level):g}% bound of w",
        w=bounds,
        where=[f"{d}: ({_copies(t)})" for d, t in zip(df.distribution, df.table)],
    )
    margin_refs = (
        ()
        if margin is None
        else (
            Reference(
                f"margin w = {margin:g} (a bound below it shows the table follows the law)",
                y=float(margin),
                color="black",
                linestyle=":",
            ),
        )
    )
    effect = Panel(
        close,
        "where",
        Axis(
            "Monte Carlo table (distribution: its variables; Ya is Alice's copy, Yb Bob's, Yc Charlie's)",
            scale="category",
            rotation=90,
        ),
        Axis("Cohen's w (departure from the exact joint)", scale="log"),
        (Layer("w", kind="points", marker="v", markersize=6),),
        references=margin_refs,
        title="(b) the equivalence test: how far from the law the table can be",
    )
    return FigureSpec(
        "Monte Carlo tables vs the exact joint law",
        (panel, effect),
        style_map(["G-test p-value", "chi-square p-value", f"upper {100 * (1 - level):g}% bound of w"]),
        panel_size=(max(6.0, 0.45 * len(df)), 4.2),
    )


@figure(ledger=("fig7",))
def independent(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 7: the adversary's expected confidence vs the number of pooled copies, per scheme,
    exact (line) and Monte Carlo (crosses, ±2 s.e.)."""
    rows = df.assign(series=df.scheme, arrives=[f"{k}\np = {p:g}" for k, p in zip(df.k, df.p_k)])
    layers = (
        Layer("exact"),
        Layer(
            "mc",
            name="simulated (±2 s.e.)",
            kind="points",
            marker="x",
            markersize=8,
            interval=Interval("se", se="mc_se", clip=(0.0, 1.0)),
            dodge=0.12,
        ),
    )
    panel = Panel(
        rows,
        "arrives",
        Axis("pooled copies k, with the retention probability p of the k-th copy", scale="category"),
        Axis("E[Pr[X = true x | copies]]", probability=True),
        layers,
        xorder=tuple(dict.fromkeys(rows.sort_values("k").arrives)),
    )
    return FigureSpec(
        "Figure 7: vulnerability of independent perturbation",
        (panel,),
        style_map(list(dict.fromkeys(rows.series))),
        panel_size=(6.2, 3.8),
        notes=("lines: exact",),
    )


@figure(ledger=("fig8", "lemma2", "eff.space", "eff.time"))
def overhead(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 8: time per release and stored size vs m: the history store of multi-pert (solid)
    against storing every copy (dashed), and the history's exact expected size (dotted), per n."""
    expected = (df.expected_change_points * df.n * 12 + 8 * (df.n + 1) + 8 * df.m) / 2**20
    time = pd.concat(
        [
            df.assign(series=[f"multi-pert history, n = {n:,}" for n in df.n], y=df.history_ms_per_release),
            df.assign(series=[f"every copy stored, n = {n:,}" for n in df.n], y=df.naive_ms_per_release),
        ]
    )
    size = pd.concat(
        [
            df.assign(series=[f"multi-pert history, n = {n:,}" for n in df.n], y=df.history_bytes / 2**20),
            df.assign(series=[f"exact expected history, n = {n:,}" for n in df.n], y=expected),
            df.assign(series=[f"every copy stored, n = {n:,}" for n in df.n], y=df.naive_bytes / 2**20),
        ]
    )
    ns = sorted(int(n) for n in df.n.unique())
    labels, fixed, dashes = [], {}, {}
    for i, n in enumerate(ns):
        for kind, ls in (("multi-pert history", "-"), ("every copy stored", "--"), ("exact expected history", ":")):
            label = f"{kind}, n = {n:,}"
            labels.append(label)
            fixed[label] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"][i % 4]
            dashes[label] = ls
    styles = style_map(labels, fixed=fixed, linestyles=dashes)
    m = Axis("number of releases m", integer=True)
    panels = (
        Panel(time, "m", m, Axis("time per release", "ms", scale="log"), (Layer("y", marker=""),), title="(a) time"),
        Panel(size, "m", m, Axis("stored size", "MiB", scale="log"), (Layer("y", marker=""),), title="(b) space"),
    )
    return FigureSpec("Figure 8: overhead of multi-pert", panels, styles, ncols=2, panel_size=(5.0, 3.6))
