"""``privlab reproduce --workers N`` runs experiments one at a time and hands each computed run to a
`privlab.reproduce_pool.DeferredWriter`, whose own process draws the figures and writes the files
while the next experiment computes: the same files as writing in place, an experiment that times
itself starts only when every write before it is done, and a write that fails, or whose process
dies, is that experiment's failure alone."""

import json
import os
import time
from pathlib import Path

import pandas as pd
import pytest

from privlab import reproduce_pool, runner
from privlab.testing import paper_root, write_project

PAPER = '''
"""Toy paper {name}."""
import os
import time

import numpy as np
import pandas as pd

from privlab.params import Bool, Int
from privlab.registry import Paper, experiment

PAPER = Paper("Toy {name}")


def _log(what):
    with open(os.environ["WRITER_LOG"], "a") as fh:
        fh.write(f"{{what}} {{time.perf_counter()}} {{os.getpid()}}\\n")


def _figure(table):
    import matplotlib.pyplot as plt

    time.sleep(0.5)  # long enough for the next experiment to start beside it, unless it waits
    _log("{name}/figure")
    if os.environ.get("WRITE_FAULT") == "{name}":
        raise RuntimeError("figure boom in {name}")
    if os.environ.get("WRITE_DIE") == "{name}":
        os._exit(3)  # the writer process itself dies
    fig, ax = plt.subplots()
    ax.plot(table["i"], table["v"])
    return fig


@experiment(artifact="A", summary="drawn", keys=("i",), params={{"n": Int(1)}}, figures={{"line": _figure}})
def drawn(cfg, ctx):
    _log("{name}/drawn")
    return pd.DataFrame({{"i": range(cfg.n), "v": ctx.rng("v").normal(size=cfg.n)}})


@experiment(artifact="B", summary="timed", keys=("i",), params={{"n": Int(1), "timings": Bool()}})
def timed(cfg, ctx):
    _log("{name}/timed")
    return pd.DataFrame({{"i": range(cfg.n), "v": ctx.rng("t").normal(size=cfg.n)}})
'''


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    files = {}
    for name in ("wone", "wtwo"):
        files[f"{name}/__init__.py"] = PAPER.format(name=name)
        files[f"{name}/conf/experiment/{name}/drawn.yaml"] = "# @package _global_\nn: 4\n"
        files[f"{name}/conf/experiment/{name}/timed.yaml"] = "# @package _global_\nn: 3\ntimings: true\n"
    return write_project(tmp_path_factory.mktemp("writer"), files)


# two drawn experiments, then one that times itself
IDS = ("wone/drawn", "wtwo/drawn", "wone/timed")


def _run(root: Path, results: Path) -> list[reproduce_pool.Outcome]:
    with paper_root(root):
        runs = [(runner.registry.get(i), runner.compose(i)) for i in IDS]
        return list(reproduce_pool.run_in_turn(runs, results))


def _log(path: Path) -> dict[str, list[tuple[float, int]]]:
    out: dict[str, list[tuple[float, int]]] = {}
    for line in path.read_text().splitlines():
        what, at, pid = line.split()
        out.setdefault(what, []).append((float(at), int(pid)))
    return out


def test_files_written_beside_the_next_run_and_a_timed_run_waits(root, tmp_path, monkeypatch):
    monkeypatch.setenv("WRITER_LOG", str(tmp_path / "log.txt"))
    outcomes = _run(root, tmp_path / "deferred")
    assert [(o.exp_id, o.ok) for o in outcomes] == [(i, True) for i in IDS]
    assert [o.rows for o in outcomes] == [4, 4, 3]
    log = _log(tmp_path / "log.txt")
    # the figures were drawn by another process, the first while the second experiment computed
    assert {pid for _, pid in log["wone/figure"] + log["wtwo/figure"]} != {os.getpid()}
    assert log["wtwo/drawn"][0][0] < log["wone/figure"][0][0]
    # nothing was drawn while the timed experiment ran: both writes were done before it started
    assert max(log["wone/figure"][0][0], log["wtwo/figure"][0][0]) < log["wone/timed"][0][0]

    with paper_root(root):  # the same files as a run that writes in place
        for exp_id in IDS:
            here = runner.execute(exp_id, runner.compose(exp_id), results_dir=tmp_path / "in_place").out_dir
            there = tmp_path / "deferred" / exp_id
            for name in ("result.csv", "claims.csv", "config.yaml"):
                if (here / name).exists():
                    assert (there / name).read_bytes() == (here / name).read_bytes(), (exp_id, name)
            assert sorted(p.name for p in there.iterdir()) == sorted(p.name for p in here.iterdir())
    audit = json.loads((tmp_path / "deferred" / "wone" / "drawn" / "provenance.json").read_text())
    assert audit["experiment"] == "wone/drawn" and (tmp_path / "deferred" / "wone" / "drawn" / "line.png").is_file()
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "deferred" / "wtwo" / "drawn" / "result.csv"),
        pd.read_csv(tmp_path / "in_place" / "wtwo" / "drawn" / "result.csv"),
    )


@pytest.mark.slow
def test_a_failed_write_or_a_dead_writer_fails_only_its_own_experiment(root, tmp_path, monkeypatch):
    monkeypatch.setenv("WRITER_LOG", str(tmp_path / "log.txt"))
    monkeypatch.setenv("WRITE_DIE", "wone")  # the first write kills its process (twice: tried once more)
    monkeypatch.setenv("WRITE_FAULT", "wtwo")  # the second raises
    start = time.perf_counter()
    outcomes = {o.exp_id: o for o in _run(root, tmp_path / "r")}
    assert time.perf_counter() - start < 120
    assert not outcomes["wone/drawn"].ok and "the process writing its files died" in outcomes["wone/drawn"].error
    assert not outcomes["wtwo/drawn"].ok and "RuntimeError: figure boom in wtwo" in outcomes["wtwo/drawn"].error
    assert outcomes["wone/timed"].ok and (tmp_path / "r" / "wone" / "timed" / "result.csv").is_file()
    for exp_id in ("wone/drawn", "wtwo/drawn"):  # nothing half-written; the traceback kept
        assert not (tmp_path / "r" / exp_id).exists()
        assert (tmp_path / "r" / "errors" / f"{exp_id}.log").is_file()
    assert len(_log(tmp_path / "log.txt")["wone/figure"]) == 2  # tried once more in a fresh process
