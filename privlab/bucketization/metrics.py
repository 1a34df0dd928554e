"""Utility metrics: MSE (Definition 3.9) and the relative error of Anatomy's count queries."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privlab._validation import PrivlabError, check_array, check_int, check_real, rng_from


def mse_of_buckets(bucket_ids) -> float:
    """MSE = (1/n) sum_B (|B| - 1) = 1 - (number of buckets) / n."""
    b = check_array("bucket_ids", bucket_ids, dtype=np.int64)
    return 1.0 - np.unique(b).size / b.size


@dataclass(frozen=True)
class QueryPool:
    """Count queries COUNT(*) WHERE A_1 in V_1 AND ... AND SA in V_s.

    ``attributes[q]`` are the QI column indices of query q, ``values[q]`` one boolean mask
    over each attribute's domain, ``sa_values[q]`` a boolean mask over the SA domain.
    """

    attributes: tuple
    values: tuple
    sa_values: tuple
    redrawn: int           # queries redrawn because their true answer was 0


def _value_set(rng, size: int, s_root: float) -> np.ndarray:
    k = min(size, int(np.ceil(size * s_root)))
    mask = np.zeros(size, dtype=bool)
    mask[rng.choice(size, k, replace=False)] = True
    return mask


def make_query_pool(qi, qi_sizes, sa, sa_size, n_queries=5000, selectivity=0.01, seed=0) -> QueryPool:
    """Draw a pool of count queries as in Anatomy's workload (seed 000, Section 7.2.2).

    qd is uniform in 1..d (d = number of QI columns), the qd attributes are drawn without
    replacement, and each value set holds ceil(|A| s^(1/(qd+1))) random values of A, so the
    expected selectivity is s. A query whose true answer on (qi, sa) is 0 is redrawn (its
    relative error is undefined); the number redrawn is reported.
    """
    qi = check_array("qi", qi, ndim=2, dtype=np.int64)
    sa = check_array("sa", sa, dtype=np.int64)
    n_queries = check_int("n_queries", n_queries, low=1)
    s = check_real("selectivity", selectivity, low=0, high=1, low_open=True)
    d = qi.shape[1]
    if len(qi_sizes) != d:
        raise PrivlabError(f"qi_sizes must give one domain size per QI column ({d}), got {len(qi_sizes)}")
    rng = rng_from(seed)
    attrs, values, sas, redrawn = [], [], [], 0
    while len(attrs) < n_queries:
        qd = int(rng.integers(1, d + 1))
        root = s ** (1.0 / (qd + 1))
        a = np.sort(rng.choice(d, qd, replace=False))
        v = tuple(_value_set(rng, int(qi_sizes[j]), root) for j in a)
        vs = _value_set(rng, int(sa_size), root)
        mask = vs[sa]
        for j, vj in zip(a, v):
            mask &= vj[qi[:, j]]
        if not mask.any():
            redrawn += 1
            continue
        attrs.append(tuple(int(j) for j in a))
        values.append(v)
        sas.append(vs)
    return QueryPool(tuple(attrs), tuple(values), tuple(sas), redrawn)


def query_answers(qi, sa, bucketizations, pool: QueryPool) -> tuple[np.ndarray, np.ndarray]:
    """True answers and estimates from each bucketization's QIT/ST, for every query.

    The estimate of a query from a bucketization is sum_B (records of B matching the QI
    predicates) * (records of B with SA in V_s) / |B| (Anatomy's estimator). The QI
    predicate masks are computed once per query and reused for every bucketization.

    Returns (actual of shape (q,), estimates of shape (number of bucketizations, q)).
    """
    qi = np.asarray(qi)
    sa = np.asarray(sa)
    prepared = []
    m = int(sa.max()) + 1
    for item in bucketizations:
        # an array of bucket ids (ST = the records' SA values), or (bucket ids, ST bucket, ST value)
        # for an ST that differs from the records (e.g. with fake values)
        if isinstance(item, tuple):
            bid, st_bucket, st_value = (np.asarray(a, dtype=np.int64) for a in item)
        else:
            bid = st_bucket = np.asarray(item, dtype=np.int64)
            st_value = sa
        nb = int(max(bid.max(), st_bucket.max())) + 1
        mm = max(m, int(st_value.max()) + 1)
        st_size = np.bincount(st_bucket, minlength=nb).astype(float)
        # P[B, v]: share of ST entries of bucket B with value v (dense: buckets x SA domain)
        C = np.zeros((nb, mm), dtype=np.float64)
        np.add.at(C, (st_bucket, st_value), 1.0)
        prepared.append((bid, C / np.maximum(st_size, 1)[:, None]))
    n_q = len(pool.attributes)
    actual = np.empty(n_q)
    est = np.empty((len(prepared), n_q))
    for q in range(n_q):
        mask = np.ones(sa.size, dtype=bool)
        for j, vj in zip(pool.attributes[q], pool.values[q]):
            mask &= vj[qi[:, j]]
        idx = np.flatnonzero(mask)
        vs = pool.sa_values[q]
        actual[q] = np.count_nonzero(vs[sa[idx]])
        for k, (bid, P) in enumerate(prepared):
            matched = np.bincount(bid[idx], minlength=P.shape[0])
            touched = np.flatnonzero(matched)
            cols = np.flatnonzero(vs)
            cols = cols[cols < P.shape[1]]
            est[k, q] = matched[touched] @ P[np.ix_(touched, cols)].sum(axis=1)
    return actual, est


def relative_errors(actual, estimates) -> np.ndarray:
    """|actual - estimate| / actual per query (actual > 0 by construction of the pool)."""
    actual = np.asarray(actual, dtype=float)
    return np.abs(actual - np.asarray(estimates, dtype=float)) / actual
