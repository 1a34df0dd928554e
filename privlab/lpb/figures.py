"""The LPB paper's figures, drawn from the experiments' result tables (presentation only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..plots import boxplot_panels, new_figure

NR_PANELS = (("age", 2), ("hours-per-week", 3), ("education-num", 4))  # Figures 2-4

__all__ = [
    "NR_PANELS",
    "table1_posteriors",
    "lambda_vs_rho1",
    "noise_ratio",
    "dp_noise_ratio",
    "breach_check",
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


def noise_ratio(attribute: str, number: int) -> Callable[[pd.DataFrame], Any]:
    """Figure ``number`` (2-4): the noise-ratio panels of one attribute."""

    def plot(df: pd.DataFrame) -> Any:
        title = f"Figure {number}: noise ratio for {attribute} (1,000 mean queries)"
        return boxplot_panels(wide_stats(df[df.attribute == attribute]), "rho1", "rho2", title)

    return plot


def dp_noise_ratio(df: pd.DataFrame) -> Any:
    return boxplot_panels(wide_stats(df), "attribute", "epsilon", "Figure 5: noise ratio for plain eps-DP", str)


def breach_check(df: pd.DataFrame) -> Any:
    attrs = list(dict.fromkeys(df.attribute))
    fig, axes = new_figure(3.6 * len(attrs), 3.4, ncols=len(attrs))
    for ax, a in zip(np.atleast_1d(axes), attrs):
        g = df[(df.attribute == a) & (df.prior == "two_point")]
        for rho1, h in g.groupby("rho1"):
            (line,) = ax.plot(h.eps_factor, h.exact_max_posterior, marker="o", label=f"rho1={rho1:g} exact")
            ax.plot(h.eps_factor, h.mc_max_posterior, ls="--", marker="x", color=line.get_color())
        ax.axhline(df.rho2.iloc[0], color="k", lw=1, ls=":")
        ax.set(xlabel="eps / calibrated eps", title=a)
        ax.legend(fontsize=7)
    np.atleast_1d(axes)[0].set_ylabel("largest posterior (solid exact, dashed seen)")
    fig.suptitle("Breach check: two-point priors (rho1 on the largest value)")
    fig.tight_layout()
    return fig
