"""The CAE measure: H(eps), its initial entropy H0 and the area A under it (Sections 3-4).

An intruder ends with candidate values ``x_1 < ... < x_n`` of a confidential attribute
and their probabilities ``p_1..p_n``. Covering the sorted values by contiguous windows of
span at most ``eps`` and merging each window into one value, ``H(eps)`` is the minimum
Shannon entropy (bits) over all such coverings. ``H0 = H(0)`` measures exact
disclosure, the area ``A`` under ``H`` measures approximate disclosure; CAE is the pair
``(H0, A)``.

``H`` is a non-increasing step function that can only change where ``eps`` equals a
pairwise difference ``x_j - x_i``, so the area is an exact finite sum.

A value of probability zero never changes ``H`` (it can always sit alone in its own
window at no cost, and dropping it from a window never widens the window), so the
batched form evaluates many distributions over one shared value grid, zeros allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_distribution, check_int, check_same_length
from ..constraints import Real
from ..validation import validate_params
from ._checks import MEMORY_LIMIT, check_memory

__all__ = [
    "min_entropy",
    "max_entropy",
    "covering_entropy",
    "entropy_curve",
    "cae",
    "breakpoints",
    "entropy_curves",
    "cae_batch",
    "cae_batches",
]

# A window's probability sum below this is treated as empty (0 log 0 = 0).
_TINY = 1e-300
# values one dynamic program takes (O(n^2) time), and values of an exact step function
# (n(n+1)/2 breakpoints, one dynamic program each)
MAX_DP_VALUES = 20_000
MAX_CURVE_VALUES = 2_000
# dynamic-program steps of one exact step function (breakpoints x values): about a few seconds
MAX_CURVE_WORK = 1_000_000
# rows of one block of the batched dynamic program: its windows' entropies stay in the CPU cache
_CACHE_ROWS = 1024


def _check_values(values: Any, limit: int = MAX_DP_VALUES) -> np.ndarray:
    x = check_array("values", values, dtype=float)
    if x.size > limit:
        raise PrivlabError(
            f"values must hold at most {limit:,} values here (time and memory grow as n^2), got {x.size:,}"
        )
    with np.errstate(over="ignore"):
        span = x[-1] - x[0] if x.size > 1 else 0.0
    if not np.isfinite(span):
        raise PrivlabError(
            f"values span {x[0]:.3g}..{x[-1]:.3g}, wider than the largest float ({np.finfo(float).max:.3g}); "
            "rescale them"
        )
    if x.size > 1 and not np.all(np.diff(x) > 0):
        bad = int(np.flatnonzero(np.diff(x) <= 0)[0])
        raise PrivlabError(
            f"values must be strictly increasing; values[{bad + 1}] = {x[bad + 1]!r} "
            f"does not exceed values[{bad}] = {x[bad]!r}"
        )
    return x


def _check_input(values: Any, probs: Any, limit: int = MAX_DP_VALUES) -> tuple[np.ndarray, np.ndarray]:
    x = _check_values(values, limit)
    p = check_distribution("probs", probs)
    check_same_length("values", x, "probs", p)
    return x, p


def _plogp(q: Any) -> np.ndarray:
    """``q * log2(1/q)`` elementwise, 0 where ``q`` is 0 (or rounding made it slightly negative)."""
    q = np.asarray(q, dtype=float)
    # a window holding (up to round-off) all the mass contributes exactly 0, so H reaches 0
    keep = (q > _TINY) & (q < 1.0 - 1e-12)
    safe = np.where(keep, q, 1.0)
    return np.where(keep, -safe * np.log2(safe), 0.0)


def _neg_plogp(q: np.ndarray) -> np.ndarray:
    """``-_plogp(q)`` in place, bit for bit (``+0.0`` where `_plogp` gives 0).

    The batched dynamic program's form of `_plogp`: ``q log2 q`` with no temporary arrays beyond
    one mask, subtracted instead of added (``x - y`` is ``x + (-y)`` exactly).
    """
    # _plogp's keep: a window holding (up to round-off) all the mass, or none, gives 0 = 1 log2 1
    skip = q <= _TINY
    skip |= q >= 1.0 - 1e-12
    np.putmask(q, skip, 1.0)
    log = np.log2(q)
    q *= log
    return q


def _dp(x: np.ndarray, p: np.ndarray, eps: float, best: Callable[..., Any] = np.min) -> float:
    """The paper's dynamic program (Algorithm 1) for one ``eps``.

    ``H(eps, i) = min_{j <= i, x_i - x_j <= eps} H(eps, j-1) + a(j, i)`` with
    ``a(j, i) = q log2(1/q)``, ``q = p_j + ... + p_i`` (``best=np.max``: the maximising covering).
    """
    n = x.size
    cum = np.concatenate(([0.0], np.cumsum(p)))
    h = np.zeros(n + 1)
    for i in range(1, n + 1):
        # windows ending at value i: start j from lo..i (1-based), lo the first with x_i - x_j <= eps
        lo = int(np.searchsorted(x, x[i - 1] - eps, side="left")) + 1
        j = np.arange(lo, i + 1)
        h[i] = best(h[j - 1] + _plogp(cum[i] - cum[j - 1]))
    return float(max(h[n], 0.0))


def _slack(x: np.ndarray) -> float:
    """Tiny slack so that an eps equal to a difference computed in floating point covers it."""
    return 1e-12 * max(1.0, float(np.abs(x).max()))


@validate_params(eps=Real(0))
def min_entropy(values: Any, probs: Any, eps: float) -> float:
    """H(eps): the minimum entropy (bits) over coverings by windows of span <= ``eps``.

    Parameters
    ----------
    values : array_like, shape (n,)
        Candidate values ``x_1 < ... < x_n`` (finite, strictly increasing).
    probs : array_like, shape (n,)
        Their probabilities (non-negative, summing to 1 within 1e-9; zeros allowed).
    eps : float
        Approximate-compromise range, ``eps >= 0``.

    Returns
    -------
    float
        ``H(eps)`` in bits; ``H(0)`` is the Shannon entropy of ``probs``.
    """
    x, p = _check_input(values, probs)
    return _dp(x, p, eps + _slack(x))


@validate_params(eps=Real(0))
def max_entropy(values: Any, probs: Any, eps: float) -> float:
    """The *maximum* entropy (bits) over the same coverings as :func:`min_entropy`.

    The seed's problem statement says H(eps) is "maximised"; this is that reading, computed
    by the same dynamic program with max in place of min. Keeping every value in its own
    window is always allowed and merging never raises entropy, so it equals ``H(0)`` for
    every ``eps``: the printed H(eps) of the appendix tell the two readings apart.
    """
    x, p = _check_input(values, probs)
    return _dp(x, p, eps + _slack(x), best=np.max)


def covering_entropy(values: Any, probs: Any, windows: Sequence[Sequence[float]]) -> tuple[float, float]:
    """Entropy (bits) of one given covering, and its widest window's span.

    Parameters
    ----------
    values, probs : array_like, shape (n,)
        As for :func:`min_entropy`.
    windows : sequence of sequences of float
        The covering: contiguous groups of the values, in order, together holding every value once.

    Returns
    -------
    (float, float)
        The entropy of the merged probabilities and ``max(window) - min(window)`` of the widest window
        (the covering is allowed for every eps at least that large).
    """
    x, p = _check_input(values, probs)
    if isinstance(windows, (str, bytes)) or not isinstance(windows, Sequence):
        raise PrivlabError(f"windows must be a list of lists of values, got {windows!r}")
    if any(isinstance(w, (str, bytes)) or not isinstance(w, Sequence) for w in windows):
        raise PrivlabError(f"windows must be a list of lists of values, got {windows!r}")
    try:
        flat = [float(v) for w in windows for v in w]
    except (TypeError, ValueError):
        raise PrivlabError(f"windows must hold numbers, got {windows!r}") from None
    if not all(len(w) for w in windows) or flat != x.tolist():
        raise PrivlabError(f"windows must split the values {x.tolist()} into non-empty contiguous groups, in order")
    q, span, start = [], 0.0, 0
    for w in windows:
        q.append(float(p[start : start + len(w)].sum()))
        span = max(span, float(w[-1]) - float(w[0]))
        start += len(w)
    return float(_plogp(np.asarray(q)).sum()), span


def breakpoints(values: Any) -> np.ndarray:
    """The sorted distinct pairwise differences ``x_j - x_i`` (``j >= i``), starting at 0."""
    x = _check_values(values, MAX_CURVE_VALUES)
    d = (x[None, :] - x[:, None])[np.triu_indices(x.size)]
    return np.unique(d)


def entropy_curve(values: Any, probs: Any) -> tuple[np.ndarray, np.ndarray]:
    """The exact step function ``H(eps)``: one dynamic program per breakpoint, at most
    `MAX_CURVE_WORK` breakpoints x values in all (refused beyond, before the work; `cae_batch`
    computes the same curve vectorised).

    Returns
    -------
    eps : ndarray, shape (K,)
        Breakpoints: the distinct pairwise differences, ``eps[0] = 0``, ``eps[-1] = x_n - x_1``.
    H : ndarray, shape (K,)
        ``H[k]`` holds on ``[eps[k], eps[k+1])``; ``H[-1] = 0`` (one window covers everything).
    """
    x, p = _check_input(values, probs, MAX_CURVE_VALUES)
    eps = breakpoints(x)
    if eps.size * x.size > MAX_CURVE_WORK:  # refused before the work, not after minutes
        raise PrivlabError(
            f"values: the exact H(eps) runs one dynamic program per breakpoint, {eps.size:,} breakpoints x "
            f"{x.size:,} values = {eps.size * x.size:,} steps, at most {MAX_CURVE_WORK:,} (a few seconds); "
            "use cae_batch (the same curve, vectorised) or fewer distinct values"
        )
    tol = _slack(x)
    h = np.array([_dp(x, p, e + tol) for e in eps])
    return eps, h


def cae(values: Any, probs: Any) -> tuple[float, float]:
    """CAE = ``(H0, A)``: initial entropy and the exact area under ``H(eps)``.

    ``A = sum_k H[k] (eps[k+1] - eps[k])`` over the breakpoints of :func:`entropy_curve`.
    """
    eps, h = entropy_curve(values, probs)
    return float(h[0]), float(np.sum(h[:-1] * np.diff(eps)))


# ---------------------------------------------------------------------------------------
# Batched form: many distributions over one shared grid
# ---------------------------------------------------------------------------------------
def _check_batch(values: Any, probs: Any) -> tuple[np.ndarray, np.ndarray]:
    """The grid and the distributions of the batched form, checked."""
    x = _check_values(values, MAX_CURVE_VALUES)
    P = check_array("probs", probs, ndim=2, dtype=float, min_size=0)
    if P.shape[1] != x.size:
        raise PrivlabError(f"probs must have {x.size} columns (one per value), got shape {P.shape}")
    if np.any(P < 0):
        raise PrivlabError(f"probs must be non-negative; negative in row {int(np.flatnonzero((P < 0).any(1))[0])}")
    sums = P.sum(axis=1)
    if P.shape[0] and np.any(np.abs(sums - 1.0) > 1e-9):
        row = int(np.flatnonzero(np.abs(sums - 1.0) > 1e-9)[0])
        raise PrivlabError(f"probs rows must sum to 1 (within 1e-9); row {row} sums to {sums[row]!r}")
    return x, P


def _curves(x: np.ndarray, P: np.ndarray, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """`entropy_curves` of checked arguments: ``(eps, H)``, ``H`` a new array of shape (B, K)."""
    eps = breakpoints(x)
    m = x.size
    check_memory(f"H(eps) over {m} values and {eps.size:,} breakpoints", 8.0 * eps.size * m, "coarsen the grid")
    check_memory(f"H(eps) of one distribution over {m} values", 8.0 * m * m, "coarsen the grid")
    chunk = max(1, min(chunk, _CACHE_ROWS, int(MEMORY_LIMIT // (8 * m * m))))
    tol = _slack(x)
    # lo[k, i]: first window start (0-based) allowed for a window ending at i at level k
    lo = np.searchsorted(x, x[None, :] - (eps[:, None] + tol), side="left")
    # first[k]: the first window end whose allowed starts changed from level k - 1 (m: none); the
    # values before it keep their H(eps, i)
    first = np.zeros(eps.size, dtype=np.int64)
    if eps.size > 1:
        moved = lo[1:] != lo[:-1]
        first[1:] = np.where(moved.any(axis=1), moved.argmax(axis=1), m)
    # the windows j..i (j <= i) only, packed by their end: window j..i is row i(i+1)/2 + j of seg
    offset = (np.arange(m) * (np.arange(m) + 1) // 2).tolist()
    out = np.empty((P.shape[0], eps.size))
    for start in range(0, P.shape[0], chunk):
        block = P[start : start + chunk]
        b = block.shape[0]
        # the batch is the last, contiguous axis, in blocks small enough to stay in the CPU cache:
        # every step below is a vector operation over it
        cum = np.empty((m + 1, b))
        cum[0] = 0.0
        cum[1:] = np.cumsum(block, axis=1).T
        seg = np.empty((m * (m + 1) // 2, b))
        for i in range(m):
            np.subtract(cum[i + 1], cum[: i + 1], out=seg[offset[i] : offset[i] + i + 1])
        _neg_plogp(seg)  # seg[row of j..i] = -a(j, i)
        h = np.zeros((m + 1, b))  # h[j]: H of values 0..j-1
        tmp = np.empty((m, b))
        for k in range(eps.size):
            lo_k = lo[k].tolist()
            for i in range(int(first[k]), m):
                j0 = lo_k[i]
                w, row = i + 1 - j0, offset[i] + j0
                # h[j] + a(j, i) for every allowed start j at once (x - y is x + (-y), bit for bit)
                np.subtract(h[j0 : i + 1], seg[row : row + w], out=tmp[:w])
                np.minimum.reduce(tmp[:w], axis=0, out=h[i + 1])
            out[start : start + b, k] = h[m]
    np.maximum(out, 0.0, out=out)
    return eps, out


def entropy_curves(values: Any, probs: Any, *, chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """``H(eps)`` of many distributions over one value grid, vectorised over the batch.

    Parameters
    ----------
    values : array_like, shape (m,)
        The shared grid (finite, strictly increasing).
    probs : array_like, shape (B, m)
        One distribution per row (non-negative, rows summing to 1 within 1e-9; zeros allowed).
    chunk : int
        Rows processed at once, at most; fewer where ``chunk * m * m * 8`` bytes would pass the
        memory limit or the rows would no longer fit the CPU cache (the result does not depend on it).

    Returns
    -------
    eps : ndarray, shape (K,)
        The grid's pairwise differences (:func:`breakpoints`).
    H : ndarray, shape (B, K)
        ``H[b, k]`` holds on ``[eps[k], eps[k+1])`` for distribution ``b``. A row whose
        support is narrower than the grid reaches 0 at an earlier breakpoint.
    """
    rows = check_int("chunk", chunk, low=1)
    x, P = _check_batch(values, probs)
    return _curves(x, P, rows)


def _area(eps: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(H0, A)`` of the curves ``h`` (shape (B, K)), as `cae_batch` returns them.

    The area is one matrix-vector product over the whole batch: BLAS sums a row in an order that
    can depend on the row's place in the matrix, so a batch's areas are those of that matrix.
    """
    return h[:, 0].copy(), h[:, :-1] @ np.diff(eps)


def cae_batches(values: Any, batches: Sequence[Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """`cae_batch` of each of several batches over one grid, bit for bit, with one dynamic program.

    Parameters
    ----------
    values : array_like, shape (m,)
        The shared grid.
    batches : sequence of array_like, each of shape (B_i, m)
        The distributions of each batch (as for :func:`cae_batch`).

    Returns
    -------
    list of (H0, area)
        ``cae_batch(values, batches[i])`` for every ``i``: the curves come from one dynamic program
        over every row (rows are independent in it), the areas from each batch's own matrix.
    """
    if isinstance(batches, np.ndarray) or not isinstance(batches, Sequence):
        raise PrivlabError("batches must be a list of 2-dimensional arrays")
    checked = [_check_batch(values, P) for P in batches]
    if not checked:
        return []
    x = checked[0][0]
    eps, h = _curves(x, np.concatenate([P for _, P in checked], axis=0), 8192)
    ends = np.cumsum([P.shape[0] for _, P in checked]).tolist()
    return [_area(eps, h[a:b].copy()) for a, b in zip([0, *ends[:-1]], ends)]


def cae_batch(values: Any, probs: Any, *, chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """``(H0, A)`` of every row of ``probs`` over the shared grid ``values`` (see :func:`entropy_curves`).

    Returns
    -------
    H0 : ndarray, shape (B,)
    area : ndarray, shape (B,)
    """
    return _area(*entropy_curves(values, probs, chunk=chunk))
