"""The paper's linear programs for query restriction: the min and max of one record's value
subject to the released answers and the domain bounds, solved generically with HiGHS.

Used by `QueryRestriction.bounds` (``method="lp"``) and by the artifact checker; it shares
nothing with the structural method of `QueryRestriction`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._highs import quiet_highs
from .._validation import PrivlabError, check_array, check_real
from ._checks import check_memory

__all__ = ["lp_bounds"]


def lp_bounds(A: Any, b: Any, d_min: float, d_max: float, records: Any) -> tuple[np.ndarray, np.ndarray]:
    """Min and max of each ``r_i`` (i in ``records``) subject to ``A r = b``, ``d_min <= r <= d_max``.

    A generic path through HiGHS (`highspy`: two LPs per record, each solved from scratch on
    the whole system), sharing nothing with the structural method of :class:`QueryRestriction`.

    Parameters
    ----------
    A : array_like or scipy sparse matrix, shape (k, n)
    b : array_like, shape (k,)
    d_min, d_max : float
        Box bounds of every unknown.
    records : array_like of int
        The unknowns to bound.
    """
    # SciPy and HiGHS: slow to import, loaded only for this computation
    import highspy
    from scipy.sparse import csc_matrix, csr_matrix, issparse

    lo = check_real("d_min", d_min)
    hi = check_real("d_max", d_max, low=lo)
    if issparse(A):
        A = csr_matrix(A, dtype=float)
    else:
        A = check_array("A", A, ndim=2, dtype=float, min_size=0)
    k, n = A.shape
    if n < 1:
        raise PrivlabError("A must have at least one column (one per unknown)")
    b = check_array("b", b, dtype=float, min_size=0)
    if b.size != k:
        raise PrivlabError(f"b must have one entry per row of A ({k}), got {b.size}")
    check_memory(f"the LP over {n:,} unknowns", 8.0 * n * (1 if issparse(A) else max(k, 1)), "use a sparse A")
    records = check_array("records", records, dtype=np.int64, min_size=0)
    if records.size and (records.min() < 0 or records.max() >= n):
        raise PrivlabError(f"records must be indices in [0, {n - 1}]")
    cols = csc_matrix(A)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, k
    lp.col_lower_, lp.col_upper_ = np.full(n, lo), np.full(n, hi)
    lp.row_lower_ = lp.row_upper_ = b
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = cols.indptr, cols.indices, cols.data
    L = np.empty(records.size)
    U = np.empty(records.size)
    for out, i in enumerate(records):
        c = np.zeros(n)
        for sense, dest in ((1.0, L), (-1.0, U)):
            c[i] = sense
            lp.col_cost_ = c
            h = quiet_highs(threads=1)  # a fresh solver per LP: nothing carried from the last one
            h.passModel(lp)
            h.run()
            status = h.getModelStatus()
            if status != highspy.HighsModelStatus.kOptimal:
                raise RuntimeError(f"LP for record {i} failed: {h.modelStatusToString(status)}")
            dest[out] = sense * h.getInfo().objective_function_value
    return L, U
