"""The isolation test: does an adversary's output q (c, T)-isolate a real point x?

q (c, T)-isolates x when the closed ball ``B(q, c ||q - x||)`` holds fewer than ``T``
points of the real database RDB other than x (seed 002, slide 7). Also the T-radius
``t_x`` that perturbation scales its noise by.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from .._validation import PrivlabError, check_int
from ._checks import check_c_T, check_db, check_points, check_targets
from .distances import KDTREE_MAX_D, blocks, count_within, sq_dists, use_tree

__all__ = ["isolates", "isolation_mask", "isolation_rate", "isolates_anyone_mask", "isolation_masks", "t_radius"]

_PREFIX_PER_T = 16  # t_radius: the bounding prefix holds at least 16 T columns ...
_PREFIX_FRACTION = 16  # ... and at least 1/16 of them


def isolates(q: Any, x_index: int, db: Any, c: float, T: int) -> bool:
    """Does ``q`` (c, T)-isolate ``db[x_index]``?

    Parameters
    ----------
    q : array of shape (d,)
        The adversary's output.
    x_index : int
        Row of ``db`` holding the real point x.
    db : array of shape (n, d)
        The real database RDB.
    c : float >= 1
        Ball enlargement factor.
    T : int in [1, n]
        Crowd size: x is isolated when the ball holds fewer than T other points.

    Returns
    -------
    bool
        True when the closed ball ``B(q, c ||q - x||)`` holds fewer than ``T`` rows of
        ``db`` other than row ``x_index`` (duplicates of x at other rows do count).
    """
    db = check_db(db)
    n, d = db.shape
    c, T = check_c_T(c, T, n)
    q = check_points("q", q, d)[0]
    x_index = check_int("x_index", x_index, low=0, high=n - 1)
    delta = np.sqrt(np.sum((q - db[x_index]) ** 2))
    dist = np.sqrt(np.sum((db - q) ** 2, axis=1))
    inside = dist <= c * delta
    inside[x_index] = False
    return bool(inside.sum() < T)


def isolation_mask(queries: Any, targets: Any, db: Any, c: float, T: int, *, method: str = "auto") -> np.ndarray:
    """For each pair (queries[i], targets[i]): does queries[i] (c, T)-isolate db[targets[i]]?

    Parameters
    ----------
    queries : array (m, d)
    targets : int array (m,)
        Row indices of ``db``.
    db : array (n, d)
    c, T : see `isolates`.
    method : {"auto", "kdtree", "brute"}
        "kdtree" finds the T+1 nearest neighbours of each query with cKDTree; "brute"
        counts ball members from blocked exact distances; "auto" picks the k-d tree up
        to ``KDTREE_MAX_D`` dimensions.

    Returns
    -------
    bool array (m,)
    """
    mask, _ = isolation_masks(queries, targets, db, c, T, method=method, anyone=False)
    assert mask is not None
    return mask


def isolation_rate(queries: Any, targets: Any, db: Any, c: float, T: int, *, method: str = "auto") -> float:
    """Fraction of the adversary outputs ``queries[i]`` that (c, T)-isolate ``db[targets[i]]``.

    See `isolation_mask` for the parameters; this is its mean.
    """
    mask = isolation_mask(queries, targets, db, c, T, method=method)
    if mask.size == 0:
        raise PrivlabError("queries must hold at least one adversary output")
    return float(mask.mean())


def isolates_anyone_mask(queries: Any, db: Any, c: float, T: int, *, method: str = "auto") -> np.ndarray:
    """Does each query isolate *some* point of db?

    q isolates some point iff it isolates its nearest neighbour y: if q isolates x then
    ``B(q, c ||q - y||)`` is inside ``B(q, c ||q - x||)`` and both balls hold x and y.
    """
    _, mask = isolation_masks(queries, None, db, c, T, method=method, targeted=False)
    assert mask is not None
    return mask


def isolation_masks(
    queries: Any,
    targets: Any,
    db: Any,
    c: float,
    T: int,
    *,
    method: str = "auto",
    targeted: bool = True,
    anyone: bool = True,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """`isolation_mask` and `isolates_anyone_mask` of the same queries from one pass over db.

    Both need the distances of every query to every db row (or its T+1 nearest
    neighbours); computing them once halves the work of asking both questions.

    Parameters
    ----------
    queries, targets, db, c, T, method : see `isolation_mask` (``targets`` is ignored and
        may be None when ``targeted`` is False).
    targeted, anyone : bool
        Which of the two masks to compute.

    Returns
    -------
    (targeted_mask or None, anyone_mask or None)
        ``targeted_mask[i]``: queries[i] isolates db[targets[i]]; ``anyone_mask[i]``:
        queries[i] isolates some point of db (its nearest neighbour).
    """
    db = check_db(db)
    n, d = db.shape
    c, T = check_c_T(c, T, n)
    queries = check_points("queries", queries, d)
    m = queries.shape[0]
    if targeted:
        targets = check_targets(targets, n)
        if targets.size != m:
            raise PrivlabError(f"queries and targets must have the same length, got {m} and {targets.size}")
        radius = c * np.sqrt(np.sum((queries - db[targets]) ** 2, axis=1))
    out_t = np.empty(m, dtype=bool) if targeted else None
    out_a = np.empty(m, dtype=bool) if anyone else None
    if m == 0:
        return out_t, out_a
    if use_tree(d, method):
        if T >= n:  # at most n - 1 other points exist
            return (np.ones(m, dtype=bool) if targeted else None), (np.ones(m, dtype=bool) if anyone else None)
        k = T + 1
        dist, idx = cKDTree(db).query(queries, k=k)
        dist, idx = dist.reshape(m, k), idx.reshape(m, k)
        if out_t is not None:
            is_x = idx == targets[:, None]
            # drop x from the neighbour list when present, else the farthest of the k
            drop = np.where(is_x.any(axis=1), is_x.argmax(axis=1), k - 1)
            keep = np.ones((m, k), dtype=bool)
            keep[np.arange(m), drop] = False
            out_t[:] = dist[keep].reshape(m, T)[:, T - 1] > radius
        if out_a is not None:  # target the nearest neighbour y: the T-th other point is the (T+1)-th neighbour
            y = idx[:, 0]
            out_a[:] = dist[:, T] > c * np.sqrt(np.sum((queries - db[y]) ** 2, axis=1))
        return out_t, out_a
    db_sq = np.einsum("ij,ij->i", db, db)
    for sl in blocks(m, n):
        d2 = sq_dists(queries[sl], db, db_sq)
        if out_t is not None:
            r2 = radius[sl] ** 2
            self_in = d2[np.arange(d2.shape[0]), targets[sl]] <= r2  # x itself never counts
            out_t[sl] = count_within(d2, r2) - self_in < T
        if out_a is not None:  # nearest distance, then the ball count minus y itself
            nearest = np.maximum(d2.min(axis=1), 0.0)
            out_a[sl] = count_within(d2, c * c * nearest) - 1 < T
    return out_t, out_a


def t_radius(db: Any, T: int, indices: Any = None) -> np.ndarray:
    """T-radius t_x of db rows: the radius of the smallest ball around x holding T points
    of db, x itself included (so T = 1 gives 0).

    Parameters
    ----------
    db : array (n, d)
    T : int in [1, n]
    indices : int array or None
        Rows whose T-radius is wanted (all rows by default).

    Returns
    -------
    float array, one radius per requested row
    """
    db = check_db(db)
    n, d = db.shape
    T = check_int("T", T, low=1, high=n)
    idx = np.arange(n) if indices is None else check_targets(indices, n, "indices")
    if idx.size == 0:
        return np.zeros(0)
    pts = db[idx]
    if d <= KDTREE_MAX_D:
        dist, _ = cKDTree(db).query(pts, k=T)
        return np.asarray(dist, dtype=float).reshape(idx.size, T)[:, T - 1]
    out = np.empty(idx.size)
    db_sq = np.einsum("ij,ij->i", db, db)
    # a prefix of the columns gives an upper bound on each row's T-th smallest distance (the
    # T-th smallest of a subset is never below that of the whole row); only the entries under
    # the bound, about T n / n_pre of them, are then partitioned: exact, and far cheaper than
    # partitioning whole rows
    n_pre = min(n, max(_PREFIX_PER_T * T, n // _PREFIX_FRACTION))
    for sl in blocks(idx.size, n):
        d2 = sq_dists(pts[sl], db, db_sq)
        rows = np.arange(d2.shape[0])
        d2[rows, idx[sl]] = 0.0  # x is at distance 0 from itself exactly
        if n_pre == n:
            kth = np.partition(d2, T - 1, axis=1)[:, T - 1]
        else:
            bound = np.partition(d2[:, :n_pre], T - 1, axis=1)[:, T - 1]
            under = d2 <= bound[:, None]
            counts = np.count_nonzero(under, axis=1)
            cand = d2[under]  # row-major: row r's candidates are contiguous
            ends = np.cumsum(counts)
            kth = np.array([np.partition(cand[e - k : e], T - 1)[T - 1] for e, k in zip(ends, counts)])
        out[sl] = np.sqrt(np.maximum(kth, 0.0))
    return out
