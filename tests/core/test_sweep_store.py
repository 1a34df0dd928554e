"""The sweep's Parquet store (privlab.sweep_store): gathered one job at a time, equal to the
concatenation of the jobs' CSVs, incremental, queried with filters pushed to the file."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privlab import PrivlabError, store, sweep_store


def make_job(sweep, num, table: pd.DataFrame, overrides: list[str], claims: str | None = None) -> None:
    def fill(staging):
        (staging / "result.csv").write_text(table.to_csv(index=False, lineterminator="\n"))
        (staging / "overrides.yaml").write_text("".join(f"- {o}\n" for o in ["experiment=toy/x", *overrides]))
        if claims is not None:
            (staging / "claims.csv").write_text(claims)

    store.write_result(sweep / str(num), fill, rows=len(table))


def oracle(sweep, jobs: list[tuple[pd.DataFrame, dict]]) -> pd.DataFrame:
    """What the gathered table must be: the jobs' CSVs read back and concatenated by pandas, the
    swept parameters (values that differ between jobs) in front of the columns the tables lack."""
    keys = list(dict.fromkeys(k for _, p in jobs for k in p))
    swept = [k for k in keys if len({repr(p.get(k)) for _, p in jobs}) > 1]
    frames = []
    for num, (table, params) in enumerate(jobs):
        frame = pd.read_csv(io.StringIO(table.to_csv(index=False)))
        lead = {"job": str(num), **{k: params.get(k) for k in swept if k not in frame.columns}}
        for i, (k, v) in enumerate(lead.items()):
            frame.insert(i, k, v)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_gather_equals_the_concatenated_csvs(tmp_path):
    sweep = tmp_path / "s"
    rng = np.random.default_rng(0)
    jobs = []
    for num, (rho, kind) in enumerate([(0.3, "a"), (0.5, "a"), (0.7, "b")]):
        n = 3 + num
        table = pd.DataFrame({"x": np.arange(n), "y": rng.normal(size=n), "label": [f"r{i}" for i in range(n)]})
        if num == 0:
            table["y"] = np.arange(n)  # integers in the first job, floats in the others: floats
        if num == 2:
            table["extra"] = "only here"
        jobs.append((table, {"rho": rho, "kind": kind, "fixed": 1}))
        make_job(sweep, num, table, [f"rho={rho}", f"kind={kind}", "fixed=1"])
    got = sweep_store.gather(sweep)
    assert got.swept == ["rho", "kind"] and got.jobs == ["0", "1", "2"] and got.rows == 12
    want = oracle(sweep, jobs)
    table = pd.read_csv(sweep / "sweep.csv")
    pd.testing.assert_frame_equal(table, pd.read_csv(io.StringIO(want.to_csv(index=False))))
    parquet = pd.read_parquet(sweep / "sweep.parquet")
    assert list(parquet.columns) == list(want.columns)
    assert parquet["y"].dtype == float and parquet["extra"].isna().sum() == 7
    assert sweep_store.description(sweep) == {"experiment": None, "swept": ["rho", "kind"], "jobs": ["0", "1", "2"]}


def test_gather_is_incremental_and_byte_stable(tmp_path):
    sweep = tmp_path / "s"
    for num in range(3):
        make_job(sweep, num, pd.DataFrame({"x": [num, num + 1]}), [f"seed={num}"])
    sweep_store.gather(sweep)
    first = (sweep / "sweep.parquet").read_bytes(), (sweep / "sweep.csv").read_bytes()
    parts = {p.name: p.stat().st_mtime_ns for p in (sweep / ".table").iterdir()}
    sweep_store.gather(sweep)
    assert ((sweep / "sweep.parquet").read_bytes(), (sweep / "sweep.csv").read_bytes()) == first
    assert {p.name: p.stat().st_mtime_ns for p in (sweep / ".table").iterdir()} == parts  # parts reused
    make_job(sweep, 1, pd.DataFrame({"x": [7, 8, 9]}), ["seed=1"])  # job 1 recomputed: its part is renewed
    sweep_store.gather(sweep)
    assert pd.read_csv(sweep / "sweep.csv").x.tolist() == [0, 1, 7, 8, 9, 2, 3]
    (sweep / "2" / "result.csv").write_text("x\n99\n")  # damaged: fails its manifest, left out and named
    got = sweep_store.gather(sweep)
    assert got.jobs == ["0", "1"] and got.incomplete == ["job 2: result.csv has 5 bytes, the manifest says 6"]


def test_gather_holds_one_job_at_a_time(tmp_path, monkeypatch):
    """Memory: the store is written part by part (each row group one job), never concatenated."""
    sweep = tmp_path / "s"
    for num in range(5):
        make_job(sweep, num, pd.DataFrame({"x": range(100)}), [f"seed={num}"])
    monkeypatch.setattr(pd, "concat", lambda *a, **k: pytest.fail("gather concatenated the jobs"))
    sweep_store.gather(sweep)
    meta = pq.ParquetFile(sweep / "sweep.parquet").metadata
    assert meta.num_row_groups == 5 and meta.num_rows == 500


def test_query_and_where(tmp_path):
    sweep = tmp_path / "s"
    for num, (rho, flag, name) in enumerate([(0.3, True, "a b"), (0.5, False, "c"), (2, True, "c")]):
        make_job(sweep, num, pd.DataFrame({"x": [1, 2]}), [f"rho={rho}", f"flag={str(flag).lower()}", f"name='{name}'"])
    sweep_store.gather(sweep)
    assert sweep_store.query(sweep, ["job", "x"], {"rho": "0.5"}).job.tolist() == ["1", "1"]
    assert sweep_store.query(sweep, ["job"], {"rho": "2"}).job.tolist() == ["2", "2"]
    assert sweep_store.query(sweep, ["job"], {"flag": "true", "name": "c"}).job.tolist() == ["2", "2"]
    assert set(sweep_store.query(sweep, None, {"name": "a b"}).columns) == {"job", "rho", "flag", "name", "x"}
    with pytest.raises(PrivlabError, match=r"--where must name result columns \(job, rho, flag, name, x\); got 'nope'"):
        sweep_store.query(sweep, None, {"nope": "1"})
    with pytest.raises(PrivlabError, match=r"--where rho=0.4 matches no row; rho takes: 0.3, 0.5, 2.0"):
        sweep_store.query(sweep, None, {"rho": "0.4"})
    with pytest.raises(PrivlabError, match="--where rho=abc matches no row"):
        sweep_store.query(sweep, None, {"rho": "abc"})


def test_empty_or_missing_sweep(tmp_path):
    with pytest.raises(PrivlabError, match="is not a directory"):
        sweep_store.gather(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(PrivlabError, match="holds no complete job"):
        sweep_store.gather(tmp_path / "empty")


cells = st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from(["a", "b,c", ""]))


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.tuples(cells, cells), min_size=1, max_size=4), min_size=1, max_size=4), st.data())
def test_gather_matches_pandas_on_any_tables(tmp_path_factory, tables, data):
    """Any mix of integer, float and text cells across jobs: the store's CSV is the oracle's."""
    sweep = tmp_path_factory.mktemp("s")
    jobs = []
    for num, rows in enumerate(tables):
        table = pd.DataFrame(rows, columns=["u", "v"])
        seed = data.draw(st.integers(0, 3))
        jobs.append((table, {"seed": seed}))
        make_job(sweep, num, table, [f"seed={seed}"])
    sweep_store.gather(sweep)
    want = pd.read_csv(io.StringIO(oracle(sweep, jobs).to_csv(index=False)))
    got = pd.read_csv(sweep / "sweep.csv")
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    assert len(pd.read_parquet(sweep / "sweep.parquet")) == len(want)
