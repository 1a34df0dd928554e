"""privlab's own --multirun (privlab.multirun): fast composition equal to Hydra's, jobs in workers,
resume, failures and dead workers as one line each, progress with the time left."""

from __future__ import annotations

import os
import time

import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from omegaconf import OmegaConf

from privlab import PrivlabError, app, multirun, runner, store, sweep_store
from privlab.overrides import sweep_jobs

# a paper whose one experiment fails, or kills its worker, at chosen values of n
SWEEPY = {
    "sweepy/__init__.py": '''
        """A paper for sweep tests."""
        import os

        import numpy as np
        import pandas as pd

        from privlab import claims
        from privlab.params import Choice, Int, Real
        from privlab.registry import Paper, experiment

        PAPER = Paper("Sweepy - lines for sweep tests")


        @experiment(
            artifact="T1",
            summary="a line y = slope x",
            keys=("x",),
            params={"n": Int(1, 100), "slope": Real(-10, 10), "kind": Choice("a", "b"),
                    "fail_at": Int(-1, 100), "die_at": Int(-1, 100)},
        )
        def line(cfg, ctx):
            if cfg.n == cfg.fail_at:
                raise RuntimeError(f"boom at n={cfg.n}")
            if cfg.n == cfg.die_at:
                os._exit(3)  # the worker dies, as by the OOM killer
            x = np.arange(cfg.n)
            return pd.DataFrame({"x": x, "kind": cfg.kind, "y": cfg.slope * x, "y_se": 0.1, "y_exact": cfg.slope * x})


        @line.claims
        def _line_claims(table, cfg):
            rises = claims.monotone("y rises with x", table.y.to_numpy(), increasing=True, tol=0.0)
            return [claims.at_least("slope is at least 1", cfg.slope, 1.0), rises]
    ''',
    "sweepy/conf/experiment/sweepy/line.yaml": """
        # @package _global_
        n: 3
        slope: 1.0
        kind: a
        fail_at: -1
        die_at: -1
    """,
}


@pytest.fixture()
def sweepy(paper_root):
    return paper_root(SWEEPY)


# ---------------------------------------------------------------------------------------
# composition
# ---------------------------------------------------------------------------------------
CASES = [
    ("lpb/fig1_lambda", [["rho2=0.3"], ["rho2=0.7", "rho1_points=4"], ["seed=3", "profile=paper"], ["rho2=0.5"]]),
    ("lpb/fig1_lambda", [["results_dir=/tmp/x", "rho1_max=0.2"], ["attributes=[age]"], []]),
    (
        "bucketization/fig4_mse",
        [
            ["offset=0.01", "mechanism=[two_size,anatomy]"],
            ["thetas=[2,4]", "dataset.n=5000"],
            ["offset=0.03", "mechanism=[two_size,anatomy]", "profile=paper"],
            ["offset=0.03"],
        ],
    ),
    ("cae/fig2_noise", [["mechanism.sdc_noise.levels=[5,10]"], ["datasets.pums.dataset.n=1000", "sk_sizes=[0,1]"]]),
    ("multilevel/fig7_independent", [["seed=2"], ["profile=paper", "seed=2"]]),
    ("isolation/isolation_vs_d", [["n=2500", "dims=[2,6]"], ["profile=paper"]]),
]


# the first in the default tier, the others slow (each composes its jobs twice, ~1-2 s)
@pytest.mark.parametrize(
    "exp_id, jobs", [pytest.param(*c, id=c[0], marks=[pytest.mark.slow] if i else []) for i, c in enumerate(CASES)]
)
def test_composer_gives_hydras_config(exp_id, jobs):
    """Job after job (each undoing the last one's overrides), the fast config is Hydra's."""
    composer = multirun.Composer(exp_id)
    for job in jobs:
        fast = composer.container(job)
        assert fast == OmegaConf.to_container(runner.compose(exp_id, job)), job
    again = composer.container(jobs[0])  # the first job again, after the others: nothing left over
    assert again == OmegaConf.to_container(runner.compose(exp_id, jobs[0]))


def test_composer_composes_once_per_structure(monkeypatch):
    calls = []
    real = runner.compose
    monkeypatch.setattr(runner, "compose", lambda *a, **k: calls.append(a) or real(*a, **k))
    composer = multirun.Composer("bucketization/fig4_mse")
    for job in sweep_jobs(["offset=0.01,0.02,0.03", "mechanism=[two_size],[anatomy]"]):
        composer.container(job)
    assert len(calls) == 2  # one Hydra composition per mechanism choice, not per job


@pytest.mark.parametrize(
    "job, message",
    [
        (["rho9=1"], "unknown parameter 'rho9'"),
        (["rho2=1.5"], "rho2 must be in (0, 1)"),
        (["rho2=abc"], "rho2"),
        (["+extra=1"], "unknown parameter 'extra'"),
    ],
)
def test_composer_refuses_what_hydra_refuses(job, message):
    composer = multirun.Composer("lpb/fig1_lambda")
    with pytest.raises(PrivlabError) as fast:
        composer.container(job)
    with pytest.raises(PrivlabError) as slow:
        runner.compose("lpb/fig1_lambda", job)
    assert str(fast.value) == str(slow.value) and message in str(fast.value)
    assert composer.container(["rho2=0.4"]) == OmegaConf.to_container(runner.compose("lpb/fig1_lambda", ["rho2=0.4"]))


def test_bad_job_is_named_before_any_job_runs(tmp_path):
    with pytest.raises(PrivlabError, match=r"^job 1 \(rho2=1.5\): rho2 must be in"):
        multirun.run_sweep("lpb/fig1_lambda", sweep_jobs(["rho2=0.5,1.5"]), tmp_path / "sweep", workers=1)
    assert not (tmp_path / "sweep").exists()


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False, width=64)
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12),
    lambda inner: st.lists(inner, max_size=4),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(values)
def test_format_value_is_read_back_by_hydra(value):
    from hydra.core.override_parser.overrides_parser import OverridesParser

    (parsed,) = OverridesParser.create().parse_overrides([f"key={multirun.format_value(value)}"])
    assert parsed.value() == value


# ---------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------
def test_sweep_in_process_resumes_and_fills_the_store(sweepy, tmp_path):
    sweep = tmp_path / "sweep"
    jobs = sweep_jobs(["n=2,3", "slope=-1.0,2.0"])
    assert multirun.run_sweep("sweepy/line", jobs, sweep, workers=1) == []
    for num, job in enumerate(jobs):
        ok, _ = store.verify(sweep / str(num))
        assert ok and (sweep / str(num) / "overrides.yaml").read_text() == multirun.job_overrides_text(
            "sweepy/line", job
        )
        assert not list((sweep / str(num)).glob("*.png"))  # no per-job figures unless sweep_figures=true
        meta = sweep_store.ensure_part(sweep, num)
        assert meta["params"] == {"n": int(job[0][2:]), "slope": float(job[1][6:])}
    assert yaml.safe_load((sweep / "sweep.yaml").read_text()) == {"experiment": "sweepy/line", "jobs": 4}
    parts = {p.name: p.stat().st_mtime_ns for p in (sweep / ".table").iterdir()}
    store.remove(sweep / "1")  # a lost job: rerun, its part renewed; the others skipped, their parts kept
    time.sleep(0.01)
    assert multirun.run_sweep("sweepy/line", jobs, sweep, workers=1) == []
    now = {p.name: p.stat().st_mtime_ns for p in (sweep / ".table").iterdir()}
    assert [k for k in parts if now[k] != parts[k]] == ["1.parquet"]


def test_sweep_jobs_skip_fsync(sweepy, tmp_path, monkeypatch):
    """A sweep's jobs are written without fsync (tens of ms each on a busy disk); a single run keeps it."""
    import privlab.store

    def no_fsync(fd):
        raise AssertionError("fsync in a sweep's job")

    monkeypatch.setattr(privlab.store.os, "fsync", no_fsync)
    sweep = tmp_path / "sweep"
    assert multirun.run_sweep("sweepy/line", sweep_jobs(["n=2,3"]), sweep, workers=1) == []
    assert all(store.verify(sweep / str(num))[0] for num in (0, 1))
    cfg = runner.compose("sweepy/line")
    with pytest.raises(AssertionError, match="fsync"):
        runner.execute("sweepy/line", cfg, out_dir=tmp_path / "single", results_dir=tmp_path, log=lambda m: None)


def test_failed_job_is_one_line_and_a_log(sweepy, tmp_path, capsys):
    sweep = tmp_path / "sweep"
    failed = multirun.run_sweep("sweepy/line", sweep_jobs(["n=2,3,4", "fail_at=3"]), sweep, workers=1)
    assert failed == [1]
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert err == [
        f"privlab: error: job 1 (n=3 fail_at=3): RuntimeError: boom at n=3 (traceback: {sweep / '.errors' / '1.log'})"
    ]
    assert "Traceback" in (sweep / ".errors" / "1.log").read_text()
    assert sweep_store.failed_jobs(sweep) == [1]
    assert store.verify(sweep / "0")[0] and store.verify(sweep / "2")[0] and not (sweep / "1").exists()


@pytest.mark.slow  # ~40-80 s: three pools of worker processes start
def test_dead_worker_fails_its_job_only(sweepy, cli):
    """A job whose worker process dies (os._exit) is one line; the jobs beside it in the pool complete."""
    res = cli("run", "sweepy/line", "n=2,3,4,5,6", "die_at=4", "--multirun", "hydra.launcher.workers=2", timeout=300)
    assert res.returncode == 2, res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("privlab: error: job 2 (n=4 die_at=4): RuntimeError: the worker process running it died")
    assert lines[-1] == "privlab: error: 1 job(s) of the sweep failed: 2 (errors above); the others completed"
    assert len(lines) == 2 and "Traceback" not in res.stderr
    # a job that finished in the broken pool but whose answer was lost is rerun alone: then skipped
    assert res.stdout.count("rows in") + res.stdout.count("skipped") == 4


def test_progress_lines_with_time_left(sweepy, tmp_path, capsys):
    multirun.run_sweep("sweepy/line", sweep_jobs(["n=range(1,21)"]), tmp_path / "sweep", workers=1)
    out, err = capsys.readouterr()
    assert out.count("rows in") == 20
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert len(progress) == 10 and progress[-1].startswith("[20/20 jobs, ")
    assert "left]" in progress[0] and "left" not in progress[-1]


def test_launcher_choice():
    assert app.launcher(["a=1,2", "hydra.sweep.dir=/x", "hydra.launcher.workers=2"]) == "privlab"
    assert app.launcher(["a=1,2", "hydra/launcher=basic"]) == "basic"
    assert app.launcher(["hydra/launcher=joblib", "a=1,2", "hydra/launcher=basic"]) == "basic"


@pytest.mark.slow  # ~30-50 s: three sweeps through the command line
def test_same_tables_as_hydras_launcher(sweepy, cli, tmp_path):
    """privlab's launcher and Hydra's basic one write the same files for every job, byte for byte."""
    sweep = ["sweepy/line", "n=2,3", "slope=1.0,-2.0", "--multirun"]
    own = cli("run", *sweep, f"hydra.sweep.dir={tmp_path / 'own'}", "hydra.launcher.workers=2")
    basic = cli("run", *sweep, f"hydra.sweep.dir={tmp_path / 'basic'}", "hydra/launcher=basic")
    assert own.returncode == 0 and basic.returncode == 0, own.stderr + basic.stderr
    for num in range(4):
        for name in ("result.csv", "claims.csv", "config.yaml", "overrides.yaml"):
            a, b = (tmp_path / "own" / str(num) / name), (tmp_path / "basic" / str(num) / name)
            assert a.read_bytes() == b.read_bytes(), (num, name)
    # a sweep started by one launcher resumes under the other
    again = cli("run", *sweep, f"hydra.sweep.dir={tmp_path / 'basic'}")
    assert again.returncode == 0 and again.stdout.count("skipped") == 4, again.stdout


@pytest.mark.slow  # ~40-80 s: a sweep killed and run again through the command line
def test_killed_sweep_resumes(sweepy, tmp_path):
    """SIGKILL mid-sweep: the complete jobs are kept, the rerun runs only the rest."""
    import signal
    import subprocess
    import sys

    env = {**os.environ, "PRIVLAB_RESULTS": str(tmp_path)}
    args = [sys.executable, "-m", "privlab.cli", "run", "sweepy/line", "n=range(1,31)", "--multirun"]
    args += [f"hydra.sweep.dir={tmp_path / 's'}", "hydra.launcher.workers=2"]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list((tmp_path / "s").glob("[0-9]*"))) < 5:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = [p for p in (tmp_path / "s").glob("[0-9]*") if store.verify(p)[0]]
    assert 5 <= len(done) < 30
    rerun = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert rerun.stdout.count("skipped") >= len(done) and rerun.stdout.count("rows in") <= 30 - len(done)
    table = pd.concat(pd.read_csv(tmp_path / "s" / str(i) / "result.csv") for i in range(30))
    assert len(table) == sum(range(1, 31))


@pytest.mark.slow  # ~60 s: a local Dask cluster and two sweeps through the command line
def test_sweep_on_a_dask_cluster_gathers_byte_identical_tables(cli, tmp_path):
    """The same sweep with every job's chunks on a Dask cluster (joblib_backend=dask) and serially:
    the gathered table, its Parquet store and the claims across the sweep are byte-identical."""
    distributed = pytest.importorskip("distributed")
    sweep = ["lpb/fig2_4_noise_ratio", "n_queries=40", "seed=1,2,3", "--multirun"]
    with (
        distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as local,
        distributed.Client(local),
    ):
        dask = ["workers=2", "joblib_backend=dask", f"joblib_address={local.scheduler_address}"]
        for name, extra in (("serial", ["workers=1"]), ("dask", dask)):
            done = cli("run", *sweep, *extra, f"hydra.sweep.dir={tmp_path / name}")
            assert done.returncode == 0, done.stderr
            report = cli("sweep-report", str(tmp_path / name))
            assert report.returncode == 0, report.stderr
    for name in ("sweep.csv", "sweep.parquet", "sweep_claims.csv"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "serial" / name).read_bytes(), name
