"""Figure 5's "same effect as eps-DP" (privlab.lpb.lpb_vs_dp) and the ACS twins of Table II and
Figure 1: claims that can come out either way, and twins that never disagree on Adult's numbers."""

import numpy as np
import pytest

from privlab import lpb, registry, runner


def _rows(calibration, rho1=0.1, rho2=0.5, n=2000, seed=4):
    universe, known = np.arange(20.0), np.arange(60.0) % 20
    return lpb.lpb_vs_dp(universe, known, rho1, rho2, [0.05, 0.5, 1.0, 2.0, 3.0, 5.0], n, seed, calibration)


def test_eps_dp_at_lpbs_eps_is_lpb():
    rows = _rows(lpb.LPBCalibration())
    first, grid = rows[0], rows[1:]
    assert first["at_calibrated_eps"] and first["epsilon"] == pytest.approx(lpb.lpb_epsilon(0.1, 0.5))
    assert first["lambda_dp"] == pytest.approx(first["lambda_calibrated"], rel=1e-15)
    assert first["exact_quartile_gap"] == 0.0 and first["ks_p"] > 1e-3
    assert first["worst_posterior"] == pytest.approx(0.5, abs=1e-12) and first["breach"]  # tight: Definition 3's >=
    assert [r["breach"] for r in grid] == [r["epsilon"] >= first["epsilon"] for r in grid]
    # the same seed gives the same rows; independent streams per mechanism
    again = _rows(lpb.LPBCalibration())
    assert again[0]["ks_p"] == first["ks_p"] and first["iqr_calibrated"] != first["iqr_dp"]


def test_a_rule_that_is_not_lpbs_contradicts_the_semantics():
    """Differential identifiability calibrates to rho1 = 1/|U| = 0.05: for a prior cap of 0.3 its eps
    (ln 19) is above LPB's (ln 2.33), and the grid eps between the two breach although below it."""
    rows = _rows(lpb.DifferentialIdentifiability(), rho1=0.3)
    cal = rows[0]["epsilon"]
    assert cal == pytest.approx(np.log(19.0))
    against = [r for r in rows[1:] if r["breach"] != (r["epsilon"] >= cal)]
    assert against and all(lpb.lpb_epsilon(0.3, 0.5) <= r["epsilon"] < cal for r in against)


def test_ks_detects_a_different_noise():
    """The sampled comparison can fail: eps-DP at twice LPB's eps is told apart from LPB."""
    from scipy import stats

    nr_lpb = lpb.laplace_noise(1.0, 2000, 1)
    nr_dp = lpb.laplace_noise(0.5, 2000, 2)
    assert stats.ks_2samp(nr_lpb, nr_dp).pvalue < 1e-6


def _claims(exp_id, tmp_path, overrides=()):
    exp = registry.get(exp_id)
    cfg = runner.compose(exp_id, [*exp.smoke, "cache=false", *overrides])
    ctx = runner.make_context(cfg, tmp_path, log=lambda m: None)
    table = runner.run_table(exp, cfg, ctx)
    return table, exp.check_claims(table, cfg)


def test_table2_twin_shows_adults_numbers_and_never_compares(tmp_path):
    table, found = _claims("lpb/table2_acs", tmp_path)
    assert list(table.attribute) == ["AGEP", "EDU", "PINCP"]
    assert table.set_index("attribute").loc["EDU", "max"] == 12 and table.n.max() == 16910  # persons with a value
    assert {c.verdict for c in found} == {"info"}
    assert all("stands in for Adult's" in c.note for c in found)


@pytest.mark.slow
def test_twins_pair_claim_by_claim_with_the_originals(tmp_path):
    """The report sets a twin's claims beside the original's by their text: every one has a partner."""
    for exp_id in ("lpb/table2", "lpb/fig1_lambda"):
        _, original = _claims(exp_id, tmp_path / "adult")
        _, twin = _claims(f"{exp_id}_acs", tmp_path / "acs")
        assert [c.claim for c in twin] == [c.claim for c in original]


def test_fig1_twin_checks_the_shape_on_real_records(tmp_path):
    table, found = _claims("lpb/fig1_lambda_acs", tmp_path)
    verdicts = {c.claim: c.verdict for c in found}
    assert [v for k, v in verdicts.items() if k.startswith("lambda increases")] == ["agree"] * 3
    assert [k for k, v in verdicts.items() if v == "disagree"] == [
        "Figure 1 caption: rho1 = 0.01, rho2 = 0.5 (Figure 1 caption vs Section V)"  # the text, not the data
    ]
    assert registry.get("lpb/fig1_lambda_acs").twin_of == "lpb/fig1_lambda"


def test_lpb_vs_dp_grid_is_lpb_vs_dp_per_setting():
    column = np.array([4.0, 0.0, 9.0, 3.0, 9.0, 1.0])

    def seeds(*key):
        return np.random.SeedSequence(3, spawn_key=tuple(len(str(k)) for k in key))

    table = lpb.lpb_vs_dp_grid(
        {"x": column}, {"x": [0.1, 0.3]}, [0.2, 0.5], [0.5, 2.0], -1, 40, lpb.LPBCalibration(), seed_sequence=seeds
    )
    assert list(dict.fromkeys(zip(table.rho1, table.rho2))) == [(0.1, 0.2), (0.1, 0.5), (0.3, 0.5)]
    assert len(table) == 3 * 3  # the calibrated eps and each grid eps per setting
    known, universe = lpb.informed_adversary(column, -1)
    alone = lpb.lpb_vs_dp(universe, known, 0.3, 0.5, [0.5, 2.0], 40, seeds("x", 0.3, 0.5), lpb.LPBCalibration())
    last = table[table.rho1 == 0.3].drop(columns=["attribute", "rho1", "rho2"]).to_dict("records")
    assert [r["ks_p"] for r in last][:1] == [alone[0]["ks_p"]] and [r["breach"] for r in last] == [
        r["breach"] for r in alone
    ]
