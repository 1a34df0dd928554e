"""privlab.experiments.multilevel.verdicts on the committed reference tables with their composed configs: each
verdict agrees on the consistent table and turns to disagree when a fault is injected (a perturbed
table value, a broken law, a wrong printed value)."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from privlab import PrivlabError
from privlab.experiments.multilevel import verdicts
from privlab.runner import compose

REFERENCE = Path(__file__).resolve().parents[2] / "experiments" / "multilevel" / "reference" / "quick"
LAWS = ("distributions", "domain_size")


def reference(name: str) -> tuple[pd.DataFrame, dict]:
    """The reference table of ``name`` (read back as the experiment wrote it) and its config as a plain dict."""
    df = pd.read_csv(REFERENCE / name / "result.csv", dtype={"printed": str})
    for column in ("printed", "detail"):
        if column in df:
            df[column] = df[column].fillna("")
    return df, OmegaConf.to_container(compose(f"multilevel/{name}", []))


def judge(name: str, df: pd.DataFrame, cfg: dict, *setting: str, limits: bool = True) -> dict[str, str]:
    """Claim text -> verdict of ``verdicts.<name>`` (plain-dict config blocks)."""
    blocks = {key: cfg[key] for key in setting} | ({"limits": cfg["claims"]} if limits else {})
    return {c.claim: c.verdict for c in getattr(verdicts, name)(df, printed=cfg["printed"], **blocks)}


def verdict_of(found: dict[str, str], start: str) -> str:
    (verdict,) = [v for claim, v in found.items() if claim.startswith(start)]
    return verdict


def test_fig5_collusion_agrees_and_catches_a_broken_theorem1_and_a_moved_bar():
    df, cfg = reference("fig5_collusion")
    theorem1, bars = cfg["printed"]["theorem1"]["claim"], cfg["printed"]["bars"]["claim"]
    found = judge("fig5_collusion", df, cfg, *LAWS)
    assert verdict_of(found, theorem1) == "agree"
    assert {v for c, v in found.items() if c.startswith(bars)} == {"agree"} and len(found) == 5
    broken = df.assign(exact_all=df.exact_all + np.where(df.x == 3, 1e-3, 0.0))
    assert verdict_of(judge("fig5_collusion", broken, cfg, *LAWS), theorem1) == "disagree"
    shift = 10 * np.hypot(df.mc_all_se, df.mc_c_se) + 1e-3
    moved = df.assign(mc_all=np.where(df.distribution == "uniform", df.mc_all + shift, df.mc_all))
    assert verdict_of(judge("fig5_collusion", moved, cfg, *LAWS), f"{bars}, uniform") == "disagree"


def test_fig5_bars_test_each_count_exactly():
    """An x expected 9.1 times among the cell's 11,894 trials and seen once: p = 2.3e-3 (z 3.0),
    not the 5.8 sigma of the estimate's own standard error; seen 35 times it is caught."""
    n, n_c, p0 = 11_894, 10**8, 7.68e-4
    for k, low, high in ((1, 2.5, 3.6), (35, 6.0, 9.0)):
        g = pd.DataFrame({"count_all": n, "count_c": n_c, "mc_all": [k / n, 1 - k / n], "mc_c": [p0, 1 - p0]})
        z = verdicts._count_z(g)
        assert low < z[0] < high and np.isclose(z[0], z[1])
    too_many = pd.DataFrame({"count_all": 5, "count_c": n_c, "mc_all": [1.4], "mc_c": [0.5]})  # 7 of 5 trials
    assert np.isinf(verdicts._count_z(too_many)[0])


def test_fig6_equivalence_agrees_and_catches_a_broken_formula_and_a_wrong_printed_value():
    df, cfg = reference("fig6_equivalence")
    p = cfg["printed"]
    theorem2, worked, bars = p["theorem2"]["claim"], p["worked_example"]["claim"], p["bars"]["claim"]
    found = judge("fig6_equivalence", df, cfg, *LAWS)
    assert set(found.values()) == {"agree"} and len(found) == 6
    broken = df.assign(exact_chain=np.where(df.y == 1, df.exact_chain + 1e-3, df.exact_chain))
    assert verdict_of(judge("fig6_equivalence", broken, cfg, *LAWS), theorem2) == "disagree"
    p["worked_example"]["value"] = "0.99"
    assert verdict_of(judge("fig6_equivalence", df, cfg, *LAWS), worked) == "disagree"
    skewed = df.assign(mc=np.where(df.distribution == "gaussian", df.uni_pert * 0.0 + 1 / 50, df.mc))
    assert verdict_of(judge("fig6_equivalence", skewed, cfg, *LAWS), f"{bars}, gaussian") == "disagree"


def test_agreement_agrees_and_catches_a_rejected_table():
    df, cfg = reference("agreement")
    found = judge("agreement", df, cfg, *LAWS)
    assert set(found.values()) == {"agree"} and len(found) == len(df)
    rejected = df.assign(g_p=np.where(df.index == 2, 1e-9, df.g_p))
    assert list(judge("agreement", rejected, cfg, *LAWS).values()).count("disagree") == 1


def test_fig7_independent_agrees_and_catches_no_leak_and_a_moved_estimate():
    df, cfg = reference("fig7_independent")
    p, setting = cfg["printed"], ("mechanism", "domain_size")
    found = judge("fig7_independent", df, cfg, *setting)
    assert [found[p[k]["claim"] + f" ({p[k]['where']})"] for k in ("leaks", "hiv")] == ["agree", "agree"]
    assert verdict_of(found, p["matches"]["claim"]) == "agree"
    independent = df.scheme == "independent"
    no_leak = df.assign(exact=np.where(independent, 0.0, df.exact))
    assert verdict_of(judge("fig7_independent", no_leak, cfg, *setting), p["leaks"]["claim"]) == "disagree"
    moved = df.assign(mc=df.mc + np.where(df.k == 2, 10 * df.mc_se + 1e-3, 0.0))
    assert verdict_of(judge("fig7_independent", moved, cfg, *setting), p["matches"]["claim"]) == "disagree"
    p["hiv"]["bound"] = 1e-6
    assert verdict_of(judge("fig7_independent", df, cfg, *setting), p["hiv"]["claim"]) == "disagree"


def test_fig8_overhead_agrees_and_catches_a_broken_bound_a_big_store_and_a_slow_release():
    df, cfg = reference("fig8_overhead")
    df = df.assign(history_ms_per_release=df.n / 10**4)  # the reference's wall-clock times are noisy: flat in m here
    p, setting = cfg["printed"], ("c", "m_step", "timings")
    found = judge("fig8_overhead", df, cfg, *setting)
    assert set(found.values()) == {"agree"} and len(found) == 4
    above = df.assign(change_points_per_tuple=df.lemma2_bound + 0.1)
    assert verdict_of(judge("fig8_overhead", above, cfg, *setting), p["lemma2"]["claim"]) == "disagree"
    assert verdict_of(judge("fig8_overhead", above, cfg, *setting), p["expected"]["claim"]) == "disagree"
    big = df.assign(history_bytes=df.naive_bytes * 2)
    assert verdict_of(judge("fig8_overhead", big, cfg, *setting), p["space"]["claim"]) == "disagree"
    last = df.m == df.m.max()
    slow = df.assign(history_ms_per_release=np.where(last, df.history_ms_per_release * 10, df.history_ms_per_release))
    assert verdict_of(judge("fig8_overhead", slow, cfg, *setting), p["time"]["claim"]) == "disagree"
    cfg["timings"] = False
    assert verdict_of(judge("fig8_overhead", slow, cfg, *setting), p["time"]["claim"]) == "info"


def test_formulas_agree_where_derived_and_catch_a_mismatch():
    df, cfg = reference("formulas")
    found = judge("formulas", df, cfg, limits=False)
    claim = cfg["printed"]["uv_keep"]["claim"]
    assert verdict_of(found, claim) == "agree"
    assert list(found.values()).count("disagree") == int((~df.match).sum()) == 4  # the slides' four errors
    broken = df.assign(match=np.where(df.key == "uv_keep", False, df.match))
    assert verdict_of(judge("formulas", broken, cfg, limits=False), claim) == "disagree"


def test_example_agrees_and_catches_a_wrong_printed_number_and_a_wrong_enumeration():
    df, cfg = reference("example")
    p = cfg["printed"]
    found = judge("example", df, cfg)
    case3, multi = p["numbers"]["case3"]["claim"], p["multi"]["claim"]
    assert (
        verdict_of(found, case3) == verdict_of(found, multi) == verdict_of(found, p["arithmetic"]["claim"]) == "agree"
    )
    p["numbers"]["case3"]["value"] = "0.030"
    assert verdict_of(judge("example", df, cfg), case3) == "disagree"
    off = df.assign(enumerated=np.where(df.key == "multi_posterior_both", 0.99, df.enumerated))
    assert verdict_of(judge("example", off, cfg), multi) == "disagree"
    sums = df.assign(slide_arithmetic=np.where(df.key == "total", 0.3, df.slide_arithmetic))
    assert verdict_of(judge("example", sums, cfg), p["arithmetic"]["claim"]) == "disagree"


def test_priors_agree_and_catch_a_printed_value_off_the_domain_and_a_wrong_panel_list():
    df, cfg = reference("priors")
    p = cfg["printed"]
    found = judge("priors", df, cfg, *LAWS, limits=False)
    assert {v for c, v in found.items() if not c.startswith(p["shape"]["claim"])} == {"agree"}
    p["cells"]["values"]["uniform"] = [1, 10**6]
    assert verdict_of(judge("priors", df, cfg, *LAWS, limits=False), f"{p['cells']['claim']}, uniform") == "disagree"
    p["panels"]["value"] = ["uniform"]
    assert verdict_of(judge("priors", df, cfg, *LAWS, limits=False), p["panels"]["claim"]) == "disagree"


def test_a_twin_mapping_names_the_real_data():
    df, cfg = reference("priors_acs")
    found = judge("priors", df, cfg, *LAWS, limits=False)
    assert verdict_of(found, cfg["printed"]["mapping"]["claim"]) == "info"
    shown = verdicts.priors(df, printed=cfg["printed"], **{k: cfg[k] for k in LAWS})[-1].reproduced
    assert shown == "salary: binned PINCP of acs, s = 50; occupation: marginal INDP_CAT of acs, s = 20"


@pytest.mark.parametrize("name", verdicts.__all__)
def test_a_table_without_its_columns_is_refused_in_one_line(name):
    verdict = getattr(verdicts, name)
    blocks = {arg: {} for arg in inspect.signature(verdict).parameters if arg != "df"}
    with pytest.raises(PrivlabError, match="df lacks the column") as info:
        verdict(pd.DataFrame({"x": [1]}), **blocks)
    assert "\n" not in str(info.value)
