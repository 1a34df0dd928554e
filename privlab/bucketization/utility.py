"""The utility of every mechanism's release of a table vs theta: Figure 4's MSE and Figure 5's
relative error of count queries.

Every (table, theta, mechanism) is released by `release_checked` (through `release_all`), with
the seed ``seed_sequence(table, theta, label)``: a result never depends on the order of
execution or the number of workers ``map_fn`` uses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privlab._validation import MapFn, PrivlabError, SeedSequenceFn, check_callable, check_choice, check_int, check_real
from privlab.stats import mean_se

from .mechanisms import BucketingMechanism, Release, release_all
from .metrics import MSE_DEFINITIONS, make_query_pool, mse_of_release, mse_of_setting, pool_relative_errors
from .settings import check_mapping, check_max_size, fprivacy, map_tasks
from .tables import Table, check_tables

__all__ = ["release_grid", "mse_table", "release_mse", "re_table"]

#: a work item of a ``map_fn``: (function, arguments)
Task = tuple[Callable[..., Any], Sequence[Any]]


def release_grid(
    tables: Mapping[str, Table],
    thetas: Sequence[float],
    mechanisms: Mapping[str, BucketingMechanism],
    offset: float,
    max_size: int,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
    keep_ids: bool = False,
) -> list[tuple[str, float, str, Release]]:
    """Every mechanism's checked release of every (table, theta).

    Parameters
    ----------
    tables : mapping of str to Table
        Table name -> its records (`census_table`).
    thetas : sequence of float
        The privacy parameters theta (F = `fprivacy` of the table's frequencies).
    mechanisms : mapping of str to BucketingMechanism
        The table's label of each mechanism -> the mechanism, in the table's order.
    offset : float
        F's offset b (`fprivacy`).
    max_size : int
        Largest bucket size M.
    seed_sequence : callable
        ``seed_sequence(table, theta, label)`` -> the SeedSequence of that release
        (e.g. ``RunContext.seed_sequence``).
    map_fn : callable, optional
        ``map(fn, items) -> list`` in order (e.g. ``RunContext.map``), one item per (table,
        theta); serial otherwise.
    keep_ids : bool
        Keep every release's bucket ids (Figure 5 evaluates queries on them).

    Returns
    -------
    list of (table, theta, label, Release), by table, theta, then mechanism.
    """
    keys, tasks = _release_tasks(tables, thetas, mechanisms, offset, max_size, seed_sequence, keep_ids)
    return _released(keys, map_tasks(tasks, map_fn))


def _release_tasks(
    tables: Mapping[str, Table],
    thetas: Sequence[float],
    mechanisms: Mapping[str, BucketingMechanism],
    offset: float,
    max_size: int,
    seed_sequence: SeedSequenceFn,
    keep_ids: bool,
) -> tuple[list[tuple[str, float, str]], list[Task]]:
    """`release_grid`'s work items, one per (table, theta), and the (table, theta, label) of
    each release they return, in order."""
    tables = check_tables(tables)
    mechanisms = check_mapping("mechanisms", mechanisms, "labels to BucketingMechanisms")
    if not all(isinstance(m, BucketingMechanism) for m in mechanisms.values()):
        raise PrivlabError("mechanisms must map labels to BucketingMechanisms")
    max_size = check_max_size(max_size)
    check_callable("seed_sequence", seed_sequence)
    keys: list[tuple[str, float, str]] = []
    tasks: list[Task] = []
    impls = list(mechanisms.values())
    for name, t in tables.items():
        f = np.bincount(t.sa) / t.sa.size
        for theta in thetas:
            seeds = [seed_sequence(name, theta, label) for label in mechanisms]
            keys += [(name, theta, label) for label in mechanisms]
            tasks.append((release_all, (t.sa, fprivacy(f, theta, offset), impls, max_size, seeds, keep_ids)))
    return keys, tasks


def _released(
    keys: list[tuple[str, float, str]], results: list[list[Release]]
) -> list[tuple[str, float, str, Release]]:
    """`release_grid`'s list from its work items' results."""
    return [(*k, r) for k, r in zip(keys, (r for rs in results for r in rs))]


def mse_table(
    tables: Mapping[str, Table],
    thetas: Sequence[float],
    mechanisms: Mapping[str, BucketingMechanism],
    offset: float,
    max_size: int,
    timings: bool,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
    mse_definition: str = "association",
) -> pd.DataFrame:
    """Figure 4: the MSE (and the plan) of every mechanism's release of every (table, theta).

    Parameters are those of `release_grid`; ``timings`` keeps the search times (False: NaN,
    for tables compared exactly); ``mse_definition`` is the reading of the MSE the ``mse``
    column holds (`MSE_DEFINITIONS`): "association" (Loss / n, from the plan) or another one
    computed from the released buckets (`release_mse`).

    Returns
    -------
    DataFrame: table, theta, method (the label) and `Release.summary`'s columns.
    """
    if not isinstance(timings, bool):
        raise PrivlabError(f"timings must be True or False, got {timings!r}")
    definition = check_choice("mse_definition", mse_definition, MSE_DEFINITIONS)
    keep = definition != "association"  # the other readings need the buckets themselves
    released = release_grid(
        tables, thetas, mechanisms, offset, max_size, seed_sequence=seed_sequence, map_fn=map_fn, keep_ids=keep
    )
    rows = []
    for table, theta, method, r in released:
        sa = tables[table].sa
        row = {"table": table, "theta": theta, "method": method, **r.summary(sa.size, timings)}
        if keep:
            row["mse"] = release_mse(r, sa, definition)
        rows.append(row)
    return pd.DataFrame(rows)


def release_mse(release: Release, sa: np.ndarray, definition: str) -> float:
    """The MSE of a release under ``definition`` (`MSE_DEFINITIONS`), from its buckets.

    A release without buckets but with a loss (Anatomy when l-diversity is not eligible: sizes
    only) is taken as its n - Loss groups, as equal in size as possible (Anatomy's floor(n/l)
    groups of l or l+1 records), each of distinct values as Anatomy's groups are: there
    "association_exact" is "association". NaN when nothing was found.
    """
    definition = check_choice("definition", definition, MSE_DEFINITIONS)
    if release.bucket_ids is not None:
        return mse_of_release(release.bucket_ids, sa, definition)
    loss = release.plan.loss
    if loss is None:
        return math.nan
    n = sa.size
    groups = n - loss
    q, extra = divmod(n, groups)
    sizes_only = "association" if definition == "association_exact" else definition
    return mse_of_setting([q, q + 1], [groups - extra, extra], sizes_only)


def re_table(
    tables: Mapping[str, Table],
    thetas: Sequence[float],
    mechanisms: Mapping[str, BucketingMechanism],
    offset: float,
    max_size: int,
    n_queries: int,
    selectivity: float,
    query_chunk: int,
    *,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Figure 5: the relative error of a pool of count queries on every mechanism's release of
    every (table, theta).

    One pool per table (`make_query_pool`, seed ``seed_sequence(table, "pool")``) is shared by
    every theta and mechanism. Every release of a table is evaluated in one pass over its
    pool, in chunks of ``query_chunk`` queries, so the work splits over workers without
    changing any number.

    Parameters
    ----------
    tables, thetas, mechanisms, offset, max_size, seed_sequence, map_fn
        As for `release_grid`.
    n_queries, selectivity
        The pool (`make_query_pool`).
    query_chunk : int
        Queries per work item.

    Returns
    -------
    DataFrame: table, theta, method, status, re (mean relative error), re_se, re_median
    (NaN where nothing was released), queries, redrawn (queries the pool redrew).
    """
    tables = check_tables(tables)
    n_queries = check_int("n_queries", n_queries, low=1, high=10**6)
    selectivity = check_real("selectivity", selectivity, low=0, high=1, low_open=True)
    query_chunk = check_int("query_chunk", query_chunk, low=1, high=10**6)
    check_callable("seed_sequence", seed_sequence)
    pool_tasks: list[Task] = [
        (make_query_pool, (t.qi, t.qi_sizes, t.sa, t.sa_size, n_queries, selectivity, seed_sequence(name, "pool")))
        for name, t in tables.items()
    ]
    keys, release_tasks = _release_tasks(tables, thetas, mechanisms, offset, max_size, seed_sequence, True)
    # the pools and the releases in one map: no worker waits for the slowest pool before the releases
    done = map_tasks([*pool_tasks, *release_tasks], map_fn)
    pools = dict(zip(tables, done[: len(pool_tasks)]))
    released = _released(keys, done[len(pool_tasks) :])
    starts, chunks = range(0, n_queries, query_chunk), {}
    for name, t in tables.items():
        ids = [r.bucket_ids for tb, *_, r in released if tb == name and r.bucket_ids is not None]
        for s in starts:
            chunks[name, s] = (pool_relative_errors, (t.qi, t.sa, ids, pools[name].part(s, s + query_chunk)))
    parts = dict(zip(chunks, map_tasks(list(chunks.values()), map_fn)))
    errors = {tb: iter(map(np.concatenate, zip(*(parts[tb, s] for s in starts)))) for tb in tables}
    rows = []
    for table, theta, method, r in released:
        if r.checked is False:
            raise PrivlabError(f"{table} theta={theta} {method}: the release fails the F-privacy checker")
        e = next(errors[table]) if r.bucket_ids is not None else None
        stats = (np.nan,) * 3 if e is None else (e.mean(), mean_se(e), np.median(e))
        row = {"table": table, "theta": theta, "method": method, "status": r.plan.status}
        row.update(zip(("re", "re_se", "re_median"), map(float, stats)))
        row.update(queries=n_queries, redrawn=pools[table].redrawn)
        rows.append(row)
    return pd.DataFrame(rows)
