"""Helpers for testing privlab and papers built on it (as `numpy.testing` serves numpy's users).

A paper's author tests their experiments the way privlab tests its own five: `conformance` runs
the generic checks over every experiment of a paper (privlab's own test over its papers is this
harness, ``tests/core/test_all_experiments.py``), as scikit-learn's ``check_estimator`` does for
an estimator; a paper's test file holds ``def test_conformance(): conformance("warner")`` (every
experiment of the paper, with 1 and 2 workers).
It is a plain function: it needs no pytest option (no ``-o addopts=""``) and no fixture, and
``privlab check --conformance --paper warner`` runs the same checks from the command line.
The other helpers run the command line in a subprocess (`run_cli`), read a committed reference
table (`reference_table`), or put a paper root on ``PRIVLAB_PATH`` for the duration of a test
(`paper_root`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from . import check, claims, figures, ledger, registry, runner
from ._validation import PrivlabError
from .check import reference_path
from .errors import fail
from .runner import error_line

__all__ = [
    "conformance",
    "check_experiment",
    "run_cli",
    "reference_table",
    "paper_root",
    "write_project",
    "sample_points",
]


def sample_points(rng: Any, n: int, d: int, kind: str = "uniform") -> Any:
    """``n`` points of ``[-1, 1]^d`` that stress exact distance code: ``"uniform"``; ``"grid"``
    (integer coordinates -2..2: many ties at every distance, duplicate rows); ``"clustered"`` (five
    tight clusters); ``"duplicates"`` (about n / 20 distinct rows, each repeated)."""
    if kind == "grid":
        return rng.integers(-2, 3, (n, d)).astype(float)
    if kind == "clustered":
        centres = rng.uniform(-1, 1, (5, d))
        return centres[rng.integers(5, size=n)] + 0.05 * rng.standard_normal((n, d))
    if kind == "duplicates":
        distinct = max(1, n // 20)
        return rng.uniform(-1, 1, (distinct, d))[rng.integers(distinct, size=n)]
    return rng.uniform(-1, 1, (n, d))


def run_cli(
    *args: str,
    results: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """``privlab ARGS`` in a fresh Python process, its output captured as text.

    Parameters
    ----------
    *args : str
        The command line after ``privlab``.
    results : path, optional
        The results directory (``PRIVLAB_RESULTS``); default: ``./results`` of ``cwd``.
    env : mapping, optional
        Variables added to (or overriding) this process's environment.
    cwd : path, optional
        The working directory (default: this process's).
    timeout : float
        Seconds before the process is killed (``subprocess.TimeoutExpired``).
    """
    full_env = {**os.environ, **(env or {})}
    if results is not None:
        full_env["PRIVLAB_RESULTS"] = str(results)
    return subprocess.run(
        [sys.executable, "-m", "privlab.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
    )


def reference_table(exp_id: str, *, profile: str = "quick", **read_csv) -> pd.DataFrame:
    """The committed reference table of experiment ``exp_id`` at ``profile`` (quick or paper)."""
    return pd.read_csv(reference_path(registry.get(exp_id), profile), **read_csv)


def write_project(
    root: str | os.PathLike[str], files: Mapping[str, str] | None = None, papers: Mapping[str, str] | None = None
) -> Path:
    """Write ``files`` (relative path -> text, dedented) under ``root``, a paper project; unless the
    files hold a ``pyproject.toml``, write one that declares ``papers`` (key -> experiment unit
    module; default: every top-level package of ``files`` whose ``__init__.py`` declares ``PAPER``,
    under its own name) in the entry-point group ``privlab.papers``."""
    root = Path(root)
    for rel, text in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    if not (root / "pyproject.toml").is_file():
        if papers is None:
            papers = {
                rel.split("/")[0]: rel.split("/")[0]
                for rel, text in (files or {}).items()
                if rel.count("/") == 1 and rel.endswith("/__init__.py") and "PAPER" in text
            }
        lines = [f'{key} = "{module}"' for key, module in papers.items()]
        text = "\n".join(
            [
                "[project]",
                f'name = "{root.name.replace("_", "-")}"',
                'version = "0.1"',
                "",
                '[project.entry-points."privlab.papers"]',
                *lines,
                "",
            ]
        )
        root.mkdir(parents=True, exist_ok=True)
        (root / "pyproject.toml").write_text(text)
    return root


@contextlib.contextmanager
def paper_root(
    root: str | os.PathLike[str], files: Mapping[str, str] | None = None, papers: Mapping[str, str] | None = None
) -> Iterator[Path]:
    """Write a paper project under ``root`` (`write_project`) and put it on ``PRIVLAB_PATH`` in this
    process until the block ends; the registry is reloaded on entry and exit, so the project's
    papers come and go with it."""
    root = write_project(root, files, papers)
    before = os.environ.get("PRIVLAB_PATH")
    os.environ["PRIVLAB_PATH"] = str(root)
    registry.reload()
    try:
        yield root
    finally:
        if before is None:
            os.environ.pop("PRIVLAB_PATH", None)
        else:
            os.environ["PRIVLAB_PATH"] = before
        registry.reload()


# ---------------------------------------------------------------------------------------
# the conformance harness
# ---------------------------------------------------------------------------------------
def conformance(
    paper: str, *, experiments: Sequence[str] = (), workers: int = 2, profiles: Sequence[str] = ("quick", "paper")
) -> None:
    """Check every experiment of ``paper`` the way privlab checks its own (`check_experiment`);
    an AssertionError lists every failure, one line each, experiment by experiment.

    Parameters
    ----------
    paper : str
        The paper's key (``privlab list`` shows it).
    experiments : sequence of str, optional
        Only these experiment ids of the paper (default: all of them).
    workers : int
        The smoke run is repeated with this many workers and must give the same bytes as with
        one (1: a single run).
    profiles : sequence of str
        The profiles whose committed references are read back (the quick one must exist).
    """
    chosen = registry.select(experiments, paper=paper)
    if not chosen:
        raise AssertionError(f"paper {paper} declares no experiment")
    failures = [line for exp in chosen for line in check_experiment(exp.id, workers=workers, profiles=profiles)]
    if failures:
        raise AssertionError(f"{len(failures)} conformance failure(s) of paper {paper}:\n" + "\n".join(failures))


def check_experiment(
    exp_id: str,
    *,
    workers: int = 2,
    results: str | os.PathLike[str] | None = None,
    profiles: Sequence[str] = ("quick", "paper"),
) -> list[str]:
    """Every way experiment ``exp_id`` falls short of the conformance contract, one line each
    (empty: it conforms):

    - its config exists at its id's path and composes at both profiles, and it declares its
      parameter contract;
    - every ledger id its config's claims and its figures name is an item of the paper's ledger;
    - its committed reference exists at the quick profile (and is read where it exists at the
      paper profile); read back from CSV, it decides every claim with a valid verdict (an ``info``
      with its note) and every figure drawn from it passes `privlab.figures.audit`;
    - its smoke config (``smoke=`` overrides) runs to a non-empty table with unique keys, every
      figure draws and every claim decides, and with ``workers`` workers the table is
      byte-identical (wall-clock columns, declared ``IGNORE``, aside).
    ``results`` is where the smoke runs cache (default: a temporary directory); ``profiles`` says
    whose references are read back (a paper-profile reference is read where it exists).
    """
    if results is None:
        with tempfile.TemporaryDirectory() as tmp:
            return check_experiment(exp_id, workers=workers, results=tmp, profiles=profiles)
    exp = registry.get(exp_id)
    paper = registry.paper_of(exp)
    failures: list[str] = []

    def failed(what: str, detail: str) -> None:
        failures.append(f"{exp_id}: {what}: {detail}")

    conf = paper.conf_dir / "experiment" / exp.paper / f"{exp.name}.yaml" if paper.conf_dir else None
    if conf is None or not conf.is_file():
        failed("config", f"no config at {conf}")
        return failures
    if not exp.params:
        failed("contract", "declares no parameter contract (params= of @experiment)")
    cfgs = {}
    for profile in runner.PROFILES:
        try:
            cfgs[profile] = runner.compose(exp_id, profile=profile)
        except PrivlabError as exc:
            failed("compose", f"at the {profile} profile: {exc}")
    if len(cfgs) < len(runner.PROFILES):
        return failures
    for line in ledger.unresolved(exp, cfgs["quick"]):
        failed("ledger", line.removeprefix(f"{exp_id}: "))
    for profile, cfg in cfgs.items():
        if profile not in profiles:
            continue
        path = check.reference_path(exp, profile)
        if not path.is_file():
            if profile == "quick":
                failed("reference", f"none at {path}; write it with 'privlab check --paper {exp.paper} --update'")
            continue
        try:
            table = check.read_reference(exp, path)
        except PrivlabError as exc:
            failed("reference", str(exc))
            continue
        failures += [f"{exp_id}: {profile} reference: {line}" for line in _decides(exp, table, cfg)]
        for name, fn in exp.figures.items():
            if not hasattr(fn, "audit"):
                failed("figure", f"{name} is not declared (privlab.figures.figure); it cannot be audited")
                continue
            for problem in fn.audit(table, cfg):
                failed(f"figure {name} of the {profile} reference", problem)
    try:
        cfg, table = _smoke(exp, 1, Path(results))
    except Exception as exc:  # the harness reports, it does not stop at the first fault
        failed("smoke run", runner.error_line(exc))
        return failures
    if table.empty:
        failed("smoke run", "an empty table")
    failures += [f"{exp_id}: smoke run: {line}" for line in _decides(exp, table, cfg)]
    for name, fn in exp.figures.items():
        failures += [f"{exp_id}: smoke run: {line}" for line in _draws(name, fn, table, cfg)]
    if workers != 1:
        try:
            _, parallel = _smoke(exp, workers, Path(results))
        except Exception as exc:
            failed(f"smoke run with {workers} workers", runner.error_line(exc))
            return failures
        timed = [c for c in table.columns if exp.tolerance(c).ignore]  # wall-clock columns: never comparable
        one, many = (runner.table_to_csv(t.drop(columns=timed)) for t in (table, parallel))
        if one != many:
            failed("workers", f"the smoke table differs with 1 and {workers} workers")
    return failures


def _smoke(exp: registry.Experiment, workers: int, results: Path):
    if workers > 1:
        # loky reuses its workers across calls: ones started before this paper's root was on PRIVLAB_PATH
        # (an earlier test, a notebook cell) cannot import it; the smoke run starts fresh ones, as a new
        # process would
        from joblib.externals.loky import get_reusable_executor  # loaded only when a pool starts

        get_reusable_executor().shutdown(wait=True)
    cfg = runner.compose(exp.id, [*exp.smoke, f"workers={workers}", "cache=false"])
    ctx = runner.make_context(cfg, results / f"workers{workers}", log=lambda m: None)
    return cfg, runner.run_table(exp, cfg, ctx)


def _decides(exp: registry.Experiment, table: pd.DataFrame, cfg) -> list[str]:
    """What is wrong with the claims decided from ``table``: an exception, an unknown verdict, an
    ``info`` without its note."""
    try:
        found = exp.check_claims(table, cfg)
    except Exception as exc:
        return [f"its claims cannot be decided: {error_line(exc)}"]
    bad = [f"claim {c.claim!r} has verdict {c.verdict!r}" for c in found if c.verdict not in claims.VERDICTS]
    silent = [c for c in found if c.verdict == "info" and not c.note]
    return bad + [f"info claim {c.claim!r} says nothing of why (no note)" for c in silent]


def _draws(name: str, fn, table: pd.DataFrame, cfg) -> list[str]:
    try:
        fig = figures.draw(fn, table, cfg)  # as the runner draws it, with the run's config
    except Exception as exc:
        return [f"figure {name} cannot be drawn: {error_line(exc)}"]
    import matplotlib.pyplot as plt  # about 0.3 s to import; only drawing needs it

    empty = [] if fig.axes else [f"figure {name} has no axes"]
    plt.close(fig)
    return empty


def run_conformance(ids: list[str], *, paper: str | None, jobs: int = 2) -> int:
    """``privlab check --conformance``: the conformance harness (`privlab.testing.check_experiment`)
    over each chosen experiment, one row per experiment as it finishes, every failure below its row;
    1 on any failure."""
    exps = registry.select(ids, paper=paper)
    width = max((len(e.id) for e in exps), default=10)
    print(f"{'experiment':<{width}}  {'status':<8}  {'seconds':>7}  detail", flush=True)
    failed = 0
    for exp in exps:
        start = time.perf_counter()
        failures = check_experiment(exp.id, workers=jobs)
        failed += bool(failures)
        detail = f"{len(failures)} failure(s)" if failures else f"conforms (1 and {jobs} workers)"
        print(f"{exp.id:<{width}}  {'FAIL' if failures else 'OK':<8}  {time.perf_counter() - start:7.1f}  {detail}")
        for line in failures:
            print(f"    {line.removeprefix(exp.id + ': ')}", flush=True)
    if failed:
        fail(f"{failed} of {len(exps)} experiment(s) do not conform", 1)
    return 0
