"""The mechanisms of kind ``bucketing`` (conf/mechanism/), their checked releases and timings,
and the tables they run on."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import bucketization as bk
from privlab._validation import PrivlabError
from privlab.mechanisms import build
from privlab.runner import compose


def _table(seed=0, n=3000, m=12):
    rng = np.random.default_rng(seed)
    p = np.geomspace(0.2, 0.01, m)
    sa = rng.choice(m, n, p=p / p.sum())
    return sa, bk.fprivacy(np.bincount(sa, minlength=m) / n, 4)


@pytest.mark.slow
def test_setting_mechanisms_match_the_algorithms():
    sa, F = _table()
    o = np.bincount(sa, minlength=F.size)
    for pruning in bk.PRUNINGS:
        plan = bk.TwoSizeBucketing(pruning).plan(o, F, 30)
        assert plan.setting == bk.two_size(o, F, 30, pruning) and plan.status == "optimal"
        assert plan.loss == plan.setting.loss and plan.n_sizes == len(plan.setting.sizes)
        assert plan.text == str(plan.setting) and plan.seconds >= 0
    plan = bk.MultiSizeBucketing().plan(o, F, 30)
    assert plan.setting == bk.multi_size(o, F, 30) and plan.status == "heuristic"
    plan = bk.OptimalBucketing(time_limit=60).plan(o, F, 30)
    assert plan.status == "optimal" and plan.loss == bk.optimal(o, F, 30, time_limit=60).loss
    two = bk.OptimalTwoSizeBucketing(time_limit=60).plan(o, F, 30)
    assert two.status == "optimal" and two.loss == bk.two_size(o, F, 30).loss
    assert plan.loss <= bk.MultiSizeBucketing().plan(o, F, 30).loss <= two.loss


def test_nothing_found_releases_nothing():
    # F = 1/2 admits sizes >= 2; with M = 2 only size 2 is left, which cannot hold n = 7 records
    sa = np.repeat([0, 1, 2], [3, 2, 2])
    r = bk.release_checked(bk.TwoSizeBucketing(), sa, np.full(3, 0.5), 2)
    assert r.plan.setting is None and r.plan.loss is None and r.plan.status == "optimal"
    assert r.bucket_ids is None and r.checked is None and r.verdict == "not released"
    row = r.summary(sa.size)
    assert math.isnan(row["loss"]) and math.isnan(row["mse"]) and row["n_sizes"] == 0 and row["setting"] == ""


def test_release_checked_and_its_row():
    sa, F = _table(1)
    r = bk.release_checked(bk.MultiSizeBucketing(), sa, F, 30, seed=4)
    assert r.checked is True and r.verdict == "passed" and r.bucket_ids.shape == sa.shape
    assert bk.mse_of_buckets(r.bucket_ids) == pytest.approx(r.plan.loss / sa.size)
    row = r.summary(sa.size)
    assert row["mse"] == r.plan.loss / sa.size and row["checker"] == "passed" and row["seconds"] == r.plan.seconds
    assert math.isnan(r.summary(sa.size, timed=False)["seconds"])
    lean = bk.release_checked(bk.MultiSizeBucketing(), sa, F, 30, seed=4, keep_ids=False)
    assert lean.bucket_ids is None and lean.checked is True
    # the same seed gives the same buckets; the checker catches a broken release
    again = bk.release_checked(bk.MultiSizeBucketing(), sa, F, 30, seed=4)
    np.testing.assert_array_equal(again.bucket_ids, r.bucket_ids)
    assert bk.Release(r.plan, r.bucket_ids, False).verdict == "FAILED"
    with pytest.raises(PrivlabError, match="mechanism must be a BucketingMechanism"):
        bk.release_checked(bk.two_size, sa, F, 30)


def test_release_all_one_seed_per_mechanism():
    sa, F = _table(2)
    mechs = [bk.TwoSizeBucketing(), bk.AnatomyBucketing()]
    out = bk.release_all(sa, F, mechs, 30, [1, 2])
    assert [r.plan.status for r in out][0] == "optimal" and out[1].plan.text.startswith("l=")
    with pytest.raises(PrivlabError, match="one seed per mechanism"):
        bk.release_all(sa, F, mechs, 30, [1])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 6), st.integers(40, 300))
def test_anatomy_plan_agrees_with_its_release(seed, l, n):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(l, 3 * l + 1))
    sa = rng.choice(m, n, p=rng.dirichlet(np.ones(m)))
    F = np.full(m, 1.0 / l)
    mech = bk.AnatomyBucketing()
    plan = mech.plan(np.bincount(sa, minlength=m), F, 50)
    r = bk.release_checked(mech, sa, F, 50, seed=seed)
    assert (
        (plan.status, plan.loss, plan.text)
        == (r.plan.status, r.plan.loss, r.plan.text)
        == (
            plan.status,
            n - n // l,
            f"l={l}",
        )
    )
    eligible = np.bincount(sa).max() * l <= n
    assert (r.bucket_ids is not None) == eligible and (r.checked is True if eligible else r.checked is None)
    assert math.isnan(plan.seconds)


class _Counting(bk.TwoSizeBucketing):
    calls = 0

    def search(self, counts, F, max_size):
        type(self).calls += 1
        return super().search(counts, F, max_size)


class _CountingILP(bk.OptimalTwoSizeBucketing):
    calls = 0

    def solve(self, counts, F, max_size):
        type(self).calls += 1
        return bk.OptimalResult("optimal", bk.two_size(counts, F, max_size), 0.5, self.time_limit)


def test_timed_plan_repeats_but_solves_an_ilp_once():
    sa, F = _table(3)
    o = np.bincount(sa, minlength=F.size)
    plan = bk.timed_plan(_Counting(), o, F, 30, repeats=3)
    assert _Counting.calls == 3 and plan.setting == bk.two_size(o, F, 30)
    bk.timed_plan(_CountingILP(), o, F, 30, repeats=3)
    assert _CountingILP.calls == 1
    with pytest.raises(PrivlabError, match="repeats must be"):
        bk.timed_plan(_Counting(), o, F, 30, repeats=0)


@pytest.mark.parametrize(
    "cls, kw, word",
    [
        (bk.TwoSizeBucketing, {"pruning": "some"}, "pruning"),
        (bk.OptimalBucketing, {"time_limit": 0}, "time_limit"),
        (bk.OptimalBucketing, {"solver": "gurobi"}, "solver must be one of highs, cbc"),
        (bk.OptimalTwoSizeBucketing, {"memo": 3}, "memo must be a function"),
    ],
)
def test_mechanism_parameters_are_validated(cls, kw, word):
    with pytest.raises(PrivlabError, match=word):
        cls(**kw)


@pytest.mark.slow
def test_mechanism_configs_build_in_table_order():
    figure4 = build(compose("bucketization/fig4_mse").mechanism, kind="bucketing")
    assert [m.label for m in figure4.values()] == ["TwoSize", "MultiSize", "Optimal", "Anatomy"]
    assert figure4["optimal_multi_size"].impl.time_limit == 120
    assert (
        build(compose("bucketization/fig4_mse", profile="paper").mechanism)["optimal_multi_size"].impl.time_limit == 600
    )
    figure7 = build(compose("bucketization/fig7a_runtime_n").mechanism, kind="bucketing")
    assert [m.label for m in figure7.values()] == [
        "No-pruning",
        "Loss-pruning",
        "Full-pruning",
        "Optimal (two-size ILP)",
    ]
    assert [m.impl.pruning for m in list(figure7.values())[:3]] == ["none", "loss", "full"]
    tuned = compose("bucketization/fig4_mse", ["mechanism=[two_size]", "mechanism.two_size.pruning=loss"])
    assert build(tuned.mechanism)["two_size"].impl == bk.TwoSizeBucketing("loss")


def test_split_table_and_scale_up():
    frame = pd.DataFrame({"a": [0, 1, 2, 1], "s": [3, 0, 1, 3], "b": [1, 1, 0, 0]})
    t = bk.split_table(frame, "s", {"a": 3, "s": 4, "b": 2})
    np.testing.assert_array_equal(t.sa, [3, 0, 1, 3])
    np.testing.assert_array_equal(t.qi, [[0, 1], [1, 1], [2, 0], [1, 0]])
    assert t.qi_sizes == [3, 2] and t.sa_size == 4
    with pytest.raises(PrivlabError, match="sa_column must be a column"):
        bk.split_table(frame, "z", {"a": 3, "s": 4, "b": 2})
    with pytest.raises(PrivlabError, match="missing b"):
        bk.split_table(frame, "s", {"a": 3, "s": 4})
    sa = np.random.default_rng(0).integers(0, 50, 10_000)
    up = bk.scale_up(sa, 8, seed=1)
    np.testing.assert_array_equal(up // 8, sa)  # (x, r) coded x * gamma + r
    assert np.unique(up % 8).size == 8 and np.array_equal(up, bk.scale_up(sa, 8, seed=1))
    np.testing.assert_array_equal(bk.scale_up(sa, 1, seed=2), sa)
