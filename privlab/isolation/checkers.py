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
        keys = np.rint((np.array([leaf.low for leaf in group], dtype=float) - low) / side).astype(np.int64)
        keys = keys.reshape(len(group), -1)
        counts = np.array([leaf.count for leaf in group])
        # one id per distinct cell among the points' and the leaves' cells
        point_cell, leaf_cell = _cell_ids(idx, keys)
        inside = np.bincount(point_cell, minlength=point_cell.size + leaf_cell.size)
        hits += np.bincount(leaf_cell, minlength=inside.size)[point_cell]  # each leaf holding the point
        counts_ok &= bool(np.all(inside[leaf_cell] == counts))
        if side < width:  # the root has no parent
            point_parent, leaf_parent = _cell_ids(idx // 2, keys // 2)
            in_parent = np.bincount(point_parent, minlength=point_parent.size + leaf_parent.size)
            parents_ok &= bool(np.all(in_parent[leaf_parent] >= T))
    return {
        "counts_match": bool(counts_ok),
        "partition": bool(np.all(hits == 1)),
        "below_T": bool(all(leaf.count < T for leaf in leaves)),
        "parents_full": bool(parents_ok),
        "total": int(sum(leaf.count for leaf in leaves)),
    }


def _cell_ids(points: np.ndarray, leaves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer ids of the rows of ``points`` and ``leaves`` (cell coordinates), equal exactly
    where the rows are equal: the columns are folded in one at a time, each step renumbering
    the distinct (id so far, column) pairs densely, so no id overflows."""
    rows = np.concatenate([points, leaves])
    ids = np.zeros(rows.shape[0], dtype=np.int64)
    for column in rows.T:
        _, code = np.unique(column, return_inverse=True)
        _, ids = np.unique(ids * (int(code.max()) + 1) + code, return_inverse=True)
    return ids[: points.shape[0]], ids[points.shape[0] :]


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
