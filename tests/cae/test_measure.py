"""privlab.cae.measure: the appendix example, brute force over coverings, the exact curve, the
maximising reading and the entropy of one covering."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import cae
from privlab._validation import PrivlabError

X = [1, 3, 8, 9]
P = [0.15, 0.10, 0.70, 0.05]


def brute_force(x, p, eps, pick=min):
    """Minimum (or, with pick=max, maximum) entropy over every partition of the sorted values into
    contiguous groups of span <= eps."""
    n = len(x)
    best = math.inf if pick is min else -math.inf
    for cuts in itertools.product((False, True), repeat=n - 1):
        groups, start = [], 0
        for i, cut in enumerate(cuts, start=1):
            if cut:
                groups.append((start, i))
                start = i
        groups.append((start, n))
        if any(x[b - 1] - x[a] > eps + 1e-12 for a, b in groups):
            continue
        q = [sum(p[a:b]) for a, b in groups]
        best = pick(best, -sum(v * math.log2(v) for v in q if v > 0))
    return best


def test_appendix_example_values():
    printed = {0: 1.319, 1: 1.054, 2: 0.811, 3: 0.811, 4: 0.811, 5: 0.811, 6: 0.610, 7: 0.286, 8: 0.0}
    for eps, h in printed.items():
        assert cae.min_entropy(X, P, eps) == pytest.approx(h, abs=5e-4)
    # H(1) by hand: p1, p2 alone, {x3, x4} merged
    assert cae.min_entropy(X, P, 1) == pytest.approx(
        -(0.15 * math.log2(0.15) + 0.1 * math.log2(0.1) + 0.75 * math.log2(0.75))
    )


def test_appendix_example_curve_and_area():
    eps, h = cae.entropy_curve(X, P)
    np.testing.assert_array_equal(eps, [0, 1, 2, 5, 6, 7, 8])
    assert h[-1] == 0
    H0, area = cae.cae(X, P)
    assert H0 == pytest.approx(1.319035, abs=1e-6)
    # 1*H(0) + 1*H(1) + 4*H(2) + 1*H(6) + 1*H(7), with the exact entropies
    expected = h[0] + h[1] + 4 * h[2] + h[4] + h[5]
    assert area == pytest.approx(expected, rel=1e-12)
    assert area == pytest.approx(1.319035 + 1.054016 + 4 * 0.811278 + 0.609840 + 0.286397, abs=1e-5)


def test_two_salary_examples_of_section_3():
    # (77K, 80K) vs (50K, 107K): same H0 = 1 bit, areas 3 and 57
    assert cae.cae([77, 80], [0.5, 0.5]) == pytest.approx((1.0, 3.0))
    assert cae.cae([50, 107], [0.5, 0.5]) == pytest.approx((1.0, 57.0))


@st.composite
def distributions(draw, max_n=7):
    n = draw(st.integers(1, max_n))
    x = sorted(draw(st.sets(st.integers(-20, 40), min_size=n, max_size=n)))
    w = draw(st.lists(st.integers(0, 10), min_size=n, max_size=n))
    if sum(w) == 0:
        w[0] = 1
    p = np.asarray(w, dtype=float) / sum(w)
    return np.asarray(x, dtype=float), p


@settings(max_examples=60, deadline=None)
@given(distributions(), st.integers(0, 60))
def test_min_entropy_equals_brute_force(xp, eps):
    x, p = xp
    assert cae.min_entropy(x, p, eps) == pytest.approx(brute_force(list(x), list(p), eps), abs=1e-12)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(distributions())
def test_curve_consistent_with_min_entropy(xp):
    x, p = xp
    eps, h = cae.entropy_curve(x, p)
    assert eps[0] == 0 and eps[-1] == pytest.approx(x[-1] - x[0]) and h[-1] == 0
    assert np.all(np.diff(h) <= 1e-12)  # non-increasing
    for k, e in enumerate(eps):
        assert cae.min_entropy(x, p, e) == pytest.approx(h[k], abs=1e-12)
        if k + 1 < eps.size:  # constant between breakpoints
            mid = 0.5 * (e + eps[k + 1])
            assert cae.min_entropy(x, p, mid) == pytest.approx(h[k], abs=1e-12)
            assert brute_force(list(x), list(p), eps[k + 1] - 1e-6) == pytest.approx(h[k], abs=1e-12)
    # area by a fine Riemann sum
    H0, area = cae.cae(x, p)
    grid = np.linspace(0, eps[-1], 2001)[:-1] + eps[-1] / 4000 if eps[-1] > 0 else np.array([])
    if grid.size:
        riemann = np.mean([h[np.searchsorted(eps, g, side="right") - 1] for g in grid]) * eps[-1]
        assert area == pytest.approx(riemann, abs=eps[-1] * H0 / 1000 + 1e-9)
    assert H0 == pytest.approx(-sum(v * math.log2(v) for v in p if v > 0), abs=1e-12)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 9))
def test_batched_equals_single_with_zeros(seed, m):
    rng = np.random.default_rng(seed)
    grid = np.sort(rng.choice(100, size=m, replace=False)).astype(float)
    P = rng.dirichlet(np.ones(m), size=6)
    P[rng.random(P.shape) < 0.4] = 0.0  # zero probabilities allowed
    P[P.sum(1) == 0, 0] = 1.0
    P /= P.sum(axis=1, keepdims=True)
    h0, area = cae.cae_batch(grid, P)
    eps, H = cae.entropy_curves(grid, P)
    for b in range(P.shape[0]):
        support = P[b] > 0
        ref = cae.cae(grid[support], P[b][support])  # zeros dropped: same measure
        assert (h0[b], area[b]) == pytest.approx(ref, abs=1e-9)
        for k, e in enumerate(eps):
            assert H[b, k] == pytest.approx(cae.min_entropy(grid, P[b], e), abs=1e-12)


@pytest.mark.parametrize(
    "values, probs, eps, match",
    [
        ([1, 1, 2], [0.2, 0.3, 0.5], 0, "strictly increasing"),
        ([1, 3, 2], [0.2, 0.3, 0.5], 0, "strictly increasing"),
        ([1, np.inf], [0.5, 0.5], 0, "finite"),
        ([1, 2], [-0.5, 1.5], 0, "non-negative"),
        ([1, 2], [0.5, 0.6], 0, "sum to 1"),
        ([1, 2], [0.5, 0.5], -1, "eps must be in"),
        ([1, 2, 3], [0.5, 0.5], 0, "same length"),
    ],
)
def test_bad_input(values, probs, eps, match):
    with pytest.raises(PrivlabError, match=match):
        cae.min_entropy(values, probs, eps)


def test_bad_batch_input():
    with pytest.raises(PrivlabError, match="columns"):
        cae.cae_batch([1, 2, 3], np.ones((2, 2)) / 2)
    with pytest.raises(PrivlabError, match="sum to 1"):
        cae.cae_batch([1, 2], [[0.5, 0.4]])


@settings(max_examples=40, deadline=None)
@given(distributions(), st.integers(0, 60))
def test_max_entropy_equals_brute_force_and_h0(xp, eps):
    x, p = xp
    top = cae.max_entropy(x, p, eps)
    assert top == pytest.approx(brute_force(list(x), list(p), eps, pick=max), abs=1e-12)
    assert top == pytest.approx(cae.min_entropy(x, p, 0), abs=1e-12)  # no merging is always allowed


def test_max_entropy_separates_the_readings_of_the_example():
    # "maximised" would keep H at H0 = 1.319 for every eps; the printed H(1) = 1.054 is the minimum
    assert cae.max_entropy(X, P, 1) == pytest.approx(1.319035, abs=1e-6)
    assert cae.min_entropy(X, P, 1) == pytest.approx(1.054016, abs=1e-6)


def test_covering_entropy_of_the_appendix_alternative():
    h, span = cae.covering_entropy(X, P, [[1], [3, 8], [9]])
    expected = -(0.15 * math.log2(0.15) + 0.8 * math.log2(0.8) + 0.05 * math.log2(0.05))
    assert h == pytest.approx(expected) and h == pytest.approx(0.884, abs=5e-4) and span == 5
    assert cae.covering_entropy(X, P, [[1, 3], [8, 9]]) == pytest.approx((cae.min_entropy(X, P, 2), 2))
    with pytest.raises(PrivlabError, match="contiguous"):
        cae.covering_entropy(X, P, [[1, 8], [3, 9]])
    with pytest.raises(PrivlabError, match="contiguous"):
        cae.covering_entropy(X, P, [[1], [3]])
