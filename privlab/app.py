"""privlab's Hydra application: ``privlab run ID [overrides] [flags]``, one run or a sweep.

One path for a command line. Hydra's own parser reads the arguments once (`parse`); privlab composes
every job's config before any job starts (`prevalidate`: bad input is one line before anything runs);
then Hydra runs the application as it runs any other: a run calls `hydra_task`, a ``--multirun``
hands its jobs to a Hydra launcher: privlab's pool (``hydra/launcher=privlab``, the default;
`hydra_plugins.privlab_launcher`, which runs them through `privlab.multirun`) or joblib, submitit,
ray. Each job is a call of `privlab.runner.execute`; a failed job of a sweep is one line and a
marker, never the end of the sweep. Nothing rewrites ``sys.argv``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
from pathlib import Path

from hydra import version
from hydra._internal.utils import _run_hydra, get_args_parser
from hydra.core.hydra_config import HydraConfig
from hydra.core.plugins import Plugins
from hydra.errors import HydraException
from hydra.types import RunMode
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from hydra_plugins.privlab_launcher.privlab_launcher import PrivlabLauncher, PrivlabSweeper

from . import claims as claims_mod
from . import executors, registry, runner, store, sweeps
from . import multirun as multirun_mod
from . import overrides as overrides_mod
from .context import die_with_parent
from .errors import PrivlabError, fail
from .overrides import check_launcher, override_value, sweep_jobs
from .params import Int


def prevalidate(exp_id: str, overrides: list[str], multirun: bool) -> None:
    """Compose the config of every job before any job starts (one Hydra composition per config-group
    choice, `privlab.multirun.compose_jobs`, whose configs privlab's launcher then runs)."""
    params = [o for o in overrides if not overrides_mod.is_hydra(o)]
    for item in overrides:
        if item.startswith("hydra/launcher="):
            check_launcher(item.split("=", 1)[1])
    jobs = sweep_jobs(params) if multirun else [params]
    if len(jobs) > 1:  # every job, not a sample: one bad job refuses the sweep
        multirun_mod.compose_jobs(exp_id, jobs)
    else:
        runner.compose(exp_id, jobs[0])
    hydra_part = [o for o in overrides if overrides_mod.is_hydra(o)]
    if hydra_part:  # launcher settings and the like, checked with the first job
        full = runner.compose(exp_id, jobs[0] + hydra_part, hydra_node=True)
        key = WORKERS_KEYS.get(launcher(overrides), "")
        workers = OmegaConf.select(full, key, default=None) if key else None
        if workers is not None and multirun:
            Int(nonzero=True).check(key, workers)


def sweep_dir_for(exp_id: str, params: list[str], results_dir: Path) -> Path:
    """A stable sweep directory per (experiment, sweep): rerunning the same sweep resumes it."""

    digest = hashlib.sha256("\n".join([exp_id, *sorted(params)]).encode()).hexdigest()[:10]
    return results_dir / "sweeps" / exp_id / digest


FAILED_MARKERS = sweeps.FAILED_MARKERS


def hydra_task(cfg) -> None:
    """The application's task: one job (a run, or a job of a sweep that a launcher other than privlab's runs)."""

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


def remove_empty(path: Path, stop: Path) -> None:
    """Remove ``path`` and its parents below ``stop`` while they are empty (Hydra made them for
    a run that then failed: a refused run leaves nothing behind)."""
    path, stop = path.resolve(), stop.resolve()
    while path != stop and stop in path.parents and path.is_dir() and not any(path.iterdir()):
        path.rmdir()
        path = path.parent


def parse(argv: list[str]) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """``privlab run``'s arguments after the id, parsed once by Hydra's own parser (flags and overrides
    in any order); a flag it cannot honour is one line (`privlab.overrides.check_flags`)."""
    overrides_mod.check_flags(argv)  # before Hydra's parser prints its usage
    parser = get_args_parser()
    args = parser.parse_intermixed_args(argv)
    args.overrides = overrides_mod.normalize(args.overrides)  # plain paths quoted; key={} empties the mapping
    return parser, args


def launcher(overrides: list[str]) -> str:
    """The Hydra launcher of a sweep with these overrides (privlab's own unless one is named)."""
    return override_value(overrides, "hydra/launcher") or "privlab"


#: where each launcher reads its number of worker processes
WORKERS_KEYS = {"privlab": "hydra.launcher.workers", "joblib": "hydra.launcher.n_jobs"}


def run(exp_id: str, argv: list[str]) -> int:
    """``privlab run ID [overrides] [flags]``: one experiment (or a sweep with ``--multirun``), a Hydra
    application, every job's config checked before any job runs."""
    exp = registry.get(exp_id)
    cluster, argv = executors.pop_cluster(argv)  # --cluster: the sweep's jobs on a cluster
    parser, args = parse(argv)
    overrides, multirun = args.overrides, bool(args.multirun)
    if cluster is not None:
        executors.check_cluster(cluster, sweep=multirun, own=launcher(overrides) == "privlab")
        overrides = [*overrides, f"hydra.launcher.cluster={runner.quote_override_value(cluster)}"]
    asks = args.cfg or args.info or args.help or args.hydra_help
    if args.cfg or args.info:
        prevalidate(exp.id, overrides, multirun)  # a config that does not compose: one line, not Hydra's report
    extra, sweep_dir = [], None
    if not asks:
        prevalidate(exp.id, overrides, multirun)  # privlab's launcher, in this process, reuses the configs
        given_results = override_value(overrides, "results_dir")
        results_dir = Path(given_results) if given_results else runner.default_results_dir()
        store.probe_writable(results_dir, "results_dir")
        run_dir = override_value(overrides, "hydra.run.dir")
        if run_dir and not multirun:
            store.probe_writable(Path(run_dir), "hydra.run.dir")
        if multirun:
            given = override_value(overrides, "hydra.sweep.dir")
            params = [o for o in overrides if not overrides_mod.is_hydra(o)]
            sweep_dir = Path(given) if given else sweep_dir_for(exp.id, params, results_dir)
            store.probe_writable(sweep_dir, "the sweep directory")
            extra = [] if given else [f"hydra.sweep.dir={runner.quote_override_value(str(sweep_dir))}"]
            print(f"sweep directory: {sweep_dir} (rerun the same command to resume)", flush=True)
            shutil.rmtree(sweep_dir / FAILED_MARKERS, ignore_errors=True)
    args.overrides = [f"experiment={exp.id}", *runner.searchpath_override(), *extra, *overrides]
    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra's own errors raised, and said in one line below
    version.setbase("1.3")
    for plugin in (PrivlabLauncher, PrivlabSweeper):  # Hydra's scan of hydra_plugins misses an editable install
        Plugins.instance().register(plugin)
    try:  # what hydra.main does with sys.argv, with the arguments parsed above
        _run_hydra(
            args=args,
            args_parser=parser,
            task_function=hydra_task,
            config_path=str(runner.conf_dir()),
            config_name="config",
        )
    except (HydraException, OmegaConfBaseException, OSError, ValueError) as exc:
        raise PrivlabError(runner.hydra_error_line(exc)) from None
    if sweep_dir is not None and (sweep_dir / FAILED_MARKERS).is_dir():
        failed = sorted((sweep_dir / FAILED_MARKERS).iterdir(), key=lambda p: int(p.name))
        fail(
            f"{len(failed)} job(s) of the sweep failed: {', '.join(p.name for p in failed)} "
            "(errors above); the others completed",
            2,
        )
    return 0
