"""Whole jobs on a cluster (``--cluster``): a real Dask scheduler and workers on localhost, and
submitit's local executor standing in for SLURM. The workers share nothing with the client but the
installed code: their results come back and are written here; the tables are byte-identical to a
local run; a job whose worker dies is run again; a rerun resumes (skips complete jobs)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from privlab import PrivlabError, cli, executors, registry, sweep_store
from privlab.testing import write_project

distributed = pytest.importorskip("distributed")

SWEEP = ["lpb/table1", "rho2=0.5,0.6,0.7"]


def _main(*argv: str, env: dict[str, str] | None = None) -> int:
    saved, stdout = dict(os.environ), sys.stdout
    os.environ.update(env or {})
    try:
        registry.reload()
        try:
            return cli.main(list(argv))
        except SystemExit as exc:
            return int(exc.code or 0)
    finally:
        sys.stdout = stdout  # cli.main guards it with a wrapper of its own
        os.environ.clear()
        os.environ.update(saved)
        registry.reload()


def _tables(sweep: Path) -> dict[str, bytes]:
    """Every job's result.csv, by job number."""
    return {p.name: (p / "result.csv").read_bytes() for p in sorted(sweep.iterdir()) if p.name.isdigit()}


def _result(results: Path, exp_id: str) -> bytes:
    return (results / exp_id / "result.csv").read_bytes()


def _sweep(tmp: Path, name: str, *extra: str, env: dict[str, str] | None = None) -> tuple[int, Path]:
    sweep = tmp / name
    rc = _main("run", *SWEEP, f"hydra.sweep.dir={sweep}", f"results_dir={tmp / 'r'}", "--multirun", *extra, env=env)
    return rc, sweep


def test_three_job_sweep_on_a_two_worker_cluster_is_the_local_sweep(tmp_path):
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        rc, on_dask = _sweep(tmp_path, "dask", "--cluster", cluster.scheduler_address)
        assert rc == 0
        again, _ = _sweep(tmp_path, "dask", "--cluster", cluster.scheduler_address)  # resumed: all complete
        assert again == 0
    rc, local = _sweep(tmp_path, "local", "hydra.launcher.workers=1")
    assert rc == 0
    assert _tables(on_dask) == _tables(local) and len(_tables(local)) == 3
    for job in ("0", "1", "2"):  # written here, crash-safely (a manifest), with the job's own files
        assert (on_dask / job / "manifest.json").is_file() and (on_dask / job / "overrides.yaml").is_file()
    parts = sorted(p.name for p in (on_dask / sweep_store.PARTS).iterdir())
    assert parts == ["0.parquet", "1.parquet", "2.parquet"]  # each job's part of the sweep's store


@pytest.mark.parametrize(
    "argv, expect",
    [
        (["run", *SWEEP, "--multirun", "--cluster", "tcp://"], "is not a Dask scheduler address"),
        (["run", *SWEEP, "--cluster", "nope", "--multirun"], "--cluster must be a Dask scheduler address"),
        (["run", "lpb/table1", "--cluster", "slurm"], "--cluster sends the jobs of a sweep: add --multirun"),
        (["run", *SWEEP, "hydra/launcher=basic", "--cluster", "slurm", "--multirun"], "runs privlab's own launcher"),
        (["reproduce", "lpb/table1", "--cluster", "nope"], "--cluster must be a Dask scheduler address"),
        (["run", *SWEEP, "--multirun", "--cluster"], "--cluster needs a value"),
    ],
)
def test_a_bad_cluster_is_one_line(argv, expect, tmp_path, capsys):
    assert _main(*argv, env={"PRIVLAB_RESULTS": str(tmp_path)}) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expect in err[0], err
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_no_scheduler_there_is_one_line():
    with pytest.raises(PrivlabError, match="no Dask scheduler answers there"):
        executors.DaskExecutor("tcp://127.0.0.1:9", timeout=2)


# -- the slow tier: real `dask scheduler` and `dask worker` processes, a killed worker, a study, submitit --
KILLER = '''
"""A paper whose experiment kills its worker process the first time it runs job 1."""
import os
from pathlib import Path

import pandas as pd

from privlab.params import Int
from privlab.registry import Paper, experiment

PAPER = Paper("Toy killer")


@experiment(artifact="A", summary="dies once", keys=("i",), params={"n": Int(1)})
def once(cfg, ctx):
    marker = Path(os.environ["KILL_MARKER"])
    if cfg.n == 5 and not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), 9)  # the worker process dies mid-job
    return pd.DataFrame({"i": range(cfg.n), "v": ctx.rng("x").normal(size=cfg.n)})
'''


@pytest.fixture
def dask_processes(tmp_path):
    """A scheduler and two workers, each its own process (the `dask` command), on localhost."""
    root = write_project(tmp_path / "root", {"killer/__init__.py": KILLER, "killer/conf/experiment/killer/once.yaml":
                                            "# @package _global_\nn: 4\n"})  # fmt: skip
    env = {**os.environ, "PRIVLAB_PATH": str(root), "KILL_MARKER": str(tmp_path / "killed")}
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    port_file = tmp_path / "scheduler.json"
    procs = [subprocess.Popen([*dask, "--scheduler-file", str(port_file), "--host", "127.0.0.1",
                               "--dashboard-address", ":0"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)]  # fmt: skip
    for _ in range(600):
        if port_file.is_file() and port_file.stat().st_size:
            break
        time.sleep(0.1)
    worker = [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(port_file)]
    for _ in range(2):
        procs.append(
            subprocess.Popen([*worker, "--nthreads", "1", "--dashboard-address", ":0"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        )  # fmt: skip
    import json

    address = json.loads(port_file.read_text())["address"]
    with distributed.Client(address) as client:
        client.wait_for_workers(2, timeout=120)
    try:
        yield address, env
    finally:
        for p in procs:
            with __import__("contextlib").suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            p.wait(timeout=60)


@pytest.mark.slow
def test_dask_processes_sweep_study_and_a_killed_worker(dask_processes, tmp_path):
    address, env = dask_processes
    env = {k: env[k] for k in ("PRIVLAB_PATH", "KILL_MARKER")}
    # a sweep whose job 1 kills its worker: Dask runs it again on a live worker; the tables are the local ones
    argv = ["run", "killer/once", "n=4,5,6", f"results_dir={tmp_path / 'r'}", "--multirun"]
    assert _main(*argv, f"hydra.sweep.dir={tmp_path / 'kd'}", "--cluster", address, env=env) == 0
    assert (tmp_path / "killed").is_file()  # it did die once
    assert _main(*argv, f"hydra.sweep.dir={tmp_path / 'kl'}", "hydra.launcher.workers=1", env=env) == 0
    assert _tables(tmp_path / "kd") == _tables(tmp_path / "kl") and len(_tables(tmp_path / "kl")) == 3
    # lpb's sweep and a study, as on this machine
    rc, on_dask = _sweep(tmp_path, "dask", "--cluster", address)
    rc_local, local = _sweep(tmp_path, "local", "hydra.launcher.workers=1")
    assert rc == rc_local == 0 and _tables(on_dask) == _tables(local)
    study = ["study", "run", "lpb/rho2"]
    assert _main(*study, "--results", str(tmp_path / "sd"), "--cluster", address) == 0
    assert _main(*study, "--results", str(tmp_path / "sl"), "--jobs", "1") == 0
    claims = "studies/lpb/rho2/quick/sweep_claims.csv"
    assert (tmp_path / "sd" / claims).read_bytes() == (tmp_path / "sl" / claims).read_bytes()
    tables = "studies/lpb/rho2/quick"
    assert _tables(tmp_path / "sd" / tables) == _tables(tmp_path / "sl" / tables)
    # reproduce: each experiment a task; the same tables and report as a local run
    rep = ["reproduce", "lpb/table1", "lpb/table2", "bucketization/table1_example1"]
    assert _main(*rep, "--results", str(tmp_path / "rd"), "--cluster", address) == 0
    assert _main(*rep, "--results", str(tmp_path / "rl"), "--jobs", "1") == 0
    for exp_id in rep[1:]:
        assert _result(tmp_path / "rd", exp_id) == _result(tmp_path / "rl", exp_id)


@pytest.mark.slow
def test_submitit_local_stands_in_for_slurm(tmp_path):
    pytest.importorskip("submitit")
    rc, on_submitit = _sweep(tmp_path, "submitit", "--cluster", "submitit_local")
    rc_local, local = _sweep(tmp_path, "local", "hydra.launcher.workers=1")
    assert rc == rc_local == 0 and _tables(on_submitit) == _tables(local) and len(_tables(local)) == 3
    rep = ["reproduce", "lpb/table1", "lpb/table2"]
    assert _main(*rep, "--results", str(tmp_path / "rs"), "--cluster", "submitit_local") == 0
    assert _main(*rep, "--results", str(tmp_path / "rl"), "--jobs", "1") == 0
    for exp_id in rep[1:]:
        assert _result(tmp_path / "rs", exp_id) == _result(tmp_path / "rl", exp_id)
    assert (tmp_path / "rs" / ".submitit").is_dir()  # submitit's logs, beside the results
