"""privlab.stats against brute-force and textbook values."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as st_

from privlab import PrivlabError, stats


def test_wilson_interval_textbook():
    lo, hi = stats.wilson_interval(0, 2000)
    assert lo == 0 and hi == pytest.approx(1.96**2 / (2000 + 1.96**2), rel=1e-3)  # the "0 (bound 0.0019)" rows
    lo, hi = stats.wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    with pytest.raises(PrivlabError, match="successes must be at most"):
        stats.wilson_interval(5, 4)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 500), st.floats(0.0, 1.0))
def test_wilson_covers_the_estimate(n, frac):
    k = int(round(frac * n))
    lo, hi = stats.wilson_interval(k, n)
    assert 0 <= lo <= k / n + 1e-12 and k / n - 1e-12 <= hi <= 1


def test_proportion_se_is_smoothed():
    assert stats.proportion_se(0, 100) > 0
    assert stats.proportion_se(50, 100) == pytest.approx(math.sqrt(51 / 102 * 51 / 102 / 100))
    assert math.isnan(stats.proportion_se(0, 0))


def test_quantile_se_matches_simulation():
    rng = np.random.default_rng(0)
    n, s = 1000, 2.0
    draws = np.quantile(rng.laplace(0, s, size=(2000, n)), 0.25, axis=1)
    assert draws.std() == pytest.approx(stats.quantile_se(0.25, n, 0.25 / s), rel=0.1)


def _oracle(counts, probs, m):
    """Brute force: sort by expected count, merge small consecutive cells, textbook statistics."""
    e = probs * counts.sum()
    order = np.argsort(e, kind="stable")
    groups, cur_e, cur_o = [], 0.0, 0.0
    big = [(e[i], counts[i]) for i in order if e[i] >= m]
    for i in order:
        if e[i] >= m:
            continue
        cur_e, cur_o = cur_e + e[i], cur_o + counts[i]
        if cur_e >= m:
            groups.append((cur_e, cur_o))
            cur_e = cur_o = 0.0
    if cur_e > 0:
        if groups:
            groups[-1] = (groups[-1][0] + cur_e, groups[-1][1] + cur_o)
        else:
            groups.append((cur_e, cur_o))
    E = np.array([g[0] for g in big + groups])
    O = np.array([g[1] for g in big + groups])
    chi2 = float(((O - E) ** 2 / E).sum())
    g = float(2 * sum(o * math.log(o / x) for o, x in zip(O, E) if o > 0))
    return E.size, chi2, g


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(5, 60), st.integers(200, 5000))
def test_pooled_gof_against_brute_force(seed, cells, n):
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(cells, 0.3))
    counts = rng.multinomial(n, probs)
    res = stats.pooled_gof(counts, probs, 5.0)
    groups, chi2, g = _oracle(counts.astype(float), probs, 5.0)
    assert res["groups"] == groups
    assert res["chi2"] == pytest.approx(chi2, rel=1e-9) and res["g"] == pytest.approx(g, rel=1e-9)
    assert res["chi2_p"] == pytest.approx(st_.chi2.sf(chi2, groups - 1), rel=1e-6)
    assert res["g_p"] >= st_.chi2.sf(g, groups - 1) - 1e-12  # Williams' q >= 1 only shrinks G


def test_pooled_gof_detects_a_wrong_law_and_impossible_cells():
    rng = np.random.default_rng(1)
    probs = np.full(20, 0.05)
    wrong = rng.multinomial(20000, np.r_[np.full(10, 0.07), np.full(10, 0.03)])
    assert stats.pooled_gof(wrong, probs, 5.0)["g_p"] < 1e-10
    right = rng.multinomial(20000, probs)
    assert stats.pooled_gof(right, probs, 5.0)["g_p"] > 1e-4
    hit = stats.pooled_gof(np.array([5, 5, 1]), np.array([0.5, 0.5, 0.0]), 1.0)
    assert hit["impossible_cells_hit"] == 1 and hit["g_p"] == 0.0


def test_zscores():
    z = stats.zscores([1.0, 2.0], [1.5, 2.0], [0.25, 0.0])
    assert z[0] == 2.0 and np.isnan(z[1])


def test_gof_effect_bound_covers_the_true_departure():
    # multinomial tables drawn at a known Cohen's w: the 90 % upper bound lies above w in about
    # 90 % of tables (and the bound of the exact law shrinks as 1 / sqrt(trials))
    rng = np.random.default_rng(7)
    k, n = 400, 200_000
    p0 = np.full(k, 1 / k)
    p1 = p0 * (1 + 0.05 * np.where(np.arange(k) % 2 == 0, 1, -1))
    w = math.sqrt(float(((p1 - p0) ** 2 / p0).sum()))
    assert w == pytest.approx(0.05)
    covered = 0
    for _ in range(200):
        counts = rng.multinomial(n, p1)
        x = float(((counts - n * p0) ** 2 / (n * p0)).sum())
        covered += stats.gof_effect_bound(x, k - 1, n, alpha=0.1) >= w
    assert 0.82 <= covered / 200 <= 0.97
    # the statistic's own quantiles: at the noncentral alpha-quantile the bound is that w exactly
    lam = n * 0.03**2
    x = float(st_.ncx2.ppf(0.05, k - 1, lam))
    assert stats.gof_effect_bound(x, k - 1, n, alpha=0.05) == pytest.approx(0.03, rel=1e-6)
    assert stats.gof_effect_bound(float(st_.chi2.ppf(0.01, k - 1)), k - 1, n, alpha=0.05) == 0.0


def test_gof_trials_to_decide_is_where_the_mean_statistic_is_shown_close():
    need = stats.gof_trials_to_decide(2499, 0.02, alpha=0.001)
    assert st_.ncx2.ppf(0.001, 2499, need * 0.02**2) == pytest.approx(2499, rel=1e-6)
    assert stats.gof_effect_bound(2499, 2499, 1.01 * need, alpha=0.001) < 0.02
    assert stats.gof_effect_bound(2499, 2499, 0.99 * need, alpha=0.001) > 0.02
