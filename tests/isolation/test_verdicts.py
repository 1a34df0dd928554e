"""The claims' logic (privlab.experiments.isolation.verdicts): every function agrees on the committed reference
tables with the composed config, and an injected fault (a perturbed value, a broken trend, a wrong
printed value) turns the claim it feeds to disagree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from privlab import runner
from privlab._validation import PrivlabError
from privlab.claims import counts
from privlab.experiments.isolation import verdicts
from privlab.isolation import derivations

REFERENCE = Path(__file__).resolve().parents[2] / "experiments" / "isolation" / "reference" / "quick"


def _table(name: str) -> pd.DataFrame:
    return pd.read_csv(REFERENCE / name / "result.csv")


def _cfg(name: str):
    return runner.compose(f"isolation/{name}", [])


def _blocks(name: str) -> dict:
    cfg = _cfg(name)
    return {"printed": cfg.printed, "limits": cfg.claims}


def _verdicts(claims) -> dict[str, str]:
    return {c.claim: c.verdict for c in claims}


def _vs_d(df):
    cfg = _cfg("isolation_vs_d")
    return _verdicts(verdicts.isolation_vs_d(df, printed=cfg.printed, limits=cfg.claims, c=cfg.c))


HIST = "histogram over all points"
BELOW = "success below 2^-d, best of its adversaries (corollary, c large enough) (slide 14)"


def test_isolation_vs_d_agrees_on_the_reference():
    found = _vs_d(_table("isolation_vs_d"))
    assert len(found) == 15 and found[f"{HIST}: isolation probability vs d (slide 24)"] == "agree"
    # the best of its adversaries: 581 of 2,000 at d = 2 against 2^-2 (the natural ones alone stay below)
    assert found[f"{HIST}: {BELOW}"] == "disagree"
    assert found[f"hist_perturb: {BELOW}".replace("hist_perturb", "histogram over n/2, n/2 perturbed")] == "agree"
    # 0 of 2,000 against 0 of 2,000 at d = 20: a gap below 1/1000 cannot be shown, the note says what would
    gaps = [v for c, v in found.items() if "only negligibly" in c]
    assert gaps == ["inconclusive"] * 3
    others = {v for c, v in found.items() if "only negligibly" not in c and BELOW not in c}
    assert others == {"agree"}


def test_isolation_vs_d_plain_mappings_give_the_same_claims():
    cfg, df = _cfg("isolation_vs_d"), _table("isolation_vs_d")
    plain = {k: OmegaConf.to_container(cfg[k]) for k in ("printed", "claims")}
    assert isinstance(plain["printed"], dict)
    a = verdicts.isolation_vs_d(df, printed=cfg.printed, limits=cfg.claims, c=cfg.c)
    b = verdicts.isolation_vs_d(df, printed=plain["printed"], limits=plain["claims"], c=cfg.c)
    assert a == b


@pytest.mark.slow
def test_isolation_vs_d_faults_disagree():
    df = _table("isolation_vs_d")
    rows = (df.sanitizer == "histogram") & (df.adversary == "cell_uniform")
    flat = df.copy()  # a broken trend: the same rate at every d
    flat.loc[rows, ["successes", "rate"]] = [5, 5 / 2000]
    flat.loc[rows, "rate_se"] = np.sqrt(5 / 2000 * (1 - 5 / 2000) / 2000)
    assert _vs_d(flat)[f"{HIST}: isolation probability vs d (slide 24)"] == "disagree"
    slow = df.copy()  # half a bit per dimension: slower than the corollary's 2^-d
    slow.loc[rows, "successes"] = np.round(2000 * 0.5 * 2.0 ** (-0.5 * slow.loc[rows, "d"])).astype(int)
    found = _vs_d(slow)
    assert found[f"{HIST}: fitted decay at least 2^-d (corollary, c large enough) (slides 14, 18)"] == "disagree"
    high = df.copy()  # a perturbed rate at the largest d, for the natural and the best-of adversary
    best = (high.sanitizer == "histogram") & (high.adversary == "best_of_above")
    high.loc[(rows | best) & (high.d == 20), ["rate", "successes"]] = [0.01, 20]
    found = _vs_d(high)
    assert found[f"{HIST}: SDB raises isolation only negligibly over aux at large d (slide 8)"] == "disagree"
    below = df.copy()  # the best-of adversary never succeeding: below 2^-d at every d the trials resolve
    below.loc[best, ["rate", "successes"]] = [0.0, 0]
    assert _vs_d(below)[f"{HIST}: {BELOW}"] == "agree"
    assert found[f"{HIST}: {BELOW}"] == "disagree"
    checked = df.copy()
    checked.loc[checked.release_checked.notna().idxmax(), "release_checked"] = 0.0
    assert _vs_d(checked)["every released histogram passes the independent checker (slide 12)"] == "disagree"
    noise = df.copy()
    pert = noise.noise_ratio_mean.notna().idxmax()
    noise.loc[pert, "noise_ratio_mean"] += 10 * noise.loc[pert, "noise_ratio_se"]
    law = "perturbation noise length / T-radius matches its exact law scale * chi_d / sqrt(d)"
    assert _vs_d(noise)[law] == "disagree"
    anyone = df.copy()  # hist_perturb isolating anyone at a rate that does not fall with d
    hp = (anyone.sanitizer == "hist_perturb") & anyone.rate_any.notna() & (anyone.adversary != "best_of_above")
    anyone.loc[hp, ["successes_any", "rate_any"]] = [1000, 0.5]
    found = _vs_d(anyone)
    assert found["histogram over n/2, n/2 perturbed: probability of isolating *someone* vs d (slide 24)"] == "disagree"


def _c_T(df):
    cfg = _cfg("isolation_vs_c_T")
    return _verdicts(verdicts.isolation_vs_c_T(df, printed=cfg.printed, limits=cfg.claims, talk_c=cfg.talk_c))


@pytest.mark.slow
def test_isolation_vs_c_T_agrees_on_the_reference_and_faults_disagree():
    df = _table("isolation_vs_c_T")
    assert list(_c_T(df).values()).count("agree") == 3 and list(_c_T(df).values()).count("info") == 1
    up = df.copy()  # a rate that grows with c
    up.loc[(up.c == 8.0) & (up.sanitizer == "aux_only"), "rate"] = 0.9
    assert _c_T(up)["a larger c makes isolation harder (balls grow with c)"] == "disagree"
    down = df.copy()  # an aux-only rate that falls as T grows
    down.loc[(down.sanitizer == "aux_only") & (down["T"] == 1), "rate"] = 0.9
    claim = "aux-only: a larger T makes isolation easier (same queries, more room in the ball)"
    assert _c_T(down)[claim] == "disagree"
    hidden = df.copy()  # the released point no longer gives its source away at T = 1
    hidden.loc[(hidden.sanitizer == "perturbed_one") & (hidden["T"] == 1), "rate"] = 0.5
    claim = "perturbation alone: with T = 1 the T-radius is 0, nothing is hidden (slide 13)"
    assert _c_T(df)[claim] == "agree" and _c_T(hidden)[claim] == "disagree"


def _bad(df):
    return _verdicts(verdicts.bad_sanitizer(df, **_blocks("bad_sanitizer")))


@pytest.mark.slow
def test_bad_sanitizer_agrees_on_the_reference_and_faults_disagree():
    df = _table("bad_sanitizer")
    nobody = "with one disguised attribute (the largest stretch) nobody is isolated (slide 9)"
    # 1 of 1,000 against the threshold 1/1000: the data cannot decide, and the note says what would
    assert (
        len(_bad(df)) == 3
        and _bad(df)[nobody] == "inconclusive"
        and set(_bad(df).values()) == {"agree", "inconclusive"}
    )
    note = [c.note for c in verdicts.bad_sanitizer(df, **_blocks("bad_sanitizer")) if c.claim == nobody][0]
    assert "needs >= " in note and "trials" in note
    many = df.copy()  # none in 5,000 attacks: shown below 1/1000
    top = (many.disclosed == 7) & (many.stretch == 1000)
    many.loc[top, ["successes", "rate", "trials"]] = [0, 0.0, 5000]
    assert _bad(many)[nobody] == "agree"
    wrong = df.copy()
    wrong.loc[3, "exact_columns"] += 1
    exact = "the bad sanitizer releases the disclosed attributes exactly (independent check) (slide 9)"
    assert _bad(df)[exact] == "agree" and _bad(wrong)[exact] == "disagree"
    isolated = df.copy()  # the largest stretch isolates after all
    isolated.loc[(isolated.disclosed == 7) & (isolated.stretch == 1000), ["rate", "successes"]] = [0.2, 200]
    assert _bad(isolated)[nobody] == "disagree"
    hidden = df.copy()  # the smallest stretch hides everyone too
    # none in 5,000 attacks (none in 1,000 could not show a rate below 1/1000: inconclusive)
    hidden.loc[(hidden.disclosed == 7) & (hidden.stretch == 1), ["rate", "successes", "trials"]] = [0.0, 0, 5000]
    distance = "... but only when the disguised attribute dominates distances (the smallest stretch isolates) (slide 9)"
    assert _bad(hidden)[distance] == "disagree"


def _utility(df, printed=None):
    blocks = _blocks("utility")
    return _verdicts(verdicts.utility(df, printed=printed or blocks["printed"], limits=blocks["limits"]))


@pytest.mark.slow
def test_utility_agrees_on_the_reference_and_faults_disagree():
    df = _table("utility")
    found = _utility(df)
    assert list(found.values()).count("agree") == 8 and list(found.values()).count("disagree") == 1
    density = "histograms provide density information (slide 15)"
    assert found[density] == "agree"
    coarse = df.copy()
    coarse.loc[coarse.sanitizer == "histogram", "box_query_mae"] = 0.2
    assert _utility(coarse)[density] == "disagree"
    means = "histogram: macroscopic properties (column means) preserved (slide 10)"
    shifted = df.copy()
    shifted.loc[shifted.sanitizer == "histogram", "mean_error_rms"] = 0.3
    assert found[means] == "agree" and _utility(shifted)[means] == "disagree"
    noisy = df.copy()
    noisy.loc[noisy.sanitizer == "perturbation", "noise_mean_error_rms"] *= 10
    noise = "perturbation: mean error of the perturbed points matches its exact noise s.d."
    assert found[noise] == "agree" and _utility(noisy)[noise] == "disagree"
    blurred = df.copy()
    blurred.loc[blurred.sanitizer == "perturbation", "kmeans_cost_ratio"] = 2.0
    kmeans = "perturbation: clustering on SDB performs nearly as well as on RDB (slide 15)"
    assert found[kmeans] == "agree" and _utility(blurred)[kmeans] == "disagree"


def _real(name: str, df):
    cfg = _cfg(name)
    claims = verdicts.real_data(
        df, printed=cfg.printed, limits=cfg.claims, dataset=cfg.dataset.name, columns=cfg.columns
    )
    return {c.claim: c for c in claims}


@pytest.mark.slow
def test_real_data_agrees_on_the_reference_and_faults_disagree():
    scaling = "scaling attributes to make data well-rounded helps (slide 21)"
    for name, info in (("real_data", 3), ("real_data_acs", 4)):
        df = _table(name)
        found = _real(name, df)
        assert counts(list(found.values())) == {"agree": 1, "disagree": 0, "inconclusive": 0, "info": info}
        worse = df.copy()  # rank scaling isolates more than min-max scaling
        worse.loc[worse.data.str.endswith("_rank") & (worse.sanitizer == "histogram"), "rate"] += 0.1
        assert found[scaling].verdict == "agree" and _real(name, worse)[scaling].verdict == "disagree"
    acs = _real("real_data_acs", _table("real_data_acs"))
    mapping = [c for c in acs.values() if c.claim.startswith("ACS twin")][0]
    assert mapping.reproduced == "6 columns: AGEP, PWGTP, EDU, PINCP, POVPIP, DENSITY"


def _formulas(df, printed):
    return _verdicts(verdicts.formulas(df, printed=printed))


@pytest.mark.slow
def test_formulas_agree_on_the_derivations_and_a_wrong_printed_formula_disagrees():
    cfg = _cfg("formulas")
    df = _table("formulas")
    found = _formulas(df, cfg.printed)
    assert counts(verdicts.formulas(df, printed=cfg.printed)) == {
        "agree": 7,
        "disagree": 2,
        "inconclusive": 0,
        "info": 0,
    }
    split = "recursive histogram: splitting each side evenly gives 2^d sub-cubes (slide 12)"
    assert found[split] == "agree"
    altered = {**cfg.printed.formulas, "cell_split": "3**d"}  # a wrong printed value, derived again
    table = derivations.formula_table(altered, cfg.instance, cfg.case1, cfg.t_radius, cfg.n_of_d)
    assert _formulas(table, cfg.printed)[split] == "disagree"
    flipped = df.copy()  # a table whose derivation parts from the printed formula
    flipped.loc[flipped.key == "t_radius", "match"] = False
    radius = (
        "T-radius: t_x is the radius of the smallest ball around x holding T points (privlab's t_radius) (slide 13)"
    )
    assert found[radius] == "agree" and _formulas(flipped, cfg.printed)[radius] == "disagree"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda b: verdicts.isolation_vs_d([1, 2], **b, c=4), "df must be a non-empty result table"),
        (lambda b: verdicts.isolation_vs_d(pd.DataFrame(), **b, c=4), "df must be a non-empty result table"),
        (lambda b: verdicts.isolation_vs_c_T(pd.DataFrame({"d": [2]}), **b, talk_c=4), "missing c, T, sanitizer"),
        (lambda b: verdicts.bad_sanitizer(_table("bad_sanitizer"), printed=[], limits={}), "printed must be a mapping"),
        (lambda b: verdicts.utility(_table("utility"), printed={}, limits=3), "limits must be a mapping"),
        (lambda b: verdicts.real_data(_table("utility"), **b, dataset="adult", columns=[]), "missing data"),
        (lambda b: verdicts.formulas(_table("utility"), printed={}), "lacks the column\\(s\\) key, printed"),
    ],
)
def test_bad_arguments_fail_in_one_line(call, message):
    with pytest.raises(PrivlabError, match=message) as err:
        call({"printed": {}, "limits": {}})
    assert "\n" not in str(err.value)
