"""Utility of a release (seed 002, slides 10 and 15): column means, k-means, box counts.

`utility_rows` measures, for each sanitizer's `UtilityView`, the RMS error of the column
means, the k-means cost on RDB of centres learned on SDB over the RDB optimum, and the
mean absolute error of box (range) counts. `mixture_utility` does it on a fresh Gaussian
mixture (`privlab.datasets.simulated.gaussian_mixture`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .._validation import check_array, check_int, rng_from
from ..datasets.simulated import gaussian_mixture
from ._blas import single_blas_thread
from ._checks import check_points

if TYPE_CHECKING:
    from .histogram import Histogram


class Sanitizer(Protocol):
    """What the utility rows need of a sanitizer of `privlab.isolation.mechanisms` (which imports this
    module, so the type is stated here rather than imported): its release of a database, as a view."""

    def utility(self, *args: Any, **kwargs: Any) -> Any: ...

    def with_setting(self, **setting: Any) -> Any: ...


__all__ = [
    "kmeans",
    "kmeans_cost",
    "box_fraction_histogram",
    "box_fraction_points",
    "column_range",
    "noise_mean_error",
    "random_boxes",
    "utility_rows",
    "mixture_utility",
]


def _nearest_sq(
    X: np.ndarray, centres: np.ndarray, xsq: np.ndarray | None = None, *, distances: bool = True
) -> tuple[np.ndarray | None, np.ndarray]:
    """Squared distance of each row of X to its nearest centre, and that centre's index.

    Exactly ``d2 = ((X[:, None, :] - centres[None]) ** 2).sum(axis=2)`` then ``d2.min(axis=1)``,
    ``d2.argmin(axis=1)`` (first index among ties), bit for bit, without forming the n x k x d
    array: a BLAS product ``|x|^2 - 2 x.c + |c|^2`` ranks the centres, a rigorous bound on its
    rounding error finds the rows whose best two centres it cannot separate (ranked with the
    formula), and the formula gives each row's distance to its chosen centre (skipped with
    ``distances=False``). ``X`` must be C-ordered float; ``xsq`` its rows' squared norms.
    """
    n, d = X.shape
    k = centres.shape[0]
    centres = np.ascontiguousarray(centres, dtype=float)
    xsq = np.einsum("ij,ij->i", X, X) if xsq is None else xsq
    csq = np.einsum("ij,ij->i", centres, centres)
    approx = (-2.0 * centres) @ X.T  # (k, n): one contiguous row per centre
    approx += csq[:, None]
    if k <= 64:  # row by row: fast for few centres (argmin along a short axis is not)
        best, label = approx[0].copy(), np.zeros(n, dtype=np.int64)
        for j in range(1, k):
            better = approx[j] < best
            label[better] = j
            np.minimum(best, approx[j], out=best)
    else:
        label = approx.argmin(axis=0)
        best = approx[label, np.arange(n)]
    if k > 1:
        # |approx + xsq - exact| <= err per row; another centre within twice that of the best
        # cannot be ranked by the product: those rows are ranked by the formula
        thr = best + 2 * (4 * d + 32) * 2.0**-53 * (np.sqrt(xsq) + np.sqrt(csq.max())) ** 2
        close = np.add.reduce((approx <= thr).view(np.uint8), axis=0, dtype=np.int64)
        for i in np.flatnonzero(close > 1):
            label[i] = ((X[i] - centres) ** 2).sum(axis=1).argmin()
    if not distances:
        return None, label
    diff = X - centres[label]
    return (diff * diff).sum(axis=1), label


@single_blas_thread
def kmeans(
    X: Any, k: int, seed: Any = None, *, weights: Any = None, n_init: int = 5, max_iter: int = 100
) -> np.ndarray:
    """Weighted Lloyd's k-means with k-means++ seeding; the best of ``n_init`` runs.

    Parameters
    ----------
    X : array (n, d)
    k : int in [1, n]
    seed : int, SeedSequence or Generator
    weights : array (n,) or None
    n_init, max_iter : int

    Returns
    -------
    array (k, d): the centres.
    """
    X = np.ascontiguousarray(check_array("X", X, ndim=2))
    k = check_int("k", k, low=1, high=X.shape[0])
    w = np.ones(X.shape[0]) if weights is None else check_array("weights", weights)
    rng = rng_from(0 if seed is None else seed)
    xsq = np.einsum("ij,ij->i", X, X)
    label_type = np.int16 if k < 2**15 else np.int64  # small labels sort by radix
    unit = bool(np.all(w == 1.0))
    best, best_cost = X[:k], np.inf
    for _ in range(check_int("n_init", n_init, low=1)):
        centres = X[[rng.choice(X.shape[0], p=w / w.sum())]]
        for _ in range(1, k):
            dist, _ = _nearest_sq(X, centres, xsq)
            assert dist is not None
            d2 = dist * w
            p = d2 / d2.sum() if d2.sum() > 0 else w / w.sum()
            centres = np.vstack([centres, X[rng.choice(X.shape[0], p=p)]])
        for _ in range(max_iter):
            _, lab = _nearest_sq(X, centres, xsq, distances=False)
            # each cluster's rows in their original order, as X[lab == j] holds them: the same
            # sums, bit for bit, as np.average(X[lab == j], weights=w[lab == j])
            order = np.argsort(lab.astype(label_type), kind="stable")
            Xs, ws = X.take(order, axis=0), w.take(order)
            ends = np.cumsum(np.bincount(lab, minlength=k))
            new = centres.copy()
            for j in range(k):
                a, b = (ends[j - 1] if j else 0), ends[j]
                if unit:  # weights of exactly 1: np.average's products are the rows themselves
                    if b > a:
                        new[j] = Xs[a:b].sum(axis=0) / (b - a)
                elif ws[a:b].sum() > 0:
                    new[j] = np.average(Xs[a:b], axis=0, weights=ws[a:b])
            if np.allclose(new, centres, rtol=0, atol=1e-12):
                break
            centres = new
        cost = kmeans_cost(X, centres, w)
        if cost < best_cost:
            best, best_cost = centres, cost
    return best


@single_blas_thread
def kmeans_cost(X: Any, centres: Any, weights: Any = None) -> float:
    """Sum of (weighted) squared distances of X's rows to their nearest centre."""
    X = np.ascontiguousarray(check_array("X", X, ndim=2))
    centres = check_points("centres", centres, X.shape[1])
    w = np.ones(X.shape[0]) if weights is None else check_array("weights", weights)
    dist, _ = _nearest_sq(X, centres)
    assert dist is not None
    return float((dist * w).sum())


def box_fraction_histogram(hist: Histogram, box_low: Any, box_high: Any) -> float:
    """Fraction of the data the histogram puts in an axis-aligned box, points spread
    uniformly inside each leaf."""
    lows, sides = hist.leaf_low, hist.leaf_side[:, None]
    overlap = np.clip(np.minimum(lows + sides, box_high) - np.maximum(lows, box_low), 0, None) / sides
    return float((hist.leaf_count * overlap.prod(axis=1)).sum() / hist.leaf_count.sum())


def box_fraction_points(X: Any, box_low: Any, box_high: Any, *, col_range: Any = None) -> float:
    """Fraction of the rows of X inside the axis-aligned box [box_low, box_high).

    Only the columns where the box cuts the data are compared (a column whose range lies
    inside the box's side holds no row outside it); ``col_range``: X's per-column
    ``(min, max)``, to reuse across many boxes.
    """
    X = np.asarray(X, dtype=float)
    lo = np.broadcast_to(np.asarray(box_low, dtype=float), X.shape[1:])
    hi = np.broadcast_to(np.asarray(box_high, dtype=float), X.shape[1:])
    if X.shape[0] == 0:
        return float(np.all((X >= lo) & (X < hi), axis=1).mean())
    cmin, cmax = col_range if col_range is not None else column_range(X)
    cols = np.flatnonzero((lo > cmin) | (hi <= cmax))
    Xc = X[:, cols]
    return float(np.all((Xc >= lo[cols]) & (Xc < hi[cols]), axis=1).mean())


def column_range(X: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-column minimum and maximum of X (see `box_fraction_points`)."""
    X = np.asarray(X, dtype=float)
    return X.min(axis=0), X.max(axis=0)


def noise_mean_error(released: Any, source: Any, sd: Any) -> tuple[float, float]:
    """The noise part of a perturbed release's column means: the RMS over coordinates of
    (mean of the released points - mean of their sources), and its exact value
    ``sqrt(sum sd^2) / m`` for independent noise of per-coordinate s.d. ``sd[i]`` (the RMS
    of the s.d. of the mean's coordinates).

    Parameters
    ----------
    released, source : arrays (m, d)
    sd : array (m,)
    """
    released, source = np.asarray(released), np.asarray(source)
    sd = np.asarray(sd, dtype=float)
    return (
        float(np.sqrt(np.mean((released.mean(axis=0) - source.mean(axis=0)) ** 2))),
        float(np.sqrt(np.sum(sd**2)) / sd.size),
    )


def random_boxes(
    d: int, n_boxes: int, box_dims: int, seed: Any = None, *, low: float = -1.0, high: float = 1.0
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_boxes`` random range queries: ``box_dims`` random attributes each restricted to a
    uniform random interval of [low, high], the others unrestricted.

    Returns
    -------
    list of (lower corner (d,), upper corner (d,)); the upper corner is nudged by 1e-12 so that
    points on the box's top face count.
    """
    d, n_boxes, box_dims = (
        check_int("d", d, low=1),
        check_int("n_boxes", n_boxes, low=1),
        check_int("box_dims", box_dims, low=1),
    )
    rng = rng_from(0 if seed is None else seed)
    boxes = []
    for _ in range(n_boxes):
        lo, hi = np.full(d, low), np.full(d, high) + 1e-12
        dims = rng.choice(d, size=min(box_dims, d), replace=False)
        ends = np.sort(rng.uniform(low, high, size=(dims.size, 2)), axis=1)
        lo[dims], hi[dims] = ends[:, 0], ends[:, 1]
        boxes.append((lo, hi))
    return boxes


def utility_rows(
    db: Any,
    T: int,
    sanitizers: Sequence[tuple[str, Sanitizer]],
    seeds: Any,
    *,
    k: int,
    n_boxes: int,
    box_dims: int,
    n_init: int,
) -> list[dict[str, Any]]:
    """One row per sanitizer: utility of its release of ``db`` (see the module docstring).

    Parameters
    ----------
    db : array (n, d) in [-1, 1]^d
    T : int
        The sanitizers' privacy parameter.
    sanitizers : sequence of (label, Sanitizer)
    seeds : mapping
        ``targets`` (k-means on RDB), ``aux`` (the boxes), ``hist_adv`` (k-means on each
        SDB), and each sanitizer's own streams.
    k, n_init : int
        k-means clusters and restarts (the RDB optimum is the best of them).
    n_boxes, box_dims : int
        Random box queries and the attributes each restricts.

    Returns
    -------
    list of dict: d, sanitizer, n, T, mean_error_rms, noise_mean_error_rms (and its
    exact value), kmeans_cost_ratio, box_query_mae, box_query_mean_truth.
    """
    db = check_array("db", db, ndim=2)
    n, d = db.shape
    views = [(label, san.with_setting(T=T).utility(db, seeds)) for label, san in sanitizers]
    true_mean = db.mean(axis=0)
    opt = kmeans(db, k, seeds["targets"], n_init=n_init)
    opt_cost = kmeans_cost(db, opt)
    boxes = random_boxes(d, n_boxes, box_dims, seeds["aux"])
    db_range = column_range(db)
    truth = np.array([box_fraction_points(db, lo, hi, col_range=db_range) for lo, hi in boxes])
    rows = []
    for label, view in views:
        mean = np.average(view.points, axis=0, weights=view.weights)
        centres = kmeans(view.points, k, seeds["hist_adv"], weights=view.weights, n_init=n_init)
        est = np.array([view.box_fraction(lo, hi) for lo, hi in boxes])
        rows.append(
            {
                "d": d,
                "sanitizer": label,
                "n": n,
                "T": T,
                "mean_error_rms": float(np.sqrt(np.mean((mean - true_mean) ** 2))),
                "noise_mean_error_rms": view.noise_rms[0],
                "noise_mean_error_rms_expected": view.noise_rms[1],
                "kmeans_cost_ratio": kmeans_cost(db, centres) / opt_cost,
                "box_query_mae": float(np.mean(np.abs(est - truth))),
                "box_query_mean_truth": float(truth.mean()),
            }
        )
    return rows


def mixture_utility(
    n: int,
    d: int,
    T: int,
    sanitizers: Sequence[tuple[str, Sanitizer]],
    seeds: Any,
    *,
    k: int,
    sigma: float,
    n_boxes: int,
    box_dims: int,
    n_init: int,
) -> list[dict[str, Any]]:
    """`utility_rows` on ``n`` points of a fresh ``k``-component Gaussian mixture in [-1, 1]^d
    (seed ``seeds["db"]``; the mixture's k is also the k of k-means)."""
    db, _ = gaussian_mixture(n, d, seeds["db"], k=k, sigma=sigma)
    return utility_rows(db, T, sanitizers, seeds, k=k, n_boxes=n_boxes, box_dims=box_dims, n_init=n_init)
