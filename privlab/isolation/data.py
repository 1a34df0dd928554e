"""The data of the isolation experiments.

The talk's distribution D, the uniform cube, and the clustered data of the utility
experiment are generators of `privlab.datasets.simulated` (re-exported here); real data
(Adult's numeric columns, `numeric_records`) is made "well-rounded" by `scale_to_cube`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_array, check_choice, check_int, rng_from
from ..datasets.simulated import gaussian_mixture, uniform_cube

__all__ = ["uniform_cube", "gaussian_mixture", "numeric_records", "scale_to_cube", "SCALINGS"]

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


def numeric_records(
    frame: pd.DataFrame, columns: Sequence[str], n_rows: int | None = None, seed: Any = None, *, name: str = "the data"
) -> np.ndarray:
    """The records of a data set with every one of ``columns`` present, as a float array.

    Parameters
    ----------
    frame : DataFrame
        The data set.
    columns : sequence of str
        Numeric columns of ``frame``, in the order of the array's columns.
    n_rows : int or None
        Keep a uniformly random ``n_rows`` of the complete records (all when None or more).
    seed : int, SeedSequence or Generator
        For the choice of rows.
    name : str
        The data set's name, for the error message.

    Returns
    -------
    array (N, len(columns))
    """
    if not isinstance(frame, pd.DataFrame):
        raise PrivlabError(f"frame must be a DataFrame, got {type(frame).__name__}")
    if isinstance(columns, str) or not isinstance(columns, Sequence) or len(columns) == 0:
        raise PrivlabError(f"columns must be a non-empty list of column names, got {columns!r}")
    missing = [col for col in columns if col not in frame.columns]
    if missing:
        raise PrivlabError(f"columns must be numeric columns of {name}; unknown: {missing}")
    try:
        records = frame[list(columns)].dropna().to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise PrivlabError(f"columns must be numeric columns of {name}; got non-numeric values") from None
    if n_rows is not None:
        n_rows = check_int("n_rows", n_rows, low=1)
        records = records[rng_from(0 if seed is None else seed).permutation(records.shape[0])[:n_rows]]
    return records
