"""privlab.isolation.distances: ball counts finished leaf by leaf, and the passes' visits, against
brute force (ties at the radius, duplicate rows, clustered data, radius 0)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab.isolation import distances as dist
from privlab.testing import sample_points

_db = sample_points  # uniform, grid (ties, duplicates), clustered, duplicates


def _counts(db, Q, R):
    """The isolation test's own count: rows with ``sqrt(np.sum((db - q) ** 2)) <= R``."""
    return np.array([np.count_nonzero(np.sqrt(np.sum((db - q) ** 2, axis=1)) <= r) for q, r in zip(Q, R)])


def _queries(rng, db, m):
    """Balls of every size: around rows (radius their distance to another row, so that row lies
    on the sphere), at rows with radius 0, and around free points."""
    n, d = db.shape
    a, b = rng.integers(n, size=m), rng.integers(n, size=m)
    near = db[a] + rng.choice([0.0, 1e-3, 0.1], size=(m, 1)) * rng.standard_normal((m, d))
    R = np.sqrt(np.sum((near - db[b]) ** 2, axis=1)) * rng.choice([0.0, 0.05, 0.3, 1.0, 2.5], size=m)
    R[: m // 8] = 0.0
    far = rng.uniform(-1.5, 1.5, (m // 4, d))
    Rf = rng.uniform(0, 1.0, m // 4)
    return np.concatenate([near, far]), np.concatenate([R, Rf])


def _tight(rng, db, m, need):
    """Balls whose ``need``-th nearest row lies exactly on the sphere, and the same balls a hair
    smaller: a single row missed or wrongly counted flips the answer."""
    n, d = db.shape
    Q = db[rng.integers(n, size=m)] + rng.choice([0.0, 0.02, 0.3], size=(m, 1)) * rng.standard_normal((m, d))
    R = np.sqrt([np.partition(np.sum((db - q) ** 2, axis=1), need - 1)[need - 1] for q in Q])
    return np.concatenate([Q, Q]), np.concatenate([R, np.nextafter(R, 0.0)])


def _check(index, db, Q, R_low, R_high, need, status):
    if np.any(status == 1):
        assert np.all(_counts(db, Q[status == 1], R_low[status == 1]) >= need)
    if np.any(status == -1):
        assert np.all(_counts(db, Q[status == -1], R_high[status == -1]) < need)


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(300, 4000),
    d=st.sampled_from([5, 6, 9]),
    need=st.sampled_from([1, 2, 5, 30]),
    kind=st.sampled_from(["uniform", "grid", "clustered", "duplicates"]),
)
def test_ball_status_by_leaves_equals_brute_force(seed, n, d, need, kind):
    rng = np.random.default_rng(seed)
    db = _db(rng, n, d, kind)
    index = dist.DistanceIndex(db, method="brute")
    Q, R = _queries(rng, db, 160)
    Qt, Rt = _tight(rng, db, 60, min(need, n))
    Q, R = np.concatenate([Q, Qt]), np.concatenate([R, Rt])
    verdict = np.where(_counts(db, Q, R) >= need, 1, -1)
    # too few balls to build the leaves for: the scan, then the formula over every row
    assert np.array_equal(index.ball_status(Q, R, R, need), verdict)
    assert index._leaves is None or Q.shape[0] * dist.LEAVES_WORTH >= n
    _ = index.leaves  # built (as by a T-radius or nearest pass): the leaves finish the balls
    status = index.ball_status(Q, R, R, need)
    assert np.all(status[status != 0] == verdict[status != 0])
    # one known radius, the leaves finishing every ball the first chunk leaves (n > its 256
    # columns): every ball settled (the band by the formula itself), as the count says
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dist, "LEAVES_AFTER", 1)
        assert np.array_equal(index.ball_status(Q, R, R, need), verdict)
    # a bracket [R_low, R_high]: never a wrong answer (undecided allowed)
    R_high = R * (1 + rng.choice([0.0, 1e-6, 0.2], size=R.size))
    _check(index, db, Q, R, R_high, need, index.ball_status(Q, R, R_high, need))


@pytest.mark.parametrize("kind", ["uniform", "grid", "clustered", "duplicates"])
def test_ball_status_leaves_prune_and_agree_with_the_full_scan(monkeypatch, kind):
    # the leaves must skip most of them here (d = 6, small balls) and answer as the full scan does
    rng = np.random.default_rng(["uniform", "grid", "clustered", "duplicates"].index(kind))
    n, d, need = 6000, 6, 11
    db = _db(rng, n, d, kind)
    index = dist.DistanceIndex(db, method="brute")
    _ = index.leaves
    Q, R = _queries(rng, db, 400)
    Qt, Rt = _tight(rng, db, 100, need)
    Q, R = np.concatenate([Q, Qt]), np.concatenate([R, Rt])
    pruned, visited = [], []
    real_need, real_visits = dist.DistanceIndex._need, dist.DistanceIndex._visits
    monkeypatch.setattr(
        dist.DistanceIndex, "_need", lambda self, P, U: pruned.append(real_need(self, P, U)) or pruned[-1]
    )
    monkeypatch.setattr(
        dist.DistanceIndex,
        "_visits",
        lambda self, need, m: visited.append(real_visits(self, need, m)) or visited[-1],
    )
    status = index.ball_status(Q, R, R, need)
    counts = _counts(db, Q, R)
    assert np.array_equal(status, np.where(counts >= need, 1, -1))
    assert pruned and all(p is not None for p in pruned)
    pairs = sum(rr.size for v in visited for _, _, rr in v)
    assert pairs == sum(np.count_nonzero(p) for p in pruned) < 0.75 * sum(p.size for p in pruned)
    # the same balls with every leaf refused (as in high dimension): the full scan, same answers
    monkeypatch.setattr(dist, "PRUNE_KEEP", -1.0)
    full = dist.DistanceIndex(db, method="brute")
    _ = full.leaves
    assert np.array_equal(full.ball_status(Q, R, R, need), status)


def test_ball_status_first_look_and_tree_paths_unchanged():
    # columns= (the first look) and the k-d tree tail (low d) never use the leaves' exact answers
    rng = np.random.default_rng(7)
    db = _db(rng, 3000, 3, "grid")
    Q, R = _queries(rng, db, 200)
    for method in ("auto", "brute"):
        index = dist.DistanceIndex(db, method=method)
        _check(index, db, Q, R, R, 4, index.ball_status(Q, R, R, 4, columns=256))
        _check(index, db, Q, R, R, 4, index.ball_status(Q, R, R, 4))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31), m=st.integers(1, 300), n=st.integers(1, 2000), p=st.floats(0.0, 1.0))
def test_visits_list_each_needed_pair_once(seed, m, n, p):
    rng = np.random.default_rng(seed)
    index = dist.DistanceIndex(rng.uniform(-1, 1, (n, 3)), method="brute")
    lv = index.leaves
    need = rng.random((m, lv.count)) < p
    got = np.zeros_like(need)
    for a, b, rr in index._visits(need, m):
        (leaf,) = np.flatnonzero(lv.starts[:-1] == a)
        assert b == lv.starts[leaf + 1] and rr.size and np.all(np.diff(rr) > 0)
        assert not got[rr, leaf].any()
        got[rr, leaf] = True
    assert np.array_equal(got, need)
    seen = np.zeros((m, n), dtype=int)  # need None: every (point, column) once
    for a, b, rr in index._visits(None, m):
        seen[rr, a:b] += 1
    assert np.all(seen == 1)
