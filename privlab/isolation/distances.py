"""Distances from adversary outputs (or points) to every row of a database, in blocks.

Ball counts use a k-d tree (scipy's cKDTree) up to ``KDTREE_MAX_D`` dimensions, where it
is fast, and above it exact squared distances from one matrix product per block of
queries (``block x n``, never ``m x n`` or ``n x n``): a k-d tree degenerates to a slower
brute force in high dimension. Everything that scans the database goes through
`blocks` and `sq_dists`, so a faster kernel (a tuned BLAS block size, a GPU) replaces
them alone.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .._validation import check_choice

__all__ = ["KDTREE_MAX_D", "CHUNK_ELEMENTS", "use_tree", "blocks", "sq_dists", "count_within"]

KDTREE_MAX_D = 8  # above this a k-d tree is slower than blocked brute force
CHUNK_ELEMENTS = 4_000_000  # query rows x db rows per distance block (32 MB of float64)
METHODS = ("auto", "kdtree", "brute")


def use_tree(d: int, method: str) -> bool:
    """Whether ``method`` ("auto", "kdtree" or "brute") uses the k-d tree in dimension ``d``."""
    check_choice("method", method, METHODS)
    return method == "kdtree" or (method == "auto" and d <= KDTREE_MAX_D)


def blocks(m: int, n: int, elements: int = CHUNK_ELEMENTS) -> Iterator[slice]:
    """Slices of ``m`` query rows such that a block of distances to ``n`` rows holds about
    ``elements`` entries (at least one row per block)."""
    step = max(1, elements // max(n, 1))
    for start in range(0, m, step):
        yield slice(start, min(m, start + step))


def sq_dists(queries: np.ndarray, db: np.ndarray, db_sq: np.ndarray) -> np.ndarray:
    """Squared distances of a block of queries to every db row (``|q|^2 + |y|^2 - 2 q.y``).

    ``db_sq`` holds the rows' squared norms. Not clipped at 0: rounding can leave tiny
    negatives, which every caller handles after its reduction (comparisons with
    thresholds >= 0 and order statistics are unaffected by a monotone clip, so clipping
    the reduced values gives the same answers as clipping the block, one pass over the
    block cheaper). ``-2 q`` is formed before the product: scaling by a power of two is
    exact, so the block equals ``-2 (q @ db.T)`` bit for bit.
    """
    d2 = (-2.0 * queries) @ db.T
    d2 += db_sq[None, :]
    d2 += np.einsum("ij,ij->i", queries, queries)[:, None]
    return d2


def count_within(d2: np.ndarray, thr_sq: np.ndarray) -> np.ndarray:
    """Per row of a block of squared distances, the number of entries ``<=`` that row's threshold."""
    return np.count_nonzero(d2 <= thr_sq[:, None], axis=1)
