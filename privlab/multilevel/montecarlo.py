"""The collusion Monte Carlo: X and its multi-pert copies, counted into F[X, Y_1, ..., Y_k].

F counts every (X, Y_1, ..., Y_k) combination of the trials (X from the prior, its copies
released at ``ps`` in request order), an array of s^(1+k) cells. Three kernels compute it:

- ``"multinomial"`` (`privlab.multilevel.multinomial`, the experiments' default): the counts
  drawn stage by stage as the mechanism generates a trial (the counts of X, then per cell
  of the copies so far the counts of the next copy, by multinomial splitting): exact in
  distribution, O(s^(1+k)) draws whatever the trials; its units of work are the *strata*
  X = x (unit x: the trials with X = x, their number drawn first from the seed);
- ``"stratified"`` (`collusion_chunk_stratified`): trial by trial, the per-trial reference
  of the multinomial kernel; a *chunk* of ``n`` trials draws X's counts, then multi-pert's
  release steps per x, counted into that x's cache-resident slice of F;
- ``"perturber"`` (`collusion_counts_chunk`): X drawn trial by trial and the copies released
  by a real `MultiLevelPerturber` on the chunk's table; about 5x slower than "stratified",
  kept to check it against (same law, other random streams).

`collusion_counts` adds up the units (chunks, or strata) of a run:

- unit ``c`` uses child ``c`` of the run's SeedSequence, so the counts depend only on the
  seed, the parameters, the kernel and the chunking (none for "multinomial"), never on how
  many workers run the units, on which worker runs which, or on the backend (integer
  addition commutes);
- the chunks still to run are dealt to ``workers`` long-running *tasks* (task t gets every
  ``workers``-th chunk from its t-th on); a task accumulates its chunks in place into its own
  table and returns it once, with the list of its chunks; the caller's ``map_fn`` may return
  the tasks in any order (``ctx.map_unordered``: no barrier, the parent adds each table as
  its task ends);
- progress is saved through the caller's checkpoint (``load()`` / ``save(**arrays)``): the
  parent saves the counts of the finished tasks; each task saves its own partial table and
  finished chunks to ``checkpoint.part(name)`` (when the checkpoint offers parts) at most
  every ``checkpoint_seconds`` and when it ends. A rerun merges the saved parts, then deals
  only the chunks not yet counted (whatever the number of workers); a finished state is
  returned at once. Every save is atomic (the caller's store), so a killed run leaves either
  the previous state or the new one, never half of one.

What is simulated (`collusion_identity`: prior, ps, s, trials, chunk, seed, kernel) is kept
apart from how it is run (map_fn, workers, checkpoint cadence), so the parallel strategy can
change without touching the counts or the saved states.

The library does no I/O: the map_fn, the checkpoint store, the log and the progress bar are
the caller's (``ctx.map_unordered``, ``ctx.checkpoint(...)``, ``ctx.log``, ``ctx.progress``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .._validation import (
    MapFn,
    PrivlabError,
    check_array,
    check_choice,
    check_distribution,
    check_int,
    check_real,
    rng_from,
)
from ..stats import proportion_se
from ._checks import (
    CODE_DTYPE,
    MAX_CELLS,
    MAX_CHUNKS,
    as_seed_sequence,
    check_cells,
    check_counts,
    check_ps,
    check_s,
    check_trials,
    child_seed,
)
from .multinomial import prior_counts, stratum_counts
from .perturbation import MultiLevelPerturber, random_words, split_words, threshold
from .stratified import collusion_chunk_stratified, release_plan

__all__ = [
    "MC_VERSION",
    "MAX_CELLS",
    "KERNELS",
    "alias_table",
    "sample_prior",
    "collusion_counts_chunk",
    "collusion_identity",
    "collusion_counts",
    "margin",
    "counts_given",
    "frequencies",
    "check_trials",
]

MC_VERSION = 2  # bump when the simulation changes what a seed produces (2: kernels, SFC64 streams)
KERNELS = ("multinomial", "stratified", "perturber")
_U32_MAX = 2**32 - 1
_MAX_MULTINOMIAL = 2**62  # int64 counts


class Checkpoint(Protocol):
    """Where partial counts go (``ctx.checkpoint(name, **identity)``).

    A store may also offer ``part(name)`` (another store, picklable, that a worker task
    saves its own progress to) and ``discard()`` (remove what it holds); both are optional.
    """

    def load(self) -> dict[str, np.ndarray] | None: ...

    def save(self, **arrays: np.ndarray) -> None: ...


# ---------------------------------------------------------------------------------------
# sampling X
# ---------------------------------------------------------------------------------------
def alias_table(prior: Any) -> tuple[np.ndarray, np.ndarray]:
    """Walker/Vose alias table of ``prior`` with integer (32-bit) acceptance thresholds.

    Returns
    -------
    (thresholds, alias) : ndarray of uint64, ndarray of int32
        Cell i keeps i when the 32-bit coin is below ``thresholds[i]``, else takes ``alias[i]``.
    """
    law = check_distribution("prior", prior)
    s = law.size
    scaled = law * s
    accept = np.zeros(s)
    alias = np.arange(s)
    small = [i for i in range(s) if scaled[i] < 1.0]
    large = [i for i in range(s) if scaled[i] >= 1.0]
    while small and large:
        lo, hi = small.pop(), large.pop()
        accept[lo] = scaled[lo]
        alias[lo] = hi
        scaled[hi] = scaled[hi] + scaled[lo] - 1.0
        (small if scaled[hi] < 1.0 else large).append(hi)
    for i in small + large:
        accept[i] = 1.0
    thresholds = np.array([threshold(a) for a in accept], dtype=np.uint64)
    return thresholds, alias.astype(CODE_DTYPE)


def sample_prior(prior: Any, n: int, seed: Any = 0) -> np.ndarray:
    """``n`` codes drawn from ``prior`` (alias method, one 64-bit word per draw).

    Parameters
    ----------
    prior : array of float
        The law on 0..s-1.
    n : int
        Number of draws, >= 0.
    seed : int, SeedSequence or Generator
    """
    thresholds, alias = alias_table(prior)
    n = check_int("n", n, low=0)
    check_cells(f"sample_prior: {n:,} draws", n)
    coin, cell = split_words(random_words(rng_from(seed), n), thresholds.size)
    return np.where(coin < thresholds[cell], cell, alias[cell])


# ---------------------------------------------------------------------------------------
# one chunk
# ---------------------------------------------------------------------------------------
def collusion_counts_chunk(
    prior: Any, ps: Any, domain_size: int, n: int, seed: Any, store: str = "history"
) -> np.ndarray:
    """One chunk of the reference kernel: counts F[X, Y_1, ..., Y_k] (flattened, int64).

    ``n`` tuples are drawn from ``prior`` and form one table, which a `MultiLevelPerturber`
    perturbs at ``ps`` in the order given; every (X, copies) combination is counted. The
    engine's ``kernel="perturber"``; the fast kernel (`collusion_chunk_stratified`) is checked
    against it.

    Parameters
    ----------
    prior : array of float
        The law of X on 0..s-1.
    ps : sequence of float
        Retention probabilities in request order.
    domain_size : int
        s >= 2.
    n : int
        Tuples in the chunk, >= 1.
    seed : int or SeedSequence
    store : {"history", "dense"}
        The perturber's store (identical copies for a seed; "dense" is faster here).

    Returns
    -------
    ndarray of int64, shape (s ** (1 + len(ps)),)
    """
    s = check_s(domain_size)
    checked = check_ps(ps)
    check_cells(f"F: domain_size {s:,} to the power 1 + {len(checked)} copies", s ** (1 + len(checked)))
    n = check_int("n", n, low=1)
    check_cells(f"collusion_counts_chunk: {n:,} tuples", n)
    ss = as_seed_sequence(seed)
    x_seed, pert_seed = child_seed(ss, 0), child_seed(ss, 1)
    x = sample_prior(prior, n, x_seed)
    perturber = MultiLevelPerturber(x, s, pert_seed, store=store)
    flat = x.astype(np.int64)
    for p in checked:
        flat = flat * s + perturber.release(p)
    return np.bincount(flat, minlength=s ** (1 + len(checked)))


# ---------------------------------------------------------------------------------------
# one task: a fixed set of chunks, counted in place, saved to its own part
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Task:
    """What a worker needs to run its chunks (picklable: it travels to the worker)."""

    prior: np.ndarray
    ps: list[float]
    s: int
    kernel: str
    seed: np.random.SeedSequence
    chunks: list[int]  # unit indices (chunks, or strata x for "multinomial"), in the order run
    sizes: list[int]  # their trials
    key: str  # the run's identity (json), saved with every part
    part: Any  # a store for this task's progress, or None
    checkpoint_seconds: float


def _compact(F: np.ndarray) -> np.ndarray:
    """Non-negative counts in the narrowest unsigned type that holds them (fewer bytes to save and transfer)."""
    return F.astype(np.min_scalar_type(int(F.max()) if F.size else 0), copy=False)


def _run_task(task: _Task) -> tuple[np.ndarray, np.ndarray]:
    """Run one task's chunks (in a worker): (its counts, compacted; its chunk indices).

    The stratified kernel counts into one uint32 table for the whole task; an int64 table
    is opened only when the task's trials would overflow it (more than 2**32 - 1).
    """
    k = len(task.ps)
    total: np.ndarray | None = None if task.kernel == "stratified" else np.zeros(task.s ** (1 + k), dtype=np.int64)
    steps = release_plan(task.ps, task.s) if task.kernel == "multinomial" else []
    narrow = np.zeros((task.s, task.s**k), dtype=np.uint32) if total is None else None
    pending = 0  # trials in `narrow` (kept below 2**32)
    done: list[int] = []
    last_save = time.monotonic()

    def counts() -> np.ndarray:
        """The task's counts so far, flattened."""
        if narrow is None or not pending:
            return total if total is not None else np.zeros(task.s ** (1 + k), dtype=np.uint32)
        return narrow.reshape(-1) if total is None else _compact(total + narrow.reshape(-1))

    for c, n in zip(task.chunks, task.sizes):
        seed = child_seed(task.seed, c)
        if task.kernel == "multinomial":  # unit c: the stratum X = c
            assert total is not None
            total[c * task.s**k : (c + 1) * task.s**k] += stratum_counts(c, n, steps, task.s, seed)
        elif narrow is None:
            assert total is not None
            total += collusion_counts_chunk(task.prior, task.ps, task.s, n, seed, store="dense")
        else:
            if pending + n > _U32_MAX:  # move the narrow counts into the int64 table
                total = narrow.reshape(-1).astype(np.int64) if total is None else total + narrow.reshape(-1)
                narrow.fill(0)
                pending = 0
            collusion_chunk_stratified(task.prior, task.ps, task.s, n, seed, out=narrow)
            pending += n
        done.append(c)
        if task.part is not None and time.monotonic() - last_save >= task.checkpoint_seconds:
            task.part.save(F=_compact(counts()), done=np.array(done, dtype=np.int64), identity=np.array(task.key))
            last_save = time.monotonic()
    F, chunks = _compact(counts()), np.array(done, dtype=np.int64)
    if task.part is not None:
        task.part.save(F=F, done=chunks, identity=np.array(task.key))
    return F, chunks


# ---------------------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------------------
def collusion_identity(
    prior: Any, ps: Any, domain_size: int, trials: int, *, chunk: int, seed: Any, kernel: str = "multinomial"
) -> dict[str, Any]:
    """Everything that determines `collusion_counts`' result, as plain values.

    The identity of its checkpoint (``ctx.checkpoint(name, **identity)``), also stored in the
    saved state. How the work is run (the map_fn, the number of workers, the checkpoint
    cadence) changes nothing in the counts and is not part of it; nor does ``chunk`` for the
    multinomial kernel (its units are the strata of X), whose identity holds ``chunk: None``.
    """
    ss = as_seed_sequence(seed)
    kernel = check_choice("kernel", kernel, KERNELS)
    chunk = check_int("chunk", chunk, low=1, high=_U32_MAX)
    trials = check_trials(trials)
    if kernel == "multinomial" and trials > _MAX_MULTINOMIAL:
        raise PrivlabError(f"trials must be at most 2**62 for the multinomial kernel (int64 counts), got {trials:,}")
    return {
        "version": MC_VERSION,
        "kernel": kernel,
        "prior": check_distribution("prior", prior).tolist(),
        "ps": check_ps(ps),
        "s": check_s(domain_size),
        "trials": trials,
        "chunk": None if kernel == "multinomial" else chunk,
        "seed": [str(ss.entropy), list(map(int, ss.spawn_key))],
    }


def _serial_map(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    return [fn(item) for item in items]


def collusion_counts(
    prior: Any,
    ps: Any,
    domain_size: int,
    trials: int,
    *,
    chunk: int,
    seed: Any,
    kernel: str = "multinomial",
    map_fn: MapFn = _serial_map,
    workers: int = 1,
    checkpoint: Checkpoint | None = None,
    checkpoint_seconds: float = 30.0,
    log: Callable[[str], None] | None = None,
    progress: Callable[..., Iterable[Any]] | None = None,
) -> np.ndarray:
    """F[X, Y_1, ..., Y_k] after ``trials`` simulated tuples (see the module docstring).

    The counts depend on ``prior`` to ``kernel`` alone; the keyword arguments after
    ``kernel`` say how the work runs and never change them.

    Parameters
    ----------
    prior : array of float
        The law of X on 0..s-1.
    ps : sequence of float
        Retention probabilities in request order (k copies).
    domain_size : int
        s >= 2, with s^(1+k) <= `MAX_CELLS`.
    trials : int
        Total tuples simulated.
    chunk : int
        Trials per chunk (the unit of seeding and of resumption of the per-trial kernels), at
        most 2**32 - 1; the multinomial kernel's units are the strata X = x instead.
    seed : int or SeedSequence
        Unit c uses the SeedSequence's child c (the multinomial kernel draws the strata's
        sizes from the SeedSequence itself).
    kernel : {"multinomial", "stratified", "perturber"}
        The simulator (module docstring): multinomial splitting, exact in distribution with a
        cost independent of ``trials``; the two per-trial kernels are its references.
    map_fn : callable
        ``map_fn(fn, items)``: an iterable of ``fn(item)`` for every item, in any order, possibly
        in parallel (``ctx.map_unordered``; ``ctx.map`` works too).
    workers : int
        Tasks the chunks are dealt to (the number of workers ``map_fn`` runs at once).
    checkpoint : object with ``load()`` and ``save(**arrays)``, optional
        Where the counts go (``ctx.checkpoint(...)`` with `collusion_identity`); with a
        ``part(name)`` method, each task saves its progress to its own part too. A saved
        state of another identity, or one that does not add up, is refused.
    checkpoint_seconds : float
        Each task saves its progress at most this often (and when it ends); the parent
        saves the finished tasks' counts at most this often (and at the end).
    log : callable, optional
        Receives one-line messages (resuming, throughput).
    progress : callable, optional
        ``progress(iterable, total=, desc=)`` wraps the finished tasks (``ctx.progress``).

    Returns
    -------
    ndarray of int64, shape (s,) * (1 + k)
        The counts; they sum to ``trials``.
    """
    identity = collusion_identity(prior, ps, domain_size, trials, chunk=chunk, seed=seed, kernel=kernel)
    law, checked, s = np.asarray(identity["prior"]), identity["ps"], identity["s"]
    trials, chunk = identity["trials"], check_int("chunk", chunk, low=1)
    cells = s ** (1 + len(checked))
    if cells > MAX_CELLS:
        raise PrivlabError(
            f"domain_size {s} with {len(checked)} copies needs {cells:,} cells of F; at most {MAX_CELLS:,} fit"
        )
    workers = check_int("workers", workers, low=1)
    checkpoint_seconds = check_real("checkpoint_seconds", checkpoint_seconds, low=0)
    ss = as_seed_sequence(seed)
    if identity["kernel"] == "multinomial":  # the units are the strata X = x, their sizes drawn first
        sizes = prior_counts(law, trials, ss)
        n_chunks = s
    else:
        n_chunks = -(-trials // chunk)
        check_cells(f"collusion_counts: {trials:,} trials in chunks of {chunk:,} (raise chunk)", n_chunks, MAX_CHUNKS)
        if identity["kernel"] == "perturber":  # a chunk's table is held in memory by the reference kernel
            check_cells(f"collusion_counts: chunk of {chunk:,} tuples for the perturber kernel", chunk)
        sizes = np.minimum(chunk, trials - chunk * np.arange(n_chunks, dtype=np.int64))
    key = json.dumps(identity, sort_keys=True)
    part_of = getattr(checkpoint, "part", None)

    F, done, listed, merged = _resume(checkpoint, key, cells, sizes)
    if log and done.any():
        state = "reusing finished counts" if done.all() else "resuming"
        log(f"multilevel MC: {state} with {int(done.sum())}/{n_chunks} chunks done")
    todo = np.flatnonzero(~done)
    n_tasks = min(workers, todo.size)
    names = [f"task{t}" for t in range(n_tasks)] if part_of is not None else []
    if checkpoint is not None and (merged or (todo.size and names)):
        # the merged parts, and the parts this run's tasks will write, are saved before they start
        checkpoint.save(F=_compact(F), done=done, identity=np.array(key), parts=np.array(names, dtype=str))
        _discard(part_of, set(listed) - set(names))  # merged into the state just saved
    tasks = [
        _Task(
            prior=law,
            ps=checked,
            s=s,
            kernel=identity["kernel"],
            seed=ss,
            chunks=todo[t::n_tasks].tolist(),
            sizes=sizes[todo[t::n_tasks]].tolist(),
            key=key,
            part=part_of(names[t]) if part_of is not None else None,
            checkpoint_seconds=checkpoint_seconds,
        )
        for t in range(n_tasks)
    ]
    wrap = progress or (lambda it, **_: it)
    last_save, start = time.monotonic(), time.perf_counter()
    for counts, chunks in wrap(map_fn(_run_task, tasks), total=n_tasks, desc="multilevel MC"):
        if done[chunks].any():
            raise RuntimeError("a task returned chunks that were already counted")
        F += counts
        done[chunks] = True
        if checkpoint is not None and (done.all() or time.monotonic() - last_save >= checkpoint_seconds):
            checkpoint.save(F=_compact(F), done=done, identity=np.array(key), parts=np.array(names, dtype=str))
            last_save = time.monotonic()
    if not done.all():
        raise RuntimeError(f"map_fn returned {int(done.sum())} of {n_chunks} chunks")
    if log and todo.size:
        ran, elapsed = int(sizes[todo].sum()), time.perf_counter() - start
        log(
            f"multilevel MC: {ran:,} trials in {elapsed:.1f} s = {ran / elapsed:,.0f} trials/s "
            f"({ran / elapsed / n_tasks:,.0f} per worker, {n_tasks} workers)"
        )
    if int(F.sum()) != trials:
        raise RuntimeError(f"MC counts hold {int(F.sum())} trials, expected {trials}")
    _discard(part_of, set(names) | set(listed))  # every part is in the saved state now
    return F.reshape((s,) * (1 + len(checked)))


def _discard(part_of: Callable[[str], Any] | None, names: set[str]) -> None:
    """Remove the saved parts ``names`` (when the store can)."""
    if part_of is None:
        return
    for name in sorted(names):
        discard = getattr(part_of(name), "discard", None)
        if discard is not None:
            discard()


def _resume(
    checkpoint: Checkpoint | None, key: str, cells: int, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[str], bool]:
    """The saved (F, chunks done) of this run with its saved parts merged, checked, or a
    fresh start; the names of the parts the saved state listed; whether a part added counts."""
    saved = checkpoint.load() if checkpoint is not None else None
    if saved is None:
        return np.zeros(cells, dtype=np.int64), np.zeros(sizes.size, dtype=bool), [], False
    F, done = _checked_state(saved, key, cells, sizes.size)
    if int(F.sum()) != int(sizes[done].sum()):
        raise PrivlabError(
            f"the checkpoint's counts hold {int(F.sum())} trials, its finished chunks {int(sizes[done].sum())}"
        )
    names = [str(n) for n in np.atleast_1d(saved.get("parts", np.array([], dtype=str)))]
    part_of, merged = getattr(checkpoint, "part", None), False
    for name in names:
        part = part_of(name).load() if part_of is not None else None
        if part is None:
            continue
        counts, chunks = _checked_state(part, key, cells, sizes.size, chunk_ids=True)
        if done[chunks].all():  # counted before the last save of the whole state
            continue
        if done[chunks].any() or int(counts.sum()) != int(sizes[chunks].sum()):
            raise PrivlabError(f"the checkpoint's part {name} does not add up with the saved counts")
        F += counts
        done[chunks] = True
        merged = True
    return F, done, names, merged


def _checked_state(
    saved: Mapping[str, np.ndarray], key: str, cells: int, n_chunks: int, chunk_ids: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    if str(saved.get("identity", "")) != key:
        raise PrivlabError("the checkpoint holds counts of another Monte Carlo run (its identity differs)")
    F = np.asarray(saved["F"]).astype(np.int64)
    marks = np.asarray(saved["done"])
    if chunk_ids:  # a part lists its chunks
        ok = marks.ndim == 1 and marks.dtype.kind in "iu"
        ok = ok and (marks.size == 0 or 0 <= int(marks.min()) <= int(marks.max()) < n_chunks)
        done = marks.astype(np.int64)
    else:  # the whole state marks every chunk
        ok = marks.shape == (n_chunks,)
        done = marks.astype(bool)
    if F.shape != (cells,) or not ok or (F.size and int(F.min()) < 0):
        raise PrivlabError(
            f"the checkpoint's arrays have shapes {F.shape}, {marks.shape} (or negative counts); "
            f"expected ({cells},) and marks of {n_chunks} chunks"
        )
    return F, done


# ---------------------------------------------------------------------------------------
# reading F
# ---------------------------------------------------------------------------------------
def margin(F: np.ndarray, i: int) -> np.ndarray:
    """The (X, Y_i) counts of F[X, Y_1, ..., Y_k]: an s x s array (i is the copy's index, 0-based)."""
    F = check_counts(F)
    k = F.ndim - 1
    i = check_int("i", i, low=0, high=k - 1)
    other = tuple(a for a in range(1, k + 1) if a != i + 1)
    return F.sum(axis=other) if other else F


def counts_given(F: np.ndarray, observed: Mapping[int, int]) -> np.ndarray:
    """Counts of X among the trials whose copies take the ``observed`` values (copy index -> code)."""
    F = check_counts(F)
    if not isinstance(observed, Mapping):
        raise PrivlabError(f"observed must be a mapping of copy index to observed code, got {type(observed).__name__}")
    k, s = F.ndim - 1, F.shape[0]
    index: list[Any] = [slice(None)] * (1 + k)
    for i, y in observed.items():
        index[1 + check_int("observed copy index", i, low=0, high=k - 1)] = check_int(
            f"observed[{i}]", y, low=0, high=s - 1
        )
    sub = F[tuple(index)]
    return sub.reshape(s, -1).sum(axis=1) if sub.ndim > 1 else sub


def frequencies(counts: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """The Monte Carlo estimate of a law from its counts (a slice or sum of F, e.g. `counts_given`).

    Parameters
    ----------
    counts : array_like, 1-d
        Finite non-negative counts, one per value.

    Returns
    -------
    (ndarray, ndarray, int)
        Each value's share of the counts (NaN everywhere when nothing was counted), its standard
        error (`privlab.stats.proportion_se`, NaN when nothing was counted) and the total count.
    """
    c = check_array("counts", counts).astype(float)
    if c.min() < 0:
        raise PrivlabError(f"counts must be non-negative, got {c.tolist()[:8]}")
    n = c.sum()
    share = c / n if n else np.full(c.size, np.nan)
    return share, np.array([proportion_se(k, n) for k in c]), int(n)
