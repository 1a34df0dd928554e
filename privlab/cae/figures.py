"""The CAE paper's figures, drawn from the experiments' result tables (presentation only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..plots import new_figure

__all__ = ["example", "salary_examples", "sdc_vs_sk", "noise_vs_sk_and_amount", "legend"]

# how a line of each technique is labelled, and what its repetitions are
_LEGEND = {"sampling": "sample {:g}%", "query_restriction": "Q = {:g}", "noise": "noise {:g}%"}
# the seed's panel letters of Figure 2 (H0, Area) per technique
_LETTERS = {"sampling": ("a", "b"), "query_restriction": ("c", "d"), "noise": ("e", "f")}
_NAMES = {
    "sampling": ("sampling", "repetitions"),
    "query_restriction": ("query restriction", "shuffles"),
    "noise": ("noise addition", "perturbed files"),
}


def legend(technique: str, param: float) -> str:
    """A result line's label: "sample 50%", "Q = 8", "noise 10%" (``<technique> <param>`` otherwise)."""
    return _LEGEND.get(technique, technique + " {:g}").format(param)


def example(df: pd.DataFrame) -> Any:
    """Figure 3: H(eps) of the worked example, its area and the printed values."""
    fig, ax = new_figure(5.5, 3.4)
    ax.step(df.eps, df.H, where="post", label="H(eps) (DP)")
    ax.fill_between(df.eps, df.H, step="post", alpha=0.25, label=f"area A = {df.area[0]:.3f}")
    printed = df.dropna(subset=["printed_H"])
    ax.plot(printed.eps, printed.printed_H, "x", color="k", label="printed")
    ax.set_xlabel("eps")
    ax.set_ylabel("H(eps) [bits]")
    ax.set_title(f"Figure 3: worked example (H0 = {df.H0[0]:.3f})")
    ax.legend()
    return fig


def sdc_vs_sk(figure: str) -> Callable[[pd.DataFrame], Any]:
    """H0 and area vs SK size, one line per parameter of the table's first technique (with
    +-2 s.e.) and the other techniques dashed, as references; one row of panels per data set.

    Panels carry the seed's letters (Figure 2: (a), (b) sampling, (c), (d) query restriction,
    (e), (f) noise addition; H0 left, Area right); each row's legend sits outside its panels,
    on the right, so that it hides no curve.
    """

    def plot(df: pd.DataFrame) -> Any:
        from matplotlib.ticker import MaxNLocator

        technique = df.technique.iloc[0]
        name, reps = _NAMES.get(technique, (technique, "repetitions"))
        letters = _LETTERS.get(technique, ("", ""))
        sub = df[df.technique == technique]
        datasets = list(dict.fromkeys(sub.dataset))
        fig, axes = new_figure(11.5, 3.4 * len(datasets), ncols=2, nrows=len(datasets))
        axes = np.asarray(axes).reshape(len(datasets), 2)
        for row, ds in enumerate(datasets):
            d = sub[sub.dataset == ds]
            for col, (measure, ylabel) in enumerate((("H0", "H0 [bits]"), ("area", "Area"))):
                ax = axes[row, col]
                for param, g in d.groupby("param"):
                    ax.errorbar(
                        g.sk_size,
                        g[measure],
                        yerr=2 * g[f"{measure}_se"],
                        marker="o",
                        ms=3,
                        capsize=2,
                        label=legend(technique, param),
                    )
                others = df[(df.dataset == ds) & (df.technique != technique)]
                for (tech, param), g in others.groupby(["technique", "param"]):
                    ax.plot(g.sk_size, g[measure], "k--", lw=1, label=legend(tech, param) + " (reference)")
                ax.set_xlabel("intruder's SK (number of known attributes)")
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
                ax.set_ylabel(ylabel)
                letter = f"({letters[col]}) " if letters[col] else ""
                ax.set_title(f"{letter}{name}: {ylabel.split()[0]} vs SK ({ds})", fontsize=9)
            axes[row, 1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
        fig.suptitle(f"{figure}: {name} (mean of {reps}, ±2 s.e.)", fontsize=10)
        fig.tight_layout()
        return fig

    return plot


def noise_vs_sk_and_amount(df: pd.DataFrame) -> Any:
    """Figure 4: (a), (b) H0 and area vs SK per noise amount; (c), (d) vs the noise amount per SK
    size. Two rows of panels per data set, each row's legend outside its panels on the right."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    technique = df.technique.iloc[0]
    df = df[df.technique == technique]
    datasets = list(dict.fromkeys(df.dataset))
    fig, axes = new_figure(11.5, 6.4 * len(datasets), ncols=2, nrows=2 * len(datasets))
    axes = np.asarray(axes).reshape(2 * len(datasets), 2)
    for row, ds in enumerate(datasets):
        d = df[df.dataset == ds]
        levels = sorted(d.param.unique())
        for col, measure in enumerate(("H0", "area")):
            ax = axes[2 * row, col]
            for param, g in d.groupby("param"):
                color = plt.cm.viridis(levels.index(param) / max(len(levels) - 1, 1))
                ax.plot(g.sk_size, g[measure], marker="o", ms=3, color=color, label=f"{param:g}%")
            ax.set_xlabel("intruder's SK (number of known attributes)")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylabel(measure)
            ax.set_title(f"({'ab'[col]}) {measure} vs SK ({ds})", fontsize=9)
            ax = axes[2 * row + 1, col]
            for s, g in d.groupby("sk_size"):
                ax.plot(g.param, g[measure], marker="o", ms=3, label=f"SK {s}")
            ax.set_xlabel("noise amount [%]" if technique == "noise" else f"{technique} parameter")
            ax.set_ylabel(measure)
            ax.set_title(f"({'cd'[col]}) {measure} vs noise amount ({ds})", fontsize=9)
        for r, title in ((2 * row, "noise"), (2 * row + 1, "SK size")):
            axes[r, 1].legend(fontsize=7, title=title, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.suptitle("Figure 4: noise addition (mean over perturbed files)", fontsize=10)
    fig.tight_layout()
    return fig


def salary_examples(df: pd.DataFrame) -> Any:
    """Figure 1: H(eps) of Section 3's two examples, one step curve each, their areas shaded."""
    fig, ax = new_figure(6.5, 3.4)
    for _, g in df.groupby("example", sort=False):
        g = g.sort_values("eps")
        label = (
            f"{g.label.iloc[0]}: ({', '.join(f'{v:g}' for v in g[['low', 'high']].iloc[0])}), A = {g.area.iloc[0]:g}"
        )
        line = ax.step(g.eps, g.H, where="post", label=label)[0]
        ax.fill_between(g.eps, g.H, step="post", alpha=0.15, color=line.get_color())
    ax.set_xlabel("eps [thousands]")
    ax.set_ylabel("H(eps) [bits]")
    ax.set_ylim(-0.05, 1.25)
    ax.set_title("Figure 1: H(eps) of the two salary examples (Table 1)", fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig
