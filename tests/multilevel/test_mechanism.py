"""The mechanisms: uni-pert, independent copies, multi-pert's two stores, Lemma 2, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from privlab import multilevel as ml
from privlab._validation import PrivlabError


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 6),
    st.lists(st.sampled_from([0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.9, 1.0]), min_size=1, max_size=8),
    st.integers(1, 60),
    st.integers(0, 2**31),
)
def test_history_matches_dense_store_and_reconstructs(s, ps, n, seed):
    x = np.random.default_rng(seed).integers(0, s, n)
    hist = ml.MultiLevelPerturber(x, s, seed)
    dense = ml.MultiLevelPerturber(x, s, seed, store="dense")
    copies = {}
    for p in ps:
        a, b = hist.release(p), dense.release(p)
        np.testing.assert_array_equal(a, b)
        if p in copies:  # the same copy again
            np.testing.assert_array_equal(a, copies[p])
        copies[p] = a
    for p, c in copies.items():
        np.testing.assert_array_equal(hist.version(p), c)
    assert hist.released == sorted(set(ps), reverse=True)
    # the history is minimal: one entry per disparate consecutive pair of the chain
    chain = np.stack([x] + [copies[p] for p in hist.released])
    assert hist.change_points() == int((chain[1:] != chain[:-1]).sum())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 30), st.lists(st.integers(0, 30), max_size=12), st.integers(0, 2**31))
def test_history_insertion_places_entries_as_numpy_insert(size, raw_idx, seed):
    from privlab.multilevel.perturbation import _insert_at

    idx = np.array([i % (size + 1) for i in raw_idx], dtype=np.int64)
    rng = np.random.default_rng(seed)
    hp, hy = rng.random(size), rng.integers(0, 9, size).astype(np.int32)
    hp_new, hy_new = rng.random(idx.size), rng.integers(0, 9, idx.size).astype(np.int32)
    got_p, got_y = _insert_at(idx, (hp, hp_new), (hy, hy_new))
    np.testing.assert_array_equal(got_p, np.insert(hp, idx, hp_new))  # equal indices keep their order
    np.testing.assert_array_equal(got_y, np.insert(hy, idx, hy_new))
    assert got_y.dtype == hy.dtype
    # into given buffers (the history's reused working memory): the same arrays, written in place
    into = (np.full(size + idx.size + 3, -1.0), np.full(size + idx.size + 3, -1, dtype=np.int32))
    views = (into[0][: size + idx.size], into[1][: size + idx.size])
    put_p, put_y = _insert_at(idx, (hp, hp_new), (hy, hy_new), out=views)
    assert put_p is views[0] and put_y is views[1]
    np.testing.assert_array_equal(put_p, got_p)
    np.testing.assert_array_equal(put_y, got_y)
    assert (into[0][size + idx.size :] == -1).all()  # nothing written past the merged size


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 60),
    st.floats(0.01, 0.98),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.booleans(),
    st.integers(0, 2**31),
)
def test_perturb_between_is_its_three_way_rule(s, p_r, a, b, top, seed):
    """The kernel against the rule written out: keep y_l below threshold(u), else y_r below
    threshold(u + v), else the uniform value, with (u, v) by whether y_l = y_r (Equations 3, 4)."""
    from privlab.multilevel.perturbation import _perturb_between, split_words, threshold, uv

    p_l = 1.0 if top else p_r + (1 - p_r) * max(b, 0.02)
    p = p_r + (p_l - p_r) * min(max(a, 0.01), 0.99)
    if not p_r < p < p_l:
        return
    rng = np.random.default_rng(seed)
    n = 2000
    y_l = rng.integers(0, s, n).astype(np.int32)
    y_r = np.where(rng.random(n) < 0.5, y_l, rng.integers(0, s, n)).astype(np.int32)
    words = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    words[:4] = [0, 2**32 - 1, 2**64 - 1, 2**63]  # coins and values at their ends
    u_eq, v_eq, u_ne, v_ne = uv(p, p_l, p_r, s)
    coin, value = split_words(words.copy(), s)
    eq = y_l == y_r
    t_u = np.where(eq, threshold(u_eq), threshold(u_ne))
    t_uv = np.where(eq, threshold(u_eq + v_eq), threshold(u_ne + v_ne))
    expected = np.where(coin < t_u, y_l, np.where(coin < t_uv, y_r, value))
    got = _perturb_between(y_l, y_r, p, p_l, p_r, s, words)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == y_l.dtype


def test_long_history_matches_dense_store():
    """Many releases in random order: the history's working buffers are reused and grown."""
    s, n = 7, 3000
    rng = np.random.default_rng(5)
    x = rng.integers(0, s, n)
    hist, dense = ml.MultiLevelPerturber(x, s, 9), ml.MultiLevelPerturber(x, s, 9, store="dense")
    ps = np.round(rng.uniform(0.05, 1.0, 120), 3)
    copies = {}
    for p in ps:
        a = hist.release(float(p))
        np.testing.assert_array_equal(a, dense.release(float(p)))
        copies[float(p)] = a
    for p, c in copies.items():
        np.testing.assert_array_equal(hist.version(p), c)
    chain = np.stack([x] + [copies[p] for p in hist.released])
    assert hist.change_points() == int((chain[1:] != chain[:-1]).sum())


def test_each_release_is_uni_pert_in_distribution():
    s, n = 5, 100_000
    x = np.repeat(np.arange(s), n // s)
    ps = [0.3, 0.1, 0.5, 0.2]
    copies = ml.release_in_order(x, ps, s, seed=11)
    for p, y in zip(ps, copies):
        observed = np.zeros((s, s))
        np.add.at(observed, (x, y), 1)
        expected = ml.uni_pert_matrix(p, s) * (n // s)
        _, pval = stats.chisquare(observed.ravel(), expected.ravel(), ddof=0)
        assert pval > 1e-4, (p, pval)
    # and a wrong law is rejected: copy 0 is not uni-pert at 0.5
    observed = np.zeros((s, s))
    np.add.at(observed, (x, copies[0]), 1)
    assert stats.chisquare(observed.ravel(), (ml.uni_pert_matrix(0.5, s) * (n // s)).ravel())[1] < 1e-10


def test_lemma2_history_size():
    s, n = 50, 20_000
    rng = np.random.default_rng(3)
    c = 0.1
    ps = rng.uniform(c, 1.0, 200)
    perturber = ml.MultiLevelPerturber(rng.integers(0, s, n), s, seed=4)
    for p in ps:
        perturber.release(p)
    per_tuple = perturber.change_points() / n
    assert per_tuple < math.log(1 / ps.min())
    assert per_tuple > 0.5 * (1 - ps.min()) * (1 - 1 / s)  # not trivially empty
    # the measured mean is within 5 s.e. of its exact expectation
    exact = ml.expected_change_points(ps, s)
    assert abs(per_tuple - exact) <= 5 * ml.change_points_se(exact, n)
    dense = perturber.n * perturber.m * 4
    assert perturber.stored_bytes() < dense / 20


def test_uni_pert_and_independent_copies():
    s, n = 8, 200_000
    x = np.full(n, 3)
    y = ml.uni_pert(x, 0.25, s, seed=1)
    assert abs((y == 3).mean() - (0.25 + 0.75 / s)) < 5 * math.sqrt(0.35 * 0.65 / n)
    assert np.array_equal(ml.uni_pert(x, 1.0, s, seed=1), x)
    ind = ml.independent_copies(x, [0.3, 0.3], s, seed=2)
    both = ((ind[0] == 3) & (ind[1] == 3)).mean()
    q = 0.3 + 0.7 / s
    assert abs(both - q * q) < 5 * math.sqrt(q * q / n)


def test_uv_is_a_law_and_reduces_to_the_slides():
    s = 10
    for p, p_l, p_r in [(0.3, 0.5, 0.1), (0.2, 1.0, 0.05), (0.45, 0.7, 0.3)]:
        u_eq, v_eq, u_ne, v_ne = ml.uv(p, p_l, p_r, s)
        assert 0 <= u_eq + v_eq <= 1 and 0 <= u_ne + v_ne <= 1
        assert u_eq == pytest.approx(p / p_l)
    # as p_r -> 0 the y_r branch vanishes: keep y_l with p / p_l (the slides' 50% for 20% after 40%)
    assert ml.uv(0.2, 0.4, 1e-12, s)[0] == pytest.approx(0.5)
    assert ml.uv(0.2, 0.4, 1e-12, s)[1] == pytest.approx(0.0, abs=1e-9)


def test_overhead_rows_and_timings_switch():
    rows = ml.measure_overhead(500, 12, 10, 0.2, 5, 10**9, seed=3)
    assert [r["m"] for r in rows] == [5, 10, 12]
    assert all(r["change_points_per_tuple"] < r["lemma2_bound"] for r in rows)
    assert rows[-1]["naive_bytes"] == 500 * 12 * 4 + 8 * 12
    again = ml.measure_overhead(500, 12, 10, 0.2, 5, 10**9, seed=3, timed=False)
    assert [r["history_bytes"] for r in again] == [r["history_bytes"] for r in rows]
    assert all(math.isnan(r["history_ms_per_release"]) for r in again)
    assert math.isnan(ml.measure_overhead(500, 12, 10, 0.2, 5, 0, seed=3)[0]["naive_ms_per_release"])


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: ml.uni_pert([0, 1], 0.0, 3), "p must be in (0, 1]"),
        (lambda: ml.uni_pert([0, 1], 1.5, 3), "p must be in (0, 1]"),
        (lambda: ml.uni_pert([0, 1], 0.5, 1), "domain_size"),
        (lambda: ml.uni_pert([0, 3], 0.5, 3), "x must hold codes 0..2"),
        (lambda: ml.uni_pert([0, 1.5], 0.5, 3), "x must hold integer codes"),
        (lambda: ml.MultiLevelPerturber([0, 1], 3).release(-0.1), "p must be in (0, 1]"),
        (lambda: ml.MultiLevelPerturber([0, 1], 3).version(0.5), "never released"),
        (lambda: ml.MultiLevelPerturber([0, 1], 3, store="tape"), "store must be one of"),
        (lambda: ml.exact_joint([0.5, -0.1, 0.6], [0.3], 3), "prior must be non-negative"),
        (lambda: ml.exact_joint([0.5, 0.2, 0.2], [0.3], 3), "prior must sum to 1"),
        (lambda: ml.exact_joint([0.5, 0.5], [0.3], 3), "prior must have domain_size"),
        (lambda: ml.independent_copies([0], [0.3, 2.0], 3), "ps[1] must be in (0, 1]"),
        (lambda: ml.expected_confidence_independent([0.3] * 11, 3), "at most 10 copies"),
        (lambda: ml.check_trials(0), "trials must be an integer in [1, inf]"),
        (lambda: ml.check_trials(2.5), "trials must be an integer"),
        (lambda: ml.measure_overhead(10, 5, 3, 1.0, 1, 0, seed=0), "c must be in (0, 1)"),
    ],
)
def test_bad_input_one_clear_error(call, word):
    with pytest.raises(PrivlabError) as info:
        call()
    assert word in str(info.value)
    assert "\n" not in str(info.value)


def test_overhead_table_measures_every_table_size_with_its_own_seed():
    seeds = {500: 3, 800: 4}
    calls = []

    def serial(fn, items):
        calls.append(len(items))
        return [fn(item) for item in items]

    df = ml.overhead_table([500, 800], 12, 10, 0.2, 5, 10**9, seed_sequence=seeds.get, timed=False, map_fn=serial)
    assert calls == [2] and list(df.n) == [500] * 3 + [800] * 3 and list(df.m) == [5, 10, 12] * 2
    alone = ml.measure_overhead(800, 12, 10, 0.2, 5, 10**9, seed=4, timed=False)
    assert list(df.history_bytes[3:]) == [r["history_bytes"] for r in alone]
    assert df.history_ms_per_release.isna().all()
