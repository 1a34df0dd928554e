"""The collusion Monte Carlo: X and its copies simulated through the real multi-pert code.

One *chunk* draws ``n`` tuples from the prior, releases their copies at ``ps`` (in request
order) through a `MultiLevelPerturber`, and counts every (X, Y_1, ..., Y_k) combination
into F, an array of s^(1+k) cells. `collusion_counts` adds up the chunks of a run:

- chunk ``c`` uses child ``c`` of the run's SeedSequence, so the counts depend only on the
  seed, the parameters and the chunking, never on how many workers run the chunks;
- chunks still to run are grouped in *blocks* (the unit handed to a worker); the caller's
  ``map`` runs ``workers`` blocks at a time, and after each round the partial counts and
  the set of finished chunks go to the caller's checkpoint (``load()`` / ``save(**arrays)``),
  at most every ``checkpoint_seconds``. A rerun resumes from the saved state (whatever its
  block size or number of workers); a finished state is returned at once.

What is simulated (`collusion_identity`: prior, ps, s, trials, chunk, seed) is kept apart
from how it is run (blocks, store, map, workers, checkpoint cadence), so the parallel
strategy can change without touching the counts or the saved states.

The library does no I/O: the map, the checkpoint store, the log and the progress bar are
the caller's (``ctx.map``, ``ctx.checkpoint(...)``, ``ctx.log``, ``ctx.progress``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from .._validation import PrivlabError, check_choice, check_distribution, check_int, check_real, rng_from
from ._checks import CODE_DTYPE, as_seed_sequence, check_ps, check_s, check_trials, child_seed
from .perturbation import STORES, MultiLevelPerturber, random_words, split_words, threshold

__all__ = [
    "MC_VERSION",
    "MAX_CELLS",
    "alias_table",
    "sample_prior",
    "collusion_counts_chunk",
    "collusion_identity",
    "collusion_counts",
    "margin",
    "counts_given",
    "check_trials",
]

MC_VERSION = 1  # bump when the simulation changes what a seed produces
MAX_CELLS = 2**27  # cells of F (int64): 1 GiB per count array held in memory


class Checkpoint(Protocol):
    """Where partial counts go (``ctx.checkpoint(name, **identity)``)."""

    def load(self) -> dict[str, np.ndarray] | None: ...

    def save(self, **arrays: np.ndarray) -> None: ...


Map = Callable[[Callable[[Any], Any], Sequence[Any]], Sequence[Any]]


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
    coin, cell = split_words(random_words(rng_from(seed), n), thresholds.size)
    return np.where(coin < thresholds[cell], cell, alias[cell])


# ---------------------------------------------------------------------------------------
# one chunk
# ---------------------------------------------------------------------------------------
def collusion_counts_chunk(
    prior: Any, ps: Any, domain_size: int, n: int, seed: Any, store: str = "history"
) -> np.ndarray:
    """One chunk of the collusion Monte Carlo: counts F[X, Y_1, ..., Y_k] (flattened, int64).

    ``n`` tuples are drawn from ``prior`` and form one table, which a `MultiLevelPerturber`
    perturbs at ``ps`` in the order given; every (X, copies) combination is counted.

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
    n = check_int("n", n, low=1)
    ss = as_seed_sequence(seed)
    x_seed, pert_seed = child_seed(ss, 0), child_seed(ss, 1)
    x = sample_prior(prior, n, x_seed)
    perturber = MultiLevelPerturber(x, s, pert_seed, store=store)
    flat = x.astype(np.int64)
    for p in checked:
        flat = flat * s + perturber.release(p)
    return np.bincount(flat, minlength=s ** (1 + len(checked)))


def _block_counts(item: tuple[Any, ...]) -> np.ndarray:
    """Counts of one block of chunks (run in a worker); every chunk carries its own seed."""
    prior, ps, s, chunks, store = item
    total = None
    for n, seed in chunks:
        counts = collusion_counts_chunk(prior, ps, s, n, seed, store=store)
        if total is None:
            total = counts
        else:
            total += counts  # in place: F may have millions of cells
    assert total is not None
    return total


# ---------------------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------------------
def collusion_identity(prior: Any, ps: Any, domain_size: int, trials: int, *, chunk: int, seed: Any) -> dict[str, Any]:
    """Everything that determines `collusion_counts`' result, as plain values.

    The identity of its checkpoint (``ctx.checkpoint(name, **identity)``), also stored in the
    saved state. How the work is run (``block_chunks``, ``store``, the map and the number
    of workers) changes nothing in the counts and is not part of it.
    """
    ss = as_seed_sequence(seed)
    return {
        "version": MC_VERSION,
        "prior": check_distribution("prior", prior).tolist(),
        "ps": check_ps(ps),
        "s": check_s(domain_size),
        "trials": check_trials(trials),
        "chunk": check_int("chunk", chunk, low=1),
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
    block_chunks: int = 1,
    store: str = "dense",
    map: Map = _serial_map,
    workers: int = 1,
    checkpoint: Checkpoint | None = None,
    checkpoint_seconds: float = 30.0,
    log: Callable[[str], None] | None = None,
    progress: Callable[..., Iterable[Any]] | None = None,
) -> np.ndarray:
    """F[X, Y_1, ..., Y_k] after ``trials`` simulated tuples (see the module docstring).

    The counts depend on ``prior`` to ``seed`` alone; the keyword arguments after ``seed``
    say how the work runs and never change them.

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
        Tuples per chunk (one table perturbed by one `MultiLevelPerturber`).
    seed : int or SeedSequence
        Chunk c uses the SeedSequence's child c.
    block_chunks : int
        Chunks per block, the unit of work handed to ``map``.
    store : {"dense", "history"}
        The perturber's store; both release identical copies.
    map : callable
        ``map(fn, items) -> [fn(item) for item in items]``, possibly in parallel (``ctx.map``).
    workers : int
        Blocks handed to ``map`` per round (the number of workers).
    checkpoint : object with ``load()`` and ``save(**arrays)``, optional
        Where the partial counts go (``ctx.checkpoint(...)`` with `collusion_identity`); a
        saved state of another identity is refused, one that does not add up is refused.
    checkpoint_seconds : float
        Save at most this often (and always after the last round).
    log : callable, optional
        Receives one-line messages (resuming, throughput).
    progress : callable, optional
        ``progress(iterable, total=, desc=)`` wraps the rounds (``ctx.progress``).

    Returns
    -------
    ndarray of int64, shape (s,) * (1 + k)
        The counts; they sum to ``trials``.
    """
    identity = collusion_identity(prior, ps, domain_size, trials, chunk=chunk, seed=seed)
    law, checked, s = np.asarray(identity["prior"]), identity["ps"], identity["s"]
    cells = s ** (1 + len(checked))
    if cells > MAX_CELLS:
        raise PrivlabError(
            f"domain_size {s} with {len(checked)} copies needs {cells:,} cells of F; at most {MAX_CELLS:,} fit"
        )
    block_chunks = check_int("block_chunks", block_chunks, low=1)
    store = check_choice("store", store, STORES)
    workers = check_int("workers", workers, low=1)
    checkpoint_seconds = check_real("checkpoint_seconds", checkpoint_seconds, low=0)
    ss = as_seed_sequence(seed)
    n_chunks = -(-trials // chunk)
    sizes = np.minimum(chunk, trials - chunk * np.arange(n_chunks, dtype=np.int64))

    key = np.array(json.dumps(identity, sort_keys=True))
    F, done = _resume(checkpoint, key, cells, sizes)
    if log and done.any():
        state = "reusing finished counts" if done.all() else "resuming"
        log(f"multilevel MC: {state} with {int(done.sum())}/{n_chunks} chunks done")
    todo = np.flatnonzero(~done).tolist()
    blocks = [todo[i : i + block_chunks] for i in range(0, len(todo), block_chunks)]
    rounds = [blocks[i : i + workers] for i in range(0, len(blocks), workers)]
    wrap = progress or (lambda it, **_: it)
    last_save, start = time.monotonic(), time.perf_counter()
    for r, round_blocks in enumerate(wrap(rounds, total=len(rounds), desc="multilevel MC")):
        items = [(law, checked, s, [(int(sizes[c]), child_seed(ss, c)) for c in b], store) for b in round_blocks]
        for b, counts in zip(round_blocks, map(_block_counts, items)):
            F += counts
            done[b] = True
        if checkpoint is not None and (r == len(rounds) - 1 or time.monotonic() - last_save >= checkpoint_seconds):
            checkpoint.save(F=F, done=done, identity=key)
            last_save = time.monotonic()
    if log and todo:
        ran, elapsed = int(sizes[todo].sum()), time.perf_counter() - start
        log(f"multilevel MC: {ran:,} trials in {elapsed:.1f} s = {ran / elapsed / workers:,.0f} trials/s per worker")
    if int(F.sum()) != trials:
        raise RuntimeError(f"MC counts hold {int(F.sum())} trials, expected {trials}")
    return F.reshape((s,) * (1 + len(checked)))


def _resume(
    checkpoint: Checkpoint | None, key: np.ndarray, cells: int, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The saved (F, chunks done) of this run, checked, or a fresh start."""
    saved = checkpoint.load() if checkpoint is not None else None
    if saved is None:
        return np.zeros(cells, dtype=np.int64), np.zeros(sizes.size, dtype=bool)
    if str(saved.get("identity", "")) != str(key):
        raise PrivlabError("the checkpoint holds counts of another Monte Carlo run (its identity differs)")
    F, done = np.asarray(saved["F"], dtype=np.int64), np.asarray(saved["done"], dtype=bool)
    if F.shape != (cells,) or done.shape != sizes.shape:
        raise PrivlabError(
            f"the checkpoint's arrays have shapes {F.shape}, {done.shape}; expected ({cells},), {sizes.shape}"
        )
    if int(F.sum()) != int(sizes[done].sum()):
        raise PrivlabError(
            f"the checkpoint's counts hold {int(F.sum())} trials, its finished chunks {int(sizes[done].sum())}"
        )
    return F.copy(), done.copy()


# ---------------------------------------------------------------------------------------
# reading F
# ---------------------------------------------------------------------------------------
def margin(F: np.ndarray, i: int) -> np.ndarray:
    """The (X, Y_i) counts of F[X, Y_1, ..., Y_k]: an s x s array (i is the copy's index, 0-based)."""
    k = F.ndim - 1
    i = check_int("i", i, low=0, high=k - 1)
    other = tuple(a for a in range(1, k + 1) if a != i + 1)
    return F.sum(axis=other) if other else F


def counts_given(F: np.ndarray, observed: Mapping[int, int]) -> np.ndarray:
    """Counts of X among the trials whose copies take the ``observed`` values (copy index -> code)."""
    k, s = F.ndim - 1, F.shape[0]
    index: list[Any] = [slice(None)] * (1 + k)
    for i, y in observed.items():
        index[1 + check_int("observed copy index", i, low=0, high=k - 1)] = check_int(
            f"observed[{i}]", y, low=0, high=s - 1
        )
    sub = F[tuple(index)]
    return sub.reshape(s, -1).sum(axis=1) if sub.ndim > 1 else sub
