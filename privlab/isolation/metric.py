"""The isolation test: does an adversary's output q (c, T)-isolate a real point x?

q (c, T)-isolates x when the closed ball ``B(q, c ||q - x||)`` holds fewer than ``T``
points of the real database RDB other than x (seed 002, slide 7). Also the T-radius
``t_x`` that perturbation scales its noise by.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import PrivlabError, check_int
from ._blas import single_blas_thread
from ._checks import check_c_T, check_db, check_points, check_targets
from .distances import DistanceIndex, exact_sq

FIRST_LOOK = 256  # columns of the cheap first look before the target's neighbourhood is consulted

__all__ = [
    "isolates",
    "isolation_mask",
    "isolation_rate",
    "isolates_anyone_mask",
    "isolation_masks",
    "t_radius",
    "distance_index",
]


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


def distance_index(db: Any, *, method: str = "auto") -> DistanceIndex:
    """``db`` prepared for the isolation test: pass it as ``index=`` to ask several questions
    of the same database without preparing it again (see `privlab.isolation.distances`).

    Parameters
    ----------
    db : array (n, d)
    method : {"auto", "kdtree", "brute"}
        "kdtree" lets a k-d tree finish ball counts and find nearest and T-th neighbours,
        "brute" uses blocked matrix products alone, "auto" uses the tree where it is faster
        (low dimension, see `privlab.isolation.distances`). All give the same answers.
    """
    return DistanceIndex(check_db(db), method)


def _index(db: np.ndarray, method: str, index: DistanceIndex | None) -> DistanceIndex:
    if index is None:
        return DistanceIndex(db, method)
    if not isinstance(index, DistanceIndex) or index.db.shape != db.shape or not np.array_equal(index.db, db):
        raise PrivlabError("index must be distance_index(db) of this same db")
    return index


def _ball_decide(
    idx: DistanceIndex,
    Q: np.ndarray,
    targets: np.ndarray | None,
    delta_low: np.ndarray,
    delta_high: np.ndarray,
    c: float,
    T: int,
) -> np.ndarray:
    """Status (+1 not isolated, -1 isolated, 0 recompute exactly) of the balls ``B(Q[i], c delta)``
    around the targets at distance ``delta in [delta_low, delta_high]``.

    In low dimension a cheap first chunk of the scan decides the large balls, the target's
    own T-th neighbour (`DistanceIndex.target_status`) most of the rest, and the full ball
    test what remains; above ``TREE_BALL_MAX_D`` the ball test alone (it stops early).
    """
    status = np.zeros(Q.shape[0], dtype=np.int8)
    todo = np.arange(Q.shape[0])
    if idx.tree_ball and targets is not None:
        status = idx.ball_status(Q, c * delta_low, c * delta_high, T + 1, columns=FIRST_LOOK)
        todo = np.flatnonzero(status == 0)
        status[todo] = idx.target_status(Q[todo], targets[todo], delta_low[todo], c, T)
        todo = todo[status[todo] == 0]
    status[todo] = idx.ball_status(Q[todo], c * delta_low[todo], c * delta_high[todo], T + 1)
    return status


def _exact_targeted(q: np.ndarray, x: int, radius: float, db: np.ndarray, T: int) -> bool:
    """`isolates` for one query: the exact formula over every row."""
    inside = np.sqrt(exact_sq(q, db)) <= radius
    inside[x] = False
    return bool(np.count_nonzero(inside) < T)


def _exact_anyone(q: np.ndarray, db: np.ndarray, c: float, T: int) -> bool:
    """Does q isolate its nearest neighbour (hence anyone)? The exact formula over every row."""
    s = exact_sq(q, db)
    y = int(np.argmin(s))
    inside = np.sqrt(s) <= c * np.sqrt(s[y])
    inside[y] = False
    return bool(np.count_nonzero(inside) < T)


def isolation_mask(
    queries: Any, targets: Any, db: Any, c: float, T: int, *, method: str = "auto", index: DistanceIndex | None = None
) -> np.ndarray:
    """For each pair (queries[i], targets[i]): does queries[i] (c, T)-isolate db[targets[i]]?

    Parameters
    ----------
    queries : array (m, d)
    targets : int array (m,)
        Row indices of ``db``.
    db : array (n, d)
    c, T : see `isolates`.
    method : {"auto", "kdtree", "brute"}
        See `distance_index`; every method gives the mask `isolates` gives, ties included.
    index : DistanceIndex or None
        ``distance_index(db)``, to reuse a prepared database.

    Returns
    -------
    bool array (m,)
    """
    mask, _ = isolation_masks(queries, targets, db, c, T, method=method, anyone=False, index=index)
    assert mask is not None
    return mask


def isolation_rate(
    queries: Any, targets: Any, db: Any, c: float, T: int, *, method: str = "auto", index: DistanceIndex | None = None
) -> float:
    """Fraction of the adversary outputs ``queries[i]`` that (c, T)-isolate ``db[targets[i]]``.

    See `isolation_mask` for the parameters; this is its mean.
    """
    mask = isolation_mask(queries, targets, db, c, T, method=method, index=index)
    if mask.size == 0:
        raise PrivlabError("queries must hold at least one adversary output")
    return float(mask.mean())


def isolates_anyone_mask(
    queries: Any, db: Any, c: float, T: int, *, method: str = "auto", index: DistanceIndex | None = None
) -> np.ndarray:
    """Does each query isolate *some* point of db?

    q isolates some point iff it isolates its nearest neighbour y: if q isolates x then
    ``B(q, c ||q - y||)`` is inside ``B(q, c ||q - x||)`` and both balls hold x and y.
    """
    _, mask = isolation_masks(queries, None, db, c, T, method=method, targeted=False, index=index)
    assert mask is not None
    return mask


@single_blas_thread
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
    m_any: int | None = None,
    index: DistanceIndex | None = None,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """`isolation_mask` and `isolates_anyone_mask` of the same queries, sharing the work.

    A query that isolates its target isolates someone, so only the others need their
    nearest neighbour. Both masks equal the exact formula of `isolates` (ties at the radius
    included): blocked matrix products decide every entry outside their rounding band,
    the band is recomputed exactly.

    Parameters
    ----------
    queries, targets, db, c, T, method, index : see `isolation_mask` (``targets`` is ignored
        and may be None when ``targeted`` is False).
    targeted, anyone : bool
        Which of the two masks to compute.
    m_any : int or None
        Ask the anyone question of the first ``m_any`` queries only (all by default): a
        nearest neighbour needs every row of db, a ball test rarely does.

    Returns
    -------
    (targeted_mask (m,) or None, anyone_mask (min(m, m_any),) or None)
        ``targeted_mask[i]``: queries[i] isolates db[targets[i]]; ``anyone_mask[i]``:
        queries[i] isolates some point of db (its nearest neighbour).
    """
    db = check_db(db)
    n, d = db.shape
    c, T = check_c_T(c, T, n)
    queries = check_points("queries", queries, d)
    m = queries.shape[0]
    m_a = m if m_any is None else min(m, check_int("m_any", m_any, low=0))
    out_t = out_a = None
    idx = _index(db, method, index) if m else None
    if targeted:
        targets = check_targets(targets, n)
        if targets.size != m:
            raise PrivlabError(f"queries and targets must have the same length, got {m} and {targets.size}")
        delta = np.sqrt(exact_sq(queries, db[targets]))
        radius = c * delta
        out_t = np.zeros(m, dtype=bool)
        if m:
            assert idx is not None
            status = _ball_decide(idx, queries, targets, delta, delta, c, T)
            out_t[:] = status < 0
            for i in np.flatnonzero(status == 0):
                out_t[i] = _exact_targeted(queries[i], int(targets[i]), float(radius[i]), db, T)
    if anyone:
        out_a = np.zeros(m_a, dtype=bool)
        if out_t is not None:
            out_a[:] = out_t[:m_a]
        rest = np.flatnonzero(~out_a)
        if rest.size:
            assert idx is not None
            q = queries[rest]
            low, high, nearest = idx.nearest(q)  # q isolates someone iff it isolates its nearest row
            status = _ball_decide(idx, q, nearest, np.sqrt(low), np.sqrt(high), c, T)
            out_a[rest] = status < 0
            for j in np.flatnonzero(status == 0):
                out_a[rest[j]] = _exact_anyone(q[j], db, c, T)
    return out_t, out_a


@single_blas_thread
def t_radius(db: Any, T: int, indices: Any = None, *, index: DistanceIndex | None = None) -> np.ndarray:
    """T-radius t_x of db rows: the radius of the smallest ball around x holding T points
    of db, x itself included (so T = 1 gives 0).

    Distances are the isolation test's (`isolates`): the T-th smallest of
    ``sqrt(np.sum((db - x) ** 2, axis=1))``, exactly.

    Parameters
    ----------
    db : array (n, d)
    T : int in [1, n]
    indices : int array or None
        Rows whose T-radius is wanted (all rows by default; repeats are computed once).
    index : DistanceIndex or None
        ``distance_index(db)``, to reuse a prepared database.

    Returns
    -------
    float array, one radius per requested row
    """
    db = check_db(db)
    n, _ = db.shape
    T = check_int("T", T, low=1, high=n)
    idx = np.arange(n) if indices is None else check_targets(indices, n, "indices")
    if idx.size == 0:
        return np.zeros(0)
    rows, inverse = np.unique(idx, return_inverse=True)
    kth = _index(db, "auto", index).kth_sq_cached(rows, T)
    return np.sqrt(kth)[inverse.reshape(-1)]
