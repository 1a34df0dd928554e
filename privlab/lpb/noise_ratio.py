"""Noise ratio NR = (R - f(D)) / range of the attribute (Figures 2-5), sampled and exact."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import MapFn, PrivlabError, SeedSequenceFn, check_array, check_callable, check_real, map_in_order
from ..stats import quantile_se
from ._checks import MAX_DRAWS, check_size
from ._grid import panel_rho1s, summaries
from .calibration import Calibration
from .laplace import laplace_noise, laplace_quantile

__all__ = ["NR_STATS", "noise_ratio_stats", "lpb_noise_ratio", "dp_noise_ratio", "panel_settings"]

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


def panel_settings(
    panels: Mapping[str, Sequence[float]], attributes: Sequence[str], rho2_grid: Sequence[float]
) -> list[tuple[str, float, float]]:
    """The (attribute, rho1, rho2) settings of Figures 2-4: each rho1 of an attribute's panel
    (in the panels' order, attributes not in ``attributes`` left out) with each ``rho2 > rho1``."""
    grid = [float(r) for r in check_array("rho2_grid", rho2_grid)]
    rho1s = panel_rho1s(panels, attributes)
    return [(a, r1, r2) for a, panel in rho1s.items() for r1 in panel for r2 in grid if r2 > r1]


def _labelled_stats(task: tuple) -> list[dict[str, Any]]:
    label, lam, u_range, n, seed = task
    return [{**label, "lambda": lam, **row} for row in noise_ratio_stats(lam, u_range, n, seed)]


def _stats_table(tasks: list, map_fn: MapFn | None) -> pd.DataFrame:
    """The statistics of each (label, lambda, range, n_queries, seed) task, one row per statistic."""
    return pd.DataFrame([r for chunk in map_in_order(_labelled_stats, tasks, map_fn) for r in chunk])


def lpb_noise_ratio(
    columns: Mapping[str, np.ndarray],
    panels: Mapping[str, Sequence[float]],
    rho2_grid: Sequence[float],
    calibration: Calibration,
    n_queries: int,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Figures 2-4: the noise-ratio statistics of calibrated mean queries at every
    (attribute, rho1, rho2) of `panel_settings`.

    Parameters
    ----------
    columns : mapping
        Attribute -> its column (`attribute_columns`): sensitivity, universe and range.
    panels : mapping
        Attribute -> the rho1 of each panel of its figure.
    rho2_grid : sequence of float
        The x-axis; only rho2 above a panel's rho1 is used.
    calibration : Calibration
        The rule under test, giving (epsilon, lambda) of each setting.
    n_queries : int
        Responses per setting (4 .. 10**8).
    seed_sequence : callable
        ``seed_sequence(attribute, rho1, rho2)`` -> the setting's SeedSequence (e.g.
        ``RunContext.seed_sequence``): results never depend on the order of execution.
    map_fn : callable, optional
        ``map(fn, items) -> list`` in order, e.g. a parallel map (``RunContext.map``); serial otherwise.

    Returns
    -------
    DataFrame
        One row per (attribute, rho1, rho2, stat): ``epsilon``, ``lambda``, ``stat``, ``mc``,
        ``exact`` and ``mc_se`` (`noise_ratio_stats`).
    """
    s_of = summaries(columns)
    if not isinstance(calibration, Calibration):
        raise PrivlabError(f"calibration must be a privlab.lpb Calibration, got {type(calibration).__name__}")
    n = check_size("n_queries", n_queries, low=4, high=MAX_DRAWS, why="noise draws held in memory")
    check_callable("seed_sequence", seed_sequence)
    tasks = []
    for a, rho1, rho2 in panel_settings(panels, list(s_of), rho2_grid):
        s = s_of[a]
        eps, lam = calibration.calibrate(s["sensitivity"], s["universe_size"], rho1, rho2)
        label = {"attribute": a, "rho1": rho1, "rho2": rho2, "epsilon": eps}
        tasks.append((label, lam, s["range"], n, seed_sequence(a, rho1, rho2)))
    return _stats_table(tasks, map_fn)


def dp_noise_ratio(
    columns: Mapping[str, np.ndarray],
    epsilons: Sequence[float],
    n_queries: int,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Figure 5: the noise-ratio statistics of plain eps-DP mean queries (lambda = Delta / eps)
    for each attribute and each eps.

    Parameters
    ----------
    columns : mapping
        Attribute -> its column (`attribute_columns`).
    epsilons : sequence of float
        The grid of eps, each > 0.
    n_queries : int
        Responses per (attribute, eps) (4 .. 10**8).
    seed_sequence : callable
        ``seed_sequence(attribute, eps)`` -> that setting's SeedSequence.
    map_fn : callable, optional
        ``map(fn, items) -> list`` in order; serial otherwise.

    Returns
    -------
    DataFrame
        One row per (attribute, epsilon, stat), as `lpb_noise_ratio`.
    """
    s_of = summaries(columns)
    grid = check_array("epsilons", epsilons)
    if np.any(grid <= 0):
        raise PrivlabError("epsilons must all be > 0")
    n = check_size("n_queries", n_queries, low=4, high=MAX_DRAWS, why="noise draws held in memory")
    check_callable("seed_sequence", seed_sequence)
    tasks = [
        ({"attribute": a, "epsilon": e}, s["sensitivity"] / e, s["range"], n, seed_sequence(a, e))
        for a, s in s_of.items()
        for e in map(float, grid)
    ]
    return _stats_table(tasks, map_fn)
