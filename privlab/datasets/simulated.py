"""Generated point clouds that simulations draw themselves, per trial, from a seed (SYNTHETIC).

========================  ===========================================================  ===================
name                      what                                                         describe params
========================  ===========================================================  ===================
uniform_cube              n points uniform on the hypercube [low, high]^d: the         n, d (low, high)
                          distribution D of seed 002's talk (isolation)
gaussian_mixture          n points from k spherical Gaussians (s.d. sigma times the     n, d, k, sigma
                          half-side) with centres uniform in the inner half of the      (low, high)
                          box, clipped into [low, high]^d (isolation's utility data)
========================  ===========================================================  ===================

A simulation draws fresh points per trial (``uniform_cube(n, d, seed)``, the seed from
``ctx.seed_sequence``), so these are arrays, not frames, and are not loaded through
`privlab.datasets.load`; ``privlab.datasets.describe(name, **params)`` labels them
("synthetic") for the results, through ``ctx.describe_data``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privlab._validation import PrivlabError, check_int, check_real, rng_from

__all__ = ["GENERATORS", "uniform_cube", "gaussian_mixture", "describe", "parameters"]


def _check_box(low: Any, high: Any) -> tuple[float, float]:
    lo, hi = check_real("low", low), check_real("high", high)
    if hi <= lo:
        raise PrivlabError(f"high must be greater than low, got low={lo:g}, high={hi:g}")
    return lo, hi


def uniform_cube(n: int, d: int, seed: Any = None, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """``n`` points uniform on ``[low, high]^d`` (the talk's distribution D).

    Parameters
    ----------
    n, d : int >= 1
        Number of points and dimension.
    seed : int, SeedSequence or Generator
        The trial's seed (0 when None).
    low, high : float
        The cube's sides.

    Returns
    -------
    array of shape (n, d)
    """
    n, d = check_int("n", n, low=1), check_int("d", d, low=1)
    return rng_from(0 if seed is None else seed).uniform(low, high, size=(n, d))


def gaussian_mixture(
    n: int, d: int, seed: Any = None, *, k: int = 5, sigma: float = 0.15, low: float = -1.0, high: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points from ``k`` spherical Gaussians clipped into ``[low, high]^d``.

    The centres are uniform in the inner half of the box; each point picks a component
    uniformly and adds a Gaussian of per-coordinate s.d. ``sigma`` times the box's half-side.

    Parameters
    ----------
    n, d : int >= 1
    seed : int, SeedSequence or Generator
    k : int >= 1
        Number of components.
    sigma : float >= 0
        Component s.d. as a fraction of the half-side.
    low, high : float

    Returns
    -------
    (points (n, d), component labels (n,))
    """
    n, d = check_int("n", n, low=1), check_int("d", d, low=1)
    k = check_int("k", k, low=1)
    sigma = check_real("sigma", sigma, low=0)
    rng = rng_from(0 if seed is None else seed)
    mid, half = (low + high) / 2, (high - low) / 2
    centres = mid + rng.uniform(-half / 2, half / 2, size=(k, d))
    labels = rng.integers(k, size=n)
    pts = centres[labels] + sigma * half * rng.standard_normal((n, d))
    return np.clip(pts, low, high), labels


GENERATORS = {"uniform_cube": uniform_cube, "gaussian_mixture": gaussian_mixture}
_REQUIRED = {"uniform_cube": ("n", "d"), "gaussian_mixture": ("n", "d", "k", "sigma")}
_OPTIONAL = ("low", "high")


def parameters(name: str) -> tuple[str, ...]:
    """The parameters that describe generated data set ``name`` (its generator's, less the seed)."""
    return _REQUIRED[name] + _OPTIONAL


def describe(name: str, **params: Any) -> str:
    """One line saying what generator ``name`` draws with ``params`` (marked "synthetic")."""
    allowed = parameters(name)
    for key in params:
        if key not in allowed:
            raise PrivlabError(f"{key!r} is not a parameter of generated dataset {name}; allowed: {', '.join(allowed)}")
    missing = [key for key in _REQUIRED[name] if key not in params]
    if missing:
        raise PrivlabError(f"generated dataset {name} is described by {', '.join(_REQUIRED[name])}; missing {missing}")
    n, d = check_int("n", params["n"], low=1), check_int("d", params["d"], low=1)
    low, high = _check_box(params.get("low", -1.0), params.get("high", 1.0))
    box = f"[{low:g}, {high:g}]^{d}"
    if name == "uniform_cube":
        return (
            f"uniform cube, synthetic: {n:,} points uniform on the hypercube {box} (the distribution D "
            "of seed 002's talk), drawn per trial from a seeded generator"
        )
    k = check_int("k", params["k"], low=1)
    sigma = check_real("sigma", params["sigma"], low=0)
    return (
        f"Gaussian mixture, synthetic: {n:,} points in {box} from {k} spherical Gaussians (s.d. {sigma:g} of "
        "the half-side, centres uniform in the inner half of the box), clipped into the box, drawn per trial "
        "from a seeded generator"
    )
