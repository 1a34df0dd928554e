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


@given(k=st.integers(0, 500), extra=st.integers(0, 500))
def test_wilson_upper_matches_the_core_interval(k, extra):
    m = k + max(extra, 1)
    # privlab.stats takes the exact 97.5% quantile (1.95996...) and clips at 1; the tables round it to 1.96
    assert iso.wilson_upper(k, m) == pytest.approx(stats.wilson_interval(k, m)[1], abs=2e-5)
    assert iso.wilson_upper(0, m) == pytest.approx(1.96**2 / (m + 1.96**2))


def test_fit_exponent_recovers_an_exact_decay():
    d = np.arange(2, 12)
    b, used = iso.fit_exponent(d, 2.0 ** (1 - 0.7 * d), np.ones(d.size))
    assert (b, used) == (pytest.approx(0.7), 10)
    b, used = iso.fit_exponent([2, 4], [0.5, 0.0], [5, 0])
    assert np.isnan(b) and used == 1


def test_natural_rows_and_best_last():
    rows = [
        {"adversary": "a", "rate_any": 0.1},
        {"adversary": iso.BEST, "rate_any": np.nan},
        {"adversary": "b", "rate_any": np.nan},
        {"adversary": "c", "rate_any": 0.2},
    ]
    assert list(iso.natural_rows(pd.DataFrame(rows)).adversary) == ["a", "c"]
    assert [r["adversary"] for r in iso.best_last(rows)] == ["a", "b", "c", iso.BEST]


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), d=st.integers(1, 4), T=st.integers(2, 6), c=st.floats(1, 5))
def test_attack_counts_match_brute_force(seed, d, T, c):
    n, m = 60, 20
    db, aux = iso.uniform_cube(n, d, seed), iso.uniform_cube(m, d, seed + 1)
    seeds = _seeds(seed)
    rows = iso.attack(db, T, [c], m, seeds, SANITIZERS, aux=aux)
    targets = np.random.default_rng(seeds["targets"]).integers(n, size=m)
    for label, san in SANITIZERS:
        run = san.attack(db, targets, T, seeds, aux=aux)
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
