"""privlab.experiments.lpb.verdicts: every verdict agrees on a consistent table (the committed reference
results with their composed config) and turns to ``disagree`` when a fault is injected (a
perturbed cell, a broken trend, a wrong printed value)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from privlab import PrivlabError, runner
from privlab.experiments.lpb import verdicts

REFERENCE = Path(__file__).resolve().parents[2] / "experiments" / "lpb" / "reference" / "quick"
SETTING = ("universe", "known", "query", "epsilon", "rho1", "rho2")


@pytest.fixture(scope="module")
def ref():
    """``ref(name)`` -> (a fresh copy of the reference result table, the composed config)."""
    configs: dict = {}

    def load(name: str):
        if name not in configs:
            configs[name] = runner.compose(f"lpb/{name}", [])
        return pd.read_csv(REFERENCE / name / "result.csv"), configs[name]

    return load


def verdict(claims, start: str) -> str:
    """The verdict of the one claim whose text is ``start`` or, failing that, starts with it."""
    (found,) = [c for c in claims if c.claim == start] or [c for c in claims if c.claim.startswith(start)]
    return found.verdict


def plain(node) -> dict:
    return OmegaConf.to_container(node, resolve=True)


# --- Table I and the formulas ---------------------------------------------------------------


def table1(df, cfg, printed=None):
    return verdicts.table1(df, printed=cfg.printed if printed is None else printed, **{k: cfg[k] for k in SETTING})


def test_table1_agrees_on_the_reference(ref):
    df, cfg = ref("table1")
    claims = table1(df, cfg)
    for start in ("sensitivity of the mean", "Table I noise, value 1", "Table I true mean, value 10", "mean(D_10)"):
        assert verdict(claims, start) == "agree", start
    assert verdict(claims, "Table I noise, value 2") == "disagree"  # the paper's typo, 3.401 for 3.041
    assert table1(df, cfg, printed=plain(cfg.printed)) == claims  # a plain mapping reads as the config node


def test_table1_catches_a_perturbed_cell_and_a_wrong_printed_value(ref):
    df, cfg = ref("table1")
    df.loc[0, "noise"] += 0.01
    df.loc[4, "true_mean"] = 5.0
    claims = table1(df, cfg)
    assert verdict(claims, "Table I noise, value 1") == "disagree"
    assert verdict(claims, "Table I true mean, value 10") == "disagree"
    assert verdict(claims, "mean(D_10)") == "disagree"
    printed = plain(cfg.printed)
    printed["sensitivity"]["value"] = "2.30"
    printed["density"]["values"][0] = "0.0300"  # no longer the Laplace density of the printed noise
    claims = table1(ref("table1")[0], cfg, printed=printed)
    assert verdict(claims, "sensitivity of the mean") == "disagree"
    assert verdict(claims, "printed densities follow") == "disagree"


def test_formulas_agree_on_the_reference(ref):
    df, cfg = ref("formulas")
    claims = verdicts.formulas(df, printed=cfg.printed)
    assert len(claims) == len(df)
    assert verdict(claims, "Laplace density p(x | lambda)") == "agree"
    assert verdict(claims, "age: Delta f = (90 - 17)/48842") == "agree"
    assert verdict(claims, "Eq. (2)") == "disagree"  # the exponent's terms are swapped in the paper


def test_formulas_catch_a_failed_derivation_and_a_wrong_number(ref):
    df, cfg = ref("formulas")
    df.loc[df.key == "laplace_density", "match"] = False
    df.loc[df.key == "age_sensitivity", "derived_value"] *= 1.1
    claims = verdicts.formulas(df, printed=cfg.printed)
    assert verdict(claims, "Laplace density p(x | lambda)") == "disagree"
    assert verdict(claims, "age: Delta f = (90 - 17)/48842") == "disagree"


# --- Table II, Figure 1, Section V's data -------------------------------------------------------


def table2(df, cfg, **twin):
    twin = {"stands_for": cfg.stands_for, "data_name": cfg.dataset.name, **twin}
    return verdicts.table2(df, printed=cfg.printed, panels=cfg.panels, **twin)


def test_table2_agrees_and_names_the_causes_of_the_papers_errors(ref):
    df, cfg = ref("table2")
    claims = table2(df, cfg)
    for start in ("age max", "age min", "age sensitivity", "Figure 4 panel (a)"):
        assert verdict(claims, start) == "agree", start
    notes = {c.claim.split(" (")[0]: c.note for c in claims}
    assert "misplaced decimal point" in notes["education-num sensitivity"]
    assert "swapped" in notes["education-num random-guess rate 1/|U|"]
    assert "max - min" in notes["age random-guess rate 1/|U|"]


def test_table2_catches_a_perturbed_row(ref):
    df, cfg = ref("table2")
    age = df.attribute == "age"
    df.loc[age, "max"] = 91
    df.loc[age, "sensitivity"] *= 2
    df.loc[df.attribute == "hours-per-week", ["rg", "universe_size"]] = [1 / 62, 62]
    claims = table2(df, cfg)
    assert verdict(claims, "age max") == "disagree"
    assert verdict(claims, "age sensitivity") == "disagree"
    assert verdict(claims, "Figure 3 panel (a)") == "disagree"


def test_table2_twin_shows_adults_values_and_never_compares(ref):
    df, cfg = ref("table2")
    df["attribute"] = df.attribute.map({"age": "AGEP", "education-num": "EDU", "hours-per-week": "PINCP"})
    claims = table2(df, cfg, stands_for={"AGEP": "age", "EDU": "education-num", "PINCP": "hours-per-week"})
    assert {c.verdict for c in claims} == {"info"} and len(claims) == 15
    assert claims[0].note == f"{cfg.dataset.name} column AGEP stands in for Adult's age; {cfg.printed.not_comparable}"


def fig1(df, cfg):
    return verdicts.fig1_lambda(df, printed=cfg.printed, stands_for=cfg.stands_for, data_name=cfg.dataset.name)


def test_fig1_agrees_on_the_reference_and_catches_a_broken_trend(ref):
    df, cfg = ref("fig1_lambda")
    claims = fig1(df, cfg)
    assert verdict(claims, "lambda increases with rho1, age") == "agree"
    assert verdict(claims, "Figure 1 caption") == "disagree"  # one rho1 in the caption, a sweep in the text
    rows = df.index[df.attribute == "age"]
    df.loc[rows, "lambda"] = df.loc[rows, "lambda"].to_numpy()[::-1]
    claims = fig1(df, cfg)
    assert verdict(claims, "lambda increases with rho1, age") == "disagree"
    assert verdict(claims, "lambda increases with rho1, education-num") == "agree"


def test_data_description_agrees_and_catches_a_wrong_count(ref):
    df, cfg = ref("data_description")
    claims = verdicts.data_description(df, printed=cfg.printed, class_label=cfg.class_label)
    assert verdict(claims, "Adult comprises 48,842") == "agree" and verdict(claims, "Adult has 14") == "agree"
    assert "the class label income is not counted" in claims[1].note
    df.loc[df.fact == "records", "value"] = "48,843"
    printed = plain(cfg.printed)
    printed["attributes"]["value"] = "15"
    claims = verdicts.data_description(df, printed=printed, class_label=cfg.class_label)
    assert verdict(claims, "Adult comprises 48,842") == "disagree" and verdict(claims, "Adult has 14") == "disagree"


# --- Figures 2-5 and the breach simulation -------------------------------------------------------


def fig2_4(df, cfg):
    return verdicts.fig2_4_noise_ratio(df, printed=cfg.printed, claim_rho2=cfg.claim_rho2, limits=cfg.claims)


def test_fig2_4_agrees_on_the_reference(ref):
    df, cfg = ref("fig2_4_noise_ratio")
    claims = fig2_4(df, cfg)
    for start in ("at rho2 = 0.2 the noise grows", "all responses are close", "sampled quartiles agree"):
        assert verdict(claims, start) == "agree", start
    assert verdict(claims, "for fixed rho1, increasing rho2") == "disagree"  # the paper's rule says less noise


def test_fig2_4_catches_a_broken_trend_a_far_fence_and_a_shifted_quartile(ref):
    df, cfg = ref("fig2_4_noise_ratio")
    at = (df.attribute == "age") & np.isclose(df.rho2, cfg.claim_rho2)
    df.loc[at & (df.rho1 == df[at].rho1.max()), "lambda"] = 1e-12  # the largest rho1 needs the least noise
    df.loc[df.index[df.stat == "upper_fence"][0], "mc"] = 0.5
    q1 = df.index[df.stat == "q1"][3]
    df.loc[q1, "mc"] = df.loc[q1, "exact"] + 100 * df.loc[q1, "mc_se"]
    claims = fig2_4(df, cfg)
    for start in ("at rho2 = 0.2 the noise grows", "all responses are close", "sampled quartiles agree"):
        assert verdict(claims, start) == "disagree", start


def test_fig5_dp_shows_the_shrinking_iqr_for_reading_and_catches_identical_panels(ref):
    df, cfg = ref("fig5_dp_noise_ratio")
    claims = verdicts.fig5_dp_noise_ratio(df, printed=cfg.printed, limits=cfg.claims)
    # the scale is Delta / eps: shrinking is true by construction, info with that reason
    for a in ("age", "education-num"):
        (c,) = [c for c in claims if c.claim.startswith(f"the noise ratio shrinks as eps grows, {a}")]
        assert c.verdict == "info" and "by construction" in c.note
    assert verdict(claims, "the three attributes' panels differ") == "disagree"  # Lap(1/(n eps)) for each
    df.loc[(df.attribute == "hours-per-week") & (df.stat == "q3"), "exact"] *= 2
    claims = verdicts.fig5_dp_noise_ratio(df, printed=cfg.printed, limits=cfg.claims)
    assert verdict(claims, "the three attributes' panels differ") == "agree"


def test_fig5_lpb_vs_dp_agrees_and_catches_a_breach_below_and_a_different_noise(ref):
    df, cfg = ref("fig5_lpb_vs_dp")
    claims = verdicts.fig5_lpb_vs_dp(df, printed=cfg.printed, limits=cfg.claims)
    assert [c.verdict for c in claims] == ["agree", "agree"]
    below = df.index[df.epsilon < df.eps_calibrated][0]
    df.loc[below, "breach"] = True
    df.loc[df.index[df.at_calibrated_eps][0], "ks_p"] = 1e-9  # for reading only: not what decides
    claims = verdicts.fig5_lpb_vs_dp(df, printed=cfg.printed, limits=cfg.claims)
    assert [c.verdict for c in claims] == ["agree", "disagree"]
    first = df.index[df.at_calibrated_eps][0]  # LPB's scale parts from Delta / eps: not the same noise
    df.loc[first, "lambda_calibrated"] *= 1 + 1e-6
    claims = verdicts.fig5_lpb_vs_dp(df, printed=cfg.printed, limits=cfg.claims)
    assert [c.verdict for c in claims] == ["disagree", "disagree"]
    assert claims[1].reproduced.startswith("1 of 840 (setting, eps) pairs against it")


def breach(df, cfg):
    return verdicts.breach_check(df, printed=cfg.printed, rho2=cfg.rho2, limits=cfg.claims)


def test_breach_check_agrees_on_the_reference(ref):
    df, cfg = ref("breach_check")
    claims = breach(df, cfg)
    for start in ("at the calibrated lambda", "priors with every candidate", "two-point prior: simulated", "eps above"):
        assert verdict(claims, start) == "agree", start
    assert verdict(claims, "no response makes the posterior reach rho2") == "disagree"  # LPB's bound is tight
    assert claims[-1].verdict == "info" and "rho1=0.0137" in claims[-1].note


def test_breach_check_catches_a_posterior_above_rho2_a_breach_and_a_wrong_rate(ref):
    df, cfg = ref("breach_check")
    at = np.isclose(df.eps_factor, 1.0)
    capped = df.index[at & (df.prior == "uniform")][0]
    df.loc[capped, ["exact_max_posterior", "mc_breach"]] = [0.6, True]
    tight = df.index[at & (df.prior == "two_point")][0]
    df.loc[tight, "mc_breach_rate"] += 0.2
    above = df.index[(df.eps_factor > 1) & (df.prior == "two_point")][0]
    df.loc[above, "exact_breach"] = False
    claims = breach(df, cfg)
    for start in ("at the calibrated lambda", "priors with every candidate", "two-point prior: simulated", "eps above"):
        assert verdict(claims, start) == "disagree", start


# --- bad arguments --------------------------------------------------------------------------


def test_verdicts_refuse_bad_arguments_in_one_line(ref):
    df, cfg = ref("formulas")
    cases = [
        (lambda: verdicts.formulas(df.drop(columns="match"), printed=cfg.printed), "df lacks the column(s) match"),
        (lambda: verdicts.formulas(df.to_dict(), printed=cfg.printed), "df must be a result table"),
        (lambda: verdicts.formulas(df, printed=["x"]), "printed must be a mapping"),
        (lambda: verdicts.formulas(df, printed={"formulas": {}}), "printed lacks the key(s) numbers"),
        (lambda: verdicts.formulas(df, printed={"formulas": {}, "numbers": {}}), "printed.formulas lacks the case"),
        (lambda: verdicts.breach_check(ref("breach_check")[0], printed=cfg.printed, rho2=0.5, limits={}), "printed"),
        (lambda: verdicts.fig5_dp_noise_ratio(ref("fig5_dp_noise_ratio")[0], printed={}, limits={}), "printed lacks"),
    ]
    for call, message in cases:
        with pytest.raises(PrivlabError) as err:
            call()
        assert message in str(err.value) and "\n" not in str(err.value), str(err.value)
