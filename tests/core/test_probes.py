# ruff: noqa: E501  (a table of probes: one line per case)
"""The reliability probe as a suite (issue 22): every case a new user tried, with its kin.

Each row is one probe: a command line (run in this process where it is refused before anything
runs, in a subprocess where it must run or where the process itself is the point: a deleted
working directory, stdout on /dev/full), a corrupted reference for ``check``/``compare``, or a
call of the Python API. A refused probe must end in exactly one line ``privlab: error: ...``
naming what is wrong, exit 2 (or 1 where the status is a finding, such as drift), no traceback
and nothing written; an accepted one must give its correct result. The relations between
parameters of every experiment are probed by ``tests/core/test_bad_input.py`` (derived from their
declarations); here one case per relation stands for them on the command line.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privlab import PrivlabError, check, cli, registry, store, testing
from privlab.context import RunContext
from privlab.relations import Cost
from privlab.testing import reference_table

REPO = Path(__file__).resolve().parents[2]
LONG_LIST = "[" + ",".join(str(i) for i in range(20_000)) + "]"
# one bad job among 65, in the middle: a sample of the first and last 32 jobs would miss it
SWEEP_65 = "rho2=" + ",".join("1.5" if i == 32 else f"{0.2 + i * 0.004:.3f}" for i in range(65))


@dataclass
class Probe:
    """``privlab ARGV``: refused in one line containing ``expect`` with exit ``rc``, or (``expect``
    None) completed with exit 0 and ``then(tmp, stdout)`` true. ``{tmp}`` in an argument is the
    test's own directory."""

    id: str
    argv: list[str]
    expect: str | None
    rc: int = 2
    env: dict[str, str] = field(default_factory=dict)
    subprocess: bool = False
    slow: bool = False
    setup: Callable[[Path], None] | None = None
    then: Callable[[Path, str], bool] | None = None


def _files(tmp: Path) -> None:
    (tmp / "big.csv").write_text("a,b\n1.7e308,1\n1.6e308,2\n1.5e308,3\n")
    (tmp / "empty.csv").write_text("a\n\n\n")
    (tmp / "afile").write_text("")


def _one_result(tmp: Path) -> None:
    """A results directory ``{tmp}/a`` holding lpb/table1's committed reference as its result."""
    (tmp / "a" / "lpb" / "table1").mkdir(parents=True)
    (tmp / "a" / "lpb" / "table1" / "result.csv").write_bytes(
        check.reference_path(registry.get("lpb/table1")).read_bytes()
    )


def _garbage_root(tmp: Path) -> None:
    testing.write_project(
        tmp / "root",
        {
            "toy/__init__.py": "from privlab.registry import Paper, experiment\nfrom privlab.params import Int\n"
            "import pandas as pd\nPAPER = Paper('toy')\n@experiment(artifact='x', summary='x', keys=('i',), "
            "params={'n': Int(1, 10)})\ndef line(cfg, ctx):\n    return pd.DataFrame({'i': range(cfg.n)})\n",
            "toy/conf/experiment/toy/line.yaml": "n: [unclosed\n",
        },
    )


def _sweep(tmp: Path) -> None:
    """A complete two-job sweep of lpb/table1 at ``{tmp}/sweep``."""
    argv = [
        "run",
        "lpb/table1",
        "rho2=0.5,0.6",
        f"hydra.sweep.dir={tmp}/sweep",
        "hydra.launcher.workers=1",
        "--multirun",
    ]
    rc, _, err = _in_process(argv, {}, tmp)
    assert rc == 0, err


def _made(tmp: Path, *parts: str) -> bool:
    return (tmp.joinpath(*parts) / "result.csv").is_file()


F1 = "lpb/fig1_lambda"
# fmt: off
PROBES = [
    # -- 2. silent nonsense: parameters valid alone that contradict each other, and their kin --------
    Probe("rho1_min above rho1_max", ["run", F1, "rho1_min=0.09", "rho1_max=0.02"], "rho1_min must be smaller than rho1_max"),
    Probe("kin: twin on ACS", ["run", "lpb/fig1_lambda_acs", "rho1_min=0.09", "rho1_max=0.02"], "rho1_min must be smaller"),
    Probe("kin: rho1_max above rho2", ["run", F1, "rho1_max=0.6"], "rho1_max must be smaller than rho2"),
    Probe("kin: table1 rho1 above rho2", ["run", "lpb/table1", "rho1=0.6"], "rho1 must be smaller than rho2"),
    Probe("kin: breach panels above rho2", ["run", "lpb/breach_check", "rho2=0.1"], "must be smaller than rho2"),
    Probe("kin: claim_rho2 off the grid", ["run", "lpb/fig2_4_noise_ratio", "claim_rho2=0.25"], "claim_rho2 must be among"),
    Probe("distributions={}", ["run", "multilevel/priors", "distributions={}"], "distributions must be a mapping of at least 1"),
    Probe("kin: collusion distributions={}", ["run", "multilevel/fig5_collusion", "distributions={}"], "distributions must"),
    Probe("kin: an empty mapping allowed empty", ["run", F1, "stands_for={}", "--cfg", "job"], None),
    Probe("m_step above m_max", ["run", "multilevel/fig8_overhead", "m_step=1000", "m_max=10"], "m_step must be at most m_max"),
    Probe("kin: a cell beyond the domain", ["run", "multilevel/fig5_collusion", "domain_size=20"], "must be at most domain_size"),
    Probe("kin: chunk x domain_size", ["run", "multilevel/fig7_independent", "domain_size=10000", "mc.chunk=1000000"], "mc.chunk x domain_size = 10,000,000,000 must be at most"),
    Probe("kin: p_r above p", ["run", "multilevel/formulas", "instance.pr=0.9"], "instance.pr must be smaller than instance.p"),
    Probe("gap_settings reversed", ["run", "lpb/formulas", "gap_settings=[[0.5,0.2],[0.3,0.6]]"], "gap_settings[0][0] must be smaller"),
    Probe("sizes equal", ["run", "bucketization/example523_pair_list", "sizes=[3,3]"], "sizes[0] must be smaller than sizes[1]"),
    Probe("kin: a size range reversed", ["run", "bucketization/remark312_count", "ranges=[[5,2]]"], "ranges[0][0] must be at most"),
    Probe("salary_domain low above high", ["run", "cae/formulas", "salary_domain.low=500", "salary_domain.high=100"], "salary_domain.low must be at most salary_domain.high"),
    Probe("kin: T above n", ["run", "isolation/isolation_vs_d", "T=500", "n=400"], "T must be at most n"),
    Probe("kin: Ts above n", ["run", "isolation/isolation_vs_c_T", "Ts=[1,500]", "n=400"], "Ts[1] must be at most n"),
    Probe("kin: T above n, bad sanitizer", ["run", "isolation/bad_sanitizer", "T=500", "n=400"], "T must be at most n"),
    Probe("kin: box_dims above d", ["run", "isolation/utility", "box_dims=5"], "box_dims must be at most dims[0]"),
    Probe("kin: t_radius T above n (was IndexError)", ["run", "isolation/formulas", "t_radius.T=100", "t_radius.n=50"], "t_radius.T must be at most t_radius.n"),
    Probe("interpolation names its key", ["run", F1, "rho2=${nope}"], "rho2: Interpolation key 'nope' not found"),
    Probe("reproduce --results ''", ["reproduce", "lpb/table1", "--results", ""], "--results is empty"),
    Probe("PRIVLAB_PATH missing", ["list"], "PRIVLAB_PATH entry '/nonexistent/root' does not exist", env={"PRIVLAB_PATH": "/nonexistent/root"}),
    Probe("PRIVLAB_PATH a file", ["list"], "is not a directory", env={"PRIVLAB_PATH": "{tmp}/afile"}, setup=_files),
    Probe("PRIVLAB_PATH garbage", ["list"], "PRIVLAB_PATH entry '%%garbage' does not exist", env={"PRIVLAB_PATH": "%%garbage::"}),
    Probe(
        "n_rows above the data: the cap said",
        ["run", "isolation/real_data", "n_rows=10000000", "m=100", "results_dir={tmp}/r"],
        None,
        subprocess=True,
        slow=True,
        then=lambda tmp, out: "is above the 48,842 complete rows of adult: all are used" in out,
    ),
    # -- 3. paths a user really has ---------------------------------------------------------------
    Probe("non-ASCII results_dir", ["run", "lpb/table1", "results_dir={tmp}/résultats"], None, subprocess=True, slow=True, then=lambda t, o: _made(t, "résultats", "lpb", "table1")),
    Probe("spaced non-ASCII --results", ["reproduce", "lpb/table1", "--results", "{tmp}/my results/ünï"], None, subprocess=True, slow=True, then=lambda t, o: _made(t, "my results", "ünï", "lpb", "table1")),
    Probe("C locale, non-ASCII results_dir", ["run", "lpb/table1", "results_dir={tmp}/é ü"], None, env={"LC_ALL": "C", "LANG": "C"}, subprocess=True, slow=True, then=lambda t, o: _made(t, "é ü", "lpb", "table1")),
    Probe("C locale, spaced --results", ["reproduce", "lpb/table1", "--results", "{tmp}/a b/ç"], None, env={"LC_ALL": "C"}, subprocess=True, slow=True, then=lambda t, o: _made(t, "a b", "ç", "lpb", "table1")),
    Probe("an override that does not parse: how to quote", ["run", "lpb/table1", "results_dir=/tmp/a,é(1)"], "quote the value, e.g. \"results_dir='/tmp/a,é(1)'\""),
    # -- 4. tracebacks, each one line now ---------------------------------------------------------
    Probe("interval sweep", ["run", F1, "rho2=interval(0.1,0.5)", "--multirun"], "rho2=interval(...) is a search space"),
    Probe("glob sweep of a parameter", ["run", F1, "rho2=glob(*)", "--multirun"], "rho2=glob(...) picks options of a config group"),
    Probe("range of a billion jobs", ["run", F1, "rho2=range(0,1000000000)", "--multirun"], "makes 1,000,000,000 jobs, at most 100,000"),
    Probe("sweeps multiplying past the bound", ["run", F1, "rho2=range(0,400)", "seed=range(0,400)", "--multirun"], "= 160,000 jobs, at most 100,000"),
    Probe("joblib workers=0", ["run", F1, "hydra/launcher=joblib", "hydra.launcher.n_jobs=0", "rho2=0.3,0.4", "--multirun"], "hydra.launcher.n_jobs must be an integer other than 0"),
    Probe("privlab launcher workers=0", ["run", F1, "hydra.launcher.workers=0", "rho2=0.3,0.4", "--multirun"], "hydra.launcher.workers must be an integer other than 0"),
    Probe("a very long key", ["run", F1, "a" * 5000 + "=1"], "is 5,000 characters long; no parameter name is longer"),
    Probe("unwritable hydra.run.dir", ["run", F1, "hydra.run.dir=/proc/privlab"], "hydra.run.dir /proc/privlab is not a writable directory"),
    Probe("results path longer than the file system allows", ["run", F1, "results_dir=/tmp/" + "a" * 300], "is not a usable directory (File name too long)"),
    Probe("results path beyond PATH_MAX", ["reproduce", "lpb/table1", "--results", "/tmp/" + "a/" * 3000], "File name too long"),
    Probe("compare --html unwritable", ["compare", "{tmp}/a", "{tmp}/a", "--paper", "lpb", "--html", "/proc/privlab.html"], "--html /proc/privlab.html cannot be written", rc=2, setup=_one_result),
    Probe("epsilon --plot unknown extension", ["epsilon", "--data", "{tmp}/big.csv", "--column", "b", "--rho1", "0.1", "--rho2", "0.5", "--plot", "x.unknown_ext"], ".unknown_ext is not an image format", setup=_files),
    Probe("garbage YAML in a config search path", ["run", "toy/line"], "line.yaml is not valid YAML", env={"PRIVLAB_PATH": "{tmp}/root"}, setup=_garbage_root, subprocess=True, slow=True),
    Probe("--cfg with an unknown key", ["run", F1, "--cfg", "job", "foo=1"], "unknown parameter 'foo' of lpb/fig1_lambda"),
    Probe("--cfg with a bad choice", ["run", F1, "--cfg", "bogus"], "--cfg must be one of job, hydra, all"),
    Probe("unknown --config-name", ["run", F1, "--config-name", "nope"], "--config-name is not for privlab run"),
    Probe("a bogus Hydra flag", ["run", F1, "--bogus"], "unknown flag --bogus of privlab run"),
    Probe("--config-dir not a directory", ["run", F1, "--config-dir", "/nonexistent"], "--config-dir must name a directory"),
    Probe("one bad job among 65: refused before any runs", ["run", F1, SWEEP_65, "--multirun"], "job 32 (rho2=1.5): rho2 must be in (0, 1), got 1.5"),
    Probe("one bad job among 65, Hydra's launcher", ["run", F1, SWEEP_65, "hydra/launcher=basic", "--multirun"], "job 32 (rho2=1.5): rho2 must be in (0, 1)"),
    # -- 5. hangs: refused before the work ------------------------------------------------------
    Probe("a universe of 20,000 values", ["run", "lpb/table1", "universe=" + LONG_LIST], "at most 10,000 are parsed"),
    # -- 6. epsilon ---------------------------------------------------------------------------------
    Probe("epsilon: an empty column", ["epsilon", "--data", "{tmp}/empty.csv", "--column", "a", "--rho1", "0.1", "--rho2", "0.5"], "--column a of empty.csv holds no values", setup=_files),
    Probe("epsilon: no column", ["epsilon", "--data", "{tmp}/big.csv", "--column", ",", "--rho1", "0.1", "--rho2", "0.5"], "--column names no column", setup=_files),
    Probe("epsilon: near the float limit", ["epsilon", "--data", "{tmp}/big.csv", "--column", "a", "--rho1", "0.1", "--rho2", "0.5", "--json"], None, setup=_files, then=lambda t, out: _finite_advice(out)),
    Probe("epsilon: a sum past the float limit", ["epsilon", "--data", "{tmp}/big.csv", "--column", "a", "--rho1", "0.1", "--rho2", "0.5", "--query", "sum"], "exceeds the largest float", setup=_files),
    Probe("epsilon: --threshold without count", ["epsilon", "--data", "{tmp}/big.csv", "--column", "b", "--rho1", "0.1", "--rho2", "0.5", "--threshold", "2"], "--threshold is for --query count only", setup=_files),
    # -- 7. issue 29: a new user's bad input, refused in one line (exit 2, nothing written) -----------------
    Probe("a required section removed", ["run", "lpb/table1", "~printed"], "parameter printed of lpb/table1 is missing"),
    Probe("kin: a twin's printed removed", ["run", "lpb/fig1_lambda_acs", "~printed"], "parameter printed of lpb/fig1_lambda_acs is missing"),
    Probe("a text column where a number is needed", ["run", F1, "attributes=[workclass]"], "attributes must be numeric columns of adult (age, ", subprocess=True, slow=True),
    Probe("a non-numeric printed value", ["run", "lpb/table1", "printed.sensitivity.value=abc"], "printed.sensitivity.value must be a number as the paper prints it (e.g. '2.25'), got 'abc'", subprocess=True, slow=True),
    Probe("an unknown mechanism: one line", ["run", "lpb/fig2_4_noise_ratio", "mechanism=nope"], "mechanism must be one of anatomy, "),
    Probe("kin: an unknown mechanism in a list", ["run", "bucketization/fig4_mse", "mechanism=[anatomy,nope]"], "mechanism must be one of anatomy, "),
    Probe("kin: an unknown data set", ["run", F1, "dataset=nope"], "dataset must be one of adult, "),
    Probe("sweep-report: a bad --metric writes nothing", ["sweep-report", "{tmp}/sweep", "--metric", "nope"], "--metric must name result columns (job, rho2, ", setup=lambda t: _sweep(t)),
    Probe("sweep-report: a bad --where writes nothing", ["sweep-report", "{tmp}/sweep", "--where", "nope=1"], "--where must name result columns (job, rho2, ", setup=lambda t: _sweep(t)),
    Probe("fig8: a run of hours refused by its cost", ["run", "multilevel/fig8_overhead", "domain_size=2147483647", "table_sizes=[100000000]", "m_max=100000", "m_step=1"], "tuple releases: sum(table_sizes) x m_max = 10,000,000,000,000 must be at most"),
    Probe("kin: fig8's exact expectations", ["run", "multilevel/fig8_overhead", "table_sizes=[10]", "m_max=100000", "m_step=1"], "terms of the exact expectations: m_max^2 / m_step"),
    Probe("isolation_vs_d: memory refused at compose time", ["run", "isolation/isolation_vs_d", "n=1000000", "dims=[1000]", "m=1000000", "m_any=1000000", "workers=-1"], "points held: (2 n + m + m_any) x max(dims) x 8 bytes x workers"),
    Probe("PRIVLAB_REFERENCE missing: said as such", ["check", "lpb/table1"], "PRIVLAB_REFERENCE /nonexistent/ref is not a directory", env={"PRIVLAB_REFERENCE": "/nonexistent/ref"}),
    Probe("epsilon: --plot a directory", ["epsilon", "--data", "{tmp}/big.csv", "--column", "b", "--rho1", "0.1", "--rho2", "0.5", "--plot", "{tmp}"], "is a directory; give a file name", setup=_files),
]
# fmt: on


def _finite_advice(out: str) -> bool:
    import json

    (row,) = json.loads(out)
    return all(math.isfinite(row[k]) for k in ("sensitivity", "lambda", "epsilon", "statistic"))


def _fill(text: str, tmp: Path) -> str:
    return text.replace("{tmp}", str(tmp))


def _in_process(argv: list[str], env: dict[str, str], tmp: Path) -> tuple[int, str, str]:
    """``privlab ARGV`` in this process (for probes refused before anything runs, or quick ones)."""
    saved = dict(os.environ)
    os.environ.update({"PRIVLAB_RESULTS": str(tmp / "results"), **env})
    out, err = io.StringIO(), io.StringIO()
    stdout = sys.stdout
    try:
        registry.reload()  # PRIVLAB_PATH as the probe sets it
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            try:
                rc = cli.main(argv)
            except SystemExit as exc:
                rc = int(exc.code or 0)
    finally:
        sys.stdout = stdout
        os.environ.clear()
        os.environ.update(saved)
        registry.reload()
    return rc, out.getvalue(), err.getvalue()


def _run(probe: Probe, tmp: Path) -> tuple[int, str, str]:
    argv = [_fill(a, tmp) for a in probe.argv]
    env = {k: _fill(v, tmp) for k, v in probe.env.items()}
    if not probe.subprocess:
        return _in_process(argv, env, tmp)
    full = {**os.environ, "PRIVLAB_RESULTS": str(tmp / "results"), **env}
    res = subprocess.run(
        [sys.executable, "-m", "privlab.cli", *argv], capture_output=True, text=True, cwd=tmp, env=full, timeout=600
    )
    return res.returncode, res.stdout, res.stderr


def _files_under(tmp: Path) -> set[Path]:
    """Files under the probe's directory, a data-set cache aside."""
    return {p for p in tmp.rglob("*") if p.is_file() and ".cache" not in p.parts}


def _check(probe: Probe, tmp: Path) -> None:
    if probe.setup:
        probe.setup(tmp)
    before = _files_under(tmp)
    rc, out, err = _run(probe, tmp)
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    if probe.expect is None:
        assert rc == 0, err
        assert probe.then is None or probe.then(tmp, out + err), out + err
        return
    assert rc == probe.rc and len(lines) == 1 and lines[0].startswith("privlab: error: "), (rc, err)
    assert probe.expect in lines[0], lines[0]
    assert _files_under(tmp) == before, sorted(_files_under(tmp) - before)  # nothing written


def _table(slow: bool):
    return [pytest.param(p, id=p.id) for p in PROBES if p.slow == slow]


@pytest.mark.parametrize("probe", _table(slow=False))
def test_probe(probe, tmp_path):
    _check(probe, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("probe", _table(slow=True))
def test_slow_probe(probe, tmp_path):
    _check(probe, tmp_path)


# -- processes whose surroundings are the point -----------------------------------------------
@pytest.mark.slow
def test_deleted_working_directory_is_one_line(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f"cd '{gone}' && rmdir '{gone}' && exec '{sys.executable}' -m privlab.cli run lpb/table1"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    res = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 2 and res.stderr.strip() == (
        "privlab: error: the working directory no longer exists (deleted?); cd into an existing directory"
    )


@pytest.mark.slow
def test_stdout_on_a_full_device_is_one_line(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        res = subprocess.run(
            [sys.executable, "-m", "privlab.cli", "list"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=300
        )
    assert res.returncode == 2
    assert res.stderr.strip() == "privlab: error: cannot write to standard output (No space left on device)"


@pytest.mark.slow
def test_closed_stdout_is_one_line_and_writes_nothing(tmp_path):
    """``privlab run ... >&-``: refused at once (a file the run opened would become its stdout)."""
    env = {**os.environ, "PRIVLAB_RESULTS": str(tmp_path / "results")}
    script = f"exec '{sys.executable}' -m privlab.cli run lpb/table1 >&-"
    res = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert res.returncode == 2 and res.stderr.strip() == (
        "privlab: error: standard output is closed (>&-); redirect it instead, e.g. >/dev/null"
    )
    assert not list(tmp_path.rglob("*"))


# -- a full disk: the data-set cache and the result -----------------------------------------------
def _square(x):
    return np.arange(x) ** 2


def test_full_disk_while_the_cache_is_written(tmp_path, monkeypatch):
    from joblib import _store_backends

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_store_backends.numpy_pickle, "dump", full)
    said: list[str] = []
    ctx = RunContext(cache_dir=tmp_path / "cache", log=said.append)
    assert ctx.cached(_square, 5).tolist() == [0, 1, 4, 9, 16]  # the run goes on without the cache
    assert said and "not stored" in said[-1] and "No space left on device" in said[-1]
    assert [p.name for p in (tmp_path / "cache").rglob("*") if p.is_file()] == [".gitignore"]  # no joblib debris


def test_full_disk_while_the_result_is_written(tmp_path):
    def fill(staging: Path) -> None:
        (staging / "result.csv").write_text("x\n1\n")
        raise OSError(28, "No space left on device")

    with pytest.raises(PrivlabError, match=r"cannot be written \(No space left on device\)"):
        store.write_result(tmp_path / "lpb" / "table1", fill, rows=1)
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".lock"]


# -- 1. check and compare: no non-finite value fools them --------------------------------------------
CORRUPTIONS = [
    # (experiment, column, row, value, what the comparison of the reference against it must say)
    ("lpb/table1", "posterior", 0, math.inf, "drift"),
    ("lpb/table1", "posterior", 0, -math.inf, "drift"),
    ("lpb/table1", "posterior", 0, math.nan, "drift"),
    ("lpb/table1", "posterior", 0, 1e308, "drift"),
    ("lpb/table2", "n", 0, math.inf, "drift"),  # an exact integer column
    ("lpb/fig2_4_noise_ratio", "mc_se", 0, math.inf, "drift"),  # a Monte Carlo s.e. column
    ("lpb/fig2_4_noise_ratio", "mc", 0, math.inf, "drift"),  # a Monte Carlo column
    ("multilevel/fig7_independent", "trials", 0, math.inf, "drift"),
    ("multilevel/fig7_independent", "mc_se", 0, math.inf, "drift"),
    ("bucketization/diffinf", "median_se", 0, math.inf, "drift"),
    ("bucketization/diffinf", "median", 0, -math.inf, "drift"),
]


@pytest.mark.slow
@pytest.mark.parametrize("exp_id, column, row, value, status", CORRUPTIONS)
def test_a_non_finite_cell_is_drift_either_way(exp_id, column, row, value, status):
    exp = registry.get(exp_id)
    ref = reference_table(exp_id)
    bad = ref.copy()
    bad[column] = bad[column].astype(float)
    bad.loc[row, column] = value
    assert check.compare(exp, bad, ref).status == status  # in the new table
    assert check.compare(exp, ref, check.canonical(bad)).status == status  # in the reference


def test_the_same_infinity_is_equal_only_where_the_column_allows_it():
    from privlab.registry import Experiment, Tolerance

    table = pd.DataFrame({"k": [1, 2], "x": [math.inf, 1.0]})
    plain = Experiment(id="t/x", run=None, artifact="", summary="", keys=("k",))
    allows = Experiment(
        id="t/y", run=None, artifact="", summary="", keys=("k",), tolerances={"x": Tolerance(infinite=True)}
    )
    assert check.compare(plain, table, check.canonical(table)).status == "drift"
    assert check.compare(allows, table, check.canonical(table)).status == "ok"
    other = table.assign(x=[-math.inf, 1.0])
    assert check.compare(allows, other, check.canonical(table)).status == "drift"
    nan = table.assign(x=[math.nan, 1.0])  # an empty cell equals an empty cell
    assert check.compare(plain, nan, check.canonical(nan)).status == "ok"


def _results_dir(root: Path, exp_id: str, table: pd.DataFrame, claims: str | None = None) -> Path:
    run = root / exp_id
    run.mkdir(parents=True)
    table.to_csv(run / "result.csv", index=False)
    if claims is not None:
        (run / "claims.csv").write_text(claims)
    return root


def test_reference_overflow_and_nan_key_in_files(tmp_path):
    exp = registry.get("lpb/table1")
    ref = reference_table("lpb/table1")
    text = ref.to_csv(index=False).splitlines()
    cells = text[1].split(",")
    cells[ref.columns.get_loc("posterior")] = "1e400"  # overflows to inf when read
    (tmp_path / "over.csv").write_text("\n".join([text[0], ",".join(cells), *text[2:]]) + "\n")
    assert check.compare(exp, ref, check.read_reference(exp, tmp_path / "over.csv")).status == "drift"
    cells = text[2].split(",")
    cells[0] = ""  # NaN in the key column
    (tmp_path / "nan.csv").write_text("\n".join([text[0], text[1], ",".join(cells), *text[3:]]) + "\n")
    with pytest.raises(PrivlabError, match=r"no finite value in key column value at lines \[3\]"):
        check.read_reference(exp, tmp_path / "nan.csv")


def test_compare_flags_inf_in_a_and_a_garbage_claims_file(tmp_path):
    ref = reference_table("lpb/table1")
    bad = ref.assign(posterior=[math.inf, *ref.posterior[1:]])
    a = _results_dir(tmp_path / "a", "lpb/table1", bad)
    b = _results_dir(tmp_path / "b", "lpb/table1", ref)
    exps = [registry.get("lpb/table1"), registry.get("lpb/table2")]
    (row,) = check.compare_dirs(a, b, exps)
    assert row.status == "drifted"
    _results_dir(tmp_path / "a", "lpb/table2", reference_table("lpb/table2"), claims="\x00garbage,\n;;;\n")
    _results_dir(tmp_path / "b", "lpb/table2", reference_table("lpb/table2"))
    rows = {c.exp_id: c for c in check.compare_dirs(a, b, exps)}
    assert rows["lpb/table2"].status == "unreadable" and "claims" in rows["lpb/table2"].detail
    assert rows["lpb/table1"].status == "drifted"  # the broken file is its own row; the others are compared


def test_a_broken_reference_is_its_row_and_the_others_are_checked(tmp_path, capsys):
    refs = tmp_path / "ref"
    for exp_id in ("lpb/table1", "bucketization/table1_example1"):
        (refs / exp_id).mkdir(parents=True)
        reference_table(exp_id).to_csv(refs / exp_id / "result.csv", index=False)
    (refs / "lpb/table1/result.csv").write_text("value,posterior\n,1\n,2\n")  # NaN keys
    with pytest.raises(SystemExit) as exit_:
        check.run_check(
            ["lpb/table1", "bucketization/table1_example1"],
            paper=None,
            profile="quick",
            reference=str(refs),
            update=False,
        )
    out = capsys.readouterr()
    assert exit_.value.code == 1
    rows = {line.split()[0]: line for line in out.out.splitlines()[1:]}
    assert " ERROR " in rows["lpb/table1"] and "key column value" in rows["lpb/table1"]
    assert " OK " in rows["bucketization/table1_example1"]


# -- 5 and 7. bounded work and the Python API ---------------------------------------------------------
def _api_cases():
    import privlab.bucketization as bk
    import privlab.cae as cae
    import privlab.lpb as lpb

    return [
        ("posteriors near the float limit", lambda: lpb.posteriors([1e308, -1e308], [1e308], 0.0, 1), None,
         lambda r: np.allclose(r, [1 / (1 + math.e), math.e / (1 + math.e)])),
        ("posteriors: a sum past the float limit", lambda: lpb.posteriors([1e308, -1e308], [1e308], 0.0, 1, "sum"),
         ValueError, "exceeds the largest float"),
        ("cae over a span past the float limit", lambda: cae.cae([-1e308, 1e308], [0.5, 0.5]), ValueError,
         "wider than the largest float"),
        ("cae of 2,000 values: refused at once", lambda: cae.cae(np.arange(2000.0), np.full(2000, 1 / 2000)),
         ValueError, "at most 1,000,000"),
        ("cae of 100 values: exact", lambda: cae.cae(np.arange(100.0), np.full(100, 1 / 100)), None,
         lambda r: math.isclose(r[0], math.log2(100)) and math.isfinite(r[1])),
        ("fprivacy: frequencies summing to 1.1", lambda: bk.fprivacy([0.5, 0.6], 1), ValueError,
         "freqs must sum to at most 1"),
        ("fprivacy: a subset of frequencies", lambda: bk.fprivacy([0.5, 0.2], 1), None, lambda r: r.shape == (2,)),
        ("BucketSetting + 5", lambda: bk.BucketSetting([2], [1]) + 5, TypeError, "unsupported operand"),
        ("BucketSetting + BucketSetting", lambda: bk.BucketSetting([2], [1]) + bk.BucketSetting([3], [1]), None,
         lambda r: r.n == 5),
        ("PrivlabError is a ValueError", lambda: issubclass(PrivlabError, ValueError), None, lambda r: r),
    ]  # fmt: skip


@pytest.mark.parametrize("case", range(10), ids=[c[0] for c in _api_cases()])
def test_api_case(case):
    what, call, error, expect = _api_cases()[case]
    if error is None:
        assert expect(call()), what
        return
    with pytest.raises(error) as info:
        call()
    assert expect in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_memory_bound_of_the_collusion_counts_covers_the_workers():
    """The per-parameter limit (s^4 <= 2^27) does not bound F times its copies: the relation does."""
    from privlab.experiments.multilevel.paper_figures import F_MEMORY

    small = Cost(F_MEMORY.what, F_MEMORY.fn, *F_MEMORY.names(), high=2**31, limit=F_MEMORY.limit)
    small.check({"domain_size": 107, "workers": 1})  # 2 copies of 1 GiB: within 2 GiB
    with pytest.raises(
        PrivlabError, match=r"the counts F: .* must be at most 2,147,483,648 .* lower domain_size or workers"
    ):
        small.check({"domain_size": 107, "workers": 4})


def test_probe_count():
    """The table's size, as the closing note reports it."""
    assert len(PROBES) + len(CORRUPTIONS) + len(_api_cases()) >= 80


# -- issue 29, item 4: what a user sees during a long run ---------------------------------------------
NOISY = '''
"""Toy paper {name}: its experiments warn as libraries do, and one kills its worker process once."""
import os
import warnings
from pathlib import Path

import pandas as pd

from privlab.params import Int
from privlab.registry import Paper, experiment

PAPER = Paper("Toy {name}")


@experiment(artifact="A", summary="warns", keys=("i",), params={{"n": Int(1)}})
def a_warns(cfg, ctx):
    warnings.warn("a library has something to say\\nover two lines", UserWarning)
    warnings.warn("A worker stopped while some jobs were given to the executor. This can be caused by a too "
                  "short worker timeout or by a memory leak.", UserWarning)
    return pd.DataFrame({{"i": range(cfg.n)}})


@experiment(artifact="B", summary="dies once", keys=("i",), params={{"n": Int(1)}})
def b_dies(cfg, ctx):
    marker = Path(os.environ["NOISY_MARKER"] + ".{name}")
    if os.environ.get("NOISY_DIE") == "{name}" and not marker.exists():
        marker.write_text("died")
        os._exit(3)
    return pd.DataFrame({{"i": range(cfg.n)}})
'''


@pytest.mark.slow
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: reproduce runs one experiment at a time")
def test_no_raw_warning_during_a_reproduce_with_a_killed_worker(tmp_path):
    files = {}
    for name in ("noisyone", "noisytwo"):
        files[f"{name}/__init__.py"] = NOISY.format(name=name)
        for exp in ("a_warns", "b_dies"):
            files[f"{name}/conf/experiment/{name}/{exp}.yaml"] = "# @package _global_\nn: 3\n"
    root = testing.write_project(tmp_path / "root", files)
    env = {"PRIVLAB_PATH": str(root), "NOISY_MARKER": str(tmp_path / "m2"), "NOISY_DIE": "noisyone"}
    ids = [f"{p}/{e}" for p in ("noisyone", "noisytwo") for e in ("a_warns", "b_dies")]  # papers side by side
    both = testing.run_cli("reproduce", *ids, results=tmp_path / "s", env=env)
    assert "Traceback" not in both.stderr and "warnings.warn" not in both.stderr, both.stderr
    assert "A worker stopped" not in both.stderr  # nothing was lost: nothing said
    assert all(line.startswith("privlab: ") for line in both.stderr.splitlines() if line.strip()), both.stderr
    said = [line for line in both.stderr.splitlines() if "a library has something to say" in line]
    assert said and all(line.endswith("a library has something to say (UserWarning)") for line in said), said
    assert both.returncode == 0 and (tmp_path / "m2.noisyone").is_file()  # it died once, and ran again
    assert "privlab: warning: noisyone/b_dies: a worker process died while it ran; run again alone" in both.stderr
    assert (tmp_path / "s" / "noisyone" / "b_dies" / "result.csv").is_file()


# -- issue 29, item 4: a damaged results directory is its experiment's row ------------------------------
@pytest.fixture(scope="module")
def two_results(tmp_path_factory) -> Path:
    from privlab import runner

    root = tmp_path_factory.mktemp("two")
    for exp_id in ("lpb/table1", "lpb/table2"):
        runner.execute(exp_id, runner.compose(exp_id, [f"results_dir={root}"]), results_dir=root, log=lambda m: None)
    return root


DAMAGES = [
    ("claims.csv", b"\xff\xfe\x00not utf-8"),
    ("claims.csv", None),  # the same size, every byte undecodable: the manifest's size still matches
    ("config.yaml", b"\xff: [unclosed"),
    ("provenance.json", b'{"cut short'),
    ("provenance.json", None),
]


# the first damage in the default tier, the others slow (each runs report, check and compare)
@pytest.mark.parametrize(
    "name, data",
    [
        pytest.param(n, d, id=f"{n}-{'same size' if d is None else 'changed'}", marks=[pytest.mark.slow] if i else [])
        for i, (n, d) in enumerate(DAMAGES)
    ],
)
def test_a_damaged_file_is_its_row_in_report_check_and_compare(name, data, two_results, tmp_path, capsys):
    import shutil

    from privlab import report

    damaged = tmp_path / "a"
    shutil.copytree(two_results, damaged, symlinks=False)  # links resolved: a copy of its own
    target = damaged / "lpb" / "table1" / name
    target.write_bytes(data if data is not None else b"\xff" * target.stat().st_size)
    exps = [registry.get("lpb/table1"), registry.get("lpb/table2")]
    # compare: the damaged experiment is its row, the other compared
    rows = {c.exp_id: c for c in check.compare_dirs(damaged, two_results, exps)}
    assert rows["lpb/table2"].status == "same"
    # the manifest's checksums find any change, of the same size too
    assert rows["lpb/table1"].status == "unreadable" and name in rows["lpb/table1"].detail, rows["lpb/table1"]
    # report: a row that says what is wrong
    path = report.write_report(damaged)
    text = path.read_text()
    assert "lpb/table1" in text and name in text.split("lpb/table1", 1)[1], text[:2000]
    # check at the paper's scale reuses complete results: a damaged one is recomputed, not a traceback
    saved = os.environ.get("PRIVLAB_RESULTS")
    os.environ["PRIVLAB_RESULTS"] = str(damaged)
    try:
        assert check.run_check(["lpb/table1"], paper=None, profile="paper", reference=None, update=False) == 0
    finally:
        os.environ.pop("PRIVLAB_RESULTS") if saved is None else os.environ.__setitem__("PRIVLAB_RESULTS", saved)
    out = capsys.readouterr().out
    assert "lpb/table1" in out and " OK " in out, out
