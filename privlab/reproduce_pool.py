"""``privlab reproduce`` without ``--workers``: several experiments at once, one per core.

Most experiments are serial or split into few pieces, so one experiment at a time leaves all
cores but one idle (the quick profile's 63 experiments took twice their CPU time in wall-clock
time on 2 cores). Here a pool of worker processes runs whole experiments, each with one worker
inside (its configured ``workers``); with ``--workers N`` `privlab.launch.reproduce` runs them one at
a time with N workers inside each, as before.

The experiments of one paper run one after the other, in registry order: what one of them
leaves for the next (Figure 4's ILP solves for Figure 5, the collusion Monte Carlo's counts for
every figure that reads them, a data set's cache) is there when the next one starts. Papers run
side by side (a free worker takes the next experiment of the paper with the most left), so one
paper alone runs as before, one experiment at a time. Results do not depend on any of this
(every number depends only on its config and seed); only wall-clock columns see that a
neighbour shares the machine.

With ``--workers N`` (one experiment at a time, `run_in_turn`) each experiment's figures are drawn and
its files written by a process of their own (`DeferredWriter`) while the next experiment computes:
drawing is about a tenth of the paper profile's time, during which the experiment's workers would sit
idle. An experiment that times itself (``timings: true``) starts only when every write before it is
done, so that nothing runs beside its clocks.

A failing experiment is its line and its log, as in the serial path. A worker process that dies
(killed, out of memory, a crash in C code) breaks the pool: the experiments in flight are run
again, alone, in a fresh pool, and the one whose worker dies alone fails with one line; the
others go on.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import claims as claims_mod
from . import registry, runner
from .context import die_with_parent
from .executors import compute_files, make_executor, one_line_warnings, write_files


@dataclass(frozen=True)
class Outcome:
    """What the parent needs of one experiment's run (small: it crosses a process boundary)."""

    exp_id: str
    ok: bool
    rows: int = 0
    wall_time: float = 0.0
    tally: dict[str, int] = field(default_factory=dict)
    error: str = ""  # the one line of a failure (with where its traceback went)


def run_one(exp_id: str, cfg: Any, results_dir: str, writer: DeferredWriter | None = None) -> Outcome | None:
    """Run one experiment (`runner.execute`); a fault is an `Outcome` with its line, its
    traceback in ``results/errors/`` (never raised: one experiment's fault stops only it).

    With ``writer`` a run whose table and claims are done is handed to it to be written, and None is
    returned: the writer gives its `Outcome` once the files are written."""
    die_with_parent()
    one_line_warnings(exp_id)
    exp = registry.get(exp_id)
    computed: list[tuple[Any, ...]] = []  # with a writer: the write's arguments, handed over with the outcome
    try:
        outcome = runner.execute(
            exp_id, cfg, results_dir=Path(results_dir), writer=(lambda *a: computed.append(a)) if writer else None
        )
    except Exception as exc:  # noqa: BLE001 - reported as the experiment's failure
        log = runner.record_error(Path(results_dir), exp, exc)
        return Outcome(exp_id, False, error=f"{runner.error_line(exc)} (traceback: {log})")
    tally = claims_mod.counts(outcome.claims) if outcome.claims else {}
    done = Outcome(exp_id, True, len(outcome.table), outcome.wall_time, tally)
    if writer is not None:
        writer.submit(done, *computed[0])
        return None
    runner.clear_error(Path(results_dir), exp)
    return done


def write_deferred(exp_id: str, *args: Any) -> list[str]:
    """`runner.write_outputs` of a computed run, in the writer's process (`DeferredWriter`): the lines
    it logged (a figure the audit found unfaithful) come back to be printed by the parent."""
    die_with_parent()
    one_line_warnings(exp_id)
    cfg, table, out_dir, prov, claims, extra_files, figures, durable = args
    lines: list[str] = []
    runner.write_outputs(
        registry.get(exp_id), cfg, table, Path(out_dir), prov, extra_files, figures, durable, lines.append, claims
    )
    return lines


class DeferredWriter:
    """Draws computed runs' figures and writes their files (`write_deferred`) in one process of its
    own, in the order given, while the caller computes the next experiment.

    ``submit(outcome, *args)`` writes a run (``args``: what `runner.execute` hands its ``writer``),
    ``outcome`` the `Outcome` it completes; ``finished(wait)`` gives the outcomes of the writes done (all of
    them with ``wait``), a write that failed as that experiment's failure (its traceback in
    ``results/errors/``). A writer process that dies is replaced and its writes tried once more. As
    a context manager it waits for every write on a normal exit and kills the process on an
    exception (a write not done is lost: that experiment is computed again next time).
    """

    def __init__(self, results_dir: Path, log: Callable[[str], None] = print) -> None:
        self.results_dir = Path(results_dir)
        self.log = log
        self._pool: Any = None  # started on the first write
        self._pending: list[tuple[Future, tuple[Any, ...], Outcome]] = []

    def submit(self, outcome: Outcome, *args: Any) -> None:
        if self._pool is None:
            self._pool = make_executor(None, 1, self.results_dir)
        self._pending.append((self._pool.submit(write_deferred, *args), args, outcome))

    def finished(self, wait_all: bool = False) -> list[Outcome]:
        """The outcomes of the writes done (in order, up to the first still running; every one with
        ``wait_all``)."""
        out = []
        while self._pending and (wait_all or self._pending[0][0].done()):
            future, args, outcome = self._pending.pop(0)
            out.append(self._settle(future, args, outcome))
        return out

    def _settle(self, future: Future, args: tuple[Any, ...], outcome: Outcome, retried: bool = False) -> Outcome:
        exp = registry.get(outcome.exp_id)
        try:
            lines = future.result()
        except Exception as exc:  # noqa: BLE001 - reported as the experiment's failure
            if self._pool.lost(exc) and not retried:  # the writer died: a fresh one writes everything again
                self._pool.renew()
                self._pending = [(self._pool.submit(write_deferred, *a), a, o) for _, a, o in self._pending]
                return self._settle(self._pool.submit(write_deferred, *args), args, outcome, retried=True)
            if self._pool.lost(exc):
                self._pool.renew()
                exc = RuntimeError(f"the process writing its files died ({runner.error_line(exc)})")
            log = runner.record_error(self.results_dir, exp, exc)
            return Outcome(outcome.exp_id, False, error=f"{runner.error_line(exc)} (traceback: {log})")
        for line in lines:
            self.log(line)
        runner.clear_error(self.results_dir, exp)
        return outcome

    def __enter__(self) -> DeferredWriter:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._pool is not None:
            self._pool.__exit__(exc_type, exc, tb)


def timed(cfg: Any) -> bool:
    """Whether an experiment's config asks for wall-clock timings (``timings: true``)."""
    return cfg.get("timings", False) is True


def run_in_turn(
    runs: Sequence[tuple[registry.Experiment, Any]],
    results_dir: Path,
    started: Callable[[registry.Experiment], None] = lambda exp: None,
) -> Iterator[Outcome]:
    """Every ``(experiment, config)`` of ``runs`` in this process, one after the other, each with its
    configured workers; its figures and files written by a `DeferredWriter` while the next one
    computes. Yields each `Outcome` once its files are written (a failure as soon as it fails)."""
    with DeferredWriter(results_dir) as writer:
        for exp, cfg in runs:
            yield from writer.finished(wait_all=timed(cfg))  # nothing beside a timed experiment's clocks
            started(exp)
            failed = run_one(exp.id, cfg, str(results_dir), writer=writer)
            if failed is not None:
                yield failed
        yield from writer.finished(wait_all=True)


def run_remote(exp_id: str, cfg: Any) -> tuple[Outcome, Any, str]:
    """`run_one` on a cluster's worker, which shares no file system with the client: the result's
    files come back (`privlab.executors.Files`, None on a failure), with a failure's traceback text."""
    one_line_warnings(exp_id)
    exp = registry.get(exp_id)

    def run(*, out_dir: Path, results_dir: Path) -> runner.RunOutcome:
        return runner.execute(exp_id, cfg, out_dir=out_dir, results_dir=results_dir, log=lambda message: None)

    try:
        outcome, files = compute_files(run)
    except Exception as exc:  # noqa: BLE001 - reported as the experiment's failure
        return Outcome(exp_id, False, error=runner.error_line(exc)), None, runner.traceback_text(exp, exc)
    tally = claims_mod.counts(outcome.claims) if outcome.claims else {}
    return Outcome(exp_id, True, len(outcome.table), outcome.wall_time, tally), files, ""


def _landed(results_dir: Path, exp: registry.Experiment, sent: tuple[Outcome, Any, str]) -> Outcome:
    """A remote worker's `run_remote` written here: the result crash-safely, or the failure's traceback."""
    outcome, files, trace = sent
    if outcome.ok:
        write_files(results_dir / exp.paper / exp.name, files)
        runner.clear_error(results_dir, exp)
        return outcome
    log = runner.atomic_write_text(runner.error_log(results_dir, exp), trace)
    return Outcome(exp.id, False, error=f"{outcome.error} (traceback: {log})")


def default_workers(runs: Sequence[tuple[registry.Experiment, Any]]) -> int:
    """Experiments run at once without ``--workers``: one per core, at most one per paper (1: the
    experiments run one after the other in this process)."""
    return max(1, min(os.cpu_count() or 1, len({exp.paper for exp, _ in runs})))


def run_concurrently(
    runs: Sequence[tuple[registry.Experiment, Any]],
    results_dir: Path,
    workers: int,
    started: Callable[[registry.Experiment], None] = lambda exp: None,
    cluster: str | None = None,
) -> Iterator[Outcome]:
    """Every ``(experiment, config)`` of ``runs`` on ``workers`` processes (or on ``cluster``, see
    `privlab.executors.make_executor`), the experiments of a paper one after the other; yields each
    `Outcome` as it finishes (``started(exp)`` when one is handed to a worker)."""

    pool = make_executor(cluster, workers, results_dir)
    workers = pool.workers
    chains: dict[str, list[tuple[registry.Experiment, Any]]] = {}
    for exp, cfg in runs:
        chains.setdefault(exp.paper, []).append((exp, cfg))
    queues = [list(reversed(chain)) for chain in chains.values()]  # popped from the end: registry order
    busy: set[int] = set()  # chains with an experiment in flight
    suspects: list[tuple[int, registry.Experiment, Any]] = []  # in flight when a pool broke: rerun alone
    in_flight: dict[Future, tuple[int, registry.Experiment, Any, bool]] = {}

    def submit(c: int, exp: registry.Experiment, cfg: Any, alone: bool) -> None:
        started(exp)
        task = (
            pool.submit(run_remote, exp.id, cfg) if pool.remote else pool.submit(run_one, exp.id, cfg, str(results_dir))
        )
        in_flight[task] = (c, exp, cfg, alone)
        busy.add(c)

    with pool:
        while in_flight or suspects or any(queues):
            if suspects:  # one at a time: the one whose worker dies alone is the one that kills it
                if not in_flight:
                    c, exp, cfg = suspects.pop(0)
                    submit(c, exp, cfg, alone=True)
            else:  # a free worker takes the next experiment of the idle paper with the most left (balance)
                while len(in_flight) < workers:
                    idle = [c for c, queue in enumerate(queues) if queue and c not in busy]
                    if not idle:
                        break
                    c = max(idle, key=lambda c: len(queues[c]))
                    exp, cfg = queues[c].pop()
                    submit(c, exp, cfg, alone=False)
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            broken = False
            for future in done:
                c, exp, cfg, alone = in_flight.pop(future)
                try:
                    outcome = _landed(results_dir, exp, future.result()) if pool.remote else future.result()
                except Exception as exc:
                    if not pool.lost(exc):
                        raise
                    broken = True
                    if not alone:  # it or a neighbour killed the pool: tried again alone
                        print(
                            f"privlab: warning: {exp.id}: a worker process died while it ran; run again alone",
                            file=sys.stderr,
                            flush=True,
                        )
                        suspects.append((c, exp, cfg))
                        continue
                    busy.discard(c)
                    err = RuntimeError(f"the worker process running it died ({runner.error_line(exc)})")
                    log = runner.record_error(results_dir, exp, err)
                    yield Outcome(exp.id, False, error=f"{runner.error_line(err)} (traceback: {log})")
                    continue
                busy.discard(c)
                yield outcome
            if broken:
                pool.renew()
