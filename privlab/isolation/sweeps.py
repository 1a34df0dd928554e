"""The experiments' sweeps: one Monte Carlo engine call per cell of a parameter grid, assembled into a table.

Each function runs an engine of `privlab.isolation.simulation` (or `mixture_utility`) over a
grid of the talk's parameters: the results table over d (`results_table`), the privacy
parameters c and T (`c_T_table`), the bad sanitizer over its disclosed attributes
(`bad_sanitizer_table`), real data beside the uniform cube (`real_data_table`) and utility
over d (`utility_table`). Cells are independent tasks for ``map_fn`` (e.g. a parallel map;
serial without one), and every random stream is ``seed_sequence(*key)`` for a key naming
the cell and the stream (`stream_seeds`), so no row depends on which other cells run, in
what order or on how many workers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import (
    MapFn,
    PrivlabError,
    SeedSequenceFn,
    _fmt,
    check_array,
    check_callable,
    check_choice,
    check_int,
    check_real,
    map_in_order,
)
from ._checks import check_values
from .data import SCALINGS, scale_to_cube, uniform_cube
from .mechanisms import Sanitizer
from .rates import best_last
from .simulation import bad_sanitizer_rows, cube_attack, holdout_attack, seed_names
from .utility import mixture_utility

__all__ = ["stream_seeds", "results_table", "c_T_table", "bad_sanitizer_table", "real_data_table", "utility_table"]

Task = tuple[Callable[..., list[dict[str, Any]]], dict[str, Any], dict[str, Any], dict[str, Any]]


def stream_seeds(
    seed_sequence: SeedSequenceFn, sanitizers: Iterable[tuple[str, Sanitizer]], *key: Any
) -> dict[str, np.random.SeedSequence]:
    """The seeds of one cell: ``seed_sequence(*key, name)`` for every stream the engines and
    ``sanitizers`` draw from (`seed_names`)."""
    check_callable("seed_sequence", seed_sequence)
    return {name: seed_sequence(*key, name) for name in seed_names(s for _, s in sanitizers)}


def _check_sanitizers(sanitizers: Any) -> list[tuple[str, Sanitizer]]:
    """A non-empty sequence of (label, Sanitizer) pairs with distinct labels, as a list."""
    if isinstance(sanitizers, (str, bytes)) or not isinstance(sanitizers, Sequence) or not sanitizers:
        raise PrivlabError(f"sanitizers must be a non-empty list of (label, Sanitizer) pairs, got {_fmt(sanitizers)}")
    for item in sanitizers:
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[1], Sanitizer)):
            raise PrivlabError(f"sanitizers must be (label, Sanitizer) pairs, got {_fmt(item)}")
    labels = [label for label, _ in sanitizers]
    if len(set(labels)) < len(labels):
        raise PrivlabError(f"sanitizers must have distinct labels, got {labels}")
    return [(label, san) for label, san in sanitizers]


def _check_callables(seed_sequence: Any, map_fn: Any) -> None:
    check_callable("seed_sequence", seed_sequence)
    check_callable("map_fn", map_fn, optional=True)


def _labelled_rows(task: Task) -> list[dict[str, Any]]:
    """The worker of every sweep: an engine's rows for one cell, with the cell's labels around them."""
    engine, head, kw, tail = task
    return [{**head, **r, **tail} for r in engine(**kw)]


def _run(tasks: list[Task], map_fn: MapFn | None) -> list[list[dict[str, Any]]]:
    """Every task's rows, in the order of ``tasks``."""
    return map_in_order(_labelled_rows, tasks, map_fn)


def results_table(
    n: int,
    dims: Sequence[int],
    T: int,
    c: float,
    m: int,
    sanitizers: Sequence[tuple[str, Sanitizer]],
    seed_sequence: SeedSequenceFn,
    *,
    m_any: int | None = None,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """The talk's results table (slide 24) by simulation: `cube_attack` at every d.

    One task per d, the costliest (largest d) first so that parallel workers finish together;
    each task draws its d's database from the seeds ``("vs_d", d, name)`` and every sanitizer
    of that d attacks it, sharing its distance index (the targets' T-th neighbours, the
    costliest part of the isolation test, are found once per d, not once per sanitizer).

    Parameters
    ----------
    n, T, c, m, m_any :
        As in `cube_attack` (n points, privacy parameters, targets, outputs asked about anyone).
    dims : sequence of distinct int >= 1
    sanitizers : sequence of (label, Sanitizer)
    seed_sequence : callable
        ``seed_sequence(*key) -> SeedSequence``.
    map_fn : callable, optional
        ``map(fn, items) -> list`` in order (e.g. ``RunContext.map``); serial otherwise.

    Returns
    -------
    DataFrame
        Per d (in the order of ``dims``): every sanitizer's adversary rows, then the best-of
        rows; columns ``d``, ``n``, ``T``, the `attack` columns and ``talk_bound`` = 2^-d.
    """
    _check_callables(seed_sequence, map_fn)
    n, m = check_int("n", n, low=2), check_int("m", m, low=1)
    dims = check_values("dims", dims, check_int, unique=True, low=1)
    T, c = check_int("T", T, low=1, high=n), check_real("c", c, low=1)
    sanitizers = _check_sanitizers(sanitizers)
    order = sorted(dims, key=lambda d: -d)
    kw = {"n": n, "T": T, "cs": [c], "m": m, "m_any": m_any, "sanitizers": sanitizers}
    tasks: list[Task] = [
        (
            cube_attack,
            {"d": d, "n": n, "T": T},
            {**kw, "d": d, "seeds": stream_seeds(seed_sequence, sanitizers, "vs_d", d)},
            {"talk_bound": 2.0**-d},
        )
        for d in order
    ]
    out = dict(zip(order, _run(tasks, map_fn)))
    rows = [r for d in dims for r in best_last(out[d])]
    return pd.DataFrame(rows).drop(columns=["c"])


def c_T_table(
    n: int,
    d: int,
    cs: Sequence[float],
    Ts: Sequence[int],
    m: int,
    sanitizers: Sequence[tuple[str, Sanitizer]],
    seed_sequence: SeedSequenceFn,
    *,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Isolation rates vs the privacy parameters: `cube_attack` at every T (one task each) and c,
    all on one database (seeds ``("c_T", name)``).

    Parameters
    ----------
    n, d, m :
        Points and dimension of the database, targets.
    cs : sequence of float >= 1
    Ts : sequence of int >= 1
        A sanitizer is left out at a T below its ``min_T``.
    sanitizers, seed_sequence, map_fn :
        As in `results_table`.

    Returns
    -------
    DataFrame
        Columns ``d``, ``T`` and the `attack` columns, per T in the order of ``Ts``.
    """
    _check_callables(seed_sequence, map_fn)
    n, m = check_int("n", n, low=2), check_int("m", m, low=1)
    d = check_int("d", d, low=1)
    cs = check_values("cs", cs, check_real, low=1)
    Ts = check_values("Ts", Ts, check_int, low=1, high=n)
    sanitizers = _check_sanitizers(sanitizers)
    kw = {"n": n, "d": d, "cs": cs, "m": m, "seeds": stream_seeds(seed_sequence, sanitizers, "c_T")}
    tasks: list[Task] = [(cube_attack, {"T": T}, {**kw, "T": T, "sanitizers": sanitizers}, {}) for T in Ts]
    df = pd.DataFrame([r for chunk in _run(tasks, map_fn) for r in chunk])
    df.insert(0, "d", d)
    return df


def bad_sanitizer_table(
    n: int,
    d: int,
    T: int,
    c: float,
    m: int,
    stretches: Sequence[float],
    seed_sequence: SeedSequenceFn,
    *,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """`bad_sanitizer_rows` for every stretch of the disguised attributes and every number of
    disclosed attributes ``0..d-1`` (seeds ``("bad", stretch, disclosed, name)``).

    Returns
    -------
    DataFrame
        Columns ``d`` and the `bad_sanitizer_rows` columns, stretch by stretch.
    """
    _check_callables(seed_sequence, map_fn)
    n, m = check_int("n", n, low=2), check_int("m", m, low=1)
    d = check_int("d", d, low=1)
    T, c = check_int("T", T, low=1, high=n), check_real("c", c, low=1)
    stretches = check_values("stretches", stretches, check_real, low=0, low_open=True)
    kw = {"n": n, "d": d, "T": T, "c": c, "m": m}
    tasks: list[Task] = [
        (
            bad_sanitizer_rows,
            {},
            {**kw, "stretch": s, "disclosed": k, "seeds": stream_seeds(seed_sequence, [], "bad", s, k)},
            {},
        )
        for s in stretches
        for k in range(d)
    ]
    df = pd.DataFrame([r for chunk in _run(tasks, map_fn) for r in chunk])
    df.insert(0, "d", d)
    return df


def real_data_table(
    records: Any,
    scalings: Sequence[str],
    T: int,
    c: float,
    m: int,
    sanitizers: Sequence[tuple[str, Sanitizer]],
    seed_sequence: SeedSequenceFn,
    *,
    data: str,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """`holdout_attack` on real records scaled to the cube in each way of ``scalings`` (jitter
    seed ``("real", "jitter", scaling)``), and on as many uniform points of the same d (seed
    ``("real", "uniform")``), the reference; the attack seeds are ``("real", scaling or
    "uniform", name)``.

    Parameters
    ----------
    records : array (N, d)
        The real records (`numeric_records`).
    scalings : sequence of distinct str in `SCALINGS`
    T, c, m :
        Privacy parameters and targets (as many records are held out for the aux-only baseline).
    data : str
        The data set's name: the ``data`` column reads ``<data>_<scaling>`` and ``uniform_cube``.

    Returns
    -------
    DataFrame
        Columns ``data``, ``n``, ``d`` and the `attack` columns (without ``c``).
    """
    records = check_array("records", records, ndim=2)
    _check_callables(seed_sequence, map_fn)
    m = check_int("m", m, low=1)
    scalings = check_values("scalings", scalings, check_choice, unique=True, allowed=SCALINGS)
    T, c = check_int("T", T, low=1), check_real("c", c, low=1)
    sanitizers = _check_sanitizers(sanitizers)
    X = {s: scale_to_cube(records, seed_sequence("real", "jitter", s), scaling=s) for s in scalings}
    X["uniform"] = uniform_cube(records.shape[0], records.shape[1], seed_sequence("real", "uniform"))
    label = {s: "uniform_cube" if s == "uniform" else f"{data}_{s}" for s in X}
    kw = {"T": T, "c": c, "m": m, "sanitizers": sanitizers}
    tasks: list[Task] = [
        (
            holdout_attack,
            {"data": label[s]},
            {**kw, "X": x, "seeds": stream_seeds(seed_sequence, sanitizers, "real", s)},
            {},
        )
        for s, x in X.items()
    ]
    return pd.DataFrame([r for chunk in _run(tasks, map_fn) for r in chunk]).drop(columns=["c"])


def utility_table(
    dims: Sequence[int],
    n: int,
    T: int,
    sanitizers: Sequence[tuple[str, Sanitizer]],
    seed_sequence: SeedSequenceFn,
    *,
    k: int,
    sigma: float,
    n_boxes: int,
    box_dims: int,
    n_init: int,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """`mixture_utility` at every d (one task each, the costliest first; seeds ``("utility", d, name)``).

    Parameters
    ----------
    dims : sequence of distinct int >= 1
    n, T, k, sigma, n_boxes, box_dims, n_init :
        As in `mixture_utility`.

    Returns
    -------
    DataFrame
        The `utility_rows` columns, per d in the order of ``dims``.
    """
    _check_callables(seed_sequence, map_fn)
    n = check_int("n", n, low=2)
    dims = check_values("dims", dims, check_int, unique=True, low=1)
    T = check_int("T", T, low=1, high=n)
    sanitizers = _check_sanitizers(sanitizers)
    kw = {"n": n, "T": T, "k": k, "sigma": sigma, "n_boxes": n_boxes, "box_dims": box_dims, "n_init": n_init}
    order = sorted(dims, reverse=True)
    tasks: list[Task] = [
        (
            mixture_utility,
            {},
            {**kw, "sanitizers": sanitizers, "d": d, "seeds": stream_seeds(seed_sequence, sanitizers, "utility", d)},
            {},
        )
        for d in order
    ]
    out = dict(zip(order, _run(tasks, map_fn)))
    return pd.DataFrame([r for d in dims for r in out[d]])
