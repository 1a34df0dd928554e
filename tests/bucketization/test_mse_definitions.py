"""The readings of Definition 3.9's MSE (config mse_definition): worked examples by hand, a brute-force
oracle that sums every record's squared errors literally, and the way Figure 4's table uses them."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError, runner
from privlab import bucketization as bk
from privlab.bucketization.mechanisms import Plan, Release
from privlab.bucketization.metrics import MSE_DEFINITIONS, mse_of_release, mse_of_setting
from privlab.bucketization.utility import release_mse
from privlab.context import seed_sequence
from privlab.datasets import load


# ---------------------------------------------------------------------------------------
# worked examples
# ---------------------------------------------------------------------------------------
def test_sizes_2_3_5_by_hand():
    # association: (1 + 2 + 4) / 10; true_value: (1/2 + 4/3 + 16/5) / 10 = (151/30) / 10
    assert mse_of_setting([2, 3, 5], [1, 1, 1]) == pytest.approx(0.7, rel=1e-15)
    assert mse_of_setting([2, 3, 5], [1, 1, 1], "true_value") == pytest.approx(151 / 300, rel=1e-15)
    # the same as one bucket id per record (sa: distinct values in every bucket, so exact = association)
    ids, sa = [0, 0, 1, 1, 1, 2, 2, 2, 2, 2], [0, 1, 0, 1, 2, 0, 1, 2, 3, 4]
    assert mse_of_release(ids, sa, "association") == pytest.approx(0.7, rel=1e-15)
    assert mse_of_release(ids, sa, "true_value") == pytest.approx(151 / 300, rel=1e-15)
    assert mse_of_release(ids, sa, "association_exact") == pytest.approx(0.7, rel=1e-15)


def test_association_exact_with_a_repeated_value_by_hand():
    # bucket 0 holds values 0, 0, 1: a record of value 0 estimates P(0) = 2/3, P(1) = 1/3 and errs
    # (1/3)^2 + (1/3)^2 = 2/9; the record of value 1 errs (2/3)^2 + (2/3)^2 = 8/9; bucket 0: 12/9 = 4/3
    # (= 3 - (2^2 + 1^2)/3). Bucket 1 holds 2, 3: 2 - 2/2 = 1. MSE = (4/3 + 1) / 5 = 7/15
    ids, sa = [0, 0, 0, 1, 1], [0, 0, 1, 2, 3]
    assert mse_of_release(ids, sa, "association_exact") == pytest.approx(7 / 15, rel=1e-15)
    assert mse_of_release(ids, sa, "association") == pytest.approx(3 / 5, rel=1e-15)  # (2 + 1) / 5
    assert mse_of_release(ids, sa, "true_value") == pytest.approx((4 / 3 + 1 / 2) / 5, rel=1e-15)


def test_the_extremes():
    n = 7
    # one bucket of everything: 1 - 1/n (the spec's check); singletons: 0 under every reading
    assert mse_of_setting([n], [1]) == pytest.approx(1 - 1 / n, rel=1e-15)
    assert mse_of_setting([n], [1], "true_value") == pytest.approx((n - 1) ** 2 / n / n, rel=1e-15)
    for d in MSE_DEFINITIONS:
        assert mse_of_release(np.arange(n), np.arange(n) % 3, d) == 0.0
    # a bucket of one value: its association is known exactly (no error), whatever the sizes say
    assert mse_of_release([0] * n, [2] * n, "association_exact") == 0.0


def test_association_is_loss_over_n():
    s = bk.BucketSetting([2, 5, 9], [4, 3, 2])
    assert mse_of_setting(s.sizes, s.counts) == pytest.approx(s.mse(), rel=1e-15)
    ids = np.repeat(np.arange(9), [2] * 4 + [5] * 3 + [9] * 2)
    assert mse_of_release(ids, np.zeros(ids.size, dtype=int)) == pytest.approx(bk.mse_of_buckets(ids), rel=1e-15)


# ---------------------------------------------------------------------------------------
# brute force: every record's squared errors, summed literally
# ---------------------------------------------------------------------------------------
def _oracle(ids: list[int], sa: list[int], definition: str) -> Fraction:
    n, total = len(ids), Fraction(0)
    values = range(max(sa) + 1)
    for r in range(n):
        mates = [s for s in range(n) if ids[s] == ids[r]]  # the records of r's bucket, r included
        size = len(mates)
        if definition == "association":  # each of the bucket's |B| entries a distinct value, 1/|B| each
            total += sum((Fraction(1, size) - (s == r)) ** 2 for s in mates)
        elif definition == "true_value":  # only r's own entry
            total += (1 - Fraction(1, size)) ** 2
        else:  # every value v of the domain, estimate c_{B,v} / |B|
            total += sum((Fraction(sum(sa[s] == v for s in mates), size) - (sa[r] == v)) ** 2 for v in values)
    return total / n


@st.composite
def _bucketizations(draw):
    n = draw(st.integers(1, 12))
    ids = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    sa = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return ids, sa


@settings(max_examples=150, deadline=None)
@given(_bucketizations(), st.sampled_from(MSE_DEFINITIONS))
def test_every_reading_against_brute_force(bucketization, definition):
    ids, sa = bucketization
    got = mse_of_release(ids, sa, definition)
    assert got == pytest.approx(float(_oracle(ids, sa, definition)), rel=1e-12, abs=1e-15)
    if definition != "association_exact":  # the sizes alone determine it
        sizes = np.unique(ids, return_counts=True)[1]
        assert mse_of_setting(sizes, np.ones_like(sizes), definition) == pytest.approx(got, rel=1e-12, abs=1e-15)
    # repeated values only lower the association's error: exact <= the distinct-values reading
    assert mse_of_release(ids, sa, "association_exact") <= mse_of_release(ids, sa, "association") + 1e-12


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 9), st.integers(0, 4)), min_size=1, max_size=4).filter(
        lambda pairs: any(b for _, b in pairs)
    )
)
def test_a_setting_is_its_buckets(pairs):
    sizes, counts = zip(*pairs)
    ids = np.repeat(np.arange(sum(counts)), np.repeat(sizes, counts))
    for d in ("association", "true_value"):
        want = mse_of_release(ids, np.arange(ids.size), d)
        assert mse_of_setting(sizes, counts, d) == pytest.approx(want, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------------------------------
# bad input: one line naming the parameter
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mse_of_setting([2], [1], "mean"), "^definition must be one of association, true_value; got 'mean'"),
        (lambda: mse_of_setting([2], [1], "association_exact"), "^definition must be one of association, true_value"),
        (lambda: mse_of_setting([2, 3], [1], "association"), "^sizes and counts must have the same length"),
        (lambda: mse_of_setting([0, 3], [1, 1]), "^sizes must be >= 1"),
        (lambda: mse_of_setting([2, 3], [0, 0]), "^counts must hold at least one bucket"),
        (lambda: mse_of_setting([2.5], [1]), "^sizes must hold integer codes"),
        (lambda: mse_of_release([0, 0], [1], "true_value"), "^bucket_ids and sa must have one entry per record"),
        (lambda: mse_of_release([0, -1], [1, 1]), "^bucket_ids must hold non-negative codes"),
        (lambda: mse_of_release([0], [0], "exact"), "^definition must be one of association, true_value, assoc"),
        (lambda: release_mse(Release(Plan("x", None, 1, 0, "", 0.0), None), np.zeros(3, int), "x"), "^definition"),
    ],
)
def test_bad_input_is_one_line(call, message):
    with pytest.raises(PrivlabError, match=message) as e:
        call()
    assert "\n" not in str(e.value)


def test_the_config_key_takes_a_definition_only():
    for exp_id in ("bucketization/fig4_mse", "bucketization/fig4_mse_acs"):
        assert runner.compose(exp_id).mse_definition == "association"  # the reproduction's reading
        with pytest.raises(PrivlabError, match="^mse_definition must be one of association, true_value, ") as e:
            runner.compose(exp_id, ["mse_definition=mean"])
        assert "\n" not in str(e.value)


# ---------------------------------------------------------------------------------------
# Figure 4's table under each reading
# ---------------------------------------------------------------------------------------
def test_a_release_without_buckets():
    n = 23
    # Anatomy, l = 5 not eligible: floor(23 / 5) = 4 groups of 5 or 6 records (Loss = 19), values distinct
    plan = Plan("ineligible (sizes only, privacy ignored)", None, n - 4, 2, "l=5", math.nan)
    sa = np.zeros(n, dtype=int)
    r = Release(plan, None)
    assert release_mse(r, sa, "association") == pytest.approx(19 / 23, rel=1e-15)
    assert release_mse(r, sa, "association_exact") == pytest.approx(19 / 23, rel=1e-15)
    assert release_mse(r, sa, "true_value") == pytest.approx((16 / 5 + 3 * 25 / 6) / 23, rel=1e-15)
    nothing = Release(Plan("timed out", None, None, 0, "", 1.0), None)
    assert all(math.isnan(release_mse(nothing, sa, d)) for d in MSE_DEFINITIONS)


def test_mse_table_under_each_reading():
    frame = load(name="census", n=2000, seed=0)
    tables = {"EDU": bk.census_table(frame, "EDU", {"OCC": "occupation", "EDU": "education"})}
    mechs = {"TwoSize": bk.TwoSizeBucketing(), "MultiSize": bk.MultiSizeBucketing(), "Anatomy": bk.AnatomyBucketing()}
    args = (tables, [4, 32], mechs, 0.02, 50, False)

    def seeds(*key):
        return seed_sequence(0, *key)

    tabs = {d: bk.mse_table(*args, seed_sequence=seeds, mse_definition=d) for d in MSE_DEFINITIONS}
    base = tabs["association"]
    assert (base.mse == base.loss / 2000).all()  # the default: Loss / n from the plan, as before
    for d, df in tabs.items():  # the same releases: only the mse column moves
        assert df.drop(columns="mse").equals(base.drop(columns="mse")), d
    # the same records released again, their buckets read directly
    released = bk.release_grid(*args[:5], seed_sequence=seeds, keep_ids=True)
    sa = tables["EDU"].sa
    for (_, _, method, r), row in zip(released, tabs["association_exact"].itertuples()):
        if r.bucket_ids is not None:  # (Anatomy where not eligible releases sizes only: above)
            assert row.mse == mse_of_release(r.bucket_ids, sa, "association_exact"), method
        assert row.mse <= base.mse[row.Index] + 1e-12  # EDU's values repeat in a bucket at theta = 32
    assert (tabs["association_exact"].mse < base.mse - 1e-9).any()
    assert (tabs["true_value"].mse < base.mse).all()  # (|B| - 1)^2 / |B| < |B| - 1 for |B| > 1
    with pytest.raises(PrivlabError, match="^mse_definition must be one of association, true_value, "):
        bk.mse_table(*args, seed_sequence=seeds, mse_definition="mean")


def test_figure_4_names_the_formula_its_mse_column_holds():
    from omegaconf import OmegaConf

    from privlab.experiments.bucketization.figures import MSE_FORMULAS, mse_vs_theta

    assert set(MSE_FORMULAS) == set(MSE_DEFINITIONS)
    frame = load(name="census", n=2000, seed=0)
    tables = {"EDU": bk.census_table(frame, "EDU", {"OCC": "occupation", "EDU": "education"})}
    df = bk.mse_table(
        tables, [4], {"TwoSize": bk.TwoSizeBucketing()}, 0.02, 50, False, seed_sequence=lambda *k: seed_sequence(0, *k)
    )
    labels = {
        d: mse_vs_theta.build(df, OmegaConf.create({"mse_definition": d})).panels[0].yaxis.quantity
        for d in MSE_DEFINITIONS
    }
    assert len(set(labels.values())) == len(MSE_DEFINITIONS)  # each reading its own formula on the axis
    assert labels["true_value"].endswith(MSE_FORMULAS["true_value"])
    assert mse_vs_theta.build(df, None).panels[0].yaxis.quantity == labels["association"]  # the default reading
