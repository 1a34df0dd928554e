"""Isolation success rates: the table columns of one adversary's outcomes and the fitted decay in d."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._lazy import lazy
from .._validation import PrivlabError, check_array, check_int, check_real

optimize, stats = lazy("scipy.optimize"), lazy("scipy.stats")

__all__ = [
    "BEST",
    "Z95",
    "wilson_upper",
    "exact_upper",
    "rate_columns",
    "natural_rows",
    "DecayFit",
    "fit_decay",
    "decay_loglik",
    "best_last",
]

BEST = "best_of_above"  # the adversary row that takes, per target, the best of a sanitizer's adversaries
Z95 = 1.96  # the 95% normal quantile as the result tables have always used it (rounded)


def wilson_upper(k: int, m: int, z: float = Z95) -> float:
    """Upper end of the Wilson score interval for ``k`` successes in ``m`` trials.

    Unclipped (it can exceed 1 by a rounding error at ``k = m``); ``z = 1.96`` as the
    reference tables print it, where `privlab.stats.wilson_interval` takes the exact
    quantile and clips.
    """
    k, m = check_int("k", k, low=0), check_int("m", m, low=1)
    if k > m:
        raise PrivlabError(f"k must be at most m = {m}, got {k}")
    z = check_real("z", z, low=0, low_open=True)
    p = k / m
    centre = p + z * z / (2 * m)
    half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
    return float((centre + half) / (1 + z * z / m))


def exact_upper(k: int, m: int, level: float = 0.95) -> float:
    """One-sided exact (Clopper-Pearson) upper bound on a binomial rate: the largest p under
    which ``k`` or fewer successes in ``m`` trials still have probability ``1 - level``.

    At ``k = 0`` it is ``1 - (1 - level)^(1/m)``, about ``3 / m`` at level 0.95: the rate a
    table of zeros can still hide.
    """
    k, m = check_int("k", k, low=0), check_int("m", m, low=1)
    if k > m:
        raise PrivlabError(f"k must be at most m = {m}, got {k}")
    level = check_real("level", level, low=0, high=1, low_open=True, high_open=True)
    if k == m:
        return 1.0
    return float(stats.beta.ppf(level, k + 1, m - k))


def rate_columns(mask: Any, any_mask: Any = None, *, trials_any: bool = False) -> dict[str, Any]:
    """The table columns of one adversary: trials, successes, rate, its binomial s.e.
    ``sqrt(p (1 - p) / m)``, the Wilson upper bound (meaningful at 0 successes) and, when
    ``any_mask`` is given, the same for isolating *anyone* (NaN otherwise).

    Parameters
    ----------
    mask : bool array (m,)
        Whether each adversary output isolated its target.
    any_mask : bool array (m_any,) or None
        Whether each of the first ``m_any`` outputs isolated some point of the database.
    trials_any : bool
        Add the column ``trials_any`` (``m_any``; NaN without ``any_mask``), for tables
        where the anyone question was asked of fewer outputs than the targeted one.
    """
    mask = check_array("mask", mask, dtype=bool)
    m = mask.size
    k = int(mask.sum())
    p = k / m
    row: dict[str, Any] = {
        "trials": m,
        "successes": k,
        "rate": p,
        "rate_se": float(np.sqrt(p * (1 - p) / m)),
        "wilson_upper": wilson_upper(k, m),
    }
    if trials_any:
        row["trials_any"] = np.nan if any_mask is None else int(np.size(any_mask))
    if any_mask is not None:
        any_mask = check_array("any_mask", any_mask, dtype=bool)
        ma = any_mask.size
        ka = int(any_mask.sum())
        pa = ka / ma
        row.update(successes_any=ka, rate_any=pa, rate_any_se=float(np.sqrt(pa * (1 - pa) / ma)))
    else:
        row.update(successes_any=np.nan, rate_any=np.nan, rate_any_se=np.nan)
    return row


def natural_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of each sanitizer's natural adversaries: those `attack` also asked whether they
    isolate anyone (``rate_any`` present); the secondary adversaries and the best-of rows have none."""
    return df[df.rate_any.notna() & (df.adversary != BEST)]


@dataclass(frozen=True)
class DecayFit:
    """Maximum-likelihood fit of ``rate(d) = a 2^(-b d)`` to binomial counts (see `fit_decay`).

    Attributes
    ----------
    b, b_low, b_high : float
        Decay in bits per dimension and its profile-likelihood interval (``inf`` / ``-inf``
        where the likelihood never falls far enough: e.g. successes at one d only bound b
        from below). NaN when there is no success at all (every b fits).
    a : float
        The rate's scale at the MLE.
    level : float
        The interval's coverage.
    dims, zero_dims : int
        Dimensions used (every d with trials), and how many of them had no success.
    successes : int
    log_lik : float
        The maximised binomial log-likelihood.
    deviance : float
        Twice the log-likelihood lost against a free rate at every d (``dims - 2`` degrees
        of freedom): large when the rates do not follow one exponential.
    dispersion : float
        ``max(1, deviance / (dims - 2))``: how much more the rates scatter around the fitted
        exponential than binomial noise allows (1 when they follow it).
    b_low_quasi, b_high_quasi : float
        The interval widened by the dispersion (quasi-likelihood: the b whose best a loses
        less than ``dispersion * chi2_1(level) / 2``); equal to the plain interval when the
        dispersion is 1. When the rates bend (dispersion >> 1) the plain interval only says
        how well the *average* slope is pinned by many trials; this one also allows for the
        bend.
    """

    b: float
    b_low: float
    b_high: float
    a: float
    level: float
    dims: int
    zero_dims: int
    successes: int
    log_lik: float
    deviance: float = float("nan")
    dispersion: float = float("nan")
    b_low_quasi: float = float("nan")
    b_high_quasi: float = float("nan")

    def describe(self) -> str:
        """``b = 0.71 (95% CI 0.65..0.78)``, and the widened interval when the rates scatter."""
        text = f"b = {self.b:.3g} ({100 * self.level:g}% CI {self.b_low:.3g}..{self.b_high:.3g}"
        if self.dispersion > 1:
            text += f"; {self.b_low_quasi:.3g}..{self.b_high_quasi:.3g} widened by the dispersion {self.dispersion:.3g}"
        return text + ")"


def _xlogy(k: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.where(k > 0, k * np.log(np.where(k > 0, p, 1.0)), 0.0)


def decay_loglik(a: float, b: float, d: Any, successes: Any, trials: Any) -> float:
    """Binomial log-likelihood (without the binomial coefficients) of ``rate(d) = a 2^(-b d)``;
    ``-inf`` where a rate exceeds 1 (or reaches 1 with a failure, or 0 with a success)."""
    d, k, m = (np.asarray(v, dtype=float) for v in (d, successes, trials))
    if not a > 0:
        return 0.0 if np.all(k == 0) else -np.inf
    log_p = np.log(a) - b * d * np.log(2.0)
    with np.errstate(over="ignore", under="ignore"):
        p = np.exp(np.minimum(log_p, 0.0))
    if np.any(log_p > 1e-15) or np.any((p >= 1) & (k < m)) or np.any((p <= 0) & (k > 0)):
        return -np.inf
    return float(np.sum(np.where(k > 0, k * np.minimum(log_p, 0.0), 0.0) + _xlogy(m - k, 1 - p)))


def _profile(b: float, d: np.ndarray, k: np.ndarray, m: np.ndarray) -> tuple[float, float]:
    """(max over a of the log-likelihood at this b, the maximising a): the score in log a,
    ``K - sum (m - k) p / (1 - p)``, falls from K to -inf on a in (0, min 2^(b d)); its root."""
    log_w = -b * d * np.log(2.0)
    log_a_max = -log_w.max()  # a 2^(-b d) <= 1 at every d
    fail = m - k
    total = k.sum()

    def score(log_a: float) -> float:
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            p = np.exp(np.minimum(log_a + log_w, 0.0))
            return float(total - np.sum(np.where(fail > 0, fail * p / (1 - p), 0.0)))

    hi = log_a_max + np.log1p(-1e-15)
    if score(hi) >= 0:  # the failures cannot pull a off its largest value (all trials succeed where p peaks)
        log_a = log_a_max
    else:
        lo = hi - 50.0
        while score(lo) < 0:
            lo -= 50.0
        log_a = optimize.brentq(score, lo, hi, xtol=1e-13, rtol=4 * np.finfo(float).eps, maxiter=500)
    a = float(np.exp(log_a))
    return decay_loglik(a, b, d, k, m), a


def fit_decay(d: Any, successes: Any, trials: Any, *, level: float = 0.95, b_max: float = 60.0) -> DecayFit:
    """Fit ``rate(d) = a 2^(-b d)`` to successes ``k_d`` out of ``m_d`` trials by maximum likelihood.

    A binomial model with log link: every dimension counts, those without a success too (a
    zero out of m trials says the rate is small, which pulls b up), unlike a least-squares
    line through ``log2(rate)`` that must drop them. The interval for b is the profile
    likelihood's: the b whose best a loses less than ``chi2_1(level) / 2`` of log-likelihood.

    Parameters
    ----------
    d : array of the dimensions
    successes, trials : int arrays of the same length (``0 <= k <= m``; rows with m = 0 add nothing)
    level : float in (0, 1)
    b_max : float > 0
        b is searched in ``[-b_max, b_max]``; an MLE or an interval end on that edge is
        reported as +-inf.

    Returns
    -------
    DecayFit
    """
    d = check_array("d", d)
    k = check_array("successes", successes)
    m = check_array("trials", trials)
    if not (d.size == k.size == m.size):
        raise PrivlabError(f"d, successes and trials must have the same length, got {d.size}, {k.size}, {m.size}")
    if np.any(k < 0) or np.any(k > m) or np.any(k != np.round(k)) or np.any(m != np.round(m)):
        raise PrivlabError("successes and trials must be whole numbers with 0 <= successes <= trials")
    level = check_real("level", level, low=0, high=1, low_open=True, high_open=True)
    b_max = check_real("b_max", b_max, low=0, low_open=True)
    used = m > 0
    d, k, m = d[used], k[used], m[used]
    dims, zero_dims, total = int(d.size), int(np.sum(k == 0)), int(k.sum())
    nan = float("nan")
    if total == 0 or np.unique(d).size < 2:  # no success: every b fits; one d: no slope
        return DecayFit(nan, nan, nan, nan, level, dims, zero_dims, total, nan, nan, nan, nan, nan)
    res = optimize.minimize_scalar(
        lambda b: -_profile(b, d, k, m)[0], bounds=(-b_max, b_max), method="bounded", options={"xatol": 1e-10}
    )
    b_hat = float(res.x)
    top, a_hat = _profile(b_hat, d, k, m)
    saturated = float(np.sum(_xlogy(k, k / m) + _xlogy(m - k, 1 - k / m)))
    deviance = max(0.0, 2 * (saturated - top))
    dof = np.unique(d).size - 2
    dispersion = max(1.0, deviance / dof) if dof > 0 else 1.0

    def end(edge: float, drop: float) -> float:
        def excess(b: float) -> float:
            return top - _profile(b, d, k, m)[0] - drop

        if excess(edge) <= 0:
            return float(np.copysign(np.inf, edge))
        return float(optimize.brentq(excess, min(b_hat, edge), max(b_hat, edge), xtol=1e-10))

    drop = stats.chi2.ppf(level, 1) / 2
    b_low, b_high = end(-b_max, drop), end(b_max, drop)
    b_low_q, b_high_q = (
        (b_low, b_high) if dispersion == 1 else (end(-b_max, dispersion * drop), end(b_max, dispersion * drop))
    )
    # the likelihood still rising at an edge (e.g. successes at the smallest d only): unbounded
    for edge in (-b_max, b_max):
        if _profile(edge, d, k, m)[0] >= top - 1e-9:
            b_hat, a_hat = float(np.copysign(np.inf, edge)), nan
    return DecayFit(
        b_hat, b_low, b_high, a_hat, level, dims, zero_dims, total, top, deviance, dispersion, b_low_q, b_high_q
    )


def best_last(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of several `attack` runs with every best-of row moved after the others (order kept)."""
    return [r for r in rows if r["adversary"] != BEST] + [r for r in rows if r["adversary"] == BEST]
