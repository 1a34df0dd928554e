"""Exact distance questions about a database, answered from blocked matrix products.

Every question the isolation package asks of RDB reduces to Euclidean distances from some
points (adversary outputs, or rows of RDB itself) to every row of RDB:

* `DistanceIndex.ball_status`: does the closed ball ``B(q, R)`` hold at least ``T + 1``
  rows of db (the isolation test, the excluded point counted);
* `DistanceIndex.nearest`: the distance from q to its nearest row;
* `DistanceIndex.kth_sq`: the T-th smallest squared distance from a row to all rows (the
  T-radius).

The *definition* of a distance is the isolation test's own (`privlab.isolation.isolates`):
``sqrt(np.sum((y - q) ** 2))`` in float64 on C-ordered rows, compared with ``<=``. Every
answer here equals what that formula gives, ties at the radius included.

How it is fast. Distances come from one matrix product per block, ``||y||^2 - 2 q.y``
against an augmented, centred float32 copy of db (BLAS), in blocks of queries x columns
(never an ``m x n`` or ``n x n`` matrix). A rigorous bound on the product's rounding error
(``gamma (||q|| + max ||y||)^2``, inputs rounded to float32 included) splits each entry into
certainly inside, certainly outside, or within the error band of the threshold; only the
band is recomputed with the exact formula. Ball tests stop early: the columns are scanned in
an interleaved order in chunks of growing width, and a query leaves the scan as soon as
``T + 1`` rows are certainly inside its ball (most adversary outputs do so within the first
chunk). In low dimension (``TREE_*_MAX_D``) a k-d tree finishes the queries that remain
(its counts at radii 1e-9 apart bracket the exact count), finds nearest neighbours and the
T-th neighbours' candidates (then recomputed exactly; for T-th neighbours only while
``n 2^d`` is small, its search slowing down with both); above that a k-d tree degenerates to
a slow brute force. A nearest or T-th neighbour needs every column that can lie within a
bound: the rows are split once into the leaves of a k-d partition (`KdLeaves`), queries go
in blocks of neighbours, the leaves around a block bound each query, and a pass visits only
the leaves whose bounding box lies within the query's bound (in 6-12 dimensions a small part
of them; in higher dimension every leaf, in chunks); for a T-th neighbour it gathers the
columns under the bound, and only those near the T-th value are recomputed. Above the
tree's dimensions the ball tests that two chunks of the scan leave undecided, and whose
count so far foretells fewer than ``LEAVES_DENSE (T + 1)`` rows (a full count ahead), are
finished the same way (`DistanceIndex._ball_leaves`): each visits only the leaves whose box
reaches its ball (no row of another leaf can be in either count); the denser balls go on with
the scan, which they leave early. A ball of one known radius still in the band is settled by
the formula on the rows of the leaves it visited (on every row after a full scan).

Every pruning decision is safe by the same argument: a box's squared distance, less its
``BOX_REL`` slack, is at most the formula's value at any row of the leaf, so a leaf is
skipped only when every one of its rows lies beyond the bound the pass needs.

Measured at n = 100,000, T = 100, c = 4 (one core, CPU time): the isolation test of the
natural adversaries' outputs takes 0.6-4 us per output at d >= 6 and 20-40 us at d = 2..4
(where 1-15 % of outputs isolate and need a full count), against about 900 us per output for
the former block-by-block brute force over all n columns; a nearest neighbour 40-140 us
(d = 8..20; a full pass took 100-150 us); a T-radius about 100 us per row at d = 6 and
300-450 us at d >= 14 (the full pass took 400-450 us at every d). The ball tests of
``isolation_vs_c_T`` (d = 6, every adversary, c = 1..8, T = 1 and 10, 250,000 balls, many
of them isolating) take about 17 us per ball with the leaves finishing the sparse ones,
against about 100 us with the scan alone (complete counts over every column, CPU time
largely spent in the kernel on fresh arrays). Where a T-radius pass visits every column (d >= 14)
the leaves around a point bound its T-th value loosely (7.5 T columns gathered per point at the
median, d = 20), so a spread sample of ``KTH_SAMPLE`` columns bounds it instead (3 T gathered;
the few points whose sample bound falls short, 1-5 in 25,000, are computed exactly): on a
slower machine than the figures above, 210 us per row at d = 20 against 380 us with the leaves'
bound alone, half of it the float32 products over every column. The k-d tree's T-th search
slows with n and d: above ``n 2^d = 2^20`` the pass beats it (n = 100,000, T = 100: 7.1 s
against 10.2 s for every row at d = 4, 8.7 s against 15.6 s at d = 5, three orders T - 1, T,
T + 1 at once).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .._lazy import lazy
from .._validation import check_choice

spatial = lazy("scipy.spatial")
if TYPE_CHECKING:
    from scipy.spatial import cKDTree

__all__ = ["KDTREE_MAX_D", "METHODS", "DistanceIndex", "KdLeaves", "use_tree", "scan_order", "exact_sq"]

# "auto" uses a k-d tree, where it beats the blocked products (measured at n = 100,000):
TREE_BALL_MAX_D = 4  # to finish ball counts and find targets' T-th neighbours (their certificates)
TREE_KTH_MAX_D = 5  # for T-th neighbours (T-radii) ...
TREE_KTH_MAX_WORK = 1 << 20  # ... while n 2^d stays below this (the tree's T-th search slows with both;
# measured for T = 10 and 100 at n = 10,000 to 200,000), or in one dimension
TREE_NEAREST_MAX_D = 7  # for nearest neighbours
KDTREE_MAX_D = max(TREE_BALL_MAX_D, TREE_KTH_MAX_D, TREE_NEAREST_MAX_D)  # no tree above this d
METHODS = ("auto", "kdtree", "brute")
BLOCK_ELEMENTS = 1 << 19  # entries of one product block (2 MB of float32)
LONG, SHORT = 2048, 256  # rows and first columns of a product block
MAX_WIDTH = 65535  # columns per block at most: per-row counts are summed in uint16
TREE_AFTER = 4096  # columns a ball test scans before a k-d tree finishes it (low d)
LEAVES_AFTER = SHORT + 1  # two chunks of a ball test's scan before the k-d leaves finish it (higher d)
LEAVES_DENSE = 4  # ... the balls whose count so far foretells fewer than 4 need rows (others leave early)
LEAVES_WORTH = 32  # ball tests build the k-d leaves for n / 32 unfinished balls or more
REL = 1e-12  # relative slack on squared radii (rounding of R^2, of sqrt)
TREE_REL = 1e-9  # relative slack on k-d tree radii (its own arithmetic)
TINY = 1e-300  # a radius 0 ball still holds the duplicates of its centre
LEAF = 256  # rows per leaf (at most) of the k-d partition that prunes full passes
TILE_ROWS, TILE_COLS = LONG, SHORT  # points and columns of a product where a pass visits every column
BLOCK = 8192  # queries per pruned pass (its sub-blocks of LONG bound themselves from their leaves); <= 2**16
SPAN = 8192  # a sub-block whose leaves span more rows than this bounds itself from a sample
PRUNE_KEEP = 0.75  # a block needing more than this fraction of (query, leaf) pairs scans every leaf
BOX_REL = 1e-9  # relative slack on a box's lower bound (rounding of the bound and of the formula)
KTH_SAMPLE = 4096  # columns of the sample that bounds a T-th neighbour where a pass visits every column ...
KTH_SAMPLE_MARGIN = 3  # ... at the value with about 3 T columns under it (fewer than T: ~1e-4 of points)


def use_tree(d: int, method: str, max_d: int = KDTREE_MAX_D) -> bool:
    """Whether ``method`` ("auto", "kdtree" or "brute") uses a k-d tree in dimension ``d`` for
    an operation that "auto" gives the tree up to ``max_d`` dimensions."""
    check_choice("method", method, METHODS)
    return method == "kdtree" or (method == "auto" and d <= max_d)


def scan_order(n: int) -> np.ndarray:
    """An interleaved order of ``n`` rows (a Kronecker sequence): any prefix is spread over the
    whole index range, so early chunks of a sorted database are not all alike."""
    return np.argsort(np.mod(np.arange(n) * 0.6180339887498949, 1.0), kind="stable")


def exact_sq(points: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``np.sum((rows - points) ** 2, axis=-1)`` for pairs (or a point against rows): the
    isolation test's own arithmetic, bit for bit (C-ordered operands)."""
    diff = np.ascontiguousarray(rows - points)
    return np.sum(diff * diff, axis=-1)


def _f32_down(x: np.ndarray, dtype: Any) -> np.ndarray:
    """``x`` rounded to ``dtype`` towards -inf (a threshold that never admits more)."""
    y = x.astype(dtype)
    over = y.astype(np.float64) > x
    y[over] = np.nextafter(y[over], dtype(-np.inf))
    return y


def _f32_up(x: np.ndarray, dtype: Any) -> np.ndarray:
    """``x`` rounded to ``dtype`` towards +inf."""
    y = x.astype(dtype)
    under = y.astype(np.float64) < x
    y[under] = np.nextafter(y[under], dtype(np.inf))
    return y


def _count_le(G: np.ndarray, thr: np.ndarray) -> np.ndarray:
    """Per row of G (at most ``MAX_WIDTH`` columns), the entries ``<=`` that row's threshold."""
    return np.add.reduce((G <= thr[:, None]).view(np.uint8), axis=1, dtype=np.uint16)


class KdLeaves:
    """A k-d partition of a database's rows into leaves of at most ``leaf`` rows (median splits
    of the widest coordinate) with each leaf's bounding box, so that a full pass over the rows
    can skip the leaves whose box lies beyond a query's threshold.

    Attributes
    ----------
    order : int array (n,)
        The rows leaf by leaf: leaf ``l`` is ``order[starts[l]:starts[l + 1]]``.
    starts : int array (L + 1,)
    low_t, high_t : float arrays (d, L)
        Each leaf's bounding box, one row per coordinate.
    leaf : int array (n,)
        The leaf of each row.
    """

    def __init__(self, X: np.ndarray, leaf: int = LEAF) -> None:
        n = X.shape[0]
        order = np.arange(n)
        starts: list[int] = []
        self._dims: list[int] = []
        self._cuts: list[float] = []
        self._kids: list[tuple[int, int]] = []

        def split(lo: int, hi: int) -> int:  # a node's id; ~leaf for a leaf
            if hi - lo <= leaf:
                starts.append(lo)
                return ~(len(starts) - 1)
            sub = order[lo:hi]
            Y = X[sub]
            k = int(np.argmax(Y.max(axis=0) - Y.min(axis=0)))
            mid = (hi - lo) // 2
            part = np.argpartition(Y[:, k], mid)
            order[lo:hi] = sub[part]
            node = len(self._dims)
            self._dims.append(k)
            self._cuts.append(float(Y[part[mid], k]))
            self._kids.append((0, 0))
            left = split(lo, lo + mid)
            self._kids[node] = (left, split(lo + mid, hi))
            return node

        self._root = split(0, n)
        self.order = order
        self.starts = np.array([*starts, n], dtype=np.int64)
        rows = X[order]
        self.low_t = np.ascontiguousarray(np.minimum.reduceat(rows, self.starts[:-1], axis=0).T)
        self.high_t = np.ascontiguousarray(np.maximum.reduceat(rows, self.starts[:-1], axis=0).T)
        self.leaf = np.empty(n, dtype=np.int64)
        self.leaf[order] = np.repeat(np.arange(self.starts.size - 1), np.diff(self.starts))

    @property
    def count(self) -> int:
        return self.starts.size - 1

    def leaf_of(self, Q: np.ndarray) -> np.ndarray:
        """The leaf whose cell (of the splits) holds each point: where a query's neighbours
        mostly are, to group nearby queries (any leaf would give the same answers)."""
        out = np.zeros(Q.shape[0], dtype=np.int64)
        stack = [(self._root, np.arange(Q.shape[0]))]
        while stack:
            node, idx = stack.pop()
            if node < 0:
                out[idx] = ~node
                continue
            left = Q[idx, self._dims[node]] < self._cuts[node]
            for child, sub in zip(self._kids[node], (idx[left], idx[~left])):
                if sub.size:
                    stack.append((child, sub))
        return out

    def box_sq(self, P: np.ndarray, leaves: np.ndarray) -> np.ndarray:
        """Squared distance from each point of P to the box of each of ``leaves``, (m, k): no
        larger than the formula's squared distance to any row of the leaf but for rounding (the
        coordinate differences round monotonically; the sums, in another order, within d ulps)."""
        low, high = self.low_t[:, leaves], self.high_t[:, leaves]
        out = np.zeros((P.shape[0], leaves.size))
        g = np.empty_like(out)
        for k in range(P.shape[1]):
            p = P[:, k, None]
            np.subtract(low[k], p, out=g)
            np.maximum(g, p - high[k], out=g)
            np.maximum(g, 0.0, out=g)
            np.multiply(g, g, out=g)
            out += g
        return out


def _sub_blocks(first: np.ndarray) -> list[slice]:
    """Cut queries sorted by the first row of their leaf (``first``) into sub-blocks of at most
    ``LONG``, each spanning fewer than ``SPAN`` rows when it can (a sub-block of far-apart
    queries, at least ``LONG / 8`` of them, is bounded from a sample of the rows instead)."""
    out, start, k = [], 0, first.size
    while start < k:
        far = int(np.searchsorted(first, first[start] + SPAN, side="left"))
        end = max(min(start + LONG, far), min(start + LONG // 8, k))
        out.append(slice(start, end))
        start = end
    return out


class DistanceIndex:
    """A database prepared for exact blocked distance questions (see the module docstring).

    Parameters
    ----------
    db : array (n, d), finite
    method : {"auto", "kdtree", "brute"}
        Whether a k-d tree may help: "kdtree" everywhere, "brute" nowhere, "auto" where it
        is faster (``TREE_*_MAX_D``). Every method gives the same answers.
    """

    def __init__(self, db: np.ndarray, method: str = "auto") -> None:
        self.db = np.ascontiguousarray(db, dtype=np.float64)
        self.n, self.d = self.db.shape
        self.tree_ball = use_tree(self.d, method, TREE_BALL_MAX_D)
        self.tree_kth = use_tree(self.d, method, TREE_KTH_MAX_D) and (
            method == "kdtree" or self.d == 1 or self.n * 2**self.d <= TREE_KTH_MAX_WORK
        )
        self.tree_nearest = use_tree(self.d, method, TREE_NEAREST_MAX_D)
        self._tree: cKDTree | None = None
        self._kth_cache: dict[int, np.ndarray] = {}
        self._leaves: KdLeaves | None = None
        self.order = scan_order(self.n)
        X = self.db[self.order]
        self.centre = (X.max(axis=0) + X.min(axis=0)) / 2 if self.n else np.zeros(self.d)
        X0 = X - self.centre
        sq = np.einsum("ij,ij->i", X0, X0)
        self.maxnorm = float(np.sqrt(sq.max())) if self.n else 0.0
        # float32 products unless the data's scale risks overflow; gamma bounds the rounding
        # error of ||y||^2 - 2 q.y (inputs rounded, d + 1 products summed in any order, the
        # float64 centring and the exact formula's own rounding) by gamma (||q|| + ||y||)^2
        self.dtype: Any = np.float32 if self.maxnorm < 1e15 else np.float64
        unit = 2.0**-24 if self.dtype is np.float32 else 2.0**-53
        self.gamma = (4 * self.d + 32) * unit
        Bt = np.empty((self.n, self.d + 1), dtype=self.dtype)
        Bt[:, : self.d] = X0
        Bt[:, self.d] = sq
        self.Bt = Bt  # rows [y, ||y||^2], centred, in scan order

    @property
    def tree(self) -> cKDTree:
        if self._tree is None:
            self._tree = spatial.cKDTree(self.db)
        return self._tree

    @property
    def leaves(self) -> KdLeaves:
        """The k-d leaves of db (built on first use), with ``leaf_B`` and ``leaf_rows``: the
        augmented rows (as ``Bt``) and the rows of db, leaf by leaf."""
        if self._leaves is None:
            self._leaves = KdLeaves(self.db)
            X = self.db[self._leaves.order]
            X0 = X - self.centre
            B = np.empty((self.n, self.d + 1), dtype=self.dtype)
            B[:, : self.d] = X0
            B[:, self.d] = np.einsum("ij,ij->i", X0, X0)
            self.leaf_B, self.leaf_rows = B, X
        return self._leaves

    # --- shared pieces ------------------------------------------------------------------
    def _prepare(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The augmented queries ``[-2 q, 1]``, their squared norms and error bounds (all centred)."""
        Q0 = Q - self.centre
        qsq = np.einsum("ij,ij->i", Q0, Q0)
        A = np.empty((Q.shape[0], self.d + 1), dtype=self.dtype)
        A[:, : self.d] = -2.0 * Q0
        A[:, self.d] = 1.0
        err = self.gamma * (np.sqrt(qsq) + self.maxnorm) ** 2
        return A, qsq, err

    def _product(self, A: np.ndarray, start: int, stop: int) -> np.ndarray:
        """``||y||^2 - 2 q.y`` for the queries ``A`` (rows) against scan columns ``start:stop``."""
        return A @ self.Bt[start:stop].T

    # --- pruned full passes (leaf by leaf) ------------------------------------------------
    def _windows(self, leaf: np.ndarray, width: int) -> list[tuple[slice, int, int]]:
        """Sub-blocks of queries sorted by ``leaf``, each with the leaves ``[l0, l1)`` around it
        (at least ``width`` rows) or ``l0 == l1 == 0`` where its queries lie far apart."""
        lv = self.leaves
        width = min(width, self.n)
        out = []
        for sub in _sub_blocks(lv.starts[leaf]):
            l0, l1 = int(leaf[sub.start]), int(leaf[sub.stop - 1]) + 1
            while lv.starts[l1] - lv.starts[l0] < width:
                if l1 < lv.count:
                    l1 += 1
                if l0 > 0 and lv.starts[l1] - lv.starts[l0] < width:
                    l0 -= 1
            if lv.starts[l1] - lv.starts[l0] > SPAN + width:
                l0 = l1 = 0
            out.append((sub, l0, l1))
        return out

    def _need(self, P: np.ndarray, U: np.ndarray) -> np.ndarray | None:
        """Which leaves each point must visit, (m, L): those whose box may hold a row of formula
        squared distance ``<= U``; None when that is most of them (visit every leaf).

        The bounding box of a few neighbouring points rules out most far leaves for all of them
        at once; the points' own boxes decide the rest.
        """
        lv = self.leaves
        need = np.zeros((P.shape[0], lv.count), dtype=bool)
        for s in range(0, P.shape[0], SHORT):  # few points at a time: small arrays, tight boxes
            Ps, Us = P[s : s + SHORT], U[s : s + SHORT]
            gap = np.maximum(np.maximum(lv.low_t - Ps.max(axis=0)[:, None], Ps.min(axis=0)[:, None] - lv.high_t), 0.0)
            cand = np.flatnonzero(np.einsum("kl,kl->l", gap, gap) * (1 - BOX_REL) <= Us.max())
            need[s : s + SHORT, cand] = lv.box_sq(Ps, cand) * (1 - BOX_REL) <= Us[:, None]
            if s == 0 and np.count_nonzero(need[:SHORT]) > PRUNE_KEEP * need[:SHORT].size:
                return None  # the first points foretell the rest (high dimension): spare the others
        return None if np.count_nonzero(need) > PRUNE_KEEP * need.size else need

    def _visits(self, need: np.ndarray | None, m: int) -> list[tuple[int, int, np.ndarray]]:
        """The column ranges (leaf order) a pass over ``m`` points visits, each with the points
        that need it: every leaf some point needs, or (``need`` None) every column, in tiles
        of ``TILE_ROWS`` points by ``TILE_COLS`` columns (products that stay in cache)."""
        if need is None:
            return [
                (a, min(self.n, a + TILE_COLS), np.arange(s, min(m, s + TILE_ROWS)))
                for s in range(0, m, TILE_ROWS)
                for a in range(0, self.n, TILE_COLS)
            ]
        starts = self.leaves.starts
        leaf, point = np.nonzero(need.T)  # leaf by leaf, the points in order
        cuts = np.flatnonzero(np.diff(leaf)) + 1
        return [
            (int(starts[leaf[i]]), int(starts[leaf[i] + 1]), pts)
            for i, pts in zip(np.concatenate([[0], cuts]), np.split(point, cuts))
            if pts.size
        ]

    # --- ball counts --------------------------------------------------------------------
    def ball_status(
        self, Q: np.ndarray, R_low: np.ndarray, R_high: np.ndarray, need: int, *, columns: int | None = None
    ) -> np.ndarray:
        """Whether each closed ball ``B(Q[i], R)`` holds at least ``need`` rows of db, for a
        radius known to lie in ``[R_low[i], R_high[i]]``.

        ``columns``: look at the first ``columns`` scan columns only (a cheap first look that
        decides the large balls; the other rows stay undecided).

        The first chunk of the scan decides most balls; above ``TREE_BALL_MAX_D`` the leaves
        finish, after two chunks, the balls foretold to hold few rows (`_ball_leaves`: only the
        leaves whose box reaches the ball); the others, and those whose boxes rule out too few
        leaves (high dimension), go on with the scan over every column.

        Returns
        -------
        int8 array (m,)
            +1: at least ``need`` rows lie within ``R_low`` (so within R); -1: fewer than
            ``need`` lie within ``R_high``; 0: undecided at this precision (the caller
            recomputes those rows exactly). Above ``TREE_BALL_MAX_D`` (``columns`` None) a ball
            of one known radius (``R_low[i] == R_high[i]``) is never left undecided: the formula
            itself, ``sqrt(exact_sq) <= R`` (the isolation test's comparison), settles its band.
        """
        m = Q.shape[0]
        status = np.zeros(m, dtype=np.int8)
        if m == 0 or need <= 0:
            status[:] = 1
            return status
        if need > self.n:
            status[:] = -1
            return status
        A, qsq, err = self._prepare(Q)
        lo_thr = _f32_down(R_low * R_low * (1 - REL) - err - qsq, self.dtype)
        hi_thr = _f32_up(R_high * R_high * (1 + REL) + err - qsq, self.dtype)
        stop = self.n if columns is None else min(self.n, columns)
        by_leaves = columns is None and not self.tree_ball
        cut = TREE_AFTER if self.tree_ball else self.n
        hand = LEAVES_AFTER if by_leaves else self.n
        status, rest = self._ball_scan(A, lo_thr, hi_thr, np.arange(m), need, stop, cut, columns is None, hand)
        if columns is not None:
            return status
        if self.tree_ball:  # the tree's counts at radii just inside and just outside bracket the exact count
            lo = self.tree.query_ball_point(Q[rest], np.maximum(R_low[rest] * (1 - TREE_REL), 0.0), return_length=True)
            status[rest] = np.where(lo >= need, 1, 0)
            rest = rest[lo < need]
            hi = self.tree.query_ball_point(Q[rest], R_high[rest] * (1 + TREE_REL) + TINY, return_length=True)
            status[rest] = np.where(hi < need, -1, 0)
            return status
        left = rest
        if self._leaves is not None or rest.size * LEAVES_WORTH >= self.n:  # (building them costs ~n/32 scans)
            U = R_high * R_high * (1 + REL)  # no row beyond it counts in the upper count
            status[rest], left = self._ball_leaves(Q, A, lo_thr, hi_thr, U, R_low, R_high, need, rest)
        if left.size:  # the boxes ruled out too few leaves, or too few balls to build them: every column
            status[left] = self._ball_scan(A, lo_thr, hi_thr, left, need, self.n, self.n, True)[0]
        for i in np.flatnonzero((status == 0) & (R_low == R_high)):  # one radius: the formula settles the band
            status[i] = 1 if np.count_nonzero(np.sqrt(exact_sq(Q[i], self.db)) <= R_high[i]) >= need else -1
        return status

    def _ball_scan(
        self,
        A: np.ndarray,
        lo_thr: np.ndarray,
        hi_thr: np.ndarray,
        rows: np.ndarray,
        need: int,
        stop: int,
        cut: int,
        complete: bool,
        hand: int | None = None,
        dense: float = LEAVES_DENSE,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Ball counts of the queries ``rows`` over the scan columns ``[0, stop)``, in chunks of
        growing width, a query leaving as soon as ``need`` rows are certainly inside; no chunk
        starts at or after ``cut``. Where every column was seen and ``complete``, the upper
        count decides the rest. Once ``hand`` columns are seen, the queries whose lower count
        so far foretells fewer than ``dense * need`` rows in all (a full count ahead)
        leave the scan undecided, for the leaves; the others go on (they leave it early).

        Returns
        -------
        (status of ``rows`` (int8), the rows still undecided whose scan stopped before n)
        """
        status = np.zeros(rows.size, dtype=np.int8)
        rest = []
        for start in range(0, rows.size, LONG):
            blk = rows[start : start + LONG]
            lo = np.zeros(blk.size, dtype=np.int64)
            hi = np.zeros(blk.size, dtype=np.int64)
            act = np.arange(blk.size)  # rows of the block still undecided
            pos, width, handed = 0, SHORT, hand is None
            while act.size and pos < stop and pos < cut:
                w = min(stop - pos, MAX_WIDTH, max(width, BLOCK_ELEMENTS // act.size))
                r = blk[act]
                G = self._product(A[r], pos, pos + w)
                lo[act] += _count_le(G, lo_thr[r])
                alive = lo[act] < need
                if alive.any():  # the band's upper count, needed only while undecided
                    Ga = G if alive.all() else G[alive]
                    hi[act[alive]] += _count_le(Ga, hi_thr[r[alive]])
                act = act[alive]
                pos += w
                width *= 4
                if not handed and hand is not None and hand <= pos < self.n:
                    sparse = lo[act] * self.n < dense * need * pos
                    rest.append(blk[act[sparse]])
                    act, handed = act[~sparse], True
            status[start : start + blk.size] = np.where(lo >= need, 1, 0)
            if act.size and complete:
                if pos >= self.n:  # every column scanned: the counts are complete
                    status[start + act] = np.where(hi[act] < need, -1, 0)
                else:
                    rest.append(blk[act])
        return status, np.concatenate(rest) if rest else np.zeros(0, dtype=np.int64)

    def _ball_leaves(
        self,
        Q: np.ndarray,
        A: np.ndarray,
        lo_thr: np.ndarray,
        hi_thr: np.ndarray,
        U: np.ndarray,
        R_low: np.ndarray,
        R_high: np.ndarray,
        need: int,
        rows: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Complete ball counts of the queries ``rows``, leaf by leaf.

        The queries go in blocks of neighbours (by leaf); each visits only the leaves whose box
        may hold a row of formula squared distance ``<= U = R_high^2 (1 + REL)`` (`_need`): a
        row of any other leaf lies beyond ``R_high`` (its formula value exceeds U), so it is in
        neither count, and the counts over the visited leaves are the complete counts of the
        scan. A ball still undecided with ``R_low == R_high`` (one known radius R) is settled
        by the formula itself on the rows of its visited leaves: ``sqrt(exact_sq) <= R``, the
        isolation test's own comparison.

        Returns
        -------
        (status of ``rows`` (int8), the rows of blocks where the boxes rule out too few leaves)
        """
        lv = self.leaves
        leaf = lv.leaf_of(Q[rows])
        sort = np.argsort(leaf, kind="stable")
        status = np.zeros(rows.size, dtype=np.int8)
        left = []
        buf = np.empty(BLOCK * LEAF, dtype=self.dtype)
        for start in range(0, sort.size, BLOCK):
            at = sort[start : start + BLOCK]
            idx = rows[at]
            Qb = Q[idx]
            needs = self._need(Qb, U[idx])
            if needs is None:
                left.append(idx)
                continue
            Ab, lt, ht = A[idx], lo_thr[idx], hi_thr[idx]
            lo = np.zeros(idx.size, dtype=np.int64)
            hi = np.zeros(idx.size, dtype=np.int64)
            for a, b, rr in self._visits(needs, idx.size):
                sel = slice(rr[0], rr[-1] + 1) if rr[-1] - rr[0] + 1 == rr.size else rr  # a view where it can
                G = np.matmul(Ab[sel], self.leaf_B[a:b].T, out=buf[: rr.size * (b - a)].reshape(rr.size, b - a))
                lo[sel] += _count_le(G, lt[sel])
                hi[sel] += _count_le(G, ht[sel])
            st = np.where(lo >= need, 1, np.where(hi < need, -1, 0)).astype(np.int8)
            for j in np.flatnonzero((st == 0) & (R_low[idx] == R_high[idx])):
                cols = np.concatenate([np.arange(lv.starts[k], lv.starts[k + 1]) for k in np.flatnonzero(needs[j])])
                inside = np.count_nonzero(np.sqrt(exact_sq(Qb[j], self.leaf_rows[cols])) <= R_high[idx[j]])
                st[j] = 1 if inside >= need else -1
            status[at] = st
        return status, np.concatenate(left) if left else np.zeros(0, dtype=np.int64)

    def target_status(self, Q: np.ndarray, targets: np.ndarray, delta: np.ndarray, c: float, T: int) -> np.ndarray:
        """Decide isolation from the target's own neighbourhood, where that suffices.

        With t' the distance from x to its T-th nearest other row: B(q, c delta) contains
        B(x, (c - 1) delta), so (c - 1) delta >= t' puts T other rows in the ball (not
        isolated); and it lies inside B(x, (c + 1) delta), so (c + 1) delta < t' leaves fewer
        than T (isolated). Only queries between the two need a ball test. t' comes from the
        k-d tree (cheap in low dimension; computed once per target and kept).

        Returns
        -------
        int8 array: +1 not isolated, -1 isolated, 0 undecided (both with a 1e-9 margin).
        """
        status = np.zeros(Q.shape[0], dtype=np.int8)
        if T + 1 > self.n or c < 1.01:
            return status
        rows, inverse = np.unique(targets, return_inverse=True)
        t2 = self.kth_sq_cached(rows, T + 1)[inverse.reshape(-1)]
        tp = np.sqrt(t2)
        status[(c - 1) * delta * (1 - TREE_REL) >= tp] = 1
        status[(c + 1) * delta * (1 + TREE_REL) < tp] = -1
        return status

    def kth_sq_cached(self, rows: np.ndarray, T: int) -> np.ndarray:
        """`kth_sq`, remembering the values computed (per T) for later calls; where the k-d tree
        searches, or the ball certificates will ask for T + 1 (low d), the (T - 1)-th and (T + 1)-th
        come from the same search or pass and are kept too."""
        known = self._kth_cache.setdefault(T, np.full(self.n, np.nan))
        todo = rows[np.isnan(known[rows])]
        if todo.size:
            if 8 * (T + 1) < self.n and self.n > LONG:
                # the neighbours of T come with those of T - 1 and T + 1 at little cost; the ball
                # certificates (low d) ask for T + 1 beside the T-radii's T
                orders = [t for t in (T - 1, T, T + 1) if t >= 1] if self.tree_ball or self.tree_kth else [T]
                search = self._kth_tree(self.db[todo], orders) if self.tree_kth else self._kth_pass(todo, orders)
                for t, values in zip(orders, search):
                    self._kth_cache.setdefault(t, np.full(self.n, np.nan))[todo] = values
            else:
                known[todo] = self.kth_sq(todo, T)
        return known[rows]

    # --- nearest neighbours -------------------------------------------------------------
    def nearest(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Bounds on the squared distance from each query to its nearest row of db.

        Returns
        -------
        (low, high, rows)
            ``low <= min_y exact_sq(q, y) <= high`` (float arrays (m,)); when a k-d tree found
            the neighbours, ``low == high`` is the exact value and ``rows`` their indices
            (one of them where several tie), else ``rows`` is None.
        """
        m = Q.shape[0]
        if m == 0 or self.n == 0:
            return np.zeros(m), np.zeros(m), None
        if self.tree_nearest:
            k = min(2, self.n)
            D, idx = self.tree.query(Q, k=k)
            D, idx = D.reshape(m, k), idx.reshape(m, k)
            rows = idx[:, 0].copy()
            exact = exact_sq(Q, self.db[rows])
            if k == 2:  # a unique nearest neighbour up to the tree's rounding: it is the exact one
                tied = np.flatnonzero(~(D[:, 1] > D[:, 0] * (1 + TREE_REL) + TINY))
                for i in tied:
                    cand = np.asarray(self.tree.query_ball_point(Q[i], D[i, 0] * (1 + TREE_REL) + TINY), dtype=np.int64)
                    s = exact_sq(Q[i], self.db[cand])
                    rows[i], exact[i] = cand[np.argmin(s)], s.min()
            return exact, exact, rows
        A, qsq, err = self._prepare(Q)
        gmin = self._nearest_pass(Q, A, qsq, err)
        return np.maximum(gmin + qsq - err, 0.0), gmin + qsq + err, None

    def _nearest_pass(self, Q: np.ndarray, A: np.ndarray, qsq: np.ndarray, err: np.ndarray) -> np.ndarray:
        """Each query's smallest product over the rows that can be nearest.

        Queries go in blocks of neighbours (grouped by the leaf they fall in); the leaves
        around a sub-block give each query an upper bound U on its nearest squared distance,
        and a leaf whose box lies farther than U cannot hold the nearest row (the minimum
        product, over the rows visited, still gives ``min + qsq -+ err`` bounds).
        """
        lv = self.leaves
        leaf = lv.leaf_of(Q)
        sort = np.argsort(leaf, kind="stable")
        gmin = np.empty(Q.shape[0])
        prune = True
        for start in range(0, sort.size, BLOCK):
            idx = sort[start : start + BLOCK]
            Ab = A[idx]
            best = np.empty(idx.size, dtype=self.dtype)
            windows = self._windows(leaf[idx], LONG)
            for sub, l0, l1 in windows:
                cols = self.leaf_B[lv.starts[l0] : lv.starts[l1]] if l1 else self.leaf_B[:: max(1, self.n // LONG)]
                best[sub] = (Ab[sub] @ cols.T).min(axis=1)
            need = self._need(Q[idx], best + qsq[idx] + err[idx]) if prune else None
            prune = need is not None
            if need is not None:  # the windows' columns are seen already
                for sub, l0, l1 in windows:
                    need[sub, l0:l1] = False
            for a, b, rr in self._visits(need, idx.size):
                if rr.size == idx.size:
                    np.minimum(best, (Ab @ self.leaf_B[a:b].T).min(axis=1), out=best)
                else:
                    sel = slice(rr[0], rr[-1] + 1) if rr[-1] - rr[0] + 1 == rr.size else rr  # a view where it can
                    best[sel] = np.minimum(best[sel], (Ab[sel] @ self.leaf_B[a:b].T).min(axis=1))
            gmin[idx] = best
        return gmin

    # --- T-th smallest distances ----------------------------------------------------------
    def kth_sq(self, rows: np.ndarray, T: int) -> np.ndarray:
        """The exact T-th smallest squared distance from each ``db[rows[i]]`` to all rows of db
        (itself included, at 0).

        Parameters
        ----------
        rows : int array (k,)
            Row indices of db.
        T : int in [1, n]
        """
        out = np.empty(rows.size)
        if rows.size == 0:
            return out
        P = self.db[rows]
        if 8 * T >= self.n or self.n <= LONG:
            for i in range(rows.size):
                out[i] = self._kth_exact(P[i], T)
            return out
        if self.tree_kth:
            return self._kth_tree(P, [T])[0]
        return self._kth_pass(rows, [T])[0]

    def _kth_exact(self, p: np.ndarray, T: int) -> float:
        return float(np.partition(exact_sq(p, self.db), T - 1)[T - 1])

    def _kth_tree(self, P: np.ndarray, orders: list[int]) -> list[np.ndarray]:
        """T-th neighbours from the k-d tree, for each T of ``orders``: the tree's T_max + 8
        nearest hold the exact T nearest whenever the (T_max + 8)-th is clearly farther than
        the T-th."""
        k = max(orders) + 8
        D, idx = self.tree.query(P, k=k)
        outs = [np.empty(P.shape[0]) for _ in orders]
        for start in range(0, P.shape[0], 4096):
            sl = slice(start, min(P.shape[0], start + 4096))
            s = np.sort(exact_sq(P[sl, None, :], self.db[idx[sl]]), axis=1)
            for out, T in zip(outs, orders):
                out[sl] = s[:, T - 1]
        for out, T in zip(outs, orders):
            for i in np.flatnonzero(~(D[:, k - 1] > D[:, T - 1] * (1 + TREE_REL) + TINY)):
                out[i] = self._kth_exact(P[i], T)
        return outs

    def _sample_bound(
        self, A: np.ndarray, q2: np.ndarray, e: np.ndarray, T: int, size: int, margin: float
    ) -> np.ndarray:
        """A likely bound on each point's T-th smallest squared distance, from a spread sample of
        about ``size`` columns: the value with ``margin T`` columns expected under it. Nothing
        rests on it being a bound: `_kth_select` certifies each value (T columns at most the
        bound, all gathered) and the rare point it cannot certify is computed exactly."""
        cols = self.leaf_B[:: max(1, self.n // size)]
        k = min(cols.shape[0], max(1, math.ceil(margin * T * cols.shape[0] / self.n)))
        out = np.empty(A.shape[0])
        for a in range(0, A.shape[0], SHORT):  # products of SHORT x size: in cache
            sl = slice(a, a + SHORT)
            out[sl] = np.partition(A[sl] @ cols.T, k - 1, axis=1)[:, k - 1] + q2[sl] + e[sl]
        return out

    def _kth_pass(self, rows: np.ndarray, orders: list[int]) -> list[np.ndarray]:
        """T-th neighbours from blocked products, leaf by leaf, for each T of ``orders`` (the
        columns are gathered once, for the largest).

        The rows go in blocks of neighbours (by leaf). The leaves around a sub-block (at least
        ``max(LONG, 4 T)`` rows) bound each row's T-th value by U, its T-th smallest there; a
        pass gathers, with its product value a, every column that can lie within U (skipping
        the leaves whose box lies beyond U: in low dimension most of them); the T-th smallest
        a, g, pins the exact T-th value within the error band [g - E, g + E], so only the
        columns with a in [g - 2 E, g + 2 E] are recomputed exactly: those below the band are
        certainly smaller, those above certainly larger. A sub-block of rows far apart bounds
        them from a sample instead (about 8 T columns under it, checked afterwards).
        """
        lv, T = self.leaves, max(orders)
        P_all = self.db[rows]
        leaf = lv.leaf[rows]
        sort = np.argsort(leaf, kind="stable")
        outs = [np.empty(rows.size) for _ in orders]
        redo: list[list[np.ndarray]] = [[] for _ in orders]
        prune = True
        buf = np.empty(max(BLOCK * LEAF, TILE_ROWS * TILE_COLS), dtype=self.dtype)  # products, in place
        hit = np.empty(buf.size, dtype=bool)
        for start in range(0, sort.size, BLOCK):
            idx = sort[start : start + BLOCK]
            P = P_all[idx]
            A, q2, e = self._prepare(P)
            U = np.empty(idx.size)
            seen = []  # (sub-block, l0, l1, gathered (rows, columns, values)) of the windows
            for sub, l0, l1 in self._windows(leaf[idx], max(LONG, 4 * T)):
                if l1:  # the window's T-th smallest bounds the T-th value
                    a0 = int(lv.starts[l0])
                    G = A[sub] @ self.leaf_B[a0 : lv.starts[l1]].T
                    U[sub] = np.partition(G, T - 1, axis=1)[:, T - 1] + q2[sub] + e[sub]
                else:  # rows far apart: about 8 T columns under their bound, checked afterwards
                    U[sub] = self._sample_bound(A[sub], q2[sub], e[sub], T, 4 * SHORT, 8)
                    continue
                thr = _f32_up(U[sub] + e[sub] - q2[sub], self.dtype)
                f = np.flatnonzero(G <= thr[:, None])
                seen.append((sub, l0, l1, (f // G.shape[1] + sub.start, f % G.shape[1] + a0, G.ravel()[f])))
            need = self._need(P, U) if prune else None
            prune = need is not None
            if need is None:  # every column is visited (high d): the leaves around a point hold few of
                # its nearest and bound it loosely (~8 T gathered); a larger sample bounds it tighter
                U = np.minimum(U, self._sample_bound(A, q2, e, T, KTH_SAMPLE, KTH_SAMPLE_MARGIN))
            thr = _f32_up(U + e - q2, self.dtype)
            parts = []
            if need is not None:  # the windows' columns are gathered already
                for sub, l0, l1, got in seen:
                    need[sub, l0:l1] = False
                    parts.append(got)
            for a, b, rr in self._visits(need, idx.size):
                w = b - a
                sel = slice(rr[0], rr[-1] + 1) if rr[-1] - rr[0] + 1 == rr.size else rr  # a view where it can
                G = np.matmul(A[sel], self.leaf_B[a:b].T, out=buf[: rr.size * w].reshape(rr.size, w))
                f = np.flatnonzero(np.less_equal(G, thr[sel, None], out=hit[: rr.size * w].reshape(rr.size, w)))
                parts.append((rr[f // w], f % w + a, G.ravel()[f]))
            r = np.concatenate([p[0] for p in parts])
            by_row = np.argsort(r.astype(np.uint16), kind="stable")  # rows < BLOCK <= 2**16: a radix sort
            r, c = r[by_row], np.concatenate([p[1] for p in parts])[by_row]
            a = np.concatenate([p[2] for p in parts])[by_row] + q2[r]  # float64 approximations, within e[r]
            ends = np.searchsorted(r, np.arange(0, idx.size + LONG, LONG))
            for k, s0 in enumerate(range(0, idx.size, LONG)):  # sub-blocks: small padded tables
                sl, cut = slice(s0, min(idx.size, s0 + LONG)), slice(ends[k], ends[k + 1])
                for out, left, t in zip(outs, redo, orders):
                    vals, ok = _kth_select(P[sl], r[cut] - s0, self.leaf_rows, c[cut], a[cut], e[sl], U[sl], t)
                    out[idx[sl][ok]] = vals[ok]
                    left.append(idx[sl][~ok])
        for out, left, t in zip(outs, redo, orders):
            for i in np.concatenate(left):
                out[i] = self._kth_exact(P_all[i], t)
        return outs


def _kth_select(
    P: np.ndarray, r: np.ndarray, Y: np.ndarray, c: np.ndarray, a: np.ndarray, e: np.ndarray, U: np.ndarray, T: int
) -> tuple[np.ndarray, np.ndarray]:
    """The exact T-th smallest squared distance of each point of P, from its gathered columns.

    ``r`` (sorted) and ``c``: the gathered pairs (point, row of ``Y``), ``a`` their approximate
    values (within ``e[r]`` of the formula), gathered wherever the formula can be ``<= U``.

    Returns
    -------
    (values (b,), ok (b,)): ``values[i]`` is exact where ``ok[i]``; elsewhere the gathered
    columns could not certify it (too few, too many, or U too small) and the caller computes it.
    """
    b = P.shape[0]
    out = np.full(b, np.nan)
    counts = np.bincount(r, minlength=b)
    ok = counts >= T
    ok &= counts <= max(32 * T, 4 * int(np.median(counts)))  # else a poor bound: redo the row
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    g = np.full(b, np.inf)
    if ok.any():
        # a table as wide as most rows' counts; the few longer rows one by one
        width = max(T, int(np.quantile(counts[ok], 0.98)))
        narrow = ok & (counts <= width)
        pad = np.full((b, width), np.inf)
        keep = narrow[r]
        pad[r[keep], (np.arange(r.size) - first[r])[keep]] = a[keep]
        g[narrow] = np.partition(pad[narrow], T - 1, axis=1)[:, T - 1]
        for i in np.flatnonzero(ok & ~narrow):
            g[i] = np.partition(a[first[i] : first[i] + counts[i]], T - 1)[T - 1]
    ok &= g + e <= U  # T values <= g + e <= U: every column at or below the T-th is gathered
    below = np.bincount(r, weights=a < g[r] - 2 * e[r], minlength=b).astype(np.int64)
    band = ok[r] & (np.abs(a - g[r]) <= 2 * e[r])
    rb = r[band]
    s = exact_sq(P[rb], Y[c[band]])
    nb = np.bincount(rb, minlength=b)
    ok &= (below < T) & (below + nb >= T)
    if ok.any():
        firstb = np.concatenate([[0], np.cumsum(nb)[:-1]])
        pad = np.full((b, max(1, int(nb[ok].max()))), np.inf)
        kb = ok[rb]
        pad[rb[kb], (np.arange(rb.size) - firstb[rb])[kb]] = s[kb]
        rows_ok = np.flatnonzero(ok)
        part = np.sort(pad[rows_ok], axis=1)
        out[rows_ok] = part[np.arange(rows_ok.size), T - 1 - below[rows_ok]]
    return out, ok
