"""The experiments' sweeps (privlab.isolation.sweeps): each cell is its engine's call with the cell's
seeds, rows come in the table's order whatever order the cells run in, and bad arguments fail in one line."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest

from privlab import isolation as iso
from privlab._validation import PrivlabError
from privlab.context import seed_sequence

SEEDS = partial(seed_sequence, 7)
SANITIZERS = [("aux_only", iso.AuxOnly()), ("histogram", iso.RecursiveHistogram())]


def _reversed_map(fn, items):
    """A map that runs the cells last to first (as parallel workers might) and returns them in order."""
    return [fn(item) for item in reversed(items)][::-1]


def test_stream_seeds_name_every_stream_under_the_cell_key():
    seeds = iso.stream_seeds(SEEDS, SANITIZERS, "vs_d", 4)
    assert set(seeds) == set(iso.seed_names(s for _, s in SANITIZERS))
    assert seeds["db"].spawn_key == SEEDS("vs_d", 4, "db").spawn_key


def test_results_table_is_cube_attack_per_cell_in_the_tables_order():
    ran, sans = [], SANITIZERS[::-1]  # the histogram's best-of row must still come after aux_only's row

    def recording_map(fn, items):
        ran.extend((item[1]["d"], [label for label, _ in item[2]["sanitizers"]]) for item in items)
        return [fn(item) for item in items]

    df = iso.results_table(300, [2, 3], 5, 4, 30, sans, SEEDS, m_any=10, map_fn=recording_map)
    # one task per d, the costliest first, every sanitizer in it (they share the d's distance index)
    assert ran == [(3, ["histogram", "aux_only"]), (2, ["histogram", "aux_only"])]
    assert list(df.columns[:3]) == ["d", "n", "T"] and "c" not in df
    assert list(dict.fromkeys(df.d)) == [2, 3]  # the order of dims, though the largest d runs first
    assert (df.talk_bound == 2.0**-df.d).all()
    for d, g in df.groupby("d", sort=False):  # per d: every adversary's row, then the best-of rows
        assert list(g.adversary == iso.BEST) == [False] * (len(g) - 1) + [True]
        seeds = iso.stream_seeds(SEEDS, sans, "vs_d", d)
        expect = iso.best_last([r for s in sans for r in iso.cube_attack(300, d, 5, [4.0], 30, seeds, [s], m_any=10)])
        got = g.drop(columns=["d", "n", "T", "talk_bound"]).to_dict("records")
        assert pd.DataFrame(got).equals(pd.DataFrame(expect).drop(columns="c"))
    # a d's rows do not depend on the other dimensions, nor on the order the cells run in
    alone = iso.results_table(300, [3], 5, 4, 30, sans, SEEDS, m_any=10, map_fn=_reversed_map)
    pd.testing.assert_frame_equal(alone, df[df.d == 3].reset_index(drop=True))


def test_c_T_table_attacks_one_database_at_every_T():
    df = iso.c_T_table(300, 2, [1, 4], [1, 5], 30, SANITIZERS, SEEDS, map_fn=_reversed_map)
    assert list(df.columns[:2]) == ["d", "T"] and (df.d == 2).all()
    seeds = iso.stream_seeds(SEEDS, SANITIZERS, "c_T")
    expect = [{"T": T, **r} for T in (1, 5) for r in iso.cube_attack(300, 2, T, [1.0, 4.0], 30, seeds, SANITIZERS)]
    assert df.drop(columns="d").equals(pd.DataFrame(expect))
    assert set(df[df["T"] == 1].sanitizer) == {"aux_only"}  # a histogram needs T >= 2


def test_bad_sanitizer_table_sweeps_stretch_and_disclosed():
    df = iso.bad_sanitizer_table(200, 3, 5, 4, 30, [1, 100], SEEDS)
    assert len(df) == 2 * 3 * 2 and (df.d == 3).all()
    assert list(dict.fromkeys(zip(df.stretch, df.disclosed))) == [(s, k) for s in (1.0, 100.0) for k in range(3)]
    seeds = iso.stream_seeds(SEEDS, [], "bad", 100.0, 2)
    expect = iso.bad_sanitizer_rows(200, 3, 5, 4.0, 30, 100.0, 2, seeds)
    got = df[(df.stretch == 100) & (df.disclosed == 2)].drop(columns="d").to_dict("records")
    assert pd.DataFrame(got).equals(pd.DataFrame(expect))


def test_real_data_table_scales_the_records_and_adds_the_uniform_reference():
    records = np.column_stack([np.arange(300.0) % 7, np.arange(300.0) ** 2])
    df = iso.real_data_table(records, ["rank"], 5, 4, 40, SANITIZERS, SEEDS, data="toy")
    assert list(dict.fromkeys(df.data)) == ["toy_rank", "uniform_cube"] and "c" not in df
    X = iso.scale_to_cube(records, SEEDS("real", "jitter", "rank"), scaling="rank")
    expect = iso.holdout_attack(X, 5, 4.0, 40, iso.stream_seeds(SEEDS, SANITIZERS, "real", "rank"), SANITIZERS)
    got = df[df.data == "toy_rank"].drop(columns="data").to_dict("records")
    assert pd.DataFrame(got).equals(pd.DataFrame(expect).drop(columns="c"))
    assert (df.n == 260).all() and (df.d == 2).all()


def test_utility_table_runs_the_largest_d_first_and_keeps_the_order_of_dims():
    ran = []

    def recording_map(fn, items):
        ran.extend(item[2]["d"] for item in items)
        return [fn(item) for item in items]

    kw = {"k": 2, "sigma": 0.2, "n_boxes": 5, "box_dims": 1, "n_init": 1}
    df = iso.utility_table([2, 3], 200, 5, SANITIZERS[1:], SEEDS, **kw, map_fn=recording_map)
    assert ran == [3, 2] and list(df.d) == [2, 3]
    expect = iso.mixture_utility(200, 3, 5, SANITIZERS[1:], iso.stream_seeds(SEEDS, SANITIZERS[1:], "utility", 3), **kw)
    assert df[df.d == 3].reset_index(drop=True).equals(pd.DataFrame(expect))


def test_numeric_records_drops_incomplete_rows_and_subsamples():
    frame = pd.DataFrame({"a": [1.0, 2, None, 4, 5], "b": [1, 2, 3, 4, 5], "s": list("vwxyz")})
    assert iso.numeric_records(frame, ["b", "a"]).tolist() == [[1, 1], [2, 2], [4, 4], [5, 5]]
    sub = iso.numeric_records(frame, ["a"], n_rows=2, seed=3)
    assert sub.shape == (2, 1) and set(sub[:, 0]) <= {1, 2, 4, 5}
    assert np.array_equal(sub, iso.numeric_records(frame, ["a"], n_rows=2, seed=3))
    with pytest.raises(PrivlabError, match=r"columns must be numeric columns of toy; unknown: \['c'\]"):
        iso.numeric_records(frame, ["a", "c"], name="toy")
    with pytest.raises(PrivlabError, match="non-numeric"):
        iso.numeric_records(frame, ["s"])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: iso.results_table(300, [2, 2], 5, 4, 30, SANITIZERS, SEEDS), r"dims must not repeat"),
        (lambda: iso.results_table(300, [], 5, 4, 30, SANITIZERS, SEEDS), r"dims must be a non-empty list"),
        (lambda: iso.results_table(300, [2], 5, 0.5, 30, SANITIZERS, SEEDS), r"c must be in \[1, inf\)"),
        (lambda: iso.results_table(300, [2], 5, 4, 30, [], SEEDS), "sanitizers must be a non-empty list"),
        (lambda: iso.results_table(300, [2], 5, 4, 30, [("h", "histogram")], SEEDS), r"\(label, Sanitizer\) pairs"),
        (lambda: iso.results_table(300, [2], 5, 4, 30, SANITIZERS * 2, SEEDS), "distinct labels"),
        (lambda: iso.results_table(300, [2], 5, 4, 30, SANITIZERS, 7), "seed_sequence must be a function"),
        (lambda: iso.c_T_table(300, 2, [1], [1], 30, SANITIZERS, SEEDS, map_fn=3), "map_fn must be a function or None"),
        (lambda: iso.c_T_table(300, 2, [1], [400], 30, SANITIZERS, SEEDS), r"Ts\[0\] must be an integer in \[1, 300\]"),
        (lambda: iso.c_T_table(300, 2, "1", [1], 30, SANITIZERS, SEEDS), "cs must be a non-empty list"),
        (lambda: iso.bad_sanitizer_table(300, 3, 5, 4, 30, [0], SEEDS), r"stretches\[0\] must be in \(0, inf\)"),
        (lambda: iso.bad_sanitizer_table(300, 3, 5, 4, 0, [1], SEEDS), r"m must be an integer in \[1, inf\]"),
        (lambda: iso.real_data_table(np.zeros((9, 2)), ["log"], 5, 4, 3, SANITIZERS, SEEDS, data="x"), "scalings"),
        (lambda: iso.real_data_table([1.0, 2.0], ["rank"], 5, 4, 3, SANITIZERS, SEEDS, data="x"), "records must be"),
        (lambda: iso.utility_table([2], 1, 5, SANITIZERS, SEEDS, k=2, sigma=0.1, n_boxes=1, box_dims=1, n_init=1), "n"),
        (lambda: iso.stream_seeds(None, SANITIZERS), "seed_sequence must be a function"),
        (lambda: iso.numeric_records([[1.0]], ["a"]), "frame must be a DataFrame"),
        (lambda: iso.numeric_records(pd.DataFrame({"a": [1.0]}), "a"), "columns must be a non-empty list"),
        (lambda: iso.numeric_records(pd.DataFrame({"a": [1.0]}), ["a"], n_rows=0), "n_rows must be an integer"),
    ],
)
def test_bad_arguments_fail_in_one_line(call, message):
    with pytest.raises(PrivlabError, match=message) as err:
        call()
    assert "\n" not in str(err.value)
