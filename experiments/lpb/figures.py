"""The LPB paper's figures, declared as specs over the experiments' result tables (presentation only)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privlab.figures import Axis, Drawn, FigureSpec, Interval, Layer, Panel, Reference, config_value, figure, style_map

NR_PANELS = (("age", 2), ("hours-per-week", 3), ("education-num", 4))  # Figures 2-4

__all__ = [
    "NR_PANELS",
    "table1_posteriors",
    "lambda_vs_rho1",
    "noise_ratio",
    "dp_noise_ratio",
    "breach_check",
    "lpb_vs_dp",
    "wide_stats",
]

SIMULATED = "simulated: quartiles (box), median, whiskers at the fences Q1 − 1.5 IQR and Q3 + 1.5 IQR"
MEDIAN = "simulated median ± 2 s.e. (the exact median is 0: a wobble inside the bars is no skew)"
EXACT = "exact quartiles (Laplace)"
BOX = {"q1": "mc_q1", "med": "mc_median", "q3": "mc_q3", "lo": "mc_lower_fence", "hi": "mc_upper_fence"}


def wide_stats(df: pd.DataFrame) -> pd.DataFrame:
    """Noise-ratio rows (one per statistic) pivoted to one row per box."""
    index = [c for c in df.columns if c not in ("stat", "mc", "exact", "mc_se")]
    values = ["mc", "exact", "mc_se"] if "mc_se" in df else ["mc", "exact"]
    return df.pivot_table(index=index, columns="stat", values=values, sort=False)


def _flat_stats(df: pd.DataFrame) -> pd.DataFrame:
    """One row per box, columns ``mc_<stat>`` and ``exact_<stat>``."""
    wide = wide_stats(df)
    wide.columns = pd.Index([f"{a}_{b}" for a, b in wide.columns.to_flat_index()])
    return wide.reset_index()


@figure(ledger=("table1.posterior",), about="privlab's picture of Table I (the paper prints a table)")
def table1_posteriors(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Table I: the recomputed posterior of each candidate value beside the printed one."""
    long = pd.concat(
        [df.assign(series="recomputed", p=df.posterior), df.assign(series="printed (Table I)", p=df.printed_posterior)]
    )
    long = long.assign(candidate=long.value.astype(str))
    panel = Panel(
        long,
        "candidate",
        Axis("candidate value u of the missing record", scale="category"),
        Axis(f"posterior Pr[X = u | r = {df.response[0]}]", probability=True),
        (Layer("p", kind="bar"),),
    )
    return FigureSpec(
        "Table I: the informed adversary's posterior (ε = 2)",
        (panel,),
        style_map(["recomputed", "printed (Table I)"]),
        panel_size=(6.0, 3.6),
    )


ACS_NAMES = {"AGEP": "age", "EDU": "educational attainment", "PINCP": "personal income"}  # the ACS columns in words


def _attribute_name(attribute: str, stands_for: Any) -> str:
    """An attribute in words; a real-data twin's ACS column with the Adult attribute it stands for."""
    name = ACS_NAMES.get(attribute, attribute)
    adult = stands_for.get(attribute) if hasattr(stands_for, "get") else None
    return f"{name} (ACS, for {adult})" if adult else name


@figure(ledger=("fig1.curves", "fig1.increases", "sec5.di_less", "fig1.caption"))
def lambda_vs_rho1(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 1: LPB's lambda vs rho1, one line per attribute; dotted: differential identifiability's."""
    stands_for = config_value(cfg, "stands_for") or {}
    rows = df.assign(series=[_attribute_name(a, stands_for) for a in df.attribute])
    layers = (Layer("lambda"), Layer("lambda_di", name="differential identifiability's λ", linestyle=":", marker=""))
    panel = Panel(
        rows, "rho1", Axis("prior threshold $\\rho_1$"), Axis("Laplace scale λ", "query units", scale="log"), layers
    )
    title = f"Figure 1: the magnitude of the noise vs ρ1 (ρ2 = {df.rho2.iloc[0]:g})"
    return FigureSpec(title, (panel,), style_map(list(dict.fromkeys(rows.series))), panel_size=(6.0, 3.8))


def _nr_spec(
    df: pd.DataFrame,
    panel_col: str,
    xcol: str,
    xaxis: Axis,
    title: str,
    sub_title: Any,
    references: tuple[Reference, ...] = (),
) -> FigureSpec:
    """Noise-ratio box plots, one panel per value of ``panel_col``, on one shared symmetric-log
    scale whose linear part ends at a quarter of the smallest quartile: the medians (near 0)
    sit in the linear part, every box edge in the logarithmic part, so a box 100 times larger than
    another leaves the small one readable and the panels compare directly. ``references``: lines
    drawn on every panel (a claim's reading)."""
    flat = _flat_stats(df)
    quartiles = np.abs(flat[["exact_q1", "exact_q3", "mc_q1", "mc_q3"]].to_numpy(float))
    smallest = float(quartiles[quartiles > 0].min())  # the simulated boxes too (a small sample's sit anywhere)
    lin = float(f"{smallest / 4:.1g}")
    sim = flat.assign(series=SIMULATED)
    exact = pd.concat([flat.assign(series=EXACT, q=flat.exact_q1), flat.assign(series=EXACT, q=flat.exact_q3)])
    rows = pd.concat([sim, exact], ignore_index=True)
    yaxis = Axis("noise ratio (R − f(D)) / range", scale="symlog", linthresh=lin)
    layers: tuple[Layer, ...] = (
        Layer(BOX, kind="box", only=(SIMULATED,)),
        Layer("q", kind="points", marker="_", markersize=14, only=(EXACT,)),
    )
    if "mc_se_median" in flat:  # the median's sampling wobble: on a log part it would read as skew
        rows = pd.concat([rows, flat.assign(series=MEDIAN)], ignore_index=True)
        se = Interval("se", se="mc_se_median")
        layers += (Layer("mc_median", kind="points", markersize=3, interval=se, only=(MEDIAN,)),)
    panels = []
    for value in dict.fromkeys(flat[panel_col]):
        g = rows[rows[panel_col] == value]
        order = tuple(dict.fromkeys(g[xcol]))
        panels.append(
            Panel(
                g.assign(tick=g[xcol].map(lambda v: f"{v:g}")),
                "tick",
                xaxis,
                yaxis,
                layers,
                title=sub_title(value),
                xorder=tuple(f"{v:g}" for v in order),
                references=references,
            )
        )
    styles = style_map([SIMULATED, EXACT, MEDIAN], fixed={EXACT: "red", MEDIAN: "#1f77b4"}, markers={EXACT: "_"})
    notes = (f"symmetric-log axis, linear within ±{lin:.1g} (a quarter of the smallest quartile)",)
    return FigureSpec(title, tuple(panels), styles, ncols=len(panels), panel_size=(3.4, 3.8), notes=notes, sharey=True)


def noise_ratio(attribute: str, number: int) -> Drawn:
    """Figure ``number`` (2-4): the noise-ratio panels of one attribute, one per rho1."""

    @figure(ledger=("figs2_4.boxes", f"fig{number}.panel_a", "sec5.close", "sec5.more_noise", "sec5.grows"))
    def build(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
        sub = df[df.attribute == attribute]
        rho1s = list(dict.fromkeys(sub.rho1))
        names = {r: f"({number}-{'abcdefgh'[i]}) ρ1 = {r:g}" for i, r in enumerate(rho1s)}
        title = f"Figure {number}: noise ratio for {attribute} (1,000 mean queries, LPB's λ)"
        close = config_value(cfg, "claims.close_fraction")
        reading = (
            ()
            if close is None
            else tuple(
                Reference(
                    f"[ours] reading of 'close to the true answer': fences within ±{close:g} of the range",
                    y=sign * float(close),
                    color="grey",
                    linestyle="--",
                )
                for sign in (1, -1)
            )
        )
        return _nr_spec(
            sub,
            "rho1",
            "rho2",
            Axis("posterior threshold $\\rho_2$", scale="category", rotation=45),
            title,
            names.__getitem__,
            reading,
        )

    return build


@figure(ledger=("fig5.curves", "fig5.panels"))
def dp_noise_ratio(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 5: the noise ratio of plain eps-DP, one panel per attribute."""
    return _nr_spec(
        df,
        "attribute",
        "epsilon",
        Axis("privacy parameter ε", scale="category", rotation=45),
        "Figure 5: noise ratio for plain ε-DP",
        _lettered(list(dict.fromkeys(df.attribute))),
    )


def _lettered(names: list[str]) -> Any:
    """``name`` -> ``(a) name``, ``(b) ...`` in the figure's order, as the paper letters its panels."""
    return {n: f"({'abcdefgh'[i]}) {n}" for i, n in enumerate(names)}.__getitem__


@figure(
    ledger=("abs.lpb_promise", "sec1.prior_free", "sec4.lpb_rule"),
    about="privlab's check of Theorem 2 (no figure in the paper)",
)
def breach_check(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """The two-point prior's largest posterior against eps / calibrated eps, one panel per attribute,
    one colour per rho1 value in every panel."""
    tight = df[df.prior == "two_point"].sort_values(["rho1", "eps_factor"], kind="stable")
    tight = tight.assign(series=[f"ρ1 = {r:g}" for r in tight.rho1])
    styles = style_map([f"ρ1 = {r:g}" for r in sorted(set(tight.rho1))])
    layers = (
        Layer("exact_max_posterior"),
        Layer("mc_max_posterior", name="largest seen (simulated)", linestyle="--", marker="x", markersize=7),
    )
    rho2 = float(df.rho2.iloc[0])
    panels = tuple(
        Panel(
            tight[tight.attribute == a],
            "eps_factor",
            Axis("ε / calibrated ε"),
            Axis("largest posterior of the $\\rho_1$ value", probability=True),
            layers,
            title=f"{a}\nρ1 = " + ", ".join(f"{r:g}" for r in sorted(set(tight.rho1[tight.attribute == a]))),
            references=(Reference(f"ρ2 = {rho2:g}", y=rho2),),
        )
        for a in dict.fromkeys(df.attribute)
    )
    title = "Breach check: two-point priors (ρ1 on the largest value, the rest on the smallest)"
    return FigureSpec(title, panels, styles, ncols=len(panels), panel_size=(3.8, 3.6), notes=("solid: exact supremum",))


@figure(
    ledger=("fig5.same_effect", "sec5.eps_semantics"),
    about="privlab's test of Figure 5's statement that LPB achieves the same effect as ε-DP",
)
def lpb_vs_dp(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 5's statement: (a) eps-DP's worst posterior minus rho2 against eps / LPB's eps, (b) the
    sampled noise-ratio IQR of LPB against eps-DP's at LPB's eps."""
    rows = df.assign(series=df.attribute, ratio=df.epsilon / df.eps_calibrated, excess=df.worst_posterior - df.rho2)
    attributes = list(dict.fromkeys(rows.series))
    styles = style_map(attributes, hollow=attributes)  # open markers: the attributes' points coincide
    at = rows[rows.at_calibrated_eps.astype(bool)]
    lo, hi = float(at.iqr_calibrated.min()), float(at.iqr_calibrated.max())
    left = Panel(
        rows,
        "ratio",
        Axis("ε / LPB's ε", scale="log"),
        Axis("worst posterior − $\\rho_2$ (≥ 0: breach)"),
        (Layer("excess", kind="points", markersize=5),),
        title="(a) ε-DP breaches exactly from LPB's ε on",
        references=(
            Reference("LPB's ε", x=1.0, vertical=True, color="0.3"),
            Reference("no breach below 0", y=0.0, color="0.3", linestyle="-"),
        ),
    )
    right = Panel(
        at,
        "iqr_calibrated",
        Axis("LPB: sampled IQR of the noise ratio", scale="log"),
        Axis("ε-DP at LPB's ε: sampled IQR", scale="log"),
        (Layer("iqr_dp", kind="points", markersize=5),),
        title="(b) the same noise at the same ε",
        references=(Reference("equal", x=[lo, hi], y=[lo, hi]),),
    )
    return FigureSpec(
        "Figure 5: 'LPB can achieve the same effect as ε-DP'", (left, right), styles, ncols=2, panel_size=(5.2, 3.8)
    )
