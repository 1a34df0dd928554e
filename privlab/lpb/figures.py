"""The LPB paper's figures, drawn from the experiments' result tables (presentation only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..plots import new_figure

NR_PANELS = (("age", 2), ("hours-per-week", 3), ("education-num", 4))  # Figures 2-4

__all__ = [
    "NR_PANELS",
    "table1_posteriors",
    "lambda_vs_rho1",
    "noise_ratio",
    "dp_noise_ratio",
    "breach_check",
    "lpb_vs_dp",
    "nr_boxes",
    "wide_stats",
]


def wide_stats(df: pd.DataFrame) -> pd.DataFrame:
    """Noise-ratio rows (one per statistic) pivoted to one row per box."""
    index = [c for c in df.columns if c not in ("stat", "mc", "exact", "mc_se")]
    return df.pivot_table(index=index, columns="stat", values=["mc", "exact"], sort=False)


def table1_posteriors(df: pd.DataFrame) -> Any:
    fig, ax = new_figure(5.5, 3.4)
    x = np.arange(len(df))
    ax.bar(x - 0.2, df.posterior, 0.4, label="recomputed")
    ax.bar(x + 0.2, df.printed_posterior, 0.4, label="printed (Table I)")
    ax.set_xticks(x, df.value.astype(str))
    ax.set(xlabel="candidate value of the missing record", ylabel=f"Pr[X = u | r = {df.response[0]}]")
    ax.set_title("Table I: informed adversary's posterior (eps = 2)")
    ax.legend()
    return fig


def lambda_vs_rho1(df: pd.DataFrame) -> Any:
    fig, ax = new_figure(5.5, 3.6)
    for a, g in df.groupby("attribute", sort=False):
        (line,) = ax.plot(g.rho1, g["lambda"], marker="o", ms=3, label=a)
        ax.axhline(g.lambda_di.iloc[0], color=line.get_color(), ls=":", lw=1)
    ax.set(yscale="log", xlabel="rho1 (prior threshold)", ylabel="lambda (Laplace scale)")
    ax.set_title(f"Figure 1: LPB noise vs rho1, rho2 = {df.rho2.iloc[0]:g} (dotted: diff. identifiability)")
    ax.legend()
    return fig


def nr_boxes(wide: pd.DataFrame, panel_col: str, xcol: str, title: str, sub_title: Callable[[Any], str]) -> Any:
    """Noise-ratio box plots, one panel per value of ``panel_col``, on one shared symmetric-log
    scale: linear within the smallest exact quartile of the figure, logarithmic beyond, so a
    box 100 times larger than another leaves the small one readable and panels compare directly."""
    import matplotlib
    import matplotlib.ticker

    panels = list(dict.fromkeys(wide.index.get_level_values(panel_col)))
    fig, axes = new_figure(3.3 * len(panels), 3.8, ncols=len(panels), sharey=True)
    axes = np.atleast_1d(axes)
    lin = float(np.abs(wide[("exact", "q3")]).min())
    for ax, value in zip(axes, panels):
        g = wide.xs(value, level=panel_col, drop_level=False).reset_index()
        x = np.arange(1, len(g) + 1)
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
        ax.bxp(stats, showfliers=False, medianprops={"color": "tab:orange"})
        ax.plot(x, g[("exact", "q1")], "r_", ms=12, mew=1.5)
        ax.plot(x, g[("exact", "q3")], "r_", ms=12, mew=1.5, label="exact quartiles")
        ax.set_yscale("symlog", linthresh=lin, linscale=0.6)
        ax.axhline(0, color="0.7", lw=0.6, zorder=0)
        ax.grid(axis="y", color="0.9", lw=0.6, which="major")
        ax.set_xlabel(xcol)
        ax.set_title(sub_title(value), fontsize=9)
        ax.tick_params(axis="x", labelsize=7, rotation=45)
    top = float(np.abs(wide[[("mc", "lower_fence"), ("mc", "upper_fence")]]).to_numpy().max())
    decades = 10.0 ** np.arange(np.ceil(np.log10(lin)), np.ceil(np.log10(top)) + 1)
    axes[0].set_yticks(np.concatenate([-decades[::-1], [0.0], decades]))  # shared: every panel gets them
    axes[0].yaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    axes[0].set_ylabel(f"noise ratio (R - f(D)) / range\n(symlog, linear within {lin:.1e})")
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def noise_ratio(attribute: str, number: int) -> Callable[[pd.DataFrame], Any]:
    """Figure ``number`` (2-4): the noise-ratio panels of one attribute."""

    def plot(df: pd.DataFrame) -> Any:
        title = f"Figure {number}: noise ratio for {attribute} (1,000 mean queries, LPB's lambda)"
        panel = "abcdefgh"
        rho1s = list(dict.fromkeys(df[df.attribute == attribute].rho1))
        names = {r: f"({number}-{panel[i]}) rho1 = {r:g}" for i, r in enumerate(rho1s)}
        return nr_boxes(wide_stats(df[df.attribute == attribute]), "rho1", "rho2", title, names.__getitem__)

    return plot


def dp_noise_ratio(df: pd.DataFrame) -> Any:
    return nr_boxes(wide_stats(df), "attribute", "epsilon", "Figure 5: noise ratio for plain eps-DP", str)


def breach_check(df: pd.DataFrame) -> Any:
    """The two-point prior's largest posterior against eps / calibrated eps, one panel per
    attribute; one colour per rho1 value across all panels and one legend for the figure."""
    attrs = list(dict.fromkeys(df.attribute))
    tight = df[df.prior == "two_point"]
    rho1s = sorted(set(tight.rho1))
    colour = {r: plt_colour(i) for i, r in enumerate(rho1s)}
    fig, axes = new_figure(3.6 * len(attrs) + 1.6, 3.6, ncols=len(attrs), sharey=True)
    for ax, a in zip(np.atleast_1d(axes), attrs):
        g = tight[tight.attribute == a]
        for rho1, h in g.groupby("rho1"):
            ax.plot(h.eps_factor, h.exact_max_posterior, marker="o", color=colour[rho1])
            ax.plot(h.eps_factor, h.mc_max_posterior, ls="--", marker="x", ms=7, color=colour[rho1])
        ax.axhline(df.rho2.iloc[0], color="k", lw=1, ls=":")
        ax.set(xlabel="eps / calibrated eps", title=f"{a} (rho1 = {', '.join(f'{r:g}' for r in sorted(set(g.rho1)))})")
        ax.title.set_fontsize(8)
    np.atleast_1d(axes)[0].set_ylabel("largest posterior of the rho1 value")
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colour[r], marker="o", label=f"rho1 = {r:g}") for r in rho1s]
    handles += [
        Line2D([], [], color="0.3", marker="o", label="exact supremum"),
        Line2D([], [], color="0.3", ls="--", marker="x", label="largest seen (simulated)"),
        Line2D([], [], color="k", ls=":", label=f"rho2 = {df.rho2.iloc[0]:g}"),
    ]
    fig.legend(handles=handles, loc="center right", fontsize=7, frameon=False)
    fig.suptitle("Breach check: two-point priors (rho1 on the largest value, the rest on the smallest)")
    fig.tight_layout(rect=(0, 0, 1 - 1.5 / (3.6 * len(attrs) + 1.6), 1))
    return fig


def plt_colour(i: int) -> Any:
    """The i-th colour of a qualitative palette (tab10, then tab20 beyond ten)."""
    import matplotlib

    cmap = matplotlib.colormaps["tab10" if i < 10 else "tab20"]
    return cmap(i % cmap.N)


def lpb_vs_dp(df: pd.DataFrame) -> Any:
    """Figure 5's statement: (a) eps-DP's worst posterior minus rho2 against eps / LPB's eps,
    (b) the sampled noise-ratio IQR of LPB against eps-DP's at LPB's eps."""
    fig, (left, right) = new_figure(10.5, 3.8, ncols=2)
    for i, (a, g) in enumerate(df.groupby("attribute", sort=False)):
        ratio = g.epsilon / g.eps_calibrated
        left.scatter(ratio, g.worst_posterior - g.rho2, s=10, color=plt_colour(i), label=a, alpha=0.7)
        at = g[g.at_calibrated_eps]
        right.scatter(at.iqr_calibrated, at.iqr_dp, s=12, color=plt_colour(i), label=a)
    left.axvline(1, color="k", lw=1, ls=":")
    left.axhline(0, color="k", lw=1)
    left.set(xscale="log", xlabel="eps / LPB's eps", ylabel="worst posterior - rho2 (>= 0: breach)")
    left.set_title("(a) eps-DP breaches exactly from LPB's eps on", fontsize=9)
    lo, hi = float(df.iqr_calibrated.min()), float(df.iqr_calibrated.max())
    right.plot([lo, hi], [lo, hi], color="k", lw=1, ls=":", label="equal")
    right.set(xscale="log", yscale="log", xlabel="LPB: sampled IQR of the noise ratio")
    right.set(ylabel="eps-DP at LPB's eps: sampled IQR")
    right.set_title("(b) the same noise at the same eps", fontsize=9)
    left.legend(fontsize=7)
    right.legend(fontsize=7)
    fig.suptitle("Figure 5: 'LPB can achieve the same effect as eps-DP'")
    fig.tight_layout()
    return fig
