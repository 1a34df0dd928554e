"""Checkers of the released artifacts, written apart from the techniques that release them.

Each takes the original data and what was released, re-derives from the definitions in
the seed what the artifact must satisfy, and returns how badly it fails (0 = the artifact
is what it claims to be). They share no code with `sampling`, `noise` or the structural
bounds of `query_restriction`; the query-restriction checker solves the paper's linear
programs through the generic HiGHS path `lp_bounds`, independent of the structural method.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_int, check_real
from .query_restriction import lp_bounds

__all__ = ["check_sample", "check_noise", "check_bounds"]


def check_sample(original: Any, rows: Any, released: Any, percent: float) -> float:
    """A sample: ``round(percent% of n)`` distinct original records, their values untouched.

    Parameters
    ----------
    original : array, shape (n, c)
        The original records (any values).
    rows : array of int
        Which original record each released row claims to be.
    released : array, shape (len(rows), c)
        The released rows.
    percent : float
        The sampling fraction in percent.

    Returns
    -------
    float
        ``|size - round(f n)|`` + repeated records + records outside the data + altered cells.
    """
    original = np.asarray(original)
    released = np.asarray(released)
    rows = check_array("rows", rows, dtype=np.int64, min_size=0)
    f = check_real("percent", percent, low=0, high=100) / 100.0
    n = original.shape[0]
    if released.shape != (rows.size, *original.shape[1:]):
        raise PrivlabError(f"released must hold one row per entry of rows, shape {(rows.size, *original.shape[1:])}")
    want = int(np.floor(f * n + 0.5))
    inside = (rows >= 0) & (rows < n)
    bad = abs(rows.size - want) + int(rows.size - np.unique(rows).size) + int((~inside).sum())
    bad += int((original[rows[inside]] != released[inside]).sum())
    return float(bad)


def check_noise(original: Any, released: Any, domain_sizes: Any, percent: float) -> float:
    """A perturbed file: every released code inside its domain and at most ``M/2`` steps from
    the original, ``M`` = ``percent``% of ``|D| - 1`` to the nearest even number.

    Parameters
    ----------
    original, released : array of int, shape (n, c)
        Domain codes (0-based) of the original and the released records.
    domain_sizes : sequence of int, length c
    percent : float

    Returns
    -------
    float
        The number of released cells that break the rule.
    """
    a = check_array("original", original, ndim=2, dtype=np.int64, min_size=0)
    b = check_array("released", released, ndim=2, dtype=np.int64, min_size=0)
    k = check_real("percent", percent, low=0, high=100)
    sizes = [check_int("domain_sizes[]", m, low=1) for m in domain_sizes]
    if a.shape != b.shape or len(sizes) != a.shape[1]:
        raise PrivlabError("original and released must have the same shape, with one domain size per column")
    bad = 0
    for j, m in enumerate(sizes):
        half = int(np.floor(k / 100.0 * (m - 1) / 2.0 + 0.5))  # M/2: M is k% of |D| - 1, to the nearest even
        off = (b[:, j] < 0) | (b[:, j] >= m) | (np.abs(b[:, j] - a[:, j]) > half)
        bad += int(off.sum())
    return float(bad)


def check_bounds(
    truth: Any,
    A: Any,
    b: Any,
    L: Any,
    U: Any,
    d_min: float,
    d_max: float,
    lp_records: int,
    seed: Any,
    *,
    tol: float = 1e-9,
) -> float:
    """Query-restriction bounds: the released answers are the true sums, every true value lies
    in its ``[L, U]``, and on ``lp_records`` seeded records ``[L, U]`` equals the linear programs'
    min and max (HiGHS, `lp_bounds`).

    Parameters
    ----------
    truth : array, shape (n,)
        The true confidential values.
    A, b : the released system ``A r = b`` (A of shape (k, n), dense or sparse)
    L, U : array, shape (n,)
        The bounds under test.
    d_min, d_max : float
        The domain's ends (the LPs' box).
    lp_records : int
        How many records to re-derive by LP (0: none).
    seed : SeedSequence or int
        Chooses those records (a stream of its own, spawned from ``seed``).
    tol : float
        Floating-point slack of the containment and the answers.

    Returns
    -------
    float
        Count of broken answers and true values outside their bounds, or the largest
        ``|LP bound - bound|`` if larger; rounded to 1e-6.
    """
    r = check_array("truth", truth, dtype=float)
    L = check_array("L", L, dtype=float)
    U = check_array("U", U, dtype=float)
    n = check_int("lp_records", lp_records, low=0, high=10_000)
    b = check_array("b", b, dtype=float, min_size=0)
    if np.ndim(A) != 2 or A.shape != (b.size, r.size):
        raise PrivlabError(f"A must have one row per answer and one column per record, shape {(b.size, r.size)}")
    if L.size != r.size or U.size != r.size:
        raise PrivlabError(f"L and U must hold one bound per record ({r.size})")
    bad = float(np.sum((r < L - tol) | (r > U + tol)))
    bad += float(np.sum(np.abs(A @ r - b) > tol * (1.0 + np.abs(b))))
    if n:
        seq = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        rng = np.random.default_rng(np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, 7)))
        recs = rng.choice(r.size, size=min(n, r.size), replace=False)
        lo, hi = lp_bounds(A, b, d_min, d_max, recs)
        bad = max(bad, float(np.max(np.abs(lo - L[recs]))), float(np.max(np.abs(hi - U[recs]))))
    return float(round(bad, 6))
