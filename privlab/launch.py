"""The runner's command-line side: a run or sweep through Hydra, and ``privlab reproduce``.

`privlab.runner` composes configs and executes one experiment; this module launches them as
the command line asks. ``privlab run`` hands Hydra its overrides (a sweep with ``--multirun``,
any Hydra launcher), after composing every job's config so that bad input is refused before
any job starts; each job is a call of `privlab.runner.execute`. A failed job of a sweep is
one line and a marker, never the end of the sweep. ``reproduce`` runs experiments in turn and
writes the report.
"""

from __future__ import annotations

import itertools
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

from . import claims as claims_mod
from . import multirun as multirun_mod
from . import overrides as overrides_mod
from . import registry, runner, store, sweeps
from ._validation import PrivlabError
from .params import Int


def fail(message: str, code: int = 2) -> NoReturn:
    """End the command: one line ``privlab: error: ...`` on stderr and exit status ``code``."""
    print(f"privlab: error: {message}", file=sys.stderr)
    sys.exit(code)


def sweep_jobs(overrides: list[str]) -> list[list[str]]:
    """Expand sweep overrides (a=1,2 b=x,y) into the override lists of each job."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except (HydraException, ValueError) as exc:
        raise PrivlabError(runner.hydra_error_line(exc)) from None
    choices = []
    for ov in parsed:
        if ov.is_sweep_override():
            values = overrides_mod.sweep_values(ov)  # counted before listed; interval/glob: one line
            choices.append([f"{ov.get_key_element()}={v}" for v in values])
        else:
            choices.append([str(ov.input_line)])
    overrides_mod.job_count(choices)
    return [list(c) for c in itertools.product(*choices)]


def _one_line_hydra(task) -> None:
    """Run a ``hydra.main`` task with Hydra's own errors (a launcher's setting, a run directory it cannot
    make) raised rather than printed as Hydra's multi-line report, and said in one line."""
    import os

    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    os.environ["HYDRA_FULL_ERROR"] = "1"
    try:
        task()
    except (HydraException, OmegaConfBaseException, OSError, ValueError) as exc:
        raise PrivlabError(runner.hydra_error_line(exc)) from None


def prevalidate(exp_id: str, overrides: list[str], multirun: bool, *, composed_later: bool = False) -> None:
    """Compose the config of every job before any job starts (one Hydra composition per config-group
    choice, `privlab.multirun.compose_jobs`); ``composed_later``: privlab's own launcher composes
    every job itself before the first starts, so only the sweep's shape is checked here."""
    params = [o for o in overrides if not o.startswith(("hydra", "+hydra", "~hydra"))]
    for item in overrides:
        if item.startswith("hydra/launcher="):
            check_launcher(item.split("=", 1)[1])
    jobs = sweep_jobs(params) if multirun else [params]
    if len(jobs) > 1 and not composed_later:  # every job, not a sample: one bad job refuses the sweep
        multirun_mod.compose_jobs(exp_id, jobs)
    elif not composed_later:
        runner.compose(exp_id, jobs[0])
    hydra_part = [o for o in overrides if o.startswith(("hydra", "+hydra", "~hydra"))]
    if hydra_part:  # launcher settings and the like, checked with the first job
        from omegaconf import OmegaConf

        full = runner.compose(exp_id, jobs[0] + hydra_part, hydra_node=True)
        n_jobs = OmegaConf.select(full, "hydra.launcher.n_jobs", default=None)
        if n_jobs is not None and multirun:
            Int(nonzero=True).check("hydra.launcher.n_jobs", n_jobs)


# launcher -> (plugin module, what to install)
LAUNCHERS = {
    "joblib": ("hydra_plugins.hydra_joblib_launcher", "hydra-joblib-launcher"),
    "slurm": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
    "submitit_slurm": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
    "submitit_local": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
    "ray": ("hydra_plugins.hydra_ray_launcher", "hydra-ray-launcher (pip install -e '.[ray]')"),
}


def check_launcher(name: str) -> None:
    """A launcher must be known and its plugin installed, before any job starts."""
    import importlib.util

    if name == "basic":
        return
    if name not in LAUNCHERS:
        raise PrivlabError(f"hydra/launcher must be one of basic, {', '.join(sorted(LAUNCHERS))}; got {name!r}")
    module, package = LAUNCHERS[name]
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise PrivlabError(f"hydra/launcher={name} is not installed: install {package}")


def sweep_dir_for(exp_id: str, params: list[str], results_dir: Path) -> Path:
    """A stable sweep directory per (experiment, sweep): rerunning the same sweep resumes it."""
    import hashlib

    digest = hashlib.sha256("\n".join([exp_id, *sorted(params)]).encode()).hexdigest()[:10]
    return results_dir / "sweeps" / exp_id / digest


FAILED_MARKERS = sweeps.FAILED_MARKERS


def _hydra_task(cfg) -> None:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from .context import die_with_parent

    die_with_parent()  # a job run by a launcher's worker process ends with the launcher
    hc = HydraConfig.get()
    out_dir = Path(hc.runtime.output_dir)
    multirun = hc.mode == RunMode.MULTIRUN
    if multirun and runner.is_complete(out_dir, cfg):
        print(f"{cfg.id} job {hc.job.num}: complete in {out_dir}, skipped", flush=True)
        return
    overrides = "".join(f"- {o}\n" for o in hc.overrides.task)
    try:
        outcome = runner.execute(
            cfg.id,
            cfg,
            out_dir=out_dir,
            extra_files={"overrides.yaml": overrides},
            figures=not multirun or bool(cfg.get("sweep_figures", False)),  # a sweep's jobs: sweep-report draws
        )
    except Exception as exc:  # a user error (PrivlabError) or a fault of the experiment: one line each
        remove_empty(out_dir, Path(cfg.results_dir))
        user_error = isinstance(exc, PrivlabError)
        exp = registry.get(cfg.id)
        if not multirun:
            log = None if user_error else runner.record_error(Path(cfg.results_dir), exp, exc)  # a fault's traceback
            reason = runner.error_line(exc) + (f" (traceback: {log})" if log else "")
            fail(reason if user_error else f"{cfg.id}: {reason}", 2 if user_error else 1)
        # a failed job must not stop the others: one line, its traceback and marker as privlab's own launcher's
        reason = multirun_mod.record_failure(Path(hc.sweep.dir), hc.job.num, exp, exc)
        print(multirun_mod.failure_line(hc.job.num, hc.overrides.task[1:], reason), file=sys.stderr, flush=True)
        return
    job = f" job {hc.job.num}" if multirun else ""
    print(
        f"{cfg.id}{job}: {len(outcome.table)} rows in {outcome.wall_time:.1f} s -> {outcome.out_dir}"
        + (f" (claims: {claims_mod.counts_text(claims_mod.counts(outcome.claims))})" if outcome.claims else ""),
        flush=True,
    )


def override_value(overrides: list[str], key: str) -> str | None:
    """The value the last override of ``key`` gives, as Hydra parses it (quotes removed)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    found = None
    for ov in OverridesParser.create().parse_overrides([o for o in overrides if o.split("=", 1)[0] == key]):
        found = str(ov.value())
    return found


def remove_empty(path: Path, stop: Path) -> None:
    """Remove ``path`` and its parents below ``stop`` while they are empty (Hydra made them for
    a run that then failed: a refused run leaves nothing behind)."""
    path, stop = path.resolve(), stop.resolve()
    while path != stop and stop in path.parents and path.is_dir() and not any(path.iterdir()):
        path.rmdir()
        path = path.parent


def run(exp_id: str, hydra_args: list[str]) -> int:
    """``privlab run ID [overrides] [flags]``: one experiment (or a sweep with ``--multirun``)
    through Hydra, every job's config checked before any job runs."""
    import hydra

    from . import executors

    exp = registry.get(exp_id)
    cluster, hydra_args = executors.pop_cluster(hydra_args)  # --cluster: the sweep's jobs on a cluster
    multirun = "--multirun" in hydra_args or "-m" in hydra_args
    flags_with_values = {
        "--cfg",
        "-c",
        "--package",
        "-p",
        "--config-name",
        "-cn",
        "--config-dir",
        "-cd",
        "--info",
        "-i",
        "--experimental-rerun",
    }
    overrides, flags, args_iter = [], [], iter(hydra_args)
    for a in args_iter:  # Hydra wants overrides before flags; users write them in any order
        if a in flags_with_values:
            flags += [a, *(v for v in [next(args_iter, None)] if v is not None)]
        elif a.startswith("-"):
            flags.append(a)
        else:
            overrides.append(a)
    overrides = overrides_mod.normalize(overrides)  # plain paths quoted; key={} empties the mapping
    overrides_mod.check_flags(flags)  # before Hydra's argparse prints its usage
    if any(a in ("--cfg", "-c", "--info", "-i") for a in flags):
        prevalidate(exp.id, overrides, multirun)  # a config that does not compose: one line, not Hydra's report
    extra, sweep_dir = [], None
    # --multirun without a Hydra launcher named: privlab's own (privlab.multirun), same directories
    own = multirun and multirun_mod.uses_own_launcher(overrides) and set(flags) <= {"--multirun", "-m"}
    if cluster is not None:
        executors.check_cluster(cluster, sweep=multirun, own=own)
    if not any(a in ("--cfg", "-c", "--help", "-h", "--info") for a in hydra_args):
        prevalidate(exp.id, overrides, multirun, composed_later=own)
        given_results = override_value(overrides, "results_dir")
        results_dir = Path(given_results) if given_results else runner.default_results_dir()
        store.probe_writable(results_dir, "results_dir")
        run_dir = override_value(overrides, "hydra.run.dir")
        if run_dir and not multirun:
            store.probe_writable(Path(run_dir), "hydra.run.dir")
        if multirun:
            given = override_value(overrides, "hydra.sweep.dir")
            params = [o for o in overrides if not o.startswith(("hydra", "+hydra", "~hydra"))]
            sweep_dir = Path(given) if given else sweep_dir_for(exp.id, params, results_dir)
            store.probe_writable(sweep_dir, "the sweep directory")
            extra = [] if given else [f"hydra.sweep.dir={runner.quote_override_value(str(sweep_dir))}"]
            print(f"sweep directory: {sweep_dir} (rerun the same command to resume)", flush=True)
            shutil.rmtree(sweep_dir / FAILED_MARKERS, ignore_errors=True)
            if own:
                multirun_mod.launch_sweep(exp.id, overrides, sweep_dir, cluster=cluster)
    if sweep_dir is None or not own:
        sys.argv = ["privlab run", f"experiment={exp.id}", *runner.searchpath_override(), *extra, *overrides, *flags]
        task = hydra.main(config_path=str(runner.conf_dir()), config_name="config", version_base="1.3")(_hydra_task)
        _one_line_hydra(task)
    if sweep_dir is not None and (sweep_dir / FAILED_MARKERS).is_dir():
        failed = sorted((sweep_dir / FAILED_MARKERS).iterdir(), key=lambda p: int(p.name))
        fail(
            f"{len(failed)} job(s) of the sweep failed: {', '.join(p.name for p in failed)} "
            "(errors above); the others completed",
            2,
        )
    return 0


def reproduce(
    ids: list[str],
    *,
    paper: str | None,
    profile: str,
    jobs: int | None,
    results: str | None,
    force: bool,
    cluster: str | None = None,
) -> int:
    """``privlab reproduce``: every chosen experiment (a fault stops only its own), then the report.

    With ``jobs`` (``--jobs N``) the experiments run one at a time, N worker processes inside
    each; without it several run at once, one per core (`privlab.reproduce_pool`)."""
    from . import report, reproduce_pool

    if profile not in runner.PROFILES:
        raise PrivlabError(f"--profile must be one of {', '.join(runner.PROFILES)}; got {profile!r}")
    if cluster is not None:
        from . import executors

        executors.check_cluster(cluster)
    exps = registry.select(ids, paper=paper)
    if results is not None and not results.strip():
        raise PrivlabError("--results is empty; give a directory (default: ./results)")
    results_dir = store.writable_dir(Path(results) if results else runner.default_results_dir(), "--results")
    extra = [f"results_dir={runner.quote_override_value(str(results_dir))}"]
    extra += [f"n_jobs={jobs}"] if jobs is not None else []
    configs = [(exp, runner.compose(exp.id, extra, profile=profile)) for exp in exps]  # bad input: before any run
    start = time.perf_counter()
    total: dict[str, int] = {}
    failures: list[str] = []
    longest = ("", 0.0)
    todo = []
    for k, (exp, cfg) in enumerate(configs, start=1):
        if not force and runner.is_complete(results_dir / exp.paper / exp.name, cfg, exp):
            head = f"[{k}/{len(configs)}, {_clock(time.perf_counter() - start)}] {exp.id}"
            print(f"{head}: complete for this config, seed and code, skipped (--force reruns it)", flush=True)
            runner.clear_error(results_dir, exp)
        else:
            todo.append((exp, cfg))
    workers = reproduce_pool.default_workers(todo) if jobs is None else 1
    done = len(configs) - len(todo)

    def started(exp: registry.Experiment) -> None:
        slowest = f"; longest so far {longest[0]} {longest[1]:.0f} s" if longest[0] else ""
        at = f"{_clock(time.perf_counter() - start)}"
        print(f"[{done + 1}/{len(configs)}, {at}] {exp.id}: running ({profile} profile{slowest})", flush=True)

    def in_turn() -> Iterator[reproduce_pool.Outcome]:
        for exp, cfg in todo:
            started(exp)
            yield reproduce_pool.run_one(exp.id, cfg, str(results_dir))

    if cluster is not None:  # every experiment a task of the cluster's (each paper's in order)
        outcomes = reproduce_pool.run_concurrently(todo, results_dir, workers, started, cluster=cluster)
    else:
        outcomes = reproduce_pool.run_concurrently(todo, results_dir, workers, started) if workers > 1 else in_turn()
    for outcome in outcomes:
        done += 1
        head = f"[{done}/{len(configs)}, {_clock(time.perf_counter() - start)}] {outcome.exp_id}"
        if not outcome.ok:
            failures.append(outcome.exp_id)
            print(f"privlab: error: {outcome.exp_id}: {outcome.error}", file=sys.stderr, flush=True)
            continue
        if outcome.wall_time > longest[1]:
            longest = (outcome.exp_id, outcome.wall_time)
        total = {v: total.get(v, 0) + n for v, n in outcome.tally.items()}
        note = f"; claims: {claims_mod.counts_text(outcome.tally)}" if outcome.tally else ""
        print(f"{head}: {outcome.rows} rows, {outcome.wall_time:.1f} s{note}", flush=True)
    path = report.write_report(results_dir)
    if any(total.values()):
        print(f"claims in all: {claims_mod.counts_text(total)}")
    print(f"report: {path} and {path.with_name(report.HTML_NAME)} ({_clock(time.perf_counter() - start)} in all)")
    if failures:
        fail(f"{len(failures)} experiment(s) failed: {', '.join(failures)}; the others completed", 1)
    return 0


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"
