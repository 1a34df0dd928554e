"""privlab.experiments.bucketization.verdicts: every function agrees on the committed reference table with the
composed config, and a fault injected into the table turns the claim it breaks to disagree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privlab import PrivlabError
from privlab.experiments.bucketization import verdicts
from privlab.runner import compose

REF = Path(__file__).resolve().parents[2] / "experiments" / "bucketization" / "reference" / "quick"


TRENDS = ("fig7a_runtime_n", "fig7b_runtime_scaleup")  # a trend needs >= 3 points: the paper-profile tables


def _setup(name: str):
    cfg = compose(f"bucketization/{name}", [])
    where = REF.parent / "paper" if name in TRENDS else REF
    return pd.read_csv(where / name / "result.csv"), cfg


def _labels(cfg) -> dict:
    return {name: spec.get("label", name) for name, spec in cfg.mechanism.items()}


def _runtime(cfg) -> dict:
    return {"printed": cfg.printed, "limits": cfg.claims, "labels": _labels(cfg), "timings": True}


def _census(cfg) -> dict:
    return {"printed": cfg.printed, "limits": cfg.claims, "labels": _labels(cfg), "columns": None}


TIMES = ("seconds", "seconds_low", "seconds_high")  # a timing fault moves every run of the point


def _shrink(s):
    return s.to_numpy() / np.arange(1, len(s) + 1) ** 2


def _slower(s):
    return s * 1e4


def _where(df, mask, **values):
    df = df.copy()
    for column, fn in values.items():
        df.loc[mask(df), column] = fn(df.loc[mask(df), column])
    return df


# name -> (the verdict's keyword arguments from cfg, a claim it makes, a fault that breaks that claim)
CASES = {
    "diffinf": (
        lambda cfg: {"printed": cfg.printed, "limits": cfg.claims, "large_a1": cfg.large_a1},
        "for large a1 the noisy ratio is close",
        lambda df: df.assign(median=df["median"] * 1.5),
    ),
    "corruption": (
        lambda cfg: {"printed": cfg.printed, "z_max": cfg.claims.z_max},
        "adversary success = 1/(|B| - c + k)",
        lambda df: df.assign(success=df.exact + 100 * df.success_se),
    ),
    "fig2_sa_frequencies": (
        lambda cfg: {"printed": cfg.printed, "limits": cfg.claims, "kind": "paper"},
        "OCC: min / max SA frequency, max",
        lambda df: _where(df, lambda d: (d.table == "OCC") & (d["rank"] == 1), frequency=lambda s: s * 1.5),
    ),
    "table5_attributes": (
        lambda cfg: {"printed": cfg.printed, "kind": "paper"},
        "domain size, age",
        lambda df: _where(df, lambda d: d.attribute == "age", domain=lambda s: s + 1),
    ),
    "fig3_l_vs_theta": (
        lambda cfg: {"printed": cfg.printed, "kind": "synthetic"},
        "OCC: thetas where l-diversity is eligible",
        lambda df: _where(df, lambda d: d.table == "OCC", eligible=lambda s: True),
    ),
    "fig4_mse": (
        _census,
        "MultiSize only slightly above Optimal",  # within the reading (10 %) on the reference
        lambda df: _where(df, lambda d: d.method == "MultiSize", mse=lambda s: s * 1.2),
    ),
    "fig5_re": (
        _census,
        "RE of TwoSize, MultiSize, Optimal close, EDU",
        lambda df: _where(df, lambda d: (d.table == "EDU") & (d.method == "TwoSize"), re=lambda s: s + 0.5),
    ),
    "fig7a_runtime_n": (
        _runtime,
        "Loss-pruning grows with n",
        # Loss-pruning's times divided by (n / 100,000)^2: its exponent falls by 2, below 0
        lambda df: _where(df, lambda d: d.method == "Loss-pruning", **dict.fromkeys(TIMES, _shrink)),
    ),
    "fig7b_runtime_scaleup": (
        _runtime,
        "Full-pruning takes the least time",
        lambda df: _where(
            df, lambda d: (d.method == "Full-pruning") & (d.gamma == d.gamma.max()), **dict.fromkeys(TIMES, _slower)
        ),
    ),
    "table1_example1": (
        lambda cfg: {"printed": cfg.printed},
        "Alice (Gender F, Zipcode 61434) has a record in T",
        lambda df: df.assign(q1=0, q2=0),
    ),
    "table2_example35": (
        lambda cfg: {"printed": cfg.printed},
        "Alice's bucket holds two diseases",
        lambda df: _where(df, lambda d: d.pr_target.notna(), Count=lambda s: s + 1),
    ),
    "remark312_count": (
        lambda cfg: {"printed": cfg.printed, "search_high": cfg.search_high},
        "the count grows with n, sizes 2..50",
        lambda df: _where(df, lambda d: (d.kind == "candidate") & (d.low == 2), count=lambda s: s.to_numpy()[::-1]),
    ),
    "example420_partition": (
        lambda cfg: {"printed": cfg.printed},
        "PC, FC and CC of Theorem 4.17 hold",
        lambda df: _where(df, lambda d: d.index == 0, o=lambda s: s + 1),
    ),
    "example523_pair_list": (
        lambda cfg: {"printed": cfg.printed},
        "Loss grows along L",
        lambda df: df.assign(loss=df.loss.to_numpy()[::-1]),
    ),
    "example532_three_sizes": (
        lambda cfg: {"printed": cfg.printed},
        "there is no valid record assignment",
        lambda df: df.assign(exact=True),
    ),
    "formulas": (
        lambda cfg: {"printed": cfg.printed},
        "the mean of Laplace(b) noise",
        lambda df: _where(df, lambda d: d.key == d.key.iloc[0], match=lambda s: False),
    ),
}


def _verdict(name: str, faulty: bool) -> list[str]:
    df, cfg = _setup(name)
    args, text, fault = CASES[name]
    claims = getattr(verdicts, name)(fault(df) if faulty else df, **args(cfg))
    found = [c.verdict for c in claims if c.claim.startswith(text)]
    assert found, f"{name}: no claim starting with {text!r}"
    return found


def test_every_public_function_has_a_case():
    public = {n for n in verdicts.__all__ if callable(getattr(verdicts, n))}
    assert public == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_agrees_on_the_reference_table(name):
    assert _verdict(name, faulty=False) == ["agree"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_injected_fault_disagrees(name):
    assert _verdict(name, faulty=True) == ["disagree"]


def test_a_wrong_printed_value_disagrees():
    df, cfg = _setup("example523_pair_list")
    printed = {**dict(cfg.printed), "list": {**dict(cfg.printed.list), "value": ["(1, 1)"]}}
    claims = verdicts.example523_pair_list(df, printed=printed)
    assert [c.verdict for c in claims if c.claim.startswith("L for n")] == ["disagree"]


def test_a_twin_carries_no_ledger_ids_and_shows_its_mapping():
    df, cfg = _setup("fig2_sa_frequencies")
    columns = {"occupation": "INDP", "education": "SCHL"}
    ours = verdicts.fig2_sa_frequencies(df, printed=cfg.printed, limits=cfg.claims, kind="other", columns=columns)
    paper = verdicts.fig2_sa_frequencies(df, printed=cfg.printed, limits=cfg.claims, kind="other")
    assert any(c.ledger for c in paper) and not any(c.ledger for c in ours)
    assert len(ours) == len(paper) + ("mapping" in cfg.printed)


def test_a_solver_error_leaves_the_ilp_claims_undecided():
    df, cfg = _setup("fig4_mse")
    df.loc[df.index[df.method == "Optimal"][0], "status"] = "solver error"
    claims = verdicts.fig4_mse(df, **_census(cfg))
    rows = [c for c in claims if c.claim.startswith("MultiSize only slightly above Optimal")]
    assert [c.verdict for c in rows] == ["info"] and "solver error" in rows[0].note


def test_plain_mappings_work_like_config_nodes():
    df, cfg = _setup("example532_three_sizes")
    plain = verdicts.example532_three_sizes(df, printed=dict(cfg.printed))
    assert plain == verdicts.example532_three_sizes(df, printed=cfg.printed)


@pytest.mark.parametrize(
    "call, param",
    [
        (lambda: verdicts.formulas([1, 2], printed={}), "df"),
        (lambda: verdicts.formulas(pd.DataFrame({"case": ["x"]}), printed={}), "df"),
        (lambda: verdicts.table1_example1(pd.DataFrame({"q1": [1], "q2": [0]}), printed=3), "printed"),
        (lambda: verdicts.fig3_l_vs_theta(_setup("fig3_l_vs_theta")[0], printed={}, kind="real"), "kind"),
        (lambda: verdicts.fig4_mse(_setup("fig4_mse")[0], printed={}, limits={}, labels=None), "labels"),
    ],
)
def test_bad_arguments_name_the_parameter(call, param):
    with pytest.raises(PrivlabError, match=rf"^{param}"):
        call()


def test_a_trend_needs_three_points_and_decides_on_its_fitted_exponent():
    df, cfg = _setup("fig7b_runtime_scaleup")
    little = "the runtime of the other algorithms (Loss-, Full-pruning) increases little"

    def judged(table):
        claims = verdicts.fig7b_runtime_scaleup(table, **_runtime(cfg))
        (c,) = [c for c in claims if c.claim.startswith(little)]
        return c

    two = df[df.gamma.isin(sorted(df.gamma.unique())[:2])]  # two points cannot show a trend
    assert judged(two).verdict == "inconclusive" and "needs >= 3 points" in judged(two).note
    pruned = df.method.isin(["Loss-pruning", "Full-pruning"])
    flat = df.copy()  # seconds ~ gamma^0.05 exactly: far below the reading's exponent
    flat.loc[pruned, "seconds"] = flat.loc[pruned, "gamma"] ** 0.05 * np.where(
        flat.loc[pruned, "gamma"] % 4, 1.01, 0.99
    )
    assert judged(flat).verdict == "agree"
    steep = df.copy()  # seconds ~ gamma^1.5: tripling many times over the grid
    steep.loc[pruned, "seconds"] = steep.loc[pruned, "gamma"] ** 1.5 * np.where(
        steep.loc[pruned, "gamma"] % 4, 1.01, 0.99
    )
    assert judged(steep).verdict == "disagree"
