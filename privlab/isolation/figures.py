"""The isolation experiments' figures, drawn from their result tables (presentation only)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..plots import new_figure
from .rates import BEST, natural_rows

__all__ = ["isolation_vs_d", "isolation_vs_c_T", "bad_sanitizer", "utility", "real_data"]


def _rate_plot(ax: Any, g: pd.DataFrame, x: str, label: str, style: str) -> Any:
    """Rates on a log axis; at 0 successes a triangle at the 95% Wilson upper bound instead."""
    y = g.rate.where(g.successes > 0)
    (line,) = ax.plot(g[x], y, style, marker="o", ms=4, label=label)
    zero = g[g.successes == 0]
    if len(zero):
        ax.plot(zero[x], zero.wilson_upper, "v", color=line.get_color(), ms=6, alpha=0.6)
    return line


def isolation_vs_d(df: pd.DataFrame) -> Any:
    """Rate vs d per sanitizer: natural adversaries solid, the best of them dashed, 2^-d dotted."""
    fig, ax = new_figure(6.5, 4.2)
    natural = set(natural_rows(df).adversary)
    for san in dict.fromkeys(df.sanitizer):
        for adv, g in df[df.sanitizer == san].groupby("adversary", sort=False):
            if adv in natural or adv == BEST:
                name = f"{san}: {adv}"
                _rate_plot(ax, g.sort_values("d"), "d", name, "-" if adv in natural else "--")
    dd = np.sort(df.d.unique())
    ax.plot(dd, 2.0**-dd, "k:", label="2^-d (talk's corollary)")
    ax.set_yscale("log")
    ax.set_xlabel("dimension d")
    ax.set_ylabel("isolation success rate")
    ax.set_title(
        f"Isolation vs d (n = {df.n.iloc[0]}, T = {df['T'].iloc[0]}); v = 95% upper bound at 0 successes", fontsize=9
    )
    ax.legend(fontsize=6.5)
    fig.tight_layout()
    return fig


def isolation_vs_c_T(df: pd.DataFrame) -> Any:
    """Rate vs c, one panel per sanitizer, one line per T (natural adversaries)."""
    nat = natural_rows(df)
    sans = list(dict.fromkeys(nat.sanitizer))
    fig, axes = new_figure(3.3 * len(sans), 3.4, ncols=len(sans), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, san in zip(axes, sans):
        for T, g in nat[nat.sanitizer == san].groupby("T"):
            _rate_plot(ax, g.sort_values("c"), "c", f"T = {T}", "-")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("c")
        ax.set_title(san, fontsize=8)
    axes[0].set_ylabel("isolation success rate")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Isolation vs c and T (d = {int(df.d.iloc[0])}); v = 95% upper bound at 0 successes", fontsize=9)
    fig.tight_layout()
    return fig


def bad_sanitizer(df: pd.DataFrame) -> Any:
    """Rate vs the fraction of attributes released exactly, per stretch and adversary."""
    fig, ax = new_figure(6, 3.8)
    for (s, adv), g in df.groupby(["stretch", "adversary"]):
        g = g.sort_values("fraction_disclosed")
        _rate_plot(ax, g, "fraction_disclosed", f"stretch {s:g}, {adv}", "-" if adv == "released_row" else "--")
    ax.set_yscale("log")
    ax.set_xlabel("fraction of attributes released exactly")
    ax.set_ylabel("isolation success rate")
    ax.set_title(f"Bad sanitizer (d = {int(df.d.iloc[0])}): disclosure without isolation", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def utility(df: pd.DataFrame) -> Any:
    """Mean error, k-means cost ratio and box-count error vs d, per sanitizer."""
    fig, axes = new_figure(10, 3.3, ncols=3)
    for (col, title), ax in zip(
        (
            ("mean_error_rms", "RMS column-mean error"),
            ("kmeans_cost_ratio", "k-means cost ratio (SDB centres / RDB opt.)"),
            ("box_query_mae", "box-count error (fraction of data)"),
        ),
        axes,
    ):
        for san, g in df.groupby("sanitizer", sort=False):
            ax.plot(g.d, g[col], marker="o", label=san)
        ax.set_xlabel("d")
        ax.set_title(title, fontsize=8)
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Utility on a Gaussian mixture (n = {df.n.iloc[0]}, T = {df['T'].iloc[0]})", fontsize=9)
    fig.tight_layout()
    return fig


def real_data(df: pd.DataFrame) -> Any:
    """Natural adversaries' rates per sanitizer, one bar per data set (Adult scalings, uniform)."""
    piv = natural_rows(df).pivot_table(index="sanitizer", columns="data", values="rate", sort=False)
    fig, ax = new_figure(6.5, 3.6)
    x = np.arange(len(piv.index))
    w = 0.8 / len(piv.columns)
    for i, col in enumerate(piv.columns):
        ax.bar(x + i * w - 0.4 + w / 2, piv[col], w, label=col)
    ax.set_xticks(x, piv.index, fontsize=8)
    ax.set_ylabel("isolation success rate")
    ax.set_title(f"Adult numeric columns (d = {int(df.d.iloc[0])}, n = {int(df.n.iloc[0])}) vs uniform", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
