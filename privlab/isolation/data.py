"""The data of the isolation experiments.

The talk's distribution D, the uniform cube, and the clustered data of the utility
experiment are generators of `privlab.datasets.simulated` (re-exported here); real data
(Adult's numeric columns) is made "well-rounded" by `scale_to_cube`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_array, check_choice, rng_from
from ..datasets.simulated import gaussian_mixture, uniform_cube

__all__ = ["uniform_cube", "gaussian_mixture", "scale_to_cube", "SCALINGS"]

SCALINGS = ("minmax", "rank")


def scale_to_cube(
    X: Any, seed: Any = None, *, scaling: str = "minmax", jitter: bool = True, low: float = -1.0, high: float = 1.0
) -> np.ndarray:
    """Scale real columns to [low, high]^d, making the data "well-rounded" (the talk's lesson, slide 21).

    Parameters
    ----------
    X : array (n, d)
    seed : int, SeedSequence or Generator
        For the jitter.
    scaling : {"minmax", "rank"}
        "minmax" maps each column's range linearly; "rank" maps mid-ranks (each column
        becomes near-uniform).
    jitter : bool
        Turn discrete columns into real-valued ones (the talk's suggestion for discrete
        attributes): each value moves uniformly within half the gap to its neighbouring
        distinct values, so distinct values never swap order.
    low, high : float

    Returns
    -------
    array (n, d) in [low, high]^d
    """
    X = check_array("X", X, ndim=2)
    check_choice("scaling", scaling, SCALINGS)
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
