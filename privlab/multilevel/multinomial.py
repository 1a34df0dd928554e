"""The collusion Monte Carlo's multinomial kernel: the counts of N trials drawn stage by stage.

The counts F[X, Y_1, ..., Y_k] of N independent trials are one multinomial draw over the
s^(1+k) cells. They are drawn here the way multi-pert generates a trial, one stage at a
time, with counts in place of trials (sequential multinomial splitting):

- the counts of X: a multinomial draw of N over the prior;
- for each copy in request order and each cell (x, y_1, ..., y_{j-1}) of the copies drawn
  so far, the counts of Y_j: a multinomial draw of the cell's count over the mechanism's own
  conditional law of Y_j given that cell (`release_plan`): keep y_l with probability u,
  keep y_r with probability v, else a uniform value (a copy with no released p below it:
  keep y_l with probability p/p_l, else uniform; a repeated p or p = 1: no draw at all).

Splitting a multinomial count by a conditional law gives the multinomial of the refined
cells, so F has exactly the law of N trials of the per-trial kernels, with the branch
probabilities in double precision rather than rounded to 32-bit thresholds. The work is one
branch split and one uniform split per non-empty cell of each stage: O(s^(1+k)) draws
(s^k binomial draws of numpy's exact samplers at the last stage), whatever N (up to 2^63).

Randomness: the counts of X come from an SFC64 generator seeded by the run's SeedSequence;
the trials with X = x (a *stratum*, the engine's unit of work and of resumption) from child
``x`` of it. Within a stratum, each stage visits its non-empty cells in row-major order and
draws, for all of them at once, the branch counts (``binomial``; between two released
copies, those keeping y_r from what did not keep y_l where y_l != y_r), then the uniform
part (``multinomial`` over s equal probabilities).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import PrivlabError, check_distribution, check_int
from ._checks import as_seed_sequence, check_cells, check_s, child_seed
from .stratified import Step, release_plan

__all__ = ["prior_counts", "stratum_counts", "collusion_counts_multinomial"]

_MAX_TRIALS = 2**62  # counts and their sums stay inside int64


def prior_counts(prior: Any, trials: int, seed: Any) -> np.ndarray:
    """The counts of X among ``trials`` trials: one multinomial draw over ``prior``.

    Parameters
    ----------
    prior : array of float
        The law of X on 0..s-1.
    trials : int
        Trials, 0 <= trials <= 2**62.
    seed : int or SeedSequence
        The run's seed (its children seed the strata, `stratum_counts`).

    Returns
    -------
    ndarray of int64, shape (s,)
    """
    law = check_distribution("prior", prior)
    trials = check_int("trials", trials, low=0, high=_MAX_TRIALS)
    rng = np.random.Generator(np.random.SFC64(as_seed_sequence(seed)))
    return rng.multinomial(trials, law / law.sum()).astype(np.int64)


def _copy_values(i: int, cells: np.ndarray, x: int, copies: int, s: int) -> np.ndarray:
    """Value of copy ``i`` (-1: X itself, = x) in each of ``cells`` (row-major over ``copies`` copies)."""
    if i < 0:
        return np.full(cells.size, x, dtype=np.int64)
    return (cells // s ** (copies - 1 - i)) % s


def _split(step: Step, counts: np.ndarray, y_l: np.ndarray, y_r: np.ndarray | None, rng: np.random.Generator):
    """(kept y_l, kept y_r or None, left to the uniform draw) for each cell's count."""
    if step.kind == "from":
        keep = rng.binomial(counts, min(1.0, step.probs[0]))
        return keep, None, counts - keep
    assert y_r is not None
    keep_eq, u, v = step.probs
    eq = y_l == y_r
    keep = rng.binomial(counts, np.where(eq, min(1.0, keep_eq), u))
    ne = np.flatnonzero(~eq)
    to_r = np.zeros_like(counts)
    # y_r among the trials that did not keep y_l: v / (1 - u) (u < 1: p is below p_l)
    to_r[ne] = rng.binomial(counts[ne] - keep[ne], min(1.0, v / (1.0 - u)))
    return keep, to_r, counts - keep - to_r


def stratum_counts(x: int, n: int, steps: list[Step], domain_size: int, seed: Any) -> np.ndarray:
    """The counts of (Y_1, ..., Y_k) among ``n`` trials with X = ``x``, stage by stage.

    Parameters
    ----------
    x : int
        The value of X, a code 0..s-1.
    n : int
        Trials with X = x, 0 <= n <= 2**62.
    steps : list of Step
        multi-pert's release steps (`release_plan`), one per copy.
    domain_size : int
        s >= 2.
    seed : int or SeedSequence
        The stratum's seed (child ``x`` of the run's).

    Returns
    -------
    ndarray of int64, shape (s ** k,)
        Row-major over (Y_1, ..., Y_k); sums to ``n``.
    """
    s = check_s(domain_size)
    x = check_int("x", x, low=0, high=s - 1)
    n = check_int("n", n, low=0, high=_MAX_TRIALS)
    check_cells(f"F[x]: domain_size {s:,} to the power {len(steps)} copies", s ** len(steps))
    rng = np.random.Generator(np.random.SFC64(as_seed_sequence(seed)))
    uniform = np.full(s, 1.0 / s)
    counts = np.array([n], dtype=np.int64)  # one cell: no copy drawn yet
    for j, step in enumerate(steps):
        cells = np.flatnonzero(counts)
        c = counts[cells]
        out = np.zeros((counts.size, s), dtype=np.int64)
        rows = np.arange(cells.size)
        if step.kind == "x":
            out[cells, x] = c
        elif step.kind == "same":
            out[cells, _copy_values(step.left, cells, x, j, s)] = c
        else:
            y_l = _copy_values(step.left, cells, x, j, s)
            y_r = _copy_values(step.right, cells, x, j, s) if step.kind == "between" else None
            keep, to_r, rest = _split(step, c, y_l, y_r, rng)
            drawn = rng.multinomial(rest, uniform)
            drawn[rows, y_l] += keep
            if to_r is not None:
                drawn[rows, y_r] += to_r
            out[cells] = drawn
        counts = out.reshape(-1)
    return counts


def collusion_counts_multinomial(prior: Any, ps: Any, domain_size: int, trials: int, seed: Any) -> np.ndarray:
    """F[X, Y_1, ..., Y_k] of ``trials`` trials by sequential multinomial splitting (module docstring).

    What `collusion_counts(..., kernel="multinomial")` returns for the same seed, whatever its
    workers: the counts of X (`prior_counts`), then each stratum x from child x of ``seed``.

    Parameters
    ----------
    prior : array of float
        The law of X on 0..s-1.
    ps : sequence of float
        Retention probabilities in request order (k copies).
    domain_size : int
        s >= 2, with s^(1+k) cells at most `MAX_CELLS`.
    trials : int
        Trials, 0 <= trials <= 2**62.
    seed : int or SeedSequence

    Returns
    -------
    ndarray of int64, shape (s, s**k)
    """
    s = check_s(domain_size)
    law = check_distribution("prior", prior)
    if law.size != s:
        raise PrivlabError(f"prior must have domain_size = {s} entries, got {law.size}")
    steps = release_plan(ps, s)
    check_cells(f"F: domain_size {s:,} to the power 1 + {len(steps)} copies", s ** (1 + len(steps)))
    ss = as_seed_sequence(seed)
    per_x = prior_counts(law, trials, ss)
    return np.stack([stratum_counts(x, int(n), steps, s, child_seed(ss, x)) for x, n in enumerate(per_x)])
