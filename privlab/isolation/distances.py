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
T-th neighbours' candidates (then recomputed exactly); above that a k-d tree degenerates to
a slow brute force. A T-th neighbour needs every column: one pass gathers the columns under
a bound from an interleaved prefix, and only those near the T-th value are recomputed.

Measured at n = 100,000, T = 100, c = 4 (one core, CPU time): the isolation test of the
natural adversaries' outputs takes 0.6-4 us per output at d >= 6 and 20-40 us at d = 2..4
(where 1-15 % of outputs isolate and need a full count), against about 900 us per output for
the former block-by-block brute force over all n columns; a nearest neighbour about 100 us
(d >= 8, a full pass); a T-radius 100-300 us per row.
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

__all__ = ["KDTREE_MAX_D", "METHODS", "DistanceIndex", "use_tree", "scan_order", "exact_sq"]

# "auto" uses a k-d tree, where it beats the blocked products (measured at n = 100,000):
TREE_BALL_MAX_D = 4  # to finish ball counts and find targets' T-th neighbours (their certificates)
TREE_KTH_MAX_D = 5  # for T-th neighbours (T-radii)
TREE_NEAREST_MAX_D = 7  # for nearest neighbours
KDTREE_MAX_D = max(TREE_BALL_MAX_D, TREE_KTH_MAX_D, TREE_NEAREST_MAX_D)  # no tree above this d
METHODS = ("auto", "kdtree", "brute")
BLOCK_ELEMENTS = 1 << 19  # entries of one product block (2 MB of float32)
LONG, SHORT = 2048, 256  # rows and first columns of a product block
MAX_WIDTH = 65535  # columns per block at most: per-row counts are summed in uint16
TREE_AFTER = 4096  # columns a ball test scans before a k-d tree finishes it (low d)
REL = 1e-12  # relative slack on squared radii (rounding of R^2, of sqrt)
TREE_REL = 1e-9  # relative slack on k-d tree radii (its own arithmetic)
TINY = 1e-300  # a radius 0 ball still holds the duplicates of its centre


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
        self.tree_kth = use_tree(self.d, method, TREE_KTH_MAX_D)
        self.tree_nearest = use_tree(self.d, method, TREE_NEAREST_MAX_D)
        self._tree: cKDTree | None = None
        self._kth_cache: dict[int, np.ndarray] = {}
        self.order = scan_order(self.n)
        X = self.db[self.order]
        self.scan_rows = X  # db in scan order (exact recomputation of gathered columns)
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

    # --- ball counts --------------------------------------------------------------------
    def ball_status(
        self, Q: np.ndarray, R_low: np.ndarray, R_high: np.ndarray, need: int, *, columns: int | None = None
    ) -> np.ndarray:
        """Whether each closed ball ``B(Q[i], R)`` holds at least ``need`` rows of db, for a
        radius known to lie in ``[R_low[i], R_high[i]]``.

        ``columns``: look at the first ``columns`` scan columns only (a cheap first look that
        decides the large balls; the other rows stay undecided).

        Returns
        -------
        int8 array (m,)
            +1: at least ``need`` rows lie within ``R_low`` (so within R); -1: fewer than
            ``need`` lie within ``R_high``; 0: undecided at this precision (the caller
            recomputes those rows exactly).
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
        tail: list[np.ndarray] = []
        for start in range(0, m, LONG):
            rows = np.arange(start, min(m, start + LONG))
            lo = np.zeros(rows.size, dtype=np.int64)
            hi = np.zeros(rows.size, dtype=np.int64)
            act = np.arange(rows.size)  # rows of the block still undecided
            pos, width = 0, SHORT
            stop = self.n if columns is None else min(self.n, columns)
            while act.size and pos < stop and not (self.tree_ball and pos >= TREE_AFTER):
                w = min(stop - pos, MAX_WIDTH, max(width, BLOCK_ELEMENTS // act.size))
                r = rows[act]
                G = self._product(A[r], pos, pos + w)
                lo[act] += _count_le(G, lo_thr[r])
                alive = lo[act] < need
                if alive.any():  # the band's upper count, needed only while undecided
                    Ga = G if alive.all() else G[alive]
                    hi[act[alive]] += _count_le(Ga, hi_thr[r[alive]])
                act = act[alive]
                pos += w
                width *= 4
            status[rows] = np.where(lo >= need, 1, 0)
            if act.size and columns is None:
                if pos >= self.n:  # every column scanned: the counts are complete
                    status[rows[act]] = np.where(hi[act] < need, -1, 0)
                else:
                    tail.append(rows[act])
        if tail:  # the tree's counts at radii just inside and just outside bracket the exact count
            rows = np.concatenate(tail)
            lo = self.tree.query_ball_point(Q[rows], np.maximum(R_low[rows] * (1 - TREE_REL), 0.0), return_length=True)
            status[rows] = np.where(lo >= need, 1, 0)
            rows = rows[lo < need]
            hi = self.tree.query_ball_point(Q[rows], R_high[rows] * (1 + TREE_REL) + TINY, return_length=True)
            status[rows] = np.where(hi < need, -1, 0)
        return status

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
        """`kth_sq`, remembering the values computed (per T) for later calls; with the k-d
        tree the (T - 1)-th and (T + 1)-th come from the same search and are kept too."""
        known = self._kth_cache.setdefault(T, np.full(self.n, np.nan))
        todo = rows[np.isnan(known[rows])]
        if todo.size:
            if self.tree_kth and 8 * (T + 1) < self.n and self.n > LONG:
                orders = [t for t in (T - 1, T, T + 1) if t >= 1]
                for t, values in zip(orders, self._kth_tree(self.db[todo], orders)):
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
        gmin = np.empty(m)
        for start in range(0, m, LONG):
            sl = slice(start, min(m, start + LONG))
            best = np.full(sl.stop - sl.start, np.inf, dtype=self.dtype)
            for c0 in range(0, self.n, SHORT):
                np.minimum(best, self._product(A[sl], c0, min(self.n, c0 + SHORT)).min(axis=1), out=best)
            gmin[sl] = best
        return np.maximum(gmin + qsq - err, 0.0), gmin + qsq + err, None

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
        return self._kth_scan(rows, T)

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

    def _kth_scan(self, rows: np.ndarray, T: int) -> np.ndarray:
        """T-th neighbours from blocked products.

        An interleaved prefix of the columns bounds each row's T-th value (about 8 T columns
        fall under the bound); one pass gathers every column under it with its product value
        a; the T-th smallest a, g, pins the exact T-th value within the error band
        [g - E, g + E], so only the columns with a in [g - 2 E, g + 2 E] are recomputed
        exactly: those below the band are certainly smaller, those above certainly larger.
        """
        n = self.n
        P = self.db[rows]
        k_rows = P.shape[0]
        A, qsq, err = self._prepare(P)
        w0 = min(n, 4 * SHORT)
        kp = min(w0, max(1, math.ceil(8 * T * w0 / n)))
        out = np.empty(k_rows)
        redo: list[np.ndarray] = []
        for start in range(0, k_rows, LONG):
            sl = slice(start, min(k_rows, start + LONG))
            b = sl.stop - sl.start
            q2, e = qsq[sl], err[sl]
            # U bounds the exact value of the kp-th smallest prefix column; every column whose
            # exact value can be <= U has its product <= thr
            U = np.partition(self._product(A[sl], 0, w0), kp - 1, axis=1)[:, kp - 1] + q2 + e
            thr = _f32_up(U + e - q2, self.dtype)
            keys, vals = [], []
            for c0 in range(0, n, SHORT):
                G = self._product(A[sl], c0, min(n, c0 + SHORT))
                f = np.flatnonzero(G <= thr[:, None])
                keys.append((f // G.shape[1]) * n + (f % G.shape[1] + c0))
                vals.append(G.ravel()[f])
            key = np.concatenate(keys)
            by_row = np.argsort(key // n, kind="stable")
            key, a = key[by_row], np.concatenate(vals)[by_row]
            r, c = np.divmod(key, n)
            a = a + q2[r]  # float64 approximations of the exact values, within e[r]
            counts = np.bincount(r, minlength=b)
            ok = counts >= T
            ok &= counts <= max(32 * T, 4 * int(np.median(counts)))  # else a poor bound: redo the row
            first = np.concatenate([[0], np.cumsum(counts)[:-1]])
            g = np.full(b, np.inf)
            if ok.any():
                pad = np.full((b, int(counts[ok].max())), np.inf)
                keep = ok[r]
                pad[r[keep], (np.arange(r.size) - first[r])[keep]] = a[keep]
                g[ok] = np.partition(pad[ok], T - 1, axis=1)[:, T - 1]
            ok &= g + e <= U  # T values <= g + e <= U: every column at or below the T-th is gathered
            below = np.bincount(r, weights=a < g[r] - 2 * e[r], minlength=b).astype(np.int64)
            band = ok[r] & (np.abs(a - g[r]) <= 2 * e[r])
            rb = r[band]
            s = exact_sq(P[sl][rb], self.scan_rows[c[band]])
            nb = np.bincount(rb, minlength=b)
            ok &= (below < T) & (below + nb >= T)
            if ok.any():
                firstb = np.concatenate([[0], np.cumsum(nb)[:-1]])
                pad = np.full((b, max(1, int(nb[ok].max()))), np.inf)
                kb = ok[rb]
                pad[rb[kb], (np.arange(rb.size) - firstb[rb])[kb]] = s[kb]
                rows_ok = np.flatnonzero(ok)
                part = np.sort(pad[rows_ok], axis=1)
                out[start + rows_ok] = part[np.arange(rows_ok.size), T - 1 - below[rows_ok]]
            redo.append(start + np.flatnonzero(~ok))
        for i in np.concatenate(redo):
            out[i] = self._kth_exact(P[i], T)
        return out
