"""Generated point clouds that simulations draw themselves, per trial, from a seed (SYNTHETIC).

========================  ===========================================================  ===================
name                      what                                                         describe params
========================  ===========================================================  ===================
uniform_cube              n points uniform on the hypercube [low, high]^d: the         n, d (low, high)
                          distribution D of seed 002's talk (isolation)
gaussian_mixture          n points from k spherical Gaussians (s.d. sigma times the     n, d, k, sigma
                          half-side) with centres uniform in the inner half of the      (low, high)
                          box, clipped into [low, high]^d (isolation's utility data)
discrete_law              n values of a law on 1..s: the laws of X the collusion        kind, s (mean, sd,
                          Monte Carlo simulates (multilevel): uniform, a discretised    median, sigma,
                          Gaussian or a binned log-normal                               bin_width)
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

__all__ = ["GENERATORS", "uniform_cube", "gaussian_mixture", "discrete_law", "describe", "parameters"]


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


def discrete_law(n: int, probs: Any, seed: Any = None) -> np.ndarray:
    """``n`` values of the law ``probs`` on 1..s (``probs[i]`` the probability of value i + 1).

    Parameters
    ----------
    n : int >= 1
    probs : array of float, non-negative, summing to 1
    seed : int, SeedSequence or Generator

    Returns
    -------
    int array (n,) of values in 1..s
    """
    n = check_int("n", n, low=1)
    p = np.asarray(probs, dtype=float)
    if p.ndim != 1 or p.size < 1 or not np.all(np.isfinite(p)) or (p < 0).any() or abs(p.sum() - 1) > 1e-9:
        raise PrivlabError(f"probs must be a law on 1..s: non-negative, summing to 1; got {p.size} values")
    return rng_from(0 if seed is None else seed).choice(p.size, size=n, p=p) + 1


GENERATORS = {"uniform_cube": uniform_cube, "gaussian_mixture": gaussian_mixture, "discrete_law": discrete_law}
_REQUIRED = {"uniform_cube": ("n", "d"), "gaussian_mixture": ("n", "d", "k", "sigma"), "discrete_law": ("kind", "s")}
_OPTIONAL = {
    "uniform_cube": ("low", "high"),
    "gaussian_mixture": ("low", "high"),
    "discrete_law": ("mean", "sd", "median", "sigma", "bin_width"),
}
_LAW_PARAMS = {"uniform": (), "gaussian": ("mean", "sd"), "lognormal": ("median", "sigma", "bin_width")}


def parameters(name: str) -> tuple[str, ...]:
    """The parameters that describe generated data set ``name`` (its generator's, less the seed)."""
    return _REQUIRED[name] + _OPTIONAL[name]


def _describe_law(params: dict[str, Any]) -> str:
    kind = params["kind"]
    if kind not in _LAW_PARAMS:
        raise PrivlabError(f"kind of a discrete_law must be one of {', '.join(_LAW_PARAMS)}; got {kind!r}")
    wanted = _LAW_PARAMS[kind]
    stray = [k for k in params if k not in ("kind", "s", *wanted)]
    if stray or any(k not in params for k in wanted):
        raise PrivlabError(f"a {kind} discrete_law is described by kind, s{''.join(', ' + k for k in wanted)}")
    s = check_int("s", params["s"], low=1)
    what = {
        "uniform": f"uniform law on 1..{s}",
        "gaussian": f"Gaussian law on 1..{s} (mean {params.get('mean', 0):g}, s.d. {params.get('sd', 0):g}, "
        "discretised)",
        "lognormal": f"log-normal law on 1..{s} (median {params.get('median', 0):g}, sigma {params.get('sigma', 0):g}"
        f", bins of {params.get('bin_width', 0):g}, top bin open)",
    }[kind]
    return f"{what}, synthetic: the values of X drawn per trial by the Monte Carlo from a seeded generator"


def describe(name: str, **params: Any) -> str:
    """One line saying what generator ``name`` draws with ``params`` (marked "synthetic")."""
    allowed = parameters(name)
    for key in params:
        if key not in allowed:
            raise PrivlabError(f"{key!r} is not a parameter of generated dataset {name}; allowed: {', '.join(allowed)}")
    missing = [key for key in _REQUIRED[name] if key not in params]
    if missing:
        raise PrivlabError(f"generated dataset {name} is described by {', '.join(_REQUIRED[name])}; missing {missing}")
    if name == "discrete_law":
        return _describe_law(dict(params))
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
