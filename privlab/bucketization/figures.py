"""The bucketization paper's figures, drawn from the experiments' result tables (presentation only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..plots import new_figure

__all__ = ["l_vs_theta", "mse_vs_theta", "re_vs_theta", "runtime", "diffinf", "corruption"]


def l_vs_theta(df: pd.DataFrame) -> Any:
    """Figure 3: l needed for each theta, eligible points circled."""
    fig, ax = new_figure(5, 3.4)
    for table, g in df.groupby("table", sort=False):
        ax.plot(g.theta, g.l, marker="o", label=table)
        ax.scatter(g.theta[g.eligible], g.l[g.eligible], s=90, facecolors="none", edgecolors="k")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="privacy coefficient theta", ylabel="l = ceil(1 / min F_i)")
    ax.set_title("Figure 3: l needed (circled: l-diversity eligible)")
    ax.legend()
    return fig


def _per_table(df: pd.DataFrame) -> tuple[Any, list[tuple[Any, str]]]:
    tables = list(dict.fromkeys(df.table))
    fig, axes = new_figure(5 * len(tables), 3.6, ncols=len(tables))
    return fig, list(zip(np.atleast_1d(axes), tables))


def mse_vs_theta(df: pd.DataFrame) -> Any:
    """Figure 4: MSE vs theta per table, one line per method (Anatomy dashed)."""
    fig, panels = _per_table(df)
    for ax, table in panels:
        for method, h in df[df.table == table].groupby("method", sort=False):
            ax.plot(h.theta, h.mse, marker="o", label=method, ls="--" if method == "Anatomy" else "-")
        ax.set_xscale("log", base=2)
        ax.set(xlabel="theta", ylabel="MSE")
        ax.set_title(f"{table} (Anatomy ignores privacy where ineligible)", fontsize=9)
        ax.legend(fontsize=8)
    fig.suptitle("Figure 4: MSE vs theta")
    fig.tight_layout()
    return fig


def re_vs_theta(df: pd.DataFrame) -> Any:
    """Figure 5: mean relative error vs theta per table, with 2-s.e. bars."""
    fig, panels = _per_table(df)
    for ax, table in panels:
        for method, h in df[df.table == table].groupby("method", sort=False):
            ax.errorbar(h.theta, h.re, yerr=2 * h.re_se, marker="o", label=method, capsize=2)
        ax.set_xscale("log", base=2)
        ax.set(xlabel="theta", ylabel="mean relative error", title=table)
        ax.legend(fontsize=8)
    fig.suptitle("Figure 5: RE of count queries vs theta")
    fig.tight_layout()
    return fig


def runtime(x: str, title: str) -> Callable[[pd.DataFrame], Any]:
    """Figure 7: seconds vs ``x`` (n or gamma), one line per method, time-outs crossed."""

    def plot(df: pd.DataFrame) -> Any:
        fig, ax = new_figure(5.5, 3.6)
        for method, g in df.groupby("method", sort=False):
            ax.plot(g[x], g.seconds, marker="o", label=method)
            bad = g[g.status != "optimal"]
            ax.scatter(bad[x], bad.seconds, marker="x", color="k", s=60, zorder=3)
        if df.seconds.isna().all():
            ax.text(0.5, 0.5, "not timed (timings=false)", transform=ax.transAxes, ha="center")
        else:
            ax.set_yscale("log")
            if x == "gamma":
                ax.set_xscale("log", base=2)
        ax.set(xlabel=x, ylabel="seconds (x: timed out)")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
        return fig

    return plot


def diffinf(df: pd.DataFrame) -> Any:
    """Section 2.1: median noisy ratio / true ratio vs a1, dotted the approximation."""
    fig, ax = new_figure(5.5, 3.6)
    for (ratio, e), g in df.groupby(["ratio", "epsilon"]):
        r = float(ratio)  # type: ignore[arg-type]
        (line,) = ax.plot(g.a1, g["median"] / r, marker="o", ms=3, label=f"a2/a1={r:g}, eps={e:g} (median)")
        ax.plot(g.a1, g.approx_mean / r, ls=":", color=line.get_color())
    ax.set_xscale("log")
    ax.set(xlabel="a1 (true count)", ylabel="noisy ratio / true ratio")
    ax.set_title("Section 2.1: noisy ratio (dotted: Theorem 2 approximation)", fontsize=9)
    ax.legend(fontsize=6)
    return fig


def corruption(df: pd.DataFrame) -> Any:
    """Section 6: adversary certainty vs corrupted records per bucket, per l and number of fakes."""
    ls = sorted(df.l.unique())
    fig, axes = new_figure(4.5 * len(ls), 3.4, ncols=len(ls))
    for ax, l in zip(np.atleast_1d(axes), ls):
        for k, g in df[df.l == l].groupby("fakes"):
            (line,) = ax.plot(g.corrupted, g.success, marker="o", label=f"{k} fakes (RE {g.re.iloc[0]:.3f})")
            ax.plot(g.corrupted, g.exact, ls=":", color=line.get_color())
        ax.set(xlabel="corrupted records per bucket c", ylabel="adversary certainty", title=f"l = {l} (dotted: exact)")
        ax.legend(fontsize=7)
    fig.suptitle("Section 6: fake values against corruption")
    fig.tight_layout()
    return fig
