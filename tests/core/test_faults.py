"""Faults inside one experiment never take the others down; a killed run resumes without
redoing finished experiments; worker processes die with their parent."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from privlab.testing import run_cli, write_project

EXPERIMENTS = '''
"""A paper whose experiments fail in every way but one."""
import os
import time

import pandas as pd

from privlab.params import Int
from privlab.registry import Paper, experiment

PAPER = Paper("Faulty - every way to fail")


def _die(item):
    os._exit(3)  # a worker killed mid-task (as by the OOM killer)


def _slow(item):
    # says it has started, then waits for the test's release: no timing decides what the test sees
    open(os.environ["FAULTY_MARKER"] + f".started.{os.getpid()}", "w").close()
    deadline = time.time() + 120
    while not os.path.exists(os.environ["FAULTY_RELEASE"]) and time.time() < deadline:
        time.sleep(0.05)
    open(os.environ["FAULTY_MARKER"], "w").write("a worker outlived its parent")
    return item


@experiment(artifact="T1", summary="works", keys=("x",), params={"n": Int(1)})
def good(cfg, ctx):
    return pd.DataFrame({"x": range(cfg.n)})


@experiment(artifact="T2", summary="raises", keys=("x",), params={"n": Int(1)})
def raises(cfg, ctx):
    raise RuntimeError("boom in the experiment")


@experiment(artifact="T3", summary="a worker dies", keys=("x",), params={"n": Int(1)})
def worker_dies(cfg, ctx):
    return pd.DataFrame({"x": ctx.map(_die, range(4), workers=2)})


@experiment(artifact="T4", summary="out of memory", keys=("x",), params={"n": Int(1)})
def memory(cfg, ctx):
    raise MemoryError()


@experiment(artifact="T5", summary="slow, in workers", keys=("x",), params={"n": Int(1)})
def slow(cfg, ctx):
    waits = ctx.map(_slow, [0, 1], workers=2)
    return pd.DataFrame({"x": range(len(waits))})
'''


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    files = {"faulty/__init__.py": EXPERIMENTS}
    for name in ("good", "raises", "worker_dies", "memory", "slow"):
        files[f"faulty/conf/experiment/faulty/{name}.yaml"] = "# @package _global_\nn: 3\n"
    return write_project(tmp_path_factory.mktemp("faulty"), files)


def _env(root, results, **extra):
    env = {**os.environ, "PRIVLAB_PATH": str(root), "PRIVLAB_RESULTS": str(results), **extra}
    env.pop("PRIVLAB_REFERENCE", None)
    return env


def privlab(root, results, *args, **extra):
    return run_cli(*args, env=_env(root, results, **extra), timeout=300)


@pytest.mark.slow
def test_reproduce_survives_every_fault(root, tmp_path):
    res = privlab(
        root,
        tmp_path,
        "reproduce",
        "--paper",
        "faulty",
        "faulty/good",
        "faulty/raises",
        "faulty/worker_dies",
        "faulty/memory",
    )
    assert res.returncode == 1
    errors = [line for line in res.stderr.splitlines() if line.startswith("privlab: error:")]
    assert any("faulty/raises: RuntimeError: boom in the experiment" in e for e in errors)
    assert any("faulty/worker_dies:" in e and "Terminated" in e for e in errors), res.stderr
    assert any("faulty/memory: MemoryError" in e for e in errors)
    assert errors[-1].startswith("privlab: error: 3 experiment(s) failed")
    assert "Traceback" not in res.stderr
    assert pd.read_csv(tmp_path / "faulty" / "good" / "result.csv").x.tolist() == [0, 1, 2]
    log = (tmp_path / "errors" / "faulty" / "raises.log").read_text()
    assert "Traceback" in log and "boom in the experiment" in log
    report = (tmp_path / "REPORT.md").read_text()
    assert "## Failed experiments" in report and "| faulty/worker_dies |" in report and "## faulty:" in report

    again = privlab(root, tmp_path, "reproduce", "faulty/good", "faulty/raises")
    assert "faulty/good: complete for this config, seed and code, skipped" in again.stdout
    assert again.returncode == 1


@pytest.mark.slow
def test_check_survives_a_fault(root, tmp_path):
    privlab(root, tmp_path, "check", "faulty/good", "--update")
    res = privlab(root, tmp_path, "check", "faulty/good", "faulty/raises")
    assert res.returncode == 1
    lines = [line for line in res.stdout.splitlines()[1:] if line.strip() and not line.startswith("claims in all")]
    rows = {line.split()[0]: line.split()[1] for line in lines}
    assert rows == {"faulty/good": "OK", "faulty/raises": "ERROR"}


@pytest.mark.slow  # waits for workers to outlive a killed parent, or not (~8 s, most of it waiting)
def test_killed_reproduce_resumes_and_workers_die_with_it(root, tmp_path):
    # Synchronised on events, not on sleeps: reproduce writes good's files in a writer process of
    # its own while slow's workers already run, so good's manifest says nothing about when they started.
    marker, release = tmp_path / "marker", tmp_path / "release"
    env = _env(root, tmp_path, FAULTY_MARKER=str(marker), FAULTY_RELEASE=str(release))
    proc = subprocess.Popen(
        [sys.executable, "-m", "privlab.cli", "reproduce", "faulty/good", "faulty/slow"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def started() -> list[Path]:
        return list(tmp_path.glob("marker.started.*"))

    deadline = time.time() + 120
    while time.time() < deadline and not (
        (tmp_path / "faulty" / "good" / "manifest.json").exists() and len(started()) == 2
    ):
        time.sleep(0.2)
    assert len(started()) == 2, "slow's two workers never started"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(4.0)  # a worker watches its parent twice a second
    release.touch()  # a worker still alive now writes the marker at once
    time.sleep(2.0)
    assert not marker.exists(), "a worker kept running after its parent was killed"
    assert not (tmp_path / "faulty" / "slow").exists()
    res = privlab(
        root,
        tmp_path,
        "reproduce",
        "faulty/good",
        "faulty/slow",
        FAULTY_MARKER=str(marker),
        FAULTY_RELEASE=str(release),
    )
    assert res.returncode == 0, res.stderr
    assert "faulty/good: complete for this config, seed and code, skipped" in res.stdout
    assert (tmp_path / "faulty" / "slow" / "result.csv").is_file()


@pytest.mark.slow
def test_run_reports_a_fault_in_one_line(root, tmp_path):
    res = privlab(root, tmp_path, "run", "faulty/raises")
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 1 and len(lines) == 1, res.stderr
    assert lines[0].startswith("privlab: error: faulty/raises: RuntimeError: boom in the experiment (traceback: ")
    assert "Traceback" in (tmp_path / "errors" / "faulty" / "raises.log").read_text()
    assert not (tmp_path / "faulty" / "raises").exists()
    sweep = privlab(root, tmp_path, "run", "faulty/raises", "n=1,2", "--multirun", "hydra/launcher=basic")
    assert sweep.returncode == 2 and sweep.stderr.count("RuntimeError: boom") == 2 and "Traceback" not in sweep.stderr
