"""Every public function of privlab.lpb refuses bad arguments in one line (PrivlabError naming
the parameter), sizes that would exhaust memory included, before allocating anything."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError, lpb
from privlab.experiments.lpb import verdicts
from privlab.lpb import adversary, derivations

U, K = [1.0, 2.0, 3.0, 5.0, 10.0], [1.0, 2.0, 3.0]
BIG = 10**12
COLS, CAL = {"x": np.array([1.0, 2.0, 4.0])}, lpb.LPBCalibration()


def _seeds(*key):
    return np.random.SeedSequence(0)


CASES = [
    # laplace
    (lambda: lpb.laplace_noise(1.0, BIG), "size must be at most 100,000,000 (noise draws held in memory)"),
    (lambda: lpb.laplace_noise(1.0, -1), "size must be an integer in"),
    (lambda: lpb.laplace_noise(1.0, 2.5), "size must be an integer"),
    (lambda: lpb.laplace_noise(0.0, 10), "scale must be in"),
    (lambda: lpb.laplace_density([0.0, np.nan], 1.0), "x must be finite"),
    (lambda: lpb.laplace_density("a", 1.0), "x must be an array"),
    (lambda: lpb.laplace_quantile([0.5, np.nan], 1.0), "q must be finite"),
    (lambda: lpb.laplace_quantile([0.0], 1.0), "q must lie in"),
    (lambda: lpb.laplace_variance(-1), "scale must be in"),
    # noise ratio
    (lambda: lpb.noise_ratio_stats(1.0, 10.0, BIG, 0), "n_queries must be at most 100,000,000"),
    (lambda: lpb.noise_ratio_stats(1.0, 10.0, 3, 0), "n_queries must be an integer in"),
    (lambda: lpb.noise_ratio_stats(-1.0, 10.0, 10, 0), "lam must be in"),
    (lambda: lpb.noise_ratio_stats(1.0, 0.0, 10, 0), "u_range must be in"),
    (lambda: lpb.noise_ratio_stats(1.0, 1.0, 10, -3), "seed must be an integer in"),
    # adversary
    (lambda: lpb.query_answers(U, K, "mode"), "query must be one of"),
    (lambda: lpb.query_answers([], K), "universe must hold at least 1"),
    (lambda: lpb.query_answers(U, [np.inf]), "known must be finite"),
    (lambda: lpb.query_answers(np.arange(10**6.0), np.zeros(10**5), "median"), "exceed the 10,000,000,000"),
    (lambda: lpb.sensitivity([[1.0]], K), "universe must be 1-dimensional"),
    (lambda: lpb.posteriors(U, K, "a", 2.0), "response must be an array"),
    (lambda: lpb.posteriors(U, K, [[1.0]], 2.0), "response must be a number or 1-dimensional"),
    (lambda: lpb.posteriors(U, K, [np.nan], 2.0), "response must be finite"),
    (lambda: lpb.posteriors(U, K, np.zeros(3 * 10**7), 2.0), "exceed the 100,000,000 held in memory"),
    (lambda: lpb.posteriors([1.0, 1.0], K, 1.0, 2.0), "universe values must be distinct"),
    (lambda: lpb.posteriors([1.0], K, 1.0, 2.0), "sensitivity is 0"),
    (lambda: lpb.max_posterior([1.0, 1.0, 2.0], K, 1.0), "universe values must be distinct"),
    (lambda: lpb.max_posterior(U, K, 0.0), "epsilon must be in"),
    (lambda: lpb.max_posterior(np.arange(2 * 10**5.0), K, 1.0), "exceed the 10,000,000,000"),
    # breach
    (lambda: lpb.capped_prior("two_point", BIG, 0.1), "size must be at most 100,000,000"),
    (lambda: lpb.capped_prior("two_point", 1, 0.1), "size must be an integer in"),
    (lambda: lpb.capped_prior("uniform", 10, 1.5), "cap must be in"),
    (lambda: lpb.capped_prior("random", 10, 0.5, seed="x"), "seed must be an integer"),
    (lambda: lpb.two_point_breach_rate(1.0, 1.0), "rho1 must be in"),
    (lambda: lpb.breach_simulation(U, K, 0.2, 0.5, "uniform", 1.0, BIG * 10, 10, 0), "n_responses must be an integer"),
    (lambda: lpb.breach_simulation(U, K, 0.2, 0.5, "uniform", 1.0, 10, BIG, 0), "chunk must be at most 100,000,000"),
    (
        lambda: lpb.breach_simulation(np.arange(10**4.0), K, 0.2, 0.5, "two_point", 1.0, 10**5, 10**5, 0),
        "chunk x universe",
    ),
    (lambda: lpb.breach_simulation(U, K, 0.5, 0.2, "uniform", 1.0, 10, 10, 0), "rho1 must be smaller than rho2"),
    (lambda: lpb.breach_simulation(U, K, 0.2, 0.5, "uniform", "e", 10, 10, 0), "epsilon must be a real number"),
    (lambda: lpb.breach_simulation([1.0, 1.0], K, 0.2, 0.5, "uniform", 1.0, 10, 10, 0), "two distinct values"),
    (lambda: lpb.breach_simulation(U, K, 0.2, 0.5, "flat", 1.0, 10, 10, 0), "prior must be one of"),
    # calibration
    (lambda: lpb.amplification_bound(0.5, 0.5), "rho1 must be smaller than rho2"),
    (lambda: lpb.lpb_epsilon(np.nan, 0.5), "rho1 must be a finite number"),
    (lambda: lpb.laplace_scale("1", 0.1, 0.5), "delta must be a real number"),
    (lambda: lpb.differential_identifiability_scale(1.0, 1, 0.5), "universe_size must be an integer in"),
    (lambda: lpb.LPBCalibration().calibrate(1.0, 0, 0.1, 0.5), "universe_size must be an integer in"),
    (lambda: lpb.EpsilonDP(eps=1.0).calibrate(-1.0, 10, 0.1, 0.5), "delta must be in"),
    (lambda: lpb.EpsilonDP(eps=np.inf), "eps must be a finite number"),
    # examples
    (lambda: lpb.worked_example(U, K, "5.041", 2.0), "response must be a real number"),
    (lambda: lpb.worked_example(U, K, 5.041, 0), "epsilon must be in"),
    (lambda: lpb.response_matches(["3.291", "x"], [1.75, 2.0], [5.041]), "printed_noise must hold numbers"),
    (lambda: lpb.response_matches(["3.291"], lpb.query_answers(U, K), [5.041]), "same length"),
    (lambda: lpb.response_matches(["3.291"], [1.75], ["a"]), "candidates must be an array"),
    (lambda: lpb.attribute_summary([]), "column must hold at least 1"),
    # advice
    (lambda: lpb.universe_of([np.nan, 1.0]), "column must be finite"),
    (lambda: lpb.advise([1.0, 2.0], query="median", rho1=0.1, rho2=0.5), "query must be one of"),
    (lambda: lpb.advise([1.0, 1.0], query="mean", rho1=0.1, rho2=0.5), "two distinct values"),
    (lambda: lpb.lambda_curve(1.0, 0.5, ["a"]), "rho1s must be an array"),
    (lambda: lpb.lambda_curve(1.0, 0.5, [0.6]), "rho1 must be smaller than rho2"),
    # Figure 5's statement
    (lambda: lpb.lpb_vs_dp(U, K, 0.2, 0.5, [1.0], BIG, 0, lpb.LPBCalibration()), "n_queries must be at most"),
    (lambda: lpb.lpb_vs_dp(U, K, 0.2, 0.5, [0.0], 10, 0, lpb.LPBCalibration()), "epsilons must all be > 0"),
    (lambda: lpb.lpb_vs_dp(U, K, 0.2, 0.5, [1.0], 10, 0, "lpb"), "calibration must be a privlab.lpb Calibration"),
    (lambda: lpb.lpb_vs_dp(U, [], 0.2, 0.5, [1.0], 10, 0, lpb.LPBCalibration()), "known must hold at least 1"),
    # the tables and grids the experiments call
    (lambda: lpb.worked_example_table(U, K, "mean", 2.0, [5.041], {}), "printed must hold Table I's noise"),
    (lambda: lpb.attribute_columns({"age": [1.0]}, ["age"]), "data must be a pandas DataFrame"),
    (lambda: lpb.attribute_columns(pd.DataFrame({"age": [1.0]}), "age"), "attributes must be a list"),
    (lambda: lpb.attribute_table({}, {}), "columns must be a non-empty mapping"),
    (lambda: lpb.attribute_table(COLS, {"x": {"max": 1}}), "printed must hold a row"),
    (lambda: lpb.attribute_table(COLS, {}, stands_for=["x"]), "stands_for must be a mapping"),
    (lambda: lpb.data_facts(pd.DataFrame({"age": [1.0]}), "income", ["age"]), "class_label must be a column"),
    (lambda: lpb.lambda_table(COLS, 0.5, 0.0, 0.1, 5), "rho1_min must be in"),
    (lambda: lpb.lambda_table(COLS, 0.5, 0.01, 0.1, 10**7), "points must be an integer in"),
    (lambda: lpb.panel_settings([0.1], ["x"], [0.5]), "panels must be a mapping"),
    (lambda: lpb.panel_settings({"x": [0.1]}, ["x"], [np.nan]), "rho2_grid must be finite"),
    (lambda: lpb.lpb_noise_ratio(COLS, {"x": [0.1]}, [0.5], "lpb", 10, seed_sequence=_seeds), "calibration must be"),
    (lambda: lpb.lpb_noise_ratio(COLS, {"x": [0.1]}, [0.5], CAL, BIG, seed_sequence=_seeds), "n_queries must be at"),
    (lambda: lpb.dp_noise_ratio(COLS, [1.0], 10, seed_sequence=None), "seed_sequence must be a function"),
    (
        lambda: lpb.lpb_vs_dp_grid([], {}, [0.5], [1.0], -1, 10, CAL, seed_sequence=_seeds),
        "columns must be a non-empty",
    ),
    (lambda: lpb.lpb_vs_dp_grid(COLS, {"x": [0.1]}, [0.5], [1.0], 99, 10, CAL, seed_sequence=_seeds), "target_index"),
    (
        lambda: lpb.breach_grid(COLS, {"x": [0.1]}, 1.0, ["uniform"], [1.0], -1, 10, 10, CAL, seed_sequence=_seeds),
        "rho2",
    ),
    (
        lambda: lpb.breach_grid(COLS, {"x": [0.1]}, 0.5, ["uniform"], [0.0], -1, 10, 10, CAL, seed_sequence=_seeds),
        "eps_f",
    ),
    (
        lambda: lpb.breach_grid(
            COLS, {"x": [0.1]}, 0.5, ["uniform"], [1.0], -1, 10, 10, CAL, seed_sequence=_seeds, log=1
        ),
        "log",
    ),
    (lambda: derivations.formula_table([], {}), "formulas must be a mapping"),
    (lambda: derivations.formula_table({}, {"age": {"expr": "1"}}), "numbers.age must be an entry with expr, value"),
    # the verdicts
    (
        lambda: verdicts.table1(
            pd.DataFrame(), printed={}, universe=U, known=K, query="mean", epsilon=2.0, rho1=0.2, rho2=0.5
        ),
        "df lacks",
    ),
    (lambda: verdicts.table2(pd.DataFrame(), printed={}, panels={}, stands_for={}, data_name="x"), "df lacks"),
    (lambda: verdicts.fig1_lambda("df", printed={}, stands_for={}, data_name="x"), "df must be a result table"),
    (
        lambda: verdicts.data_description(pd.DataFrame({"fact": [], "value": []}), printed={}, class_label="y"),
        "printed lacks",
    ),
    (lambda: verdicts.formulas(pd.DataFrame(), printed={}), "df lacks"),
    (lambda: verdicts.fig2_4_noise_ratio(pd.DataFrame(), printed={}, claim_rho2=0.2, limits={}), "df lacks"),
    (lambda: verdicts.fig5_dp_noise_ratio(pd.DataFrame(), printed={}, limits={}), "df lacks"),
    (lambda: verdicts.fig5_lpb_vs_dp(pd.DataFrame(), printed={}, limits={}), "df lacks"),
    (lambda: verdicts.breach_check(pd.DataFrame(), printed={}, rho2=0.5, limits={}), "df lacks"),
]


@pytest.mark.parametrize("call, message", CASES, ids=[m[:40] for _, m in CASES])
def test_bad_argument_one_line(call, message):
    with pytest.raises(PrivlabError) as err:
        call()
    text = str(err.value)
    assert message in text, text
    assert "\n" not in text


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.integers(-10, -1), st.integers(10**8 + 1, 10**15), st.floats(allow_nan=True), st.text(max_size=3)))
def test_laplace_noise_sizes(size):
    """Any size outside 0..10**8 (or not an integer) is one line, never an allocation."""
    if isinstance(size, float) and size.is_integer() and 0 <= size <= 10**8:
        return
    with pytest.raises(PrivlabError, match="^size must be"):
        lpb.laplace_noise(1.0, size)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10**7), st.integers(2, 10**5))
def test_breach_simulation_refuses_large_chunks_up_front(chunk, size):
    universe = np.arange(float(size))
    if chunk * size <= 10**8 and size <= 10**8:
        return
    with pytest.raises(PrivlabError, match="chunk x universe|chunk must be"):
        lpb.breach_simulation(universe, [0.0], 0.2, 0.5, "two_point", 1.0, 10**9, chunk, 0)


def test_max_posterior_blocks_beyond_the_dense_size(monkeypatch):
    """The blocked path (support columns, rows in blocks) gives the dense path's numbers."""
    universe, known = np.arange(300.0), np.arange(40.0) % 7
    for prior in (None, lpb.capped_prior("two_point", 300, 0.05), lpb.capped_prior("random", 300, 0.01, seed=2)):
        dense = lpb.max_posterior(universe, known, 0.8, prior=prior)
        monkeypatch.setattr(adversary, "_DENSE", 10)
        blocked = lpb.max_posterior(universe, known, 0.8, prior=prior)
        monkeypatch.setattr(adversary, "_DENSE", 4096)
        np.testing.assert_allclose(blocked, dense, rtol=1e-12)


def test_advise_on_a_large_integer_universe():
    """An integer column spanning 500,000 values: the two-point bound is computed (support 2),
    the uniform one is left out (NaN) instead of a 2.5e11-cell kernel."""
    values = np.array([0.0, 500_000.0, 1234.0, 99.0])
    res = lpb.advise(values, query="mean", rho1=0.05, rho2=0.5)
    assert res["universe_size"] == 500_001 and res["worst_posterior"] == pytest.approx(0.5, abs=1e-9)
    assert np.isnan(res["uniform_worst_posterior"])
