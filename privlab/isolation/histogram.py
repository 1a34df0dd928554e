"""The talk's recursive histogram (seed 002, slide 12).

Start from the cube [low, high]^d; while a cell holds ``>= T`` points split it into 2^d
sub-cubes by halving every side; release the leaf cells and their counts. Only non-empty
children are kept (2^d is large).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_int
from ._checks import check_box, check_db, check_points

__all__ = ["MAX_DEPTH", "Leaf", "Histogram", "build_histogram", "recursive_histogram"]

MAX_DEPTH = 60  # 2^60 cells per side: only duplicates survive this deep


@dataclass(frozen=True)
class Leaf:
    """One released histogram cell: the cube ``[low, low + side)^d`` and its count."""

    low: np.ndarray
    side: float
    count: int


def _grid(u: np.ndarray, depth: int) -> np.ndarray:
    """Integer cell coordinates at ``depth`` of points scaled to [0, 1] (1 goes to the last cell).

    Multiplying by 2^depth is exact, so the cell at depth k+1 is always a child of the
    cell at depth k: the split rule is consistent at every depth.
    """
    cells = 2**depth
    return np.minimum(np.floor(u * cells), cells - 1).astype(np.int64)


def _row_keys(g: np.ndarray, depth: int) -> np.ndarray | None:
    """One int64 per row of cell coordinates at ``depth``, ordered as the rows are
    lexicographically (mixed radix 2^depth); None when d * depth bits do not fit in 62."""
    d = g.shape[1]
    if d * depth > 62:
        return None
    weights = np.left_shift(np.int64(1), depth * np.arange(d - 1, -1, -1, dtype=np.int64))
    return g @ weights


def _cells(g: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``g`` in lexicographic order, each row's index among them and
    their counts (`np.unique` by rows, through one integer key per row where it fits)."""
    keys = _row_keys(g, depth)
    if keys is None:
        cells, inverse, counts = np.unique(g, axis=0, return_inverse=True, return_counts=True)
        return cells, inverse.reshape(-1), counts
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    return g[first], inverse.reshape(-1), counts


@dataclass(frozen=True)
class Histogram:
    """A recursive histogram of ``db`` over the box [low, high]^d.

    Attributes
    ----------
    leaf_grid : int array (L, d)
        Integer coordinates of each leaf in the grid of its depth.
    leaf_depth, leaf_count : int arrays (L,)
    point_leaf : int array (n,)
        The leaf holding each db row.
    internal : tuple of frozensets
        ``internal[k]``: the grid keys (bytes) of the cells split at depth k.
    """

    low: float
    high: float
    T: int
    d: int
    leaf_grid: np.ndarray
    leaf_depth: np.ndarray
    leaf_count: np.ndarray
    point_leaf: np.ndarray
    internal: tuple

    @property
    def leaf_side(self) -> np.ndarray:
        return (self.high - self.low) / 2.0**self.leaf_depth

    @property
    def leaf_low(self) -> np.ndarray:
        return self.low + self.leaf_grid * self.leaf_side[:, None]

    @property
    def leaf_centre(self) -> np.ndarray:
        return self.leaf_low + self.leaf_side[:, None] / 2

    def leaves(self) -> list[Leaf]:
        """The release: every leaf's corner, side and count."""
        lows, sides = self.leaf_low, self.leaf_side
        return [
            Leaf(low=lows[i], side=float(sides[i]), count=int(self.leaf_count[i])) for i in range(self.leaf_count.size)
        ]

    def locate(self, points: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The cell of the histogram's partition holding each point.

        Returns ``(low, side, leaf)``: the cell's corner (m, d), side (m,) and leaf index
        (m,), -1 when the point falls in an empty child of a split cell (not released).
        """
        pts = check_points("points", points, self.d)
        if np.any((pts < self.low) | (pts > self.high)):
            raise PrivlabError(f"points must lie in the box [{self.low:g}, {self.high:g}]^d")
        u = (pts - self.low) / (self.high - self.low)
        m = pts.shape[0]
        leaf = np.full(m, -1, dtype=np.int64)
        depth = np.zeros(m, dtype=np.int64)
        grid = np.zeros((m, self.d), dtype=np.int64)
        todo = np.arange(m)
        k = 0
        while todo.size:
            k += 1
            g = _grid(u[todo], k)
            hit, split = self._at_depth(g, k)
            stop = ~split
            leaf[todo[stop]], depth[todo[stop]], grid[todo[stop]] = hit[stop], k, g[stop]  # a leaf, or an empty child
            todo = todo[split]
        side = (self.high - self.low) / 2.0**depth
        return self.low + grid * side[:, None], side, leaf

    def _at_depth(self, g: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """For cells ``g`` at depth ``k``: the leaf index of each (-1 if none) and whether it was split."""
        at_k = np.flatnonzero(self.leaf_depth == k)
        split_rows = [np.frombuffer(key, dtype=np.int64) for key in self.internal[k]] if k < len(self.internal) else []
        split_cells = np.asarray(split_rows, dtype=np.int64).reshape(-1, self.d)
        keys, leaf_keys, split_keys = (_row_keys(c, k) for c in (g, self.leaf_grid[at_k], split_cells))
        if keys is None or leaf_keys is None or split_keys is None:  # too deep for integer keys
            index = {row.tobytes(): i for i, row in zip(at_k, self.leaf_grid[at_k])}
            hit = np.array([index.get(row.tobytes(), -1) for row in g], dtype=np.int64)
            inner = self.internal[k] if k < len(self.internal) else frozenset()
            return hit, np.array([row.tobytes() in inner for row in g], dtype=bool)
        hit = np.full(keys.size, -1, dtype=np.int64)
        if at_k.size:
            order = np.argsort(leaf_keys, kind="stable")
            pos = np.minimum(np.searchsorted(leaf_keys[order], keys), at_k.size - 1)
            found = leaf_keys[order][pos] == keys
            hit[found] = at_k[order][pos[found]]
        return hit, np.isin(keys, split_keys)


def build_histogram(db: Any, T: int, low: float = -1.0, high: float = 1.0) -> Histogram:
    """The recursive histogram of ``db`` as arrays (see `recursive_histogram`).

    Parameters
    ----------
    db : array (n, d), every point inside the box
    T : int in [2, n]
        Cells holding T or more points are split (T = 1 asks for empty leaves: no finite histogram).
    low, high : float
        The declared box.

    Returns
    -------
    Histogram
    """
    db = check_db(db)
    n, d = db.shape
    T = check_int("T", T, low=2, high=n)
    low, high = check_box(db, low, high)
    u = (db - low) / (high - low)
    leaf_grid: list[np.ndarray] = [np.zeros((0, d), dtype=np.int64)]
    leaf_depth: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    leaf_count: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    internal = [frozenset([np.zeros(d, dtype=np.int64).tobytes()])]  # the root is split (n >= T)
    point_leaf = np.empty(n, dtype=np.int64)
    active = np.arange(n)
    depth = leaves = 0
    while active.size:
        depth += 1
        if depth > MAX_DEPTH:
            raise PrivlabError(
                f"db holds {T} or more identical points (cells still hold >= T = {T} points at "
                f"depth {MAX_DEPTH}); add jitter or raise T"
            )
        g = _grid(u[active], depth)
        cells, inverse, counts = _cells(g, depth)
        split = counts >= T
        # the cells not split are this depth's leaves, numbered after the leaves found above
        leaf_id = leaves + np.cumsum(~split) - 1
        stays = split[inverse]
        point_leaf[active[~stays]] = leaf_id[inverse[~stays]]
        leaf_grid.append(cells[~split])
        leaf_depth.append(np.full(int((~split).sum()), depth, dtype=np.int64))
        leaf_count.append(counts[~split].astype(np.int64))
        leaves += int((~split).sum())
        internal.append(frozenset(row.tobytes() for row in cells[split]))
        active = active[stays]
    return Histogram(
        low=low,
        high=high,
        T=T,
        d=d,
        leaf_grid=np.concatenate(leaf_grid).astype(np.int64).reshape(-1, d),
        leaf_depth=np.concatenate(leaf_depth),
        leaf_count=np.concatenate(leaf_count),
        point_leaf=point_leaf,
        internal=tuple(internal),
    )


def recursive_histogram(db: Any, T: int, low: float = -1.0, high: float = 1.0) -> list[Leaf]:
    """The talk's recursive histogram: the released leaf cells and their counts.

    Start from the cube [low, high]^d; while a cell holds ``>= T`` points, split it into
    2^d sub-cubes by halving every side. Only non-empty children are kept.

    Parameters
    ----------
    db : array (n, d), every point inside the box
    T : int in [2, n]
    low, high : float
        The declared box.

    Returns
    -------
    list of Leaf
        Each with ``.low`` (corner vector), ``.side`` and ``.count`` (< T); counts sum to n.
    """
    return build_histogram(db, T, low, high).leaves()
