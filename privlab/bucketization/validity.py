"""Exact validity of a bucket setting for any number of sizes (Theorem 4.17 generalised).

Placing records into the buckets of each size is a transportation problem: value x_i
supplies o_i records, size S_j demands b_j S_j, and the arc x_i -> S_j carries at most
u_ij = b_j floor(F_i S_j) records (Lemma 4.13: then round-robin inside the size is valid).
By max-flow/min-cut, with supply = demand (CC), a valid assignment exists iff for every
set J of sizes
    sum_i min(o_i, sum_{j in J} u_ij) >= sum_{j in J} b_j S_j.
For one size this is o_i <= u_i (Lemma 4.13); for two sizes J = {1, 2} gives PC and
J = {j} gives FC_j (Theorem 4.17). With three or more sizes the per-size checks are not
enough (Example 5.32): every subset J counts. Up to ``SUBSET_LIMIT`` sizes the subsets are
enumerated; above it a max-flow decides.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import ArrayLike

from .settings import BucketSetting, caps, check_setting, prepare

SUBSET_LIMIT = 10


def upper_bounds(o: ArrayLike, F: ArrayLike, setting: BucketSetting) -> np.ndarray:
    """u_ij = b_j floor(F_i S_j), shape (m, number of sizes)."""
    return caps(F, setting.sizes) * np.asarray(setting.counts, dtype=np.int64)[None, :]


def _check_two(o, u, demand) -> bool:
    # Theorem 4.17: PC (o_i <= u_i1 + u_i2) and FC_j (sum_i min(o_i, u_ij) >= b_j S_j).
    if np.any(o > u.sum(axis=1)):
        return False
    return bool(np.all(np.minimum(o[:, None], u).sum(axis=0) >= demand))


def _check_subsets(o, u, demand) -> bool:
    k = u.shape[1]
    for r in range(1, k + 1):
        for subset in itertools.combinations(range(k), r):
            J = list(subset)
            if np.minimum(o, u[:, J].sum(axis=1)).sum() < demand[J].sum():
                return False
    return True


def max_flow_allocation(o: np.ndarray, u: np.ndarray, demand: np.ndarray) -> tuple[int, np.ndarray]:
    """Max-flow from values to sizes; returns (flow value, allocation matrix x_ij)."""
    # SciPy: slow to import, loaded only for this computation
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    m, k = u.shape
    src, sink = m + k, m + k + 1
    vi, sj = np.nonzero(u)
    rows = np.concatenate([np.full(m, src), vi, m + np.arange(k)])
    cols = np.concatenate([np.arange(m), m + sj, np.full(k, sink)])
    cap = np.concatenate([o, np.minimum(u[vi, sj], o[vi]), demand]).astype(np.int64)
    if cap.size and cap.max() >= 2**31:
        raise OverflowError("capacities exceed int32; table too large for scipy's maximum_flow")
    graph = csr_matrix((cap.astype(np.int32), (rows, cols)), shape=(m + k + 2, m + k + 2))
    res = maximum_flow(graph, src, sink)
    flow = res.flow.tocoo()
    x = np.zeros((m, k), dtype=np.int64)
    sel = (flow.row < m) & (flow.col >= m) & (flow.col < m + k) & (flow.data > 0)
    x[flow.row[sel], flow.col[sel] - m] = flow.data[sel]
    return int(res.flow_value), x


def is_valid(counts: ArrayLike, F: ArrayLike, setting: BucketSetting) -> bool:
    """Is there an assignment of the records to ``setting``'s buckets satisfying F-privacy?

    Exact for any number of sizes: O(m) for one and two sizes (Lemma 4.13, Theorem 4.17),
    the cut condition over all subsets of sizes up to ``SUBSET_LIMIT`` sizes, a max-flow
    above that.

    Parameters
    ----------
    counts : array of int
        Per-value record counts o_i.
    F : array of float
        Thresholds F_i in (0, 1].
    setting : BucketSetting

    Returns
    -------
    bool
    """
    o, F = prepare(counts, F)
    setting = check_setting(setting)
    if setting.n != int(o.sum()):  # CC
        return False
    u = upper_bounds(o, F, setting)
    demand = np.asarray(setting.sizes, dtype=np.int64) * np.asarray(setting.counts, dtype=np.int64)
    k = len(setting.sizes)
    if k <= 2:
        return _check_two(o, u, demand) if k == 2 else bool(np.all(o <= u[:, 0]))
    if k <= SUBSET_LIMIT:
        return _check_subsets(o, u, demand)
    return max_flow_allocation(o, u, demand)[0] == int(o.sum())


def naive_check(counts: ArrayLike, F: ArrayLike, setting: BucketSetting) -> bool:
    """The per-size extension of Theorem 4.17 to any number of sizes: PC over all sizes,
    FC for each size alone, CC. Necessary but NOT sufficient from three sizes on
    (Example 5.32); kept to show that."""
    o, F = prepare(counts, F)
    setting = check_setting(setting)
    if setting.n != int(o.sum()):
        return False
    u = upper_bounds(o, F, setting)
    demand = np.asarray(setting.sizes, dtype=np.int64) * np.asarray(setting.counts, dtype=np.int64)
    return _check_two(o, u, demand)
