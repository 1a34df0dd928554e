"""Section 2.1 (differential inference from noisy counts) and Section 6 (fake values against
the corruption attack)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from privlab._validation import MapFn, PrivlabError, SeedSequenceFn, check_int, check_real, rng_from
from privlab.stats import mean_se

from .._validation import check_callable
from .assign import bucketize
from .checkers import check_bucketization
from .metrics import grouped_relative_errors, make_query_pool
from .settings import MAX_SIZE, SeedLike, check_codes, check_max_size, map_tasks
from .tables import Table
from .two_size import two_size

#: the most samples drawn at once (two float64 arrays of this length are held in memory)
MAX_SAMPLES = 10**8


def _records(sa_codes: ArrayLike, bucket_ids: ArrayLike, domain: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """SA codes and bucket ids of the same records."""
    sa = check_codes("sa_codes", sa_codes, domain, of="the domain (domain_size)")
    bid = check_codes("bucket_ids", bucket_ids)
    if sa.size != bid.size:
        raise PrivlabError(f"sa_codes and bucket_ids must have the same length, got {sa.size} and {bid.size}")
    return sa, bid


def noisy_ratio(a1: float, a2: float, epsilon: float, size: int, seed: SeedLike = 0) -> tuple[np.ndarray, np.ndarray]:
    """Samples of the noisy answers (a1~, a2~) of two count queries under Laplace(1/epsilon).

    Returns (a1~, a2~), each of length ``size``; the adversary's estimate is a2~ / a1~.
    """
    a1 = check_real("a1", a1, low=0, low_open=True)
    a2 = check_real("a2", a2, low=0)
    eps = check_real("epsilon", epsilon, low=0, low_open=True)
    size = check_int("size", size, low=1, high=MAX_SAMPLES)
    rng = rng_from(seed)
    b = 1.0 / eps
    return a1 + rng.laplace(0.0, b, size), a2 + rng.laplace(0.0, b, size)


def ratio_approximation(a1: float, a2: float, epsilon: float) -> tuple[float, float]:
    """Delta-method mean and variance of a2~/a1~ (Theorem 2 as reconstructed):
    E ~ (a2/a1)(1 + 2b^2/a1^2), Var ~ (2b^2/a1^2)(1 + a2^2/a1^2), b = 1/epsilon."""
    a1 = check_real("a1", a1, low=0, low_open=True)
    a2 = check_real("a2", a2, low=0)
    b = 1.0 / check_real("epsilon", epsilon, low=0, low_open=True)
    r = a2 / a1
    return r * (1 + 2 * b * b / (a1 * a1)), (2 * b * b / (a1 * a1)) * (1 + r * r)


def prob_nonpositive(a1: float, epsilon: float) -> float:
    """Pr[a1 + Laplace(1/epsilon) <= 0] = exp(-a1 epsilon) / 2 (the ratio's mean does not exist)."""
    eps = check_real("epsilon", epsilon, low=0, low_open=True)
    return 0.5 * float(np.exp(-check_real("a1", a1, low=0, low_open=True) * eps))


def ratio_summary(
    a1: float, ratio: float, epsilon: float, size: int, trim: float, seed: SeedLike = 0
) -> dict[str, float]:
    """Section 2.1's noisy ratio a2~/a1~ (a2 = ratio * a1) sampled ``size`` times, beside the
    delta-method approximation and the exact Pr[a1~ <= 0].

    The ratio's mean does not exist (a1~ can be 0), so the sample is summarised by its
    median and its ``trim``-trimmed mean, each with a standard error: the median's from the
    normal approximation sqrt(pi/2) sigma / sqrt(size) with sigma = IQR / 1.349; the trimmed
    mean's from the winsorised standard deviation / ((1 - 2 trim) sqrt(size)).
    Pr[a1~ <= 0]'s standard error is the binomial one at the exact probability plus a
    continuity half-count (it is 0 at large a1 eps).

    Parameters
    ----------
    a1 : float
        True count of the first query (> 0).
    ratio : float
        a2 / a1 (>= 0).
    epsilon : float
        Laplace noise scale b = 1 / epsilon.
    size : int
        Samples.
    trim : float
        Fraction trimmed at each end, in [0, 0.5).
    seed : int, SeedSequence or Generator

    Returns
    -------
    dict with a1, ratio, epsilon, approx_mean, approx_var, median, median_se, trimmed_mean,
    trimmed_se, p_nonpos, p_nonpos_exact, p_nonpos_se and factor (approx_mean / ratio).
    """
    # SciPy: slow to import, loaded only for this computation
    from scipy.stats import trim_mean

    size = check_int("size", size, low=1, high=MAX_SAMPLES)
    trim = check_real("trim", trim, low=0, high=0.5, high_open=True)
    ratio = check_real("ratio", ratio, low=0)
    x1, x2 = noisy_ratio(a1, a1 * ratio, epsilon, size, seed)
    r = x2 / x1
    mean, var = ratio_approximation(a1, a1 * ratio, epsilon)
    q1, med, q3 = np.quantile(r, [0.25, 0.5, 0.75])
    lo, hi = np.quantile(r, [trim, 1 - trim])
    w = np.clip(r, lo, hi)
    p = float(np.mean(x1 <= 0))
    p_exact = prob_nonpositive(a1, epsilon)
    return {
        "a1": a1,
        "ratio": ratio,
        "epsilon": epsilon,
        "approx_mean": mean,
        "approx_var": var,
        "median": med,
        "median_se": 1.2533 * (q3 - q1) / 1.349 / np.sqrt(size),
        "trimmed_mean": trim_mean(r, trim),
        "trimmed_se": w.std() / ((1 - 2 * trim) * np.sqrt(size)),
        "p_nonpos": p,
        "p_nonpos_exact": p_exact,
        "p_nonpos_se": np.sqrt(p_exact * (1 - p_exact) / size) + 0.5 / size,
        "factor": mean / ratio,
    }


def corruption_certainty(size: int, corrupted: int, fakes: int) -> float:
    """Certainty about a remaining record's value after ``corrupted`` records of a bucket of
    ``size`` distinct values with ``fakes`` fake values are known: 1 / (size - c + k)."""
    size = check_int("size", size, low=1)
    c = check_int("corrupted", corrupted, low=0, high=size - 1)
    k = check_int("fakes", fakes, low=0)
    return 1.0 / (size - c + k)


def add_fake_values(
    sa_codes: ArrayLike, bucket_ids: ArrayLike, fakes: int, domain_size: int, seed: SeedLike = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ST with ``fakes`` fake values per bucket: values of the SA domain not in the bucket.

    Returns (st_bucket, st_value, is_fake), the real entries first.
    """
    k = check_int("fakes", fakes, low=0)
    m = check_int("domain_size", domain_size, low=1, high=10**6)
    sa, bid = _records(sa_codes, bucket_ids, m)
    if bid.max() + 1 > 10**8 // m:
        raise PrivlabError(f"bucket_ids must number at most {10**8 // m:,} buckets for domain_size {m}")
    rng = rng_from(seed)
    nb = int(bid.max()) + 1
    present = np.zeros((nb, m), dtype=bool)
    present[bid, sa] = True
    if k and np.any(m - present.sum(axis=1) < k):
        raise PrivlabError(f"fakes must leave room in the domain: some bucket has fewer than {k} unused values")
    # k distinct unused values per bucket: the k smallest random keys among unused values
    keys = rng.random((nb, m))
    keys[present] = np.inf
    fake_vals = np.argsort(keys, axis=1)[:, :k]
    st_bucket = np.concatenate([bid, np.repeat(np.arange(nb), k)])
    st_value = np.concatenate([sa, fake_vals.ravel()])
    is_fake = np.concatenate([np.zeros(sa.size, bool), np.ones(nb * k, bool)])
    return st_bucket, st_value, is_fake


def corruption_success(bucket_ids: ArrayLike, corrupted: int, fakes: int) -> float:
    """Exact success rate of `simulate_corruption`: the mean over buckets with more than
    ``corrupted`` records of 1 / (|B| - c + k), for buckets of distinct values."""
    bid = check_codes("bucket_ids", bucket_ids)
    c = check_int("corrupted", corrupted, low=0)
    k = check_int("fakes", fakes, low=0)
    size = np.bincount(bid)
    if not np.any(size > c):
        raise PrivlabError(f"corrupted must be smaller than the largest bucket ({size.max()} records), got {c}")
    return float(np.mean(1.0 / (size[size > c] - c + k)))


def corruption_trial(
    sa_codes: ArrayLike,
    bucket_ids: ArrayLike,
    st_bucket: ArrayLike,
    st_value: ArrayLike,
    corrupted: int,
    fakes: int,
    seed: SeedLike = 0,
) -> dict[str, float]:
    """The corruption attack on every bucket (`simulate_corruption`) beside its exact rate.

    Returns
    -------
    dict with ``success`` (the attack's success rate over the buckets), ``exact``
    (`corruption_success`) and ``success_se``, the binomial standard error at the exact
    rate (floored at 1e-6 / sqrt(buckets) so that a certain attack keeps a positive one).
    """
    hits = simulate_corruption(sa_codes, bucket_ids, st_bucket, st_value, corrupted, seed=seed)
    exact = corruption_success(bucket_ids, corrupted, fakes)
    return {"success": hits.mean(), "success_se": np.sqrt(max(exact * (1 - exact), 1e-12) / hits.size), "exact": exact}


def simulate_corruption(
    sa_codes: ArrayLike,
    bucket_ids: ArrayLike,
    st_bucket: ArrayLike,
    st_value: ArrayLike,
    corrupted: int,
    seed: SeedLike = 0,
) -> np.ndarray:
    """The corruption attack, bucket by bucket: the adversary learns the values of
    ``corrupted`` random records of the bucket, removes those values from the bucket's ST
    entries, and guesses the value of one random remaining record uniformly among the
    remaining entries. Returns the success indicator (one per bucket with more than
    ``corrupted`` records)."""
    sa, bid = _records(sa_codes, bucket_ids)
    st_bucket = check_codes("st_bucket", st_bucket)
    st_value = check_codes("st_value", st_value)
    if st_bucket.size != st_value.size:
        raise PrivlabError(
            f"st_bucket and st_value must have the same length, got {st_bucket.size} and {st_value.size}"
        )
    c = check_int("corrupted", corrupted, low=0)
    rng = rng_from(seed)
    rec_order = np.argsort(bid, kind="stable")
    rec_start = np.searchsorted(bid[rec_order], np.arange(bid.max() + 2)).tolist()
    st_order = np.argsort(st_bucket, kind="stable")
    st_start = np.searchsorted(st_bucket[st_order], np.arange(bid.max() + 2)).tolist()
    # plain lists: the loop runs once per bucket, and numpy's per-element overhead dominated it
    rec_sa = sa[rec_order].tolist()  # each bucket's records' values, in the bucket's record order
    st_values = st_value[st_order].tolist()
    out = []
    for B in range(len(rec_start) - 1):
        first, size = rec_start[B], rec_start[B + 1] - rec_start[B]
        if size <= c:
            continue
        # the same draws as permuting the bucket's records (a shuffle moves positions, whatever they hold)
        perm = rng.permutation(size)[: c + 1].tolist()
        values = st_values[st_start[B] : st_start[B + 1]]
        for i in perm[:c]:
            values.remove(rec_sa[first + i])  # one occurrence per corrupted record
        guess = values[rng.integers(len(values))]
        out.append(guess == rec_sa[first + perm[c]])
    return np.asarray(out, dtype=bool)


def _grid(name: str, values: Sequence[float]) -> list[float]:
    """A non-empty list of positive numbers (a grid axis), as given."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not len(values):
        raise PrivlabError(f"{name} must be a non-empty list of positive numbers, got {values!r}")
    for x in values:
        check_real(name, x, low=0, low_open=True)
    return list(values)


def ratio_grid(
    a1s: Sequence[float],
    ratios: Sequence[float],
    epsilons: Sequence[float],
    samples: int,
    trim: float,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Section 2.1: `ratio_summary` at every (a1, ratio, epsilon) of a grid.

    Parameters
    ----------
    a1s, ratios, epsilons : sequence of float
        The grid's axes (positive); the table runs over a1, then ratio, then epsilon.
    samples : int
        Noisy ratios drawn per grid point.
    trim : float
        Fraction trimmed at each end for the trimmed mean, in [0, 0.5).
    seed_sequence : callable
        ``seed_sequence(a1, ratio, epsilon)`` -> the SeedSequence of that grid point (the values
        as given, e.g. ``RunContext.seed_sequence``).
    map_fn : callable, optional
        ``map(fn, items) -> list`` in order (e.g. ``RunContext.map``); serial otherwise.

    Returns
    -------
    DataFrame: one `ratio_summary` row per grid point.
    """
    axes = [_grid(name, v) for name, v in (("a1s", a1s), ("ratios", ratios), ("epsilons", epsilons))]
    samples = check_int("samples", samples, low=1, high=MAX_SAMPLES)
    trim = check_real("trim", trim, low=0, high=0.5, high_open=True)
    check_callable("seed_sequence", seed_sequence)
    tasks = [
        (ratio_summary, (float(a1), float(r), float(e), samples, trim, seed_sequence(a1, r, e)))
        for a1 in axes[0]
        for r in axes[1]
        for e in axes[2]
    ]
    return pd.DataFrame(map_tasks(tasks, map_fn))


def _corruption_setting(
    t: Table, l: int, fakes: Sequence[int], max_size: int, seeds: dict[Any, Any]
) -> tuple[Any, np.ndarray, dict[int, tuple[np.ndarray, np.ndarray]]]:
    """One l of `corruption_table`: the two-size setting, its checked bucketization and the ST
    with each number of fakes."""
    F = np.full(t.sa_size, 1.0 / l)
    s = two_size(np.bincount(t.sa, minlength=t.sa_size), F, max_size)
    if s is None:
        raise PrivlabError(f"ls: no bucket setting with sizes <= max_size = {max_size} is {l}-diverse")
    bid = bucketize(t.sa, F, s, seed=seeds["bucketize"])
    if not check_bucketization(t.sa, bid, F).ok:
        raise PrivlabError(f"l={l}: the bucketization fails the F-privacy checker")
    sts = {k: add_fake_values(t.sa, bid, k, t.sa_size, seed=seeds["fakes", k]) for k in fakes}
    return s, bid, {k: (b, v) for k, (b, v, _) in sts.items()}


#: queries per work item of `corruption_table`'s query errors (the errors do not depend on it)
QUERY_CHUNK = 2500


def corruption_table(
    table: Table,
    ls: Sequence[int],
    fakes: Sequence[int],
    max_size: int,
    n_queries: int,
    selectivity: float,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Section 6: the corruption attack on uniform-F (F_i = 1/l) two-size bucketizations of
    ``table`` with 0, 1, ... fake values per bucket, and the relative error fakes cost.

    For every l: the optimal two-size setting (`two_size`), its records assigned
    (`bucketize`) and checked (`check_bucketization`); for every number k of fakes an ST
    with k fake values per bucket (`add_fake_values`), the relative error of one query
    pool (`make_query_pool`) on it, and the attack with c = 0..l-1 corrupted records per
    bucket (`corruption_trial`) beside its certainty formula (`corruption_certainty`).

    Parameters
    ----------
    table : Table
        The records (`split_table`).
    ls : sequence of int
        The values of l (F_i = 1 / l).
    fakes : sequence of int
        Fake values per bucket.
    max_size : int
        Largest bucket size M.
    n_queries, selectivity
        The query pool (`make_query_pool`).
    seed_sequence : callable
        ``seed_sequence(*key)`` -> SeedSequence, for the keys ("pool",), ("bucketize", l),
        ("fakes", l, k) and ("attack", l, k, c) (e.g. ``RunContext.seed_sequence``).
    map_fn : callable, optional
        ``map(fn, items) -> list`` in order (e.g. ``RunContext.map``); serial otherwise. The
        pool and the settings of every l, then the pool's errors (in chunks of `QUERY_CHUNK`
        queries) and the attacks, are its tasks.

    Returns
    -------
    DataFrame: l, setting, fakes, corrupted, success, success_se, exact, formula_l, re, re_se.
    """
    if not isinstance(table, Table):
        raise PrivlabError(f"table must be a Table (split_table), got {type(table).__name__}")
    max_size = check_max_size(max_size)
    ls = [check_int("ls", l, low=1, high=MAX_SIZE) for l in ls]
    fakes = [check_int("fakes", k, low=0, high=MAX_SIZE) for k in fakes]
    check_callable("seed_sequence", seed_sequence)
    t = table
    # the pool and every l's bucketization and fake values, then the pool's errors on every ST (in
    # chunks of queries, each query matched once for all of them) and every attack, as tasks (each
    # with its own seed key: the table does not depend on how they are spread over workers)
    seeds = [
        {"bucketize": seed_sequence("bucketize", l), **{("fakes", k): seed_sequence("fakes", l, k) for k in fakes}}
        for l in ls
    ]
    pool_task = (make_query_pool, (t.qi, t.qi_sizes, t.sa, t.sa_size, n_queries, selectivity, seed_sequence("pool")))
    setting_tasks = [(_corruption_setting, (t, l, fakes, max_size, sd)) for l, sd in zip(ls, seeds)]
    pool, *per_l = map_tasks([pool_task, *setting_tasks], map_fn)
    groups = [[(bid, b, v) for b, v in sts.values()] for _, bid, sts in per_l]
    starts = range(0, len(pool), QUERY_CHUNK)
    error_tasks = [(grouped_relative_errors, (t.qi, t.sa, groups, pool.part(s, s + QUERY_CHUNK))) for s in starts]
    trials = [
        (i, j, c, (t.sa, bid, b, v, c, k, seed_sequence("attack", ls[i], k, c)))
        for i, (_, bid, sts) in enumerate(per_l)
        for j, (k, (b, v)) in enumerate(sts.items())
        for c in range(ls[i])
    ]
    done = map_tasks([*error_tasks, *[(corruption_trial, args) for *_, args in trials]], map_fn)
    parts, attacks = done[: len(error_tasks)], done[len(error_tasks) :]
    errors = [[np.concatenate([p[i][j] for p in parts]) for j in range(len(g))] for i, g in enumerate(groups)]
    rows = []
    for (i, j, c, _), attack in zip(trials, attacks):
        s, _, sts = per_l[i]
        k, err = list(sts)[j], errors[i][j]
        row = {"l": ls[i], "setting": str(s), "fakes": k, "corrupted": c, **attack}
        row.update(formula_l=corruption_certainty(ls[i], c, k), re=float(err.mean()), re_se=mean_se(err))
        rows.append(row)
    return pd.DataFrame(rows)
