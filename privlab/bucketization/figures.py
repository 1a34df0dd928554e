"""The bucketization paper's figures, drawn from the experiments' result tables (presentation only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from ..plots import new_figure

__all__ = [
    "sa_frequencies",
    "record_assignment",
    "l_vs_theta",
    "mse_vs_theta",
    "re_vs_theta",
    "runtime",
    "diffinf",
    "corruption",
]


def sa_frequencies(df: pd.DataFrame) -> Any:
    """Figure 2: the frequency of every sensitive value by rank, one panel per table (log scale)."""
    fig, panels = _per_table(df)
    for ax, table in panels:
        g = df[df.table == table]
        ax.bar(g["rank"], g.frequency, width=0.8)
        ax.set_yscale("log")
        ax.set(xlabel="value rank (1 = most frequent)", ylabel="frequency f_i", title=f"{table}: {len(g)} values")
    fig.suptitle("Figure 2: frequency distribution of the sensitive attribute")
    fig.tight_layout()
    return fig


def record_assignment(df: pd.DataFrame) -> Any:
    """Figure 1: the round-robin assignment of T_1 and T_2 (Example 4.20): one column per
    bucket, one labelled cell per record, records of each part placed by position mod b."""
    r = df.iloc[0]
    parts = [("T1", int(r.S1), int(r.b1), df.t1.to_numpy()), ("T2", int(r.S2), int(r.b2), df.t2.to_numpy())]
    n_buckets = int(r.b1 + r.b2)
    fig, ax = new_figure(max(5.0, 0.5 * n_buckets + 1), 0.35 * max(int(r.S1), int(r.S2)) + 1.5)
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
    ax.set_title("Figure 1: record assignment by RRA (Example 4.20, rebuilt instance)", fontsize=9)
    return fig


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
