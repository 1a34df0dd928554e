"""`privlab.experiments.cae.verdicts`: each experiment's claims agree on the committed reference tables with the
composed config, and turn to ``disagree`` when a table value, a trend or a printed value is broken."""

from pathlib import Path

import pandas as pd
import pytest

from privlab import PrivlabError, mechanisms
from privlab.experiments.cae import verdicts
from privlab.runner import compose

REF = Path(__file__).resolve().parents[2] / "experiments" / "cae" / "reference" / "quick"


def _ref(name, overrides=()):
    return pd.read_csv(REF / name / "result.csv"), compose(f"cae/{name}", list(overrides))


def _sdc_blocks(cfg):
    techniques = {m.label: m.impl for m in mechanisms.build(cfg.mechanism, kind="sdc_technique").values()}
    return {
        "printed": cfg.printed,
        "limits": cfg.claims,
        "techniques": techniques,
        "datasets": cfg.datasets,
        "lp_check_records": cfg.lp_check_records,
    }


def _by_claim(claims, start):
    """The verdicts of the claims whose text starts with ``start``."""
    found = [c.verdict for c in claims if c.claim.startswith(start)]
    assert found, f"no claim starts with {start!r}"
    return found


def test_example_agrees_and_a_wrong_h_or_step_function_disagrees():
    df, cfg = _ref("example")
    blocks = {"printed": cfg.printed, "x": list(cfg.x), "p": list(cfg.p), "limits": cfg.claims}
    verdict = {c.claim: c.verdict for c in verdicts.example(df, **blocks)}
    assert [v for c, v in verdict.items() if "maximised" in c] == ["disagree"]  # the problem statement's typo
    assert sorted(set(verdict.values())) == ["agree", "disagree", "info"]
    assert sum(v != "agree" for v in verdict.values()) == 2
    broken = df.copy()
    broken.loc[broken.eps == 1, "H"] += 0.01
    after = verdicts.example(broken, **blocks)
    assert _by_claim(after, "H(eps) of the worked example, eps = 1 (") == ["disagree"]
    assert _by_claim(after, "the dynamic program at every integer eps") == ["disagree"]


def test_table1_agrees_and_unequal_h0_disagrees():
    df, cfg = _ref("table1_fig1")
    claims = verdicts.table1_fig1(df, printed=cfg.printed, limits=cfg.claims)
    assert {c.verdict for c in claims} == {"agree"}
    broken = df.copy()
    broken.loc[broken.example == broken.example.iloc[-1], "H0"] += 0.5
    after = verdicts.table1_fig1(broken, printed=cfg.printed, limits=cfg.claims)
    assert _by_claim(after, "H(0) is the same in both cases") == ["disagree"]
    assert _by_claim(after, "CAE tells the examples apart") == ["disagree"]


def test_table1_a_wrong_printed_range_disagrees():
    df, cfg = _ref("table1_fig1")
    first = next(iter(cfg.printed.range["values"]))
    _, wrong = _ref("table1_fig1", [f"printed.range.values.{first}=1"])
    after = verdicts.table1_fig1(df, printed=wrong.printed, limits=wrong.claims)
    assert _by_claim(after, "the approximate compromise range eps")[0] == "disagree"


def test_formulas_follow_the_match_column_and_a_broken_derivation_disagrees():
    df, cfg = _ref("formulas")
    df["detail"] = df.detail.fillna("")
    claims = verdicts.formulas(df, printed=cfg.printed)
    assert [c.verdict for c in claims[:-1]] == ["agree" if m else "disagree" for m in df.match]
    assert claims[-1].claim.startswith("every algorithm printed for the techniques")
    good = int(df.index[df.match][0])
    broken = df.assign(match=df.match.where(df.index != good, False))
    assert verdicts.formulas(broken, printed=cfg.printed)[good].verdict == "disagree"


def test_sdc_agrees_on_figure_2_noise_and_a_failed_checker_or_a_rise_with_sk_disagrees():
    df, cfg = _ref("fig2_noise")
    blocks = _sdc_blocks(cfg)
    assert {c.verdict for c in verdicts.sdc(df, **blocks)} == {"agree"}
    failed = df.assign(artifact_violation=df.artifact_violation.where(df.index != 3, 1.0))
    assert _by_claim(verdicts.sdc(failed, **blocks), "noise: every released artifact passes") == ["disagree"]
    rise = df.copy()
    last = (rise.dataset == "pums") & (rise.sk_size == rise.sk_size.max())
    rise.loc[last, "H0"] += 1.0
    after = verdicts.sdc(rise, **blocks)
    assert _by_claim(after, "PUMS/noise: privacy (H0) declines as SK grows") == ["disagree"]
    assert _by_claim(after, "Adult/noise: privacy (H0) declines as SK grows") == ["agree"]


def test_sdc_monte_carlo_far_from_the_exact_expectation_disagrees():
    df, cfg = _ref("fig2_noise")
    far = df.assign(H0_unique=df.H0_unique + 20 * df.H0_unique_exact_se + 0.1)
    assert _by_claim(verdicts.sdc(far, **_sdc_blocks(cfg)), "noise H0: Monte Carlo mean vs exact") == ["disagree"]


def test_fig2_sampling_formula_holds_for_one_value_only_and_a_broken_utility_trend_disagrees():
    df, cfg = _ref("fig2_sampling")
    claims = verdicts.fig2_sampling(df, **_sdc_blocks(cfg))
    assert [c.verdict for c in claims if c.verdict != "agree"] == ["disagree"]  # the printed * |D|
    assert claims[-1].claim.startswith("p_i = ") and claims[-1].verdict == "disagree"
    _, one = _ref("fig2_sampling", ["printed.formula.domain_size=1"])  # * |D| = / |D| when |D| = 1
    assert {c.verdict for c in verdicts.fig2_sampling(df, **_sdc_blocks(one))} == {"agree"}
    flipped = df.assign(H0=df.H0 + df.param / 10)  # CAE now rises with the sampling fraction
    assert _by_claim(verdicts.fig2_sampling(flipped, **_sdc_blocks(cfg)), "sampling H0: CAE rises") == ["disagree"]


def test_fig2_query_restriction_comparisons_agree_and_a_distant_sampling_h0_disagrees():
    df, cfg = _ref("fig2_query_restriction")
    blocks = _sdc_blocks(cfg)
    claims = verdicts.fig2_query_restriction(df, **blocks)
    assert [c.claim.split(":")[0] for c in claims if c.verdict != "agree"] == ["Adult"]  # Area: Q above sampling
    assert _by_claim(claims, "PUMS: without SK, sampling 50% and query-set size 8 give") == ["agree"]
    sampling = (df.technique == "sampling") & (df.param == cfg.printed.similar.sampling) & (df.sk_size == 0)
    broken = df.copy()
    broken.loc[sampling & (df.dataset == "pums"), "H0"] *= 0.5
    after = verdicts.fig2_query_restriction(broken, **blocks)
    assert _by_claim(after, "PUMS: without SK, sampling 50% and query-set size 8 give") == ["disagree"]


def test_fig4_noise_agrees_and_a_released_artifact_failing_its_checker_disagrees():
    df, cfg = _ref("fig4_noise")
    blocks = _sdc_blocks(cfg)
    claims = verdicts.fig4_noise(df, **blocks)
    assert [c.verdict for c in claims[:-1]] == ["agree"] * (len(claims) - 1)
    assert claims[-1].verdict == "info" and claims[-1].reproduced == "max H0, A over such records: 0"
    failed = df.assign(artifact_violation=df.artifact_violation.where(df.index != 0, 0.5))
    assert _by_claim(verdicts.fig4_noise(failed, **blocks), "noise: every released artifact") == ["disagree"]


def test_table2_agrees_and_a_misprinted_count_or_another_acs_count_disagrees():
    df, cfg = _ref("table2_data")
    claims = verdicts.table2_data(df, printed=cfg.printed)
    assert {c.verdict for c in claims} == {"agree", "info"}
    wrong = df.assign(printed_values=df.printed_values.where(df.attribute != "salary", 26))  # a misprint
    after = verdicts.table2_data(wrong, printed=cfg.printed)
    assert _by_claim(after, "No of Values follows from Min, Max and Rounding, salary") == ["disagree"]
    broken = df.assign(acs_raw_distinct=df.acs_raw_distinct + 1)
    assert _by_claim(verdicts.table2_data(broken, printed=cfg.printed), "Sex is categorical") == ["disagree"]


def test_verdicts_refuse_a_table_without_their_columns_or_a_technique_they_do_not_know():
    df, cfg = _ref("fig2_noise")
    with pytest.raises(PrivlabError, match="df lacks the column"):
        verdicts.sdc(df.drop(columns="H0_se"), **_sdc_blocks(cfg))
    with pytest.raises(PrivlabError, match=r"techniques\['noise'\] must be an SDCTechnique"):
        verdicts.sdc(df, **{**_sdc_blocks(cfg), "techniques": {}})
    with pytest.raises(PrivlabError, match="datasets must have a block"):
        verdicts.sdc(df, **{**_sdc_blocks(cfg), "datasets": {"pums": None}})
    with pytest.raises(PrivlabError, match="printed must be a mapping"):
        verdicts.table2_data(_ref("table2_data")[0], printed="printed")
    with pytest.raises(PrivlabError, match="df must be a result table \\(a DataFrame\\)"):
        verdicts.formulas("df", printed=cfg.printed)


def test_a_sharp_decline_needs_the_declared_reading_not_merely_a_drop():
    df, cfg = _ref("fig2_query_restriction")
    sharp = "PUMS/query_restriction: the H0 decline is sharp at high utility"
    assert _by_claim(verdicts.sdc(df, **_sdc_blocks(cfg)), sharp) == ["agree"]  # Q = 2 drops 3.04 bits, Q = 32 none
    # a Q = 2 curve that drops half a bit: it still drops more than the pinned Q = 32 curve, but not sharply
    shallow = df.copy()
    q2 = (shallow.dataset == "pums") & (shallow.param == 2)
    top = shallow.loc[q2, "H0"].max()
    shallow.loc[q2, "H0"] = top - 0.5 * (shallow.loc[q2, "sk_size"] - 1) / (shallow.loc[q2, "sk_size"].max() - 1)
    assert _by_claim(verdicts.sdc(shallow, **_sdc_blocks(cfg)), sharp) == ["disagree"]
