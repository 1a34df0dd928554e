"""The bucketization paper's figures, declared as specs over the experiments' result tables
(presentation only)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from privlab.bucketization.anatomy import max_eligible_l
from privlab.figures import (
    Axis,
    FigureSpec,
    Interval,
    Layer,
    Panel,
    Reading,
    Reference,
    config_value,
    figure,
    gap_label,
    style_map,
)

__all__ = [
    "sa_frequencies",
    "record_assignment",
    "l_vs_theta",
    "mse_vs_theta",
    "re_vs_theta",
    "runtime_n",
    "runtime_scaleup",
    "diffinf",
    "corruption",
]

THETA = Axis("privacy coefficient θ", scale="log2")
METHODS = ("TwoSize", "MultiSize", "Optimal", "Anatomy")
GAPS = (("TwoSize", "MultiSize"), ("MultiSize", "Optimal"))  # the "only slightly above" statements (Section 7.2)


def _method_styles(labels: list[str]) -> dict:
    """One style per method (Anatomy dashed: its MSE ignores privacy where ineligible), gaps included."""
    gaps = [gap_label(a, b) for a, b in GAPS]
    return style_map([*dict.fromkeys([*METHODS, *labels]), *gaps], linestyles={"Anatomy": "--"})


@figure(ledger=("fig2.skewed",))
def sa_frequencies(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 2: the frequency of every sensitive value by rank, one panel per table (log scale)."""
    rows = df.assign(series=df.table, percent=100 * df.frequency)  # in % like the paper's axis
    tables = list(dict.fromkeys(rows.table))
    panels = tuple(
        Panel(
            rows[rows.table == t],
            "rank",
            Axis("rank of the value (1 = most frequent)", integer=True),
            Axis("frequency $f_i$", "% of records", scale="log"),
            (Layer("percent", marker="o"),),
            title=f"{t}: {int((rows.table == t).sum())} values",
        )
        for t in tables
    )
    return FigureSpec(
        "Figure 2: frequency distribution of the sensitive attribute",
        panels,
        style_map(tables),
        ncols=len(tables),
        panel_size=(4.8, 3.4),
    )


def _assignment(df: pd.DataFrame) -> Any:
    r = df.iloc[0]
    parts = [("T1", int(r.S1), int(r.b1), df.t1.to_numpy()), ("T2", int(r.S2), int(r.b2), df.t2.to_numpy())]

    def draw(ax: Any) -> None:
        from matplotlib.patches import Rectangle  # here: the command line starts without matplotlib

        column = 0
        for part, size, buckets, counts in parts:
            labels = np.repeat(df.value.to_numpy(), counts)
            for pos, label in enumerate(labels):
                x, y = column + pos % buckets, pos // buckets
                ax.add_patch(Rectangle((x, y), 0.9, 0.9, fill=True, alpha=0.25 if part == "T1" else 0.45))
                ax.text(x + 0.45, y + 0.45, label, ha="center", va="center", fontsize=6)
            ax.text(column + buckets / 2, -0.7, f"{part}: {buckets} buckets of size {size}", ha="center", fontsize=8)
            column += buckets + 1
        ax.set_xlim(-0.5, column)
        ax.set_ylim(-1.2, max(int(r.S1), int(r.S2)) + 0.5)
        ax.invert_yaxis()
        ax.axis("off")

    return draw


@figure(ledger=("fig1",))
def record_assignment(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 1: the round-robin assignment of T_1 and T_2 (Example 4.20): one column per bucket,
    one labelled cell per record, records of each part placed by position mod b."""
    r = df.iloc[0]
    size = (max(5.0, 0.5 * int(r.b1 + r.b2) + 1), 0.35 * max(int(r.S1), int(r.S2)) + 1.5)
    title = "Figure 1: record assignment by RRA (Example 4.20, rebuilt instance)"
    return FigureSpec(title, (), {}, panel_size=size, diagram=_assignment(df))


@figure(ledger=("fig3", "sec71.eligibility", "sec71.large_l"))
def l_vs_theta(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 3: l needed for each theta, eligible points circled; dashed: the largest l for which
    l-diversity is possible at all, floor(1 / max f) (Remark 3.8)."""
    rows = df.assign(series=df.table)
    tables = list(dict.fromkeys(rows.table))
    styles = style_map(tables)
    eligible = Layer(
        lambda g: g.l.where(g.eligible.astype(bool)),
        name="l-diversity eligible",
        kind="points",
        marker="o",
        hollow=True,
        markersize=11,
    )
    refs = tuple(
        Reference(
            f"{t}: l-diversity possible up to ⌊1 / max f⌋ = {max_eligible_l(float(g.f_max.iloc[0]))}",
            y=float(max_eligible_l(float(g.f_max.iloc[0]))),
            color=styles[t].color,
            linestyle="--",
        )
        for t, g in rows.groupby("table", sort=False)
    )
    panel = Panel(rows, "theta", THETA, Axis("l needed, ⌈1 / min $F_i$⌉"), (Layer("l"), eligible), references=refs)
    return FigureSpec("Figure 3: l needed for F-privacy by l-diversity", (panel,), styles, panel_size=(6.0, 4.0))


def _per_table(
    df: pd.DataFrame, yaxis: Axis, layer: Layer, title: str, references: tuple[Reference, ...] = ()
) -> tuple[tuple[Panel, ...], dict]:
    """Figures 4 and 5: one panel per table against theta, one line per method, the gaps beneath."""
    rows = df.assign(series=df.method)
    panels = tuple(
        Panel(
            rows[rows.table == t],
            "theta",
            THETA,
            yaxis,
            (layer,),
            title=title.format(t),
            references=references,
            gaps=GAPS,
        )
        for t in dict.fromkeys(rows.table)
    )
    return panels, _method_styles(list(rows.method))


# the y label names the formula the table's mse column was computed with (config mse_definition)
MSE_FORMULAS = {
    "association": r"$(1/n)\,\Sigma_B\,(|B| - 1)$",
    "true_value": r"$(1/n)\,\Sigma_B\,(|B| - 1)^2/|B|$",
    "association_exact": r"$(1/n)\,\Sigma_B\,(|B| - \Sigma_v c_{B,v}^2/|B|)$",
}


@figure(ledger=("fig4", "sec721.anatomy", "sec721.two_multi", "sec721.multi_opt"))
def mse_vs_theta(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 4: MSE vs theta per table, one line per method; the gaps the paper calls slight
    (TwoSize - MultiSize, MultiSize - Optimal) in a difference panel; a solve that timed out is marked."""
    layer = Layer("mse", missing="status")
    title = "{} (Anatomy: bucket sizes only, privacy ignored where ineligible)"
    definition = config_value(cfg, "mse_definition") or "association"
    panels, styles = _per_table(df, Axis(f"MSE, {MSE_FORMULAS[definition]}"), layer, title)
    slightly = config_value(cfg, "claims.slightly")
    if slightly is not None:  # the reading of "only slightly above", drawn where the claims read it
        share = f"{100 * float(slightly):g}%"
        read = tuple(Reading(g, float(slightly), f"reading of 'slightly': {g[1]} + {share}", True) for g in GAPS)
        panels = tuple(dataclasses.replace(p, readings=read) for p in panels)
    return FigureSpec("Figure 4: MSE vs θ", panels, styles, ncols=2, panel_size=(5.0, 3.4))


@figure(ledger=("fig5", "sec722.below10", "sec722.close"))
def re_vs_theta(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 5: mean relative error vs theta per table with ±2 s.e.; the gaps between methods in a
    difference panel; dotted: the 10% the paper reads off."""
    layer = Layer("re", interval=Interval("se", se="re_se"), missing="status", dodge=0.06)
    ref = Reference("RE = 10% (Section 7.2.2)", y=0.10, color="0.4")
    panels, styles = _per_table(df, Axis("mean relative error of count queries"), layer, "{}", (ref,))
    return FigureSpec("Figure 5: RE of count queries vs θ", panels, styles, ncols=2, panel_size=(5.0, 3.4))


def _runtime(df: pd.DataFrame, x: str, xaxis: Axis, title: str) -> FigureSpec:
    rows = df.assign(series=df.method)
    styles = style_map(list(dict.fromkeys(rows.method)))
    timed = not df.seconds.isna().all()
    spread = timed and "seconds_low" in df and bool((df.seconds_high > df.seconds_low).any())
    # the median of the repeated runs, and the fastest to the slowest of them (an ILP runs once)
    what = "fastest to slowest of the repeated runs"
    layers = [Layer("seconds", interval=Interval("range", low="seconds_low", high="seconds_high", what=what))]
    if not spread:
        layers = [Layer("seconds")]
    if (df.status == "timed out").any():
        layers.append(
            Layer(
                lambda g: g.seconds.where(g.status == "timed out"),
                name="timed out at the time limit",
                kind="points",
                marker="x",
                markersize=10,
            )
        )
    yaxis = Axis("run time", "s", scale="log" if timed else "linear")
    notes = () if timed else ("not timed (timings=false)",)
    panel = Panel(rows, x, xaxis, yaxis, tuple(layers), notes=notes)
    return FigureSpec(title, (panel,), styles, panel_size=(6.0, 3.8))


@figure(
    ledger=(
        "fig7",
        "sec731.full_least",
        "sec731.none_most",
        "sec731.loss_grows",
        "sec731.full_flat",
        "sec731.ilp_faster",
    )
)
def runtime_n(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 7 (first study): seconds vs n, one line per method."""
    return _runtime(df, "n", Axis("records n", compact=True), "Figure 7: run time vs n (OCC)")


@figure(ledger=("fig7", "sec732.full_least", "sec732.ilp_grows", "sec732.others_little", "sec732.none_faster"))
def runtime_scaleup(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 7 (second study): seconds vs the scale-up factor gamma, one line per method."""
    per = sorted({int(m) // int(g) for m, g in zip(df.m, df.gamma)}) if "m" in df else []
    domain = f" (domain m = {per[0]}γ)" if len(per) == 1 else ""
    return _runtime(
        df, "gamma", Axis(f"scale-up factor γ{domain}", scale="log2"), "Figure 7: run time vs scale-up γ (OCC)"
    )


@figure(ledger=("sec21.factors", "thm2.mean", "cor24"), about="privlab's figure of Section 2.1 (the paper has none)")
def diffinf(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Section 2.1: the noisy ratio over the true ratio vs a1, one panel per eps: the trimmed mean
    (±2 s.e.) against Theorem 2's approximation of the mean, and the median against 1 (Corollary 2.4)."""
    rows = df.sort_values("a1", kind="stable")
    rows = rows.assign(series=[f"a2/a1 = {r:g}" for r in rows.ratio])
    styles = style_map(list(dict.fromkeys(rows.series)))
    mean = Layer(
        lambda g: g.trimmed_mean / g.ratio, interval=Interval("se", se=lambda g: g.trimmed_se / g.ratio), dodge=0.1
    )
    median = Layer(lambda g: g["median"] / g.ratio, name="median", linestyle="--", marker="")
    large = config_value(cfg, "large_a1")
    panels = []
    for eps, g in rows.groupby("epsilon", sort=True):
        approx = g.drop_duplicates("a1")
        refs = [
            Reference(
                "Theorem 2: E[ã2/ã1] ≈ (a2/a1)(1 + 2b²/a1²)",
                x=approx.a1.to_numpy(float),
                y=(approx.approx_mean / approx.ratio).to_numpy(float),
                color="black",
                linestyle=":",
            ),
            Reference("a2/a1 (Corollary 2.4: the median's limit)", y=1.0, color="0.55", linestyle="-"),
        ]
        if large is not None:
            refs.append(
                Reference(
                    f"large a1 (claims): a1 ≥ {large:g}", x=float(large), vertical=True, color="0.7", linestyle="-."
                )
            )
        panels.append(
            Panel(
                g,
                "a1",
                Axis("true count a1", scale="log"),
                Axis("noisy ratio / true ratio"),
                (mean, median),
                title=f"ε = {eps:g} (b = {1 / eps:g})",
                references=tuple(refs),
            )
        )
    panels += _nonpositive_panels(rows)
    styles = {**styles, **style_map([*styles, NONPOS], fixed={NONPOS: "black"})}
    title = "Section 2.1: the ratio of two noisy counts"
    notes = ("solid: trimmed mean (1% cut at each end; the mean does not exist), ±2 s.e.; dashed: median",)
    return FigureSpec(title, tuple(panels), styles, ncols=2, panel_size=(4.8, 3.6), notes=notes)


NONPOS = "simulated Pr[ã1 ≤ 0] (±2 s.e.)"


def _nonpositive_panels(rows: pd.DataFrame) -> list[Panel]:
    """Pr[ã1 <= 0] against a1 per eps, simulated (one ratio's draws) against exact e^(-a1/b) / 2."""
    panels = []
    for eps, g in rows.groupby("epsilon", sort=True):
        one = g[g.ratio == g.ratio.iloc[0]].assign(series=NONPOS)
        shown = one[one.p_nonpos > 0]  # a log axis: a probability never hit has no point to draw
        exact = one[one.p_nonpos_exact >= 1e-6]
        refs = (
            Reference(
                "exact Pr[ã1 ≤ 0] = ½ exp(−a1 / b)",
                x=exact.a1.to_numpy(float),
                y=exact.p_nonpos_exact.to_numpy(float),
                color="red",
                linestyle=":",
                marker=".",
            ),
        )
        never = sorted(float(a) for a in one.a1[one.p_nonpos == 0])
        notes = (f"never ≤ 0 at a1 = {', '.join(f'{a:g}' for a in never)}",) if never else ()
        panels.append(
            Panel(
                shown,
                "a1",
                Axis("true count a1", scale="log"),
                Axis("Pr[ã1 ≤ 0]", scale="log", probability=True),
                (Layer("p_nonpos", interval=Interval("se", se="p_nonpos_se", clip=(0.0, 1.0))),),
                title=f"ε = {eps:g}: the noisy denominator at or below 0",
                references=refs,
                notes=notes,
            )
        )
    return panels


@figure(
    ledger=("sec6.attack", "sec6.certainty", "sec6.cost"), about="privlab's figure of Section 6 (the paper has none)"
)
def corruption(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Section 6: adversary certainty vs corrupted records per bucket, per l and number of fakes."""
    rows = df.assign(series=[f"k = {k} fake values" for k in df.fakes])
    styles = style_map(list(dict.fromkeys(rows.series)))
    panels = []
    for l, g in rows.groupby("l", sort=True):
        cost = ", ".join(f"k = {k}: {h.re.iloc[0]:.3f}" for k, h in g.groupby("fakes"))
        panels.append(
            Panel(
                g,
                "corrupted",
                Axis("corrupted records per bucket c", integer=True),
                Axis("adversary's certainty", probability=True),
                (
                    Layer("success", interval=Interval("se", se="success_se", clip=(0.0, 1.0)), dodge=0.08),
                    Layer("exact", name="exact 1 / (|B| − c + k)", linestyle=":", marker=""),
                ),
                title=f"l = {l} (RE of count queries: {cost})",
            )
        )
    return FigureSpec(
        "Section 6: fake values against corruption",
        tuple(panels),
        styles,
        ncols=len(panels),
        panel_size=(4.8, 3.4),
        notes=("solid: simulated",),
    )
