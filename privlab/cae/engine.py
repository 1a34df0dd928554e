"""The Monte Carlo of Figures 2 and 4: mean CAE per SK size, over repetitions of a technique.

For every SK size s, every attribute set of that size and every value combination that
occurs in the data, the intruder model of the released artifact gives a distribution over
the confidential domain; its CAE (H0, area) is averaged over the combinations of the set,
then over the sets of size s (`repetition_rows`, one repetition), then over the
repetitions (`summarise`) - "averaged over all samples, all attributes and all values".
Beside each mean, the records their SK identifies uniquely are averaged separately and
compared with their exact expectation (`privlab.cae.exact`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import MapFn, PrivlabError, SeedSequenceFn, check_array, check_callable, check_int, map_in_order
from ._checks import check_instance
from .data import SKData
from .measure import cae_batch, cae_batches
from .techniques import SDCTechnique

__all__ = ["unique_rows", "cae_rows", "repetition_rows", "labelled_rows", "summarise", "run_series", "SUMMARY_COLUMNS"]


def unique_rows(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``P`` and the inverse map, via a 64-bit hash of the rows' bits.

    Exact: the result is verified row by row, with ``np.unique(axis=0)`` as the fallback.
    """
    P = check_array("P", P, ndim=2, dtype=float, min_size=0)
    bits = (P + 0.0).view(np.uint64)  # + 0.0 turns -0.0 into 0.0
    mult = np.random.default_rng(12345).integers(1, 2**63, size=P.shape[1], dtype=np.uint64) | np.uint64(1)
    with np.errstate(over="ignore"):
        # splitmix64-style mixing per entry first: float bit patterns differ mostly in high
        # bits, which a plain multiply-and-add modulo 2^64 would lose
        x = bits * mult
        x ^= x >> np.uint64(31)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
        h = x.sum(axis=1, dtype=np.uint64)
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    uniq = P[first]
    if not np.array_equal(uniq[inverse.ravel()], P):  # a hash collision: fall back to the exact sort
        uniq, inverse = np.unique(P, axis=0, return_inverse=True)
    return uniq, inverse.ravel()


def cae_rows(blocks: Sequence[np.ndarray], grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """CAE ``(H0, area)`` of every row of every block, each distinct distribution evaluated once;
    also the number of distinct rows."""
    if isinstance(blocks, np.ndarray) or not isinstance(blocks, Sequence) or not len(blocks):
        raise PrivlabError("blocks must be a non-empty list of 2-dimensional arrays")
    grid = check_array("grid", grid, dtype=float)
    if any(np.ndim(b) != 2 or np.shape(b)[1] != grid.size for b in blocks):
        raise PrivlabError(f"blocks must be 2-dimensional arrays with one column per grid value ({grid.size})")
    P = np.ascontiguousarray(np.concatenate(list(blocks), axis=0))
    uniq, inverse = unique_rows(P)
    h0, area = cae_batch(grid, uniq)
    return h0[inverse], area[inverse], uniq.shape[0]


# records of shared combinations per call of `Release.probs` (bounds its (records x |D|) arrays)
_PROBS_RECORDS = 2**20


@dataclass(frozen=True)
class _Plan:
    """What `repetition_rows` needs of a data set's SK sets: the same for every release of it.

    Attributes
    ----------
    calls : tuple of (groups, records, n_groups)
        `Release.probs` arguments: every distinct set of records that forms a shared combination
        (one matched by several records) of some attribute set, its records in order, numbered in
        order of first appearance over the sets (per call); the calls' rows, stacked, are those
        distinct record sets in that order.
    shared : ndarray of int
        Every shared combination, set after set (each set's in the order of their ids): the row of
        its record set. Two combinations of the same records have the same distribution, bit for bit.
    sets : tuple of (size, n_groups, singleton ids, shared ids, singletons' records)
        One entry per attribute set, in the order of ``data.sets``.
    alone : dict
        SK size -> the record of every singleton combination of its sets, set after set.
    """

    calls: tuple[tuple[np.ndarray, np.ndarray, int], ...]
    shared: np.ndarray
    sets: tuple[tuple[int, int, np.ndarray, np.ndarray, np.ndarray], ...]
    alone: dict[int, np.ndarray]


def _make_plan(data: SKData) -> _Plan:
    everyone = np.arange(data.n)
    rows: dict[bytes, int] = {}  # a record set (its records' bytes) -> its row
    members: list[np.ndarray] = []
    shared: list[int] = []
    sets: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]] = []
    alone: dict[int, list[np.ndarray]] = {}
    for size, entries in data.sets.items():
        for entry in entries:
            g, G = entry.groups, entry.n_groups
            sizes = np.bincount(g, minlength=G)
            multi = sizes > 1
            # the records of each shared combination, by id, each in record order
            recs = np.flatnonzero(multi[g])
            recs = recs[np.argsort(g[recs], kind="stable")]
            for part in np.split(recs, np.cumsum(sizes[multi])[:-1]) if recs.size else []:
                key = part.tobytes()
                if key not in rows:
                    rows[key] = len(members)
                    members.append(part)
                shared.append(rows[key])
            rec_of_group = np.empty(G, dtype=np.int64)
            rec_of_group[g] = everyone
            single = np.flatnonzero(sizes == 1)
            sets.append((size, G, single, np.flatnonzero(multi), rec_of_group[single]))
            alone.setdefault(size, []).append(rec_of_group[single])
    calls: list[tuple[np.ndarray, np.ndarray, int]] = []
    start = 0
    while start < len(members):  # consecutive record sets, about _PROBS_RECORDS records per call
        stop, n_recs = start, 0
        while stop < len(members) and (stop == start or n_recs + members[stop].size <= _PROBS_RECORDS):
            n_recs += members[stop].size
            stop += 1
        batch = members[start:stop]
        ids = np.repeat(np.arange(len(batch)), [m.size for m in batch])
        calls.append((ids, np.concatenate(batch), len(batch)))
        start = stop
    return _Plan(
        tuple(calls),
        np.asarray(shared, dtype=np.int64),
        tuple(sets),
        {size: np.concatenate(r) for size, r in alone.items()},
    )


def repetition_rows(
    data: SKData, technique: SDCTechnique, level: float, rep: int, seed: Any, lp_check_records: int = 0
) -> list[dict[str, Any]]:
    """One released artifact (one repetition): mean CAE per SK size.

    Parameters
    ----------
    data : SKData
        The coded data set and its SK attribute sets.
    technique : SDCTechnique
        Releases the artifact (`SDCTechnique.release`) and hands it to its checker.
    level : float
        The technique's parameter.
    rep : int
        The repetition's number (copied to the rows).
    seed : SeedSequence
        Drives the release (and the checker's choice of records).
    lp_check_records : int
        Query restriction: records whose bounds the checker re-derives by LP.

    Returns
    -------
    list of dict
        One row per SK size: ``sk_size, rep, H0, area, n_sets, n_combinations,
        n_distinct_shared, n_unique, H0_unique, area_unique, H0_unique_exact,
        area_unique_exact, H0_unique_exact_var, area_unique_exact_var, artifact_violation``.
    """
    check_instance("data", data, SKData, "an SKData (privlab.cae.prepare)")
    check_instance("technique", technique, SDCTechnique, "an SDCTechnique (privlab.cae)")
    rep = check_int("rep", rep, low=0)
    lp_check_records = check_int("lp_check_records", lp_check_records, low=0, high=10_000)
    moments = technique.exact_unique(level, data.n, data.grid)
    return _repetition_rows(data, technique, level, rep, seed, lp_check_records, moments, _make_plan(data))


def _repetition_rows(
    data: SKData,
    technique: SDCTechnique,
    level: float,
    rep: int,
    seed: Any,
    lp_check_records: int,
    moments: Any,
    plan: _Plan,
) -> list[dict[str, Any]]:
    """`repetition_rows` of checked arguments, given the level's exact ``moments`` and the data
    set's ``plan`` (the same for every repetition: `run_series` makes them once)."""
    grid, n, codes = data.grid, data.n, data.codes[:, 0]
    release = technique.release(data, level, seed)
    violation = technique.check(data, release, level, seed, lp_check_records)
    ex_h0, ex_area = moments[:2]
    everyone = np.arange(n)
    # a combination matched by one record leaves the intruder that record's own distribution:
    # evaluate those n distributions once, and full rows only for the shared combinations (every
    # attribute set's at once); one dynamic program for both
    parts = [unique_rows(release.probs(everyone, n, everyone))]
    if plan.calls:
        uniq, inverse = unique_rows(np.concatenate([release.probs(g, G, r) for g, r, G in plan.calls], axis=0))
        parts.append((uniq, inverse[plan.shared]))
    cae = cae_batches(grid, [uniq for uniq, _ in parts])
    rec_h0, rec_area = (v[parts[0][1]] for v in cae[0])
    h0m, aream = (v[parts[1][1]] for v in cae[1]) if plan.calls else (np.zeros(0), np.zeros(0))
    n_distinct = parts[1][0].shape[0] if plan.calls else 0
    by_size: dict[int, list[tuple[float, float, int]]] = {}
    start = 0
    for size, G, single, multi_ids, recs in plan.sets:
        h0 = np.empty(G)
        area = np.empty(G)
        h0[single], area[single] = rec_h0[recs], rec_area[recs]
        stop = start + multi_ids.size
        h0[multi_ids], area[multi_ids] = h0m[start:stop], aream[start:stop]
        start = stop
        by_size.setdefault(size, []).append((h0.mean(), area.mean(), G))
    rows = []
    for size, vals in by_size.items():
        # the records of the singleton combinations: each code gives the exact expectation
        recs = plan.alone[size]
        nu = recs.size
        c1 = codes[recs]
        var = technique.exact_unique_var(level, n, recs, codes, moments) if nu else (np.nan, np.nan)
        rows.append(
            {
                "sk_size": size,
                "rep": rep,
                "H0": float(np.mean([v[0] for v in vals])),
                "area": float(np.mean([v[1] for v in vals])),
                "n_sets": len(vals),
                "n_combinations": int(sum(v[2] for v in vals)),
                "n_distinct_shared": n_distinct,
                "n_unique": nu,
                "H0_unique": float(rec_h0[recs].mean()) if nu else np.nan,
                "area_unique": float(rec_area[recs].mean()) if nu else np.nan,
                "H0_unique_exact": float(ex_h0[c1].mean()) if nu else np.nan,
                "area_unique_exact": float(ex_area[c1].mean()) if nu else np.nan,
                "H0_unique_exact_var": float(var[0]),
                "area_unique_exact_var": float(var[1]),
                "artifact_violation": violation,
            }
        )
    return rows


SUMMARY_COLUMNS = ("dataset", "technique", "param", "sk_size")


def summarise(long: pd.DataFrame, repetitions: int) -> pd.DataFrame:
    """Mean over the repetitions per (dataset, technique, param, SK size), with standard errors.

    ``long`` holds the rows of `repetition_rows` labelled with ``dataset``, ``technique`` and
    ``param``. The Monte Carlo standard error of a mean is the sample s.d. over the
    ``repetitions`` divided by its square root (`privlab.stats.mean_se`, computed here by
    pandas' grouped s.d., which the committed references hold to the last bit); the exact one
    of the uniquely identified records' mean is the square root of the exact variance over
    ``repetitions``.
    """
    check_instance("long", long, pd.DataFrame, "a DataFrame of repetition_rows")
    R = check_int("repetitions", repetitions, low=1)
    missing = [c for c in SUMMARY_COLUMNS if c not in long.columns]
    if missing:
        raise PrivlabError(f"long must have the columns {list(SUMMARY_COLUMNS)}; missing {missing}")
    agg = (
        long.groupby(list(SUMMARY_COLUMNS), sort=False)
        .agg(
            H0=("H0", "mean"),
            H0_sd=("H0", "std"),
            area=("area", "mean"),
            area_sd=("area", "std"),
            n_sets=("n_sets", "first"),
            n_combinations=("n_combinations", "first"),
            n_distinct_shared_mean=("n_distinct_shared", "mean"),
            H0_unique=("H0_unique", "mean"),
            H0_unique_sd=("H0_unique", "std"),
            H0_unique_exact=("H0_unique_exact", "mean"),
            area_unique=("area_unique", "mean"),
            area_unique_sd=("area_unique", "std"),
            area_unique_exact=("area_unique_exact", "mean"),
            H0_unique_exact_var=("H0_unique_exact_var", "mean"),
            area_unique_exact_var=("area_unique_exact_var", "mean"),
            n_unique_mean=("n_unique", "mean"),
            artifact_violation=("artifact_violation", "max"),
        )
        .reset_index()
    )
    for col in ("H0_unique", "area_unique"):
        agg[f"{col}_se"] = agg.pop(f"{col}_sd").fillna(0.0) / math.sqrt(R)
        agg[f"{col}_exact_se"] = np.sqrt(agg.pop(f"{col}_exact_var") / R)
    agg["H0_se"] = agg.pop("H0_sd").fillna(0.0) / math.sqrt(R)
    agg["area_se"] = agg.pop("area_sd").fillna(0.0) / math.sqrt(R)
    agg["repetitions"] = R
    return agg


def labelled_rows(task: tuple[dict[str, Any], tuple]) -> list[dict[str, Any]]:
    """`repetition_rows` of ``task = (label, args)``, each row prefixed with the ``label`` columns
    (the worker function of `run_series`)."""
    if not (isinstance(task, tuple) and len(task) == 2 and isinstance(task[0], dict)):
        raise PrivlabError("task must be a pair (label columns, repetition_rows arguments)")
    label, args = task
    return [{**label, **row} for row in repetition_rows(*args)]


def _labelled_rows(task: tuple[dict[str, Any], tuple]) -> list[dict[str, Any]]:
    """`labelled_rows` of a task of `run_series` (`_repetition_rows` arguments)."""
    label, args = task
    return [{**label, **row} for row in _repetition_rows(*args)]


def run_series(
    data: Mapping[str, SKData],
    techniques: Sequence[tuple[str, SDCTechnique]],
    repetitions: int,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
    lp_check_records: int = 0,
    labels: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Every data set x technique x level x repetition, summarised (`summarise`).

    Parameters
    ----------
    data : mapping
        Data-set name -> its `SKData`, in the table's order.
    techniques : sequence of (label, SDCTechnique)
        The table's ``technique`` label of each, in the table's order; each runs at its levels.
    repetitions : int
        Released artifacts per (data set, technique, level).
    seed_sequence : callable
        ``seed_sequence(data set, label, level, repetition)`` -> the SeedSequence of that artifact
        (e.g. ``RunContext.seed_sequence``): results never depend on the order of execution.
    map_fn : callable, optional
        ``map(fn, items) -> list`` in order, e.g. a parallel map (``RunContext.map``); serial otherwise.
    lp_check_records : int
        Query restriction: records per shuffle whose bounds the checker re-derives by LP.
    labels : mapping, optional
        Data-set name -> the table's label of it (e.g. from `privlab.cae.code_datasets`), shown in a
        last column ``data``.
    """
    R = check_int("repetitions", repetitions, low=1, high=10_000)
    check_instance("data", data, Mapping, "a mapping of data-set names to SKData")
    for name, d in data.items():
        check_instance(f"data[{name!r}]", d, SKData, "an SKData (privlab.cae.prepare)")
    if isinstance(techniques, (str, bytes)) or not isinstance(techniques, Sequence):
        raise PrivlabError("techniques must be a list of (label, SDCTechnique) pairs")
    for item in techniques:
        if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[1], SDCTechnique)):
            raise PrivlabError(f"techniques must be (label, SDCTechnique) pairs, got {item!r}")
    check_callable("seed_sequence", seed_sequence)
    check_callable("map_fn", map_fn, optional=True)
    lp_check_records = check_int("lp_check_records", lp_check_records, low=0, high=10_000)
    if labels is not None and (not isinstance(labels, Mapping) or any(ds not in labels for ds in data)):
        raise PrivlabError(f"labels must map every data set of data to its label, got {labels!r}")
    series = [(label, float(level), t) for label, t in techniques for level in t.levels]
    if len({s[:2] for s in series}) < len(series):
        raise PrivlabError("mechanism: two techniques with the same label share a level; give one another label")
    tasks = []
    for ds, d in data.items():
        plan = _make_plan(d)  # what every release of d needs of its SK sets
        for label, level, technique in series:
            moments = technique.exact_unique(level, d.n, d.grid)  # every repetition's exact expectation
            for rep in range(R):
                args = (d, technique, level, rep, seed_sequence(ds, label, level, rep), lp_check_records, moments, plan)
                tasks.append(({"dataset": ds, "technique": label, "param": level}, args))
    chunks = map_in_order(_labelled_rows, tasks, map_fn)
    table = summarise(pd.DataFrame([r for chunk in chunks for r in chunk]), R)
    return table if labels is None else table.assign(data=table.dataset.map(dict(labels)))
