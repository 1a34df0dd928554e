"""The multilevel paper's figures, drawn from the experiments' result tables (presentation only)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..plots import new_figure

__all__ = ["priors", "collusion", "equivalence", "agreement", "independent", "overhead"]


PANELS = ("uniform", "gaussian", "salary", "occupation")  # the slide's panels (a)-(d)


def priors(df: pd.DataFrame) -> Any:
    """The slide "Distribution of Sensitive Values": one panel per law of X, lettered as the slide's."""
    names = list(dict.fromkeys(df.distribution))
    others = [n for n in names if n not in PANELS]
    letter = {n: "abcdefghij"[i] for i, n in enumerate([*PANELS, *others])}
    cols = min(2, len(names))
    rows = -(-len(names) // cols)
    fig, axes = new_figure(4.6 * cols, 2.8 * rows, nrows=rows, ncols=cols)
    axes = np.atleast_1d(axes).ravel()
    for ax, name in zip(axes, names):
        g = df[df.distribution == name]
        source = g.data.iloc[0] if g.data.iloc[0] != "-" else g.kind.iloc[0]
        ax.bar(g.x, g.prior, 0.8, color="0.45")
        ax.set_title(f"({letter[name]}) {name} ({source}, s = {len(g)})", fontsize=9)
        ax.set(xlabel="x", ylabel="Pr[X = x]", xlim=(0, len(g) + 1))
    for ax in axes[len(names) :]:
        ax.set_visible(False)
    fig.suptitle("Distribution of sensitive values")
    fig.tight_layout()
    return fig


def collusion(df: pd.DataFrame) -> Any:
    """Figure 5: MC posteriors given all copies and given Y_c, with the exact values."""
    names = list(dict.fromkeys(df.distribution))
    fig, axes = new_figure(9, 2.4 * len(names), nrows=len(names))
    axes = np.atleast_1d(axes)
    for ax, name in zip(axes, names):
        g = df[df.distribution == name]
        ax.bar(g.x - 0.2, g.mc_all, 0.4, yerr=g.mc_all_se, label="MC Pr[X=x | Ya,Yb,Yc]", color="0.85", ec="k", lw=0.4)
        ax.bar(g.x + 0.2, g.mc_c, 0.4, yerr=g.mc_c_se, label="MC Pr[X=x | Yc]", color="0.3")
        ax.plot(g.x, g.exact_all, "r_", ms=9, mew=1.5, label="exact (both)")
        cell = f"y_a={g.y_a.iloc[0]}, y_b={g.y_b.iloc[0]}, y_c={g.y_c.iloc[0]}"
        ax.set_title(f"{name} ({cell}), {g.trials.iloc[0]:.2g} trials", fontsize=9)
        ax.set_xlim(0, g.x.max() + 1)
    axes[0].legend(fontsize=7, ncol=3)
    axes[-1].set_xlabel("x")
    fig.suptitle("Figure 5: collusion is useless (MC and exact)")
    fig.tight_layout()
    return fig


def equivalence(df: pd.DataFrame) -> Any:
    """Figure 6: each copy's law given X, MC against the uni-pert formula and the chain law."""
    names = list(dict.fromkeys(df.distribution))
    fig, axes = new_figure(9, 2.3 * len(names), nrows=len(names))
    axes = np.atleast_1d(axes)
    for ax, name in zip(axes, names):
        g = df[df.distribution == name]
        ax.bar(g.y - 0.2, g.mc, 0.4, yerr=g.mc_se, color="0.85", ec="k", lw=0.4, label="MC Pr[Y=y | X=x]")
        ax.bar(g.y + 0.2, g.uni_pert, 0.4, color="0.3", label="uni-pert formula")
        ax.plot(g.y, g.exact_chain, "r_", ms=9, mew=1.5, label="exact chain law")
        ax.set_yscale("log")
        ax.set_title(f"{name}: {g.recipient.iloc[0]} (p={g.p.iloc[0]:g}), x={g.x.iloc[0]}", fontsize=9)
    axes[0].legend(fontsize=7, ncol=3)
    axes[-1].set_xlabel("y")
    fig.suptitle("Figure 6: each copy is a uni-pert copy (MC and exact)")
    fig.tight_layout()
    return fig


def agreement(df: pd.DataFrame) -> Any:
    """p-values of the goodness-of-fit tests of every MC table against the exact joint."""
    fig, ax = new_figure(7, 3.2)
    labels = [f"{d}\n{t}" for d, t in zip(df.distribution, df.table)]
    ax.bar(np.arange(len(df)) - 0.2, df.g_p, 0.4, label="G-test p")
    ax.bar(np.arange(len(df)) + 0.2, df.chi2_p, 0.4, label="chi-square p")
    ax.set_xticks(np.arange(len(df)), labels, rotation=90, fontsize=6)
    ax.set(ylim=(0, 1), ylabel="p-value", title="MC tables vs exact joint")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def independent(df: pd.DataFrame) -> Any:
    """Figure 7: the adversary's expected confidence vs the number of pooled copies, per scheme."""
    fig, ax = new_figure(5.8, 3.6)
    for (scheme, g), marker in zip(df.groupby("scheme", sort=False), "os^dv<>p"):
        (line,) = ax.plot(g.k, g.exact, f"{marker}-", label=f"{scheme} exact")
        ax.errorbar(g.k, g.mc, yerr=2 * g.mc_se, fmt="x", color=line.get_color(), label=f"{scheme} MC (+-2 SE)")
    ax.set(xlabel="number of pooled copies k (p's in request order)", ylabel="E[Pr[X = true x | copies]]")
    ax.set_title("Figure 7: vulnerability of independent perturbation")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def overhead(df: pd.DataFrame) -> Any:
    """Figure 8: time per release and stored size vs m, history store (solid) vs every copy (dashed)."""
    fig, (a1, a2) = new_figure(10, 3.6, ncols=2)
    for n in sorted(int(v) for v in df.n.unique()):
        g = df[df.n == n]
        (line,) = a1.plot(g.m, g.history_ms_per_release, label=f"multi-pert n={n:,}")
        a1.plot(g.m, g.naive_ms_per_release, ls="--", color=line.get_color(), label=f"naive n={n:,}")
        (line,) = a2.plot(g.m, g.history_bytes / 2**20, label=f"history n={n:,}")
        expected = (g.expected_change_points * n * 12 + 8 * (n + 1) + 8 * g.m) / 2**20
        a2.plot(g.m, expected, ":", color=line.get_color(), label=f"exact expected n={n:,}")
        a2.plot(g.m, g.naive_bytes / 2**20, ls="--", color=line.get_color(), label=f"naive n={n:,}")
    a1.set(xlabel="number of releases m", ylabel="ms per release", yscale="log")
    a2.set(xlabel="number of releases m", ylabel="stored MiB", yscale="log")
    a1.legend(fontsize=6)
    a2.legend(fontsize=6)
    fig.suptitle("Figure 8: overhead of multi-pert (solid) vs storing every copy (dashed)")
    fig.tight_layout()
    return fig
