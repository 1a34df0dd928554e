"""Checkers of the released artifacts, sharing no code with the sanitizers that made them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_int
from .histogram import Leaf

__all__ = ["check_histogram_release", "exact_columns", "perturbation_noise_ratios"]


def check_histogram_release(
    db: Any, leaves: Sequence[Leaf], T: int, low: float = -1.0, high: float = 1.0
) -> dict[str, Any]:
    """Check a released recursive histogram against db, independently of its builder.

    Each point is assigned, by direct comparison with the leaf boxes grouped by side,
    to the leaves containing it.

    Parameters
    ----------
    db : array (n, d)
    leaves : sequence of Leaf
        The release.
    T : int >= 1
        The split threshold the release claims.
    low, high : float
        The histogram's box.

    Returns
    -------
    dict
        ``counts_match`` (every leaf's count equals the points inside it), ``partition``
        (each point in exactly one leaf), ``below_T`` (every leaf < T), ``parents_full``
        (every leaf's parent cube holds >= T points, i.e. the split was required) and
        ``total`` (the sum of the counts).
    """
    db = check_array("db", db, ndim=2)
    T = check_int("T", T, low=1)
    n = db.shape[0]
    hits = np.zeros(n, dtype=int)
    counts_ok = True
    parents_ok = True
    width = high - low
    by_side: dict[float, list[Leaf]] = {}
    for leaf in leaves:
        by_side.setdefault(float(leaf.side), []).append(leaf)
    for side, group in by_side.items():
        # integer cell index of every point at this side length (top edge into the last cell)
        cells_per_side = int(round(width / side))
        idx = np.minimum(((db - low) / side).astype(np.int64), cells_per_side - 1)
        table: dict[tuple, list[int]] = {}
        for i, row in enumerate(map(tuple, idx)):
            table.setdefault(row, []).append(i)
        parent_idx = idx // 2
        parent_table: dict[tuple, int] = {}
        for row in map(tuple, parent_idx):
            parent_table[row] = parent_table.get(row, 0) + 1
        for leaf in group:
            key = tuple(np.rint((np.asarray(leaf.low) - low) / side).astype(np.int64))
            members = table.get(key, [])
            hits[members] += 1
            counts_ok &= len(members) == leaf.count
            parent = tuple(k // 2 for k in key)
            if side < width:  # the root has no parent
                parents_ok &= parent_table.get(parent, 0) >= T
    return {
        "counts_match": bool(counts_ok),
        "partition": bool(np.all(hits == 1)),
        "below_T": bool(all(leaf.count < T for leaf in leaves)),
        "parents_full": bool(parents_ok),
        "total": int(sum(leaf.count for leaf in leaves)),
    }


def exact_columns(db: Any, released: Any) -> np.ndarray:
    """Which columns of ``released`` equal db's exactly (the bad sanitizer's disclosure).

    Returns
    -------
    bool array (d,)
    """
    db, released = np.asarray(db), np.asarray(released)
    if db.shape != released.shape:
        raise PrivlabError(f"released must have the shape of db {db.shape}, got {released.shape}")
    return np.all(db == released, axis=0)


def perturbation_noise_ratios(db: Any, idx: Any, released: Any, T: int) -> np.ndarray:
    """``||released[i] - db[idx[i]]|| / t_x`` for each released point, t_x from a full sort of
    the distances (no k-d tree, no partition); NaN where t_x = 0.

    Parameters
    ----------
    db : array (n, d)
    idx : int array (k,)
        The rows that were perturbed.
    released : array (k, d)
        Their releases.
    T : int in [1, n]

    Returns
    -------
    float array (k,)
    """
    db = check_array("db", db, ndim=2)
    T = check_int("T", T, low=1, high=db.shape[0])
    ratios = []
    for i, r in zip(np.asarray(idx), np.asarray(released)):
        dist = np.sort(np.linalg.norm(db - db[i], axis=1))
        ratios.append(np.linalg.norm(r - db[i]) / dist[T - 1] if dist[T - 1] > 0 else np.nan)
    return np.asarray(ratios, dtype=float)
