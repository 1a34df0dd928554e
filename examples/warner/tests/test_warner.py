"""Warner's library against worked examples and its exact law, and the paper through privlab's
conformance harness (every experiment, 1 and 2 workers)."""

from __future__ import annotations

import numpy as np
import pytest
from privlab_warner import estimate, exact_variance, simulate_surveys, variance, yes_probability
from scipy import stats

from privlab import PrivlabError
from privlab.testing import conformance


def test_estimate_inverts_the_yes_probability():
    # lambda_hat equal to its expectation gives pi back, for any design p != 1/2
    for pi in (0.0, 0.1, 0.3, 0.75, 1.0):
        for p in (0.0, 0.2, 0.4, 0.6, 0.9, 1.0):
            n = 1000
            yes = round(n * yes_probability(pi, p))
            assert float(estimate(yes, n, p)) == pytest.approx(pi, abs=1 / (n * abs(2 * p - 1)))
    assert float(estimate(70, 100, 0.7)) == pytest.approx(1.0)  # (0.7 - 0.3) / 0.4


def test_variance_worked_example():
    # pi = 0.3, n = 100, p = 0.7: 0.21 / 100 + 0.21 / (100 * 0.16)
    assert variance(0.3, 100, 0.7) == pytest.approx(0.0021 + 0.013125, rel=1e-12)
    assert variance(0.3, 100, 1.0) == pytest.approx(0.0021)  # p = 1: the direct question


@pytest.mark.parametrize("pi,n,p", [(0.3, 10, 0.2), (0.5, 50, 0.45), (0.05, 200, 0.9), (1.0, 7, 0.6)])
def test_exact_law_matches_the_formula(pi, n, p):
    mean, var = exact_variance(pi, n, p)
    assert mean == pytest.approx(pi, abs=1e-12)
    assert var == pytest.approx(variance(pi, n, p), rel=1e-10)


def test_exact_law_catches_a_wrong_formula():
    # the variance of the direct question alone (a plausible slip) is far from the exact law
    _, var = exact_variance(0.3, 100, 0.7)
    assert abs(var - 0.3 * 0.7 / 100) > 10 * 1e-10 * var


def test_simulated_surveys_follow_the_binomial_law():
    pi, n, p = 0.3, 40, 0.75
    estimates = simulate_surveys(pi, n, p, 20000, seed=1)
    yes = np.rint((estimates * (2 * p - 1) + 1 - p) * n).astype(int)
    observed = np.bincount(yes, minlength=n + 1)
    expected = stats.binom.pmf(np.arange(n + 1), n, yes_probability(pi, p)) * len(yes)
    keep = expected > 5
    chi2 = float((((observed - expected) ** 2) / expected)[keep].sum())
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3


def test_same_seed_same_surveys():
    a = simulate_surveys(0.3, 100, 0.7, 50, seed=7)
    assert np.array_equal(a, simulate_surveys(0.3, 100, 0.7, 50, seed=7))


def test_p_one_half_is_refused():
    with pytest.raises(PrivlabError, match=r"^p must be in \[0, 1\] other than 0.5, got 0.5$"):
        variance(0.3, 100, 0.5)
    with pytest.raises(PrivlabError, match="other than 0.5"):
        estimate(50, 100, 0.5)


def test_bad_counts_are_refused():
    with pytest.raises(ValueError, match=r"yes must hold integer counts in \[0, 10\]"):
        estimate(11, 10, 0.7)


def test_conformance():
    conformance("warner", workers=2)
