"""Query restriction (Section 5): exact answers to range-sum queries of query-set size
``Q = 2l`` over shuffled records; the intruder bounds each record's confidential value by
linear programming over the answers and the domain bounds.

The seed's windows overlap by half (``k = floor(2n/Q) - 1`` queries, ``overlap="half"``);
``overlap="none"`` takes disjoint windows instead (``k = floor(n/Q)``), the other reading of
an overlap the seed does not state. Two independent paths give the bounds: :func:`lp_bounds`
(two HiGHS linear programs per record, as the paper does) and the exact structural method of
:class:`QueryRestriction` (the overlapping blocks leave one degree of freedom; disjoint blocks
bound each record by its own block's answer), O(n) for all records at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_choice, check_int, check_real, rng_from
from .intruder import interval_probs
from .lp import lp_bounds

__all__ = ["QueryRestriction", "bounds_to_indices", "BoundsRelease"]

MAX_RECORDS = 10**7  # the shuffle, the blocks and the bounds are arrays over the records
MAX_LP_RECORDS = 10_000  # records bounded by two linear programs each (method="lp")
OVERLAPS = ("half", "none")  # consecutive windows share l records (the seed's k), or none


class QueryRestriction:
    """Range-sum queries over shuffled records and the bounds they imply.

    The records are shuffled (``order[pos]`` is the record at position ``pos``). With
    ``overlap="half"`` and ``Q = 2l``, query ``t`` (``t = 0..k-1``) sums positions
    ``t l .. t l + 2l - 1``, so there are ``k = floor(2n/Q) - 1`` exact answers; with
    ``overlap="none"`` it sums positions ``t Q .. t Q + Q - 1``, ``k = floor(n/Q)``. The
    intruder bounds each record's value subject to the answers and ``d_min <= r <= d_max``.

    Parameters
    ----------
    values : array_like, shape (n,)
        Confidential values of the original records.
    set_size : int
        Query-set size ``Q``: even, ``2 <= Q <= n``.
    seed : int, SeedSequence or Generator
        Drives the shuffle.
    domain : array_like, optional
        Confidential domain (its min and max bound every record); the values' range otherwise.
    overlap : {"half", "none"}
        Records shared by consecutive windows: ``l`` (the seed's scheme) or none (disjoint windows).
    """

    def __init__(self, values: Any, set_size: int, seed: Any, domain: Any = None, overlap: str = "half") -> None:
        self.values = check_array("values", values, dtype=float)
        n = self.values.size
        if n > MAX_RECORDS:
            raise PrivlabError(f"values must hold at most {MAX_RECORDS:,} records, got {n:,}")
        Q = check_int("set_size", set_size, low=2, high=n)
        if Q % 2:
            raise PrivlabError(f"set_size must be even (Q = 2l), got {Q}")
        self.overlap = check_choice("overlap", overlap, OVERLAPS)
        self.n, self.set_size, self.half = n, Q, Q // 2
        # stride between window starts: l (half) or Q (none)
        self.stride = self.half if self.overlap == "half" else Q
        self.n_queries = (n - Q) // self.stride + 1
        dom = self.values if domain is None else check_array("domain", domain, dtype=float)
        self.d_min, self.d_max = float(dom.min()), float(dom.max())
        if self.values.min() < self.d_min or self.values.max() > self.d_max:
            raise PrivlabError("values must lie inside the domain")
        self.order = rng_from(seed).permutation(n)
        if self.overlap == "none":
            k = self.n_queries
            self.answers = self.values[self.order[: k * Q]].reshape(k, Q).sum(axis=1)
            return
        # answers: sums of the blocks t and t+1 of l shuffled records each
        l, k = self.half, self.n_queries
        block = self.values[self.order[: (k + 1) * l]].reshape(k + 1, l).sum(axis=1)
        self.answers = block[:-1] + block[1:]

    def equations(self) -> tuple[Any, np.ndarray]:
        """The system ``A r = answers`` over records (``A`` a scipy CSR 0/1 matrix, shape (k, n))."""
        # SciPy: slow to import, loaded only for this computation
        from scipy.sparse import csr_matrix

        Q, k = self.set_size, self.n_queries
        rows = np.repeat(np.arange(k), Q)
        pos = (np.arange(k)[:, None] * self.stride + np.arange(Q)[None, :]).ravel()
        return csr_matrix((np.ones(rows.size), (rows, self.order[pos])), shape=(k, self.n)), self.answers.copy()

    def bounds(self, records: Any = None, method: str = "structural") -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds ``(L, U)`` of the given records' values (all records by default).

        ``method="structural"`` is exact and O(n); ``method="lp"`` solves two linear programs
        per record with HiGHS (:func:`lp_bounds`).
        """
        check_choice("method", method, ("structural", "lp"))
        recs = np.arange(self.n) if records is None else check_array("records", records, dtype=np.int64, min_size=0)
        if recs.size and (recs.min() < 0 or recs.max() >= self.n):
            raise PrivlabError(f"records must be indices in [0, {self.n - 1}]")
        if method == "lp" and recs.size > MAX_LP_RECORDS:
            raise PrivlabError(
                f"method='lp' bounds at most {MAX_LP_RECORDS:,} records (two LPs each), got {recs.size:,}"
            )
        if method == "lp":
            A, b = self.equations()
            return lp_bounds(A, b, self.d_min, self.d_max, recs)
        L, U = self._structural() if self.overlap == "half" else self._disjoint()
        return L[recs], U[recs]

    def _disjoint(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact bounds of disjoint windows: no query shares a record with another, so a record
        of window ``t`` ranges over ``[max(d_min, a_t - (Q-1) d_max), min(d_max, a_t - (Q-1) d_min)]``
        (its ``Q - 1`` companions at the domain's bounds). Records in no query keep the whole domain.
        """
        Q, k = self.set_size, self.n_queries
        L = np.full(self.n, self.d_min)
        U = np.full(self.n, self.d_max)
        covered = self.order[: k * Q].reshape(k, Q)
        L[covered] = np.maximum(self.d_min, self.answers - (Q - 1) * self.d_max)[:, None]
        U[covered] = np.minimum(self.d_max, self.answers - (Q - 1) * self.d_min)[:, None]
        return L, U

    def _structural(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact bounds from the chain structure.

        Blocks ``B_0..B_k`` of ``l`` consecutive shuffled records have sums ``b_t`` with
        ``b_t + b_{t+1} = answer_t``: one degree of freedom, ``b_t = c_t + (-1)^t b_0``.
        Each ``b_t`` must lie in ``[l d_min, l d_max]``, which confines ``b_0`` to an
        interval and hence every ``b_t``. Records inside a block are otherwise free in
        the box, so a record of block ``t`` ranges over
        ``[max(d_min, b_t^lo - (l-1) d_max), min(d_max, b_t^hi - (l-1) d_min)]``.
        Records in no query keep the whole domain.
        """
        l, k = self.half, self.n_queries
        lo_sum, hi_sum = l * self.d_min, l * self.d_max
        # c_t by the alternating recurrence c_{t+1} = s_t - c_t
        sign = np.where(np.arange(k + 1) % 2 == 0, 1.0, -1.0)
        c = np.zeros(k + 1)
        if k:
            # c_t = sum_{s<t} (-1)^(t-1-s) s_s, computed in closed form with cumulative sums
            alt = np.cumsum(self.answers * sign[:k] * -1.0)  # sum_{s<=t-1} (-1)^(s+1) a_s
            c[1:] = sign[1:] * alt
        # b_0 interval from every block's box
        b0_lo = np.max(np.where(sign > 0, lo_sum - c, c - hi_sum))
        b0_hi = np.min(np.where(sign > 0, hi_sum - c, c - lo_sum))
        bt_lo = np.where(sign > 0, c + b0_lo, c - b0_hi)
        bt_hi = np.where(sign > 0, c + b0_hi, c - b0_lo)
        L = np.full(self.n, self.d_min)
        U = np.full(self.n, self.d_max)
        covered = self.order[: (k + 1) * l].reshape(k + 1, l)
        L[covered] = np.maximum(self.d_min, bt_lo - (l - 1) * self.d_max)[:, None]
        U[covered] = np.minimum(self.d_max, bt_hi - (l - 1) * self.d_min)[:, None]
        return L, U


def bounds_to_indices(L: Any, U: Any, domain: Any, *, tol: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """Domain indices of the first value >= L and the last value <= U (``tol`` absorbs LP round-off)."""
    domain = check_array("domain", domain, dtype=float)
    if domain.size > 1 and not np.all(np.diff(domain) > 0):
        raise PrivlabError("domain must be strictly increasing")
    L = check_array("L", L, dtype=float, min_size=0)
    U = check_array("U", U, dtype=float, min_size=0)
    if L.size != U.size:
        raise PrivlabError(f"L and U must have the same length, got {L.size} and {U.size}")
    tol = check_real("tol", tol, low=0)
    lo = np.searchsorted(domain, L - tol, side="left")
    hi = np.searchsorted(domain, U + tol, side="right") - 1
    if np.any(hi < lo):
        raise PrivlabError("every [L, U] must contain at least one domain value")
    return lo.astype(np.int64), hi.astype(np.int64)


@dataclass(frozen=True)
class BoundsRelease:
    """The released answers (as the query system) and the intruder's bounds of every record."""

    queries: QueryRestriction
    L: np.ndarray
    U: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    domain_size: int

    def probs(self, groups: np.ndarray, n_groups: int, records: np.ndarray) -> np.ndarray:
        return interval_probs(groups, self.lo[records], self.hi[records], n_groups, self.domain_size)
