"""Utility measures (privlab.isolation.utility) and the generated data sets registered in privlab.datasets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privlab.datasets as ds
from privlab import isolation as iso
from privlab._validation import PrivlabError
from privlab.context import RunContext
from privlab.datasets import simulated


def test_kmeans_recovers_separated_clusters():
    rng = np.random.default_rng(0)
    centres = np.array([[-0.6, -0.6], [0.6, 0.6], [-0.6, 0.6]])
    X = np.vstack([c + 0.02 * rng.standard_normal((100, 2)) for c in centres])
    got = iso.kmeans(X, 3, seed=1)
    assert np.allclose(np.sort(got, axis=0), np.sort(centres, axis=0), atol=0.02)
    # weights: one heavy point pulls a 1-means centre onto itself
    w = np.array([1.0, 1.0, 1e6])
    assert np.allclose(iso.kmeans(np.array([[0.0], [1.0], [5.0]]), 1, weights=w)[0], 5.0, atol=1e-4)


def test_box_fraction_histogram_exact():
    db = np.array([[0.1, 0.1], [0.6, 0.6], [0.2, 0.7], [0.9, 0.2], [-0.5, -0.5]])
    h = iso.build_histogram(db, 3)
    # the whole box holds everything; the lower-left quadrant holds the one point spread over it
    assert iso.box_fraction_histogram(h, [-1, -1], [1, 1]) == pytest.approx(1.0)
    assert iso.box_fraction_histogram(h, [-1, -1], [-0.5, 0]) == pytest.approx(0.5 / 5)


def test_scale_to_cube_keeps_order_and_box():
    X = np.column_stack([np.repeat([1.0, 2.0, 5.0], 50), np.arange(150.0)])
    Y = iso.scale_to_cube(X, seed=0)
    assert Y.min() >= -1 and Y.max() <= 1
    order = np.argsort(X[:, 0], kind="stable")
    assert np.all(np.diff(Y[order[49:51], 0]) > 0)  # distinct values never swap order
    assert np.unique(Y[:, 0]).size == 150  # jitter removed the ties
    ranks = iso.scale_to_cube(X, seed=0, scaling="rank")
    assert np.allclose(np.sort(ranks[:, 1]), -1 + 2 * np.arange(150) / 149)


def test_noise_mean_error_exact_and_sampled():
    source = np.zeros((4, 2))
    released = np.array([[1.0, 0.0], [1.0, 0.0], [-1.0, 2.0], [3.0, 2.0]])  # column means 1, 1
    measured, exact = iso.noise_mean_error(released, source, np.array([3.0, 4.0, 0.0, 0.0]))
    assert measured == pytest.approx(1.0) and exact == pytest.approx(5.0 / 4)
    # with many coordinates the measured RMS of the mean's noise approaches its exact value
    rng = np.random.default_rng(1)
    sd = rng.uniform(0.5, 2.0, size=50)
    noisy = rng.standard_normal((50, 4000)) * sd[:, None]
    measured, exact = iso.noise_mean_error(noisy, np.zeros_like(noisy), sd)
    assert measured == pytest.approx(exact, rel=0.05)


@settings(max_examples=20, deadline=None)
@given(d=st.integers(1, 6), box_dims=st.integers(1, 8), seed=st.integers(0, 2**31))
def test_random_boxes_restrict_box_dims_attributes(d, box_dims, seed):
    for lo, hi in iso.random_boxes(d, 10, box_dims, seed):
        restricted = (lo > -1) | (hi < 1)
        assert restricted.sum() <= min(box_dims, d) and np.all(lo <= hi) and np.all(lo >= -1)


def test_utility_rows_histogram_of_singletons_is_nearly_exact():
    seeds = {name: i for i, name in enumerate(iso.SEED_NAMES)}
    db, _ = iso.gaussian_mixture(500, 2, 3, k=3)
    sans = [("histogram", iso.RecursiveHistogram()), ("perturbation", iso.Perturbation(scale=0.0))]
    rows = iso.utility_rows(db, 2, sans, seeds, k=3, n_boxes=50, box_dims=2, n_init=2)
    hist, pert = rows
    assert (hist["sanitizer"], hist["d"], hist["n"], hist["T"]) == ("histogram", 2, 500, 2)
    assert hist["mean_error_rms"] < 0.01 and hist["box_query_mae"] < 0.02 and np.isnan(hist["noise_mean_error_rms"])
    # scale 0: the release is the data itself
    assert pert["mean_error_rms"] == pytest.approx(0, abs=1e-15) and pert["box_query_mae"] == 0
    assert pert["kmeans_cost_ratio"] == pytest.approx(1.0, abs=0.05)
    assert (
        iso.mixture_utility(500, 2, 2, sans, seeds | {"db": 3}, k=3, sigma=0.15, n_boxes=50, box_dims=2, n_init=2)
        == rows
    )


# --- the generated data sets of privlab.datasets ---------------------------------------------
def test_generators_are_seeded_and_in_the_box():
    a, b = iso.uniform_cube(100, 3, 5), ds.simulated.uniform_cube(100, 3, 5)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (100, 3) and np.all(np.abs(a) <= 1)
    assert not np.array_equal(a, iso.uniform_cube(100, 3, 6))
    pts, labels = iso.gaussian_mixture(400, 4, 1, k=3, sigma=2.0)
    assert pts.shape == (400, 4) and np.all(np.abs(pts) <= 1) and set(labels) <= {0, 1, 2}


def test_describe_labels_the_generated_data():
    assert ds.GENERATED == ("uniform_cube", "gaussian_mixture", "discrete_law")
    cube = ds.describe("uniform_cube", n=10_000, d=4)
    assert cube.startswith("uniform cube, synthetic: 10,000 points uniform on the hypercube [-1, 1]^4")
    mix = ds.describe("gaussian_mixture", n=3000, d=5, k=5, sigma=0.15)
    assert "synthetic" in mix and "5 spherical Gaussians (s.d. 0.15" in mix and "[-1, 1]^5" in mix
    assert "[0, 2]^2" in ds.describe("uniform_cube", n=1, d=2, low=0, high=2)
    assert ds.is_synthetic("uniform_cube", n=5, d=2)
    assert simulated.parameters("gaussian_mixture") == ("n", "d", "k", "sigma", "low", "high")
    # generated data is drawn per trial, not loaded: its names are not among the loadable ones
    assert {"adult", "census", "pums"} <= set(ds.NAMES) and not set(ds.GENERATED) & set(ds.NAMES)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n": 5}, r"uniform_cube is described by n, d; missing \['d'\]"),
        ({"n": 5, "d": 2, "seed": 1}, "'seed' is not a parameter of generated dataset uniform_cube"),
        ({"n": 0, "d": 2}, r"n must be an integer in \[1, inf\]"),
        ({"n": 5, "d": 2, "low": 1, "high": 0}, "high must be greater than low"),
    ],
)
def test_describe_refuses_bad_parameters(params, message):
    with pytest.raises(PrivlabError, match=message):
        ds.describe("uniform_cube", **params)
    with pytest.raises(PrivlabError, match=r"dataset must be one of adult, .*pums, uniform_cube, gaussian_mixture"):
        ds.describe("cube")


def test_describe_data_records_the_label_once():
    ctx = RunContext(0)
    label = ctx.describe_data({"name": "uniform_cube", "n": 10, "d": 2})
    ctx.describe_data({"name": "uniform_cube", "n": 10, "d": 2})
    assert ctx.data_used == [label] and "synthetic" in label


# --- the fast k-means and box counts equal their plain formulas, bit for bit --------------------
def _nearest_formula(X, centres):
    d2 = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    return d2.min(axis=1), d2.argmin(axis=1)


def _kmeans_formula(X, k, seed, weights=None, n_init=5, max_iter=100):
    """Weighted Lloyd's k-means as first written (n x k x d distances, X[lab == j] per cluster)."""
    w = np.ones(X.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    rng = np.random.default_rng(seed)
    best, best_cost = X[:k], np.inf
    for _ in range(n_init):
        centres = X[[rng.choice(X.shape[0], p=w / w.sum())]]
        for _ in range(1, k):
            d2 = _nearest_formula(X, centres)[0] * w
            p = d2 / d2.sum() if d2.sum() > 0 else w / w.sum()
            centres = np.vstack([centres, X[rng.choice(X.shape[0], p=p)]])
        for _ in range(max_iter):
            _, lab = _nearest_formula(X, centres)
            new = centres.copy()
            for j in range(k):
                sel = lab == j
                if w[sel].sum() > 0:
                    new[j] = np.average(X[sel], axis=0, weights=w[sel])
            if np.allclose(new, centres, rtol=0, atol=1e-12):
                break
            centres = new
        cost = float((_nearest_formula(X, centres)[0] * w).sum())
        if cost < best_cost:
            best, best_cost = centres, cost
    return best


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 300),
    d=st.integers(1, 12),
    k=st.sampled_from([1, 2, 3, 5, 8, 70]),
    kind=st.sampled_from(["grid", "scaled", "near"]),
)
def test_nearest_centre_equals_the_formula(seed, n, d, k, kind):
    # a grid makes exact ties between centres (the first index wins), nearly equal centres
    # make the product's ranking uncertain, any scale from 1e-3 to 1e3
    from privlab.isolation.utility import _nearest_sq

    rng = np.random.default_rng(seed)
    if kind == "grid":
        X, C = rng.integers(-3, 4, (n, d)).astype(float), rng.integers(-3, 4, (k, d)).astype(float)
    else:
        X = rng.standard_normal((n, d)) * 10 ** rng.uniform(-3, 3)
        C = X[rng.integers(n, size=k)] + (1e-7 if kind == "near" else 0.3) * rng.standard_normal((k, d))
    dist, label = _nearest_sq(np.ascontiguousarray(X), C)
    expect_dist, expect_label = _nearest_formula(X, C)
    assert np.array_equal(dist, expect_dist) and np.array_equal(label, expect_label)


@pytest.mark.parametrize(
    "n, d, k, weighted", [(400, 2, 3, False), (400, 2, 3, True), (3000, 5, 5, False), (800, 1, 4, True)]
)
def test_kmeans_equals_its_formula(n, d, k, weighted):
    X, _ = iso.gaussian_mixture(n, d, 2, k=k, sigma=0.15)
    w = np.random.default_rng(1).integers(1, 6, n).astype(float) if weighted else None
    got = iso.kmeans(X, k, 7, weights=w, n_init=3)
    assert np.array_equal(got, _kmeans_formula(X, k, 7, weights=w, n_init=3))
    cost = float((_nearest_formula(X, got)[0] * (np.ones(n) if w is None else w)).sum())
    assert iso.kmeans_cost(X, got, w) == cost


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), d=st.integers(1, 6), box_dims=st.integers(1, 6))
def test_box_fraction_points_equals_the_formula(seed, d, box_dims):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.3, 1.3, (500, d))  # perturbed points leave the cube
    X[:5] = 1.0  # on the top face
    rows = iso.column_range(X)
    for lo, hi in iso.random_boxes(d, 20, box_dims, rng):
        expect = float(np.all((X >= lo) & (X < hi), axis=1).mean())
        assert iso.box_fraction_points(X, lo, hi) == expect == iso.box_fraction_points(X, lo, hi, col_range=rows)


def test_discrete_law_draws_and_names_the_laws_of_x():
    law = np.array([0.5, 0.25, 0.25])
    x = simulated.discrete_law(40_000, law, 3)
    assert set(np.unique(x)) == {1, 2, 3} and abs((x == 1).mean() - 0.5) < 0.02
    assert ds.describe("discrete_law", kind="uniform", s=50).startswith("uniform law on 1..50, synthetic")
    g = ds.describe("discrete_law", kind="gaussian", s=50, mean=25.5, sd=8)
    assert "Gaussian law on 1..50 (mean 25.5, s.d. 8" in g and ds.is_synthetic("discrete_law", kind="uniform", s=2)
    with pytest.raises(PrivlabError, match="gaussian discrete_law is described by kind, s, mean, sd"):
        ds.describe("discrete_law", kind="gaussian", s=50, mean=1)
    with pytest.raises(PrivlabError, match="probs must be a law"):
        simulated.discrete_law(5, [0.5, 0.6])
