"""privlab.isolation: hand-made isolation cases, brute-force oracles, the histogram, sanitizers, checkers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import isolation as iso
from privlab._validation import PrivlabError


# --- isolates on hand-made configurations ------------------------------------------------
def _line_db(others):
    """x = origin at row 0, other points on the first axis at the given coordinates."""
    return np.array([[0.0, 0.0]] + [[v, 0.0] for v in others])


def test_isolates_just_inside_and_just_outside():
    # q at 1 on the axis: delta = 1, c = 2 -> ball of radius 2 around q = [-1, 3]
    q = np.array([1.0, 0.0])
    inside = _line_db([2.999])  # one other point inside the ball
    outside = _line_db([3.001])  # just outside
    assert not iso.isolates(q, 0, inside, c=2, T=1)  # 1 other point, T = 1: not isolated
    assert iso.isolates(q, 0, outside, c=2, T=1)
    # on the boundary counts as inside (closed ball)
    assert not iso.isolates(q, 0, _line_db([3.0]), c=2, T=1)
    # T = 2 tolerates one other point
    assert iso.isolates(q, 0, inside, c=2, T=2)


def test_isolates_does_not_count_x_itself():
    q = np.array([0.5, 0.0])
    db = _line_db([10.0])  # x alone near q
    assert iso.isolates(q, 0, db, c=1, T=1)
    # a duplicate of x at another row does count
    dup = np.vstack([db, [[0.0, 0.0]]])
    assert not iso.isolates(q, 0, dup, c=1, T=1)
    assert iso.isolates(q, 0, dup, c=1, T=2)


@pytest.mark.parametrize("method", ["kdtree", "brute"])
def test_isolation_rate_hand_made(method):
    db = np.array([[0.0, 0.0], [3.001, 0.0], [2.999, 0.0], [10.0, 0.0]])
    q = np.array([[1.0, 0.0], [1.0, 0.0]])
    # target 0: others within 2 of q: 2.999 only -> 1 point; target 3 (x at 10): delta 9, ball holds all 3
    mask = iso.isolation_mask(q, [0, 3], db, c=2, T=2, method=method)
    assert mask.tolist() == [True, False]
    assert iso.isolation_rate(q, [0, 3], db, 2, 2, method=method) == 0.5


# --- isolation_rate equals brute force ---------------------------------------------------
def _oracle_masks(q, targets, db, c, T):
    """`isolates` for each (query, target) pair, and for each query and every row (anyone)."""
    n = db.shape[0]
    targeted = np.array([iso.isolates(q[i], targets[i], db, c, T) for i in range(len(q))])
    anyone = np.array([any(iso.isolates(q[i], j, db, c, T) for j in range(n)) for i in range(len(q))])
    return targeted, anyone


def _fast_oracle(q, targets, db, c, T):
    """The same as `_oracle_masks`, with the formula of `isolates` vectorised over the rows
    (the nearest row decides *anyone*): for the larger databases below."""
    t = np.empty(len(q), dtype=bool)
    a = np.empty(len(q), dtype=bool)
    for i in range(len(q)):
        dist = np.sqrt(np.sum((db - q[i]) ** 2, axis=1))
        delta = np.sqrt(np.sum((q[i] - db[targets[i]]) ** 2))
        inside = dist <= c * delta
        inside[targets[i]] = False
        t[i] = inside.sum() < T
        y = np.argmin(dist)
        inside = dist <= c * dist[y]
        inside[y] = False
        a[i] = inside.sum() < T
    return t, a


def _queries(rng, db, m, grid):
    """Half the queries near their target (both outcomes occur), half anywhere; on a grid every
    coordinate is an integer, so that points sit exactly on the radius (ties)."""
    n, d = db.shape
    targets = rng.integers(n, size=m)
    if grid:
        return rng.integers(-3, 4, (m, d)).astype(float), targets
    near = db[targets] + 0.05 * rng.standard_normal((m, d))
    return np.where(rng.uniform(size=(m, 1)) < 0.5, near, rng.uniform(-1, 1, (m, d))), targets


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(3, 40),
    d=st.integers(1, 12),
    c=st.one_of(st.floats(1, 6), st.sampled_from([1.0, 2.0, 3.0])),
    T=st.integers(1, 8),
    grid=st.booleans(),
)
def test_isolation_rate_matches_brute_force(seed, n, d, c, T, grid):
    rng = np.random.default_rng(seed)
    T = min(T, n)
    db = rng.integers(-3, 4, (n, d)).astype(float) if grid else rng.uniform(-1, 1, (n, d))
    q, targets = _queries(rng, db, 40, grid)
    expect, anyone = _oracle_masks(q, targets, db, c, T)
    for method in ("kdtree", "brute", "auto"):
        assert np.array_equal(iso.isolation_mask(q, targets, db, c, T, method=method), expect)
        assert np.array_equal(iso.isolates_anyone_mask(q, db, c, T, method=method), anyone)
        # both masks from one shared pass agree with the oracles; m_any asks the first ones only
        both_t, both_a = iso.isolation_masks(q, targets, db, c, T, method=method, m_any=10)
        assert np.array_equal(both_t, expect) and np.array_equal(both_a, anyone[:10])
    assert iso.isolation_rate(q, targets, db, c, T) == pytest.approx(expect.mean())


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(2100, 6000),
    d=st.sampled_from([1, 2, 3, 4, 6, 9, 14, 20]),
    T=st.integers(1, 60),
    kind=st.sampled_from(["grid", "uniform", "sorted", "far"]),
)
def test_blocked_isolation_test_equals_the_formula_at_scale(seed, n, d, T, kind):
    # n > 2048: the blocked products with early exit, the k-d tree tails and the targets'
    # certificates all run; a grid puts many rows exactly on a radius (ties), sorted rows make
    # the first chunks unrepresentative, and data far from the origin (offset 1e4) stress the
    # error bound of the products
    rng = np.random.default_rng(seed)
    if kind == "grid":
        db = rng.integers(-3, 4, (n, d)).astype(float)
    else:
        db = rng.uniform(-1, 1, (n, d))
    if kind == "sorted":
        db = db[np.argsort(db[:, 0])]
    q, targets = _queries(rng, db, 120, kind == "grid")
    if kind == "far":
        db, q = db * 10 + 1e4, q * 10 + 1e4
    c = 2.0 if kind == "grid" else float(rng.uniform(1, 5))
    expect, anyone = _fast_oracle(q, targets, db, c, T)
    for method in ("kdtree", "brute", "auto"):
        t, a = iso.isolation_masks(q, targets, db, c, T, method=method)
        assert np.array_equal(t, expect) and np.array_equal(a, anyone)


def test_isolation_test_with_float64_products_for_huge_coordinates():
    # coordinates near 1e16 would overflow float32 squared norms: the index switches to float64
    rng = np.random.default_rng(3)
    db = rng.integers(-3, 4, (2500, 3)).astype(float) * 1e16
    q, targets = rng.integers(-3, 4, (60, 3)).astype(float) * 1e16, rng.integers(2500, size=60)
    assert iso.distance_index(db).dtype is np.float64
    expect, anyone = _fast_oracle(q, targets, db, 2.0, 5)
    t, a = iso.isolation_masks(q, targets, db, 2.0, 5, method="brute")
    assert np.array_equal(t, expect) and np.array_equal(a, anyone)


def test_isolation_masks_reuses_an_index_of_the_same_db_only():
    db = iso.uniform_cube(300, 3, 1)
    q, targets = iso.uniform_cube(20, 3, 2), np.arange(20)
    index = iso.distance_index(db)
    assert np.array_equal(
        iso.isolation_mask(q, targets, db, 4, 5, index=index), iso.isolation_mask(q, targets, db, 4, 5)
    )
    with pytest.raises(PrivlabError, match="index must be distance_index"):
        iso.isolation_mask(q, targets, db + 1, 4, 5, index=index)
    # T >= n: nobody has T other points around
    assert iso.isolation_mask(q, targets, db, 4, 300).all()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 50), d=st.integers(1, 12), T=st.integers(1, 6))
def test_t_radius_brute_force(seed, n, d, T):
    rng = np.random.default_rng(seed)
    T = min(T, n)
    db = rng.uniform(-1, 1, (n, d))
    # the isolation test's own distances, exactly
    expect = [np.sort(np.sqrt(np.sum((db - db[i]) ** 2, axis=1)))[T - 1] for i in range(n)]
    assert np.array_equal(iso.t_radius(db, T), expect)
    if T == 1:
        assert np.all(iso.t_radius(db, T) == 0)


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(2100, 5000),
    d=st.sampled_from([2, 4, 5, 7, 9, 12, 20]),
    T=st.integers(1, 40),
    order=st.sampled_from(["random", "sorted", "reversed"]),
    dups=st.integers(0, 60),
    grid=st.booleans(),
)
def test_t_radius_blocked_brute_force(seed, n, d, T, order, dups, grid):
    # n > 2048: the k-d tree (low d) and the blocked pass with its bounding prefix (high d);
    # sorted rows make the prefix a poor sample (a loose bound), duplicates and a grid create
    # ties at the T-th value
    rng = np.random.default_rng(seed)
    db = rng.integers(-2, 3, (n, d)).astype(float) if grid else rng.uniform(-1, 1, (n, d))
    db[:dups] = db[n - 1]
    if order != "random":
        db = db[np.argsort(db[:, 0], kind="stable")[:: 1 if order == "sorted" else -1]]
    idx = np.concatenate([rng.integers(n, size=30), [n - 1, 0, 0]])
    expect = [np.sort(np.sqrt(np.sum((db - db[i]) ** 2, axis=1)))[T - 1] for i in idx]
    for method in ("kdtree", "brute"):
        got = iso.t_radius(db, T, idx, index=iso.distance_index(db, method=method))
        assert np.array_equal(got, expect)


# --- recursive histogram -----------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 150), d=st.integers(1, 6), T=st.integers(2, 30))
def test_recursive_histogram_leaves(seed, n, d, T):
    rng = np.random.default_rng(seed)
    T = min(T, n)
    db = rng.uniform(-1, 1, (n, d))
    db[0] = 1.0  # a point on the top corner of the box belongs to the last cell
    leaves = iso.recursive_histogram(db, T)
    assert all(0 < leaf.count < T for leaf in leaves)
    assert sum(leaf.count for leaf in leaves) == n
    # brute force: each point lies in exactly one leaf box, and the counts agree
    inside = np.array(
        [
            [
                np.all((p >= leaf.low) & ((p < leaf.low + leaf.side) | ((p == 1.0) & (leaf.low + leaf.side == 1.0))))
                for leaf in leaves
            ]
            for p in db
        ]
    )
    assert np.all(inside.sum(axis=1) == 1)
    assert inside.sum(axis=0).tolist() == [leaf.count for leaf in leaves]
    # sides are the box side halved
    depths = [np.log2(2.0 / leaf.side) for leaf in leaves]
    assert all(k == round(k) and k >= 1 for k in depths)
    chk = iso.check_histogram_release(db, leaves, T)
    assert chk == {"counts_match": True, "partition": True, "below_T": True, "parents_full": True, "total": n}


def test_histogram_worked_example():
    # T = 3 in d = 2 (the talk's picture): 4 points in one quadrant split once more
    db = np.array([[0.1, 0.1], [0.6, 0.6], [0.2, 0.7], [0.9, 0.2], [-0.5, -0.5]])
    leaves = iso.recursive_histogram(db, T=3)
    got = sorted((tuple(leaf.low), leaf.side, leaf.count) for leaf in leaves)
    assert got == [
        ((-1.0, -1.0), 1.0, 1),
        ((0.0, 0.0), 0.5, 1),
        ((0.0, 0.5), 0.5, 1),
        ((0.5, 0.0), 0.5, 1),
        ((0.5, 0.5), 0.5, 1),
    ]


def test_checker_catches_a_wrong_release():
    db = iso.uniform_cube(200, 3, 1)
    leaves = iso.recursive_histogram(db, 10)
    bad = list(leaves)
    bad[0] = iso.Leaf(bad[0].low, bad[0].side, bad[0].count + 1)
    assert not iso.check_histogram_release(db, bad, 10)["counts_match"]
    assert not iso.check_histogram_release(db, leaves[1:], 10)["partition"]


def test_locate_matches_point_leaf_and_empty_cells():
    db = iso.uniform_cube(500, 3, 2)
    h = iso.build_histogram(db, 8)
    low, side, leaf = h.locate(db)
    assert np.array_equal(leaf, h.point_leaf)
    q = iso.uniform_cube(300, 3, 3)
    low, side, leaf = h.locate(q)
    assert np.all((q >= low) & (q <= low + side[:, None]))
    empty = leaf < 0  # empty cells hold no db point
    for lo, s in zip(low[empty], side[empty]):
        assert not np.any(np.all((db >= lo) & (db < lo + s), axis=1))


def test_histogram_cells_by_integer_keys_and_deep_cells():
    """Cells are found through one integer key per row where d * depth bits fit (ordered as
    np.unique orders rows), by rows beyond: a near-duplicate cluster 44 levels deep in d = 3
    (132 bits) is located like any cell, and its leaves order like the rest."""
    from privlab.isolation.histogram import _cells

    g = np.random.default_rng(0).integers(0, 2**5, size=(4000, 4))
    cells, inverse, counts = _cells(g, 5)
    ref, ref_inverse, ref_counts = np.unique(g, axis=0, return_inverse=True, return_counts=True)
    assert np.array_equal(cells, ref) and np.array_equal(inverse, ref_inverse.reshape(-1))
    assert np.array_equal(counts, ref_counts) and np.array_equal(cells[inverse], g)
    db = iso.uniform_cube(3000, 3, 1)
    db[:80] = np.clip(db[0] + 1e-13 * np.random.default_rng(2).standard_normal((80, 3)), -1, 1)
    h = iso.build_histogram(db, 10)
    assert h.leaf_depth.max() * 3 > 62  # the deep leaves need the row path
    assert np.array_equal(h.locate(db)[2], h.point_leaf)
    assert np.array_equal(np.bincount(h.point_leaf, minlength=h.leaf_count.size), h.leaf_count)
    for k in np.unique(h.leaf_depth):  # each depth's leaves in lexicographic order
        rows = h.leaf_grid[h.leaf_depth == k]
        assert np.array_equal(rows, np.unique(rows, axis=0))


# --- sanitizers ---------------------------------------------------------------------------
def test_bad_sanitizer_leaves_d_minus_1_attributes_exact():
    db = iso.uniform_cube(300, 6, 4)
    out = iso.bad_sanitizer(db, 2, seed=5)
    exact = iso.exact_columns(db, out)
    assert exact.tolist() == [True, True, False, True, True, True]
    assert out[:, 2].min() >= db[:, 2].min() and out[:, 2].max() <= db[:, 2].max()
    # the noise is independent of the hidden values
    assert abs(np.corrcoef(out[:, 2], db[:, 2])[0, 1]) < 0.2


def test_perturb_noise_length_exact_law():
    db = iso.uniform_cube(2000, 5, 6)
    idx = np.arange(400)
    rel = iso.perturb(db, 10, scale=2.0, seed=7, indices=idx)
    ratio = np.linalg.norm(rel - db[idx], axis=1) / iso.t_radius(db, 10, idx)
    exact = iso.expected_noise_length_ratio(5, 2.0)
    assert abs(ratio.mean() - exact) < 4 * ratio.std() / np.sqrt(idx.size)
    # T = 1: the T-radius is 0 and the release is the point itself, which isolates it
    same = iso.perturb(db, 1, seed=1, indices=idx)
    assert np.array_equal(same, db[idx])
    assert iso.isolation_rate(same, idx, db, 4, 1) == 1.0


def test_histogram_plus_perturbation_halves():
    db = iso.uniform_cube(1001, 3, 8)
    rel = iso.histogram_plus_perturbation(db, 10, seed=9)
    assert np.array_equal(np.sort(np.concatenate([rel.hist_index, rel.perturbed_index])), np.arange(1001))
    assert rel.histogram.leaf_count.sum() == 500
    _, side, _ = rel.histogram.locate(db[rel.perturbed_index])
    np.testing.assert_array_equal(rel.noise_sd, side)
    # the noise length in units of the cell diameter side * sqrt(d) follows scale * chi_d / sqrt(d)
    big = iso.uniform_cube(20000, 4, 10)
    rel2 = iso.histogram_plus_perturbation(big, 10, seed=11, scale=2.0)
    _, side2, _ = rel2.histogram.locate(big[rel2.perturbed_index])
    ratio = np.linalg.norm(rel2.perturbed - big[rel2.perturbed_index], axis=1) / (side2 * np.sqrt(4))
    exact = iso.expected_noise_length_ratio(4, 2.0)
    assert abs(ratio.mean() - exact) < 4 * ratio.std() / np.sqrt(ratio.size)
    again = iso.histogram_plus_perturbation(db, 10, seed=9)
    np.testing.assert_array_equal(again.perturbed, rel.perturbed)


# --- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, word",
    [
        (lambda db: iso.isolates([0, 0], 0, db, 0.5, 2), "c"),
        (lambda db: iso.isolates([0, 0], 0, db, 2, 0), "T"),
        (lambda db: iso.isolates([0, 0], 0, db, 2, 11), "T"),
        (lambda db: iso.isolates([0, 0, 0], 0, db, 2, 2), "q"),
        (lambda db: iso.isolation_rate([[0, 0, 0]], [0], db, 2, 2), "queries"),
        (lambda db: iso.isolation_rate([[0, 0]], [10], db, 2, 2), "targets"),
        (lambda db: iso.recursive_histogram(db * 3, 2), "box"),
        (lambda db: iso.recursive_histogram(db, 1), "T"),
        (lambda db: iso.recursive_histogram(np.zeros((10, 2)), 2), "identical"),
        (lambda db: iso.bad_sanitizer(db, 5), "hidden_attribute"),
    ],
)
def test_bad_input_one_clear_error(call, word):
    db = iso.uniform_cube(10, 2, 0)
    with pytest.raises(PrivlabError) as err:
        call(db)
    assert word in str(err.value) and "\n" not in str(err.value)


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 4, 8, 20])
def test_paper_scale_isolation_test_equals_the_formula(d):
    # n = 100,000 (the paper profile): the natural adversaries' outputs of every sanitizer,
    # 400 of each, and their T-radii, against the formula of `isolates` over all rows
    n, T, c, m = 100_000, 100, 4.0, 400
    db = iso.uniform_cube(n, d, 11)
    targets = np.random.default_rng(12).integers(n, size=m)
    seeds = {name: np.random.SeedSequence(13, spawn_key=(i,)) for i, name in enumerate(iso.SEED_NAMES)}
    index = iso.distance_index(db)
    outputs = [iso.uniform_cube(m, d, 14)]
    for san in (iso.RecursiveHistogram(), iso.Perturbation(), iso.HistogramPlusPerturbation()):
        outputs += [out.queries for out in san.with_setting(T=T, index=index).attack(db, targets, seeds).outputs]
    for q in outputs:
        expect, anyone = _fast_oracle(q, targets, db, c, T)
        t, a = iso.isolation_masks(q, targets, db, c, T, index=index)
        assert np.array_equal(t, expect) and np.array_equal(a, anyone)
    rows = targets[:60]
    expect = [np.partition(np.sqrt(np.sum((db - db[i]) ** 2, axis=1)), T - 1)[T - 1] for i in rows]
    assert np.array_equal(iso.t_radius(db, T, rows), expect)
