"""privlab.isolation.distances: the k-d leaves and the pruned passes against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab.isolation import distances as dist
from privlab.testing import sample_points

_db = sample_points  # uniform, grid (ties, duplicates), clustered, duplicates


@settings(max_examples=6, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 3000),
    d=st.sampled_from([1, 2, 5, 13]),
    leaf=st.sampled_from([1, 7, 256]),
    kind=st.sampled_from(["uniform", "grid", "clustered"]),
)
def test_kd_leaves_partition_and_bound_the_rows(seed, n, d, leaf, kind):
    rng = np.random.default_rng(seed)
    db = _db(rng, n, d, kind)
    lv = dist.KdLeaves(db, leaf)
    assert np.array_equal(np.sort(lv.order), np.arange(n))
    sizes = np.diff(lv.starts)
    assert sizes.min() >= 1 and sizes.max() <= leaf and lv.starts[-1] == n
    assert np.array_equal(lv.leaf[lv.order], np.repeat(np.arange(lv.count), sizes))
    q = rng.uniform(-1.5, 1.5, (20, d))
    assert np.all((lv.leaf_of(q) >= 0) & (lv.leaf_of(q) < lv.count))
    # every row inside its leaf's box; the box's squared distance never above the formula's but for
    # rounding (summed in another order), which the passes absorb with their BOX_REL slack
    assert np.all(lv.low_t[:, lv.leaf].T <= db) and np.all(db <= lv.high_t[:, lv.leaf].T)
    box = lv.box_sq(q, np.arange(lv.count))
    exact = np.array([dist.exact_sq(p, db) for p in q])
    assert np.all(box[:, lv.leaf] * (1 - dist.BOX_REL) <= exact)


CASES = [(mode, kind) for mode in ("pruned", "every_leaf", "sampled") for kind in ("uniform", "grid", "clustered")]


@pytest.mark.parametrize(
    ("mode", "kind"), [CASES[0], *(pytest.param(*case, marks=pytest.mark.slow) for case in CASES[1:])]
)
def test_pruned_passes_equal_brute_force(monkeypatch, mode, kind):
    # each way a pass can go: leaves skipped by their boxes, every leaf visited (high
    # dimension), and blocks of far-apart queries bounded from a sample of the rows
    if mode == "every_leaf":
        monkeypatch.setattr(dist, "PRUNE_KEEP", -1.0)
    if mode == "sampled":
        monkeypatch.setattr(dist, "SPAN", 16)
    pruned = []
    need = dist.DistanceIndex._need
    monkeypatch.setattr(dist.DistanceIndex, "_need", lambda self, P, U: pruned.append(need(self, P, U)) or pruned[-1])
    rng = np.random.default_rng(["uniform", "grid", "clustered"].index(kind))
    n, d, T = 3000, 3 if kind == "grid" else 6, 25
    db = _db(rng, n, d, kind)
    index = dist.DistanceIndex(db, method="brute")
    rows = np.concatenate([rng.choice(n, 200, replace=False), [0, n - 1]])
    expect = np.array([np.partition(np.sum((db - db[i]) ** 2, axis=1), T - 1)[T - 1] for i in rows])
    assert np.array_equal(index.kth_sq(rows, T), expect)
    q = np.concatenate([db[rng.integers(n, size=50)], rng.uniform(-1.2, 1.2, (150, d))])
    low, high, _ = index.nearest(q)
    exact = np.array([np.sum((db - p) ** 2, axis=1).min() for p in q])
    assert np.all(low <= exact) and np.all(exact <= high)
    if mode != "sampled":  # (a sample's looser bound may or may not prune)
        assert all((need is None) == (mode == "every_leaf") for need in pruned)


@pytest.mark.parametrize("kind", ["uniform", "grid"])
def test_pass_finds_several_orders_at_once_as_brute_force(monkeypatch, kind):
    # in low dimension the ball certificates ask for T + 1 beside the T-radii's T: where the tree
    # does not search (n 2^d too large) one pass gathers for the largest order and selects each
    monkeypatch.setattr(dist, "TREE_KTH_MAX_WORK", 0)
    rng = np.random.default_rng(7)
    n, d, T = 3000, 3, 25
    db = _db(rng, n, d, kind)
    index = dist.DistanceIndex(db)
    assert index.tree_ball and not index.tree_kth
    passes = []
    run = dist.DistanceIndex._kth_pass
    monkeypatch.setattr(
        dist.DistanceIndex, "_kth_pass", lambda self, rows, orders: passes.append(orders) or run(self, rows, orders)
    )
    rows = rng.choice(n, 300, replace=False)
    got = index.kth_sq_cached(rows, T)
    assert passes == [[T - 1, T, T + 1]]
    sq = np.array([np.sort(np.sum((db - db[i]) ** 2, axis=1)) for i in rows])
    assert np.array_equal(got, sq[:, T - 1])
    for t in (T - 1, T + 1):  # kept: asked for again, found without another pass
        assert np.array_equal(index.kth_sq_cached(rows, t), sq[:, t - 1])
    assert len(passes) == 1


def test_tree_searches_t_th_neighbours_only_while_n_2_to_the_d_is_small():
    rng = np.random.default_rng(3)
    small, large = rng.uniform(-1, 1, (1000, 4)), rng.uniform(-1, 1, (2 * dist.TREE_KTH_MAX_WORK // 16 + 16, 4))
    assert dist.DistanceIndex(small).tree_kth and not dist.DistanceIndex(large).tree_kth
    assert dist.DistanceIndex(large, method="kdtree").tree_kth  # asked for, always
    assert dist.DistanceIndex(rng.uniform(-1, 1, (10**6 + 1, 1))).tree_kth  # one dimension: the tree, always
    assert not dist.DistanceIndex(small[:, :1].repeat(6, axis=1)).tree_kth  # above TREE_KTH_MAX_D: never


@pytest.mark.parametrize("margin", [0.3, 3.0])
def test_sample_bound_of_a_full_pass_is_certified_or_redone(monkeypatch, margin):
    # where a pass visits every column (high d) a sample bounds the T-th value; a bound below it
    # (margin 0.3: often) must leave the point to the exact formula, never give a wrong value
    monkeypatch.setattr(dist, "PRUNE_KEEP", -1.0)
    monkeypatch.setattr(dist, "KTH_SAMPLE", 600)
    monkeypatch.setattr(dist, "KTH_SAMPLE_MARGIN", margin)
    exact, bounds = [], []
    run_exact, run_bound = dist.DistanceIndex._kth_exact, dist.DistanceIndex._sample_bound
    monkeypatch.setattr(dist.DistanceIndex, "_kth_exact", lambda self, p, T: exact.append(T) or run_exact(self, p, T))
    monkeypatch.setattr(
        dist.DistanceIndex, "_sample_bound", lambda self, *a: bounds.append(run_bound(self, *a)) or bounds[-1]
    )
    rng = np.random.default_rng(11)
    n, d, T = 3000, 8, 25
    db = rng.uniform(-1, 1, (n, d))
    rows = rng.choice(n, 400, replace=False)
    got = dist.DistanceIndex(db, method="brute").kth_sq(rows, T)
    expect = np.array([np.partition(np.sum((db - db[i]) ** 2, axis=1), T - 1)[T - 1] for i in rows])
    assert np.array_equal(got, expect)
    assert bounds and np.all(np.isfinite(bounds[0]))
    if margin < 1:
        assert len(exact) > 200  # most points left to the formula
    else:
        assert len(exact) < 40  # few
