"""The Laplace mechanism's noise and its analytic twin (density, quantiles, variance)."""

from __future__ import annotations

import numpy as np

from ..constraints import Real
from ..validation import PrivlabError, check_array, rng_from, validate_params
from ._checks import MAX_DRAWS, check_size

__all__ = ["MAX_DRAWS", "laplace_density", "laplace_quantile", "laplace_noise", "laplace_variance"]

SCALE = Real(0, low_open=True)  # a Laplace scale


@validate_params(scale=SCALE)
def laplace_density(x: float | np.ndarray, scale: float) -> np.ndarray:
    """Density of Lap(scale) at x: ``exp(-|x| / scale) / (2 scale)``."""
    v = check_array("x", x, ndim=None)
    return np.exp(-np.abs(v) / scale) / (2 * scale)


@validate_params(scale=SCALE)
def laplace_quantile(q: float | np.ndarray, scale: float) -> np.ndarray:
    """Quantile function of Lap(scale) (the exact counterpart of sampled noise)."""
    p = check_array("q", q, ndim=None)
    if np.any((p <= 0) | (p >= 1)):
        raise PrivlabError("q must lie in (0, 1)")
    return np.where(p < 0.5, scale * np.log(2 * p), -scale * np.log(2 - 2 * p))


@validate_params(scale=SCALE)
def laplace_noise(scale: float, size: int, seed: object = 0) -> np.ndarray:
    """``size`` draws of Lap(scale) (0 .. `MAX_DRAWS`); bias 0, variance 2 scale^2 (see `laplace_variance`)."""
    n = check_size("size", size, low=0, high=MAX_DRAWS, why="noise draws held in memory")
    return rng_from(seed).laplace(0.0, scale, size=n)


@validate_params(scale=SCALE)
def laplace_variance(scale: float) -> float:
    """Analytic variance of Lap(scale) noise: 2 scale^2 (its bias is 0)."""
    return 2.0 * scale * scale
