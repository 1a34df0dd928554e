"""The Laplace mechanism's noise and its analytic twin (density, quantiles, variance)."""

from __future__ import annotations

import numpy as np

from .._validation import PrivlabError, check_real, rng_from

__all__ = ["laplace_density", "laplace_quantile", "laplace_noise", "laplace_variance"]


def laplace_density(x: float | np.ndarray, scale: float) -> np.ndarray:
    """Density of Lap(scale) at x: ``exp(-|x| / scale) / (2 scale)``."""
    s = check_real("scale", scale, low=0, low_open=True)
    v = np.asarray(x, dtype=float)
    return np.exp(-np.abs(v) / s) / (2 * s)


def laplace_quantile(q: float | np.ndarray, scale: float) -> np.ndarray:
    """Quantile function of Lap(scale) (the exact counterpart of sampled noise)."""
    s = check_real("scale", scale, low=0, low_open=True)
    p = np.asarray(q, dtype=float)
    if np.any((p <= 0) | (p >= 1)):
        raise PrivlabError("q must lie in (0, 1)")
    return np.where(p < 0.5, s * np.log(2 * p), -s * np.log(2 - 2 * p))


def laplace_noise(scale: float, size: int, seed: object = 0) -> np.ndarray:
    """``size`` draws of Lap(scale); bias 0, variance 2 scale^2 (see `laplace_variance`)."""
    s = check_real("scale", scale, low=0, low_open=True)
    return rng_from(seed).laplace(0.0, s, size=size)


def laplace_variance(scale: float) -> float:
    """Analytic variance of Lap(scale) noise: 2 scale^2 (its bias is 0)."""
    s = check_real("scale", scale, low=0, low_open=True)
    return 2.0 * s * s
