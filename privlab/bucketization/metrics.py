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

    #: records `any_match` filters at a time: most queries of a pool find a match in the first ones
    CHUNK = 4096

    def __init__(self, qi):
        # narrow contiguous columns: the filtering gathers read less memory
        dtype = np.uint8 if qi.max(initial=0) < 256 else np.int64
        self.cols = [np.ascontiguousarray(qi[:, j], dtype=dtype) for j in range(qi.shape[1])]
        self.groups = []
        for col in self.cols:
            order = np.argsort(col, kind="stable")
            counts = np.bincount(col)
            self.groups.append((order, np.concatenate([[0], np.cumsum(counts)]), counts))

    def _start(self, attributes, values) -> tuple[int, list[np.ndarray]]:
        """The most selective predicate and its records, one sorted run per value."""
        sizes = []
        for j, vj in zip(attributes, values):
            counts = self.groups[j][2]
            sizes.append(int(counts[np.flatnonzero(vj[: counts.size])].sum()))
        first = int(np.argmin(sizes))
        order, starts, counts = self.groups[attributes[first]]
        vals = np.flatnonzero(values[first][: counts.size])
        return first, [order[starts[v] : starts[v + 1]] for v in vals]

    def _filter(self, idx: np.ndarray, attributes, values, skip: int) -> np.ndarray:
        """``idx`` restricted to the records that meet every predicate but the ``skip``-th."""
        for k, (j, vj) in enumerate(zip(attributes, values)):
            if k != skip and idx.size:
                idx = idx[vj[self.cols[j][idx]]]
        return idx

    def match(self, attributes, values) -> np.ndarray:
        """Sorted indices of the records with qi[:, j] in values[k] for every j = attributes[k]."""
        first, runs = self._start(attributes, values)
        # sorted (a merge of sorted runs) so that every later gather walks memory in order
        idx = np.sort(np.concatenate(runs), kind="stable") if runs else self.groups[0][0][:0]
        return self._filter(idx, attributes, values, first)

    def any_match(self, attributes, values, sa: np.ndarray, vs: np.ndarray) -> bool:
        """Whether some record of `match` has its SA value in ``vs``: the same answer, found
        among the first `CHUNK` candidate records as a rule instead of after all of them
        (then among 4 times as many at each step)."""
        first, runs = self._start(attributes, values)

        def hit(pieces: list[np.ndarray]) -> bool:
            idx = np.concatenate(pieces)
            return bool(self._filter(idx[vs[sa[idx]]], attributes, values, first).size)

        limit, taken, size = self.CHUNK, [], 0
        for run in runs:
            while run.size:
                piece, run = run[: limit - size], run[limit - size :]
                taken.append(piece)
                size += piece.size
                if size == limit:
                    if hit(taken):
                        return True
                    limit, taken, size = 4 * limit, [], 0
        return bool(taken) and hit(taken)


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
        if not matcher.any_match(a, v, sa, vs):
            redrawn += 1
            continue
        attrs.append(tuple(int(j) for j in a))
        values.append(v)
        sas.append(vs)
    return QueryPool(tuple(attrs), tuple(values), tuple(sas), redrawn)


def _bit_planes(counts: np.ndarray) -> np.ndarray:
    """Counts c(B, v) (one row per bucket B, one column per value v) as bit planes packed into
    uint64 words.

    Returns planes of shape (levels * words, number of rows), row l * words + w holding bit l
    of c(B, v) for v in 64w..64w+63. Then
    sum_{v in V} c(B, v) = sum_l 2**l sum_w popcount(planes[l * words + w, B] & V_w).
    """
    rows, width = counts.shape
    words = (width + 63) // 64
    levels = max(1, int(counts.max(initial=0)).bit_length())
    bits = np.zeros((levels, rows, words * 64), dtype=bool)
    for lv in range(levels):
        bits[lv, :, :width] = (counts >> lv) & 1
    packed = np.packbits(bits, axis=2, bitorder="little").view("<u8")  # (levels, rows, words)
    return np.ascontiguousarray(packed.transpose(0, 2, 1).reshape(levels * words, rows))


def _bucket_hash(st_bucket: np.ndarray, st_value: np.ndarray, nb: int, width: int) -> np.ndarray:
    """One 64-bit key per bucket: the wrapping sum of a random word per ST entry's value, equal
    for buckets of equal counts c(B, .) (unequal ones may collide: `_profiles` checks)."""
    words = np.random.default_rng(0).integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, width, dtype=np.int64)
    key = np.zeros(nb, dtype=np.int64)
    np.add.at(key, st_bucket, words[st_value])
    return key


def _profiles(st_bucket: np.ndarray, st_value: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct ST counts c(B, .) (profiles) of a bucketization's buckets.

    Round-robin assignment gives the buckets of one size a handful of distinct counts, so a
    bucketization of 10^5 buckets has some 10^2 profiles: a query needs each profile's
    entries in V_s once, and each record only its bucket's profile.

    Returns
    -------
    (the profiles' `_bit_planes`, the ST size of every profile, the profile of every bucket).
    """
    nb = int(st_bucket.max()) + 1
    _, first, profile = np.unique(_bucket_hash(st_bucket, st_value, nb, width), return_index=True, return_inverse=True)
    profile = profile.reshape(-1)
    # exact despite the hash: every bucket's sorted ST values are those of its profile's first bucket
    entry = np.sort(st_bucket * width + st_value)
    bucket, value = np.divmod(entry, width)
    size = np.bincount(st_bucket, minlength=nb)
    start = np.cumsum(size) - size
    rep = first[profile]
    same = np.array_equal(size[rep], size) and np.array_equal(
        value[start[rep[bucket]] + np.arange(entry.size) - start[bucket]], value
    )
    if not same:  # a collision: the exact (slower) distinct rows
        C = np.bincount(entry, minlength=nb * width).reshape(nb, width)
        _, first, profile = np.unique(C, axis=0, return_index=True, return_inverse=True)
        profile = profile.reshape(-1)
    own = first[profile[bucket]] == bucket  # the entries of each profile's first bucket
    counts = np.bincount(profile[bucket[own]] * width + value[own], minlength=first.size * width)
    return _bit_planes(counts.reshape(first.size, width)), size[first], profile


#: a bucketization as (bucket ids, ST bucket, ST value)
Triple = tuple[np.ndarray, np.ndarray, np.ndarray]


class _Estimator:
    """Anatomy's estimates of a query from every bucketization of a table, given the records
    the query's QI predicates match (see `query_answers`).

    A record's term of the estimate is (ST entries of its bucket in V_s) / |ST of its bucket|,
    which its bucket's profile (`_profiles`) determines: each query computes the term of every
    profile once, then gathers it per record. The terms are the same products the direct
    per-record computation forms, summed over the records in their order by the same (records,
    bucketizations) reduction, so the estimates are the same floats.

    Parameters
    ----------
    items : list of (bucket ids, ST bucket, ST value)
        Validated (`query_answers`), one per bucketization.
    width : int
        Above every SA code of the records and of the STs.
    """

    def __init__(self, items: Sequence[Triple], width: int):
        self.width, self.words = width, (width + 63) // 64
        parts = [_profiles(st_bucket, st_value, width) for _, st_bucket, st_value in items]
        self.levels = max([p.shape[0] // self.words for p, _, _ in parts], default=1)
        n_prof = sum(p.shape[1] for p, _, _ in parts)
        # every bucketization's profiles side by side, fewer levels padded with zero planes
        self.planes = np.zeros((self.levels * self.words, n_prof), dtype=np.uint64)
        self.inv = np.empty(n_prof)
        columns = []
        start = 0
        for (bid, _, _), (planes, st_size, profile) in zip(items, parts):
            self.planes[: planes.shape[0], start : start + planes.shape[1]] = planes
            self.inv[start : start + planes.shape[1]] = 1.0 / st_size
            columns.append(profile[bid] + start)
            start += planes.shape[1]
        # record-major (one row per record): a query gathers whole rows
        dtype = np.uint16 if n_prof <= 2**16 else np.int64
        self.record_profile = np.stack(columns, axis=1).astype(dtype) if items else np.zeros((0, 0), dtype)
        self.word_of_row = np.tile(np.arange(self.words), self.levels)
        self.shifts = np.arange(self.levels, dtype=np.int64)[:, None]

    def __len__(self) -> int:
        return self.record_profile.shape[1]

    def __call__(self, idx: np.ndarray, vs: np.ndarray) -> np.ndarray:
        """The estimate from every bucketization of the query matching records ``idx`` (sorted)
        with SA mask ``vs``, shape (number of bucketizations,)."""
        c = np.bitwise_count(self.planes & _sa_words(vs, self.width)[self.word_of_row][:, None])
        in_vs = (c.reshape(self.levels, self.words, -1).sum(axis=1, dtype=np.int64) << self.shifts).sum(axis=0)
        # (records, bucketizations) in record order, reduced over the records as the direct
        # computation's array of terms is
        return (in_vs * self.inv).take(self.record_profile.take(idx, axis=0)).sum(axis=0)


def _sa_words(vs, width: int) -> np.ndarray:
    """A boolean mask over the SA domain packed like `_bit_planes`' words."""
    words = (width + 63) // 64
    bits = np.zeros(words * 64, dtype=bool)
    k = min(vs.size, width)
    bits[:k] = vs[:k]
    return np.packbits(bits, bitorder="little").view("<u8")


def _bucketizations(sa: np.ndarray, bucketizations: Sequence[Any], name: str) -> list[Triple]:
    """``bucketizations`` (see `query_answers`) as (bucket ids, ST bucket, ST value) triples."""
    if isinstance(bucketizations, (str, bytes, np.ndarray)) or not isinstance(bucketizations, Sequence):
        raise PrivlabError(f"{name} must be a list of bucket-id arrays or (ids, ST bucket, ST value) tuples")
    items = []
    for k, item in enumerate(bucketizations):
        if isinstance(item, tuple):
            if len(item) != 3:
                raise PrivlabError(f"{name}[{k}] must be (bucket ids, ST bucket, ST value), got {len(item)} arrays")
            bid, st_bucket, st_value = (check_codes(f"{name}[{k}]", a) for a in item)
            if st_bucket.size != st_value.size:
                raise PrivlabError(f"{name}[{k}]: ST bucket and ST value must have the same length")
        else:
            bid = st_bucket = check_codes(f"{name}[{k}]", item)
            st_value = sa
        if bid.size != sa.size:
            raise PrivlabError(f"{name}[{k}] must give one bucket id per record ({sa.size}), got {bid.size}")
        items.append((bid, st_bucket, st_value))
    return items


def _answers(qi: np.ndarray, sa: np.ndarray, groups: list[list[Triple]], pool: Any):
    """True answers and every group's estimates (`query_answers`), each query matched once."""
    if not isinstance(pool, QueryPool):
        raise PrivlabError(f"pool must be a QueryPool (make_query_pool), got {type(pool).__name__}")
    width = max([int(sa.max())] + [int(v.max()) for items in groups for _, _, v in items]) + 1
    estimators = [_Estimator(items, width) for items in groups]
    n_q = len(pool.attributes)
    actual = np.empty(n_q)
    ests = [np.empty((len(e), n_q)) for e in estimators]
    matcher = _QIMatcher(qi)
    for q in range(n_q):
        idx = matcher.match(pool.attributes[q], pool.values[q])
        vs = pool.sa_values[q]
        actual[q] = np.count_nonzero(vs[sa[idx]])
        for estimate, est in zip(estimators, ests):
            if len(estimate):
                est[:, q] = estimate(idx, vs)
    return actual, ests


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
    actual, (est,) = _answers(qi, sa, [_bucketizations(sa, bucketizations, "bucketizations")], pool)
    return actual, est


def grouped_query_answers(
    qi: ArrayLike, sa: ArrayLike, groups: Sequence[Sequence[Any]], pool: QueryPool
) -> tuple[np.ndarray, list[np.ndarray]]:
    """`query_answers` of several groups of bucketizations of one table, each query's records
    matched once for all of them.

    Parameters
    ----------
    qi, sa, pool
        As for `query_answers`.
    groups : list of lists
        Each a ``bucketizations`` list of `query_answers`.

    Returns
    -------
    (actual of shape (q,), one estimates array per group): group g's estimates are the
    floats ``query_answers(qi, sa, groups[g], pool)`` gives.
    """
    qi, sa = _table(qi, sa)
    if isinstance(groups, (str, bytes, np.ndarray)) or not isinstance(groups, Sequence):
        raise PrivlabError("groups must be a list of bucketization lists (query_answers)")
    return _answers(qi, sa, [_bucketizations(sa, g, f"groups[{i}]") for i, g in enumerate(groups)], pool)


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


def grouped_relative_errors(
    qi: ArrayLike, sa: ArrayLike, groups: Sequence[Sequence[Any]], pool: QueryPool
) -> list[list[np.ndarray]]:
    """`pool_relative_errors` of each group of bucketizations (`grouped_query_answers`: each
    query matched once): one list of error arrays per group."""
    actual, ests = grouped_query_answers(qi, sa, groups, pool)
    return [[relative_errors(actual, e) for e in est] for est in ests]
