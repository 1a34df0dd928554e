"""The worked examples and in-text statements privlab checks by test: Tables 1-2, Examples
4.20, 5.23 and 5.32 (rebuilt instances from their configs), Remark 3.12's count, RRA's
per-bucket counts, the list L, Loss additivity, the eligibility conditions, Section 6's
bucket sizes and Section 7.3.2's explanation of No-pruning's speed-up."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError
from privlab.bucketization import (
    BucketSetting,
    bucket_tables,
    bucketize,
    capacity_table,
    count_query,
    count_settings,
    fprivacy,
    frequency_table,
    is_valid,
    l_diversity_eligible,
    max_eligible_l,
    naive_check,
    pair_list,
    pair_list_table,
    partition_steps,
    recode,
    record_partition,
    required_l,
    scale_up,
    search_setting_count,
    stranded_records,
    table1,
    target_inference,
    two_size,
    uniform_sizes,
)
from privlab.bucketization.two_size import two_size_core
from privlab.runner import compose

FAST = settings(max_examples=50, deadline=None)


def _instance(exp_id):
    cfg = compose(exp_id)
    return np.array(cfg.counts), np.array(cfg.F, dtype=float), BucketSetting(cfg.setting.sizes, cfg.setting.counts)


def test_table1_and_example1_queries():
    t = table1()
    assert list(t.columns) == ["Gender", "Zipcode", "Disease"] and len(t) == 4
    assert count_query(t, {"Gender": "F", "Zipcode": "61434"}) == 1
    assert count_query(t, {"Gender": "F", "Zipcode": "61434", "Disease": "HIV"}) == 1
    assert count_query(t, {"Gender": "M"}) == 2


def test_table2_and_example35_inference():
    qit, st_ = bucket_tables(table1(), "Disease", [1, 1, 2, 2])
    assert qit.BID.tolist() == [1, 1, 2, 2] and "Disease" not in qit
    assert st_.groupby("BID").Count.sum().tolist() == [2, 2]
    pr = target_inference(qit, st_, {"Gender": "F", "Zipcode": "61434"})
    assert pr.BID.unique().tolist() == [2]
    assert dict(zip(pr.value, pr.pr)) == {"Cancer": 0.5, "HIV": 0.5}


def test_example_4_20_rebuilt_instance():
    o, F, s = _instance("bucketization/example420_partition")
    steps = partition_steps(o, F, s)
    assert o.sum() == 50 and steps.t1_initial.sum() == 42 and s.sizes[0] * s.counts[0] == 36
    assert steps.moved.tolist() == [1] * 6 + [0] * 8  # one record of each of x1..x6
    assert steps.t1.tolist() == record_partition(o, F, s)[:, 0].tolist()
    assert (steps.t2 <= steps.u2).all() and (steps.t1 <= steps.u1).all() and is_valid(o, F, s)


def test_example_5_32_rebuilt_instance():
    o, F, s = _instance("bucketization/example532_three_sizes")
    assert o.size == 11
    assert stranded_records(o, F, s) == (50, 30, ", ".join(f"x{i}" for i in range(1, 11)))
    assert naive_check(o, F, s) and not is_valid(o, F, s)


def test_capacity_table_of_example_5_32():
    o, F, s = _instance("bucketization/example532_three_sizes")
    t = capacity_table(o, F, s)
    assert t.value.tolist() == [f"x{i}" for i in range(1, 12)] and t.o.tolist() == o.tolist()
    # x1..x10 (F = 1/6): floor(F S) = 0 for sizes 2 and 4, 5 of the size-30 bucket; x11 (F = 1) fills every bucket
    assert t.u1.tolist() == [0] * 10 + [20] and t.u2.tolist() == [0] * 10 + [20] and t.u3.tolist() == [5] * 10 + [30]
    assert (t.stranded == 50).all() and (t.capacity == 30).all() and (t.setting == str(s)).all()
    assert t.naive.all() and not t.exact.any()


def test_pair_list_table_of_example_5_23():
    t = pair_list_table(28, 2, 4)
    assert list(zip(t.b1, t.b2)) == [(14 - 2 * k, k) for k in range(8)] and t.k.tolist() == list(range(8))
    assert t.enumerated.tolist() == [f"({a}, {b})" for a, b in zip(t.b1, t.b2)]
    assert t.loss.tolist() == [28 - a - b for a, b in zip(t.b1, t.b2)]
    empty = pair_list_table(7, 2, 4)  # no b1 * 2 + b2 * 4 = 7
    assert empty.empty and list(empty.columns) == ["k", "b1", "b2", "loss", "enumerated"]


def test_max_eligible_l():
    assert max_eligible_l(0.075) == 13  # Section 1.2: OCC's largest frequency 7.5%
    assert [max_eligible_l(1 / k) for k in range(1, 60)] == list(range(1, 60))  # exact at 1/l despite rounding
    assert max_eligible_l(0.273) == 3 and max_eligible_l(1.0) == 1
    with pytest.raises(PrivlabError, match="f_max"):
        max_eligible_l(0.0)


def test_example_5_23_and_the_closed_form_of_L():
    b1, b2, K, step1, step2 = pair_list(28, 2, 4)
    assert (b1, b2, K, step1, step2) == (14, 0, 7, 2, 1)


@FAST
@given(st.integers(0, 300), st.integers(1, 12), st.integers(1, 12))
def test_pair_list_is_the_enumerated_list(n, s1, s2):
    # Eq. (7)-(9) and Remark 5.22: pair k is generated directly, the list is every solution
    if s1 == s2:
        return
    s1, s2 = min(s1, s2), max(s1, s2)
    listed = [(a, (n - a * s1) // s2) for a in range(n // s1, -1, -1) if (n - a * s1) % s2 == 0]
    head = pair_list(n, s1, s2)
    if head is None:
        assert listed == []
        return
    b1, b2, K, step1, step2 = head
    assert [(b1 - k * step1, b2 + k * step2) for k in range(K + 1)] == listed


def test_remark_3_12_counts():
    # brute force on a small case, then the search finds a count it is given
    n, lo, hi = 60, 2, 7
    brute = sum(
        1
        for s1 in range(lo, hi + 1)
        for s2 in range(s1 + 1, hi + 1)
        for b1 in range(n // s1 + 1)
        if (n - b1 * s1) % s2 == 0
    )
    assert count_settings(n, lo, hi) == brute
    assert count_settings(300_000, 2, 50) == 2_985_641
    near = search_setting_count(brute, [60, 61], 7)
    assert (near["diff"] == 0).any() and {"n", "low", "high", "count"} <= set(near)


def test_frequency_table_ranks_by_count():
    f = frequency_table([2, 2, 2, 0, 1, 1])
    assert f["rank"].tolist() == [1, 2, 3] and f.value.tolist() == ["2", "1", "0"]
    assert f.frequency.sum() == pytest.approx(1.0)


@FAST
@given(st.lists(st.integers(0, 9), min_size=1, max_size=6), st.integers(1, 6))
def test_rra_puts_floor_or_ceil_of_each_value_in_each_bucket(extra, b):
    # Section 4.1: with one size, RRA gives bucket B floor(o_i / b) or ceil(o_i / b) records of x_i
    o = np.array(extra) + b  # at least b records of every value
    size = int(o.sum()) // b
    if size * b != o.sum():
        o[0] += b - o.sum() % b
        size = int(o.sum()) // b
    F = np.ones(o.size)
    sa = np.repeat(np.arange(o.size), o)
    bid = bucketize(sa, F, BucketSetting([size], [b]), seed=1)
    per = np.zeros((b, o.size), dtype=int)
    np.add.at(per, (bid, sa), 1)
    assert np.all((per == o // b) | (per == -(-o // b)))


@FAST
@given(st.lists(st.integers(1, 6), min_size=1, max_size=8), st.lists(st.integers(1, 6), min_size=1, max_size=8))
def test_loss_is_additive(a, b):
    # Section 3.3: Loss(T1 u T2) = Loss(T1) + Loss(T2) for disjoint bucket sets
    s1, s2 = BucketSetting(a, [1] * len(a)), BucketSetting(b, [1] * len(b))
    assert (s1 + s2).loss == s1.loss + s2.loss


@FAST
@given(st.lists(st.integers(1, 30), min_size=2, max_size=8), st.floats(1.0, 40.0), st.floats(0.0, 0.1))
def test_l_eligibility_implies_f_eligibility(counts, theta, offset):
    # Remark 3.8: f_i <= 1/l (l-diversity) is harder to meet than f_i <= F_i (F-privacy)
    f = np.array(counts) / sum(counts)
    F = fprivacy(f, theta, offset + 1e-3)
    if l_diversity_eligible(f, required_l(F)):
        assert np.all(f <= F + 1e-12)
    assert np.all(f <= F + 1e-12) or theta < 1  # F-privacy eligible for every theta >= 1


def test_section_6_sizes_l_or_l_plus_1_except_tiny_tables():
    # Section 6: one F = 1/l for all values -> buckets of size l or l+1; true once n is large
    # enough for sizes l and l+1 to add up to n, but not for an 11-record table with l = 4
    rng = np.random.default_rng(0)
    for _ in range(60):
        l, m = int(rng.integers(2, 6)), int(rng.integers(6, 12))
        o = rng.multinomial(int(rng.integers(l * l + l, 300)), np.ones(m) / m)
        if o.max() * l > o.sum():
            continue
        s = two_size(o, np.full(m, 1.0 / l), 50)
        assert s is not None and set(s.sizes) <= {l, l + 1}
    s = two_size([2, 1, 1, 2, 2, 1, 1, 1], np.full(8, 0.25), 50)
    assert s == BucketSetting([4, 7], [1, 1])  # 11 = 4a + 5b has no solution
    assert uniform_sizes(4, 16) == (6, BucketSetting([6], [1]))  # the smallest such table
    assert uniform_sizes(2, 50) is None  # every n >= 2 is a sum of 2's and 3's


def test_section_7_3_2_scale_up_shrinks_the_lists():
    # a larger gamma: smaller F_i, a larger smallest size, shorter lists for No-pruning to scan
    rng = np.random.default_rng(3)
    p = np.geomspace(0.075, 0.0018, 50)
    sa = rng.choice(50, 20_000, p=p / p.sum())
    scanned, smallest = [], []
    for gamma in (2, 32):
        o = np.bincount(scale_up(sa, gamma, seed=gamma))
        F = fprivacy(o / o.sum(), 8)
        smallest.append(int(np.ceil(1 / F.max())))
        scanned.append(two_size_core(o, F, 50, "none")[1])
    assert smallest == sorted(smallest) and smallest[0] < smallest[-1]
    assert scanned == sorted(scanned, reverse=True) and scanned[-1] < scanned[0]


def test_recode_keeps_complete_records_and_codes_them():
    import pandas as pd

    frame = pd.DataFrame({"A": [30, 40, None, 30], "B": ["x", "y", "y", "z"], "C": [1, 2, 3, None]})
    coded, domains = recode(frame, {"age": "A", "other": "B", "sa": "C"})
    assert len(coded) == 2 and domains == {"A": 2, "B": 2, "C": 2}
    assert coded.A.tolist() == [0, 1] and coded.B.tolist() == [0, 1]
