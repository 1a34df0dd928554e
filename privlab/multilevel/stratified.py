"""The collusion Monte Carlo's fast kernel: one chunk of multi-pert trials, stratified by X.

A chunk of ``n`` trials draws how many of them have X = x (a multinomial draw, the law of
the histogram of ``n`` draws of X), then, for each x in turn, simulates the copies of its
trials with multi-pert's release steps in request order, exactly as `MultiLevelPerturber`
decides them: a copy with no released p below it keeps its upper neighbour's value with
probability p/p_l, else takes a uniform value; a copy between two released ones keeps
y_l with probability u, y_r with probability v, else a uniform value (``uv``, Equations 3
and 4, the mechanism's own formula). The counts of one x go to that x's slice F[x] of
s^k cells (125,000 for s = 50: half a megabyte of uint32, resident in a core's cache)
instead of random increments into the whole s^(1+k) table, which is what made the
per-trial engine memory-bound.

Randomness (`release_plan` and `collusion_chunk_stratified`): the chunk's SeedSequence
seeds one SFC64 generator. It draws the multinomial counts of X first, then, per x (in
order 0..s-1) and per batch of at most `BATCH` trials, ``ceil(d * b / 2)`` raw 64-bit
words, read as ``d * b`` 32-bit coins: coins ``j*b .. (j+1)*b - 1`` decide the j-th drawn
copy (one coin per trial and decision; a repeated p or p = 1 draws nothing). A coin below
the integer threshold ``round(prob * 2**32)`` takes the branch of probability prob; the
uniform value of the remaining branch is the coin's residue modulo s. Given the branch,
the coin is uniform on a range of at least ``2**32 * (1 - u - v)`` integers, so each value's
probability deviates from its exact value by less than one part in 2**32 of the whole:
far below Monte Carlo error at 10^10 trials.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_distribution, check_int
from ._checks import as_seed_sequence, check_cells, check_ps, check_s
from .perturbation import threshold, uv

__all__ = ["BATCH", "Step", "release_plan", "collusion_chunk_stratified"]

BATCH = 1 << 15  # trials per vectorised batch (part of what a seed produces: MC_VERSION)
_TWO32 = 1 << 32


@dataclass(frozen=True)
class Step:
    """How the copy of one request is drawn.

    kind : "x" (p = 1: the original), "same" (a repeated p: the copy ``left``),
        "from" (keep copy ``left`` with probability thresholds[0] / 2**32, else uniform), or
        "between" (thresholds: u+v when y_l = y_r, u and u+v when y_l != y_r).
    left, right : index of the copy (in request order) at p_l and p_r; -1 is X itself.
    probs : the branch probabilities the thresholds round: (p/p_l,) for "from"; (u+v when
        y_l = y_r, u and v when y_l != y_r) for "between" (the multinomial kernel draws
        with these).
    """

    kind: str
    left: int = -1
    right: int = -1
    thresholds: tuple[int, ...] = ()
    probs: tuple[float, ...] = ()


def release_plan(ps: Any, domain_size: int) -> list[Step]:
    """multi-pert's release steps for requests at ``ps`` in order (as `MultiLevelPerturber.release`).

    Parameters
    ----------
    ps : sequence of float
        Retention probabilities in request order.
    domain_size : int
        s >= 2.

    Returns
    -------
    list of Step
        One per request.
    """
    s, checked = check_s(domain_size), check_ps(ps)
    released: list[float] = []  # ascending
    where: dict[float, int] = {}  # released p -> index of its copy
    steps: list[Step] = []
    for j, p in enumerate(checked):
        if p in where:
            steps.append(Step("same", left=where[p]))
            continue
        i = bisect.bisect_left(released, p)
        p_l = released[i] if i < len(released) else 1.0
        p_r = released[i - 1] if i > 0 else None
        left = where.get(p_l, -1)
        if p == 1.0:
            steps.append(Step("x"))
        elif p_r is None:
            keep = p / p_l
            steps.append(Step("from", left=left, thresholds=(int(threshold(keep)),), probs=(keep,)))
        else:
            u_eq, v_eq, u_ne, v_ne = uv(p, p_l, p_r, s)
            t = (int(threshold(u_eq + v_eq)), int(threshold(u_ne)), int(threshold(u_ne + v_ne)))
            probs = (u_eq + v_eq, u_ne, v_ne)
            steps.append(Step("between", left=left, right=where[p_r], thresholds=t, probs=probs))
        where[p] = j
        released.insert(i, p)
    return steps


def _below(coin: np.ndarray, t: int) -> np.ndarray:
    """coin < t for a 32-bit coin and an integer threshold in [0, 2**32]."""
    if t <= 0:
        return np.zeros(coin.shape, dtype=bool)
    if t >= _TWO32:
        return np.ones(coin.shape, dtype=bool)
    return coin < np.uint32(t)


def _blend(take: np.ndarray, a: Any, b: np.ndarray, dtype: Any) -> np.ndarray:
    """``where(take, a, b)`` by wrapping arithmetic in the code dtype (SIMD, no casts)."""
    out = np.subtract(a, b, dtype=dtype)
    out *= take.view(np.uint8).astype(dtype, copy=False)
    out += b
    return out


def _stratum_cells(x: int, size: int, coins: list[np.ndarray], steps: list[Step], s: int, dtype: Any) -> np.ndarray:
    """Cell indices (into F[x], row-major over the copies) of ``size`` trials with X = x."""
    xc = dtype(x)
    modulus = np.uint32(s)
    copies: list[Any] = []
    drawn = 0
    for step in steps:
        if step.kind == "same":
            copies.append(copies[step.left])
            continue
        if step.kind == "x":
            copies.append(np.full(size, xc, dtype=dtype))
            continue
        coin = coins[drawn]
        drawn += 1
        y_l = xc if step.left < 0 else copies[step.left]
        q = coin // modulus
        q *= modulus
        value = np.subtract(coin, q, out=q).astype(dtype)  # coin mod s: the uniform draw
        if step.kind == "from":
            copies.append(_blend(_below(coin, step.thresholds[0]), y_l, value, dtype))
            continue
        y_r = copies[step.right]
        t_eq, t_u, t_uv = step.thresholds
        eq = y_r == y_l
        ne = ~eq
        to_r = _below(coin, t_eq)  # y_l = y_r: either neighbour's value
        to_r &= eq
        to_r |= _below(coin, t_uv) & ne
        to_l = _below(coin, t_u)
        to_l &= ne
        copies.append(_blend(to_l, y_l, _blend(to_r, y_r, value, dtype), dtype))
    cells = copies[0].astype(np.uint32)
    for y in copies[1:]:
        cells *= modulus
        cells += y.astype(np.uint32)
    return cells.astype(np.intp)


def collusion_chunk_stratified(
    prior: Any, ps: Any, domain_size: int, n: int, seed: Any, out: np.ndarray | None = None
) -> np.ndarray:
    """One chunk of the collusion Monte Carlo, stratified by X (see the module docstring).

    Parameters
    ----------
    prior : array of float
        The law of X on 0..s-1.
    ps : sequence of float
        Retention probabilities in request order (k copies).
    domain_size : int
        s >= 2.
    n : int
        Trials in the chunk, 1 <= n < 2**32.
    seed : int or SeedSequence
        The chunk's seed.
    out : ndarray of uint32, shape (s, s**k), optional
        Counts to add to in place (its cells must stay below 2**32: at most 2**32 - 1
        trials in all); a new zero table when omitted.

    Returns
    -------
    ndarray of uint32, shape (s, s**k)
        ``out`` (or the new table) with the chunk's counts F[X, (Y_1, ..., Y_k)] added.
    """
    s = check_s(domain_size)
    law = check_distribution("prior", prior)
    if law.size != s:
        raise PrivlabError(f"prior must have domain_size = {s} entries, got {law.size}")
    steps = release_plan(ps, s)
    n = check_int("n", n, low=1, high=_TWO32 - 1)
    cells = s ** len(steps)
    check_cells(f"F: domain_size {s:,} to the power 1 + {len(steps)} copies", s * cells)
    if out is None:
        out = np.zeros((s, cells), dtype=np.uint32)
    if out.shape != (s, cells) or out.dtype != np.uint32:
        raise PrivlabError(f"out must be a uint32 array of shape ({s}, {cells}); got {out.dtype} {out.shape}")
    dtype = np.uint8 if s <= 256 else np.uint16
    drawn = sum(step.kind in ("from", "between") for step in steps)
    bits = np.random.SFC64(as_seed_sequence(seed))
    per_x = np.random.Generator(bits).multinomial(n, law / law.sum())
    one = np.uint32(1)
    for x in np.flatnonzero(per_x).tolist():
        row, left = out[x], int(per_x[x])
        while left:
            b = min(BATCH, left)
            words = bits.random_raw(-(-drawn * b // 2)).view(np.uint32)
            coins = [words[j * b : (j + 1) * b] for j in range(drawn)]
            np.add.at(row, _stratum_cells(x, b, coins, steps, s, dtype), one)
            left -= b
    return out
