"""Tests of privlab.sdc: sampling, query-restriction bounds (structural vs LP), noise, intruder models."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import sdc
from privlab._validation import PrivlabError


def _frame(n, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"salary": rng.integers(1, 26, n) * 10, "sex": rng.integers(1, 3, n), "edu": rng.integers(1, 5, n)}
    )


def test_sample_size_and_without_replacement():
    df = _frame(200)
    s = sdc.sample(df, 0.1, 3)
    assert len(s) == 20 and s.index.is_unique and s.index.is_monotonic_increasing
    pd.testing.assert_frame_equal(s, df.loc[s.index])
    pd.testing.assert_frame_equal(sdc.sample(df, 0.1, 3), s)  # seeded
    assert len(sdc.sample(df, 1.0, 0)) == 200


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.05, 0.2, 0.5, 1.0]))
def test_sampling_probs_sum_to_one_and_match_formula(seed, fraction):
    df = _frame(60, seed)
    dom = sdc.attribute_domain(df.salary)
    codes = sdc.encode(df.salary, dom)
    groups, G = sdc.group_ids(df, ["sex", "edu"])
    released = sdc.sample(df, fraction, seed)
    in_sample = df.index.isin(released.index)
    P = sdc.sampling_probs(groups, codes, in_sample, G, dom.size)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    g = int(groups[0])  # recompute one group's p_d by the (typo-corrected) formula
    members = groups == g
    Mo, Ms = members.sum(), (members & in_sample).sum()
    f = np.array([np.sum(members & in_sample & (codes == d)) for d in range(dom.size)])
    expected = (f / Ms if Ms else 0.0) * (Ms / Mo) + (Mo - Ms) / Mo / dom.size
    np.testing.assert_allclose(P[g], expected, atol=1e-15)


def test_attribute_domain_and_noise_max():
    np.testing.assert_array_equal(sdc.attribute_domain(pd.Series([10, 250, 40, 20])), np.arange(10, 251, 10))
    assert [sdc.noise_max(k, 25) for k in (0, 10, 20, 25, 50, 100)] == [0, 2, 4, 6, 12, 24]
    assert sdc.noise_max(10, 69) == 6  # 6.8 -> nearest even 6


def test_binomial_noise_stays_in_domain_and_bounded():
    df = _frame(3000, 1)
    noisy = sdc.add_binomial_noise(df, 50, 7)
    dom = sdc.attribute_domain(df.salary)
    M = sdc.noise_max(50, dom.size)
    c, c2 = sdc.encode(df.salary, dom), sdc.encode(noisy.salary, dom)
    assert np.abs(c2 - c).max() <= M // 2
    lo, hi = sdc.noise_intervals(c2, M, dom.size)
    assert np.all((lo <= c) & (c <= hi))  # the intruder's interval always holds the truth
    # interior records: noise is Binomial(M, 1/2) - M/2, mean 0 and variance M/4
    interior = (c >= M // 2) & (c <= dom.size - 1 - M // 2)
    d = (c2 - c)[interior]
    assert abs(d.mean()) < 5 * np.sqrt(M / 4 / d.size)
    assert d.var() == pytest.approx(M / 4, rel=0.15)
    assert (sdc.add_binomial_noise(df, 0, 7) == df).all().all()


def _brute_bounds(values, Q, order, d_min, d_max, domain):
    """Bounds by enumerating every assignment of domain values (tiny n only)."""
    n = len(values)
    l, k = Q // 2, 2 * n // Q - 1
    answers = [sum(values[order[p]] for p in range(t * l, t * l + 2 * l)) for t in range(k)]
    L, U = np.full(n, np.inf), np.full(n, -np.inf)
    for r in itertools.product(domain, repeat=n):
        if all(sum(r[order[p]] for p in range(t * l, t * l + 2 * l)) == answers[t] for t in range(k)):
            L, U = np.minimum(L, r), np.maximum(U, r)
    return L, U


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 30), st.sampled_from([2, 4, 6, 8]))
def test_structural_bounds_equal_lp(seed, n, Q):
    if Q > n:
        Q = 2
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 6, n).astype(float)
    qr = sdc.QueryRestriction(values, Q, seed, domain=np.arange(6))
    L, U = qr.bounds()
    L2, U2 = qr.bounds(method="lp")
    np.testing.assert_allclose(L, L2, atol=1e-7)
    np.testing.assert_allclose(U, U2, atol=1e-7)
    assert np.all((L <= values) & (values <= U))
    assert qr.n_queries == 2 * n // Q - 1
    uncovered = qr.order[(qr.n_queries + 1) * (Q // 2) :]
    assert np.all(L[uncovered] == 0) and np.all(U[uncovered] == 5)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(4, 2), (5, 2), (6, 2), (4, 4), (6, 4)]))
def test_structural_bounds_equal_integer_brute_force(seed, nq):
    n, Q = nq
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, n)
    qr = sdc.QueryRestriction(values, Q, seed, domain=np.arange(4))
    L, U = qr.bounds()
    bL, bU = _brute_bounds(list(values), Q, qr.order, 0, 3, range(4))
    # LP bounds relax integrality; on these tiny systems the vertices are integral
    np.testing.assert_allclose(L, bL)
    np.testing.assert_allclose(U, bU)


def test_interval_probs_algorithm_2():
    groups = np.array([0, 0, 1])
    lo, hi = np.array([0, 2, 1]), np.array([1, 2, 3])
    P = sdc.interval_probs(groups, lo, hi, 2, 4)
    np.testing.assert_allclose(P, [[0.25, 0.25, 0.5, 0], [0, 1 / 3, 1 / 3, 1 / 3]])
    np.testing.assert_allclose(P.sum(1), 1)


def test_group_ids():
    df = pd.DataFrame({"a": [1, 2, 1, 2], "b": ["x", "x", "x", "y"]})
    g, G = sdc.group_ids(df, ["a", "b"])
    assert G == 3 and g[0] == g[2] and len({g[1], g[3], g[0]}) == 3


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: sdc.sample(_frame(10), 0, 1), "fraction must be in"),
        (lambda: sdc.sample(_frame(10), 1.5, 1), "fraction must be in"),
        (lambda: sdc.QueryRestriction(np.arange(10.0), 3, 0), "even"),
        (lambda: sdc.QueryRestriction(np.arange(10.0), 0, 0), "set_size"),
        (lambda: sdc.QueryRestriction(np.arange(10.0), 12, 0), "set_size"),
        (lambda: sdc.add_binomial_noise(_frame(10), 101, 0), "level must be in"),
        (lambda: sdc.add_binomial_noise(_frame(10), -1, 0), "level must be in"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(PrivlabError, match=match):
        call()
