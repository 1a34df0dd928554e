"""The talk's sanitizers as release functions (seed 002, slides 9, 12-14).

* `perturb`: release ``x`` plus a spherical Gaussian vector whose expected squared length
  is ``(scale * t_x)^2``, ``t_x`` the T-radius of ``x``.
* `histogram_plus_perturbation`: a random half goes into a recursive histogram, the other
  half is perturbed with a scale taken from the histogram cell each point falls in.
* `bad_sanitizer`: every attribute exact except the hidden ones, replaced by noise.

The recursive histogram itself is `privlab.isolation.histogram`. All pure: arrays and a
seed in, arrays out. Their exact counterparts: `expected_noise_length_ratio` (the noise
law) and the checkers of `privlab.isolation.checkers`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._lazy import lazy
from .._validation import PrivlabError, check_int, check_real, rng_from
from ._checks import check_box, check_db, check_indices, check_targets
from .histogram import Histogram, build_histogram
from .metric import t_radius

special = lazy("scipy.special")

__all__ = [
    "perturb",
    "perturb_release",
    "expected_noise_length_ratio",
    "HistPerturbRelease",
    "histogram_plus_perturbation",
    "bad_sanitizer",
]


def perturb_release(
    db: Any, T: int, scale: float = 1.0, seed: Any = None, indices: Any = None, *, index: Any = None
) -> tuple[np.ndarray, np.ndarray]:
    """`perturb` and the per-coordinate noise s.d. of each released point.

    ``index``: ``distance_index(db)`` to reuse for the T-radii (optional).

    Returns
    -------
    (released (m, d), sd (m,)) with ``sd = scale * t_x / sqrt(d)``.
    """
    db = check_db(db)
    scale = check_real("scale", scale, low=0)
    idx = np.arange(db.shape[0]) if indices is None else check_targets(indices, db.shape[0], "indices")
    t = t_radius(db, T, idx, index=index)
    rng = rng_from(0 if seed is None else seed)
    d = db.shape[1]
    sd = scale * t / np.sqrt(d)
    return db[idx] + rng.standard_normal((idx.size, d)) * sd[:, None], sd


def perturb(db: Any, T: int, scale: float = 1.0, seed: Any = None, indices: Any = None) -> np.ndarray:
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
    return perturb_release(db, T, scale, seed, indices)[0]


def expected_noise_length_ratio(d: int, scale: float = 1.0) -> float:
    """Exact E[||noise|| / t_x] of `perturb`: ``scale * E[chi_d] / sqrt(d)``."""
    d = check_int("d", d, low=1)
    scale = check_real("scale", scale, low=0)
    return float(scale * np.sqrt(2.0) * np.exp(special.gammaln((d + 1) / 2) - special.gammaln(d / 2)) / np.sqrt(d))


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


def histogram_plus_perturbation(
    db: Any, T: int, seed: Any = None, *, scale: float = 1.0, low: float = -1.0, high: float = 1.0
) -> HistPerturbRelease:
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
    low, high : float
        The histogram's box.

    Returns
    -------
    HistPerturbRelease
    """
    db = check_db(db)
    n = db.shape[0]
    if n < 2:
        raise PrivlabError(f"db must hold at least 2 points to split in halves, got {n}")
    T = check_int("T", T, low=2, high=max(2, n // 2))
    scale = check_real("scale", scale, low=0)
    check_box(db, low, high)
    rng = rng_from(0 if seed is None else seed)
    perm = rng.permutation(n)
    hist_index, perturbed_index = np.sort(perm[: n // 2]), np.sort(perm[n // 2 :])
    hist = build_histogram(db[hist_index], T, low, high)
    _, side, _ = hist.locate(db[perturbed_index])
    sd = scale * side
    released = db[perturbed_index] + rng.standard_normal((perturbed_index.size, db.shape[1])) * sd[:, None]
    return HistPerturbRelease(hist, hist_index, perturbed_index, released, sd)


def bad_sanitizer(db: Any, hidden_attribute: Any, seed: Any = None) -> np.ndarray:
    """The "bad sanitizer that passes" (slide 9): every attribute exact except the hidden
    ones, each replaced by independent uniform noise over that column's observed range.

    Parameters
    ----------
    db : array (n, d)
    hidden_attribute : int or sequence of int
        Column(s) to disguise.
    seed : int, SeedSequence or Generator

    Returns
    -------
    array (n, d): the release.
    """
    db = check_db(db)
    d = db.shape[1]
    hidden = np.atleast_1d(check_indices("hidden_attribute", hidden_attribute, ndim=None))
    if hidden.size and (hidden.min() < 0 or hidden.max() >= d):
        raise PrivlabError(f"hidden_attribute must be column indices in [0, {d - 1}], got {hidden.tolist()}")
    rng = rng_from(0 if seed is None else seed)
    out = db.copy()
    for j in np.unique(hidden):
        out[:, j] = rng.uniform(db[:, j].min(), db[:, j].max(), size=db.shape[0])
    return out
