"""The count-query workload: true answers and Anatomy's estimator against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from privlab.bucketization import (
    add_fake_values,
    make_query_pool,
    metrics,
    pool_relative_errors,
    query_answers,
    relative_errors,
)
from privlab.bucketization.metrics import grouped_query_answers, grouped_relative_errors


def test_query_answers_exact_and_one_bucket():
    rng = np.random.default_rng(3)
    n = 4000
    qi = rng.integers(0, 5, (n, 3))
    sa = (qi[:, 0] + rng.integers(0, 2, n)) % 6
    pool = make_query_pool(qi, [5, 5, 5], sa, 6, n_queries=200, selectivity=0.05, seed=1)
    singleton = np.arange(n)
    one = np.zeros(n, dtype=np.int64)
    actual, est = query_answers(qi, sa, [singleton, one], pool)
    assert np.allclose(est[0], actual)  # raw data: no error
    q = 0
    mask = np.ones(n, bool)
    for j, v in zip(pool.attributes[q], pool.values[q]):
        mask &= v[qi[:, j]]
    expected = mask.sum() * pool.sa_values[q][sa].mean()  # one bucket: independence
    assert est[1, q] == pytest.approx(expected)
    assert np.all(relative_errors(actual, est[0]) < 1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("m", [6, 70])  # one and two 64-bit words per bit plane
def test_query_answers_brute_force(m):
    rng = np.random.default_rng(m)
    n = 3000
    qi = rng.integers(0, 4, (n, 3))
    sa = (qi[:, 0] * 7 + rng.integers(0, m, n)) % m
    pool = make_query_pool(qi, [4, 4, 4], sa, m, n_queries=60, selectivity=0.05, seed=2)
    big = np.arange(n) // 50  # buckets of 50: counts up to 5 bits
    small = rng.permutation(n) // 3
    st_b, st_v, _ = add_fake_values(sa, small, 2, m, seed=3)
    items = [big, small, (small, st_b, st_v)]
    actual, est = query_answers(qi, sa, items, pool)
    for q in range(len(pool.attributes)):
        mask = np.ones(n, bool)
        for j, v in zip(pool.attributes[q], pool.values[q]):
            mask &= v[qi[:, j]]
        vs = pool.sa_values[q]
        assert actual[q] == np.count_nonzero(mask & vs[sa])
        for k, (bid, stb, stv) in enumerate([(big, big, sa), (small, small, sa), (small, st_b, st_v)]):
            want = sum(
                np.count_nonzero(mask[bid == B]) * np.count_nonzero(vs[stv[stb == B]]) / np.count_nonzero(stb == B)
                for B in np.unique(bid[mask])
            )
            assert est[k, q] == pytest.approx(want, rel=1e-12)


def test_pool_relative_errors_chunks_equal_the_whole():
    # Figure 5 evaluates the pool in chunks of queries: the errors do not depend on the chunking
    rng = np.random.default_rng(5)
    n = 2000
    qi = rng.integers(0, 4, (n, 3))
    sa = (qi[:, 1] + rng.integers(0, 3, n)) % 5
    pool = make_query_pool(qi, [4, 4, 4], sa, 5, n_queries=50, selectivity=0.05, seed=7)
    assert len(pool) == 50 and len(pool.part(40, 60)) == 10 and pool.part(0, 10).redrawn == pool.redrawn
    ids = [rng.permutation(n) // 4, np.arange(n) // 10]
    whole = pool_relative_errors(qi, sa, ids, pool)
    actual, est = query_answers(qi, sa, ids, pool)
    for w, e in zip(whole, est):
        np.testing.assert_array_equal(w, relative_errors(actual, e))
    parts = [pool_relative_errors(qi, sa, ids, pool.part(s, s + 16)) for s in range(0, 50, 16)]
    for k in range(2):
        np.testing.assert_array_equal(np.concatenate([p[k] for p in parts]), whole[k])


def _direct_estimates(qi, sa, items, pool):
    """Anatomy's estimates term by term: per matching record and bucketization, (ST entries of its
    bucket in V_s) * (1 / |ST of its bucket|), reduced over the records as one (records,
    bucketizations) array (the computation `query_answers` must reproduce float for float)."""
    est = np.empty((len(items), len(pool)))
    for q in range(len(pool)):
        mask = np.ones(sa.size, bool)
        for j, v in zip(pool.attributes[q], pool.values[q]):
            mask &= v[qi[:, j]]
        idx, vs = np.flatnonzero(mask), pool.sa_values[q]
        terms = np.empty((idx.size, len(items)))
        for k, (bid, stb, stv) in enumerate(items):
            for i, r in enumerate(idx):
                entries = stv[stb == bid[r]]
                in_vs = np.count_nonzero(np.isin(entries, np.flatnonzero(vs)))  # fakes may lie beyond V_s's domain
                terms[i, k] = float(in_vs) * (1.0 / entries.size)
        est[:, q] = terms.sum(axis=0)
    return est


@pytest.mark.parametrize("m, k", [(5, 1), (6, 2), (70, 3)])  # one or more bucketizations, two-word planes
def test_query_answers_are_the_direct_sums_float_for_float(m, k):
    rng = np.random.default_rng(m + k)
    n = 600
    qi = rng.integers(0, 4, (n, 3))
    sa = (qi[:, 0] * 7 + rng.integers(0, m, n)) % m
    pool = make_query_pool(qi, [4, 4, 4], sa, m, n_queries=15, selectivity=0.05, seed=k)
    bids = [np.arange(n) // 40, rng.permutation(n) // 3, rng.permutation(n) // 7][:k]
    st_b, st_v, _ = add_fake_values(sa, bids[-1], 2, m + 2, seed=3)
    items = [(b, b, sa) for b in bids[:-1]] + [(bids[-1], st_b, st_v)]
    _, est = query_answers(qi, sa, items, pool)
    np.testing.assert_array_equal(est, _direct_estimates(qi, sa, items, pool))


def test_grouped_answers_are_those_of_separate_calls():
    # each query matched once for every group; a group's estimates are those of its own call,
    # a group of one bucketization included
    rng = np.random.default_rng(11)
    n = 3000
    qi = rng.integers(0, 5, (n, 3))
    sa = (qi[:, 2] + rng.integers(0, 4, n)) % 9
    pool = make_query_pool(qi, [5, 5, 5], sa, 9, n_queries=40, selectivity=0.02, seed=4)
    ids = [rng.permutation(n) // s for s in (2, 3, 5, 8)]
    st_b, st_v, _ = add_fake_values(sa, ids[1], 1, 9, seed=5)
    groups = [[ids[0]], [ids[1], (ids[1], st_b, st_v)], [ids[2], ids[3], ids[0]]]
    actual, ests = grouped_query_answers(qi, sa, groups, pool)
    errors = grouped_relative_errors(qi, sa, groups, pool)
    for group, est, err in zip(groups, ests, errors):
        want_actual, want = query_answers(qi, sa, group, pool)
        np.testing.assert_array_equal(actual, want_actual)
        np.testing.assert_array_equal(est, want)
        for e, w in zip(err, pool_relative_errors(qi, sa, group, pool)):
            np.testing.assert_array_equal(e, w)


def test_profiles_survive_hash_collisions(monkeypatch):
    rng = np.random.default_rng(2)
    n = 2000
    qi = rng.integers(0, 4, (n, 2))
    sa = rng.integers(0, 6, n)
    pool = make_query_pool(qi, [4, 4], sa, 6, n_queries=30, selectivity=0.05, seed=1)
    ids = [np.arange(n) // 10, rng.permutation(n) // 4]
    _, want = query_answers(qi, sa, ids, pool)
    # every bucket on one key: the exact check must catch it and split the buckets by their counts
    monkeypatch.setattr(metrics, "_bucket_hash", lambda st_bucket, st_value, nb, width: np.zeros(nb, np.int64))
    planes, st_size, profile = metrics._profiles(ids[1], sa, 6)
    counts = np.bincount(ids[1] * 6 + sa, minlength=500 * 6).reshape(500, 6)
    _, expected = np.unique(counts, axis=0, return_inverse=True)
    assert planes.shape[1] == st_size.size == expected.max() + 1
    assert np.array_equal(profile, expected.reshape(-1))  # the same partition (numbered in row order)
    _, est = query_answers(qi, sa, ids, pool)
    np.testing.assert_array_equal(est, want)


def test_any_match_is_a_nonempty_match(monkeypatch):
    # the pool keeps a query when some matching record has its SA value in V_s, whatever the
    # chunks the candidates are filtered in
    monkeypatch.setattr(metrics._QIMatcher, "CHUNK", 5)
    rng = np.random.default_rng(8)
    n = 1500
    qi = rng.integers(0, 6, (n, 4))
    sa = (qi[:, 0] + qi[:, 1] + rng.integers(0, 2, n)) % 7
    matcher = metrics._QIMatcher(qi)
    hits = 0
    for _ in range(300):
        qd = int(rng.integers(1, 5))
        attrs = np.sort(rng.choice(4, qd, replace=False))
        values = tuple(rng.random(6) < 0.3 for _ in attrs)
        vs = rng.random(7) < 0.3
        idx = matcher.match(attrs, values)
        assert np.array_equal(idx, np.flatnonzero(np.all([v[qi[:, j]] for j, v in zip(attrs, values)], axis=0)))
        found = bool(vs[sa[idx]].any())
        hits += found
        assert matcher.any_match(attrs, values, sa, vs) == found
    assert 0 < hits < 300
