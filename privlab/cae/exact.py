"""Exact counterparts of the Monte Carlo: the CAE of a record its SK identifies uniquely.

A record alone in its SK combination leaves the intruder that record's own distribution,
whose law follows from the technique alone:

- sampling: the record is drawn with probability ``s/n`` (``s = round(f n)``) and then
  disclosed (H0 = A = 0), else the intruder is left with the uniform distribution;
- noise: the released code is ``clip(c + Binomial(M, 1/2) - M/2)`` and the intruder's
  interval follows from it, so E[H0] and E[A] are sums over the ``M + 1`` outcomes.

Query restriction depends on the whole shuffle: no closed form. The variance of the mean
over the singletons of one repetition is exact too: hypergeometric sample inclusion,
independent noise per record.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_int, check_real
from ._checks import check_codes, check_memory
from .measure import cae_batch
from .noise import noise_max

__all__ = ["unique_sampling", "unique_sampling_var", "unique_noise", "unique_noise_var", "chi2_agreement"]

# E[H0], E[A] per confidential code, and what the variance of their mean needs
Moments = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _check_moments(moments: Any) -> int:
    """Four arrays of one length (|D|): E[H0], E[A] and the second moments (or the uniform's H0, A)."""
    if not isinstance(moments, (tuple, list)) or len(moments) != 4:
        raise PrivlabError("moments must be the four arrays unique_sampling or unique_noise returns")
    sizes = {np.asarray(v).shape for v in moments}
    if len(sizes) != 1 or len(next(iter(sizes))) != 1:
        raise PrivlabError(f"moments must be four 1-dimensional arrays of one length, got shapes {sorted(sizes)}")
    return int(next(iter(sizes))[0])


def _sample_size(percent: float, n: int) -> int:
    return max(1, int(np.floor(percent / 100.0 * n + 0.5)))


def unique_sampling(percent: float, n: int, grid: Any) -> Moments:
    """E[H0], E[A] of a uniquely identified record after sampling ``percent``% of ``n`` records,
    per confidential code, and the H0 and A of the uniform distribution (per code, constant).

    Returns
    -------
    (E[H0], E[A], H0_uniform, A_uniform), each of shape (|D|,)
    """
    p = check_real("percent", percent, low=0, high=100, low_open=True)
    n = check_int("n", n, low=1)
    grid = check_array("grid", grid, dtype=float)
    m = grid.size
    s = _sample_size(p, n)
    h0u, au = cae_batch(grid, np.full((1, m), 1.0 / m))
    miss = 1.0 - s / n
    return np.full(m, miss * h0u[0]), np.full(m, miss * au[0]), np.full(m, h0u[0]), np.full(m, au[0])


def unique_sampling_var(percent: float, n: int, recs: Any, moments: Moments) -> tuple[float, float]:
    """Exact variance of the mean (H0, A) over the singleton combinations of one sample.

    ``recs`` holds each singleton's record; a record alone under several attribute sets
    appears several times (weight ``w_r``) and its outcomes are then the same draw. With
    ``I_r`` the inclusion indicators of a sample of size ``s``, the mean is
    ``X/nu * sum_r w_r (1 - I_r)`` (X the uniform distribution's H0 or A).
    """
    recs = check_array("recs", recs, dtype=np.int64)
    n = check_int("n", n, low=1)
    _check_moments(moments)
    nu = recs.size
    _, w = np.unique(recs, return_counts=True)
    w = w.astype(float)
    s = _sample_size(check_real("percent", percent, low=0, high=100, low_open=True), n)
    pi = s / n
    var_sum = pi * (1 - pi) * (np.sum(w**2) - (np.sum(w) ** 2 - np.sum(w**2)) / max(n - 1, 1))
    h0, area = (v[0] ** 2 * var_sum / nu**2 for v in moments[2:])
    return float(h0), float(area)


def unique_noise(level: float, grid: Any) -> Moments:
    """E[H0], E[A], E[H0^2], E[A^2] of a uniquely identified record under ``level``% noise, per
    confidential code: a sum over the ``M + 1`` binomial outcomes of the record's interval.

    Returns
    -------
    four arrays of shape (|D|,)
    """
    # SciPy: slow to import, loaded only for this computation
    from scipy.stats import binom

    grid = check_array("grid", grid, dtype=float)
    m = grid.size
    M = noise_max(level, m)
    check_memory(f"the {M + 1} noise outcomes of {m} codes", 9.0 * m * m * (M + 1), "coarsen the domain")
    h = M // 2
    B = np.arange(M + 1)
    w = binom.pmf(B, M, 0.5)
    c = np.arange(m)[:, None]
    released = np.clip(c + B[None, :] - h, 0, m - 1)
    lo, hi = np.clip(released - h, 0, m - 1), np.clip(released + h, 0, m - 1)
    d = np.arange(m)
    rows = ((d[None, None, :] >= lo[..., None]) & (d[None, None, :] <= hi[..., None])).astype(float)
    rows /= rows.sum(axis=2, keepdims=True)
    h0, area = cae_batch(grid, rows.reshape(-1, m))
    h0, area = h0.reshape(m, M + 1), area.reshape(m, M + 1)
    return h0 @ w, area @ w, h0**2 @ w, area**2 @ w


def unique_noise_var(recs: Any, codes: Any, moments: Moments) -> tuple[float, float]:
    """Exact variance of the mean (H0, A) over the singleton combinations of one perturbed file
    (independent noise per record; a record repeated under several attribute sets counts with
    its weight). ``codes[r]`` is record ``r``'s confidential code."""
    recs = check_array("recs", recs, dtype=np.int64)
    codes = check_array("codes", codes, dtype=np.int64)
    m = _check_moments(moments)
    if recs.min() < 0 or recs.max() >= codes.size:
        raise PrivlabError(f"recs must be record indices in [0, {codes.size - 1}]")
    check_codes("codes", codes, m)
    nu = recs.size
    ids, w = np.unique(recs, return_counts=True)
    w = w.astype(float)
    c = codes[ids]
    h0, area = (np.sum(w**2 * (moments[2 + i][c] - moments[i][c] ** 2)) / nu**2 for i in (0, 1))
    return float(h0), float(area)


def chi2_agreement(estimate: Any, exact: Any, se: Any, *, exact_tol: float = 1e-9) -> dict[str, float]:
    """Monte Carlo means against their exact expectations, pooled: ``chi2 = sum z^2`` over the
    entries with a positive standard error (``z = (estimate - exact) / se``, ``chi2`` with as many
    degrees of freedom under agreement), the others required to match within ``exact_tol``.

    Returns
    -------
    dict with ``n`` (entries with se > 0), ``chi2``, ``p`` (1 when n = 0), ``max_z``,
    ``n_exact`` (entries with se = 0), ``exact_max_diff`` (their largest ``|estimate - exact|``) and
    ``exact_ok`` (1.0 when that is below ``exact_tol``, else 0.0).
    """
    # SciPy: slow to import, loaded only for this computation
    from scipy import stats

    try:
        est, ex, s = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (estimate, exact, se))
    except (TypeError, ValueError):
        raise PrivlabError("estimate, exact and se must be arrays of numbers") from None
    if not est.shape == ex.shape == s.shape:
        raise PrivlabError(f"estimate, exact and se must have the same shape, got {est.shape}, {ex.shape}, {s.shape}")
    if np.any(s < 0):
        raise PrivlabError("se must be non-negative")
    check_real("exact_tol", exact_tol, low=0)
    noisy = s > 1e-12
    z = (est - ex)[noisy] / s[noisy]
    chi2 = float(np.sum(z**2))
    return {
        "n": int(z.size),
        "chi2": chi2,
        "p": float(stats.chi2.sf(chi2, z.size)) if z.size else 1.0,
        "max_z": float(np.max(np.abs(z))) if z.size else 0.0,
        "n_exact": int((~noisy).sum()),
        "exact_max_diff": float(np.max(np.abs(est - ex)[~noisy])) if (~noisy).any() else 0.0,
        "exact_ok": float(np.all(np.abs(est - ex)[~noisy] < exact_tol)),
    }
