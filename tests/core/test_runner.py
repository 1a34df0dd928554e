"""The runner end to end: compose, run, outputs, sweeps, bad input, check, report."""

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from privlab import PrivlabError, registry, runner
from privlab.context import RunContext
from privlab.testing import run_cli

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, results=None, env=None):
    return run_cli(*args, results=results, env=env, cwd=ROOT)


def test_registry_lists_lpb():
    ids = {e.id for e in registry.all_experiments()}
    assert {
        "lpb/table1",
        "lpb/table2",
        "lpb/fig1_lambda",
        "lpb/fig2_4_noise_ratio",
        "lpb/fig5_dp_noise_ratio",
        "lpb/breach_check",
    } <= ids
    for e in registry.all_experiments():  # every experiment has a config with its id
        assert (ROOT / "experiments" / e.paper / "conf" / "experiment" / f"{e.id}.yaml").is_file(), e.id


@pytest.mark.slow
def test_compose_profiles_and_overrides():
    quick = runner.compose("lpb/breach_check")
    paper = runner.compose("lpb/breach_check", profile="paper")
    assert quick.n_responses == 20000 and paper.n_responses == 1000000
    assert runner.compose("lpb/breach_check", ["n_responses=7"], profile="paper").n_responses == 7
    assert runner.compose("lpb/fig1_lambda", ["rho2=0.3"]).rho2 == 0.3
    assert runner.compose("lpb/table2").dataset.name == "adult"


@pytest.mark.parametrize(
    "exp_id, overrides, message",
    [
        ("lpb/nope", [], "unknown experiment 'lpb/nope'"),
        ("lpb/fig1_lambda", ["rho3=0.5"], "unknown parameter 'rho3'"),
    ],
)
def test_compose_errors(exp_id, overrides, message):
    with pytest.raises(PrivlabError, match=message):
        runner.compose(exp_id, overrides)


def test_seeds_do_not_depend_on_workers():
    a = RunContext(seed=3, workers=1).rng("age", 0.5).random(4)
    b = RunContext(seed=3, workers=8).rng("age", 0.5).random(4)
    c = RunContext(seed=3).rng("age", 0.6).random(4)
    assert (a == b).all() and not (a == c).all()


def _square(item):
    i, seed = item
    import numpy as np

    return float(np.random.default_rng(seed).random()) + i


def test_parallel_map_identical_to_serial():
    ctx1, ctx2 = RunContext(seed=1, workers=1), RunContext(seed=1, workers=2)
    items = [(i, ctx1.seed_sequence(i)) for i in range(6)]
    assert ctx1.map(_square, items) == ctx2.map(_square, items)


@pytest.mark.slow
def test_run_writes_every_output(tmp_path):
    res = cli("run", "lpb/table1", results=tmp_path)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "lpb" / "table1"
    names = {p.name for p in out.iterdir()}
    assert {
        "result.csv",
        "config.yaml",
        "provenance.json",
        "claims.csv",
        "table1_posteriors.png",
        "table1_posteriors.pdf",
    } <= names
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["seed"] == 0 and prov["host_cores"] == os.cpu_count() and prov["packages"]["numpy"]
    table = pd.read_csv(out / "result.csv")
    assert table.posterior.iloc[-1] == pytest.approx(0.54212, abs=1e-5)
    assert not [p for p in tmp_path.rglob(".*staging*")]


@pytest.mark.slow
def test_multirun_sweep(tmp_path):
    res = cli("run", "lpb/fig1_lambda", "rho2=0.3,0.7", "--multirun", results=tmp_path)
    assert res.returncode == 0, res.stderr
    jobs = sorted((tmp_path / "sweeps" / "lpb" / "fig1_lambda").glob("*/[!.]*/result.csv"))
    assert len(jobs) == 2
    rho2 = sorted(pd.read_csv(j).rho2.iloc[0] for j in jobs)
    assert rho2 == [0.3, 0.7]


BAD_INPUT = [
    (["run", "lpb/nope"], "unknown experiment 'lpb/nope'"),
    (["run", "lpb/fig1_lambda", "rho3=1"], "unknown parameter 'rho3'"),
    (["run", "lpb/fig1_lambda", "rho2=0.05"], "rho1_max must be smaller than rho2"),
    (["run", "lpb/fig1_lambda", "rho2=1.5"], "rho2 must be in (0, 1)"),
    (["run", "lpb/table2", "dataset.path=/nonexistent"], "/nonexistent"),
    (["reproduce", "--profile", "huge"], "--profile must be one of quick, paper"),
    (["reproduce", "--paper", "xyz"], "--paper must be one of"),
]


# each case starts privlab (~3 s): the first in the default tier, the others slow
@pytest.mark.parametrize(
    "args, message", [pytest.param(*c, marks=[pytest.mark.slow] if i else []) for i, c in enumerate(BAD_INPUT)]
)
def test_bad_input_one_line_no_traceback(tmp_path, args, message):
    res = cli(*args, results=tmp_path)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("privlab: error:") and message in lines[0], res.stderr
    assert not list(tmp_path.rglob("result.csv"))


@pytest.mark.slow
def test_failed_run_keeps_previous_result(tmp_path, monkeypatch):
    exp = registry.get("lpb/table1")
    cfg = runner.compose("lpb/table1")
    runner.execute("lpb/table1", cfg, results_dir=tmp_path, log=lambda m: None)
    out = tmp_path / "lpb" / "table1"
    before = (out / "result.csv").read_bytes()

    def broken(df):
        raise RuntimeError("figure failed")

    monkeypatch.setitem(exp.figures, "broken", broken)
    with pytest.raises(RuntimeError):
        runner.execute("lpb/table1", cfg, results_dir=tmp_path, log=lambda m: None)
    assert (out / "result.csv").read_bytes() == before
    assert sorted(p.name for p in tmp_path.joinpath("lpb").iterdir() if not p.name.startswith(".")) == ["table1"]
    assert len(list(tmp_path.joinpath("lpb").glob(".table1.v-*"))) == 1  # the failed write left no version behind


def test_tables_identical_for_any_worker_count(tmp_path):
    tables = []
    for jobs in (1, 2):
        cfg = runner.compose("lpb/fig2_4_noise_ratio", [f"workers={jobs}"])
        ctx = runner.make_context(cfg, tmp_path, log=lambda m: None)
        tables.append(runner.table_to_csv(runner.run_table(registry.get(cfg.id), cfg, ctx)))
    assert tables[0] == tables[1]


@pytest.mark.slow
def test_check_passes_and_detects_drift(tmp_path):
    ref = tmp_path / "ref"
    assert cli("check", "lpb/table1", "lpb/fig5_dp_noise_ratio", "--update", "--reference", str(ref)).returncode == 0
    ok = cli("check", "lpb/table1", "lpb/fig5_dp_noise_ratio", "--reference", str(ref))
    assert ok.returncode == 0 and "OK" in ok.stdout
    # each row and the total count the claims by verdict, the fourth one too
    assert "; claims: " in ok.stdout and "inconclusive" in ok.stdout.splitlines()[-1]
    assert ok.stdout.splitlines()[-1].startswith("claims in all: ")
    # perturb one deterministic cell and one Monte Carlo cell beyond its statistical tolerance
    path = ref / "lpb" / "table1" / "result.csv"
    df = pd.read_csv(path)
    df.loc[2, "posterior"] += 1e-6
    df.to_csv(path, index=False)
    path5 = ref / "lpb" / "fig5_dp_noise_ratio" / "result.csv"
    df5 = pd.read_csv(path5)
    df5.loc[0, "mc"] += 10 * df5.loc[0, "mc_se"]
    df5.to_csv(path5, index=False)
    bad = cli("check", "lpb/table1", "lpb/fig5_dp_noise_ratio", "--reference", str(ref))
    assert bad.returncode == 1
    assert bad.stdout.count("DRIFT") == 2 and "posterior" in bad.stdout and "'mc'" in bad.stdout


def test_statistical_tolerance_accepts_small_mc_change(tmp_path):
    from privlab import check

    exp = registry.get("lpb/fig5_dp_noise_ratio")
    cfg = runner.compose(exp.id)
    table = runner.run_table(exp, cfg, runner.make_context(cfg, tmp_path, log=lambda m: None))
    ref = check.canonical(table)
    moved = table.copy()
    moved["mc"] = moved["mc"] + 0.5 * moved["mc_se"]
    assert check.compare(exp, moved, ref).status == "ok"


@pytest.mark.slow
def test_reproduce_writes_report(tmp_path):
    res = cli("reproduce", "lpb/table1", "lpb/table2", results=tmp_path)
    assert res.returncode == 0, res.stderr
    report = (tmp_path / "REPORT.md").read_text()
    assert "lpb/table1/table1_posteriors.png" in report
    assert "**disagree**" in report and "0.0031" in report  # Table II's education-num sensitivity
    assert "| lpb | 2 |" in report and "| agree | disagree | inconclusive | info |" in report


def test_by_profile_accepts_lists():
    grid = "epsilons=${by_profile:[1,2],[3,4,5]}"
    assert list(runner.compose("lpb/fig5_dp_noise_ratio", [grid]).epsilons) == [1, 2]
    assert list(runner.compose("lpb/fig5_dp_noise_ratio", [grid], profile="paper").epsilons) == [3, 4, 5]


def test_undeclared_keys_are_refused_even_with_plus():
    with pytest.raises(PrivlabError, match="unknown parameter 'grid' of lpb/fig1_lambda"):
        runner.compose("lpb/fig1_lambda", ["+grid=[1,2]"])
    with pytest.raises(PrivlabError, match="id is fixed by the experiment's config path"):
        runner.compose("lpb/fig1_lambda", ["id=lpb/other"])


@pytest.mark.slow
def test_failed_sweep_job_is_reported_and_others_complete(tmp_path):
    # a fault only the data shows (an absent column): no contract can refuse it before the sweep starts
    res = cli("run", "lpb/fig1_lambda", "attributes=[nosuch],[age]", "--multirun", results=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("privlab: error: job 0 (attributes=[nosuch]): attributes must be columns of adult")
    assert lines[-1] == "privlab: error: 1 job(s) of the sweep failed: 0 (errors above); the others completed"
    assert len(list(tmp_path.rglob("result.csv"))) == 1


def test_check_text_columns_and_missing_cells():
    from privlab import check

    exp = registry.Experiment(id="lpb/x", run=None, artifact="", summary="", keys=("value",))
    table = pd.DataFrame({"value": [1, 2], "verdict": ["ok", None], "x": [0.5, float("nan")]})
    assert check.compare(exp, table, check.canonical(table)).status == "ok"
    other = pd.DataFrame({"value": [1, 2], "verdict": ["ok", "timed out"], "x": [0.5, float("nan")]})
    drift = check.compare(exp, table, check.canonical(other))
    assert drift.status == "drift" and "'verdict' differs" in drift.detail
    rows = pd.DataFrame({"value": [1, 3], "verdict": ["ok", None], "x": [0.5, float("nan")]})
    assert "rows differ" in check.compare(exp, table, check.canonical(rows)).detail
