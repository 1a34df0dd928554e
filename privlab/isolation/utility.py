"""Utility of a release (seed 002, slides 10 and 15): column means, k-means, box counts.

`utility_rows` measures, for each sanitizer's `UtilityView`, the RMS error of the column
means, the k-means cost on RDB of centres learned on SDB over the RDB optimum, and the
mean absolute error of box (range) counts. `mixture_utility` does it on a fresh Gaussian
mixture (`privlab.datasets.simulated.gaussian_mixture`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_array, check_int, rng_from
from ..datasets.simulated import gaussian_mixture
from ._checks import check_points

if TYPE_CHECKING:
    from .histogram import Histogram
    from .mechanisms import Sanitizer

__all__ = [
    "kmeans",
    "kmeans_cost",
    "box_fraction_histogram",
    "box_fraction_points",
    "noise_mean_error",
    "random_boxes",
    "utility_rows",
    "mixture_utility",
]


def _nearest_sq(X: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d2 = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    return d2.min(axis=1), d2.argmin(axis=1)


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
    X = check_array("X", X, ndim=2)
    k = check_int("k", k, low=1, high=X.shape[0])
    w = np.ones(X.shape[0]) if weights is None else check_array("weights", weights)
    rng = rng_from(0 if seed is None else seed)
    best, best_cost = X[:k], np.inf
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


def kmeans_cost(X: Any, centres: Any, weights: Any = None) -> float:
    """Sum of (weighted) squared distances of X's rows to their nearest centre."""
    X = check_array("X", X, ndim=2)
    centres = check_points("centres", centres, X.shape[1])
    w = np.ones(X.shape[0]) if weights is None else check_array("weights", weights)
    return float((_nearest_sq(X, centres)[0] * w).sum())


def box_fraction_histogram(hist: Histogram, box_low: Any, box_high: Any) -> float:
    """Fraction of the data the histogram puts in an axis-aligned box, points spread
    uniformly inside each leaf."""
    lows, sides = hist.leaf_low, hist.leaf_side[:, None]
    overlap = np.clip(np.minimum(lows + sides, box_high) - np.maximum(lows, box_low), 0, None) / sides
    return float((hist.leaf_count * overlap.prod(axis=1)).sum() / hist.leaf_count.sum())


def box_fraction_points(X: Any, box_low: Any, box_high: Any) -> float:
    """Fraction of the rows of X inside the axis-aligned box [box_low, box_high)."""
    return float(np.all((X >= box_low) & (X < box_high), axis=1).mean())


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
    views = [(label, san.utility(db, T, seeds)) for label, san in sanitizers]
    true_mean = db.mean(axis=0)
    opt = kmeans(db, k, seeds["targets"], n_init=n_init)
    opt_cost = kmeans_cost(db, opt)
    boxes = random_boxes(d, n_boxes, box_dims, seeds["aux"])
    truth = np.array([box_fraction_points(db, lo, hi) for lo, hi in boxes])
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
