"""Tests of privlab.multilevel: worked example, Theorems 1-2 exactly, Lemma 2, MC vs exact."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from privlab import multilevel as ml
from privlab._validation import PrivlabError


# ---------------------------------------------------------------------------------------
# an independent implementation of the algorithm's law, from the spec's u/v formulas
# ---------------------------------------------------------------------------------------
def algorithm_joint(prior, ps, s):
    """Joint law of (X, copies in request order) obtained by following multi-pert step by step."""
    joint = np.asarray(prior, dtype=float)
    released = []  # (p, axis)
    for p in ps:
        same = [a for q, a in released if q == p]
        k = joint.ndim
        if same:  # the same copy again: Y_new = Y_same
            eye = np.eye(s).reshape([s if d in (same[0], k) else 1 for d in range(k + 1)])
            joint = joint[..., None] * eye
            released.append((p, k))
            continue
        above = [(q, a) for q, a in released if q > p]
        below = [(q, a) for q, a in released if q < p]
        p_l, ax_l = min(above) if above else (1.0, 0)
        if not below:
            cond = np.full((s, s), (1 - p / p_l) / s) + (p / p_l) * np.eye(s)  # [y_l, y]
            shape = [1] * (k + 1)
            shape[ax_l], shape[k] = s, s
            joint = joint[..., None] * cond.reshape(shape)
        else:
            p_r, ax_r = max(below)
            u1 = p / p_l
            v1 = (1 - p / p_l) * (1 - (1 - p_r / p) / ((s - 1) * p_r / p_l + 1))
            u2 = (p - p_r) / (p_l - p_r)
            v2 = p_r * (p_l - p) / (p * (p_l - p_r))
            cond = np.zeros((s, s, s))  # [y_l, y_r, y]
            for yl, yr, y in itertools.product(range(s), repeat=3):
                u, v = (u1, v1) if yl == yr else (u2, v2)
                cond[yl, yr, y] = u * (y == yl) + v * (y == yr) + (1 - u - v) / s
            if ax_l > ax_r:  # reshape lays dimensions out in axis order
                cond = cond.transpose(1, 0, 2)
            shape = [1] * (k + 1)
            shape[ax_l], shape[ax_r], shape[k] = s, s, s
            joint = joint[..., None] * cond.reshape(shape)
        released.append((p, k))
    return joint


ORDERS = [[0.3, 0.1, 0.5], [0.5, 0.3, 0.1], [0.1, 0.5, 0.3], [0.4, 0.2], [0.2, 0.6, 0.4, 0.9], [0.7, 0.2, 0.45, 0.3]]


def test_worked_example_slides():
    s, x = 10, 0
    # the slides' three cases
    alice_keeps = 0.4 + 0.6 / 10
    by_hand = alice_keeps * 0.5 + alice_keeps * 0.5 * 0.1 + (1 - alice_keeps) * 0.5 * 0.1
    assert by_hand == pytest.approx(0.28)
    law = ml.copy_given_x(np.full(s, 1 / s), [0.4, 0.2], s, 1)
    assert law[x, x] == pytest.approx(0.28, abs=1e-12)
    assert algorithm_joint(np.full(s, 1 / s), [0.4, 0.2], s).sum(axis=1)[x, x] * s == pytest.approx(0.28)
    # through the mechanism
    y = ml.release_in_order(np.zeros(400_000, int), [0.4, 0.2], s, seed=5)[1]
    assert abs((y == x).mean() - 0.28) < 5 * math.sqrt(0.28 * 0.72 / y.size)


@pytest.mark.parametrize("ps", ORDERS)
@pytest.mark.parametrize("s", [2, 3, 4])
def test_algorithm_law_is_the_chain_law(ps, s):
    prior = np.random.default_rng(s).dirichlet(np.ones(s))
    np.testing.assert_allclose(algorithm_joint(prior, ps, s), ml.exact_joint(prior, ps, s), atol=1e-13)


@pytest.mark.parametrize("ps", ORDERS)
def test_theorem2_every_copy_is_uni_pert(ps):
    s = 4
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    for i, p in enumerate(ps):
        np.testing.assert_allclose(ml.copy_given_x(prior, ps, s, i), ml.uni_pert_matrix(p, s), atol=1e-13)


@pytest.mark.parametrize("ps", ORDERS)
def test_theorem1_collusion_useless(ps):
    s = 3
    prior = np.array([0.5, 0.3, 0.2])
    joint = algorithm_joint(prior, ps, s)
    for r in range(1, len(ps) + 1):
        for subset in itertools.combinations(range(len(ps)), r):
            best = max(subset, key=lambda i: ps[i])
            for ys in itertools.product(range(s), repeat=r):
                idx = [slice(None)] + [slice(None)] * len(ps)
                for i, y in zip(subset, ys):
                    idx[1 + i] = y
                post = joint[tuple(idx)].reshape(s, -1).sum(axis=1)
                post = post / post.sum()
                np.testing.assert_allclose(
                    post, ml.best_copy_posterior(prior, ps[best], s, ys[subset.index(best)]), atol=1e-12
                )
                np.testing.assert_allclose(post, ml.posterior(prior, ps, s, dict(zip(subset, ys))), atol=1e-12)


def test_independent_copies_do_leak():
    s, ps = 10, [0.4, 0.4]
    # Pr[X = y | both copies = y] exceeds what one copy allows
    like = ml.uni_pert_matrix(0.4, s)
    prior = np.full(s, 1 / s)
    one = prior * like[:, 0] / (prior * like[:, 0]).sum()
    two = prior * like[:, 0] ** 2 / (prior * like[:, 0] ** 2).sum()
    assert two[0] > one[0] + 0.2
    assert ml.expected_confidence_independent(ps, s) > ml.expected_confidence_single(0.4, s)


@pytest.mark.parametrize("ps", [[0.3], [0.3, 0.1], [0.3, 0.1, 0.5], [0.6, 0.6, 0.2]])
def test_expected_confidence_vs_brute_force(ps):
    s = 4
    like = [ml.uni_pert_matrix(p, s) for p in ps]
    total = 0.0
    for ys in itertools.product(range(s), repeat=len(ps)):
        joint = np.full(s, 1 / s)
        for m, y in zip(like, ys):
            joint = joint * m[:, y]
        total += (joint**2).sum() / joint.sum()
    assert ml.expected_confidence_independent(ps, s) == pytest.approx(total, rel=1e-12)


# ---------------------------------------------------------------------------------------
# the mechanism
# ---------------------------------------------------------------------------------------
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


def test_alias_table_is_exact_and_sampler_fits():
    prior = np.random.default_rng(0).dirichlet(np.ones(7))
    thresholds, alias = ml.alias_table(prior)
    accept = thresholds.astype(float) / 2**32
    implied = accept.copy()
    np.add.at(implied, alias, 1 - accept)
    np.testing.assert_allclose(implied / prior.size, prior, atol=1e-9)
    draws = ml.sample_prior(prior, 200_000, seed=1)
    _, pval = stats.chisquare(np.bincount(draws, minlength=7), prior * draws.size)
    assert pval > 1e-4


def test_mc_chunk_agrees_with_exact():
    s, ps = 4, [0.3, 0.1, 0.5]
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    counts = ml.collusion_counts_chunk(prior, ps, s, 300_000, seed=9)
    assert counts.sum() == 300_000
    expected = ml.exact_joint(prior, ps, s).ravel() * counts.sum()
    _, pval = stats.chisquare(counts, expected)
    assert pval > 1e-4
    # a different order has a different joint: the test has power
    wrong = ml.exact_joint(prior, [0.3, 0.5, 0.1], s).ravel() * counts.sum()
    assert stats.chisquare(counts, wrong)[1] < 1e-10
    same = ml.collusion_counts_chunk(prior, ps, s, 300_000, seed=9, store="history")
    np.testing.assert_array_equal(counts, ml.collusion_counts_chunk(prior, ps, s, 300_000, seed=9, store="dense"))
    np.testing.assert_array_equal(counts, same)


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------
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
        (lambda: ml.exact_joint([0.5, -0.1, 0.6], [0.3], 3), "prior must be non-negative"),
        (lambda: ml.exact_joint([0.5, 0.2, 0.2], [0.3], 3), "prior must sum to 1"),
        (lambda: ml.exact_joint([0.5, 0.5], [0.3], 3), "prior must have domain_size"),
        (lambda: ml.independent_copies([0], [0.3, 2.0], 3), "ps[1] must be in (0, 1]"),
        (lambda: ml.check_trials(0), "trials must be an integer in [1, inf]"),
        (lambda: ml.check_trials(2.5), "trials must be an integer"),
    ],
)
def test_bad_input_one_clear_error(call, word):
    with pytest.raises(PrivlabError) as info:
        call()
    assert word in str(info.value)
    assert "\n" not in str(info.value)
