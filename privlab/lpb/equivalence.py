"""Figure 5's statement "LPB can achieve the same effect as eps-DP", made checkable.

LPB is the Laplace mechanism run at ``eps = ln(gamma)``; read as a statement about
mechanisms it says two things that can each fail:

* at the eps LPB assigns, plain eps-DP's noise ratio has LPB's distribution (sampled
  beside each other with independent seeds, compared by a two-sample Kolmogorov-Smirnov
  test, and their exact quartiles side by side);
* LPB gives eps its meaning: eps-DP at any eps keeps (rho1, rho2)-privacy against the
  informed adversary exactly when eps is below LPB's (worst posterior under the two-point
  prior, exact, for each eps of Figure 5's grid and at LPB's own eps).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._lazy import lazy
from .._validation import MapFn, PrivlabError, SeedSequenceFn, check_array, check_callable, check_int, map_in_order
from ._checks import MAX_DRAWS, check_size
from .adversary import max_posterior
from .breach import capped_prior, informed_adversary
from .calibration import Calibration, EpsilonDP, check_rhos
from .laplace import laplace_noise, laplace_quantile
from .noise_ratio import panel_settings

stats = lazy("scipy.stats")

__all__ = ["lpb_vs_dp", "lpb_vs_dp_grid"]


def lpb_vs_dp(
    universe: np.ndarray,
    known: np.ndarray,
    rho1: float,
    rho2: float,
    epsilons: np.ndarray,
    n_queries: int,
    seed: object,
    calibration: Calibration,
) -> list[dict[str, float | bool]]:
    """LPB's calibration beside plain eps-DP for one attribute and one (rho1, rho2).

    Parameters
    ----------
    universe : array_like
        The values the missing record may take (distinct, sorted by the caller or not).
    known : array_like
        The records the adversary knows (D'); the query is their mean with the missing one.
    rho1, rho2 : float
        The breach thresholds, 0 < rho1 < rho2 < 1.
    epsilons : array_like
        eps-DP's grid (Figure 5's x-axis), each > 0.
    n_queries : int
        Noise draws per mechanism for the sampled comparison (4 .. 10**8).
    seed : int or SeedSequence
        Two independent streams are spawned from it, one per mechanism.
    calibration : Calibration
        The rule under test (LPB's, or another noise_calibration mechanism).

    Returns
    -------
    list of dict
        One row at the calibration's eps (``at_calibrated_eps`` True, with the sampled
        comparison: Kolmogorov-Smirnov p-value, sampled interquartile ranges, the largest gap
        between exact quartiles) and one per grid eps; every row has eps-DP's Laplace scale,
        the exact worst posterior of the two-point prior and whether it is a breach (>= rho2).
    """
    u = check_array("universe", universe)
    if np.unique(u).size != u.size or u.size < 2:
        raise PrivlabError("universe must hold at least two distinct values")
    k = check_array("known", known, min_size=1)
    r1, r2 = check_rhos(rho1, rho2)
    grid = check_array("epsilons", epsilons)
    if np.any(grid <= 0):
        raise PrivlabError("epsilons must all be > 0")
    n = check_size("n_queries", n_queries, low=4, high=MAX_DRAWS, why="noise draws held in memory")
    if not isinstance(calibration, Calibration):
        raise PrivlabError(f"calibration must be a privlab.lpb Calibration, got {type(calibration).__name__}")
    order = np.argsort(u)
    u = u[order]
    delta = (u[-1] - u[0]) / (k.size + 1)  # the mean's sensitivity over the universe
    width = float(u[-1] - u[0])
    eps_cal, lam_cal = calibration.calibrate(delta, u.size, r1, r2)
    prior = capped_prior("two_point", u.size, r1)  # rho1 on the largest value: LPB's bound is tight there

    def worst(eps: float) -> float:
        return float(max_posterior(u, k, eps, prior=prior)[-1])

    _, lam_dp = EpsilonDP(eps=eps_cal).calibrate(delta, u.size, r1, r2)
    s_cal, s_dp = _streams(seed)
    nr_cal, nr_dp = laplace_noise(lam_cal, n, s_cal) / width, laplace_noise(lam_dp, n, s_dp) / width
    quart = np.array([0.25, 0.75])
    gap = float(np.max(np.abs(laplace_quantile(quart, lam_cal) - laplace_quantile(quart, lam_dp)))) / width
    iqr = [float(np.subtract(*np.quantile(x, [0.75, 0.25]))) for x in (nr_cal, nr_dp)]
    first = {
        "epsilon": eps_cal,
        "at_calibrated_eps": True,
        "lambda_calibrated": lam_cal,
        "lambda_dp": lam_dp,
        "ks_p": float(stats.ks_2samp(nr_cal, nr_dp).pvalue),
        "iqr_calibrated": iqr[0],
        "iqr_dp": iqr[1],
        "exact_quartile_gap": gap,
    }
    rows = [first] + [
        {"epsilon": float(e), "at_calibrated_eps": False, "lambda_calibrated": lam_cal, "lambda_dp": delta / float(e)}
        for e in grid
    ]
    for row in rows:
        w = worst(float(row["epsilon"]))
        row.update(eps_calibrated=eps_cal, worst_posterior=w, breach=bool(w >= r2 - 1e-12))
        for key in ("ks_p", "iqr_calibrated", "iqr_dp", "exact_quartile_gap"):
            row.setdefault(key, math.nan)
    return rows


def _streams(seed: object) -> list[np.random.Generator]:
    """Two independent generators from one seed (an int, a SeedSequence or a Generator)."""
    if isinstance(seed, np.random.Generator):
        return list(seed.spawn(2))
    seq = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(check_int("seed", seed, low=0))
    return [np.random.default_rng(s) for s in seq.spawn(2)]


def _labelled_rows(task: tuple) -> list[dict[str, Any]]:
    label, args = task
    return [{**label, **row} for row in lpb_vs_dp(*args)]


def lpb_vs_dp_grid(
    columns: Mapping[str, np.ndarray],
    panels: Mapping[str, Sequence[float]],
    rho2_grid: Sequence[float],
    epsilons: Sequence[float],
    target_index: int,
    n_queries: int,
    calibration: Calibration,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """`lpb_vs_dp` at every (attribute, rho1, rho2) of Figures 2-4's panels
    (`privlab.lpb.noise_ratio.panel_settings`), against the informed adversary of each column.

    Parameters
    ----------
    columns : mapping
        Attribute -> its column (`attribute_columns`).
    panels : mapping
        Attribute -> the rho1 of each panel.
    rho2_grid : sequence of float
        Figures 2-4's x-axis; only rho2 above a panel's rho1 is used.
    epsilons : sequence of float
        eps-DP's grid (Figure 5's x-axis), each > 0.
    target_index : int
        The record the adversary does not know (`informed_adversary`).
    n_queries : int
        Noise draws per mechanism for the sampled comparison.
    calibration : Calibration
        The rule under test.
    seed_sequence : callable
        ``seed_sequence(attribute, rho1, rho2)`` -> the setting's SeedSequence.
    map_fn : callable, optional
        ``map(fn, items) -> list`` in order; serial otherwise.

    Returns
    -------
    DataFrame
        `lpb_vs_dp`'s rows, each with its ``attribute``, ``rho1`` and ``rho2``.
    """
    if not isinstance(columns, Mapping) or not columns:
        raise PrivlabError("columns must be a non-empty mapping of attribute names to columns")
    check_callable("seed_sequence", seed_sequence)
    grid = [float(e) for e in check_array("epsilons", epsilons)]
    adversaries = {str(a): informed_adversary(c, target_index) for a, c in columns.items()}
    tasks = []
    for a, rho1, rho2 in panel_settings(panels, list(adversaries), rho2_grid):
        known, values = adversaries[a]
        args = (values, known, rho1, rho2, grid, n_queries, seed_sequence(a, rho1, rho2), calibration)
        tasks.append(({"attribute": a, "rho1": rho1, "rho2": rho2}, args))
    return pd.DataFrame([r for chunk in map_in_order(_labelled_rows, tasks, map_fn) for r in chunk])
