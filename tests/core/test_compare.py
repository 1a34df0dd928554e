"""privlab compare: two runs with one perturbed cell report exactly that cell and exit 1;
check and compare share one comparison code path."""

import shutil
import subprocess
import sys

import pandas as pd
import pytest

from privlab import check, registry, runner, store


@pytest.fixture(scope="module")
def run_a(tmp_path_factory):
    results = tmp_path_factory.mktemp("a")
    for exp_id in ("lpb/table1", "lpb/fig5_dp_noise_ratio"):
        runner.execute(
            exp_id,
            runner.compose(exp_id, ["n_queries=40"] if "fig5" in exp_id else []),
            results_dir=results,
            log=lambda m: None,
        )
    return results


def _rewrite(run, edit):
    files = {f.name: f.read_bytes() for f in run.iterdir() if f.name != store.MANIFEST}
    table = edit(pd.read_csv(run / "result.csv"))
    files["result.csv"] = runner.table_to_csv(table).encode()
    store.write_result(run, lambda d: [(d / k).write_bytes(v) for k, v in files.items()], rows=len(table))


@pytest.mark.slow
def test_compare_reports_exactly_the_perturbed_cell(run_a, tmp_path):
    run_b = tmp_path / "b"
    shutil.copytree(run_a, run_b, symlinks=True)

    def bump(t):
        t.loc[t.value == 5, "density"] += 1e-6
        return t

    _rewrite(run_b / "lpb" / "table1", bump)
    res = subprocess.run(
        [sys.executable, "-m", "privlab.cli", "compare", str(run_a), str(run_b), "--html", str(tmp_path / "cmp.html")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 1, res.stderr
    lines = res.stdout.splitlines()
    assert any(line.startswith("lpb/table1") and "drifted" in line for line in lines)
    assert any(line.startswith("lpb/fig5_dp_noise_ratio") and "same" in line for line in lines)
    cells = [line for line in lines if line.startswith("    value=")]
    assert len(cells) == 1 and cells[0].startswith("    value=5: density A=") and "B=" in cells[0]
    html = (tmp_path / "cmp.html").read_text()
    assert "cells that moved" in html and "density" in html


def test_compare_within_tolerance_and_only_in(run_a, tmp_path):
    run_b = tmp_path / "b"
    shutil.copytree(run_a, run_b, symlinks=True)

    def jitter(t):
        t["mc"] = t["mc"] + 0.5 * t["mc_se"]  # half a standard error: within the 5 s.e. tolerance
        return t

    _rewrite(run_b / "lpb" / "fig5_dp_noise_ratio", jitter)
    store.remove(run_b / "lpb" / "table1")
    exps = registry.select(paper="lpb")
    statuses = {c.exp_id: c.status for c in check.compare_dirs(run_a, run_b, exps)}
    assert statuses == {"lpb/fig5_dp_noise_ratio": "within tolerance", "lpb/table1": "only in A"}
    same = check.compare_dirs(run_a, run_a, exps)
    assert {c.status for c in same} == {"same"} and all(not c.verdicts for c in same)


def test_verdict_changes_come_first():
    changes = [check.VerdictChange("x", "info", "agree"), check.VerdictChange("y", "agree", "disagree")]
    assert sorted(changes, key=lambda v: v.rank)[0].claim == "y"
