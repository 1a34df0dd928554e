"""Sweeps: parallel multirun, resume, sweep tables, cluster launcher configs, joblib backends."""

from pathlib import Path

import pandas as pd
import pytest
from omegaconf import OmegaConf

from privlab import PrivlabError, registry, runner, store
from privlab.testing import run_cli

ROOT = Path(__file__).resolve().parents[2]
SWEEP = ["lpb/fig1_lambda", "rho2=0.3,0.5,0.7", "rho1_points=3,4"]


def cli(*args, results):
    return run_cli(*args, results=results, cwd=ROOT)


def _sweep_dir(results):
    (d,) = (results / "sweeps" / "lpb" / "fig1_lambda").iterdir()
    return d


@pytest.mark.slow  # ~30 s; benchmarks/bench_sweeps.py measures the same resume
def test_parallel_sweep_resume_and_table(tmp_path):
    first = cli("run", *SWEEP, "--multirun", results=tmp_path)
    assert first.returncode == 0, first.stderr
    sweep = _sweep_dir(tmp_path)
    jobs = sorted(p.name for p in sweep.iterdir() if p.is_dir() and not p.name.startswith("."))
    assert jobs == [str(i) for i in range(6)]  # each a link to its complete, hidden version
    assert first.stdout.count("rows in") == 6
    # an interrupted sweep: two jobs lost; the rerun redoes exactly those
    for lost in ("1", "4"):
        store.remove(sweep / lost)
    (sweep / "2" / "result.csv").write_text("garbage\n")  # a damaged result fails its manifest: recomputed
    (sweep / "2" / "config.yaml").write_text("id: something-else\n")
    again = cli("run", *SWEEP, "--multirun", results=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("skipped") == 3 and again.stdout.count("rows in") == 3
    report = cli("sweep-report", str(sweep), results=tmp_path)
    assert report.returncode == 0, report.stderr
    table = pd.read_csv(sweep / "sweep.csv")
    assert table.job.nunique() == 6
    assert set(table.rho2) == {0.3, 0.5, 0.7} and set(table.rho1_points) == {3, 4}
    assert len(table) == 3 * 3 * (3 + 4)  # attributes x rho2 x rho1 points
    assert (sweep / "sweep_lambda_heatmap.png").is_file()
    assert (sweep / "sweep_lambda_vs_rho2.png").is_file()


@pytest.mark.slow  # ~25 s; 1- vs 2-worker identity of every experiment is in the default conformance test
def test_serial_and_parallel_sweeps_identical(tmp_path):
    par = cli("run", "lpb/fig5_dp_noise_ratio", "seed=1,2", "--multirun", results=tmp_path / "p")
    ser = cli(
        "run", "lpb/fig5_dp_noise_ratio", "seed=1,2", "--multirun", "hydra/launcher=basic", results=tmp_path / "s"
    )
    assert par.returncode == 0 and ser.returncode == 0, par.stderr + ser.stderr
    for job in ("0", "1"):
        a = next((tmp_path / "p").rglob(f"fig5_dp_noise_ratio/*/{job}/result.csv")).read_bytes()
        b = next((tmp_path / "s").rglob(f"fig5_dp_noise_ratio/*/{job}/result.csv")).read_bytes()
        assert a == b


SWEEP_ERRORS = [
    (["run", "lpb/fig1_lambda", "rho9=1,2", "--multirun"], "unknown parameter 'rho9'"),
    (["run", "lpb/fig1_lambda", "rho2=range(0)", "--multirun"], "the sweep over rho2 is empty"),
    (["run", "lpb/fig1_lambda", "rho2=0.3,0.5", "--multirun", "hydra/launcher=nope"], "hydra/launcher must be one of"),
]


# each case starts privlab (~3 s): the first in the default tier, the others slow
@pytest.mark.parametrize(
    "args, message", [pytest.param(*c, marks=[pytest.mark.slow] if i else []) for i, c in enumerate(SWEEP_ERRORS)]
)
def test_sweep_errors_before_any_job(tmp_path, args, message):
    res = cli(*args, results=tmp_path)
    assert res.returncode == 2
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], res.stderr
    assert not (tmp_path / "sweeps").exists()


@pytest.mark.slow
def test_launcher_not_installed_is_one_line(tmp_path):
    import importlib.util

    if importlib.util.find_spec("hydra_plugins.hydra_ray_launcher") is not None:
        pytest.skip("the Ray launcher is installed here")
    res = cli("run", "lpb/fig1_lambda", "rho2=0.3,0.5", "--multirun", "hydra/launcher=ray", results=tmp_path)
    assert res.returncode == 2 and "hydra/launcher=ray is not installed" in res.stderr
    assert not (tmp_path / "sweeps").exists()


def test_slurm_launcher_config_composes():
    cfg = runner.compose("lpb/fig1_lambda", ["hydra/launcher=slurm", "hydra.launcher.partition=cpu"], hydra_node=True)
    launcher = cfg.hydra.launcher
    assert launcher._target_ == "hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher"
    assert launcher.partition == "cpu" and launcher.cpus_per_task == 2 and launcher.timeout_min == 120
    assert launcher.mem_gb == 8 and launcher.array_parallelism == 64
    assert OmegaConf.select(cfg, "hydra.launcher.submitit_folder").endswith("/.submitit/%j")


def test_ray_launcher_config_composes():
    cfg = runner.compose(
        "lpb/fig1_lambda", ["hydra/launcher=ray", "hydra.launcher.ray.init.address=ray://head:10001"], hydra_node=True
    )
    launcher = cfg.hydra.launcher
    assert launcher._target_ == "hydra_plugins.hydra_ray_launcher.ray_launcher.RayLauncher"
    assert launcher.ray.init.address == "ray://head:10001" and launcher.ray.remote.num_cpus == 2


def test_default_launcher_is_privlabs_pool_on_every_core():
    cfg = runner.compose("lpb/fig1_lambda", hydra_node=True)
    assert cfg.hydra.launcher._target_.endswith("privlab_launcher.PrivlabLauncher") and cfg.hydra.launcher.workers == -1
    assert cfg.hydra.sweeper._target_.endswith("privlab_launcher.PrivlabSweeper")


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_joblib_backend_identical_to_serial(tmp_path, backend):
    exp = registry.get("lpb/breach_check")
    tables = []
    for extra in (["workers=1"], ["workers=2", f"joblib_backend={backend}"]):
        cfg = runner.compose(exp.id, extra + ["n_responses=2000", "eps_factors=[1.0]"])
        ctx = runner.make_context(cfg, tmp_path, log=lambda m: None)
        tables.append(runner.table_to_csv(runner.run_table(exp, cfg, ctx)))
    assert tables[0] == tables[1]


def test_missing_cluster_backend_is_clear(tmp_path):
    import importlib.util

    if importlib.util.find_spec("dask") is not None:
        pytest.skip("dask is installed here")
    cfg = runner.compose("lpb/fig5_dp_noise_ratio", ["workers=2", "joblib_backend=dask"])
    with pytest.raises(PrivlabError, match="joblib_backend=dask needs dask"):
        runner.run_table(registry.get(cfg.id), cfg, runner.make_context(cfg, tmp_path, log=lambda m: None))


def test_dataset_cache_hit_reported(tmp_path):
    messages = []
    cfg = runner.compose("lpb/table2")
    for _ in range(2):
        ctx = runner.make_context(cfg, tmp_path, log=messages.append)
        frame = ctx.dataset(cfg.dataset)
    assert len(frame) == 48842
    assert ctx.cache_hits == 1 and any("cache hit" in m for m in messages)
