"""What each claim of Warner's experiments compares (one function per experiment)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privlab import claims as cl


def variance_exact(table: pd.DataFrame, *, printed: Any, pi: float, limits: Any) -> list[cl.Claim]:
    """Warner's variance against the exact law, the estimate's exact mean against pi, and the growth
    of the exact variance as p nears 1/2: strictly increasing towards 1/2 on each side, and at least
    ``floor / (n (2p - 1)^2)`` everywhere, which no bound holds as 2p - 1 -> 0."""
    rel = np.abs(table.variance - table.exact_variance) / table.exact_variance
    bias = np.abs(table.exact_mean - pi)
    towards_half = []
    for _, rows in table.groupby("n"):
        for side in (rows[rows.p < 0.5], rows[rows.p > 0.5]):
            ordered = side.assign(d=np.abs(side.p - 0.5)).sort_values("d", ascending=False)
            towards_half.append(bool(np.all(np.diff(ordered.exact_variance.to_numpy()) > 0)))
    scaled = table.exact_variance * table.n * (2 * table.p - 1) ** 2
    near = table.loc[np.abs(table.p - 0.5).idxmin()]
    return [
        cl.statement(
            printed.variance,
            bool(rel.max() <= limits.rtol),
            reproduced=f"max relative difference {rel.max():.2e} over {len(table)} (n, p)",
            rule=f"relative difference <= {limits.rtol:g}",
        ),
        cl.statement(
            printed.unbiased,
            bool(bias.max() <= limits.rtol * max(pi, 1e-12) + 1e-15),
            reproduced=f"max |E[pi_hat] - pi| = {bias.max():.2e}",
            rule=f"relative difference <= {limits.rtol:g}",
        ),
        cl.statement(
            printed.unbounded,
            all(towards_half) and bool(scaled.min() >= limits.floor),
            reproduced=(
                f"Var grows towards p = 1/2 on {sum(towards_half)} of {len(towards_half)} side(s); "
                f"min n (2p - 1)^2 Var = {scaled.min():.4f}; Var = {near.exact_variance:.4g} at p = {near.p:g}"
            ),
            rule=f"increasing towards 1/2 and n (2p - 1)^2 Var >= {limits.floor:g}",
        ),
    ]


def survey_mc(table: pd.DataFrame, *, printed: Any, pi: float, limits: Any) -> list[cl.Claim]:
    """The simulated surveys' variance of pi_hat against Warner's, and their mean against pi."""
    return [
        cl.within_se(printed.variance, table.mc_variance, table.variance, table.mc_variance_se, k=limits.k),
        cl.within_se(printed.unbiased, table.mc_mean, pi, table.mc_mean_se, k=limits.k),
    ]
