"""Figure 8: what multi-pert's history store costs, beside the naive store of every copy."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import MapFn, PrivlabError, check_array, check_callable, map_in_order
from ..constraints import Int, Real
from ..validation import validate_params
from ._checks import as_seed_sequence, check_cells, check_s, child_seed
from .exact import expected_change_points
from .perturbation import MultiLevelPerturber

__all__ = ["measure_overhead", "overhead_table", "change_points_se"]


@validate_params(n=Int(1), m=Int(1), c=Real(0, 1, low_open=True, high_open=True), step=Int(1), naive_max_bytes=Int(0))
def measure_overhead(
    n: int, m: int, domain_size: int, c: float, step: int, naive_max_bytes: int, seed: Any, timed: bool = True
) -> list[dict[str, float]]:
    """Release ``m`` copies of an ``n``-tuple table at p's uniform in [c, 1); measure every ``step``.

    Both stores release the same copies (same seed); the naive one is timed only while its
    ``n * m * 4`` bytes fit under ``naive_max_bytes``.

    Parameters
    ----------
    n : int
        Tuples, >= 1 (values uniform on the domain).
    m : int
        Releases, >= 1.
    domain_size : int
        s >= 2.
    c : float
        Smallest retention probability, in (0, 1).
    step : int
        Measure after every ``step`` releases (and after the last).
    naive_max_bytes : int
        Memory allowed to the naive store.
    seed : int or SeedSequence
        Child 0 draws the p's, child 1 the table, child 2 the perturbation.
    timed : bool
        Measure wall-clock times; False leaves them NaN (a deterministic table).

    Returns
    -------
    list of dict
        Per measurement: n, m, change points per tuple (measured and exact expectation),
        Lemma 2's bound ln(1/min p), bytes stored by the history and the naive store, and
        milliseconds per release of each (wall clock, machine dependent; NaN when the naive
        store was not run or ``timed`` is False).
    """
    check_cells(f"measure_overhead: a table of n = {n:,} tuples", n)
    check_cells(f"measure_overhead: m = {m:,} releases", m)
    s = check_s(domain_size)
    ss = as_seed_sequence(seed)
    p_seed, x_seed, h_seed = (child_seed(ss, i) for i in range(3))
    ps = np.random.default_rng(p_seed).uniform(c, 1.0, m)
    x = np.random.default_rng(x_seed).integers(0, s, n)
    hist = MultiLevelPerturber(x, s, h_seed)
    dense = MultiLevelPerturber(x, s, h_seed, store="dense") if n * m * 4 <= naive_max_bytes else None
    rows, t_h, t_d = [], 0.0, 0.0
    clock = time.perf_counter if timed else (lambda: math.nan)
    for j, p in enumerate(ps, start=1):
        t0 = clock()
        hist.release(p)
        t_h += clock() - t0
        if dense is not None:
            t0 = clock()
            dense.release(p)
            t_d += clock() - t0
        if j % step == 0 or j == m:
            rows.append(
                {
                    "n": n,
                    "m": j,
                    "change_points_per_tuple": hist.change_points() / n,
                    "expected_change_points": expected_change_points(ps[:j], s),
                    "lemma2_bound": math.log(1 / ps[:j].min()),
                    "history_bytes": hist.stored_bytes(),
                    "naive_bytes": n * j * 4 + 8 * j,
                    "history_ms_per_release": 1000 * t_h / step,
                    "naive_ms_per_release": 1000 * t_d / step if dense is not None else np.nan,
                }
            )
            t_h = t_d = 0.0
    return rows


def _measure(args: tuple[Any, ...]) -> list[dict[str, float]]:
    return measure_overhead(*args)


def overhead_table(
    table_sizes: Sequence[int],
    m: int,
    domain_size: int,
    c: float,
    step: int,
    naive_max_bytes: int,
    *,
    seed_sequence: Callable[[int], Any],
    timed: bool = True,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Figure 8: `measure_overhead` at every table size, as one table.

    Parameters
    ----------
    table_sizes : sequence of int
        The n of each table, in the table's order.
    m, domain_size, c, step, naive_max_bytes, timed
        As in `measure_overhead`.
    seed_sequence : callable
        ``seed_sequence(n)`` -> the seed of the table of size n (e.g. a bound
        ``RunContext.seed_sequence``).
    map_fn : callable, optional
        ``map_fn(fn, items) -> list`` in order; serial by default. For timings, run one table
        size at a time, so that workers do not compete for memory bandwidth.

    Returns
    -------
    DataFrame
        `measure_overhead`'s rows of every table size, in order.
    """
    if isinstance(table_sizes, (str, bytes)) or not isinstance(table_sizes, Sequence) or not table_sizes:
        raise PrivlabError(f"table_sizes must be a non-empty list of table sizes, got {table_sizes!r}")
    check_callable("seed_sequence", seed_sequence)
    check_callable("map_fn", map_fn, optional=True)
    items = [(n, m, domain_size, c, step, naive_max_bytes, seed_sequence(n), timed) for n in table_sizes]
    parts = map_in_order(_measure, items, map_fn)
    return pd.DataFrame([row for part in parts for row in part])


def change_points_se(expected: Any, n: Any) -> np.ndarray:
    """Standard error (an upper bound) of the mean change points per tuple over ``n`` tuples.

    A tuple's count is a sum of independent Bernoulli changes along the chain, so its
    variance is at most its mean ``expected``: s.e. <= sqrt(expected / n).
    """
    mean = check_array("expected", np.atleast_1d(expected), dtype=float, min_size=0)
    size = check_array("n", np.atleast_1d(n), dtype=float, min_size=0)
    if np.any(mean < 0) or np.any(size <= 0):
        raise PrivlabError("expected must be >= 0 and n > 0 (change points per tuple over n tuples)")
    return np.sqrt(np.asarray(expected, dtype=float) / np.asarray(n, dtype=float))
