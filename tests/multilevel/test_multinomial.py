"""The collusion Monte Carlo's multinomial kernel (sequential multinomial splitting): exact joint,
by-hand stages, the per-trial kernel's law (G-test of homogeneity), the engine's determinism and
resumption, and input checks."""

from __future__ import annotations

import numpy as np
import pytest
from joblib import Parallel, delayed
from scipy import stats

from privlab import multilevel as ml
from privlab._validation import PrivlabError
from privlab.multilevel.multinomial import collusion_counts_multinomial, prior_counts, stratum_counts
from privlab.stats import _merge_small, pooled_gof

S, PS = 5, [0.3, 0.1, 0.5]
PRIOR = np.array([0.4, 0.25, 0.15, 0.12, 0.08])
# a copy between two others, a repeated p, p = 1, a copy below all others
ORDERS = [PS, [0.5, 0.3, 0.3, 1.0], [0.2, 0.9, 0.6, 0.4], [1.0, 0.7], [0.8, 0.6]]


def threads(n):
    def run(fn, items):
        return Parallel(n_jobs=n, backend="threading", return_as="generator_unordered")(
            delayed(fn)(item) for item in items
        )

    return run


def homogeneity(a, b, probs, min_expected=100.0):
    """G-test that two count tables are draws of one law: cells pooled by the exact law alone
    (as `pooled_gof` pools them) until each group expects ``min_expected`` in the smaller sample
    (at 20, the many groups of a 6.25M-cell table bias G upwards beyond Williams' correction)."""
    a, b, p = (np.asarray(v, dtype=float).ravel() for v in (a, b, probs))
    keep = p > 0
    assert a[~keep].sum() == 0 and b[~keep].sum() == 0  # no count where the law has none
    order = np.argsort(p[keep], kind="stable")
    e, ca, cb = p[keep][order] * min(a.sum(), b.sum()), a[keep][order], b[keep][order]
    big = e >= min_expected
    _, pooled = _merge_small(e[~big], np.column_stack([ca[~big], cb[~big]]), min_expected)  # (groups, 2)
    table = np.vstack([np.column_stack([ca[big], cb[big]]), pooled]).T
    g, _, dof, _ = stats.chi2_contingency(table, lambda_="log-likelihood", correction=False)
    n = table.sum()  # Williams' correction of G for an r x c table
    q = 1 + (n * (1 / table.sum(axis=1)).sum() - 1) * (n * (1 / table.sum(axis=0)).sum() - 1) / (6 * n * dof)
    return float(stats.chi2.sf(g / q, dof)), dof


@pytest.mark.parametrize("ps", ORDERS)
def test_multinomial_kernel_fits_the_exact_joint(ps):
    F = collusion_counts_multinomial(PRIOR, ps, S, 1_000_000, seed=5)
    assert F.dtype == np.int64 and F.shape == (S, S ** len(ps)) and int(F.sum()) == 1_000_000
    joint = F.reshape((S,) * (1 + len(ps)))
    assert pooled_gof(joint, ml.exact_joint(PRIOR, ps, S), 20.0)["g_p"] > 1e-4


def test_multinomial_kernel_has_power():
    F = collusion_counts_multinomial(PRIOR, PS, S, 1_000_000, seed=6).reshape((S,) * 4)
    assert pooled_gof(F, ml.exact_joint(PRIOR, [0.3, 0.5, 0.1], S), 20.0)["g_p"] < 1e-10  # other order
    assert pooled_gof(F, ml.exact_joint(PRIOR, [0.3, 0.1, 0.45], S), 20.0)["g_p"] < 1e-10  # other p_c


def test_stages_by_hand():
    """p = 1 copies X, a repeated p repeats its copy, the counts of X are the prior's draw."""
    ss = np.random.SeedSequence(4)
    F = collusion_counts_multinomial(PRIOR, [1.0, 0.4, 0.4], S, 10_000, seed=ss).reshape((S,) * 4)
    off_x = F.sum(axis=(2, 3)) - np.diag(np.diag(F.sum(axis=(2, 3))))
    assert not off_x.any()  # Y_1 = X in every trial
    assert F.sum() == np.trace(F.sum(axis=1), axis1=1, axis2=2).sum()  # Y_3 = Y_2 in every trial
    np.testing.assert_array_equal(F.sum(axis=(1, 2, 3)), prior_counts(PRIOR, 10_000, ss))
    # one stratum: its n trials, none elsewhere; n = 0 gives zeros
    plan = ml.release_plan(PS, S)
    one = stratum_counts(2, 7, plan, S, seed=1)
    assert one.shape == (S**3,) and one.sum() == 7
    assert not stratum_counts(2, 0, plan, S, seed=1).any()
    # a cell keeps y_l with probability p / p_l: at one copy and N = 10^12, (X, Y) follows uni-pert to ~1e-6
    big = collusion_counts_multinomial(PRIOR, [0.4], S, 10**12, seed=2)
    exact = ml.exact_joint(PRIOR, [0.4], S)
    z = (big / 1e12 - exact) / np.sqrt(exact * (1 - exact) / 1e12)
    assert np.abs(z).max() < 6
    # the test can tell p = 0.4 from 0.4001 at this scale
    shifted = ml.exact_joint(PRIOR, [0.4001], S)
    assert np.abs((big / 1e12 - shifted) / np.sqrt(shifted * (1 - shifted) / 1e12)).max() > 6


def test_cost_does_not_grow_with_the_trials():
    """The same number of cells is visited at 10^6 and 10^13 trials: the counts of 10^13 trials
    sum right and fit the exact joint (what 10^13 per-trial draws would take a day to give)."""
    F = collusion_counts_multinomial(PRIOR, PS, S, 10**13, seed=3)
    assert int(F.sum()) == 10**13
    assert pooled_gof(F.reshape((S,) * 4), ml.exact_joint(PRIOR, PS, S), 20.0)["g_p"] > 1e-4


def _per_trial_vs_multinomial(s, prior, trials, seed):
    fast = ml.collusion_counts(prior, PS, s, trials, chunk=2_500_000, seed=seed, kernel="multinomial")
    slow = ml.collusion_counts(prior, PS, s, trials, chunk=2_500_000, seed=seed, kernel="stratified")
    assert int(fast.sum()) == int(slow.sum()) == trials
    return homogeneity(fast, slow, ml.exact_joint(prior, PS, s))


def test_multinomial_and_per_trial_kernels_agree():
    """The G-test of homogeneity of the two kernels' tables at s = 20 (160,000 cells), 10^7 trials."""
    pval, dof = _per_trial_vs_multinomial(20, ml.gaussian_prior(20, 10.5, 4), 10**7, 21)
    assert dof > 10_000 and pval > 1e-4


@pytest.mark.slow
def test_multinomial_and_per_trial_kernels_agree_at_1e8():
    """The same at the paper's s = 50 (6.25M cells) and 10^8 trials."""
    pval, dof = _per_trial_vs_multinomial(50, ml.gaussian_prior(50, 25.5, 8), 10**8, 22)
    assert dof > 50_000 and pval > 1e-4


def test_homogeneity_test_has_power():
    """Two tables of different laws (another p_c) are told apart at 10^6 trials."""
    a = collusion_counts_multinomial(PRIOR, PS, S, 10**6, seed=1)
    b = collusion_counts_multinomial(PRIOR, [0.3, 0.1, 0.45], S, 10**6, seed=2)
    assert homogeneity(a, b, ml.exact_joint(PRIOR, PS, S))[0] < 1e-10
    c = collusion_counts_multinomial(PRIOR, PS, S, 10**6, seed=3)
    assert homogeneity(a, c, ml.exact_joint(PRIOR, PS, S))[0] > 1e-4


@pytest.mark.parametrize("workers", [1, 2, 3, 7, 60])
def test_engine_is_the_kernel_whatever_the_workers(workers):
    """collusion_counts(kernel="multinomial") = collusion_counts_multinomial, byte for byte,
    for any number of workers (more workers than strata too)."""
    ss = np.random.SeedSequence(9, spawn_key=(3,))
    direct = collusion_counts_multinomial(PRIOR, PS, S, 10**9, ss)
    engine = ml.collusion_counts(PRIOR, PS, S, 10**9, chunk=1000, seed=ss, map_fn=threads(workers), workers=workers)
    assert engine.shape == (S,) * 4
    assert engine.tobytes() == direct.reshape(engine.shape).tobytes()
    # chunk is no part of what the multinomial kernel draws
    assert ml.collusion_identity(PRIOR, PS, S, 10**9, chunk=1000, seed=ss)["chunk"] is None
    other = ml.collusion_counts(PRIOR, PS, S, 10**9, chunk=77, seed=ss)
    assert other.tobytes() == engine.tobytes()


def test_bad_input():
    with pytest.raises(PrivlabError, match="at most 2\\*\\*62 for the multinomial kernel"):
        ml.collusion_counts(PRIOR, PS, S, 2**63, chunk=1, seed=0)
    with pytest.raises(PrivlabError, match="prior must have domain_size = 4 entries"):
        collusion_counts_multinomial(PRIOR, PS, 4, 10, seed=0)
    with pytest.raises(PrivlabError, match="x must be"):
        stratum_counts(5, 10, ml.release_plan(PS, S), S, seed=0)
    with pytest.raises(PrivlabError, match="kernel must be one of multinomial, stratified, perturber"):
        ml.collusion_counts(PRIOR, PS, S, 10, chunk=1, seed=0, kernel="fast")
