"""LPB library: the lambda rule, the worked example, posteriors against an independent
recomputation, the exact supremum against a dense grid of responses."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from privlab import PrivlabError, lpb


def test_laplace_scale_formula():
    # lambda = Delta / ln(rho2 (1 - rho1) / (rho1 (1 - rho2))), by hand for (0.2, 0.5): ln 4
    assert lpb.laplace_scale(1.0, 0.2, 0.5) == pytest.approx(1 / math.log(4.0))
    assert lpb.laplace_scale(0.0015, 0.05, 0.5) == pytest.approx(0.0015 / math.log(0.5 * 0.95 / (0.05 * 0.5)))
    # differential identifiability is the rho1 = 1/|U| case: Delta / ln((m-1) rho / (1-rho))
    assert lpb.differential_identifiability_scale(2.0, 10, 0.6) == pytest.approx(2.0 / math.log(9 * 0.6 / 0.4))


@given(st.floats(0.001, 0.9), st.floats(0.001, 0.9), st.floats(1e-4, 10))
def test_laplace_scale_monotone(r1, r2, delta):
    assume(r1 < r2 - 1e-6)
    lam = lpb.laplace_scale(delta, r1, r2)
    assert lam > 0
    # more prior mass allowed (rho1 up) needs more noise; a looser posterior bound (rho2 up) less
    assert lpb.laplace_scale(delta, r1 * 0.9, r2) < lam
    assert lpb.laplace_scale(delta, r1, min(r2 * 1.05, 0.99)) <= lam


@pytest.mark.parametrize(
    "args, word",
    [
        ((1.0, 0.5, 0.2), "rho1 must be smaller than rho2"),
        ((1.0, 0.0, 0.5), "rho1 must be in"),
        ((1.0, 0.2, 1.0), "rho2 must be in"),
        ((0.0, 0.2, 0.5), "delta must be in"),
    ],
)
def test_laplace_scale_rejects(args, word):
    with pytest.raises(PrivlabError, match=word):
        lpb.laplace_scale(*args)


def test_worked_example_table1():
    # Recomputed by hand, independently of privlab: D' = {1,2,3}, U = {1,2,3,5,10}, mean, eps = 2,
    # r = 5.041. Means 7/4, 8/4, 9/4, 11/4, 16/4; Delta = 9/4; lambda = 9/8.
    means = np.array([7, 8, 9, 11, 16]) / 4
    lam = 9 / 8
    dens = [math.exp(-abs(5.041 - m) / lam) / (2 * lam) for m in means]
    expected = np.array(dens) / sum(dens)
    got = lpb.posteriors([1, 2, 3, 5, 10], [1, 2, 3], 5.041, 2.0)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # the paper's printed densities for values 1, 3, 5, 10 (value 2 carries a typo)
    np.testing.assert_allclose(np.array(dens)[[0, 2, 3, 4]], [0.0238, 0.0372, 0.0580, 0.1762], atol=5e-5)
    assert got[-1] == pytest.approx(0.5421, abs=5e-5)  # the paper prints 0.5562 (typo propagated)
    assert lpb.sensitivity([1, 2, 3, 5, 10], [1, 2, 3]) == pytest.approx(2.25)


def test_worked_example_table_picks_the_response_the_noise_column_uses():
    printed = {
        "noise": {"values": ["3.291", "3.401", "2.791", "2.291", "1.041"]},
        "density": {"values": ["0.0238", "0.0216", "0.0372", "0.0580", "0.1762"]},
        "posterior": {"values": ["0.0751", "0.0682", "0.1174", "0.1831", "0.5562"]},
    }
    table = lpb.worked_example_table([1, 2, 3, 5, 10], [1, 2, 3], "mean", 2, [5.401, 5.041], printed)
    assert table.response.unique().tolist() == [5.041] and table.noise_matches_per_candidate[0] == "5.401:1;5.041:4"
    assert table.data_set.tolist() == ["1,2,3,1", "1,2,3,2", "1,2,3,3", "1,2,3,5", "1,2,3,10"]
    assert table.posterior.iloc[-1] == pytest.approx(0.5421, abs=5e-5) and table.printed_noise.iloc[1] == 3.401
    np.testing.assert_allclose(table.true_mean, np.array([7, 8, 9, 11, 16]) / 4)
    with pytest.raises(PrivlabError, match="printed must hold Table I's density column"):
        lpb.worked_example_table([1, 2, 3, 5, 10], [1, 2, 3], "mean", 2, [5.041], {"noise": printed["noise"]})


def test_posteriors_prior_and_batch():
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    r = np.array([0.0, 2.5, 7.0])
    post = lpb.posteriors([0, 1, 2, 3], [5.0], r, 1.0, query="sum", prior=prior)
    assert post.shape == (3, 4)
    np.testing.assert_allclose(post.sum(axis=1), 1.0)
    answers = 5.0 + np.arange(4)
    lam = 3.0 / 1.0
    w = prior * np.exp(-np.abs(r[:, None] - answers) / lam)
    np.testing.assert_allclose(post, w / w.sum(axis=1, keepdims=True))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 50), min_size=2, max_size=6, unique=True),
    st.lists(st.integers(0, 50), min_size=1, max_size=5),
    st.floats(0.1, 5.0),
    st.integers(0, 2**31),
)
def test_max_posterior_is_supremum_over_responses(universe, known, eps, seed):
    universe = sorted(universe)
    prior = np.random.default_rng(seed).dirichlet(np.ones(len(universe)))
    sup = lpb.max_posterior(universe, known, eps, prior=prior)
    answers = lpb.query_answers(universe, known)
    grid = np.linspace(answers.min() - 5, answers.max() + 5, 4001)
    grid = np.concatenate([grid, answers])
    seen = lpb.posteriors(universe, known, grid, eps, prior=prior).max(axis=0)
    np.testing.assert_allclose(seen, sup, rtol=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 0.4), st.floats(0.05, 0.5), st.integers(2, 30), st.integers(0, 2**31))
def test_lpb_scale_bounds_posterior(rho1, gap, size, seed):
    """The theorem: with LPB's lambda no candidate whose prior is <= rho1 gets a posterior above rho2."""
    rho2 = min(rho1 + gap, 0.99)
    universe = np.arange(size, dtype=float)
    prior = np.random.default_rng(seed).dirichlet(np.ones(size))
    delta = lpb.sensitivity(universe, [1.0, 2.0])
    eps = delta / lpb.laplace_scale(delta, rho1, rho2)
    sup = lpb.max_posterior(universe, [1.0, 2.0], eps, prior=prior)
    assert np.all(sup[prior <= rho1] <= rho2 + 1e-9)


def test_tightness_two_point_prior():
    # rho1 on the largest value, the rest on the smallest: the supremum is exactly rho2
    rho1, rho2 = 0.05, 0.4
    universe = np.arange(10.0)
    prior = np.zeros(10)
    prior[-1], prior[0] = rho1, 1 - rho1
    eps = lpb.lpb_epsilon(rho1, rho2)
    assert lpb.max_posterior(universe, [3.0], eps, prior=prior)[-1] == pytest.approx(rho2, rel=1e-12)


def test_laplace_quantile_matches_samples():
    q = lpb.laplace_quantile([0.25, 0.5, 0.75], 2.0)
    np.testing.assert_allclose(q, [-2 * math.log(2), 0.0, 2 * math.log(2)])
    x = lpb.laplace_noise(2.0, 200_000, seed=1)
    np.testing.assert_allclose(np.quantile(x, [0.25, 0.5, 0.75]), q, atol=0.03)
    assert x.var() == pytest.approx(lpb.laplace_variance(2.0), rel=0.02)


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"epsilon": 0.0}, "epsilon must be in"),
        ({"prior": [0.5, 0.6, -0.1]}, "prior must be non-negative"),
        ({"prior": [0.5, 0.6, 0.1]}, "prior must sum to 1"),
        ({"prior": [0.5, 0.5]}, "same length"),
        ({"query": "mode"}, "query must be one of"),
    ],
)
def test_posteriors_rejects(kwargs, word):
    args = {"universe": [1, 2, 3], "known": [1.0], "response": 2.0, "epsilon": 1.0, **kwargs}
    with pytest.raises(PrivlabError, match=word):
        lpb.posteriors(**args)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 40),
    st.floats(0.05, 50.0),
    st.integers(0, 2**31),
    st.sampled_from(["mean", "sum", "median"]),
    st.sampled_from([0.0, 1e4, 1e12]),
    st.sampled_from(["dirichlet", "two_point", "uniform"]),
)
def test_largest_posterior_is_the_posteriors_max(size, epsilon, seed, query, far, prior_kind):
    """The breach simulation's O(log |U|) posterior is the full posterior table's maximum, to
    rounding: responses inside the answers, on them, and far beyond both ends; priors with zeros;
    tied answers (the median)."""
    rng = np.random.default_rng(seed)
    universe = np.sort(rng.choice(1000, size=size, replace=False)).astype(float)
    known = rng.integers(0, 1000, size=7).astype(float)
    prior = {
        "dirichlet": rng.dirichlet(np.ones(size)),
        "two_point": np.r_[0.7, np.zeros(size - 2), 0.3],
        "uniform": None,
    }[prior_kind]
    among = rng.random(size) < 0.5
    among[rng.integers(size)] = True
    answers = lpb.query_answers(universe, known, query)
    assume(np.ptp(answers) > 0)  # a median may give every candidate the same answer: no sensitivity
    response = np.concatenate([rng.normal(answers.mean(), answers.std() + 1, size=300), answers, [far, -far]])
    full = lpb.posteriors(universe, known, response, epsilon, query, prior)
    for mask in (among, np.ones(size, bool)):
        got = lpb.largest_posterior(universe, known, response, epsilon, mask, query, prior)
        np.testing.assert_allclose(got, full[:, mask].max(axis=1), rtol=1e-9, atol=1e-300)
        # prepared once for an adversary (the breach simulation's chunks): the same values, batch by batch
        largest = lpb.largest_posterior_given(universe, known, epsilon, mask, query, prior)
        cut = int(rng.integers(0, response.size))
        assert np.array_equal(np.concatenate([largest(response[:cut]), largest(response[cut:])]), got)


def test_largest_posterior_refuses_a_mask_that_is_not_one():
    u, known = np.arange(5.0), np.ones(10)
    for among in (np.zeros(5, bool), np.ones(4, bool), np.arange(5)):
        with pytest.raises(PrivlabError, match="among must be a boolean mask of the 5 candidates"):
            lpb.largest_posterior(u, known, np.array([1.0]), 1.0, among)
