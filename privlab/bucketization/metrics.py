"""Utility metrics: MSE (Definition 3.9) and the relative error of Anatomy's count queries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privlab._validation import PrivlabError, check_array, check_choice, check_int, check_real, rng_from

from .settings import SeedLike, check_codes


def mse_of_buckets(bucket_ids: ArrayLike) -> float:
    """MSE = (1/n) sum_B (|B| - 1) = 1 - (number of buckets) / n."""
    b = check_codes("bucket_ids", bucket_ids)
    return 1.0 - np.unique(b).size / b.size


#: The readings of Definition 3.9's MSE (its formula was lost in the seed; config ``mse_definition``):
#: "association" (privlab's: every SA value in a bucket taken as distinct, (1/n) sum_B (|B| - 1)),
#: "true_value" (only a record's error on its own value, (1/n) sum_B (|B| - 1)^2 / |B|) and
#: "association_exact" (the association without the distinct-values assumption; needs the contents).
MSE_DEFINITIONS = ("association", "true_value", "association_exact")
#: the definitions that a bucket setting (sizes and counts, no contents) determines
SIZE_MSE_DEFINITIONS = ("association", "true_value")


def mse_of_setting(sizes: ArrayLike, counts: ArrayLike, definition: str = "association") -> float:
    """The MSE of ``counts[j]`` buckets of ``sizes[j]`` records each, under a definition that
    needs the bucket sizes only.

    Parameters
    ----------
    sizes : array of int
        Bucket sizes S_j (>= 1).
    counts : array of int
        Number of buckets b_j of each size (>= 0, not all 0), one per size.
    definition : {"association", "true_value"}
        "association": (1/n) sum_B (|B| - 1), each record's squared errors over its bucket's
        |B| values (estimate 1/|B|, truth 0 or 1), every value taken as distinct;
        "true_value": (1/n) sum_B (|B| - 1)^2 / |B|, only the error (1 - 1/|B|)^2 on the
        record's own value.

    Returns
    -------
    float, with n = sum_j b_j S_j.
    """
    definition = check_choice("definition", definition, SIZE_MSE_DEFINITIONS)
    s = check_codes("sizes", sizes)
    b = check_codes("counts", counts)
    if s.size != b.size:
        raise PrivlabError(f"sizes and counts must have the same length, got {s.size} and {b.size}")
    if np.any(s < 1):
        raise PrivlabError(f"sizes must be >= 1; {int(s.min())} given")
    if not b.any():
        raise PrivlabError("counts must hold at least one bucket (all are 0)")
    n = int(np.dot(s, b))
    per_bucket = s - 1.0 if definition == "association" else (s - 1.0) ** 2 / s
    return float(np.dot(b, per_bucket)) / n


def mse_of_release(bucket_ids: ArrayLike, sa: ArrayLike, definition: str = "association") -> float:
    """The MSE of a bucketization, one bucket id and one sensitive value per record.

    Parameters
    ----------
    bucket_ids : array (n,) of int
        Bucket of each record.
    sa : array (n,) of int
        Sensitive value code of each record (read by "association_exact" only).
    definition : {"association", "true_value", "association_exact"}
        As `mse_of_setting` for the first two (bucket sizes only); "association_exact":
        (1/n) sum_B (|B| - sum_v c_{B,v}^2 / |B|), with c_{B,v} the records of value v in B,
        each record's squared errors over every value v with estimate c_{B,v} / |B| (truth
        0 or 1). With distinct values in every bucket it equals "association".

    Returns
    -------
    float
    """
    definition = check_choice("definition", definition, MSE_DEFINITIONS)
    ids = check_codes("bucket_ids", bucket_ids)
    codes = check_codes("sa", sa)
    if codes.size != ids.size:
        raise PrivlabError(f"bucket_ids and sa must have one entry per record, got {ids.size} and {codes.size}")
    _, inv, sizes = np.unique(ids, return_inverse=True, return_counts=True)
    if definition != "association_exact":
        return mse_of_setting(sizes, np.ones_like(sizes), definition)
    # the runs of equal (bucket, value) in sorted order are the counts c_{B,v} (no dense bucket x value array)
    order = np.lexsort((codes, inv))
    b, v = inv[order], codes[order]
    starts = np.flatnonzero(np.concatenate([[True], (b[1:] != b[:-1]) | (v[1:] != v[:-1])]))
    c = np.diff(np.append(starts, ids.size)).astype(float)
    sum_c2 = np.bincount(b[starts], weights=c**2, minlength=sizes.size)
    return float(np.sum(sizes - sum_c2 / sizes)) / ids.size


@dataclass(frozen=True)
class QueryPool:
    """Count queries COUNT(*) WHERE A_1 in V_1 AND ... AND SA in V_s.

    ``attributes[q]`` are the QI column indices of query q, ``values[q]`` one boolean mask
    over each attribute's domain, ``sa_values[q]`` a boolean mask over the SA domain.
    """

    attributes: tuple[tuple[int, ...], ...]
    values: tuple[tuple[np.ndarray, ...], ...]
    sa_values: tuple[np.ndarray, ...]
    redrawn: int  # queries redrawn because their true answer was 0

    def __len__(self) -> int:
        return len(self.attributes)

    def part(self, start: int, stop: int) -> QueryPool:
        """Queries ``start``..``stop - 1`` (a slice, for evaluating a pool in chunks)."""
        return QueryPool(self.attributes[start:stop], self.values[start:stop], self.sa_values[start:stop], self.redrawn)


#: the most queries a pool may hold (each keeps masks over every attribute's domain)
MAX_QUERIES = 10**6
#: the largest attribute domain accepted (a query holds a mask over it)
MAX_DOMAIN = 10**6


def _table(qi: ArrayLike, sa: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """QI codes (n, d) and SA codes (n,): non-negative integers, one row per record."""
    sa = check_codes("sa", sa)
    q = check_array("qi", qi, ndim=2, dtype=float)
    if q.shape[1] == 0 or np.any(q < 0) or np.any(q != np.round(q)):
        raise PrivlabError("qi must be a 2-dimensional array of non-negative integer codes with at least one column")
    if q.shape[0] != sa.size:
        raise PrivlabError(f"qi and sa must have one row per record, got {q.shape[0]} and {sa.size}")
    return q.astype(np.int64), sa


def _value_set(rng, size: int, s_root: float) -> np.ndarray:
    k = min(size, int(np.ceil(size * s_root)))
    mask = np.zeros(size, dtype=bool)
    mask[rng.choice(size, k, replace=False)] = True
    return mask


class _QIMatcher:
    """Records matching a conjunction of QI predicates, without a full pass per attribute.

    Each QI column is kept as a contiguous array plus the record indices grouped by value,
    so a query starts from the records of its most selective attribute (the concatenated
    groups of its value set) and filters those by the other attributes.
    """

    def __init__(self, qi):
        # narrow contiguous columns: the filtering gathers read less memory
        dtype = np.uint8 if qi.max(initial=0) < 256 else np.int64
        self.cols = [np.ascontiguousarray(qi[:, j], dtype=dtype) for j in range(qi.shape[1])]
        self.groups = []
        for col in self.cols:
            order = np.argsort(col, kind="stable")
            counts = np.bincount(col)
            self.groups.append((order, np.concatenate([[0], np.cumsum(counts)]), counts))

    def match(self, attributes, values) -> np.ndarray:
        """Sorted indices of the records with qi[:, j] in values[k] for every j = attributes[k]."""
        sizes = []
        for j, vj in zip(attributes, values):
            counts = self.groups[j][2]
            sizes.append(int(counts[np.flatnonzero(vj[: counts.size])].sum()))
        first = int(np.argmin(sizes))
        order, starts, counts = self.groups[attributes[first]]
        vals = np.flatnonzero(values[first][: counts.size])
        idx = np.concatenate([order[starts[v] : starts[v + 1]] for v in vals]) if vals.size else order[:0]
        # sorted (a merge of sorted runs) so that every later gather walks memory in order
        idx = np.sort(idx, kind="stable")
        for k, (j, vj) in enumerate(zip(attributes, values)):
            if k != first and idx.size:
                idx = idx[vj[self.cols[j][idx]]]
        return idx


def make_query_pool(
    qi: ArrayLike,
    qi_sizes: Sequence[int],
    sa: ArrayLike,
    sa_size: int,
    n_queries: int = 5000,
    selectivity: float = 0.01,
    seed: SeedLike = 0,
) -> QueryPool:
    """Draw a pool of count queries as in Anatomy's workload (seed 000, Section 7.2.2).

    qd is uniform in 1..d (d = number of QI columns), the qd attributes are drawn without
    replacement, and each value set holds ceil(|A| s^(1/(qd+1))) random values of A, so the
    expected selectivity is s. A query whose true answer on (qi, sa) is 0 is redrawn (its
    relative error is undefined); the number redrawn is reported.
    """
    qi, sa = _table(qi, sa)
    n_queries = check_int("n_queries", n_queries, low=1, high=MAX_QUERIES)
    s = check_real("selectivity", selectivity, low=0, high=1, low_open=True)
    d = qi.shape[1]
    if isinstance(qi_sizes, (str, bytes)) or not hasattr(qi_sizes, "__len__") or len(qi_sizes) != d:
        raise PrivlabError(f"qi_sizes must give one domain size per QI column ({d}), got {qi_sizes!r}")
    sizes = [check_int(f"qi_sizes[{j}]", x, low=1, high=MAX_DOMAIN) for j, x in enumerate(qi_sizes)]
    over = [j for j in range(d) if qi[:, j].max(initial=0) >= sizes[j]]
    if over:
        raise PrivlabError(f"qi must hold codes below qi_sizes; column {over[0]} has code {qi[:, over[0]].max()}")
    sa_size = check_int("sa_size", sa_size, low=1, high=MAX_DOMAIN)
    check_codes("sa", sa, sa_size, of="the sensitive attribute (sa_size)")
    rng = rng_from(seed)
    matcher = _QIMatcher(qi)
    attrs: list[tuple[int, ...]] = []
    values: list[tuple[np.ndarray, ...]] = []
    sas: list[np.ndarray] = []
    redrawn = 0
    while len(attrs) < n_queries:
        qd = int(rng.integers(1, d + 1))
        root = s ** (1.0 / (qd + 1))
        a = np.sort(rng.choice(d, qd, replace=False))
        v = tuple(_value_set(rng, int(qi_sizes[j]), root) for j in a)
        vs = _value_set(rng, int(sa_size), root)
        idx = matcher.match(a, v)
        if not vs[sa[idx]].any():
            redrawn += 1
            continue
        attrs.append(tuple(int(j) for j in a))
        values.append(v)
        sas.append(vs)
    return QueryPool(tuple(attrs), tuple(values), tuple(sas), redrawn)


def _bit_planes(st_bucket, st_value, width: int):
    """Per bucket, its ST counts c(B, v) as bit planes packed into uint64 words.

    Returns planes of shape (levels * words, number of buckets), row l * words + w holding
    bit l of c(B, v) for v in 64w..64w+63, and the ST size of every bucket. Then
    sum_{v in V} c(B, v) = sum_l 2**l sum_w popcount(planes[l * words + w, B] & V_w).
    """
    nb = int(st_bucket.max()) + 1
    words = (width + 63) // 64
    C = np.bincount(st_bucket * width + st_value, minlength=nb * width).reshape(nb, width)
    levels = max(1, int(C.max()).bit_length())
    bits = np.zeros((levels, nb, words * 64), dtype=bool)
    for lv in range(levels):
        bits[lv, :, :width] = (C >> lv) & 1
    packed = np.packbits(bits, axis=2, bitorder="little").view("<u8")  # (levels, nb, words)
    return np.ascontiguousarray(packed.transpose(0, 2, 1).reshape(levels * words, nb)), C.sum(axis=1)


def _sa_words(vs, width: int) -> np.ndarray:
    """A boolean mask over the SA domain packed like `_bit_planes`' words."""
    words = (width + 63) // 64
    bits = np.zeros(words * 64, dtype=bool)
    k = min(vs.size, width)
    bits[:k] = vs[:k]
    return np.packbits(bits, bitorder="little").view("<u8")


def query_answers(
    qi: ArrayLike, sa: ArrayLike, bucketizations: Sequence[Any], pool: QueryPool
) -> tuple[np.ndarray, np.ndarray]:
    """True answers and estimates from each bucketization's QIT/ST, for every query.

    The estimate of a query from a bucketization is sum_B (records of B matching the QI
    predicates) * (ST entries of B with SA in V_s) / |ST of B| (Anatomy's estimator), i.e.
    the sum over the matching records r of (ST entries of r's bucket in V_s) / |ST of B(r)|.
    Each query's matching records and its true answer are computed once and reused for
    every bucketization, so pass all bucketizations of a table in one call.

    Parameters
    ----------
    qi : array (n, d) of int
    sa : array (n,) of int
    bucketizations : list
        Each an array of bucket ids (the ST holds the records' own SA values) or a tuple
        (bucket ids, ST bucket, ST value) for an ST that differs from the records (e.g.
        with fake values).
    pool : QueryPool

    Returns
    -------
    (actual of shape (q,), estimates of shape (number of bucketizations, q)).
    """
    qi, sa = _table(qi, sa)
    if not isinstance(pool, QueryPool):
        raise PrivlabError(f"pool must be a QueryPool (make_query_pool), got {type(pool).__name__}")
    if isinstance(bucketizations, (str, bytes, np.ndarray)) or not isinstance(bucketizations, Sequence):
        raise PrivlabError("bucketizations must be a list of bucket-id arrays or (ids, ST bucket, ST value) tuples")
    items = []
    for k, item in enumerate(bucketizations):
        if isinstance(item, tuple):
            if len(item) != 3:
                raise PrivlabError(
                    f"bucketizations[{k}] must be (bucket ids, ST bucket, ST value), got {len(item)} arrays"
                )
            bid, st_bucket, st_value = (check_codes(f"bucketizations[{k}]", a) for a in item)
            if st_bucket.size != st_value.size:
                raise PrivlabError(f"bucketizations[{k}]: ST bucket and ST value must have the same length")
        else:
            bid = st_bucket = check_codes(f"bucketizations[{k}]", item)
            st_value = sa
        if bid.size != sa.size:
            raise PrivlabError(f"bucketizations[{k}] must give one bucket id per record ({sa.size}), got {bid.size}")
        items.append((bid, st_bucket, st_value))
    width = max([int(sa.max())] + [int(v.max()) for _, _, v in items]) + 1
    words = (width + 63) // 64
    plane_list: list[np.ndarray] = []
    inv_list: list[np.ndarray] = []
    levels: list[int] = []
    for bid, st_bucket, st_value in items:
        p, st_size = _bit_planes(st_bucket, st_value, width)
        plane_list.append(p[:, bid])  # per record: its bucket's planes
        inv_list.append(1.0 / st_size[bid])  # and 1 / |ST of its bucket|
        levels.append(p.shape[0] // words)
    n_q, K = len(pool.attributes), len(items)
    actual = np.empty(n_q)
    est = np.empty((K, n_q))
    if K:
        # columns level-major: block (level l, word w) holds the bucketizations with more than
        # l levels, which (sorted by levels, descending) are always the first ones
        order = sorted(range(K), key=lambda k: -levels[k])
        blocks = [(lv, w, sum(L > lv for L in levels)) for lv in range(max(levels)) for w in range(words)]
        # record-major (one row per record): a query gathers whole rows, far faster than
        # gathering the same records from every plane separately
        planes = np.ascontiguousarray(
            np.stack([plane_list[k][lv * words + w] for lv, w, kl in blocks for k in order[:kl]], axis=1)
        )
        word_of_col = np.concatenate([np.full(kl, w) for _, w, kl in blocks])
        inv = np.ascontiguousarray(np.stack([inv_list[k] for k in order], axis=1))
    matcher = _QIMatcher(qi)
    for q in range(n_q):
        idx = matcher.match(pool.attributes[q], pool.values[q])
        vs = pool.sa_values[q]
        actual[q] = np.count_nonzero(vs[sa[idx]])
        if not K:
            continue
        x = planes.take(idx, axis=0)
        x &= _sa_words(vs, width)[word_of_col]
        c = np.bitwise_count(x)  # per record and plane: popcount(plane & V_s)
        in_vs = np.zeros((idx.size, K))  # per record: ST entries of its bucket in V_s
        col = 0
        for lv, _, kl in blocks:
            in_vs[:, :kl] += c[:, col : col + kl] * float(2**lv)
            col += kl
        # plain elementwise products and sums: no BLAS call (threads) in the hot loop
        est[order, q] = (in_vs * inv.take(idx, axis=0)).sum(axis=0)
    return actual, est


def relative_errors(actual: ArrayLike, estimates: ArrayLike) -> np.ndarray:
    """|actual - estimate| / actual per query (actual > 0 by construction of the pool)."""
    actual = check_array("actual", actual, dtype=float)
    if np.any(actual <= 0):
        raise PrivlabError(
            f"actual must be positive (a relative error needs it); <= 0 at {np.flatnonzero(actual <= 0)[:5].tolist()}"
        )
    est = check_array("estimates", estimates, ndim=None, dtype=float)
    if est.shape[-1:] != actual.shape:
        raise PrivlabError(f"estimates must end with one value per query ({actual.size}), got shape {est.shape}")
    return np.abs(actual - est) / actual


def pool_relative_errors(
    qi: ArrayLike, sa: ArrayLike, bucketizations: Sequence[Any], pool: QueryPool
) -> list[np.ndarray]:
    """Relative error of every query of ``pool`` under each bucketization (`query_answers`,
    then `relative_errors`): one array of ``len(pool)`` errors per bucketization."""
    actual, est = query_answers(qi, sa, bucketizations, pool)
    return [relative_errors(actual, e) for e in est]
