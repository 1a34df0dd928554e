"""Sections 2.1 and 6: the noisy ratio and the corruption attack, sampled against exact."""

from __future__ import annotations

import numpy as np
import pytest

from privlab._validation import PrivlabError
from privlab.bucketization import (
    BucketSetting,
    add_fake_values,
    bucketize,
    corruption_certainty,
    corruption_success,
    corruption_trial,
    noisy_ratio,
    prob_nonpositive,
    ratio_approximation,
    ratio_summary,
    simulate_corruption,
)


def test_fakes_bias_estimates():
    rng = np.random.default_rng(4)
    sa = rng.permutation(np.repeat(np.arange(8), 50))
    bid = np.arange(400) // 4  # buckets of 4 (not necessarily distinct)
    st_b, st_v, fake = add_fake_values(sa, bid, 2, 12, seed=0)
    assert fake.sum() == 200
    for B in range(100):
        vals = st_v[st_b == B]
        assert len(set(vals[fake[st_b == B]])) == 2
        assert not set(vals[fake[st_b == B]]) & set(sa[bid == B])


def test_ratio_approximation_vs_monte_carlo():
    mean, var = ratio_approximation(100, 50, 0.1)  # b = 10
    assert mean == pytest.approx(0.5 * 1.02)  # the seed's "1.02 times"
    x1, x2 = noisy_ratio(100, 50, 0.1, 400_000, seed=0)
    r = x2 / x1
    from scipy.stats import trim_mean

    tm = trim_mean(r, 0.01)
    assert abs(tm - mean) < 5 * r[(r > np.quantile(r, 0.01)) & (r < np.quantile(r, 0.99))].std() / np.sqrt(r.size)
    # the variance approximation is for large a1 (heavy Laplace tails): check it at a1 = 1000
    _, var = ratio_approximation(1000, 500, 0.1)
    x1, x2 = noisy_ratio(1000, 500, 0.1, 200_000, seed=1)
    assert np.var(x2 / x1) == pytest.approx(var, rel=0.03)


def test_corruption_monte_carlo_vs_exact():
    sa = np.random.default_rng(0).permutation(np.tile(np.arange(5), 4000))
    F = np.full(5, 0.2)  # buckets of 5 distinct values
    bid = bucketize(sa, F, BucketSetting([5], [4000]), seed=0)
    for k, c in [(0, 4), (2, 4), (1, 2)]:
        st_b, st_v, _ = add_fake_values(sa, bid, k, 9, seed=1)
        hits = simulate_corruption(sa, bid, st_b, st_v, c, seed=2)
        p = corruption_certainty(5, c, k)
        assert abs(hits.mean() - p) < 5 * np.sqrt(p * (1 - p) / hits.size) + 1e-12


def test_ratio_summary_against_exact():
    row = ratio_summary(100.0, 0.5, 0.1, 20_000, 0.01, seed=3)  # b = 10
    assert row["factor"] == pytest.approx(1.02)  # the seed's "1.02 times"
    assert row["approx_mean"] == pytest.approx(0.51) and row["approx_var"] == pytest.approx(0.02 * 1.25)
    assert row["p_nonpos_exact"] == prob_nonpositive(100.0, 0.1) == pytest.approx(0.5 * np.exp(-10))
    assert abs(row["median"] - 0.5) < 5 * row["median_se"]  # the median sits at a2/a1
    assert abs(row["trimmed_mean"] - row["approx_mean"]) < 5 * row["trimmed_se"]
    small = ratio_summary(10.0, 0.5, 0.1, 20_000, 0.01, seed=4)  # a1 = b: a1~ <= 0 often
    assert abs(small["p_nonpos"] - small["p_nonpos_exact"]) < 5 * small["p_nonpos_se"]
    assert small["p_nonpos_exact"] == pytest.approx(0.5 * np.exp(-1))
    with pytest.raises(PrivlabError, match="trim must be"):
        ratio_summary(10.0, 0.5, 0.1, 100, 0.5)
    with pytest.raises(PrivlabError, match="epsilon must be"):
        prob_nonpositive(10.0, 0.0)


def test_corruption_success_by_hand():
    bid = np.repeat([0, 1, 2], [4, 4, 5])  # buckets of 4, 4 and 5 records
    assert corruption_success(bid, 1, 0) == pytest.approx((1 / 3 + 1 / 3 + 1 / 4) / 3)
    assert corruption_success(bid, 4, 2) == pytest.approx(1 / 3)  # only the bucket of 5 is attacked
    with pytest.raises(PrivlabError, match="corrupted must be smaller"):
        corruption_success(bid, 5, 0)


def test_corruption_trial_within_its_standard_error():
    sa = np.random.default_rng(1).permutation(np.tile(np.arange(6), 1500))
    F = np.full(6, 1 / 6)
    bid = bucketize(sa, F, BucketSetting([6], [1500]), seed=0)
    for k, c in [(0, 5), (1, 3), (2, 0)]:
        st_b, st_v, _ = add_fake_values(sa, bid, k, 10, seed=2)
        row = corruption_trial(sa, bid, st_b, st_v, c, k, seed=3)
        assert row["exact"] == pytest.approx(corruption_certainty(6, c, k))
        assert abs(row["success"] - row["exact"]) <= 5 * row["success_se"]


def _corruption_by_records(sa, bid, st_bucket, st_value, c, seed):
    """The attack as first written: each bucket's records permuted themselves, its ST values a
    list of numpy scalars (`simulate_corruption` must make the same draws and guesses)."""
    rng = np.random.default_rng(seed)
    out = []
    for B in range(bid.max() + 1):
        recs = np.flatnonzero(bid == B)
        if recs.size <= c:
            continue
        perm = rng.permutation(recs)
        values = list(st_value[st_bucket == B])
        for v in sa[perm[:c]]:
            values.remove(v)
        out.append(values[rng.integers(len(values))] == sa[perm[c]])
    return np.asarray(out, dtype=bool)


@pytest.mark.parametrize("seed", range(6))
def test_corruption_draws_as_permuting_the_records(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(20, 300)), int(rng.integers(3, 10))
    sa = rng.integers(0, m, n)
    bid = rng.permutation(n) // int(rng.integers(2, 7))
    st_b, st_v, _ = add_fake_values(sa, bid, seed % 3, m + 2, seed=seed)
    for c in range(3):
        want = _corruption_by_records(sa, bid, st_b, st_v, c, seed)
        got = simulate_corruption(sa, bid, st_b, st_v, c, seed=np.random.default_rng(seed))
        np.testing.assert_array_equal(got, want)
