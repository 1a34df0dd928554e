"""Monte Carlo engines and rate columns (privlab.isolation.simulation, .rates) against brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import isolation as iso
from privlab import stats
from privlab._validation import PrivlabError

SANITIZERS = [
    ("aux_only", iso.AuxOnly()),
    ("histogram", iso.RecursiveHistogram()),
    ("perturbed_one", iso.Perturbation()),
    ("hist_perturb", iso.HistogramPlusPerturbation()),
]


def _seeds(seed=0):
    return {name: np.random.SeedSequence(seed, spawn_key=(i,)) for i, name in enumerate(iso.SEED_NAMES)}


def test_rate_columns_by_hand():
    row = iso.rate_columns([True, False, False, True], [True, True, True, False])
    assert (row["trials"], row["successes"], row["rate"]) == (4, 2, 0.5)
    assert row["rate_se"] == pytest.approx(0.25)
    assert (row["successes_any"], row["rate_any"]) == (3, 0.75)
    assert row["rate_any_se"] == pytest.approx(np.sqrt(0.75 * 0.25 / 4))
    assert np.isnan(iso.rate_columns([False])["rate_any"])


@settings(deadline=None)  # the first call imports SciPy's distributions (~1.5 s when it runs first in its process)
@given(k=st.integers(0, 500), extra=st.integers(0, 500))
def test_wilson_upper_matches_the_core_interval(k, extra):
    m = k + max(extra, 1)
    # privlab.stats takes the exact 97.5% quantile (1.95996...) and clips at 1; the tables round it to 1.96
    assert iso.wilson_upper(k, m) == pytest.approx(stats.wilson_interval(k, m)[1], abs=2e-5)
    assert iso.wilson_upper(0, m) == pytest.approx(1.96**2 / (m + 1.96**2))


def _binomial(a, b, d, m, seed):
    rng = np.random.default_rng(seed)
    return rng.binomial(m, np.minimum(a * 2.0 ** (-b * np.asarray(d, dtype=float)), 1.0))


def test_rate_columns_with_fewer_anyone_trials():
    row = iso.rate_columns([True, False, False, True], [True, False], trials_any=True)
    assert (row["trials_any"], row["successes_any"], row["rate_any"]) == (2, 1, 0.5)
    assert row["rate_any_se"] == pytest.approx(np.sqrt(0.25 / 2))
    assert np.isnan(iso.rate_columns([False], trials_any=True)["trials_any"])
    assert "trials_any" not in iso.rate_columns([False], [False])


@pytest.mark.slow
@pytest.mark.parametrize(
    "a, b, m", [(0.8, 0.7, 300_000), (0.5, 1.0, 20_000), (2.0, 0.5, 100_000), (1e-4, -0.2, 50_000)]
)
def test_fit_decay_recovers_a_known_decay(a, b, m):
    d = np.arange(2, 21, 2)
    hits = [iso.fit_decay(d, _binomial(a, b, d, m, seed), np.full(d.size, m)) for seed in range(20)]
    # the 95% profile interval covers the truth in (about) 95% of the data sets
    covered = sum(f.b_low <= b <= f.b_high for f in hits)
    assert covered >= 16
    fit = hits[0]
    assert fit.b == pytest.approx(b, abs=4 * (fit.b_high - fit.b_low) / 3.92) and fit.b_low < fit.b < fit.b_high
    assert fit.dims == 10 and fit.level == 0.95 and fit.successes > 0


def test_fit_decay_of_a_constant_rate_covers_zero():
    d = np.arange(2, 21, 2)
    fit = iso.fit_decay(d, _binomial(1e-3, 0.0, d, 300_000, 1), np.full(d.size, 300_000))
    assert fit.b_low < 0 < fit.b_high and abs(fit.b) < 0.02
    assert fit.a == pytest.approx(1e-3, rel=0.1)


def test_fit_decay_counts_the_zeros():
    # successes at d = 2 only: a line through log2(rate) has one point and no slope, but 0 in
    # 1000 trials at d = 4..8 says the rate fell: b is bounded below (and unbounded above)
    fit = iso.fit_decay([2, 4, 6, 8], [50, 0, 0, 0], [1000] * 4)
    assert fit.b_low > 1 and fit.b == np.inf and fit.b_high == np.inf and fit.zero_dims == 3
    # zeros above some d raise the fit: without them the same data allow a slower decay
    d = np.arange(2, 21, 2)
    k = _binomial(0.5, 1.0, d, 2000, 3)
    assert (k[-4:] == 0).all()
    with_zeros = iso.fit_decay(d, k, np.full(d.size, 2000))
    nonzero = k > 0
    without = iso.fit_decay(d[nonzero], k[nonzero], np.full(nonzero.sum(), 2000))
    assert with_zeros.b_low >= without.b_low and with_zeros.b >= without.b
    assert with_zeros.b_low <= 1.0 <= with_zeros.b_high
    # no success anywhere: every b fits
    none = iso.fit_decay(d, np.zeros(d.size), np.full(d.size, 10))
    assert np.isnan(none.b) and np.isnan(none.b_low) and none.zero_dims == d.size


def test_fit_decay_widens_its_interval_when_the_rates_bend():
    d = np.arange(2, 21, 2)
    m = np.full(d.size, 300_000)
    # following the model: deviance about its degrees of freedom, the widened interval barely wider
    fit = iso.fit_decay(d, _binomial(0.8, 0.7, d, 300_000, 5), m)
    assert 1 <= fit.dispersion < 4
    assert fit.b_low_quasi <= fit.b_low and fit.b_high <= fit.b_high_quasi
    # a bump at d = 8..10 (as the histogram's rates at n = 100,000): one exponential does not fit
    k = _binomial(0.8, 1.4, d, 300_000, 6)
    k[3:5] = [350, 190]
    bent = iso.fit_decay(d, k, m)
    assert bent.dispersion > 50 and bent.deviance > 400
    assert bent.b_low_quasi < bent.b_low - 0.1 and bent.b_high_quasi > bent.b_high + 0.1
    assert (
        "widened by the dispersion" in bent.describe()
        and "widened" not in iso.fit_decay([1, 2, 3], [8, 4, 2], [16] * 3).describe()
    )


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), b=st.floats(-0.3, 1.5), m=st.integers(200, 5000))
def test_fit_decay_maximises_the_likelihood(seed, b, m):
    # brute force: no point of a grid around the fit has a higher likelihood, and the
    # interval's ends lose chi2_1(0.95) / 2 of it at their best a
    d = np.arange(1, 9)
    k = _binomial(0.3, b, d, m, seed)
    fit = iso.fit_decay(d, k, np.full(d.size, m))
    if not np.isfinite(fit.b):
        return
    best = max(
        iso.decay_loglik(aa, bb, d, k, np.full(d.size, m))
        for bb in np.linspace(fit.b - 0.2, fit.b + 0.2, 41)
        for aa in fit.a * np.exp(np.linspace(-1, 1, 41))
    )
    assert best <= fit.log_lik + 1e-6
    assert fit.log_lik == pytest.approx(iso.decay_loglik(fit.a, fit.b, d, k, np.full(d.size, m)))
    for end in (fit.b_low, fit.b_high):
        if np.isfinite(end):
            at_end = max(
                iso.decay_loglik(aa, end, d, k, np.full(d.size, m)) for aa in fit.a * np.exp(np.linspace(-3, 3, 2001))
            )
            assert at_end <= fit.log_lik - 3.841458820694124 / 2 + 1e-3


def test_fit_decay_bad_input():
    with pytest.raises(PrivlabError, match="same length"):
        iso.fit_decay([1, 2], [0], [1, 1])
    with pytest.raises(PrivlabError, match="0 <= successes <= trials"):
        iso.fit_decay([1, 2], [2, 0], [1, 1])
    with pytest.raises(PrivlabError, match="level"):
        iso.fit_decay([1, 2], [1, 0], [1, 1], level=1.0)


def test_natural_rows_and_best_last():
    rows = [
        {"adversary": "a", "rate_any": 0.1},
        {"adversary": iso.BEST, "rate_any": np.nan},
        {"adversary": "b", "rate_any": np.nan},
        {"adversary": "c", "rate_any": 0.2},
    ]
    assert list(iso.natural_rows(pd.DataFrame(rows)).adversary) == ["a", "c"]
    assert [r["adversary"] for r in iso.best_last(rows)] == ["a", "b", "c", iso.BEST]


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), d=st.integers(1, 4), T=st.integers(2, 6), c=st.floats(1, 5))
def test_attack_counts_match_brute_force(seed, d, T, c):
    n, m = 60, 20
    db, aux = iso.uniform_cube(n, d, seed), iso.uniform_cube(m, d, seed + 1)
    seeds = _seeds(seed)
    rows = iso.attack(db, T, [c], m, seeds, SANITIZERS, aux=aux)
    targets = np.random.default_rng(seeds["targets"]).integers(n, size=m)
    for label, san in SANITIZERS:
        run = san.with_setting(T=T, aux=aux).attack(db, targets, seeds)
        best = np.zeros(m, dtype=bool)
        for out in run.outputs:
            expect = np.array([iso.isolates(q, t, db, c, T) for q, t in zip(out.queries, targets)])
            best |= expect
            (row,) = [r for r in rows if (r["sanitizer"], r["adversary"]) == (label, out.name)]
            assert row["successes"] == expect.sum() and row["trials"] == m and row["c"] == c
            if out.natural:
                anyone = [any(iso.isolates(q, j, db, c, T) for j in range(n)) for q in out.queries]
                assert row["successes_any"] == sum(anyone)
            assert all(row[k] == v for k, v in run.extra.items())
        best_rows = [r for r in rows if (r["sanitizer"], r["adversary"]) == (label, iso.BEST)]
        assert len(best_rows) == (len(run.outputs) > 1)
        if best_rows:
            assert best_rows[0]["successes"] == best.sum()


def test_attack_reuses_outputs_across_c_and_orders_rows():
    db = iso.uniform_cube(300, 3, 0)
    rows = iso.attack(db, 5, [1, 4], 40, _seeds(), SANITIZERS[1:3])
    assert [(r["c"], r["sanitizer"], r["adversary"]) for r in rows] == [
        (c, s, a)
        for c in (1.0, 4.0)
        for s, a in [
            ("histogram", "cell_uniform"),
            ("histogram", "cell_centre"),
            ("perturbed_one", "perturbed_point"),
            ("histogram", iso.BEST),
        ]
    ]
    # a larger ball never isolates more (same outputs for every c)
    for a, b in zip(rows[:4], rows[4:]):
        assert b["successes"] <= a["successes"]
    with pytest.raises(PrivlabError, match="c must be in"):
        iso.attack(db, 5, [0.5], 40, _seeds(), SANITIZERS[1:2])


def test_cube_attack_is_the_attack_on_the_seeded_cube_and_skips_sanitizers_below_min_T():
    seeds = _seeds(3)
    rows = iso.cube_attack(200, 2, 4, [2.0], 30, seeds, SANITIZERS)
    db, aux = iso.uniform_cube(200, 2, seeds["db"]), iso.uniform_cube(30, 2, seeds["aux"])
    assert rows == iso.attack(db, 4, [2.0], 30, seeds, SANITIZERS, aux=aux)
    # one cell's rows do not depend on the other sanitizers run beside it
    alone = iso.cube_attack(200, 2, 4, [2.0], 30, seeds, SANITIZERS[1:2])
    assert alone == [r for r in rows if r["sanitizer"] == "histogram"]
    at_one = iso.cube_attack(200, 2, 1, [2.0], 30, seeds, SANITIZERS)
    assert {r["sanitizer"] for r in at_one} == {"aux_only", "perturbed_one"}


def test_holdout_attack_draws_aux_from_records_outside_rdb():
    X = iso.uniform_cube(250, 3, 5)
    seeds = _seeds(4)
    rows = iso.holdout_attack(X, 5, 4.0, 50, seeds, SANITIZERS[:1])
    assert all(r["n"] == 200 and r["d"] == 3 for r in rows)
    perm = np.random.default_rng(seeds["db"]).permutation(250)
    expect = iso.attack(X[perm[:200]], 5, [4.0], 50, seeds, SANITIZERS[:1], aux=X[perm[200:]])
    assert [{k: v for k, v in r.items() if k not in ("n", "d")} for r in rows] == expect
    with pytest.raises(PrivlabError, match="m must be an integer"):
        iso.holdout_attack(X, 5, 4.0, 249, seeds, SANITIZERS[:1])


def test_bad_sanitizer_rows_stretch_hides_everyone():
    seeds = _seeds(6)
    rows = iso.bad_sanitizer_rows(400, 4, 5, 4.0, 200, 1000.0, 3, seeds)
    assert [r["adversary"] for r in rows] == ["released_row", "column_midpoint"]
    assert all(r["exact_columns"] == r["exact_columns_expected"] == 3 for r in rows)
    assert rows[0]["fraction_disclosed"] == 0.75 and np.isnan(rows[0]["rate_any"])
    # the disguised attribute swamps every distance: (almost) nobody is isolated
    assert rows[0]["rate"] <= 0.02
    # on the cube's own scale the three exact attributes isolate many
    assert iso.bad_sanitizer_rows(400, 4, 5, 4.0, 200, 1.0, 3, seeds)[0]["rate"] > 0.1
    with pytest.raises(PrivlabError, match="disclosed must be an integer in"):
        iso.bad_sanitizer_rows(400, 4, 5, 4.0, 200, 1.0, 4, seeds)
