"""Bucket settings, exact validity, TwoSize / MultiSize / the ILP: the paper's worked examples
and brute-force oracles (hypothesis)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privlab._validation import PrivlabError
from privlab.bucketization import (
    BucketSetting,
    bucketize,
    check_bucketization,
    fprivacy,
    is_valid,
    multi_size,
    naive_check,
    optimal,
    optimal_two_size,
    pair_list,
    record_partition,
    two_size,
)
from privlab.bucketization.settings import caps
from privlab.bucketization.validity import max_flow_allocation, upper_bounds

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def instances(draw, max_m=5, max_n=40):
    m = draw(st.integers(1, max_m))
    o = np.array(draw(st.lists(st.integers(0, max_n // m + 3), min_size=m, max_size=m)))
    if o.sum() == 0:
        o[0] = 1
    n = o.sum()
    slack = np.array(draw(st.lists(st.floats(0, 1), min_size=m, max_size=m)))
    F = np.minimum(1.0, o / n + slack * (1 - o / n))
    F = np.maximum(F, 0.05)
    return o, F


def sa_from_counts(o):
    return np.repeat(np.arange(len(o)), o)


def brute_two_size(o, F, M):
    """Minimum loss over every (S1, S2, b1, b2) with S1 < S2 <= M and one-size settings."""
    n = int(o.sum())
    best = None
    for s1 in range(1, M + 1):
        for s2 in range(s1, M + 1):
            for b1 in range(n // s1 + 1):
                rest = n - b1 * s1
                if s2 == s1:
                    if rest:
                        continue
                    b2 = 0
                elif rest % s2:
                    continue
                else:
                    b2 = rest // s2
                if b1 + b2 == 0:
                    continue
                s = BucketSetting([s1, s2], [b1, b2]) if s2 != s1 else BucketSetting([s1], [b1])
                if is_valid(o, F, s) and (best is None or s.loss < best):
                    best = s.loss
    return best


# --- worked examples ----------------------------------------------------------------------
def test_example_5_23_pair_list():
    b1, b2, K, step1, step2 = pair_list(28, 2, 4)
    pairs = [(b1 - k * step1, b2 + k * step2) for k in range(K + 1)]
    assert pairs == [(14, 0), (12, 1), (10, 2), (8, 3), (6, 4), (4, 5), (2, 6), (0, 7)]


def test_example_4_20_record_partition():
    # The seed lost Example 4.20's numbers; this instance has its shape: n = 50, three groups
    # of values, T_1 = min(o_i, u_i1) overfills b_1 S_1 by 6 records that must move.
    o = np.array([1, 1, 3, 3, 3, 3, 9, 9, 9, 9])
    F = np.array([0.5] * 2 + [0.25] * 4 + [0.2] * 4)
    s = BucketSetting([5, 10], [8, 1])
    assert is_valid(o, F, s)
    u = upper_bounds(o, F, s)
    assert np.minimum(o, u[:, 0]).sum() - 40 == 6
    x = record_partition(o, F, s)
    assert x[:, 0].sum() == 40 and x[:, 1].sum() == 10
    assert np.all(x <= u) and np.all(x.sum(axis=1) == o)
    sa = sa_from_counts(o)
    rep = check_bucketization(sa, bucketize(sa, F, s, seed=3), F)
    assert rep.ok and rep.size_histogram == {5: 8, 10: 1}


def test_example_5_32_naive_accepts_exact_rejects():
    # Same structure as Example 5.32 (the seed lost its numbers): the values z can only go to
    # the largest size, so both smaller sizes must be filled by value a, which has too few
    # records for both together although enough for either alone.
    o = np.array([2, 1, 1, 1, 1, 1, 1])
    F = np.array([1.0] + [0.25] * 6)
    s = BucketSetting([1, 2, 4], [2, 1, 1])
    assert naive_check(o, F, s)
    assert not is_valid(o, F, s)
    u = upper_bounds(o, F, s)
    assert max_flow_allocation(o, u, np.array([2, 2, 4]))[0] < 8
    with pytest.raises(PrivlabError):
        record_partition(o, F, s)


def test_fprivacy_values():
    F = fprivacy([0.5, 0.01, 0.2], theta=4, offset=0.02)
    assert np.allclose(F, [1.0, 0.06, 0.82])


def test_setting_loss_mse():
    s = BucketSetting([4, 2, 2], [1, 3, 0])
    assert s.sizes == (2, 4) and s.counts == (3, 1)
    assert s.n == 10 and s.loss == 3 * 1 + 1 * 3 and s.mse() == pytest.approx(0.6)


def test_one_size_lemma_4_13():
    o = np.array([4, 4, 4])
    F = np.array([1 / 3] * 3)
    assert is_valid(o, F, BucketSetting([3], [4]))
    assert not is_valid(o, F, BucketSetting([2], [6]))  # floor(2/3) = 0


# --- brute-force oracles -------------------------------------------------------------------
@FAST
@given(instances(), st.integers(1, 8))
def test_prunings_agree_with_brute_force(inst, M):
    o, F = inst
    try:
        results = [two_size(o, F, M, p) for p in ("none", "loss", "full")]
    except PrivlabError:  # M below the smallest admissible size
        return
    assert results[0] == results[1] == results[2]
    brute = brute_two_size(o, F, M)
    assert (results[0] is None) == (brute is None)
    if brute is not None:
        assert results[0].loss == brute
        assert is_valid(o, F, results[0])


@FAST
@given(instances(max_m=4, max_n=30), st.lists(st.tuples(st.integers(1, 8), st.integers(0, 4)), min_size=1, max_size=5))
def test_exact_validity_subsets_vs_max_flow_vs_checker(inst, pairs):
    o, F = inst
    n = int(o.sum())
    total = sum(a * b for a, b in pairs)
    if total > n or sum(b for _, b in pairs) == 0:
        return
    s = BucketSetting([p[0] for p in pairs] + [1], [p[1] for p in pairs] + [n - total])
    demand = np.asarray(s.sizes) * np.asarray(s.counts)
    flow = max_flow_allocation(o, upper_bounds(o, F, s), demand)[0]
    assert is_valid(o, F, s) == (flow == n)
    assert naive_check(o, F, s) or not is_valid(o, F, s)  # naive is necessary
    if is_valid(o, F, s):
        sa = sa_from_counts(o)
        bid = bucketize(sa, F, s, seed=1)
        rep = check_bucketization(sa, bid, F)
        assert rep.ok
        assert rep.size_histogram == dict(zip(s.sizes, s.counts))


@settings(max_examples=12, deadline=None)
@given(instances(max_m=4, max_n=40), st.integers(3, 10))
def test_optimal_le_multi_le_two(inst, M):
    o, F = inst
    try:
        two = two_size(o, F, M)
    except PrivlabError:
        return
    multi = multi_size(o, F, M)
    opt = optimal(o, F, M, time_limit=20)
    opt2 = optimal_two_size(o, F, M, time_limit=20)
    if two is None:
        assert opt.status == "infeasible" or opt.setting is not None
        return
    assert opt.status == "optimal" and opt2.status == "optimal"
    assert opt.loss <= multi.loss <= two.loss
    assert opt2.loss == two.loss
    assert is_valid(o, F, multi)
    sa = sa_from_counts(o)
    assert check_bucketization(sa, bucketize(sa, F, multi, seed=2), F).ok


def test_real_table_all_methods_pass_checker():
    rng = np.random.default_rng(0)
    p = np.geomspace(0.2, 0.01, 12)
    sa = rng.choice(12, 5000, p=p / p.sum())
    o = np.bincount(sa, minlength=12)
    F = fprivacy(o / o.sum(), 4)
    for s in (two_size(o, F, 30), multi_size(o, F, 30)):
        assert check_bucketization(sa, bucketize(sa, F, s, seed=5), F).ok
    # a bucketization that is not valid is caught by the checker
    bad = np.zeros_like(sa)
    bad[:2] = [1, 2]
    bad_sa = sa.copy()
    bad_sa[bad == 0] = 0
    assert not check_bucketization(bad_sa, bad, F).ok


def test_timeout_is_reported():
    rng = np.random.default_rng(1)
    o = rng.integers(50, 400, 60)
    F = fprivacy(o / o.sum(), 3)
    res = optimal(o, F, 50, time_limit=0.01)
    assert res.status in ("timed out", "optimal")
    if res.status == "timed out":
        assert res.setting is None and res.loss is None


# --- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "counts,F,M,match",
    [
        ([5, 5], [0.4, 1.0], 50, "x0"),
        ([5, 5], [0.6, 0.6], 1, "max_size must be >= 2"),
        ([0, 0], [0.5, 0.5], 50, "non-empty"),
        ([5, 5], [0.6, 1.2], 50, "F must be in"),
        ([5, 5, 5], [0.6, 0.6], 50, "same length"),
    ],
)
def test_bad_input(counts, F, M, match):
    with pytest.raises(PrivlabError, match=match):
        two_size(counts, F, M)


def _first_valid_by_pair(o, c1, c2, s1, s2, b1_0, b2_0, step1, step2, k_hi):
    """Theorem 4.17 pair by pair, in Python integers (the scans' oracle)."""
    for k in range(k_hi + 1):
        b1, b2 = b1_0 - k * step1, b2_0 + k * step2
        u1 = [int(c) * b1 for c in c1]
        u2 = [int(c) * b2 for c in c2]
        pc = all(int(x) <= a + b for x, a, b in zip(o, u1, u2))
        fc1 = sum(min(int(x), a) for x, a in zip(o, u1)) >= b1 * s1
        fc2 = sum(min(int(x), b) for x, b in zip(o, u2)) >= b2 * s2
        if pc and fc1 and fc2:
            return k
    return None


@FAST
@given(
    st.lists(st.integers(0, 60), min_size=1, max_size=6),
    st.lists(st.integers(0, 9), min_size=12, max_size=12),
    st.integers(1, 6),
    st.integers(1, 6),
    st.sampled_from([1, 10**9]),
    st.integers(1, 8),
    st.booleans(),
)
def test_first_valid_scan_matches_pair_by_pair(counts, caps_, s1, ds, scale, chunk, stop_early):
    """Every chunk width and growth, int32 and int64 (scale 10^9) paths: the first valid pair of
    the list is the one Theorem 4.17 gives pair by pair."""
    ts = importlib.import_module("privlab.bucketization.two_size")  # the module (the package exports its function)
    o = np.array(counts, dtype=np.int64) * scale
    m = o.size
    c1, c2 = np.array(caps_[:m], dtype=np.int64), np.array(caps_[6 : 6 + m], dtype=np.int64)
    s2 = s1 + ds
    head = ts._pair_list(int(o.sum()), s1, s2)
    if head is None or not o.sum():
        return
    b1_0, b2_0, K, step1, step2 = head
    want = _first_valid_by_pair(o, c1, c2, s1, s2, b1_0, b2_0, step1, step2, min(K, 400))
    old = (ts._CHUNK_ELEMENTS, ts._FIRST_WIDTH)
    try:
        ts._CHUNK_ELEMENTS, ts._FIRST_WIDTH = chunk * m, max(1, chunk // 3)
        got = ts._first_valid_scan(o, c1, c2, s1, s2, b1_0, b2_0, step1, step2, min(K, 400), stop_early)
    finally:
        ts._CHUNK_ELEMENTS, ts._FIRST_WIDTH = old
    assert got == want


@FAST
@given(instances(max_m=6, max_n=80), st.integers(1, 12))
def test_fill_limit_is_the_largest_fillable_b(inst, M):
    """b*(S), for every size at once and for one: the largest b with sum_i min(o_i, b c_i) >= b S,
    found by trying every b."""
    ts = importlib.import_module("privlab.bucketization.two_size")
    o, F = inst
    sizes = np.arange(1, M + 1)
    c_all = caps(F, sizes)
    n = int(o.sum())
    want = [
        max(b for b in range(n // S + 1) if np.minimum(o, b * c_all[:, j]).sum() >= b * S) for j, S in enumerate(sizes)
    ]
    assert ts.fill_limits(o, c_all, sizes).tolist() == want
    assert [ts.fill_limit(o, c_all[:, j], int(S)) for j, S in enumerate(sizes)] == want
