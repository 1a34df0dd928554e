"""The count-query workload: true answers and Anatomy's estimator against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from privlab.bucketization import (
    add_fake_values,
    make_query_pool,
    pool_relative_errors,
    query_answers,
    relative_errors,
)


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
