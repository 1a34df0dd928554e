"""joblib_backend=dask against a real distributed.LocalCluster (several worker processes): the
collusion Monte Carlo and whole experiments give byte-identical tables to a serial run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privlab import multilevel as ml
from privlab import registry, runner
from privlab.context import RunContext

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
S, PS, PRIOR = 5, [0.3, 0.1, 0.5], np.array([0.4, 0.25, 0.15, 0.12, 0.08])


@pytest.fixture(scope="module")
def cluster():
    with (
        distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as local,
        distributed.Client(local) as client,
    ):
        yield local, client


def _pid(_item) -> int:
    return os.getpid()


def _table(exp_id: str, overrides: list[str], tmp_path: Path) -> str:
    exp = registry.get(exp_id)
    cfg = runner.compose(exp_id, [*exp.smoke, *overrides])
    with runner.make_context(cfg, tmp_path, log=lambda m: None) as ctx:
        return runner.table_to_csv(runner.run_table(exp, cfg, ctx))


@pytest.mark.slow
def test_dask_context_uses_the_cluster(cluster):
    local, client = cluster
    workers = set(client.run(os.getpid).values())
    with RunContext(workers=-1, backend="dask", backend_address=local.scheduler_address, progress=False) as ctx:
        assert ctx.workers == 2  # -1: every worker thread of the cluster
        pids = set(ctx.map_unordered(_pid, range(8)))
        assert pids <= workers and os.getpid() not in pids
        assert ctx.map(_pid, range(3)) and ctx._client is not None
    assert ctx._client is None  # closed with the context


def test_collusion_mc_on_dask_is_byte_identical(cluster, tmp_path):
    local, _ = cluster
    what = {"chunk": 40_000, "seed": np.random.SeedSequence(5, spawn_key=(3,))}
    serial = ml.collusion_counts(PRIOR, PS, S, 400_000, **what)
    with RunContext(workers=2, backend="dask", backend_address=local.scheduler_address, scratch_dir=tmp_path) as ctx:
        store = ctx.checkpoint("mc", **ml.collusion_identity(PRIOR, PS, S, 400_000, **what))
        on_dask = ml.collusion_counts(
            PRIOR, PS, S, 400_000, **what, map_fn=ctx.map_unordered, workers=3, checkpoint=store, checkpoint_seconds=0
        )
    assert on_dask.tobytes() == serial.tobytes()
    assert [p.name for p in tmp_path.iterdir()] == [store.path.name]  # the workers' parts merged and removed


@pytest.mark.slow
def test_multilevel_experiment_on_dask_is_byte_identical(cluster, tmp_path):
    address = cluster[0].scheduler_address
    serial = _table("multilevel/fig5_collusion", ["workers=1"], tmp_path / "serial")
    dask = ["workers=2", "joblib_backend=dask", f"joblib_address={address}"]
    assert _table("multilevel/fig5_collusion", dask, tmp_path / "dask") == serial


@pytest.mark.slow
def test_other_paper_on_dask_is_byte_identical(cluster, tmp_path):
    address = cluster[0].scheduler_address
    serial = _table("lpb/fig2_4_noise_ratio", ["workers=1"], tmp_path / "serial")
    dask = ["workers=2", "joblib_backend=dask", f"joblib_address={address}"]
    assert _table("lpb/fig2_4_noise_ratio", dask, tmp_path / "dask") == serial


@pytest.mark.slow
def test_cli_sweep_on_dask_is_identical(cluster, tmp_path):
    """``privlab run ... --multirun joblib_backend=dask joblib_address=...``: each job's table is the serial one."""
    address = cluster[0].scheduler_address
    sweep = ["run", "lpb/fig2_4_noise_ratio", "n_queries=40", "seed=1,2", "--multirun"]
    tables = {}
    dask = ["workers=2", "joblib_backend=dask", f"joblib_address={address}"]
    for name, extra in (("serial", ["workers=1"]), ("dask", dask)):
        env = {**os.environ, "PRIVLAB_RESULTS": str(tmp_path / name)}
        done = subprocess.run(
            [sys.executable, "-m", "privlab.cli", *sweep, *extra], capture_output=True, text=True, cwd=ROOT, env=env
        )
        assert done.returncode == 0, done.stderr
        (sweep_dir,) = (tmp_path / name / "sweeps" / "lpb" / "fig2_4_noise_ratio").iterdir()
        jobs = sorted(job for job in sweep_dir.iterdir() if job.name.isdigit())
        tables[name] = {job.name: pd.read_csv(job / "result.csv") for job in jobs}
    assert sorted(tables["dask"]) == sorted(tables["serial"]) == ["0", "1"]
    for job, frame in tables["serial"].items():
        pd.testing.assert_frame_equal(tables["dask"][job], frame, check_exact=True)


@pytest.mark.slow
def test_missing_dask_is_one_clear_line(monkeypatch):
    """Without dask[distributed] installed, the first parallel map says what to install."""
    from privlab import PrivlabError

    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails as if not installed
    ctx = RunContext(workers=2, backend="dask", progress=False)
    with pytest.raises(PrivlabError, match=r"joblib_backend=dask needs dask\[distributed\] installed"):
        ctx.map(_pid, range(3))
