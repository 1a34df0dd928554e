"""``privlab reproduce`` without --jobs runs papers side by side (privlab.reproduce_pool): the same
tables as one at a time, each paper's experiments in order, a fault or a dead worker process
only its own experiment's line."""

import os
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from privlab.testing import run_cli

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
    root = tmp_path_factory.mktemp("pool")
    (root / "experiments").mkdir()
    for name in ("toyone", "toytwo"):
        (root / "experiments" / f"{name}.py").write_text(textwrap.dedent(PAPER.format(name=name)))
        conf = root / "conf" / "experiment" / name
        conf.mkdir(parents=True)
        for exp in ("a_first", "b_second"):
            (conf / f"{exp}.yaml").write_text("# @package _global_\nn: 4\n")
    return root


IDS = ("toyone/a_first", "toyone/b_second", "toytwo/a_first", "toytwo/b_second")


def _reproduce(root, results, *args, **env):
    full = {"PRIVLAB_PATH": str(root), "POOL_LOG": str(results / "log.txt"), **env}
    return run_cli("reproduce", *IDS, *args, results=results, env=full, timeout=300)


def _tables(results):
    return {i: pd.read_csv(results / i / "result.csv") for i in IDS}


def test_papers_side_by_side_give_the_tables_of_one_at_a_time(root, tmp_path):
    pooled, serial = tmp_path / "pooled", tmp_path / "serial"
    res = _reproduce(root, pooled, POOL_SLEEP="1")
    assert res.returncode == 0, res.stderr
    assert _reproduce(root, serial, "--jobs", "1").returncode == 0
    for i, table in _tables(pooled).items():
        pd.testing.assert_frame_equal(table, _tables(serial)[i])
    log = [line.split() for line in (pooled / "log.txt").read_text().splitlines()]
    order = [name for name, _ in log]
    for paper in ("toyone", "toytwo"):  # each paper's experiments in order (b read a's file above)
        assert order.index(f"{paper}/a_first") < order.index(f"{paper}/b_second")
    if (os.cpu_count() or 1) > 1:  # two papers on two cores: two worker processes, none of them this one
        assert len({pid for _, pid in log}) == 2
        serial_pids = {line.split()[1] for line in (serial / "log.txt").read_text().splitlines()}
        assert len(serial_pids) == 1
    assert res.stdout.count(": running (quick profile") == 4 and "[4/4," in res.stdout


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: reproduce runs one experiment at a time")
@pytest.mark.parametrize("fault", ["POOL_FAULT", "POOL_DIE"])
def test_a_fault_or_a_dead_worker_fails_only_its_experiment(root, tmp_path, fault):
    # toytwo is in flight when toyone's worker dies: the broken pool's experiments run again alone
    res = _reproduce(root, tmp_path, POOL_SLEEP="1", **{fault: "toyone"})
    assert res.returncode == 1
    errors = [line for line in res.stderr.splitlines() if line.startswith("privlab: error:")]
    assert len(errors) == 2 and errors[0].startswith("privlab: error: toyone/b_second: "), res.stderr
    assert ("boom in toyone" if fault == "POOL_FAULT" else "worker process running it died") in errors[0]
    assert errors[1] == "privlab: error: 1 experiment(s) failed: toyone/b_second; the others completed"
    assert "Traceback" not in res.stderr and (tmp_path / "errors" / "toyone" / "b_second.log").is_file()
    for i in ("toyone/a_first", "toytwo/a_first", "toytwo/b_second"):
        assert (tmp_path / i / "result.csv").is_file()
