"""``privlab reproduce`` without --workers runs papers side by side (privlab.reproduce_pool): the same
tables as one at a time, each paper's experiments in order, a fault or a dead worker process
only its own experiment's line (one run of the command checks all of it: each run starts
processes that import privlab)."""

import os
from pathlib import Path

import pandas as pd
import pytest

from privlab import runner
from privlab.testing import paper_root, run_cli, write_project

PAPER = '''
"""Toy paper {name}."""
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from privlab.params import Int
from privlab.registry import Paper, experiment

PAPER = Paper("Toy {name}")


def _log(name):
    with open(os.environ["POOL_LOG"], "a") as fh:
        fh.write(f"{{name}} {{os.getpid()}}\\n")


@experiment(artifact="A", summary="first", keys=("i",), params={{"n": Int(1)}})
def a_first(cfg, ctx):
    _log("{name}/a_first")
    time.sleep(float(os.environ.get("POOL_SLEEP", "0")))
    Path(os.environ["POOL_LOG"] + ".{name}").write_text("a_first done")
    rng = ctx.rng("draw")
    return pd.DataFrame({{"i": range(cfg.n), "v": rng.normal(size=cfg.n)}})


@experiment(artifact="B", summary="second, reads what the first left", keys=("i",), params={{"n": Int(1)}})
def b_second(cfg, ctx):
    _log("{name}/b_second")
    left = Path(os.environ["POOL_LOG"] + ".{name}").read_text()  # the first ran, and finished, before
    if os.environ.get("POOL_FAULT") == "{name}":
        raise RuntimeError("boom in {name}")
    if os.environ.get("POOL_DIE") == "{name}":
        os._exit(3)  # the worker process itself dies (as killed by the OOM killer)
    return pd.DataFrame({{"i": range(cfg.n), "left": [left] * cfg.n, "v": ctx.rng("x").normal(size=cfg.n)}})
'''


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    files = {}
    for name in ("toyone", "toytwo"):
        files[f"{name}/__init__.py"] = PAPER.format(name=name)
        for exp in ("a_first", "b_second"):
            files[f"{name}/conf/experiment/{name}/{exp}.yaml"] = "# @package _global_\nn: 4\n"
    return write_project(tmp_path_factory.mktemp("pool"), files)


IDS = ("toyone/a_first", "toyone/b_second", "toytwo/a_first", "toytwo/b_second")


@pytest.mark.slow
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: reproduce runs one experiment at a time")
def test_papers_side_by_side_same_tables_in_order_and_a_fault_or_dead_worker_fails_only_its_own(
    root, tmp_path, monkeypatch
):
    pooled = tmp_path / "pooled"
    env = {"PRIVLAB_PATH": str(root), "POOL_LOG": str(tmp_path / "log.txt"), "POOL_SLEEP": "1"}
    # toyone's second experiment kills its worker process, toytwo's raises: whichever is in flight
    # beside the death breaks with the pool and is run again alone
    res = run_cli("reproduce", *IDS, results=pooled, env={**env, "POOL_DIE": "toyone", "POOL_FAULT": "toytwo"})
    assert res.returncode == 1
    errors = sorted(line for line in res.stderr.splitlines() if line.startswith("privlab: error:"))
    assert len(errors) == 3, res.stderr
    assert errors[0].startswith("privlab: error: 2 experiment(s) failed: ")
    assert errors[1].startswith("privlab: error: toyone/b_second: ") and "worker process running it died" in errors[1]
    assert errors[2].startswith("privlab: error: toytwo/b_second: RuntimeError: boom in toytwo"), errors[2]
    assert "Traceback" not in res.stderr and (pooled / "errors" / "toyone" / "b_second.log").is_file()
    assert res.stdout.count(": running (quick profile") >= 4 and "[4/4," in res.stdout

    log = [line.split() for line in (tmp_path / "log.txt").read_text().splitlines()]
    order = [name for name, _ in log]
    for paper in ("toyone", "toytwo"):  # each paper in order (b_second read what a_first left, then failed)
        assert order.index(f"{paper}/a_first") < order.index(f"{paper}/b_second")
    assert len({pid for _, pid in log} - {str(os.getpid())}) >= 2  # worker processes, not this one

    monkeypatch.setenv("POOL_LOG", str(tmp_path / "serial.txt"))
    with paper_root(root):  # one at a time, in this process: the same tables
        for exp_id in ("toyone/a_first", "toytwo/a_first"):
            table = runner.execute(exp_id, runner.compose(exp_id), results_dir=tmp_path / "serial").table
            pd.testing.assert_frame_equal(pd.read_csv(pooled / exp_id / "result.csv"), table, check_dtype=False)


def test_joblib_runs_after_a_pool_in_the_same_process(tmp_path):
    """The pools are their own: joblib's loky backend used to fail after them in one process
    (it shared loky's process-wide executor, which lacks joblib's temporary-folder manager)."""
    from joblib import Parallel, delayed

    from privlab import multirun, reproduce_pool

    assert list(reproduce_pool.run_concurrently([], tmp_path, 2)) == []
    assert list(multirun._pooled([], 2, tmp_path)) == []
    assert Parallel(n_jobs=2, backend="loky")(delayed(abs)(-i) for i in range(4)) == [0, 1, 2, 3]
