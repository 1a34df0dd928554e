"""The exact chain law against an independent oracle built from the algorithm's u/v formulas:
worked example, Theorems 1-2, the adversary's expected confidence, expected change points."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError
from privlab import multilevel as ml


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
    # the slides' HIV statement: both copies HIV when X is not, (0.6 / 10)^2 < 1%
    assert like[1, 0] ** 2 == pytest.approx(0.0036)


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


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.lists(st.sampled_from([0.1, 0.2, 0.35, 0.5, 0.8, 1.0]), min_size=1, max_size=5))
def test_expected_change_points_vs_the_chain(s, ps):
    # brute force: sum over chain steps of Pr[Y_i != Y_(i-1)] from the exact joint of the distinct p's
    distinct = sorted(set(ps), reverse=True)
    joint = ml.exact_joint(np.full(s, 1 / s), distinct, s)
    total, prev_axis = 0.0, 0
    for i in range(1, len(distinct) + 1):
        keep = tuple(a for a in range(joint.ndim) if a not in (prev_axis, i))
        pair = joint.sum(axis=keep)
        total += 1 - np.trace(pair)
        prev_axis = i
    assert ml.expected_change_points(ps, s) == pytest.approx(total, abs=1e-12)
    assert ml.expected_change_points(ps, s) < math.log(1 / min(ps)) + 1e-12  # Lemma 2


def test_independent_all_other_is_the_slides_enumerated_value():
    assert ml.independent_all_other([0.4, 0.4], 10) == pytest.approx(0.0036, abs=1e-15)
    assert ml.independent_all_other([0.4, 0.4], 10) == pytest.approx(
        ml.independent_pair(10, 0.4, 0.4)["both_given_not"], abs=1e-15
    )
    assert ml.independent_all_other([0.3, 0.1, 0.5], 4) == pytest.approx(0.7 * 0.9 * 0.5 / 4**3)
    with pytest.raises(PrivlabError, match=r"ps\[1\] must be"):
        ml.independent_all_other([0.4, 1.5], 10)
