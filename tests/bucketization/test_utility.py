"""The run bodies moved from the experiments into the library: utility (Figures 4-5), runtime
(Figure 7), the tables, and the grids of inference, examples, anatomy and derivations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privlab import PrivlabError
from privlab import bucketization as bk
from privlab.context import seed_sequence
from privlab.datasets import load

SA_COLUMNS = {"OCC": "occupation", "EDU": "education"}


def _seeds(*key):
    return seed_sequence(0, *key)


def _serial(fn, items):
    return [fn(item) for item in items]


@pytest.fixture(scope="module")
def tables():
    frame = load(name="census", n=2000, seed=0)
    return {"EDU": bk.census_table(frame, "EDU", SA_COLUMNS)}


MECHS = {"TwoSize": bk.TwoSizeBucketing(), "MultiSize": bk.MultiSizeBucketing(), "Anatomy": bk.AnatomyBucketing()}


def test_census_and_attribute_tables():
    frame = load(name="census", n=500, seed=0)
    t = bk.census_table(frame, "OCC", SA_COLUMNS)
    assert t.sa.size == 500 and t.qi.shape == (500, 7) and t.sa_size == 50
    attrs = bk.attribute_table(frame)
    assert len(attrs) == 8 and (attrs.records == 500).all() and (attrs.distinct <= attrs.domain).all()
    with pytest.raises(PrivlabError, match="^table must be one of OCC, EDU"):
        bk.census_table(frame, "AGE", SA_COLUMNS)


def test_release_grid_is_the_same_serial_or_mapped_and_checks_every_release(tables):
    args = (tables, [4, 32], MECHS, 0.02, 50)
    a = bk.release_grid(*args, seed_sequence=_seeds)
    b = bk.release_grid(*args, seed_sequence=_seeds, map_fn=_serial)
    assert [k[:3] for k in a] == [("EDU", th, m) for th in (4, 32) for m in MECHS]
    assert [(r.plan.setting, r.plan.loss) for *_, r in a] == [(r.plan.setting, r.plan.loss) for *_, r in b]
    assert all(r.checked is not False for *_, r in a)


def test_mse_table_matches_the_settings_loss(tables):
    df = bk.mse_table(tables, [4], MECHS, 0.02, 50, False, seed_sequence=_seeds)
    assert list(df.method) == list(MECHS) and df.seconds.isna().all()
    two = df[df.method == "TwoSize"].iloc[0]
    assert two.mse == pytest.approx(two.loss / 2000)


def test_re_table_does_not_depend_on_the_chunking(tables):
    kw = {"seed_sequence": _seeds}
    a = bk.re_table(tables, [4], MECHS, 0.02, 50, 60, 0.05, 60, **kw)
    b = bk.re_table(tables, [4], MECHS, 0.02, 50, 60, 0.05, 7, map_fn=_serial, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert (a.re.dropna() >= 0).all() and a.re.notna().sum() == 2 and (a.queries == 60).all()
    with pytest.raises(PrivlabError, match="^query_chunk"):
        bk.re_table(tables, [4], MECHS, 0.02, 50, 60, 0.05, 0, **kw)


def test_runtime_tables(tables):
    counts = np.bincount(tables["EDU"].sa)
    rows = bk.timing_rows(MECHS, counts, 4, 0.02, 50, 1, timings=False)
    assert [r["method"] for r in rows] == list(MECHS) and all(np.isnan(r["seconds"]) for r in rows)
    by_n = bk.runtime_vs_n({1000: counts // 2, 2000: counts}, MECHS, 4, 0.02, 50, 1, True)
    assert list(by_n.n.unique()) == [1000, 2000] and (by_n.seconds.dropna() >= 0).all()
    pruned = {"None": bk.TwoSizeBucketing(pruning="none"), "Full": bk.TwoSizeBucketing(pruning="full")}
    up = bk.runtime_vs_scaleup(tables["EDU"].sa, [1, 2], pruned, 4, 0.02, 50, 1, False, seed_sequence=_seeds)
    assert (up.groupby("gamma").loss.nunique() == 1).all() and up.m.iloc[-1] > up.m.iloc[0]
    with pytest.raises(PrivlabError, match="^timings"):
        bk.timing_rows(MECHS, counts, 4, 0.02, 50, 1, timings="yes")
    # repeated runs: the median with the fastest and the slowest beside it
    for r in bk.timing_rows(pruned, counts, 4, 0.02, 50, 4, timings=True):
        assert 0 <= r["seconds_low"] <= r["seconds"] <= r["seconds_high"]


def test_timed_runs_runs_a_heuristic_repeats_times_and_an_ilp_once():
    counts = np.array([40, 30, 20, 10])
    F = bk.fprivacy(counts / counts.sum(), 4, 0.02)
    plan, seconds = bk.mechanisms.timed_runs(bk.TwoSizeBucketing(pruning="full"), counts, F, 50, 5)
    assert seconds.shape == (5,) and plan.loss is not None
    median = bk.mechanisms.timed_plan(bk.TwoSizeBucketing(pruning="full"), counts, F, 50, 5)
    assert median.loss == plan.loss
    _, once = bk.mechanisms.timed_runs(bk.mechanisms.OptimalBucketing(), counts, F, 50, 5)
    assert once.shape == (1,)


def test_ratio_grid_rows_and_seeds():
    df = bk.ratio_grid([100, 1000], [0.9], [0.1], 2000, 0.01, seed_sequence=_seeds)
    again = bk.ratio_grid([100, 1000], [0.9], [0.1], 2000, 0.01, seed_sequence=_seeds, map_fn=_serial)
    pd.testing.assert_frame_equal(df, again)
    assert list(df.a1) == [100.0, 1000.0] and df.factor.iloc[0] == pytest.approx(1.02)
    with pytest.raises(PrivlabError, match="^a1s"):
        bk.ratio_grid([], [0.9], [0.1], 10, 0.01, seed_sequence=_seeds)


def test_corruption_table_sizes_and_formula(tables):
    df = bk.corruption_table(tables["EDU"], [3], [0, 1], 50, 20, 0.1, seed_sequence=_seeds)
    assert len(df) == 2 * 3 and (df.formula_l == 1 / (3 - df.corrupted + df.fakes)).all()
    with pytest.raises(PrivlabError, match="^table"):
        bk.corruption_table(None, [3], [0], 50, 20, 0.1, seed_sequence=_seeds)


def test_corruption_table_is_the_same_however_its_tasks_are_mapped(tables):
    """The pool, each l's setting and each attack keep their own seed: tasks run in reverse (as
    a pool may finish them) give the serial table."""
    calls = []

    def backwards(fn, items):
        items = list(items)
        calls.append(len(items))
        return [fn(x) for x in items[::-1]][::-1]

    serial = bk.corruption_table(tables["EDU"], [2, 3], [0, 1], 50, 20, 0.1, seed_sequence=_seeds)
    mapped = bk.corruption_table(tables["EDU"], [2, 3], [0, 1], 50, 20, 0.1, seed_sequence=_seeds, map_fn=backwards)
    pd.testing.assert_frame_equal(serial, mapped)
    # the pool and the settings of every l, then the pool's errors (one chunk of queries) and every
    # (l, fakes, corrupted) attack
    assert calls == [1 + 2, 1 + 2 * 2 + 2 * 3]
    assert list(serial.l) == [2] * 4 + [3] * 6 and list(serial.corrupted[:4]) == [0, 1, 0, 1]


def test_the_per_table_grids(tables):
    freq = bk.frequency_tables(tables)
    assert freq["count"].sum() == 2000 and freq.frequency.sum() == pytest.approx(1.0)
    l_table = bk.l_needed_table(tables, [2, 32], 0.02)
    assert list(l_table.table) == ["EDU", "EDU"] and list(l_table.theta) == [2, 32]
    with pytest.raises(PrivlabError, match="^tables"):
        bk.frequency_tables({"EDU": np.arange(3)})


def test_the_worked_example_tables():
    q = bk.example1_table({"Gender": "F", "Zipcode": "61434"}, {"Disease": "HIV"})
    assert list(q.q1) == [0, 0, 0, 1] and list(q.q2) == [0, 0, 0, 1]
    st = bk.example35_table([1, 1, 2, 2], {"Gender": "F", "Zipcode": "61434"})
    assert st.pr_target.dropna().tolist() == [0.5, 0.5]
    counts = bk.setting_count_table([100], [[2, 5]], 7, 10)
    assert counts.kind.tolist()[0] == "candidate" and counts["count"].iloc[0] == bk.count_settings(100, 2, 5)
    ex = bk.example420_table(*bk.examples.example_4_20(), seed=0)
    assert bool(ex.checker.iloc[0]) and (ex.t1 == ex.t1_algorithm).all()
    with pytest.raises(PrivlabError, match="^ranges"):
        bk.setting_count_table([100], [[2]], 7, 10)


def test_formula_table_needs_every_printed_formula():
    df = bk.formula_table(["laplace_mean"], {"laplace_mean": "0"})
    assert bool(df.match.iloc[0])
    with pytest.raises(PrivlabError, match=r"^printed.formulas lacks the key\(s\) laplace_mean"):
        bk.formula_table(["laplace_mean"], {})
