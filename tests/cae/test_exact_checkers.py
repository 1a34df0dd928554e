"""privlab.cae.exact against brute-force enumeration, and the artifact checkers against injected faults."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from privlab import cae
from privlab._validation import PrivlabError

GRID = np.array([10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0])


def _unique_data(codes):
    """Records each alone in its SK combination (the SK attribute is the record's id)."""
    df = pd.DataFrame({"pay": GRID[np.asarray(codes)].astype(np.int64), "id": np.arange(len(codes))})
    return cae.prepare(df, "pay", ["id"], [1])


def test_unique_sampling_equals_enumeration_of_every_sample():
    n, percent = 6, 50.0
    s = cae.sample_size(percent / 100, n)
    m = GRID.size
    codes = np.array([0, 2, 2, 6, 3, 1])
    groups = np.arange(n)
    outcomes = []  # per sample: each record's H0 and A
    for chosen in itertools.combinations(range(n), s):
        in_sample = np.isin(np.arange(n), chosen)
        P = cae.sampling_probs(groups, codes, in_sample, n, m)
        outcomes.append(np.stack(cae.cae_batch(GRID, P)))
    outcomes = np.array(outcomes)  # (samples, 2, n)
    e_h0, e_area, h0u, au = cae.unique_sampling(percent, n, GRID)
    np.testing.assert_allclose(outcomes[:, 0].mean(axis=0), e_h0[codes], rtol=1e-12)
    np.testing.assert_allclose(outcomes[:, 1].mean(axis=0), e_area[codes], rtol=1e-12)
    assert h0u[0] == pytest.approx(math.log2(m))
    # the variance of the mean over singletons, a record counted twice when alone under two SK sets
    recs = np.array([0, 1, 1, 3, 5])
    means = outcomes[:, :, recs].mean(axis=2)
    var = cae.unique_sampling_var(percent, n, recs, (e_h0, e_area, h0u, au))
    np.testing.assert_allclose(var, means.var(axis=0), rtol=1e-10)


@pytest.mark.parametrize("level", [0, 20, 50, 100])
def test_unique_noise_equals_enumeration_of_the_noise(level):
    m = GRID.size
    M = cae.noise_max(level, m)
    got = cae.unique_noise(level, GRID)
    for c in range(m):
        h0s, areas, w = [], [], []
        for b in range(M + 1):  # independent of the library's batching: one distribution at a time
            released = min(max(c + b - M // 2, 0), m - 1)
            lo, hi = max(released - M // 2, 0), min(released + M // 2, m - 1)
            p = np.zeros(m)
            p[lo : hi + 1] = 1.0 / (hi - lo + 1)
            keep = p > 0
            h0, area = cae.cae(GRID[keep], p[keep])
            h0s.append(h0)
            areas.append(area)
            w.append(binom.pmf(b, M, 0.5))
        h0s, areas, w = np.array(h0s), np.array(areas), np.array(w)
        np.testing.assert_allclose([g[c] for g in got], [w @ h0s, w @ areas, w @ h0s**2, w @ areas**2], atol=1e-10)


def test_unique_noise_var_equals_enumeration_over_two_records():
    level, codes = 35, np.array([1, 5, 1])
    M = cae.noise_max(level, GRID.size)
    moments = cae.unique_noise(level, GRID)
    one = {}  # per code: the outcomes (H0, A) and their probabilities
    for c in set(codes.tolist()):
        outs = []
        for b in range(M + 1):
            noisy = np.clip(c + b - M // 2, 0, GRID.size - 1)
            lo, hi = cae.noise_intervals([noisy], M, GRID.size)
            P = cae.interval_probs([0], lo, hi, 1, GRID.size)
            outs.append([*(v[0] for v in cae.cae_batch(GRID, P)), binom.pmf(b, M, 0.5)])
        one[c] = np.array(outs)
    recs = np.array([0, 1, 1])  # record 1 alone under two attribute sets: the same draw twice
    mean, second = np.zeros(2), np.zeros(2)
    for i, j in itertools.product(range(M + 1), repeat=2):
        a, b = one[codes[0]][i], one[codes[1]][j]
        value = (a[:2] + 2 * b[:2]) / 3
        mean += a[2] * b[2] * value
        second += a[2] * b[2] * value**2
    got = cae.unique_noise_var(recs, codes, moments)
    np.testing.assert_allclose(got, second - mean**2, atol=1e-10)


def test_monte_carlo_of_the_engine_matches_the_exact_expectation():
    data = _unique_data(np.arange(GRID.size).repeat(3))  # 21 records, each alone
    tech = cae.NoiseAdditionTechnique([40])
    rows = [cae.repetition_rows(data, tech, 40, r, np.random.SeedSequence([5, r]))[0] for r in range(40)]
    mc = np.array([r["H0_unique"] for r in rows])
    exact, var = rows[0]["H0_unique_exact"], rows[0]["H0_unique_exact_var"]
    assert all(r["H0_unique_exact"] == exact for r in rows) and var > 0
    res = cae.chi2_agreement([mc.mean()], [exact], [math.sqrt(var / mc.size)])
    assert res["max_z"] < 4


def test_chi2_agreement():
    r = cae.chi2_agreement([1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 3.0, 4.0 + 1e-12], [0.5, 0.5, 0.0, 0.0])
    assert r["n"] == 2 and r["chi2"] == pytest.approx(4.0) and r["max_z"] == pytest.approx(2.0)
    assert r["p"] == pytest.approx(math.exp(-2.0)) and r["n_exact"] == 2 and r["exact_ok"] == 1.0
    assert cae.chi2_agreement([1.0], [1.1], [0.0])["exact_ok"] == 0.0


# --- checkers: each catches its injected fault ------------------------------------------
def _coded(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return np.stack([rng.integers(0, 25, n), rng.integers(0, 2, n), rng.integers(0, 16, n)], axis=1)


def test_check_sample_catches_faults():
    data = _coded()
    rows = cae.sample_records(200, 0.1, 1)
    assert cae.check_sample(data, rows, data[rows], 10) == 0
    dup = rows.copy()
    dup[1] = dup[0]  # a record drawn twice
    assert cae.check_sample(data, dup, data[dup], 10) >= 1
    assert cae.check_sample(data, rows[:-1], data[rows[:-1]], 10) == 1  # one record short
    altered = data[rows].copy()
    altered[3, 0] += 1  # a released value that is not the record's
    assert cae.check_sample(data, rows, altered, 10) == 1
    out = rows.copy()
    out[0] = 200  # not a record of the data
    assert cae.check_sample(data, out, np.vstack([data[rows[1:]], data[:1]]), 10) >= 1


def test_check_noise_catches_faults():
    data, sizes, level = _coded(), [25, 2, 16], 50
    noisy = cae.binomial_noise_codes(data, sizes, level, 4)
    assert cae.check_noise(data, noisy, sizes, level) == 0
    half = cae.noise_max(level, 25) // 2
    bad = noisy.copy()
    i = int(np.flatnonzero(data[:, 0] < 25 - half - 1)[0])
    bad[i, 0] = data[i, 0] + half + 1  # a noisy value outside +-M/2
    assert cae.check_noise(data, bad, sizes, level) == 1
    bad = noisy.copy()
    bad[0, 2] = 16  # outside the domain
    assert cae.check_noise(data, bad, sizes, level) >= 1
    assert cae.check_noise(data, data, sizes, 0) == 0


@pytest.mark.slow
@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 4, 8]))
def test_check_bounds_passes_true_bounds_and_catches_faults(seed, Q):
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 26, 16) * 10.0
    qr = cae.QueryRestriction(values, Q, seed, domain=np.arange(10, 251, 10))
    L, U = qr.bounds()
    A, b = qr.equations()
    ss = np.random.SeedSequence(seed)
    assert cae.check_bounds(values, A, b, L, U, 10, 250, 16, ss) == 0
    i = int(np.argmax(U - L))
    tight = L.copy()
    tight[i] = values[i] + 5  # bounds that exclude the truth
    assert cae.check_bounds(values, A, b, tight, U, 10, 250, 0, ss) >= 1
    wide = U.copy()
    wide[i] = U[i] + 7  # still containing the truth, but not the LP's bound
    assert cae.check_bounds(values, A, b, L, wide, 10, 250, 16, ss) == pytest.approx(7)
    if b.size:
        wrong = b.copy()
        wrong[0] += 10  # an answer that is not the true sum
        assert cae.check_bounds(values, A, wrong, L, U, 10, 250, 0, ss) >= 1


def test_checker_input_errors():
    with pytest.raises(PrivlabError, match="one row per entry"):
        cae.check_sample(_coded(), [0, 1], _coded()[:3], 1)
    with pytest.raises(PrivlabError, match="same shape"):
        cae.check_noise(_coded(), _coded()[:, :2], [25, 2], 10)
