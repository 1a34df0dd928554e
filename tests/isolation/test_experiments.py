"""The isolation experiments: claims on the committed reference tables (and injected faults),
mechanism swaps from the command line, and the parameter contract."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privlab import isolation as iso
from privlab import registry, runner
from privlab._validation import PrivlabError
from privlab.claims import counts

REFERENCE = Path(__file__).resolve().parents[2] / "experiments" / "isolation" / "reference" / "quick"


def _claims(name: str, table: pd.DataFrame | None = None, overrides=()):
    exp = registry.get(f"isolation/{name}")
    cfg = runner.compose(exp.id, list(overrides))
    df = pd.read_csv(REFERENCE / name / "result.csv") if table is None else table
    return {c.claim: c for c in exp.check_claims(df, cfg)}


@pytest.mark.parametrize(
    "name, expected",
    [
        # the histogram's best-of adversary beats 2^-d at d = 2; 0 of 2,000 at d = 20 cannot show a gap < 1/1000
        ("isolation_vs_d", {"agree": 11, "disagree": 1, "inconclusive": 3, "info": 0}),
        ("isolation_vs_c_T", {"agree": 3, "disagree": 0, "inconclusive": 0, "info": 1}),
        ("bad_sanitizer", {"agree": 2, "disagree": 0, "inconclusive": 1, "info": 0}),  # 1 of 1,000 vs 1/1000
        ("utility", {"agree": 8, "disagree": 1, "inconclusive": 0, "info": 0}),
        ("real_data", {"agree": 1, "disagree": 0, "inconclusive": 0, "info": 3}),
        ("real_data_acs", {"agree": 1, "disagree": 0, "inconclusive": 0, "info": 4}),
        ("formulas", {"agree": 7, "disagree": 2, "inconclusive": 0, "info": 0}),  # [-1, 1]^n; Case 1's count
    ],
)
def test_reference_verdicts(name, expected):
    assert counts(list(_claims(name).values())) == expected


def test_utility_disagreement_is_hist_perturb_clustering_with_its_reason():
    found = _claims("utility")
    (bad,) = [c for c in found.values() if c.verdict == "disagree"]
    assert bad.claim.startswith("hist_perturb: clustering on SDB")
    assert "noise of length ~ the cell side <= 1.058" in bad.reproduced and "swamps the clusters" in bad.note


@pytest.mark.slow
def test_injected_faults_turn_claims_to_disagree():
    df = pd.read_csv(REFERENCE / "isolation_vs_d" / "result.csv")
    bad = df.copy()
    bad.loc[bad.release_checked.notna().idxmax(), "release_checked"] = 0.0
    found = _claims("isolation_vs_d", bad)
    assert found["every released histogram passes the independent checker (slide 12)"].verdict == "disagree"
    bad = df.copy()
    top = (bad.sanitizer == "histogram") & bad.adversary.isin(["cell_uniform", "best_of_above"]) & (bad.d == 20)
    bad.loc[top, ["rate", "successes"]] = [0.01, 20]
    verdicts = {k: c.verdict for k, c in _claims("isolation_vs_d", bad).items() if k.startswith("histogram over all")}
    assert verdicts[
        "histogram over all points: SDB raises isolation only negligibly over aux at large d (slide 8)"
    ] == ("disagree")
    below = "success below 2^-d, best of its adversaries (corollary, c large enough) (slide 14)"
    assert verdicts[f"histogram over all points: {below}"] == "disagree"
    ct = pd.read_csv(REFERENCE / "isolation_vs_c_T" / "result.csv")
    ct.loc[(ct.c == 8.0) & (ct.sanitizer == "aux_only"), "rate"] = 0.9
    found = _claims("isolation_vs_c_T", ct)
    assert found["a larger c makes isolation harder (balls grow with c)"].verdict == "disagree"


@pytest.mark.slow
def test_decay_claims_read_the_binomial_fit_with_zeros():
    df = pd.read_csv(REFERENCE / "isolation_vs_d" / "result.csv")
    found = _claims("isolation_vs_d", df)
    decay = found["histogram over all points: isolation probability vs d (slide 24)"]
    nat = df[(df.sanitizer == "histogram") & (df.adversary == "cell_uniform")]
    fit = iso.fit_decay(nat.d, nat.successes, nat.trials)
    assert fit.describe() in decay.reproduced and f"{fit.zero_dims} of them with 0 successes" in decay.reproduced
    assert decay.verdict == "agree" and fit.b_low > 0
    # a constant rate at every d (no decay): the interval for b covers 0 and the claim disagrees
    flat = df.copy()
    rows = (flat.sanitizer == "histogram") & (flat.adversary == "cell_uniform")
    flat.loc[rows, ["successes", "rate"]] = [5, 5 / 2000]
    flat.loc[rows, "rate_se"] = np.sqrt(5 / 2000 * (1 - 5 / 2000) / 2000)
    verdict = _claims("isolation_vs_d", flat)["histogram over all points: isolation probability vs d (slide 24)"]
    assert verdict.verdict == "disagree" and "no exponential decay" in verdict.note
    # the corollary's 2^-d: a decay of half a bit per dimension is too slow
    slow = df.copy()
    slow.loc[rows, "successes"] = np.round(2000 * 0.5 * 2.0 ** (-0.5 * slow.loc[rows, "d"])).astype(int)
    rate = _claims("isolation_vs_d", slow)[
        "histogram over all points: fitted decay at least 2^-d (corollary, c large enough) (slides 14, 18)"
    ]
    assert rate.verdict == "disagree"


def test_talk_table_rows_come_from_config():
    found = _claims("isolation_vs_d", overrides=["printed.talk_table.histogram.value='2^-d'"])
    assert found["histogram over all points: isolation probability vs d (slide 24)"].printed == "2^-d"


def _smoke(name, extra=()):
    exp = registry.get(f"isolation/{name}")
    cfg = runner.compose(exp.id, [*exp.smoke, "cache=false", *extra])
    ctx = runner.make_context(cfg, None, log=lambda m: None)
    return runner.run_table(exp, cfg, ctx), ctx


@pytest.mark.slow
def test_swapping_mechanisms_keeps_each_sanitizers_rows():
    full, ctx = _smoke("isolation_vs_d")
    alone, _ = _smoke("isolation_vs_d", ["mechanism=[histogram]"])
    expect = full[full.sanitizer == "histogram"].dropna(axis=1, how="all").reset_index(drop=True)
    pd.testing.assert_frame_equal(alone.dropna(axis=1, how="all")[expect.columns], expect, check_dtype=False)
    assert all("uniform cube, synthetic" in label for label in ctx.data_used)
    tuned, _ = _smoke("isolation_vs_d", ["mechanism=[perturbed_one]", "mechanism.perturbed_one.scale=3"])
    assert (tuned.noise_ratio_exact > full.noise_ratio_exact.max()).all()
    added, _ = _smoke("isolation_vs_d", ["+mechanism=bad_sanitizer"])
    with pytest.raises(PrivlabError, match="mechanism=lpb is a noise_calibration mechanism; this experiment compares"):
        _smoke("isolation_vs_d", ["mechanism=[lpb]"])
    assert list(dict.fromkeys(added.sanitizer)) == [
        "aux_only",
        "histogram",
        "perturbed_one",
        "hist_perturb",
        "bad_sanitizer",
    ]


def test_utility_takes_its_sanitizers_from_config():
    table, ctx = _smoke("utility", ["mechanism=[hist_perturb_len_side,histogram]"])
    assert list(table.sanitizer) == ["hist_perturb_len_side", "histogram"] * 2
    assert list(table.d) == [2, 2, 3, 3]  # config order, though the largest d runs first
    assert any("Gaussian mixture, synthetic" in label for label in ctx.data_used)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, overrides, message",
    [
        ("isolation_vs_d", ["m=0"], r"m must be an integer in \[1, 1,000,000\]"),
        ("isolation_vs_d", ["m=2000000"], r"m must be at most 1,000,000 \(adversary outputs held in memory\)"),
        ("isolation_vs_d", ["m_any=0"], r"m_any must be an integer in \[1, 1,000,000\]"),
        ("utility", ["box_dims=5000"], r"box_dims must be at most 1,000"),
        ("isolation_vs_d", ["mechanism.hist_perturb.noise_length=radius"], "noise_length must be one of"),
        ("isolation_vs_c_T", ["cs=[0.5]"], r"cs\[0\] must be in \[1, inf\)"),
        ("real_data", ["scalings=[log]"], r"scalings\[0\] must be one of minmax, rank"),
        ("utility", ["+sanitizers=[histogram]"], "unknown parameter 'sanitizers'"),
    ],
)
def test_bad_config_fails_at_compose_time(name, overrides, message):
    with pytest.raises(PrivlabError, match=message):
        runner.compose(f"isolation/{name}", overrides)
