"""Intruder models: what a released artifact plus the intruder's SK tells about the target's
confidential value, as probabilities ``p_d`` over the confidential domain ``D``.

All are batched over the value combinations of one SK attribute set: ``groups[r]`` is the
combination record ``r`` matches, i.e. the ``M_o`` it belongs to.

- :func:`sampling_probs` (Appendix, Sampling):
  ``p_d = f_d/|M_o| + (|M_o| - |M_s|)/(|M_o| |D|)``: a sampled matching record reveals its
  value, an unsampled one leaves every domain value equally likely.
  :func:`sampling_probs_as_printed` is the seed's formula verbatim, ``... * |D|`` at the
  end, kept to show that its values are not probabilities.
- :func:`interval_probs` (Algorithms 2 and 3): each record of ``M_o`` spreads ``1/|M_o|``
  uniformly over the domain values inside its bounds ``[L, U]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_int, check_real
from ._checks import check_memory

__all__ = ["sampling_probs", "sampling_probs_as_printed", "printed_formula_gap", "interval_probs"]


def _sample_counts(
    groups: Any, codes: Any, in_sample: Any, n_groups: int, domain_size: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """``|M_o|`` per combination, the counts ``f_d`` of each value among its sampled records, and ``|D|``."""
    groups = check_array("groups", groups, dtype=np.int64)
    codes = check_array("codes", codes, dtype=np.int64)
    in_sample = np.asarray(in_sample, dtype=bool)
    G = check_int("n_groups", n_groups, low=1)
    m = check_int("domain_size", domain_size, low=1)
    if groups.size != codes.size or groups.size != in_sample.size:
        raise PrivlabError("groups, codes and in_sample must have the same length")
    check_memory(f"p over {G:,} combinations x {m:,} values", 16.0 * G * m, "lower n_groups or domain_size")
    if groups.size and (groups.min() < 0 or groups.max() >= G or codes.min() < 0 or codes.max() >= m):
        raise PrivlabError(f"groups must be in [0, {G - 1}] and codes in [0, {m - 1}]")
    m_o = np.bincount(groups, minlength=G).astype(float)
    f = np.bincount(groups[in_sample] * m + codes[in_sample], minlength=G * m).reshape(G, m).astype(float)
    return m_o, f, m


def sampling_probs(groups: Any, codes: Any, in_sample: Any, n_groups: int, domain_size: int) -> np.ndarray:
    """Intruder's ``p`` over the domain for every SK combination after sampling.

    Parameters
    ----------
    groups : array of int, shape (n,)
        SK combination of each original record.
    codes : array of int, shape (n,)
        Domain index of each record's confidential value.
    in_sample : array of bool, shape (n,)
        Whether the record was released in the sample.
    n_groups, domain_size : int
        Number of combinations and ``|D|``.

    Returns
    -------
    ndarray, shape (n_groups, domain_size)
        ``p_d = f_d/|M_o| + (|M_o| - |M_s|)/(|M_o| |D|)``; every row sums to 1.
    """
    m_o, f, m = _sample_counts(groups, codes, in_sample, n_groups, domain_size)
    m_s = f.sum(axis=1)
    return f / m_o[:, None] + ((m_o - m_s) / (m_o * m))[:, None]


def sampling_probs_as_printed(groups: Any, codes: Any, in_sample: Any, n_groups: int, domain_size: int) -> np.ndarray:
    """The seed's sampling formula verbatim: ``p_d = (f_d/|M_s|)(|M_s|/|M_o|) + ((|M_o| - |M_s|)/|M_o|) |D|``.

    Same arguments as :func:`sampling_probs`. A combination with no sampled record takes
    ``f_d/|M_s| = 0``. Not used by any experiment's numbers: it exists so that a claim can
    show what the printed formula gives.
    """
    m_o, f, m = _sample_counts(groups, codes, in_sample, n_groups, domain_size)
    m_s = f.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(m_s[:, None] > 0, f / np.where(m_s > 0, m_s, 1.0)[:, None], 0.0)
    return share * (m_s / m_o)[:, None] + ((m_o - m_s) / m_o * m)[:, None]


def printed_formula_gap(n_records: int, domain_size: int, percent: float) -> tuple[float, float]:
    """The printed sampling formula against the exact probabilities, without SK (``M_o`` is every
    one of ``n_records`` records, ``M_s`` a sample of ``round(percent% of n)``; the values of the
    sampled records do not matter).

    Returns
    -------
    (float, float)
        The largest ``|printed p_d - exact p_d|`` over the domain, and the printed ``p_d``'s total
        (1 for probabilities).
    """
    n = check_int("n_records", n_records, low=1, high=10**7)
    m = check_int("domain_size", domain_size, low=1, high=10**6)
    f = check_real("percent", percent, low=0, high=100, low_open=True) / 100.0
    s = max(1, int(np.floor(f * n + 0.5)))
    args = (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.arange(n) < s, 1, m)
    printed, exact = sampling_probs_as_printed(*args), sampling_probs(*args)
    return float(np.abs(printed - exact).max()), float(printed.sum())


def interval_probs(groups: Any, lo: Any, hi: Any, n_groups: int, domain_size: int) -> np.ndarray:
    """Algorithms 2 and 3: ``p`` over the domain for every SK combination.

    Each record of ``M_o`` adds ``1/|M_o|`` spread uniformly over the domain indices
    ``lo..hi`` of its bounds: ``p_d += 1/(hi - lo + 1) * 1/|M_o|``.

    Returns
    -------
    ndarray, shape (n_groups, domain_size)
    """
    groups = check_array("groups", groups, dtype=np.int64)
    lo = check_array("lo", lo, dtype=np.int64)
    hi = check_array("hi", hi, dtype=np.int64)
    G = check_int("n_groups", n_groups, low=1)
    m = check_int("domain_size", domain_size, low=1)
    if groups.size != lo.size or groups.size != hi.size:
        raise PrivlabError(f"groups, lo and hi must have the same length, got {groups.size}, {lo.size}, {hi.size}")
    if np.any(lo < 0) or np.any(hi >= m) or np.any(hi < lo):
        raise PrivlabError(f"bounds must satisfy 0 <= lo <= hi < {m}")
    if groups.size and (groups.min() < 0 or groups.max() >= G):
        raise PrivlabError(f"groups must be in [0, {G - 1}]")
    check_memory(
        f"shares of {groups.size:,} records x {m:,} values", 9.0 * groups.size * m + 8.0 * G * m, "use fewer records"
    )
    m_o = np.bincount(groups, minlength=G).astype(float)
    width = hi - lo + 1
    share = 1.0 / (width * m_o[groups])
    # one entry per (record, domain value inside its bounds), records in order, at the cell
    # groups * m + value: bincount adds each cell's shares in record order, one after the other
    # (exact zeros elsewhere). Entry e of record r lies at cell base_r + e, base_r its first cell
    # less the entries before it.
    cell = np.repeat(groups * m + lo - (np.cumsum(width) - width), width)
    cell += np.arange(cell.size)
    return np.bincount(cell, weights=np.repeat(share, width), minlength=G * m).reshape(G, m)
