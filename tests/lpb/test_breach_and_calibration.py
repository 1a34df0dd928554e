"""What moved from experiments/lpb.py into the library: capped priors, the breach
simulation against its exact counterpart, noise-ratio statistics, the calibration
mechanisms, Table I/II helpers, and posteriors at extreme responses."""

import math
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError, lpb


@settings(max_examples=50, deadline=None)
@given(
    st.sampled_from(["uniform", "random", "adversarial"]),
    st.integers(2, 60),
    st.floats(0.0, 1.0),
    st.integers(0, 2**31),
)
def test_capped_priors_respect_the_cap(kind, size, frac, seed):
    cap = 1.0 / size + frac * (1 - 1.0 / size)
    p = lpb.capped_prior(kind, size, cap, seed)
    assert p.sum() == pytest.approx(1.0) and (p >= 0).all()
    assert p.max() <= cap + 1e-9


def test_capped_prior_shapes_and_errors():
    p = lpb.capped_prior("two_point", 10, 0.05)
    assert p[-1] == 0.05 and p[0] == 0.95 and p[1:-1].sum() == 0
    adv = lpb.capped_prior("adversarial", 10, 0.3)
    assert adv[-1] == pytest.approx(0.3) and adv[:3].tolist() == pytest.approx([0.3, 0.3, 0.1])
    with pytest.raises(PrivlabError, match="below 1/\\|U\\|"):
        lpb.capped_prior("uniform", 10, 0.05)
    with pytest.raises(PrivlabError, match="prior must be one of"):
        lpb.capped_prior("flat", 10, 0.5)


def test_two_point_breach_rate_matches_simulation():
    # at LPB's eps the posterior of the largest value equals rho2 exactly for every r >= f(D_max)
    universe, known = np.arange(20.0), np.arange(50.0) % 20
    rho1, rho2 = 0.1, 0.5
    eps = lpb.lpb_epsilon(rho1, rho2)
    out = lpb.breach_simulation(universe, known, rho1, rho2, "two_point", eps, 40000, 10000, seed=3)
    exact = lpb.two_point_breach_rate(rho1, eps)
    se = math.sqrt(exact * (1 - exact) / 40000)
    assert abs(out["mc_breach_rate"] - exact) < 5 * se
    assert out["exact_max_posterior"] == pytest.approx(rho2, rel=1e-9) and out["mc_breach"]


def test_no_breach_below_the_bound_and_breaches_above():
    universe, known = np.arange(10.0), np.array([1.0, 4.0, 7.0])
    rho1, rho2 = 0.2, 0.5
    eps = lpb.lpb_epsilon(rho1, rho2)
    calm = lpb.breach_simulation(universe, known, rho1, rho2, "uniform", eps, 5000, 1000, seed=1)
    assert not calm["exact_breach"] and not calm["mc_breach"] and calm["exact_max_posterior"] <= rho2
    hot = lpb.breach_simulation(universe, known, rho1, rho2, "two_point", 2 * eps, 5000, 1000, seed=1)
    assert hot["exact_breach"] and hot["mc_breach_rate"] > 0


def test_noise_ratio_stats_cover_the_exact_quantiles():
    lam, width, n = 0.3, 50.0, 1000
    z = []
    for seed in range(60):
        rows = {r["stat"]: r for r in lpb.noise_ratio_stats(lam, width, n, seed)}
        assert rows["median"]["exact"] == 0.0
        assert rows["q3"]["exact"] == pytest.approx(lam / width * math.log(2))
        z.append((rows["q1"]["mc"] - rows["q1"]["exact"]) / rows["q1"]["mc_se"])
    assert abs(np.mean(z)) < 0.5 and 0.7 < np.std(z) < 1.3  # the s.e. is the sampling s.d.


def test_calibrations():
    lpb_rule, di, dp = lpb.LPBCalibration(), lpb.DifferentialIdentifiability(), lpb.EpsilonDP(eps=0.7)
    assert lpb_rule.calibrate(2.0, 10, 0.2, 0.5) == pytest.approx((math.log(4), 2 / math.log(4)))
    assert di.epsilon(10, 0.3, 0.5) == pytest.approx(lpb.lpb_epsilon(0.1, 0.5))  # rho1 ignored: 1/|U|
    assert dp.calibrate(1.4, 10, 0.2, 0.5) == pytest.approx((0.7, 2.0))
    with pytest.raises(PrivlabError, match="eps must be in"):
        lpb.EpsilonDP(eps=0)
    with pytest.raises(PrivlabError, match="rho1 must be smaller than rho2"):
        lpb_rule.epsilon(10, 0.6, 0.5)


@settings(max_examples=40, deadline=None)
@given(st.floats(1e3, 1e300), st.integers(0, 2**31))
def test_posteriors_stay_exact_for_huge_responses(big, seed):
    universe, known = [1.0, 2.0, 3.0, 5.0, 10.0], [1.0, 2.0, 3.0]
    prior = np.random.default_rng(seed).dirichlet(np.ones(5))
    answers = lpb.query_answers(universe, known)
    # beyond the answers the posterior no longer depends on r: the limit is its value just past the range
    for r, edge in ((big, answers.max() + 1.0), (-big, answers.min() - 1.0)):
        got = lpb.posteriors(universe, known, r, 2.0, prior=prior)
        np.testing.assert_allclose(got, lpb.posteriors(universe, known, edge, 2.0, prior=prior), rtol=1e-9)
        assert not np.allclose(got, prior)


def test_table_helpers():
    answers = lpb.query_answers([1, 2, 3, 5, 10], [1, 2, 3])
    noise = ["3.291", "3.401", "2.791", "2.291", "1.041"]
    assert lpb.response_matches(noise, answers, [5.401, 5.041]) == {5.401: 1, 5.041: 4}
    ex = lpb.worked_example(np.array([1, 2, 3, 5, 10.0]), np.array([1, 2, 3.0]), 5.041, 2.0)
    assert ex["lambda"] == pytest.approx(1.125) and ex["posterior"][-1] == pytest.approx(0.54212, abs=1e-5)
    s = lpb.attribute_summary(np.array([17.0, 90.0, 30.0, 30.0]))
    assert s == {
        "n": 4,
        "max": 90.0,
        "min": 17.0,
        "sensitivity": 73 / 4,
        "universe_size": 74,
        "rg": 1 / 74,
        "distinct_values": 3,
        "range": 73.0,
    }


def test_informed_adversary_knows_all_but_the_target():
    from privlab.lpb.breach import informed_adversary

    known, universe = informed_adversary(np.array([3.0, 7.0, 5.0, 4.0]), -1)
    assert known.tolist() == [3.0, 7.0, 5.0] and universe.tolist() == [3.0, 4.0, 5.0, 6.0, 7.0]
    known, _ = informed_adversary(np.array([3.0, 7.0, 5.0]), 0)
    assert known.tolist() == [7.0, 5.0]
    for bad in (3, -4, 1.5):
        with pytest.raises(PrivlabError, match="target_index"):
            informed_adversary(np.array([3.0, 7.0, 5.0]), bad)


# --- the grid runners and table builders the experiments call --------------------------------

COLUMNS = {"a": np.array([0.0, 3.0, 1.0, 2.0, 3.0]), "b": np.array([1.0, 5.0, 2.0, 4.0])}


def _seeds(*key):
    return np.random.SeedSequence(7, spawn_key=tuple(zlib.crc32(repr(k).encode()) for k in key))


def test_attribute_columns_tables_and_facts():
    import pandas as pd

    data = pd.DataFrame({"age": [17.0, 90.0, None, 30.0], "job": ["x", "y", "z", "x"], "label": [0, 1, 0, 1]})
    cols = lpb.attribute_columns(data, ["age"], "adult")
    assert cols["age"].tolist() == [17.0, 90.0, 30.0]  # the record without a value left out
    with pytest.raises(PrivlabError, match="attributes must be columns of adult; got 'hours'"):
        lpb.attribute_columns(data, ["hours"], "adult")
    printed = {"age": {"max": 90, "min": 17, "sensitivity": "0.0015", "rg": "0.0137"}}
    table = lpb.attribute_table(cols, printed)
    assert table.loc[0, "sensitivity"] == pytest.approx(73 / 3) and table.loc[0, "universe_size"] == 74
    assert table.loc[0, "printed_rg"] == 0.0137 and "range" not in table.columns
    twin = lpb.attribute_table({"AGEP": cols["age"]}, printed, {"AGEP": "age"})  # a twin's column, Adult's row
    assert twin.attribute.tolist() == ["AGEP"] and twin.loc[0, "printed_max"] == 90
    with pytest.raises(PrivlabError, match="printed must hold a row"):
        lpb.attribute_table({"AGEP": cols["age"]}, printed)
    facts = dict(lpb.data_facts(data, "label", ["age"]).itertuples(index=False))
    assert facts == {
        "records": "4",
        "attributes": "2",
        "numerical": "1",
        "categorical": "1",
        "numerical_names": "age",
        "age_range": "17~90",
    }


def test_lambda_table_is_lpbs_rule_on_each_column():
    table = lpb.lambda_table(COLUMNS, 0.5, 0.05, 0.2, 4)
    assert table.groupby("attribute").size().to_dict() == {"a": 4, "b": 4}
    assert table.rho1.tolist()[:4] == [0.05, 0.1, 0.15, 0.2]
    a = table[table.attribute == "a"]
    assert a["lambda"].tolist() == pytest.approx([lpb.laplace_scale(3 / 5, r, 0.5) for r in a.rho1])
    assert a.lambda_di.iloc[0] == pytest.approx(lpb.differential_identifiability_scale(3 / 5, 4, 0.5))
    with pytest.raises(PrivlabError, match="points must be an integer"):
        lpb.lambda_table(COLUMNS, 0.5, 0.05, 0.2, 1)


def test_panel_settings_keep_the_panels_order_and_rho2_above_rho1():
    panels = {"b": [0.3, 0.1], "a": [0.2], "c": [0.1]}
    got = lpb.panel_settings(panels, ["a", "b"], [0.2, 0.5])
    assert got == [("b", 0.3, 0.5), ("b", 0.1, 0.2), ("b", 0.1, 0.5), ("a", 0.2, 0.5)]


def test_noise_ratio_grids_match_one_setting_at_a_time():
    calls = []

    def map_fn(fn, items):
        calls.append(len(items))
        return [fn(x) for x in items]

    table = lpb.lpb_noise_ratio(
        COLUMNS, {"a": [0.3]}, [0.2, 0.5], lpb.LPBCalibration(), 40, seed_sequence=_seeds, map_fn=map_fn
    )
    eps, lam = lpb.LPBCalibration().calibrate(3 / 5, 4, 0.3, 0.5)
    alone = lpb.noise_ratio_stats(lam, 3.0, 40, _seeds("a", 0.3, 0.5))
    assert calls == [1] and table.epsilon.unique().tolist() == [eps]
    assert table.mc.tolist() == [r["mc"] for r in alone] and table.stat.tolist() == list(lpb.NR_STATS)
    dp = lpb.dp_noise_ratio(COLUMNS, [0.5, 2.0], 40, seed_sequence=_seeds)
    assert len(dp) == 2 * 2 * len(lpb.NR_STATS)
    row = dp[(dp.attribute == "b") & (dp.epsilon == 2.0)]
    assert row["lambda"].iloc[0] == pytest.approx(1.0 / 2.0)  # sensitivity (5 - 1) / 4 over eps
    assert row.mc.tolist() == [r["mc"] for r in lpb.noise_ratio_stats(0.5, 4.0, 40, _seeds("b", 2.0))]
    with pytest.raises(PrivlabError, match="epsilons must all be > 0"):
        lpb.dp_noise_ratio(COLUMNS, [0.0], 40, seed_sequence=_seeds)
    with pytest.raises(PrivlabError, match="map_fn must be a function"):
        lpb.dp_noise_ratio(COLUMNS, [1.0], 40, seed_sequence=_seeds, map_fn="serial")


def test_breach_grid_runs_each_setting_and_logs_the_ones_left_out():
    logged = []
    args = (COLUMNS, {"a": [0.2, 0.3]}, 0.5, ["uniform", "two_point"], [1.0, 2.0], -1, 50, 25)
    table = lpb.breach_grid(*args, lpb.LPBCalibration(), seed_sequence=_seeds, log=logged.append)
    # a: universe 0..3 (|U| = 4): the uniform prior needs rho1 >= 1/4, so rho1 = 0.2 has only two_point
    assert logged == ["breach_check: no uniform prior for a at rho1=0.2 < 1/|U|"] * 2  # once per eps factor
    assert list(zip(table.rho1, table.prior, table.eps_factor)) == [
        (0.2, "two_point", 1.0),
        (0.2, "two_point", 2.0),
        (0.3, "uniform", 1.0),
        (0.3, "uniform", 2.0),
        (0.3, "two_point", 1.0),
        (0.3, "two_point", 2.0),
    ]
    known, universe = lpb.informed_adversary(COLUMNS["a"], -1)
    eps = 2.0 * lpb.lpb_epsilon(0.3, 0.5)
    alone = lpb.breach_simulation(
        universe, known, 0.3, 0.5, "two_point", eps, 50, 25, _seeds("a", 0.3, "two_point", 2.0)
    )
    assert table.iloc[-1].epsilon == pytest.approx(eps) and table.iloc[-1].mc_breach_rate == alone["mc_breach_rate"]
    with pytest.raises(PrivlabError, match="prior must be one of"):
        lpb.breach_grid(
            COLUMNS, {"a": [0.3]}, 0.5, ["flat"], [1.0], -1, 50, 25, lpb.LPBCalibration(), seed_sequence=_seeds
        )
