"""Noise ratio NR = (R - f(D)) / range of the attribute (Figures 2-5), sampled and exact."""

from __future__ import annotations

import numpy as np

from .._validation import check_real
from ..stats import quantile_se
from ._sizes import MAX_DRAWS, check_size
from .laplace import laplace_noise, laplace_quantile

__all__ = ["NR_STATS", "noise_ratio_stats"]

NR_STATS = ("q1", "median", "q3", "lower_fence", "upper_fence", "mean")


def noise_ratio_stats(lam: float, u_range: float, n_queries: int, seed: object) -> list[dict[str, float | str]]:
    """Box-plot statistics of NR over ``n_queries`` responses: sampled (``mc``), exact
    (Laplace quantiles of NR ~ Lap(lam / range)) and each sampled statistic's standard error."""
    lam = check_real("lam", lam, low=0, low_open=True)
    n = check_size("n_queries", n_queries, low=4, high=MAX_DRAWS, why="noise draws held in memory")
    width = check_real("u_range", u_range, low=0, low_open=True)
    nr = laplace_noise(lam, n, seed) / width
    s = lam / width
    q1, med, q3 = np.quantile(nr, [0.25, 0.5, 0.75])
    e1, emed, e3 = laplace_quantile(np.array([0.25, 0.5, 0.75]), s)
    se_q = quantile_se(0.25, n, 0.25 / s)  # Laplace density at its quartiles: 1 / (4 s)
    se_med = s / np.sqrt(n)
    iqr, eiqr = q3 - q1, e3 - e1
    mc = {
        "q1": q1,
        "median": med,
        "q3": q3,
        "lower_fence": q1 - 1.5 * iqr,
        "upper_fence": q3 + 1.5 * iqr,
        "mean": nr.mean(),
    }
    exact = {
        "q1": e1,
        "median": emed,
        "q3": e3,
        "lower_fence": e1 - 1.5 * eiqr,
        "upper_fence": e3 + 1.5 * eiqr,
        "mean": 0.0,
    }
    se = {
        "q1": se_q,
        "median": se_med,
        "q3": se_q,
        "lower_fence": 4 * se_q,
        "upper_fence": 4 * se_q,
        "mean": np.sqrt(2) * s / np.sqrt(n),
    }
    return [{"stat": k, "mc": mc[k], "exact": exact[k], "mc_se": se[k]} for k in NR_STATS]
