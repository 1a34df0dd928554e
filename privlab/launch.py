"""The commands that run experiments: ``privlab run`` (`privlab.app`, Hydra's application) and
``privlab reproduce``, which runs experiments in turn (or side by side, `privlab.reproduce_pool`)
and writes the report.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from . import claims as claims_mod
from . import executors, registry, report, reproduce_pool, runner, store
from .app import prevalidate, run, sweep_dir_for
from .errors import PrivlabError, fail
from .overrides import check_launcher, override_value, sweep_jobs

__all__ = ["run", "reproduce"]
# where they were until now, kept for one release
__all__ += ["check_launcher", "fail", "override_value", "prevalidate", "sweep_dir_for", "sweep_jobs"]


def reproduce(
    ids: list[str],
    *,
    paper: str | None,
    profile: str,
    workers: int | None,
    results: str | None,
    force: bool,
    cluster: str | None = None,
) -> int:
    """``privlab reproduce``: every chosen experiment (a fault stops only its own), then the report.

    With ``workers`` (``--workers N``) the experiments run one at a time, N worker processes inside
    each; without it several run at once, one per core (`privlab.reproduce_pool`)."""
    if profile not in runner.PROFILES:
        raise PrivlabError(f"--profile must be one of {', '.join(runner.PROFILES)}; got {profile!r}")
    if cluster is not None:
        executors.check_cluster(cluster)
    exps = registry.select(ids, paper=paper)
    if results is not None and not results.strip():
        raise PrivlabError("--results is empty; give a directory (default: ./results)")
    results_dir = store.writable_dir(Path(results) if results else runner.default_results_dir(), "--results")
    extra = [f"results_dir={runner.quote_override_value(str(results_dir))}"]
    extra += [f"workers={workers}"] if workers is not None else []
    configs, failures = [], []
    for exp in exps:  # bad input: before any run; a declared experiment without its config: its own failure
        try:
            configs.append((exp, runner.compose(exp.id, extra, profile=profile)))
        except runner.MissingConfig as exc:
            if len(exps) == 1:
                raise
            failures.append(exp.id)
            print(f"privlab: error: {exc}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    total: dict[str, int] = {}
    longest = ("", 0.0)
    todo = []
    for k, (exp, cfg) in enumerate(configs, start=1):
        if not force and runner.is_complete(results_dir / exp.paper / exp.name, cfg, exp):
            head = f"[{k}/{len(configs)}, {_clock(time.perf_counter() - start)}] {exp.id}"
            print(f"{head}: complete for this config, seed and code, skipped (--force reruns it)", flush=True)
            runner.clear_error(results_dir, exp)
        else:
            todo.append((exp, cfg))
    side_by_side = reproduce_pool.default_workers(todo) if workers is None else 1
    done = begun = len(configs) - len(todo)

    def started(exp: registry.Experiment) -> None:
        nonlocal begun
        begun += 1
        slowest = f"; longest so far {longest[0]} {longest[1]:.0f} s" if longest[0] else ""
        at = f"{_clock(time.perf_counter() - start)}"
        print(f"[{begun}/{len(configs)}, {at}] {exp.id}: running ({profile} profile{slowest})", flush=True)

    if cluster is not None:  # every experiment a task of the cluster's (each paper's in order)
        outcomes = reproduce_pool.run_concurrently(todo, results_dir, side_by_side, started, cluster=cluster)
    else:
        outcomes = (
            reproduce_pool.run_concurrently(todo, results_dir, side_by_side, started)
            if side_by_side > 1
            else reproduce_pool.run_in_turn(todo, results_dir, started)
        )
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
