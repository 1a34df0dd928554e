"""Isolation in public databases: recursive histograms, perturbation and the isolator.

Chawla, Dwork, McSherry, Smith, Wee, "Toward Privacy in Public Databases" (talk, seed 002).
The real database RDB is ``n`` points in R^d. An adversary sees a sanitized database SDB
and outputs a point ``q``; ``q`` (c, T)-isolates a real point ``x`` when the ball
``B(q, c * ||q - x||)`` holds fewer than ``T`` points of RDB other than ``x``.

Sanitizers (all pure: arrays and a seed in, arrays out):

* `recursive_histogram`: split the cube [low, high]^d into 2^d sub-cubes while a cell
  holds ``>= T`` points; release the leaf cells and their counts.
* `perturb`: release ``x`` plus a spherical Gaussian vector whose expected length is
  ``scale * t_x``, ``t_x`` the T-radius of ``x``.
* `histogram_plus_perturbation`: a random half goes into a histogram, the other half is
  perturbed with a scale taken from the histogram cell each point falls in.
* `bad_sanitizer`: every attribute exact except the hidden ones, replaced by noise.

Ball counts use a k-d tree (scipy's cKDTree) in low dimension and chunked exact
distances (``chunk x n``, never ``n x n``) above ``KDTREE_MAX_D`` dimensions, where a
k-d tree degenerates to a slower brute force.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree
from scipy.special import gammaln

from ._validation import PrivlabError, check_array, check_choice, check_int, check_real, rng_from

KDTREE_MAX_D = 8  # above this a k-d tree is slower than chunked brute force
MAX_DEPTH = 60  # 2^60 cells per side: only duplicates survive this deep
_CHUNK_ELEMENTS = 4_000_000  # query rows x db rows per distance block (32 MB of float64)
_PREFIX_PER_T = 16  # t_radius: the bounding prefix holds at least 16 T columns ...
_PREFIX_FRACTION = 16  # ... and at least 1/16 of them


# ---------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------
def _check_db(db, name="db") -> np.ndarray:
    return check_array(name, db, ndim=2)


def _check_c_T(c, T, n) -> tuple[float, int]:
    c = check_real("c", c, low=1)
    T = check_int("T", T, low=1, high=n)
    return c, T


def _check_points(name, points, d) -> np.ndarray:
    pts = check_array(name, points, ndim=None)
    if pts.ndim == 1:
        pts = pts[None, :]
    if pts.ndim != 2 or pts.shape[1] != d:
        raise PrivlabError(f"{name} must have d = {d} columns like db, got shape {np.shape(points)}")
    return pts


def _check_box(db, low, high) -> tuple[float, float]:
    low = check_real("low", low)
    high = check_real("high", high)
    if high <= low:
        raise PrivlabError(f"high must be greater than low, got low={low:g}, high={high:g}")
    outside = np.flatnonzero(np.any((db < low) | (db > high), axis=1))
    if outside.size:
        raise PrivlabError(f"db must lie in the box [{low:g}, {high:g}]^d; rows outside: {outside[:5].tolist()}")
    return low, high


def _check_targets(targets, n) -> np.ndarray:
    t = check_array("targets", targets, ndim=1, dtype=np.int64, min_size=0)
    if t.size and (t.min() < 0 or t.max() >= n):
        raise PrivlabError(f"targets must be row indices of db in [0, {n - 1}], got {t.min()}..{t.max()}")
    return t


# ---------------------------------------------------------------------------------------
# isolation
# ---------------------------------------------------------------------------------------
def isolates(q, x_index, db, c, T) -> bool:
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
    db = _check_db(db)
    n, d = db.shape
    c, T = _check_c_T(c, T, n)
    q = _check_points("q", q, d)[0]
    x_index = check_int("x_index", x_index, low=0, high=n - 1)
    delta = np.sqrt(np.sum((q - db[x_index]) ** 2))
    dist = np.sqrt(np.sum((db - q) ** 2, axis=1))
    inside = dist <= c * delta
    inside[x_index] = False
    return bool(inside.sum() < T)


def _use_tree(d: int, method: str) -> bool:
    check_choice("method", method, ("auto", "kdtree", "brute"))
    return method == "kdtree" or (method == "auto" and d <= KDTREE_MAX_D)


def _blocks(m: int, n: int):
    step = max(1, _CHUNK_ELEMENTS // max(n, 1))
    for start in range(0, m, step):
        yield slice(start, min(m, start + step))


def _sq_dists(queries, db, db_sq):
    """Squared distances of a block of queries to every db row (|q|^2 + |y|^2 - 2 q.y).

    Not clipped at 0: rounding can leave tiny negatives, which every caller handles after
    its reduction (comparisons with thresholds >= 0 and order statistics are unaffected by
    a monotone clip, so clipping the reduced values gives the same answers as clipping the
    block, one pass over the block cheaper). ``-2 q`` is formed before the product: scaling
    by a power of two is exact, so the block equals ``-2 (q @ db.T)`` bit for bit.
    """
    d2 = (-2.0 * queries) @ db.T
    d2 += db_sq[None, :]
    d2 += np.einsum("ij,ij->i", queries, queries)[:, None]
    return d2


def _count_within(d2, thr_sq):
    """Per row of the block, the number of entries <= that row's threshold."""
    return np.count_nonzero(d2 <= thr_sq[:, None], axis=1)


def isolation_mask(queries, targets, db, c, T, *, method="auto") -> np.ndarray:
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
        counts ball members from chunked exact distances; "auto" picks the k-d tree up
        to ``KDTREE_MAX_D`` dimensions.

    Returns
    -------
    bool array (m,)
    """
    return isolation_masks(queries, targets, db, c, T, method=method, anyone=False)[0]


def isolation_rate(queries, targets, db, c, T, *, method="auto") -> float:
    """Fraction of the adversary outputs ``queries[i]`` that (c, T)-isolate ``db[targets[i]]``.

    See `isolation_mask` for the parameters; this is its mean.
    """
    mask = isolation_mask(queries, targets, db, c, T, method=method)
    if mask.size == 0:
        raise PrivlabError("queries must hold at least one adversary output")
    return float(mask.mean())


def isolates_anyone_mask(queries, db, c, T, *, method="auto") -> np.ndarray:
    """Does each query isolate *some* point of db?

    q isolates some point iff it isolates its nearest neighbour y: if q isolates x then
    ``B(q, c ||q - y||)`` is inside ``B(q, c ||q - x||)`` and both balls hold x and y.
    """
    return isolation_masks(queries, None, db, c, T, method=method, targeted=False)[1]


def isolation_masks(queries, targets, db, c, T, *, method="auto", targeted=True, anyone=True):
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
    db = _check_db(db)
    n, d = db.shape
    c, T = _check_c_T(c, T, n)
    queries = _check_points("queries", queries, d)
    m = queries.shape[0]
    if targeted:
        targets = _check_targets(targets, n)
        if targets.size != m:
            raise PrivlabError(f"queries and targets must have the same length, got {m} and {targets.size}")
        radius = c * np.sqrt(np.sum((queries - db[targets]) ** 2, axis=1))
    out_t = np.empty(m, dtype=bool) if targeted else None
    out_a = np.empty(m, dtype=bool) if anyone else None
    if m == 0:
        return out_t, out_a
    if _use_tree(d, method):
        if T >= n:  # at most n - 1 other points exist
            return (np.ones(m, dtype=bool) if targeted else None), (np.ones(m, dtype=bool) if anyone else None)
        k = T + 1
        dist, idx = cKDTree(db).query(queries, k=k)
        dist, idx = dist.reshape(m, k), idx.reshape(m, k)
        if targeted:
            is_x = idx == targets[:, None]
            # drop x from the neighbour list when present, else the farthest of the k
            drop = np.where(is_x.any(axis=1), is_x.argmax(axis=1), k - 1)
            keep = np.ones((m, k), dtype=bool)
            keep[np.arange(m), drop] = False
            out_t[:] = dist[keep].reshape(m, T)[:, T - 1] > radius
        if anyone:  # target the nearest neighbour y: the T-th other point is the (T+1)-th neighbour
            y = idx[:, 0]
            out_a[:] = dist[:, T] > c * np.sqrt(np.sum((queries - db[y]) ** 2, axis=1))
        return out_t, out_a
    db_sq = np.einsum("ij,ij->i", db, db)
    for sl in _blocks(m, n):
        d2 = _sq_dists(queries[sl], db, db_sq)
        if targeted:
            r2 = radius[sl] ** 2
            self_in = d2[np.arange(d2.shape[0]), targets[sl]] <= r2  # x itself never counts
            out_t[sl] = _count_within(d2, r2) - self_in < T
        if anyone:  # nearest distance, then the ball count minus y itself
            nearest = np.maximum(d2.min(axis=1), 0.0)
            out_a[sl] = _count_within(d2, c * c * nearest) - 1 < T
    return out_t, out_a


def t_radius(db, T, indices=None) -> np.ndarray:
    """T-radius t_x of db rows: the radius of the smallest ball around x holding T points
    of db, x itself included (so T = 1 gives 0).

    Parameters
    ----------
    db : array (n, d)
    T : int in [1, n]
    indices : int array or None
        Rows whose T-radius is wanted (all rows by default).
    """
    db = _check_db(db)
    n, d = db.shape
    T = check_int("T", T, low=1, high=n)
    idx = np.arange(n) if indices is None else _check_targets(indices, n)
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
    for sl in _blocks(idx.size, n):
        d2 = _sq_dists(pts[sl], db, db_sq)
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


# ---------------------------------------------------------------------------------------
# recursive histogram
# ---------------------------------------------------------------------------------------
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
        lows, sides = self.leaf_low, self.leaf_side
        return [
            Leaf(low=lows[i], side=float(sides[i]), count=int(self.leaf_count[i])) for i in range(self.leaf_count.size)
        ]

    def locate(self, points) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The cell of the histogram's partition holding each point.

        Returns ``(low, side, leaf)``: the cell's corner (m, d), side (m,) and leaf index
        (m,), -1 when the point falls in an empty child of a split cell (not released).
        """
        pts = _check_points("points", points, self.d)
        if np.any((pts < self.low) | (pts > self.high)):
            raise PrivlabError(f"points must lie in the box [{self.low:g}, {self.high:g}]^d")
        u = (pts - self.low) / (self.high - self.low)
        m = pts.shape[0]
        leaf_index = {}
        for i, (g, k) in enumerate(zip(self.leaf_grid, self.leaf_depth)):
            leaf_index[(int(k), g.tobytes())] = i
        leaf = np.full(m, -1, dtype=np.int64)
        depth = np.zeros(m, dtype=np.int64)
        grid = np.zeros((m, self.d), dtype=np.int64)
        todo = np.arange(m)
        k = 0
        while todo.size:
            k += 1
            g = _grid(u[todo], k)
            nxt = []
            for j, row in zip(todo, g):
                key = row.tobytes()
                hit = leaf_index.get((k, key))
                if hit is not None:
                    leaf[j], depth[j], grid[j] = hit, k, row
                elif k < len(self.internal) and key in self.internal[k]:
                    nxt.append(j)
                else:  # an empty child of a split cell
                    depth[j], grid[j] = k, row
            todo = np.asarray(nxt, dtype=np.int64)
        side = (self.high - self.low) / 2.0**depth
        return self.low + grid * side[:, None], side, leaf


def build_histogram(db, T, low=-1.0, high=1.0) -> Histogram:
    """The recursive histogram of ``db`` as arrays (see `recursive_histogram`)."""
    db = _check_db(db)
    n, d = db.shape
    T = check_int("T", T, low=2, high=n)  # T = 1 asks for empty leaves: no finite histogram
    low, high = _check_box(db, low, high)
    u = (db - low) / (high - low)
    leaf_grid, leaf_depth, leaf_count, leaf_members = [], [], [], []
    internal = [frozenset([np.zeros(d, dtype=np.int64).tobytes()])]  # the root is split (n >= T)
    active = np.arange(n)
    depth = 0
    while active.size:
        depth += 1
        if depth > MAX_DEPTH:
            raise PrivlabError(
                f"db holds {T} or more identical points (cells still hold >= T = {T} points at "
                f"depth {MAX_DEPTH}); add jitter or raise T"
            )
        g = _grid(u[active], depth)
        cells, inverse, counts = np.unique(g, axis=0, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(-1)
        split = counts >= T
        order = np.argsort(inverse, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(counts)])
        for ci in np.flatnonzero(~split):
            leaf_grid.append(cells[ci])
            leaf_depth.append(depth)
            leaf_count.append(int(counts[ci]))
            leaf_members.append(active[order[bounds[ci] : bounds[ci + 1]]])
        internal.append(frozenset(cells[ci].tobytes() for ci in np.flatnonzero(split)))
        active = active[split[inverse]]
    point_leaf = np.empty(n, dtype=np.int64)
    for i, members in enumerate(leaf_members):
        point_leaf[members] = i
    return Histogram(
        low=low,
        high=high,
        T=T,
        d=d,
        leaf_grid=np.asarray(leaf_grid, dtype=np.int64).reshape(-1, d),
        leaf_depth=np.asarray(leaf_depth, dtype=np.int64),
        leaf_count=np.asarray(leaf_count, dtype=np.int64),
        point_leaf=point_leaf,
        internal=tuple(internal),
    )


def recursive_histogram(db, T, low=-1.0, high=1.0) -> list[Leaf]:
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


# ---------------------------------------------------------------------------------------
# perturbation
# ---------------------------------------------------------------------------------------
def perturb(db, T, scale=1.0, seed=None, indices=None) -> np.ndarray:
    """Release each chosen point plus noise proportional to its T-radius.

    The noise is a spherical Gaussian with per-coordinate standard deviation
    ``scale * t_x / sqrt(d)``, so its expected squared length is ``(scale * t_x)^2`` and
    its length is exactly ``scale * t_x * chi_d / sqrt(d)`` [reconstructed: the talk says
    only "a random vector of length proportional to t_x"].

    Parameters
    ----------
    db : array (n, d)
    T : int in [1, n]
    scale : float >= 0
    seed : int, SeedSequence or Generator
    indices : int array or None
        Rows to perturb and release (all rows by default).

    Returns
    -------
    array (m, d): the released points, in the order of ``indices``.
    """
    db = _check_db(db)
    scale = check_real("scale", scale, low=0)
    idx = np.arange(db.shape[0]) if indices is None else _check_targets(indices, db.shape[0])
    t = t_radius(db, T, idx)
    rng = rng_from(0 if seed is None else seed)
    d = db.shape[1]
    return db[idx] + rng.standard_normal((idx.size, d)) * (scale * t / np.sqrt(d))[:, None]


def expected_noise_length_ratio(d, scale=1.0) -> float:
    """Exact E[||noise|| / t_x] of `perturb`: ``scale * E[chi_d] / sqrt(d)``."""
    d = check_int("d", d, low=1)
    scale = check_real("scale", scale, low=0)
    return float(scale * np.sqrt(2.0) * np.exp(gammaln((d + 1) / 2) - gammaln(d / 2)) / np.sqrt(d))


@dataclass(frozen=True)
class HistPerturbRelease:
    """Output of `histogram_plus_perturbation`.

    ``histogram`` is built on ``db[hist_index]``; ``perturbed[i]`` is the release of
    ``db[perturbed_index[i]]`` with per-coordinate noise s.d. ``noise_sd[i]``.
    """

    histogram: Histogram
    hist_index: np.ndarray
    perturbed_index: np.ndarray
    perturbed: np.ndarray
    noise_sd: np.ndarray


def histogram_plus_perturbation(db, T, seed=None, *, scale=1.0, low=-1.0, high=1.0) -> HistPerturbRelease:
    """Split db randomly in halves; histogram one half, perturb the other.

    A point of the second half falls in a cell of the first half's histogram partition
    (a released leaf or an empty child of a split cell) of side ``s``; it is released
    plus a spherical Gaussian with per-coordinate s.d. ``scale * s``, a vector of length
    about ``scale * s * sqrt(d)``, the cell's diameter: the scale of a histogrammed point's
    uncertainty, which the talk's privacy argument uses ("expected distance proportional to
    diameter of cell") [reconstructed: the talk says only that the perturbation scale is
    taken from the cell; ``scale / sqrt(d)`` gives noise of length ~ the cell side].

    Parameters
    ----------
    db : array (n, d) inside [low, high]^d
    T : int in [2, n // 2]
    seed : int, SeedSequence or Generator
    scale : float >= 0
    """
    db = _check_db(db)
    n = db.shape[0]
    if n < 2:
        raise PrivlabError(f"db must hold at least 2 points to split in halves, got {n}")
    T = check_int("T", T, low=2, high=max(2, n // 2))
    scale = check_real("scale", scale, low=0)
    _check_box(db, low, high)
    rng = rng_from(0 if seed is None else seed)
    perm = rng.permutation(n)
    hist_index, perturbed_index = np.sort(perm[: n // 2]), np.sort(perm[n // 2 :])
    hist = build_histogram(db[hist_index], T, low, high)
    _, side, _ = hist.locate(db[perturbed_index])
    sd = scale * side
    released = db[perturbed_index] + rng.standard_normal((perturbed_index.size, db.shape[1])) * sd[:, None]
    return HistPerturbRelease(hist, hist_index, perturbed_index, released, sd)


def bad_sanitizer(db, hidden_attribute, seed=None) -> np.ndarray:
    """The "bad sanitizer that passes": every attribute exact except the hidden ones,
    each replaced by independent uniform noise over that column's observed range.

    Parameters
    ----------
    db : array (n, d)
    hidden_attribute : int or sequence of int
        Column(s) to disguise.
    seed : int, SeedSequence or Generator
    """
    db = _check_db(db)
    d = db.shape[1]
    hidden = np.atleast_1d(check_array("hidden_attribute", hidden_attribute, ndim=None, dtype=np.int64, min_size=0))
    if hidden.size and (hidden.min() < 0 or hidden.max() >= d):
        raise PrivlabError(f"hidden_attribute must be column indices in [0, {d - 1}], got {hidden.tolist()}")
    rng = rng_from(0 if seed is None else seed)
    out = db.copy()
    for j in np.unique(hidden):
        out[:, j] = rng.uniform(db[:, j].min(), db[:, j].max(), size=db.shape[0])
    return out


# ---------------------------------------------------------------------------------------
# adversaries
# ---------------------------------------------------------------------------------------
def adversary_cell_uniform(cell_low, cell_side, seed=None) -> np.ndarray:
    """A uniform point of each target's cell: the adversary's view of a histogram is a
    product of uniform distributions over the cells."""
    cell_low = check_array("cell_low", cell_low, ndim=2)
    side = check_array("cell_side", cell_side)
    rng = rng_from(0 if seed is None else seed)
    return cell_low + rng.uniform(size=cell_low.shape) * side[:, None]


def adversary_cell_centre(cell_low, cell_side) -> np.ndarray:
    """The centre of each target's cell."""
    cell_low = check_array("cell_low", cell_low, ndim=2)
    side = check_array("cell_side", cell_side)
    return cell_low + side[:, None] / 2


def aux_only_queries(sample_distribution, m, seed=None) -> np.ndarray:
    """Auxiliary-information-only baseline: ``m`` draws from the data distribution.

    ``sample_distribution(m, rng)`` draws m points of D (the adversary knows D).
    """
    m = check_int("m", m, low=1)
    return np.asarray(sample_distribution(m, rng_from(0 if seed is None else seed)), dtype=float)


# ---------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------
def uniform_cube(n, d, seed=None, low=-1.0, high=1.0) -> np.ndarray:
    """n points uniform on [low, high]^d (the talk's distribution D)."""
    n, d = check_int("n", n, low=1), check_int("d", d, low=1)
    return rng_from(0 if seed is None else seed).uniform(low, high, size=(n, d))


def gaussian_mixture(n, d, seed=None, *, k=5, sigma=0.15, low=-1.0, high=1.0) -> tuple[np.ndarray, np.ndarray]:
    """n points from k spherical Gaussians (s.d. sigma) with centres uniform in the inner
    half of the box, clipped into [low, high]^d. Returns (points, component labels)."""
    n, d = check_int("n", n, low=1), check_int("d", d, low=1)
    k = check_int("k", k, low=1)
    sigma = check_real("sigma", sigma, low=0)
    rng = rng_from(0 if seed is None else seed)
    mid, half = (low + high) / 2, (high - low) / 2
    centres = mid + rng.uniform(-half / 2, half / 2, size=(k, d))
    labels = rng.integers(k, size=n)
    pts = centres[labels] + sigma * half * rng.standard_normal((n, d))
    return np.clip(pts, low, high), labels


def scale_to_cube(X, seed=None, *, scaling="minmax", jitter=True, low=-1.0, high=1.0) -> np.ndarray:
    """Scale real columns to [low, high]^d, making the data "well-rounded" (the talk's lesson).

    ``jitter`` turns discrete columns into real-valued ones (the talk's suggestion for
    discrete attributes): each value moves uniformly within half the gap to its
    neighbouring distinct values, so distinct values never swap order.
    ``scaling``: "minmax" maps each column's range linearly; "rank" maps mid-ranks
    (each column becomes near-uniform).
    """
    X = check_array("X", X, ndim=2)
    check_choice("scaling", scaling, ("minmax", "rank"))
    rng = rng_from(0 if seed is None else seed)
    out = np.empty_like(X)
    for j in range(X.shape[1]):
        col = X[:, j]
        if jitter:
            values, inv = np.unique(col, return_inverse=True)
            if values.size > 1:
                gaps = np.diff(values)
                lo_gap = np.concatenate([[gaps[0]], gaps])[inv]
                hi_gap = np.concatenate([gaps, [gaps[-1]]])[inv]
                col = col + rng.uniform(-0.5, 0.5, size=col.size) * np.where(
                    rng.uniform(size=col.size) < 0.5, lo_gap, hi_gap
                )
        if scaling == "rank":
            col = (np.argsort(np.argsort(col, kind="stable"), kind="stable") + 0.5) / col.size
        lo, hi = col.min(), col.max()
        out[:, j] = low + (high - low) * ((col - lo) / (hi - lo) if hi > lo else 0.5)
    return np.clip(out, low, high)


# ---------------------------------------------------------------------------------------
# utility
# ---------------------------------------------------------------------------------------
def kmeans(X, k, seed=None, *, weights=None, n_init=5, max_iter=100) -> np.ndarray:
    """Weighted Lloyd's k-means with k-means++ seeding; the best of ``n_init`` runs.

    Returns the (k, d) centres.
    """
    X = check_array("X", X, ndim=2)
    k = check_int("k", k, low=1, high=X.shape[0])
    w = np.ones(X.shape[0]) if weights is None else check_array("weights", weights)
    rng = rng_from(0 if seed is None else seed)
    best, best_cost = None, np.inf
    for _ in range(check_int("n_init", n_init, low=1)):
        centres = X[[rng.choice(X.shape[0], p=w / w.sum())]]
        for _ in range(1, k):
            d2 = _nearest_sq(X, centres)[0] * w
            p = d2 / d2.sum() if d2.sum() > 0 else w / w.sum()
            centres = np.vstack([centres, X[rng.choice(X.shape[0], p=p)]])
        for _ in range(max_iter):
            _, lab = _nearest_sq(X, centres)
            new = centres.copy()
            for j in range(k):
                sel = lab == j
                if w[sel].sum() > 0:
                    new[j] = np.average(X[sel], axis=0, weights=w[sel])
            if np.allclose(new, centres, rtol=0, atol=1e-12):
                break
            centres = new
        cost = kmeans_cost(X, centres, w)
        if cost < best_cost:
            best, best_cost = centres, cost
    return best


def _nearest_sq(X, centres):
    d2 = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    return d2.min(axis=1), d2.argmin(axis=1)


def kmeans_cost(X, centres, weights=None) -> float:
    """Sum of (weighted) squared distances of X's rows to their nearest centre."""
    X = check_array("X", X, ndim=2)
    centres = _check_points("centres", centres, X.shape[1])
    w = np.ones(X.shape[0]) if weights is None else check_array("weights", weights)
    return float((_nearest_sq(X, centres)[0] * w).sum())


def box_fraction_histogram(hist: Histogram, box_low, box_high) -> float:
    """Fraction of the data the histogram puts in an axis-aligned box, points spread
    uniformly inside each leaf."""
    lows, sides = hist.leaf_low, hist.leaf_side[:, None]
    overlap = np.clip(np.minimum(lows + sides, box_high) - np.maximum(lows, box_low), 0, None) / sides
    return float((hist.leaf_count * overlap.prod(axis=1)).sum() / hist.leaf_count.sum())


def box_fraction_points(X, box_low, box_high) -> float:
    """Fraction of the rows of X inside the axis-aligned box [box_low, box_high)."""
    return float(np.all((X >= box_low) & (X < box_high), axis=1).mean())


# ---------------------------------------------------------------------------------------
# checkers (no code shared with the sanitizers above)
# ---------------------------------------------------------------------------------------
def check_histogram_release(db, leaves, T, low=-1.0, high=1.0) -> dict:
    """Check a released recursive histogram against db, independently of its builder.

    Each point is assigned, by direct comparison with the leaf boxes grouped by side,
    to the leaves containing it. Returns a dict with ``counts_match`` (every leaf's count
    equals the points inside it), ``partition`` (each point in exactly one leaf),
    ``below_T`` (every leaf < T), ``parents_full`` (every leaf's parent cube holds
    >= T points, i.e. the split was required) and ``total``.
    """
    db = np.asarray(db, dtype=float)
    n = db.shape[0]
    hits = np.zeros(n, dtype=int)
    counts_ok = True
    parents_ok = True
    width = high - low
    by_side = {}
    for leaf in leaves:
        by_side.setdefault(float(leaf.side), []).append(leaf)
    for side, group in by_side.items():
        # integer cell index of every point at this side length (top edge into the last cell)
        cells_per_side = int(round(width / side))
        idx = np.minimum(((db - low) / side).astype(np.int64), cells_per_side - 1)
        table = {}
        for i, row in enumerate(map(tuple, idx)):
            table.setdefault(row, []).append(i)
        parent_idx = idx // 2
        parent_table = {}
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


def exact_columns(db, released) -> np.ndarray:
    """Which columns of ``released`` equal db's exactly (the bad sanitizer's disclosure)."""
    return np.all(np.asarray(db) == np.asarray(released), axis=0)
