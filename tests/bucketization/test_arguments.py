"""Bad arguments to every public function of privlab.bucketization (issue 11): one PrivlabError
line naming the parameter and what is allowed, never a MemoryError, AttributeError or an
error about another parameter."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError
from privlab import bucketization as bk

O = np.array([4, 3, 2, 1])
F = np.array([0.6, 0.6, 0.6, 0.6])
SA = np.repeat(np.arange(4), O)
S = bk.BucketSetting([5], [2])
HUGE = 10**18


def _pool():
    qi = np.zeros((SA.size, 1), dtype=int)
    return qi, bk.make_query_pool(qi, [1], SA, 4, 5, 0.5, seed=0)


CASES = {
    # the sizes that used to exhaust memory (issue 11)
    "two_size huge max_size": (lambda: bk.two_size(O, F, HUGE), "max_size"),
    "multi_size huge max_size": (lambda: bk.multi_size(O, F, HUGE), "max_size"),
    "optimal huge max_size": (lambda: bk.optimal(O, F, HUGE), "max_size"),
    "optimal_two_size huge max_size": (lambda: bk.optimal_two_size(O, F, HUGE), "max_size"),
    "plan huge max_size": (lambda: bk.TwoSizeBucketing().plan(O, F, HUGE), "max_size"),
    "anatomy plan huge max_size": (lambda: bk.AnatomyBucketing().plan(O, F, HUGE), "max_size"),
    "release huge max_size": (lambda: bk.release_checked(bk.MultiSizeBucketing(), SA, F, HUGE), "max_size"),
    "noisy_ratio huge size": (lambda: bk.noisy_ratio(100, 50, 0.1, HUGE), "size"),
    "ratio_summary huge size": (lambda: bk.ratio_summary(100, 0.5, 0.1, HUGE, 0.01), "size"),
    "make_query_pool huge n_queries": (lambda: bk.make_query_pool(np.zeros((10, 1)), [1], SA, 4, HUGE), "n_queries"),
    "timed_plan huge repeats": (lambda: bk.timed_plan(bk.TwoSizeBucketing(), O, F, 10, HUGE), "repeats"),
    "scale_up huge gamma": (lambda: bk.scale_up(SA, HUGE), "gamma"),
    "optimal huge time_limit": (lambda: bk.optimal(O, F, 10, time_limit=1e12), "time_limit"),
    "OptimalBucketing huge time_limit": (lambda: bk.OptimalBucketing(time_limit=1e12), "time_limit"),
    # a missing setting used to be an AttributeError (issue 11)
    "bucketize None setting": (lambda: bk.bucketize(SA, F, None), "setting"),
    "record_partition None setting": (lambda: bk.record_partition(O, F, None), "setting"),
    "is_valid str setting": (lambda: bk.is_valid(O, F, "{(5, 2)}"), "setting"),
    "naive_check None setting": (lambda: bk.naive_check(O, F, None), "setting"),
    "partition_steps one size": (lambda: bk.partition_steps(O, F, S), "setting"),
    # non-integer codes used to get a misleading F error (issue 11)
    "bucketize float codes": (lambda: bk.bucketize([0.5, 1.2, 2.0], F, S), "sa_codes"),
    "bucketize codes beyond F": (lambda: bk.bucketize([0, 1, 7], F, S), "sa_codes"),
    "bucketize negative codes": (lambda: bk.bucketize([0, -1], F, S), "sa_codes"),
    "release float codes": (lambda: bk.release_checked(bk.TwoSizeBucketing(), SA + 0.5, F, 10), "sa_codes"),
    "anatomy float codes": (lambda: bk.anatomy([0.5, 1.5, 2.5], 2), "sa_codes"),
    "scale_up float codes": (lambda: bk.scale_up([0.5], 2), "sa_codes"),
    "frequency_table negative": (lambda: bk.frequency_table([-1, 0]), "sa_codes"),
    "mse_of_buckets float ids": (lambda: bk.mse_of_buckets([0.5, 1.0]), "bucket_ids"),
    "checker float codes": (lambda: bk.check_bucketization([0.5, 1], [0, 0], [1, 1]), "sa_codes"),
    "checker lengths": (lambda: bk.check_bucketization([0, 1], [0], [1, 1]), "sa_codes and bucket_ids"),
    "checker codes beyond F": (lambda: bk.check_bucketization([0, 3], [0, 0], [1, 1]), "sa_codes"),
    "checker bad F": (lambda: bk.check_bucketization([0, 1], [0, 0], [1, 2]), "F"),
    "checker tol": (lambda: bk.check_bucketization([0, 1], [0, 0], [1, 1], tol="x"), "tol"),
    "add_fake_values lengths": (lambda: bk.add_fake_values(SA, SA[:-1], 1, 5), "sa_codes and bucket_ids"),
    "add_fake_values beyond domain": (lambda: bk.add_fake_values(SA, SA, 1, 2), "sa_codes"),
    "simulate_corruption ST lengths": (
        lambda: bk.simulate_corruption(SA, SA, SA, SA[:-1], 1),
        "st_bucket and st_value",
    ),
    "corruption_success too many": (lambda: bk.corruption_success(SA, 10, 0), "corrupted"),
    "corruption_certainty too many": (lambda: bk.corruption_certainty(2, 5, 0), "corrupted"),
    # the other arguments
    "caps zero size": (lambda: bk.caps(F, [0, 2]), "sizes"),
    "caps bad F": (lambda: bk.caps([1.5], [2]), "F"),
    "smallest_size bad counts": (lambda: bk.smallest_size(F, [-1, 1, 1, 1]), "counts"),
    "pair_list s2 <= s1": (lambda: bk.pair_list(10, 4, 2), "s2"),
    "pair_list negative n": (lambda: bk.pair_list(-1, 1, 2), "n"),
    "fprivacy theta": (lambda: bk.fprivacy([0.5, 0.5], -1), "theta"),
    "fprivacy freqs": (lambda: bk.fprivacy([1.5], 2), "freqs"),
    "prepare counts": (lambda: bk.prepare([1.5, 2], [1, 1]), "counts"),
    "prepare lengths": (lambda: bk.prepare([1, 2], [1]), "counts and F"),
    "two_size infeasible F": (lambda: bk.two_size([9, 1], [0.5, 1.0], 10), "F"),
    "two_size pruning": (lambda: bk.two_size(O, F, 10, "some"), "pruning"),
    "multi_size return_parts": (lambda: bk.multi_size(O, F, 10, return_parts="yes"), "return_parts"),
    "anatomy l": (lambda: bk.anatomy(SA, 0), "l"),
    "required_l F": (lambda: bk.required_l([0.0, 1.0]), "F"),
    "l_diversity_eligible freqs": (lambda: bk.l_diversity_eligible([2.0], 2), "freqs"),
    "l_needed thetas": (lambda: bk.l_needed([0.5, 0.5], "abc"), "thetas"),
    "BucketSetting sizes": (lambda: bk.BucketSetting([0], [1]), "sizes"),
    "make_query_pool qi_sizes": (lambda: bk.make_query_pool(np.zeros((10, 1)), [1, 2], SA, 4), "qi_sizes"),
    "make_query_pool qi rows": (lambda: bk.make_query_pool(np.zeros((3, 1)), [1], SA, 4), "qi and sa"),
    "make_query_pool sa beyond sa_size": (lambda: bk.make_query_pool(np.zeros((10, 1)), [1], SA, 2), "sa"),
    "query_answers bucketizations": (lambda: bk.query_answers(_pool()[0], SA, "ids", _pool()[1]), "bucketizations"),
    "query_answers ids length": (lambda: bk.query_answers(_pool()[0], SA, [SA[:-1]], _pool()[1]), "bucketizations[0]"),
    "query_answers pool": (lambda: bk.query_answers(_pool()[0], SA, [SA], None), "pool"),
    "relative_errors zero actual": (lambda: bk.relative_errors([0, 1], [1, 1]), "actual"),
    "relative_errors shapes": (lambda: bk.relative_errors([1, 1], [1, 1, 1]), "estimates"),
    "pool_relative_errors pool": (lambda: bk.pool_relative_errors(_pool()[0], SA, [SA], "pool"), "pool"),
    "split_table frame": (lambda: bk.split_table(None, "a", {}), "frame"),
    "split_table uncoded": (lambda: bk.split_table(pd.DataFrame({"a": [0, 5]}), "a", {"a": 2}), "frame"),
    "recode columns": (lambda: bk.recode(pd.DataFrame({"a": [1]}), {}), "columns"),
    "recode missing column": (lambda: bk.recode(pd.DataFrame({"a": [1]}), {"age": "b"}), "columns"),
    "release_checked mechanism": (lambda: bk.release_checked("two_size", SA, F, 10), "mechanism"),
    "release_all seeds": (lambda: bk.release_all(SA, F, [bk.TwoSizeBucketing()], 10, seeds=3), "seeds"),
    "timed_plan mechanism": (lambda: bk.timed_plan(None, O, F, 10), "mechanism"),
    "count_settings low": (lambda: bk.count_settings(100, 0, 50), "low"),
    "search_setting_count max_high": (lambda: bk.search_setting_count(10, [100], 10**6), "max_high"),
    "count_query where": (lambda: bk.count_query(bk.table1(), {}), "where"),
    "count_query column": (lambda: bk.count_query(bk.table1(), {"Age": 3}), "where"),
    "bucket_tables sa": (lambda: bk.bucket_tables(bk.table1(), "Illness", [1, 1, 2, 2]), "sa"),
    "bucket_tables ids": (lambda: bk.bucket_tables(bk.table1(), "Disease", [1, 2]), "bucket_ids"),
    "check_formula case": (lambda: bk.check_formula("theorem9", "0"), "case"),
    # the run bodies the experiments call
    "ratio_grid empty axis": (
        lambda: bk.ratio_grid([1], [], [1], 10, 0.1, seed_sequence=bk.settings.check_int),
        "ratios",
    ),
    "ratio_grid seed_sequence": (lambda: bk.ratio_grid([1], [1], [1], 10, 0.1, seed_sequence=3), "seed_sequence"),
    "corruption_table table": (lambda: bk.corruption_table(SA, [2], [0], 10, 5, 0.5, seed_sequence=print), "table"),
    "census_table table": (lambda: bk.census_table(pd.DataFrame(), "X", {"OCC": "o"}), "table"),
    "attribute_table frame": (lambda: bk.attribute_table(None), "frame"),
    "frequency_tables tables": (lambda: bk.frequency_tables({}), "tables"),
    "l_needed_table tables": (lambda: bk.l_needed_table([SA], [2]), "tables"),
    "release_grid mechanisms": (lambda: bk.release_grid({}, [2], {}, 0, 10, seed_sequence=print), "tables"),
    "mse_table timings": (lambda: bk.mse_table({}, [2], {}, 0, 10, "no", seed_sequence=print), "timings"),
    "re_table n_queries": (lambda: bk.re_table({}, [2], {}, 0, 10, 0, 0.1, 1, seed_sequence=print), "tables"),
    "timing_rows mechanisms": (lambda: bk.timing_rows({}, O, 2, 0, 10, 1, True), "mechanisms"),
    "runtime_vs_n counts": (lambda: bk.runtime_vs_n({}, {"T": bk.TwoSizeBucketing()}, 2, 0, 10, 1, True), "counts"),
    "runtime_vs_scaleup seed": (
        lambda: bk.runtime_vs_scaleup(SA, [2], {}, 2, 0, 10, 1, True, seed_sequence=1),
        "seed_sequence",
    ),
    "example1_table sensitive": (lambda: bk.example1_table({"Gender": "F"}, {}), "sensitive"),
    "example35_table target": (lambda: bk.example35_table([1, 1, 2, 2], {}), "target"),
    "setting_count_table ranges": (lambda: bk.setting_count_table([100], [[2]], 7, 10), "ranges"),
    "example420_table setting": (lambda: bk.example420_table(O, F, None), "setting"),
    "formula_table printed": (lambda: bk.formula_table(["laplace_mean"], None), "printed"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_argument_names_the_parameter(name):
    call, param = CASES[name]
    with pytest.raises(PrivlabError) as info:
        call()
    text = str(info.value)
    assert text.startswith(param), f"{name}: {text!r} does not start with {param!r}"
    assert "\n" not in text and len(text) < 600


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False).filter(lambda x: x != int(x)), min_size=1, max_size=6))
def test_non_integer_codes_are_named_as_such(codes):
    with pytest.raises(PrivlabError, match=r"^sa_codes must hold integer codes"):
        bk.bucketize(codes, F, S)


@settings(max_examples=40, deadline=None)
@given(st.integers(bk.MAX_SIZE + 1, 10**30))
def test_any_max_size_beyond_the_limit_is_refused_at_once(max_size):
    for fn in (bk.two_size, bk.multi_size, bk.optimal, bk.optimal_two_size):
        with pytest.raises(PrivlabError, match=rf"^max_size must be an integer in \[1, {bk.MAX_SIZE:,}\]"):
            fn(O, F, max_size)


def test_a_max_size_above_the_table_is_clamped_not_scanned():
    # sizes above n cannot hold a bucket: a large (allowed) max_size costs nothing on a tiny table
    assert bk.two_size(O, F, bk.MAX_SIZE) == bk.two_size(O, F, int(O.sum()))
    assert bk.optimal(O, F, bk.MAX_SIZE).loss == bk.optimal(O, F, int(O.sum())).loss
