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
