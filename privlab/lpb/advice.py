"""Choosing epsilon for a statistic you publish: LPB's rule applied to your own column.

The same functions the paper reproduction uses (`laplace_scale`, `max_posterior`, ...): for
a query over one numeric column, the sensitivity over the column's universe, LPB's epsilon
and Laplace scale against (rho1, rho2) breaches, differential identifiability's alternative,
the exact worst-case posterior an informed adversary reaches, and the expected noise
relative to the statistic.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_choice, check_real
from ._checks import MAX_DRAWS, MAX_WORK, check_cells
from .adversary import max_posterior, query_answers
from .breach import capped_prior
from .calibration import check_rhos, lpb_epsilon

__all__ = ["ADVICE_QUERIES", "universe_of", "advise", "lambda_curve"]

ADVICE_QUERIES = ("mean", "sum", "count")


def universe_of(values: np.ndarray) -> np.ndarray:
    """The values the missing record may take: every integer min..max for an integer column
    (Table II's convention), else the distinct observed values."""
    v = check_array("column", values)
    if np.all(np.equal(np.mod(v, 1), 0)) and v.max() - v.min() <= 10**6:
        return np.arange(v.min(), v.max() + 1)
    return np.unique(v)


def advise(
    values: np.ndarray, *, query: str, rho1: float, rho2: float, threshold: float | None = None
) -> dict[str, Any]:
    """Everything needed to release ``query`` over ``values`` with LPB's epsilon.

    ``count`` is the number of records with a value at least ``threshold`` (default: the
    column's median): the sum of an indicator column, whose universe is {0, 1}.

    The informed adversary knows every record but one; the worst-case prior puts rho1 on the
    largest candidate and the rest on the smallest (the prior that makes LPB's bound tight).
    ``uniform_worst_posterior`` is NaN where a uniform prior exceeds rho1 (1/|U| > rho1) or
    the universe is too large for the exact supremum (|U|^2 above 10**10 candidate pairs).
    """
    check_choice("query", query, ADVICE_QUERIES)
    r1, r2 = check_rhos(rho1, rho2)
    v = check_array("column", values)
    if np.unique(v).size < 2:
        raise PrivlabError("the column must hold at least two distinct values (its sensitivity is 0 otherwise)")
    if query == "count":
        t = float(np.median(v)) if threshold is None else check_real("threshold", threshold)
        v = (v >= t).astype(float)
        if np.unique(v).size < 2:
            raise PrivlabError(f"threshold {t:g} leaves every record on one side; choose one inside the column's range")
        universe = np.array([0.0, 1.0])
        kind = "sum"
    else:
        t, universe, kind = None, universe_of(v), query
    known = v[:-1]  # the adversary knows every record but one
    answers = query_answers(universe, known, kind)
    delta = float(answers.max() - answers.min())
    eps = lpb_epsilon(r1, r2)
    lam = delta / eps
    with np.errstate(over="ignore"):
        statistic = float(np.mean(v) if query == "mean" else np.sum(v))
        if query == "mean" and not math.isfinite(statistic):  # the sum overflowed, not the mean
            statistic = float((v / v.size).sum())
    if not (math.isfinite(lam) and math.isfinite(statistic)):
        raise PrivlabError(
            f"the column's {query} or its Laplace scale exceeds the largest float ({np.finfo(float).max:.3g}); "
            "rescale the column"
        )
    m = universe.size
    di_eps = lpb_epsilon(1.0 / m, r2) if 1.0 / m < r2 else math.nan  # differential identifiability
    worst = float(max_posterior(universe, known, eps, kind, prior=capped_prior("two_point", m, r1))[-1])
    # a uniform prior is capped at rho1 only when 1/|U| <= rho1; otherwise LPB promises nothing for it
    # (nor is it computed when |U|^2 candidate pairs are more than max_posterior visits)
    small = m * m <= MAX_WORK
    uniform = float(max_posterior(universe, known, eps, kind).max()) if 1.0 / m <= r1 and small else math.nan
    return {
        "query": query,
        "threshold": t,
        "n": int(v.size),
        "universe_size": int(m),
        "universe_min": float(universe.min()),
        "universe_max": float(universe.max()),
        "sensitivity": delta,
        "epsilon": eps,
        "lambda": lam,
        "di_epsilon": di_eps,
        "di_lambda": delta / di_eps if di_eps == di_eps and di_eps > 0 else math.nan,
        "worst_posterior": worst,
        "uniform_worst_posterior": uniform,
        "statistic": statistic,
        "noise_mean_abs": lam,  # E|Lap(lambda)| = lambda
        "noise_sd": math.sqrt(2.0) * lam,
        "relative_noise": lam / abs(statistic) if statistic else math.inf,
    }


def lambda_curve(delta: float, rho2: float, rho1s: np.ndarray) -> np.ndarray:
    """LPB's lambda at each rho1 (below rho2) for a query of sensitivity ``delta``."""
    d = check_real("delta", delta, low=0, low_open=True)
    grid = check_array("rho1s", rho1s)
    check_cells("lambda_curve rho1s", grid.size, 1, MAX_DRAWS)
    return np.array([d / lpb_epsilon(float(r), rho2) for r in grid])
