"""The formula audit of seed 004 (privlab.cae.derivations): every derivation against the printed
formula, every checker catching a deliberately altered formula, and the tests the claims ledger
(experiments/cae/ledger.yaml) names."""

import numpy as np
import pandas as pd
import pytest

from privlab import PrivlabError, cae
from privlab import claims as cl
from privlab.cae import derivations as dv
from privlab.runner import compose

X, P = [1, 3, 8, 9], [0.15, 0.10, 0.70, 0.05]  # the appendix's worked example
APPENDIX = {0: 1.319, 1: 1.054, 2: 0.811, 5: 0.811, 6: 0.61, 7: 0.286, 8: 0.0}
SAMPLING = "f/Ms*Ms/Mo + (Mo - Ms)/Mo*D"  # Section 5, as printed
INSTANCE = {"f": 100, "Ms": 1250, "Mo": 2500, "D": 25}
SALARY = list(range(10, 251, 10))  # Table 2
N, Q = list(range(2, 40)), [2, 4, 8, 16, 32]


def test_h0_is_shannon_entropy_and_an_altered_term_is_caught():
    ok = dv.shannon_h0("p*log(1/p, 2)", P)
    assert ok.match and ok.printed_value == pytest.approx(1.319035, abs=1e-6)
    assert not dv.shannon_h0("p*log(p, 2)", P).match  # the sign flipped
    assert not dv.shannon_h0("p*log(1/p)", P).match  # natural log: nats, not the seed's bits


def test_sampling_formula_as_printed_fails_and_the_corrected_one_holds():
    printed = dv.sampling_probability(SAMPLING, INSTANCE)
    assert not printed.match
    assert (printed.printed_value, printed.derived_value) == pytest.approx((12.54, 0.06))
    assert dv.sampling_probability("f/Ms*Ms/Mo + (Mo - Ms)/Mo/D", INSTANCE).match
    assert not dv.sampling_probability("f/Mo - (Mo - Ms)/Mo/D", INSTANCE).match  # an operator flipped
    total = dv.sampling_total(SAMPLING, INSTANCE)
    assert not total.match and total.printed_value == pytest.approx(313.0) and total.derived_value == 1.0
    assert dv.sampling_total("f/Ms*Ms/Mo + (Mo - Ms)/Mo/D", INSTANCE).match
    assert not dv.sampling_total("f/Ms*Ms/Mo", INSTANCE).match  # the unsampled records' term dropped


def test_query_count_and_rank():
    ok = dv.query_count("floor(2*n/Q) - 1", N, Q)
    assert ok.match and ok.printed_value == ok.derived_value
    assert not dv.query_count("floor(2*n/Q)", N, Q).match  # "- 1" dropped
    assert not dv.query_count("2*n/Q - 1", N, Q).match  # the floor dropped (n = 5, Q = 4)
    assert dv.query_rank(N, Q).match


def test_interval_probability_holds_on_index_codes_only():
    printed = "1/(U - L + 1) * 1/Mo"
    salary = dv.interval_probability(printed, SALARY)
    assert not salary.match and salary.printed_value == pytest.approx(25 / 241)
    assert dv.interval_probability(printed, range(1, 26)).match
    assert not dv.interval_probability("1/(U - L + 2) * 1/Mo", range(1, 26)).match  # altered
    assert not dv.interval_probability("1/(U - L) * 1/Mo", range(1, 26)).match  # undefined at L = U
    bounds = dv.reversed_bounds(SALARY)
    assert not bounds.match and (bounds.printed_value, bounds.derived_value) == (0.0, 25.0)


def test_noise_rules_and_altered_ones():
    levels, sizes = [0, 5, 10, 25, 50, 75, 100], [1, 2, 3, 25, 69]
    assert dv.noise_max_rule(cae.noise_max, levels, sizes).match
    assert not dv.noise_max_rule(lambda k, m: 2 * round(k * m / 200), levels, sizes).match  # k% of |D|
    assert not dv.noise_max_rule(lambda k, m: round(k * (m - 1) / 100), levels, sizes).match  # not even
    assert dv.noise_support([0, 2, 6, 12]).match
    assert dv.noise_interval([1, 2, 5, 25], [0, 2, 6]).match


def test_recurrence_and_algorithm_1_against_the_brute_force_and_altered_versions():
    assert dv.recurrence(instances=10).match
    assert not dv.recurrence(lambda x, p, e: dv.brute_force_entropy(x, p, e, best=max), instances=10).match
    assert not dv.recurrence(lambda x, p, e: dv.printed_recurrence(x, p, max(e - 1.0, 0.0)), instances=10).match
    assert dv.algorithm1(instances=10).match

    def shifted(x, p):  # every stage reports the previous stage's value
        h = dv.printed_algorithm1(x, p)
        return {e: h[max(e - 1, 0)] for e in h}

    assert not dv.algorithm1(shifted, instances=10).match


def test_problem_statement_base_cases_and_eps_max():
    assert not dv.problem_statement(X, P, APPENDIX).match
    maxima = {e: dv.brute_force_entropy(X, P, e, best=max) for e in APPENDIX}
    assert dv.problem_statement(X, P, maxima).match  # a list of maxima would have passed
    base = dv.base_case_order(X, P)
    assert not base.match and (base.printed_value, base.derived_value) == pytest.approx((0.410545, 1.054016), abs=1e-6)
    top = dv.eps_max_statement(X, P)
    assert not top.match and top.printed_value == pytest.approx(1.319035, abs=1e-6) and top.derived_value == 0
    assert dv.eps_max_statement([1, 2], [1.0, 0.0]).match  # one value: eps_max = 0 and H(0) = 0


def test_area_integral_and_altered_closed_forms():
    assert dv.area_integral(lambda x, p: cae.cae(x, p)[1], instances=8).match
    assert not dv.area_integral(lambda x, p: cae.cae(x, p)[1] + 1e-3, instances=8).match
    assert not dv.area_integral(lambda x, p: cae.cae(x, p)[0] * (x[-1] - x[0]), instances=8).match


def test_coverings_of_the_problem_statement_give_the_appendix_values():
    printed = {0: "1.319", 1: "1.054", 2: "0.811", 3: "0.811", 4: "0.811", 5: "0.811", 6: "0.61", 7: "0.286", 8: "0"}
    for eps, value in printed.items():
        assert cl.rounds_to(value, dv.brute_force_entropy(X, P, eps))
    assert dv.coverings(X, 5, maximal=True) == [[[1.0, 3.0], [8.0, 9.0]], [[1.0], [3.0, 8.0], [9.0]]]
    assert dv.coverings(X, 1, maximal=True) == [[[1.0], [3.0], [8.0, 9.0]]]
    assert len(dv.coverings(X, 0)) == 1 and len(dv.coverings(X, 8)) == 8  # 2^(n-1) once every window fits


@pytest.mark.slow
def test_formula_table_has_one_row_per_formula_and_catches_an_altered_printed_one():
    cfg = compose("cae/formulas", ["grids.instances=3"])
    printed = {k: cfg.printed[k].value for k in dv.PRINTED_FORMULAS}
    args = (X, P, APPENDIX, cfg.salary_domain, INSTANCE)
    t = dv.formula_table(printed, *args, **cfg.grids)
    assert list(t.key) == [k for k in cfg.printed if k != "crossref"]
    match = dict(zip(t.key, t.match))
    assert match["H0"] and match["query_count"] and not match["sampling"]  # Section 5's * |D|
    altered = dv.formula_table({**printed, "query_count": "floor(2*n/Q)"}, *args, **cfg.grids)
    assert not dict(zip(altered.key, altered.match))["query_count"]
    with pytest.raises(PrivlabError, match=r"printed lacks the key\(s\) sampling, query_count, interval"):
        dv.formula_table({"H0": printed["H0"]}, *args, **cfg.grids)
    with pytest.raises(PrivlabError, match="salary must be a mapping"):
        dv.formula_table(printed, X, P, APPENDIX, SALARY, INSTANCE, **cfg.grids)


@pytest.mark.slow
def test_paper_profile_runs_the_printed_parameters():
    sampling = compose("cae/fig2_sampling", profile="paper")
    assert sampling.repetitions == 30 and list(sampling.mechanism.sdc_sampling.levels) == [5, 10, 20, 50]
    assert list(sampling.sk_sizes) == [0, 1, 2, 3, 4, 5, 6] and len(sampling.datasets.pums.sk) == 6
    assert sampling.datasets.pums.dataset.n == 2500
    qr = compose("cae/fig2_query_restriction", profile="paper")
    assert qr.repetitions == 30 and list(qr.mechanism.sdc_query_restriction.levels) == [2, 4, 8, 16, 32]
    assert compose("cae/fig2_noise", profile="paper").repetitions == 30  # fig4_noise shares _shared.yaml


def test_engine_averages_over_values_attribute_sets_and_repetitions():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"c": rng.integers(1, 6, 40), "a": rng.integers(0, 3, 40), "b": rng.integers(0, 2, 40)})
    data = cae.prepare(df, "c", ["a", "b"], [0, 1, 2])
    tech = cae.NoiseAdditionTechnique(levels=[50])
    seeds = [np.random.SeedSequence(7, spawn_key=(r,)) for r in range(3)]
    by_rep = []
    for rep, seed in enumerate(seeds):
        rows = {r["sk_size"]: r for r in cae.repetition_rows(data, tech, 50, rep, seed)}
        release = tech.release(data, 50, seed)
        for size, entries in data.sets.items():
            per_set = []
            for entry in entries:  # every attribute set of the size ...
                values = []
                for g in range(entry.n_groups):  # ... and every value combination that occurs
                    recs = np.flatnonzero(entry.groups == g)
                    values.append(cae.cae(data.grid, release.probs(np.zeros(recs.size, int), 1, recs)[0]))
                per_set.append(np.mean(values, axis=0))
            assert (rows[size]["H0"], rows[size]["area"]) == pytest.approx(tuple(np.mean(per_set, axis=0)))
        by_rep.append(rows)
    table = cae.run_series({"d": data}, [("noise", tech)], 3, seed_sequence=lambda *k: seeds[k[-1]])
    for size in data.sets:  # ... and over the repetitions
        got = table[table.sk_size == size].iloc[0]
        assert got.H0 == pytest.approx(np.mean([r[size]["H0"] for r in by_rep]))
