"""The displayed formulas of the talk re-derived (privlab.isolation.derivations), altered formulas
caught, the talk's numbers in config, and the data model (ledger items of seed 002)."""

from __future__ import annotations

import numpy as np
import pytest

from privlab import PrivlabError, runner
from privlab import isolation as iso
from privlab.formulas import COLUMNS
from privlab.isolation import derivations as dv

AT = {"d": 10.0, "scale": 1.0, "t": 0.5, "c": 4.0, "s": 1.0, "n": 10000.0, "b": 1.0}
NOISE_MEAN = "scale*sqrt(2)*gamma((d+1)/2)/(gamma(d/2)*sqrt(d))"


def _at(*keys):
    return {k: AT[k] for k in keys}


def test_each_derivation_matches_or_shows_the_finding():
    mean, square = dv.noise_law_cases(
        NOISE_MEAN, "(scale*t)**2", _at("d", "scale", "t"), iso.expected_noise_length_ratio
    )
    assert mean.match and square.match and mean.printed_value == pytest.approx(0.97535007714523)
    assert dv.ball_ratio_case("c**d", "2**d", _at("d", "c")).match
    assert dv.cell_split_case("2**d", _at("d", "s")).derived_value == 1024
    assert dv.union_bound_case("n*2**(-b*d)", "2**(-b*d)", "2**sqrt(d)", _at("n", "b", "d")).match
    assert dv.t_radius_case(3, 40, 3, iso.t_radius).match
    # the findings: [-1, 1]^n, Case 1's count (T - 1 others); Case 1's distance holds for a large enough c
    # (c > 2 sqrt 6, 4 sqrt 3 with q at the centre), though not at slide 7's example c = 4
    uni = dv.universe_case("n", "d", _at("d", "n"))
    assert not uni.match and (uni.printed_value, uni.derived_value) == (10000, 10)
    dist = dv.case1_distance_case("1", _at("c", "d", "s"))
    assert dist.match and dist.derived_value == pytest.approx(4 / (2 * np.sqrt(6)))
    assert "c > 4.8990 (q uniform in the cell), c > 6.9282 (q at its centre)" in dist.detail
    assert not dv.case1_distance_case("c", _at("c", "d", "s")).match  # a bound growing as fast as the ratio: no c
    count = dv.case1_count_case("T", 3, 2, 100.0)
    assert not count.match and count.derived_value == 2


@pytest.mark.parametrize(
    ("check", "altered"),
    [
        (
            lambda f: dv.noise_law_cases(f, "(scale*t)**2", _at("d", "scale", "t"))[0],
            "scale*gamma((d+1)/2)/(gamma(d/2)*sqrt(d))",
        ),
        (
            lambda f: dv.noise_law_cases(f, "(scale*t)**2", _at("d", "scale", "t"))[0],
            "scale*sqrt(2)*gamma((d+1)/2)*gamma(d/2)/sqrt(d)",
        ),
        (lambda f: dv.noise_law_cases(NOISE_MEAN, f, _at("d", "scale", "t"))[1], "scale*t**2"),
        (lambda f: dv.ball_ratio_case(f, "2**d", _at("d", "c")), "c**(d-1)"),
        (lambda f: dv.ball_ratio_case(f, "2**d", _at("d", "c")), "c*d"),
        (lambda f: dv.cell_split_case(f, _at("d", "s")), "2*d"),  # the extraction's literal "2d"
        (lambda f: dv.universe_case(f, "d", _at("d", "n")), "d"),  # the correction itself matches
        (lambda f: dv.union_bound_case(f, "2**(-b*d)", "2**sqrt(d)", _at("n", "b", "d")), "n*2**(b*d)"),
        (lambda f: dv.union_bound_case(f, "2**(-b*d)", "2**sqrt(d)", _at("n", "b", "d")), "2**(-b*d)"),
        (lambda f: dv.case1_count_case(f, 3, 2, 100.0), "T - 1"),  # the corrected count matches
    ],
)
def test_altered_formulas_flip_the_verdict(check, altered):
    reference = {
        "T - 1": False,  # Case 1's printed T is the finding; its correction T - 1 matches
        "d": False,  # [-1, 1]^n is the finding; [-1, 1]^d matches
    }
    assert check(altered).match is not reference.get(altered, True)


def test_altered_code_law_is_caught():
    wrong = lambda d, scale: iso.expected_noise_length_ratio(d, scale) * 1.001  # noqa: E731
    assert not dv.noise_law_cases(NOISE_MEAN, "(scale*t)**2", _at("d", "scale", "t"), wrong)[0].match
    assert not dv.t_radius_case(3, 30, 2, lambda db, T: iso.t_radius(db, T + 1)).match


def test_lemma_for_balls_inside_the_cell():
    # slide 18: for a ball inside the cell the volume ratio is c^d, above 2^d exactly when c > 2
    assert dv.ball_ratio_case("c**d", "2**d", {"d": 5.0, "c": 2.5}).match
    assert not dv.ball_ratio_case("c**d", "2**d", {"d": 5.0, "c": 2.0}).match
    pts = np.random.default_rng(0).uniform(-1, 1, size=(200_000, 3))  # Monte Carlo volumes in a cell [-1, 1]^3
    r, c = 0.2, 3.0
    inner, outer = (np.linalg.norm(pts, axis=1) <= x for x in (r, c * r))
    assert outer.sum() / inner.sum() == pytest.approx(c**3, rel=0.05)


def test_formula_table_runs_every_case_on_the_configs_instances():
    cfg = runner.compose("isolation/formulas")
    df = dv.formula_table(cfg.printed.formulas, cfg.instance, cfg.case1, cfg.t_radius, cfg.n_of_d)
    keys = [k for k in dv.FORMULAS if k not in ("ball_bound", "per_point")]  # two bounds inside other rows
    assert list(df.key) == [*keys, "t_radius"]
    assert tuple(df.columns) == COLUMNS and set(df.key[~df.match]) == {"universe", "case1_count"}
    ball = dv.ball_ratio_case(cfg.printed.formulas.ball_ratio, "2**d", {"d": 10.0, "c": 4.0})
    assert df.set_index("key").loc["ball_ratio"].to_dict() == {k: v for k, v in ball.row().items() if k != "key"}
    # a wrong printed formula turns its row
    altered = {**cfg.printed.formulas, "cell_split": "2*d"}
    df = dv.formula_table(altered, cfg.instance, cfg.case1, cfg.t_radius, cfg.n_of_d)
    assert not df.set_index("key").match["cell_split"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"formulas": {"noise_mean": "d"}}, "formulas lacks the key\\(s\\) noise_square"),
        ({"instance": [1, 2]}, "instance must be a mapping"),
        ({"radius": {"T": 3, "n": 60}}, "radius lacks the key\\(s\\) d$"),
        ({"n_of_d": 5}, "n_of_d must be a sympy expression string"),
        ({"instance": {**AT, "d": "ten"}}, r"instance\.d must be a real number"),
    ],
)
def test_formula_table_bad_arguments(change, message):
    cfg = runner.compose("isolation/formulas")
    args = {"formulas": cfg.printed.formulas, "instance": cfg.instance, "case1": cfg.case1}
    args |= {"radius": cfg.t_radius, "n_of_d": cfg.n_of_d, **change}
    with pytest.raises(PrivlabError, match=message):
        dv.formula_table(**args)


def test_bad_printed_formula_is_one_clear_error():
    unreadable = r"^the printed formula of cell_split 'c\*\*' is not a formula sympy can read \(\w+\)$"
    with pytest.raises(PrivlabError, match=unreadable):
        dv.cell_split_case("c**", _at("d", "s"))
    with pytest.raises(PrivlabError, match="the printed ball_bound '2\\*\\*q' uses unknown symbol"):
        dv.ball_ratio_case("c**d", "2**q", _at("d", "c"))


def test_talk_parameters_in_config():
    # slide 7: c = 4, T = 100 (paper profile); slide 8: 'considerably' = 1/1000
    cfg = runner.compose("isolation/isolation_vs_d", profile="paper")
    assert (cfg.c, cfg.T, cfg.claims.negligible) == (4, 100, 0.001)
    assert runner.compose("isolation/bad_sanitizer").claims.negligible == 0.001


def test_slide12_picture_d2_T3():
    # slide 12's picture: d = 2, T = 3; every released cell below T, a split cell has 2^d = 4 children
    db = np.random.default_rng(3).uniform(-1, 1, size=(40, 2))
    leaves = iso.recursive_histogram(db, 3)
    assert all(leaf.count < 3 for leaf in leaves) and sum(leaf.count for leaf in leaves) == 40
    sides = {leaf.side for leaf in leaves}
    assert max(sides) <= 1.0 and all(np.log2(2 / side).is_integer() for side in sides)  # halved sides, root split


def test_histogram_is_deterministic():
    db = np.random.default_rng(4).uniform(-1, 1, size=(300, 3))
    a, b = iso.build_histogram(db, 5), iso.build_histogram(db.copy(), 5)
    assert np.array_equal(a.leaf_count, b.leaf_count) and np.array_equal(a.leaf_low, b.leaf_low)


def test_data_model_matches_the_talk():
    # slide 6: n points of R^d from D; slide 14: D uniform over the hypercube [-1, 1]^d
    X = iso.uniform_cube(500, 7, 0)
    assert X.shape == (500, 7) and X.min() >= -1 and X.max() <= 1


def test_float_target_indices_are_refused():
    # issue 11: float index arrays used to be truncated silently
    db = np.random.default_rng(0).uniform(-1, 1, size=(20, 2))
    with pytest.raises(PrivlabError, match="targets must be integer indices"):
        iso.isolation_rate(db[:3], np.array([1.0, 2, 3]), db, 1.0, 10)
    with pytest.raises(PrivlabError, match="indices must be integer indices"):
        iso.t_radius(db, 3, np.array([0.5]))
    with pytest.raises(PrivlabError, match="hidden_attribute must be integer indices"):
        iso.bad_sanitizer(db, np.array([1.0]))
    assert iso.isolation_rate(db[:3], np.array([1, 2, 3]), db, 1.0, 10) == iso.isolation_rate(
        db[:3], [1, 2, 3], db, 1.0, 10
    )
