"""The jobs of a sweep in a pool of worker processes on this machine: privlab's Hydra launcher.

``privlab run ID a=1,2 b=x,y --multirun`` is a Hydra application (`privlab.app`) whose default launcher,
``hydra/launcher=privlab`` (`hydra_plugins.privlab_launcher`), hands the sweep's jobs to `run_sweep`
(another launcher named, ``hydra/launcher=joblib`` say, runs them its way). What it adds to Hydra's
joblib launcher, for sweeps of thousands of short jobs:

* one Hydra composition per distinct set of config-group choices, not per job: a job's plain
  ``key=value`` overrides are applied to that composition as Hydra applies them
  (``OmegaConf.update(..., merge=True)``), then resolved and validated as `privlab.runner.compose`
  does (`Composer`; a test checks the two agree). Every job's config is composed and validated
  before any job starts;
* jobs go to the workers a few at a time and their results come back as small tuples, so memory
  does not grow with the number of jobs; each finished job's table is added to the sweep's
  Parquet store (`privlab.sweep_store`) by the worker that ran it;
* a progress bar over jobs with the time left (a line per tenth of the sweep when stderr is not a
  terminal);
* a job that fails, or whose worker process dies, is one line and a log (``.errors/<job>.log``),
  never the end of the sweep: a worker that dies takes only its own jobs (each is retried once in
  a fresh worker) down.

The job directories, their numbering, the skip of complete jobs (resume) and every file a job
writes are those of a job that another launcher runs (`privlab.app.hydra_task`), so a sweep started
with one launcher resumes with another.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException
from tqdm import tqdm

from . import claims as claims_mod
from . import registry, runner, sweep_store
from ._pools import RenewablePool
from ._validation import PrivlabError
from .context import die_with_parent
from .executors import compute_files, make_executor, one_line_warnings, write_files
from .sweep_store import mark_failed

ERRORS = ".errors"
COMPOSE_PROGRESS = 500  # from this many jobs, checking every job's config says how far it got


# ---------------------------------------------------------------------------------------
# composing many jobs
# ---------------------------------------------------------------------------------------
class Composer:
    """The resolved, validated configs of many jobs of one experiment, fast.

    A job's overrides split in two: the *structural* ones (a config group such as ``dataset=acs``
    or ``mechanism=[a,b]``, or any ``+``/``~`` override) and plain ``key=value`` ones. Hydra
    composes each distinct list of structural overrides once; the plain ones are applied to it
    with ``OmegaConf.update(cfg, key, value, merge=True)``, which is what Hydra's config loader
    does with them after composing, then the config is resolved and validated as
    `runner.compose` does (`runner.resolved_container`) and the plain overrides are undone for
    the next job. The result is the config `runner.compose` gives (``tests/core/test_sweep_engine.py``
    compares them). An override that does not apply (an unknown key) is composed by
    `runner.compose`, for its one-line error.
    """

    def __init__(self, exp_id: str) -> None:
        self.exp = registry.get(exp_id)
        # structural overrides -> (Hydra's full config, the experiment's part of it, that part as a dict)
        self._bases: dict[tuple[str, ...], tuple[DictConfig, DictConfig, dict]] = {}
        self._hydra: tuple[tuple[str, ...], int] | None = None  # the base whose Hydra config is set, and its id
        roots = [runner.conf_dir()] + [Path(p.conf_dir) for p in registry.papers().values() if p.conf_dir]
        self._roots = list(dict.fromkeys(roots))

    def _is_group(self, key: str) -> bool:
        path = key.replace(".", "/")
        return key == "hydra" or key.startswith("hydra.") or any((root / path).is_dir() for root in self._roots)

    def compose(self, overrides: Sequence[str]) -> DictConfig:
        """The config `runner.compose(exp_id, overrides)` gives."""
        cfg = OmegaConf.create(self.container(overrides))
        OmegaConf.set_struct(cfg, True)
        return cfg

    def container(self, overrides: Sequence[str]) -> dict:
        """`compose` as a plain dict (what a job's worker receives)."""
        overrides = list(overrides)
        try:
            parsed = OverridesParser.create().parse_overrides(overrides)
        except (HydraException, ValueError):
            return self._by_hydra(overrides)  # its one-line error
        if any(ov.is_add() or ov.is_delete() or ov.is_force_add() or ov.package is not None for ov in parsed):
            return self._by_hydra(overrides)  # order-sensitive edits: Hydra composes them
        structural = tuple(o for o, ov in zip(overrides, parsed) if self._is_group(ov.key_or_group))
        plain = [(ov.key_or_group, ov.value()) for ov in parsed if not self._is_group(ov.key_or_group)]
        if structural not in self._bases:
            full = runner.compose(self.exp.id, list(structural), hydra_node=True)
            app = runner.app_part(full)
            raw = OmegaConf.to_container(app, resolve=False)
            assert isinstance(raw, dict)
            self._bases[structural] = (full, app, raw)
        full, app, raw = self._bases[structural]
        done: list[tuple[str, Any]] = []
        try:
            for key, value in plain:
                old = _raw_get(raw, key)
                if old is _ABSENT or isinstance(old, dict) or isinstance(value, dict):
                    return self._by_hydra(overrides)  # an unknown key (Hydra's message), or a merge of mappings
                OmegaConf.update(app, key, value, merge=True)
                done.append((key, old))
            # setting Hydra's config copies it (tens of ms): only when another one was set since
            current = (structural, id(HydraConfig.instance().cfg))
            data = runner.resolved_container(self.exp, app, None if current == self._hydra else full)
            self._hydra = (structural, id(HydraConfig.instance().cfg))
            return data
        except OmegaConfBaseException:
            return self._by_hydra(overrides)  # a value the node refuses: Hydra's message
        finally:
            for key, old in reversed(done):
                OmegaConf.update(app, key, old, merge=False)

    def _by_hydra(self, overrides: list[str]) -> dict:
        self._hydra = None
        data = OmegaConf.to_container(runner.compose(self.exp.id, overrides), resolve=True)
        assert isinstance(data, dict)
        return data


_ABSENT = object()


def _raw_get(raw: dict, key: str) -> Any:
    """The unresolved value at dotted ``key`` of a config's dict (`_ABSENT` if there is none)."""
    node: Any = raw
    for part in key.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _ABSENT
    return node


# ---------------------------------------------------------------------------------------
# one job (in a worker process, or in this one)
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JobResult:
    """What a job sends back: its number, ``done`` / ``skipped`` / ``failed``, and its line."""

    num: int
    status: str
    line: str
    seconds: float = 0.0


def job_overrides_text(exp_id: str, overrides: Sequence[str]) -> str:
    """``overrides.yaml`` of a job, as the Hydra path writes it (``experiment=`` first)."""
    return "".join(f"- {o}\n" for o in [f"experiment={exp_id}", *overrides])


def failure_line(num: int, overrides: Sequence[str], reason: str) -> str:
    """The one line a failed job of a sweep prints."""
    return f"privlab: error: job {num} ({' '.join(overrides)}): {reason}"


def record_failure(sweep_dir: Path, num: int, exp: registry.Experiment, exc: BaseException) -> str:
    """Leave the marker of failed job ``num`` (and, for a fault, its traceback); the reason in one line."""
    log = None
    if not isinstance(exc, PrivlabError):  # a fault: its traceback goes to a file, not the terminal
        log = runner.atomic_write_text(sweep_dir / ERRORS / f"{num}.log", runner.traceback_text(exp, exc))
    mark_failed(sweep_dir, num)
    return runner.error_line(exc) + (f" (traceback: {log})" if log else "")


def run_job(exp_id: str, num: int, overrides: Sequence[str], config: dict, sweep_dir: str) -> JobResult:
    """Run job ``num`` of a sweep (its config composed and validated already) unless its complete
    result is there; add its table to the sweep's store. Never raises: a failure is a `JobResult`."""
    die_with_parent()  # a worker whose sweep was killed stops too
    one_line_warnings(f"{exp_id} job {num}")
    start = time.perf_counter()
    sweep = Path(sweep_dir)
    out_dir = sweep / str(num)
    exp = registry.get(exp_id)
    try:
        cfg = OmegaConf.create(config)
        OmegaConf.set_struct(cfg, True)
        if runner.is_complete(out_dir, cfg):
            sweep_store.ensure_part(sweep, num)
            return JobResult(num, "skipped", f"{exp_id} job {num}: complete in {out_dir}, skipped")
        outcome = runner.execute(
            exp_id,
            cfg,
            out_dir=out_dir,
            log=lambda message: None,  # cache hits and the like: not a sweep's business
            extra_files={"overrides.yaml": job_overrides_text(exp_id, overrides)},
            figures=bool(cfg.get("sweep_figures", False)),
            durable=False,  # no fsync: a job torn by a power failure fails its manifest and runs again
        )
        sweep_store.write_part(sweep, num)
    except Exception as exc:  # a user error or a fault of the experiment: one line, the sweep goes on
        reason = record_failure(sweep, num, exp, exc)
        return JobResult(num, "failed", failure_line(num, overrides, reason), time.perf_counter() - start)
    tally = claims_mod.counts(outcome.claims)
    claims = f" (claims: {claims_mod.counts_text(tally)})" if outcome.claims else ""
    line = f"{exp_id} job {num}: {len(outcome.table)} rows in {outcome.wall_time:.1f} s -> {out_dir}{claims}"
    return JobResult(num, "done", line, time.perf_counter() - start)


def run_job_remote(exp_id: str, num: int, overrides: Sequence[str], config: dict) -> tuple[JobResult, Any, str]:
    """`run_job` on a cluster's worker (no shared file system): the job's files come back
    (`privlab.executors.Files`, None on a failure), with a failure's traceback text."""
    one_line_warnings(f"{exp_id} job {num}")
    start = time.perf_counter()
    cfg = OmegaConf.create(config)
    OmegaConf.set_struct(cfg, True)

    def run(*, out_dir: Path, results_dir: Path) -> runner.RunOutcome:
        return runner.execute(
            exp_id,
            cfg,
            out_dir=out_dir,
            results_dir=results_dir,
            log=lambda message: None,
            extra_files={"overrides.yaml": job_overrides_text(exp_id, overrides)},
            figures=bool(cfg.get("sweep_figures", False)),
            durable=False,
        )

    try:
        outcome, files = compute_files(run)
    except Exception as exc:  # noqa: BLE001 - the job's failure, written by the client
        line = runner.error_line(exc)
        trace = "" if isinstance(exc, PrivlabError) else runner.traceback_text(registry.get(exp_id), exc)
        return JobResult(num, "failed", line, time.perf_counter() - start), None, trace
    tally = claims_mod.counts(outcome.claims)
    claims = f" (claims: {claims_mod.counts_text(tally)})" if outcome.claims else ""
    line = f"{exp_id} job {num}: {len(outcome.table)} rows in {outcome.wall_time:.1f} s{claims}"
    return JobResult(num, "done", line, time.perf_counter() - start), files, ""


def _landed(sweep_dir: Path, a: tuple, sent: tuple[JobResult, Any, str]) -> JobResult:
    """A remote `run_job_remote` written here as `run_job` writes in place: the job's directory and
    its part of the sweep's store, or its failure's marker and traceback."""
    result, files, trace = sent
    num, overrides = a[1], a[2]
    if result.status == "failed":
        log = runner.atomic_write_text(sweep_dir / ERRORS / f"{num}.log", trace) if trace else None
        mark_failed(sweep_dir, num)
        reason = result.line + (f" (traceback: {log})" if log else "")
        return JobResult(num, "failed", failure_line(num, overrides, reason), result.seconds)
    write_files(sweep_dir / str(num), files, durable=False)
    sweep_store.write_part(sweep_dir, num)
    return JobResult(num, "done", f"{result.line} -> {sweep_dir / str(num)}", result.seconds)


# ---------------------------------------------------------------------------------------
# the sweep
# ---------------------------------------------------------------------------------------
class Progress:
    """Jobs done out of the total, with the rate and the time left: a tqdm bar on a terminal, else
    a line on stderr each tenth of the sweep. Per-job lines go above the bar."""

    def __init__(self, total: int, stream=None) -> None:
        self.total, self.done, self.ran = total, 0, 0
        self.start = time.perf_counter()
        self.stream = stream or sys.stderr
        self.bar = None
        self._next_line = max(1, total // 10)
        if self.stream.isatty() and total > 1:
            self.bar = tqdm(total=total, unit="job", file=self.stream, dynamic_ncols=True, smoothing=0.1)

    def write(self, line: str, *, err: bool = False) -> None:
        out = sys.stderr if err else sys.stdout
        if self.bar is not None:
            self.bar.write(line, file=out)
        else:
            print(line, file=out, flush=True)

    def eta(self) -> float | None:
        """Seconds left, from the jobs run (not skipped) so far; None before the first."""
        if not self.ran:
            return None
        rate = (time.perf_counter() - self.start) / self.ran
        return rate * (self.total - self.done)

    def update(self, result: JobResult) -> None:
        self.done += 1
        self.ran += result.status != "skipped"
        if self.bar is not None:
            self.bar.update(1)
        elif self.total >= 20 and (self.done % self._next_line == 0 or self.done == self.total):
            eta = self.eta()
            left = f", about {clock(eta)} left" if eta is not None and self.done < self.total else ""
            print(
                f"[{self.done}/{self.total} jobs, {clock(time.perf_counter() - self.start)}{left}]",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def clock(seconds: float) -> str:
    """``m:ss`` or ``h:mm:ss``."""
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


# the configs of the last sweep composed in this process: `privlab.app.prevalidate` composes every job
# before Hydra starts, and privlab's launcher, in the same process, runs them without composing again
_LAST: dict[tuple[str, tuple[tuple[str, ...], ...]], list[dict]] = {}


def compose_jobs(exp_id: str, jobs: Sequence[Sequence[str]]) -> list[dict]:
    """Every job's resolved config, as a plain dict (bad input in any job: a `PrivlabError` naming it)."""
    key = (exp_id, tuple(tuple(job) for job in jobs))
    if key in _LAST:
        return _LAST[key]
    composer = Composer(exp_id)
    configs = []
    start, step = time.perf_counter(), max(1, len(jobs) // 10)
    for num, job in enumerate(jobs):
        try:
            configs.append(composer.container(job))
        except PrivlabError as exc:
            raise PrivlabError(f"job {num} ({' '.join(job)}): {exc}") from None
        if len(jobs) >= COMPOSE_PROGRESS and (num + 1) % step == 0:  # thousands of jobs take seconds
            done = f"{num + 1:,}/{len(jobs):,}"
            print(f"[configs checked: {done} jobs, {clock(time.perf_counter() - start)}]", file=sys.stderr, flush=True)
    _LAST.clear()
    _LAST[key] = configs
    return configs


def run_sweep(
    exp_id: str, jobs: Sequence[Sequence[str]], sweep_dir: Path, *, workers: int, cluster: str | None = None
) -> list[int]:
    """Run every job of a sweep (skipping complete ones) on ``workers`` processes (1: in this one), or
    on ``cluster`` (`privlab.executors.make_executor`).

    Returns the numbers of the jobs that failed; each printed its line already.
    """
    configs = compose_jobs(exp_id, jobs)  # every job valid before any job starts
    sweep_dir = Path(sweep_dir)
    sweep_store.start_sweep(sweep_dir, exp_id, jobs)
    progress = Progress(len(jobs))
    failed: list[int] = []
    try:
        for result in _results(exp_id, jobs, configs, sweep_dir, workers, cluster):
            progress.write(result.line, err=result.status == "failed")
            progress.update(result)
            if result.status == "failed":
                failed.append(result.num)
    finally:
        progress.close()
    return sorted(failed)


def _results(
    exp_id: str,
    jobs: Sequence[Sequence[str]],
    configs: list[dict],
    sweep_dir: Path,
    workers: int,
    cluster: str | None = None,
) -> Iterator[JobResult]:
    args = [(exp_id, num, list(job), configs[num], str(sweep_dir)) for num, job in enumerate(jobs)]
    if cluster is None and (workers <= 1 or len(jobs) == 1):
        for a in args:
            yield run_job(*a)
        return
    yield from _pooled(args, make_executor(cluster, min(workers, len(jobs)), sweep_dir), sweep_dir)


def _pooled(args: list[tuple], pool: Any, sweep_dir: Path) -> Iterator[JobResult]:
    """The jobs on ``pool`` (a `privlab.executors.Executor`, or a number of local processes), at most
    two per worker in flight. When a worker dies (killed, out of memory, a crash in C code) every job
    in flight with it comes back: each is then rerun alone (in a fresh pool), and the one whose
    worker dies alone fails. On a cluster the client skips complete jobs (resume) and writes what
    the workers send back."""

    pool = RenewablePool(pool) if isinstance(pool, int) else pool
    pending = list(reversed(args))  # popped from the end: job order
    suspects: list[tuple] = []
    in_flight: dict[Future, tuple[tuple, bool]] = {}

    def submit(a: tuple, alone: bool) -> None:
        task = pool.submit(run_job_remote, *a[:4]) if pool.remote else pool.submit(run_job, *a)
        in_flight[task] = (a, alone)

    with pool:
        workers = pool.workers
        while pending or suspects or in_flight:
            if suspects:
                if not in_flight:
                    submit(suspects.pop(0), True)
            else:
                while pending and len(in_flight) < 2 * workers:
                    a = pending.pop()
                    out_dir = sweep_dir / str(a[1])
                    if pool.remote and runner.is_complete(out_dir, OmegaConf.create(a[3])):
                        sweep_store.ensure_part(sweep_dir, a[1])
                        yield JobResult(a[1], "skipped", f"{a[0]} job {a[1]}: complete in {out_dir}, skipped")
                        continue
                    submit(a, False)
            if not in_flight:
                continue
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            broken = False
            for future in sorted(done, key=lambda f: in_flight[f][0][1]):
                a, alone = in_flight.pop(future)
                try:
                    yield _landed(sweep_dir, a, future.result()) if pool.remote else future.result()
                except Exception as exc:
                    if not pool.lost(exc):
                        raise
                    broken = True
                    if not alone:
                        suspects.append(a)
                        continue
                    num = a[1]
                    reason = _worker_death(sweep_dir, num, registry.get(a[0]), exc)
                    yield JobResult(num, "failed", failure_line(num, a[2], reason))
            if broken:
                pool.renew()


def _worker_death(sweep_dir: Path, num: int, exp: registry.Experiment, exc: BaseException) -> str:
    err = RuntimeError(f"the worker process running it died ({runner.error_line(exc)})")
    return record_failure(sweep_dir, num, exp, err)


def format_value(value: Any) -> str:
    """``value`` in Hydra's override grammar (a sweep's element): numbers, booleans, null, strings
    (quoted unless plain), lists and dicts."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{format_value(v)}" for k, v in value.items()) + "}"
    text = str(value)
    plain = text and all((c.isascii() and c.isalnum()) or c in "_-./" for c in text) and not text[0].isdigit()
    plain = plain and text.lower() not in ("null", "true", "false", "nan", "inf")
    return text if plain else runner.quote_override_value(text)
