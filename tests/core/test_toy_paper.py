"""Adding a sixth paper touches no core file: a toy paper (its library function, experiment,
config and reference) built outside the privlab package runs through list, run, reproduce
and check, from PRIVLAB_PATH and installed as a package (examples/warner is the worked example
README and the tutorial describe)."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from privlab.testing import run_cli, write_project

LIBRARY = '''
"""Toy paper library: the mean of n fair coin flips, sampled, and its exact law."""
import numpy as np


def coin_means(n: int, repeats: int, seed) -> np.ndarray:
    """``repeats`` sample means of ``n`` fair coins."""
    return np.random.default_rng(seed).binomial(n, 0.5, size=repeats) / n


def coin_row(item) -> dict:
    """One row of the toy table (run in a worker process)."""
    n, repeats, seed = item
    means = coin_means(n, repeats, seed)
    return {"n": n, "mean": means.mean(), "mean_se": coin_mean_sd(n) / repeats ** 0.5, "sd": means.std(ddof=1),
            "exact_sd": coin_mean_sd(n)}


def coin_mean_sd(n: int) -> float:
    """Exact standard deviation of the mean of n fair coins: 1 / (2 sqrt(n))."""
    return 0.5 / n ** 0.5
'''

EXPERIMENT = '''
"""Toy paper: coins."""
import pandas as pd
import toy_lib

from privlab import claims as cl
from privlab.params import Int, List, Real
from privlab.registry import Paper, Tolerance, experiment

PAPER = Paper("Toy - Fair coins", text="none")


@experiment(
    artifact="Table 1",
    summary="Sample mean of n fair coins vs its exact law",
    keys=("n",),
    tolerances={"mean": Tolerance(se="mean_se")},
    params={"ns": List(Int(1, 10**6)), "repeats": Int(2, 10**6), "claims": {"z_max": Real(0)}},
    smoke=("repeats=50",),
)
def coins(cfg, ctx):
    items = [(n, cfg.repeats, ctx.seed_sequence("coins", n)) for n in cfg.ns]
    return pd.DataFrame(ctx.map(toy_lib.coin_row, items))


@coins.claims
def _(df, cfg):
    return [cl.within_se(cfg.printed.fair, df["mean"], 0.5, df.mean_se, k=cfg.claims.z_max)]


coins.twin("coins_many", summary="The same on many coins")
'''

CONFIG = """
# @package _global_
ns: [1, 10, 100]
repeats: 400
claims:
  z_max: 5           # sample means within 5 s.e. of 1/2
printed:
  fair: {claim: the coins are fair, where: Table 1, value: "0.5"}
"""


PYPROJECT_ROOT = """
[project]
name = "toy"
version = "0.1"

[project.entry-points."privlab.papers"]
toy = "toy"
"""


@pytest.fixture(scope="module")
def toy_root(tmp_path_factory) -> Path:
    twin = "# @package _global_\ndefaults:\n  - /experiment/toy/coins\n  - _self_\nns: [1000, 10000]\n"
    files = {
        "pyproject.toml": PYPROJECT_ROOT,
        "toy_lib.py": LIBRARY,
        "toy/__init__.py": EXPERIMENT,
        "toy/conf/experiment/toy/coins.yaml": CONFIG,
        "toy/conf/experiment/toy/coins_many.yaml": twin,
    }
    return write_project(tmp_path_factory.mktemp("toy-root"), files)


def privlab(root: Path, results: Path, *args: str) -> subprocess.CompletedProcess:
    return run_cli(*args, results=results, env={"PRIVLAB_PATH": str(root)}, cwd=root, timeout=300)


@pytest.mark.slow  # ten command-line processes one after the other (15 s on 2 cores)
def test_a_toy_paper_runs_everywhere(toy_root, tmp_path):
    results = tmp_path / "results"
    listed = privlab(toy_root, results, "list", "--paper", "toy")
    assert listed.returncode == 0, listed.stderr
    assert "toy/coins" in listed.stdout and "Table 1" in listed.stdout and "toy/coins_many" in listed.stdout

    twin = privlab(toy_root, results, "run", "toy/coins_many")  # the same code on its own config
    assert twin.returncode == 0, twin.stderr
    assert pd.read_csv(results / "toy" / "coins_many" / "result.csv").n.tolist() == [1000, 10000]
    assert pd.read_csv(results / "toy" / "coins_many" / "claims.csv").verdict.tolist() == ["agree"]

    run = privlab(toy_root, results, "run", "toy/coins", "workers=2")  # workers import the toy's library
    assert run.returncode == 0, run.stderr
    serial = privlab(toy_root, tmp_path / "serial", "run", "toy/coins", "workers=1")
    assert serial.returncode == 0, serial.stderr
    text = (results / "toy" / "coins" / "result.csv").read_text()
    assert (tmp_path / "serial" / "toy" / "coins" / "result.csv").read_text() == text
    table = pd.read_csv(results / "toy" / "coins" / "result.csv")
    assert table.n.tolist() == [1, 10, 100] and table.exact_sd.iloc[1] == pytest.approx(0.5 / 10**0.5)
    claims = pd.read_csv(results / "toy" / "coins" / "claims.csv")
    assert claims.verdict.tolist() == ["agree"] and "1 agree" in run.stdout

    bad = privlab(toy_root, results, "run", "toy/coins", "repeats=1")
    assert bad.returncode == 2 and bad.stderr.strip() == (
        "privlab: error: repeats must be an integer in [2, 1,000,000], got 1"
    )

    # the reference lives in the toy paper's own experiment unit
    update = privlab(toy_root, results, "check", "toy/coins", "toy/coins_many", "--update")
    assert update.returncode == 0, update.stderr
    assert (toy_root / "toy" / "reference" / "quick" / "coins" / "result.csv").is_file()
    check = privlab(toy_root, results, "check", "--paper", "toy")
    assert check.returncode == 0 and "OK" in check.stdout, check.stdout + check.stderr

    reproduce = privlab(toy_root, results, "reproduce", "--paper", "toy")
    assert reproduce.returncode == 0, reproduce.stderr
    report = (results / "REPORT.md").read_text()
    assert "## toy: Toy - Fair coins" in report and "the coins are fair" in report

    # a drifted reference is caught
    ref = toy_root / "toy" / "reference" / "quick" / "coins" / "result.csv"
    frame = pd.read_csv(ref)
    frame.loc[0, "exact_sd"] = 0.4
    frame.to_csv(ref, index=False)
    drift = privlab(toy_root, results, "check", "toy/coins")
    assert drift.returncode == 1 and "DRIFT" in drift.stdout


@pytest.mark.slow
def test_the_report_sets_a_twin_beside_its_original(toy_root, tmp_path):
    results = tmp_path / "results"
    res = privlab(toy_root, results, "reproduce", "--paper", "toy")
    assert res.returncode == 0, res.stderr
    report = (results / "REPORT.md").read_text()
    assert "## Synthetic vs real" in report and "### toy/coins vs toy/coins_many" in report
    assert "| the coins are fair (Table 1) | agree | agree | holds on both data sets |" in report
    assert 'id="synthetic-vs-real"' in (results / "report.html").read_text()


PYPROJECT = """
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "toy-coins"
version = "0.1"
dependencies = ["privlab"]

[project.entry-points."privlab.papers"]
toycoins = "toy_coins"

[tool.setuptools.packages.find]
include = ["toy_coins*"]

[tool.setuptools.package-data]
toy_coins = ["conf/**/*.yaml"]
"""


@pytest.fixture(scope="module")
def installed_toy(tmp_path_factory) -> Path:
    """The toy paper as its own package (experiments, library, configs), installed with pip into a
    directory of its own: privlab finds it through the entry-point group privlab.papers."""
    src = tmp_path_factory.mktemp("toy-src")
    pkg = src / "toy_coins"
    (pkg / "conf" / "experiment" / "toycoins").mkdir(parents=True)
    (src / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    (pkg / "toy_lib.py").write_text(textwrap.dedent(LIBRARY))
    module = textwrap.dedent(EXPERIMENT).replace("import toy_lib\n", "from toy_coins import toy_lib\n")
    (pkg / "__init__.py").write_text(module)
    (pkg / "conf" / "experiment" / "toycoins" / "coins.yaml").write_text(textwrap.dedent(CONFIG))
    twin = "# @package _global_\ndefaults:\n  - /experiment/toycoins/coins\n  - _self_\nns: [1000, 10000]\n"
    (pkg / "conf" / "experiment" / "toycoins" / "coins_many.yaml").write_text(twin)
    site = tmp_path_factory.mktemp("toy-site")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"]
    done = subprocess.run([*pip, "--target", str(site), str(src)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not (site / "toy_coins" / "__init__.py").samefile(pkg / "__init__.py")
    return site


@pytest.mark.slow  # a pip install, then the command line in the installed package's environment (12 s)
def test_a_paper_installed_as_a_package_runs_through_its_entry_point(installed_toy, tmp_path):
    env = {"PYTHONPATH": str(installed_toy), "PRIVLAB_PATH": ""}
    work = tmp_path / "work"
    work.mkdir()

    def privlab_(*args: str):
        return run_cli(*args, env=env, cwd=work, timeout=300)

    listed = privlab_("list", "--paper", "toycoins")
    assert listed.returncode == 0, listed.stderr
    assert "toycoins/coins " in listed.stdout and "toycoins/coins_many" in listed.stdout

    run = privlab_("run", "toycoins/coins")
    assert run.returncode == 0, run.stderr
    table = pd.read_csv(work / "results" / "toycoins" / "coins" / "result.csv")  # under the working directory
    assert table.n.tolist() == [1, 10, 100] and table.exact_sd.iloc[2] == pytest.approx(0.05)

    # an installed copy is not a source tree: its references are written elsewhere, or not at all
    refused = privlab_("check", "--paper", "toycoins", "--update")
    assert refused.returncode == 2 and "is an installed copy" in refused.stderr, refused.stderr
    assert not (installed_toy / "toy_coins" / "reference").exists()
    update = privlab_("check", "--paper", "toycoins", "--update", "--reference", str(work / "refs"))
    assert update.returncode == 0, update.stderr
    assert (work / "refs" / "toycoins" / "coins" / "result.csv").is_file()
    check = privlab_("check", "--paper", "toycoins", "--reference", str(work / "refs"))
    assert check.returncode == 0 and check.stdout.count(" OK ") == 2, check.stdout + check.stderr

    reproduce = privlab_("reproduce", "--paper", "toycoins")
    assert reproduce.returncode == 0, reproduce.stderr
    assert "## toycoins: Toy - Fair coins" in (work / "results" / "REPORT.md").read_text()

    bad = privlab_("run", "toycoins/coins", "repeats=1")
    assert bad.returncode == 2 and bad.stderr.strip() == (
        "privlab: error: repeats must be an integer in [2, 1,000,000], got 1"
    )
