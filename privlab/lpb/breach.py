"""Breach simulation: the informed adversary against calibrated Laplace noise, exact and sampled.

Not in the paper: it checks the paper's central guarantee. A (rho1, rho2) breach occurs
when a value whose prior is at most rho1 gets a posterior of at least rho2 (Definition 3
counts ``>=``). `breach_simulation` draws the missing record from a prior, a response
from the mechanism and the posterior the adversary computes, and sets the largest
posterior seen beside the exact supremum over all responses (`max_posterior`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import (
    MapFn,
    PrivlabError,
    SeedSequenceFn,
    check_array,
    check_callable,
    check_choice,
    check_int,
    check_real,
    map_in_order,
    rng_from,
)
from ._checks import MAX_CELLS, MAX_DRAWS, check_cells, check_size
from ._grid import panel_rho1s
from .adversary import largest_posterior_given, max_posterior, query_answers
from .calibration import Calibration, check_rhos

__all__ = [
    "PRIORS",
    "capped_prior",
    "breach_simulation",
    "breach_grid",
    "informed_adversary",
    "two_point_breach_rate",
]

PRIORS = ("uniform", "random", "adversarial", "two_point")


def capped_prior(kind: str, size: int, cap: float, seed: object = None) -> np.ndarray:
    """A prior over ``size`` candidates (ordered by value) with every entry <= ``cap``.

    uniform: 1/size; random: Dirichlet(1) water-filled under the cap; adversarial:
    cap on the largest value and mass packed on the smallest values, which pushes the
    largest value's posterior as high as the cap allows. two_point: cap on the largest
    value and the rest on the smallest: Definition 3 bounds only the breached value's
    prior, and this is the prior that makes LPB's bound tight.
    """
    check_choice("prior", kind, PRIORS)
    size = check_size("size", size, low=2, high=MAX_DRAWS, why="prior entries held in memory")
    cap = check_real("cap", cap, low=0, high=1, low_open=True)
    if kind == "two_point":
        p = np.zeros(size)
        p[-1], p[0] = cap, 1.0 - cap
        return p
    if size * cap < 1 - 1e-12:
        raise PrivlabError(f"rho1 = {cap:g} is below 1/|U| = {1 / size:.4g}: no prior keeps every candidate <= rho1")
    if kind == "uniform":
        return np.full(size, 1.0 / size)
    if kind == "random":
        p = rng_from(seed).dirichlet(np.ones(size))
        for _ in range(size):  # water-filling: cap, redistribute the excess over uncapped entries
            over = p > cap
            if not over.any():
                break
            excess = (p[over] - cap).sum()
            p[over] = cap
            free = ~np.isclose(p, cap)
            p[free] += excess * p[free] / p[free].sum()
        return p / p.sum()
    p = np.zeros(size)  # adversarial
    p[-1] = cap
    rest = 1.0 - cap
    for i in range(size - 1):
        take = min(cap, rest)
        p[i] = take
        rest -= take
    return p / p.sum()


def informed_adversary(column: np.ndarray, target_index: int) -> tuple[np.ndarray, np.ndarray]:
    """The informed adversary on one data column: it knows every record but the one at
    ``target_index`` (a Python index, negative from the end), which may take every integer
    min..max of the column (Table II's universe U).

    Returns
    -------
    known, universe : ndarray
        The column without the target record, and the candidate values ``min, min + 1, ..., max``.
    """
    col = check_array("column", column)
    index = check_int("target_index", target_index, low=-col.size, high=col.size - 1)
    return np.delete(col, index), np.arange(col.min(), col.max() + 1)


def two_point_breach_rate(rho1: float, epsilon: float) -> float:
    """Exact probability that a response reaches ``f(D_max)`` under the two-point prior:
    ``rho1 / 2 + (1 - rho1) / (2 gamma)`` with ``gamma = e^epsilon``. At LPB's epsilon every
    such response puts the posterior of the largest value exactly at rho2."""
    r1 = check_real("rho1", rho1, low=0, high=1, low_open=True, high_open=True)
    eps = check_real("epsilon", epsilon, low=0, low_open=True)
    return r1 / 2 + (1 - r1) / (2 * np.exp(eps))


def breach_simulation(
    universe: np.ndarray,
    known: np.ndarray,
    rho1: float,
    rho2: float,
    prior: str,
    epsilon: float,
    n_responses: int,
    chunk: int,
    seed: object,
) -> dict[str, float | int | bool]:
    """Simulate ``n_responses`` mean queries against the adversary, in chunks of ``chunk``.

    Returns the largest prior among breachable values (those at most rho1), the exact
    supremum of their posterior, the largest posterior seen, the breach rate and whether
    each found a breach (posterior >= rho2, within 1e-9 for the sampled one).
    """
    u = check_array("universe", universe)
    if np.unique(u).size != u.size or u.size < 2:
        raise PrivlabError("universe must hold at least two distinct values")
    rho1, rho2 = check_rhos(rho1, rho2)
    epsilon = check_real("epsilon", epsilon, low=0, low_open=True)
    n_responses = check_int("n_responses", n_responses, low=1, high=10**12)
    chunk = check_size("chunk", chunk, low=1, high=MAX_DRAWS, why="responses held in memory")
    check_cells("chunk x universe (posteriors held at once)", min(chunk, n_responses), u.size, MAX_CELLS)
    rng = rng_from(seed)
    p = capped_prior(prior, u.size, rho1, rng)
    answers = query_answers(u, known, "mean")
    lam = (answers.max() - answers.min()) / epsilon
    eligible = p <= rho1 + 1e-12  # only values whose prior is at most rho1 can be breached
    exact = float(max_posterior(u, known, epsilon, prior=p)[eligible].max())
    largest = largest_posterior_given(u, known, epsilon, eligible, prior=p)  # the adversary's, once for all chunks
    seen, breaches, done = 0.0, 0, 0
    while done < n_responses:
        k = min(chunk, n_responses - done)
        idx = rng.choice(u.size, size=k, p=p)
        r = answers[idx] + rng.laplace(0.0, lam, size=k)
        post = largest(r)
        seen = max(seen, float(post.max()))
        breaches += int((post >= rho2 - 1e-9).sum())
        done += k
    return {
        "lambda": lam,
        "max_prior": float(p[eligible].max()),
        "exact_max_posterior": exact,
        "mc_max_posterior": seen,
        "mc_breach_rate": breaches / n_responses,
        "responses": n_responses,
        "exact_breach": exact >= rho2 - 1e-12,
        "mc_breach": breaches > 0,
    }


def _labelled_row(task: tuple) -> dict[str, Any]:
    label, args = task
    return {**label, **breach_simulation(*args)}


def breach_grid(
    columns: Mapping[str, np.ndarray],
    panels: Mapping[str, Sequence[float]],
    rho2: float,
    priors: Sequence[str],
    eps_factors: Sequence[float],
    target_index: int,
    n_responses: int,
    chunk: int,
    calibration: Calibration,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
    log: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """`breach_simulation` at every (attribute, rho1, prior, eps factor): each rho1 of the
    attribute's panel of Figures 2-4, eps = factor x the calibration's eps.

    A capped prior other than ``two_point`` needs rho1 >= 1/|U| (no prior keeps every value at
    most rho1 otherwise): those settings are left out, each named through ``log``.

    Parameters
    ----------
    columns : mapping
        Attribute -> its column (`attribute_columns`); the informed adversary of each
        (`informed_adversary`) misses the record at ``target_index``.
    panels : mapping
        Attribute -> the rho1 of each panel.
    rho2 : float
        The posterior threshold.
    priors : sequence of str
        Capped priors (`PRIORS`).
    eps_factors : sequence of float
        Multiples (> 0) of the calibrated eps; above 1 breaches must appear.
    target_index : int
        The record the adversary does not know.
    n_responses, chunk : int
        Responses per setting, and how many are held at once.
    calibration : Calibration
        The rule under test.
    seed_sequence : callable
        ``seed_sequence(attribute, rho1, prior, factor)`` -> the setting's SeedSequence.
    map_fn : callable, optional
        ``map(fn, items) -> list`` in order; serial otherwise.
    log : callable, optional
        Receives one line per setting left out.

    Returns
    -------
    DataFrame
        One row per setting: ``attribute``, ``rho1``, ``rho2``, ``prior``, ``eps_factor``,
        ``epsilon`` and `breach_simulation`'s columns.
    """
    if not isinstance(columns, Mapping) or not columns:
        raise PrivlabError("columns must be a non-empty mapping of attribute names to columns")
    r2 = check_real("rho2", rho2, low=0, high=1, low_open=True, high_open=True)
    kinds = [check_choice("prior", p, PRIORS) for p in priors]
    factors = [float(f) for f in check_array("eps_factors", eps_factors)]
    if min(factors) <= 0:
        raise PrivlabError("eps_factors must all be > 0")
    if not isinstance(calibration, Calibration):
        raise PrivlabError(f"calibration must be a privlab.lpb Calibration, got {type(calibration).__name__}")
    check_callable("seed_sequence", seed_sequence)
    if log is not None:
        check_callable("log", log)
    tasks = []
    for a, panel in panel_rho1s(panels, list(columns)).items():
        known, values = informed_adversary(columns[a], target_index)
        for rho1, prior, factor in ((r, p, f) for r in panel for p in kinds for f in factors):
            if prior != "two_point" and values.size * rho1 < 1 - 1e-12:  # no prior keeps every value <= rho1
                if log is not None:
                    log(f"breach_check: no {prior} prior for {a} at rho1={rho1:g} < 1/|U|")
                continue
            eps = factor * calibration.epsilon(values.size, rho1, r2)
            label = {"attribute": a, "rho1": rho1, "rho2": r2, "prior": prior, "eps_factor": factor, "epsilon": eps}
            seed = seed_sequence(a, rho1, prior, factor)
            tasks.append((label, (values, known, rho1, r2, prior, eps, n_responses, chunk, seed)))
    return pd.DataFrame(map_in_order(_labelled_row, tasks, map_fn))
