"""The conformance harness (`privlab.testing.conformance`, ``privlab check --conformance``) passes a
paper that conforms and names each fault put into one: a ledger id with a typo (which ``privlab
check`` refuses too), a table that depends on the number of workers, a missing reference, a figure
that does not draw its table, a declared experiment without its config."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from privlab import registry, runner, testing

UNIT = '''
"""Coins: a paper that conforms, with a fault switched on by its config."""
import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab import figures as pf
from privlab.params import Bool, Int, List
from privlab.registry import Paper, Tolerance, experiment

PAPER = Paper("Coins - a paper for the conformance harness")


def heads(item):
    n, seed = item
    return {"n": n, "mean": np.random.default_rng(seed).binomial(n, 0.5) / n, "mean_se": 0.5 / n**0.5}


@pf.figure(ledger=("fig1",))
def mean_vs_n(table, cfg):
    # the fault: limits that cut the drawn points off the panel
    limits = (0.9, 1.0) if cfg.misdraw else None
    panel = pf.Panel(table.assign(series="coins"), x="n", layers=(pf.Layer("mean", kind="points"),),
                     xaxis=pf.Axis("coins", scale="log"), yaxis=pf.Axis("share of heads", limits=limits))
    return pf.FigureSpec("heads against coins", (panel,), pf.style_map(["coins"]))


@experiment(artifact="Table 1", summary="share of heads", keys=("n",),
            tolerances={"mean": Tolerance(se="mean_se")},
            params={"ns": List(Int(1, 10**6)), "by_workers": Bool(), "misdraw": Bool()},
            figures={"mean_vs_n": mean_vs_n}, smoke=("ns=[10,100]",))
def coins(cfg, ctx):
    salt = ctx.n_jobs if cfg.by_workers else 0  # the fault: the seed depends on the number of workers
    return pd.DataFrame(ctx.map(heads, [(n, ctx.seed_sequence("coins", n, salt)) for n in cfg.ns]))


@coins.claims
def _(df, cfg):
    return [cl.within_se(cfg.printed.fair, df["mean"], 0.5, df.mean_se, k=6)]
'''
CONFIG = """
# @package _global_
ns: [10, 100, 1000]
by_workers: false
misdraw: false
printed:
  fair: {claim: the coins are fair, where: Table 1, value: "0.5", ledger: LEDGER_ID}
"""
LEDGER = """
items:
  - {id: t1.fair, where: Table 1, kind: table, text: fair coins, checked_by: [coins/coins]}
  - {id: fig1, where: Figure 1, kind: figure, text: share of heads against n, checked_by: [coins/coins]}
"""


def _project(paper_root, ledger_id: str = "t1.fair", **files: str):
    root = paper_root(
        {
            "coins/__init__.py": UNIT,
            "coins/ledger.yaml": LEDGER,
            "coins/conf/experiment/coins/coins.yaml": CONFIG.replace("LEDGER_ID", ledger_id),
            **files,
        }
    )
    return root


def _reference(root, overrides=()) -> None:
    exp = registry.get("coins/coins")
    cfg = runner.compose(exp.id, list(overrides))
    table = runner.run_table(exp, cfg, runner.make_context(cfg, root / "results", log=lambda m: None))
    path = root / "coins" / "reference" / "quick" / "coins" / "result.csv"
    runner.atomic_write_text(path, runner.table_to_csv(table))


@pytest.mark.slow
def test_a_conforming_paper_passes(paper_root):
    root = _project(paper_root)
    _reference(root)
    testing.conformance("coins")  # 1 and 2 workers, no pytest option needed


@pytest.mark.slow  # privlab check in a subprocess
def test_a_ledger_typo_fails_the_harness_and_check(paper_root, cli):
    root = _project(paper_root, ledger_id="t1.fiar")
    _reference(root)
    typo = r"ledger id 't1.fiar' named by its config is not an item of .*ledger.yaml"
    with pytest.raises(AssertionError, match=typo):
        testing.conformance("coins", workers=1)
    checked = cli("check", "--paper", "coins")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "ERROR" in checked.stdout and "ledger id 't1.fiar'" in checked.stdout


@pytest.mark.slow
def test_a_table_that_depends_on_the_workers_fails(paper_root, tmp_path):
    root = _project(paper_root)
    _reference(root)
    config = root / "coins" / "conf" / "experiment" / "coins" / "coins.yaml"
    config.write_text(config.read_text().replace("by_workers: false", "by_workers: true"))
    assert testing.check_experiment("coins/coins", workers=1, results=tmp_path) == []
    failures = testing.check_experiment("coins/coins", workers=2, results=tmp_path)
    assert failures == ["coins/coins: workers: the smoke table differs with 1 and 2 workers"]


@pytest.mark.slow
def test_a_missing_reference_and_an_unfaithful_figure_fail(paper_root, tmp_path):
    root = _project(paper_root)
    failures = testing.check_experiment("coins/coins", workers=1, results=tmp_path)
    assert len(failures) == 1 and failures[0].startswith("coins/coins: reference: none at ")
    assert "privlab check --paper coins --update" in failures[0]
    _reference(root)
    config = root / "coins" / "conf" / "experiment" / "coins" / "coins.yaml"
    config.write_text(config.read_text().replace("misdraw: false", "misdraw: true"))
    failures = testing.check_experiment("coins/coins", workers=1, results=tmp_path)
    assert failures and all("figure mean_vs_n of the quick reference" in f for f in failures), failures


@pytest.mark.slow  # two subprocesses, each a smoke run with 1 and 2 workers
def test_check_conformance_on_the_command_line(paper_root, cli):
    root = _project(paper_root)
    _reference(root)
    done = cli("check", "--conformance", "--paper", "coins")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "coins/coins" in done.stdout and "conforms (1 and 2 workers)" in done.stdout
    (root / "coins" / "reference" / "quick" / "coins" / "result.csv").unlink()
    done = cli("check", "--conformance", "--paper", "coins")
    assert done.returncode == 1 and "FAIL" in done.stdout and "reference: none at" in done.stdout
    assert done.stderr.strip() == "privlab: error: 1 of 1 experiment(s) do not conform"


def test_a_reference_read_back_decides_the_claims(paper_root, tmp_path):
    root = _project(paper_root)
    _reference(root)
    path = root / "coins" / "reference" / "quick" / "coins" / "result.csv"
    pd.read_csv(path).drop(columns="mean_se").to_csv(path, index=False)  # a claim now reads a lost column
    failures = testing.check_experiment("coins/coins", workers=1, results=tmp_path)
    assert any("quick reference: its claims cannot be decided" in f for f in failures), failures


TWO = (
    UNIT
    + """

@experiment(artifact="Table 2", summary="declared, its config forgotten", keys=("n",), params={"ns": List(Int(1, 10))})
def forgotten(cfg, ctx):
    return pd.DataFrame({"n": list(cfg.ns)})
"""
)


@pytest.mark.slow
def test_a_declared_experiment_without_its_config(paper_root, tmp_path, cli):
    """F7: one line naming the missing file; the rest of the paper still runs."""
    root = _project(paper_root, **{"coins/__init__.py": TWO})
    _reference(root)
    missing = root / "coins" / "conf" / "experiment" / "coins" / "forgotten.yaml"
    line = f"coins/forgotten is declared but has no config: {missing} is missing"
    with pytest.raises(runner.MissingConfig, match=f"^{re.escape(line)}$"):
        runner.compose("coins/forgotten")
    assert testing.check_experiment("coins/forgotten", workers=1, results=tmp_path) == [
        f"coins/forgotten: config: no config at {missing}"
    ]
    done = cli("reproduce", "--paper", "coins")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"privlab: error: {line}" in done.stderr
    assert "Traceback" not in done.stderr and "coins/coins: 3 rows" in done.stdout


@pytest.mark.slow
def test_the_runner_audits_each_figure_it_draws(paper_root, tmp_path):
    """F4: a reproduced figure is read back against its table; the verdict is in provenance.json."""
    import json

    _project(paper_root)
    for misdraw in (False, True):
        logged: list[str] = []
        cfg = runner.compose("coins/coins", [f"misdraw={str(misdraw).lower()}"])
        out = runner.execute("coins/coins", cfg, results_dir=tmp_path / str(misdraw), log=logged.append).out_dir
        audit = json.loads((out / "provenance.json").read_text())["figure_audit"]["mean_vs_n"]
        assert (out / "mean_vs_n.png").is_file() and audit["faithful"] is (not misdraw)
        if misdraw:
            assert audit["problems"] and any("lie outside the panel's view" in p for p in audit["problems"])
            assert any("coins/coins: figure mean_vs_n is not faithful to its table" in line for line in logged)
        else:
            assert audit["problems"] == [] and not any("not faithful" in line for line in logged)
