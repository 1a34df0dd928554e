"""Input checks shared by the isolation modules (one clear line per fault, via privlab._validation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import PrivlabError, _fmt, check_array, check_int, check_real


def check_db(db: Any, name: str = "db") -> np.ndarray:
    """A real database: a finite (n, d) float array, C-ordered (the distance formula's row
    sums then have one rounding, whatever layout the caller passed)."""
    return np.ascontiguousarray(check_array(name, db, ndim=2))


def check_c_T(c: Any, T: Any, n: int) -> tuple[float, int]:
    """The privacy parameters: c >= 1 and T in [1, n]."""
    return check_real("c", c, low=1), check_int("T", T, low=1, high=n)


def check_points(name: str, points: Any, d: int) -> np.ndarray:
    """Points of R^d: one point (d,) or several (m, d), returned as (m, d)."""
    pts = check_array(name, points, ndim=None)
    if pts.ndim == 1:
        pts = pts[None, :]
    if pts.ndim != 2 or pts.shape[1] != d:
        raise PrivlabError(f"{name} must have d = {d} columns like db, got shape {np.shape(points)}")
    return np.ascontiguousarray(pts)


def check_box(db: np.ndarray, low: Any, high: Any) -> tuple[float, float]:
    """The declared box [low, high]^d, which must hold every row of db."""
    low = check_real("low", low)
    high = check_real("high", high)
    if high <= low:
        raise PrivlabError(f"high must be greater than low, got low={low:g}, high={high:g}")
    outside = np.flatnonzero(np.any((db < low) | (db > high), axis=1))
    if outside.size:
        raise PrivlabError(f"db must lie in the box [{low:g}, {high:g}]^d; rows outside: {outside[:5].tolist()}")
    return low, high


def check_targets(targets: Any, n: int, name: str = "targets") -> np.ndarray:
    """Row indices of a database of n rows: an integer array (a float array such as
    ``np.array([1.0, 2, 3])`` is refused, not truncated)."""
    t = check_indices(name, targets, ndim=1)
    if t.size and (t.min() < 0 or t.max() >= n):
        raise PrivlabError(f"{name} must be row indices of db in [0, {n - 1}], got {t.min()}..{t.max()}")
    return t


def check_indices(name: str, values: Any, *, ndim: int | None = 1) -> np.ndarray:
    """Integer indices as an int64 array; a non-integer array (``np.array([1.0, 2, 3])``) is
    refused rather than truncated."""
    raw = np.asarray(values)
    if raw.size and raw.dtype.kind not in "iu":
        raise PrivlabError(f"{name} must be integer indices, got an array of dtype {raw.dtype}")
    return check_array(name, values, ndim=ndim, dtype=np.int64, min_size=0)


def check_values(name: str, values: Any, check: Any, *, unique: bool = False, **bounds: Any) -> list[Any]:
    """A non-empty list, each value passed through ``check(name[i], value, **bounds)``; with
    ``unique``, no value twice."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) == 0:
        raise PrivlabError(f"{name} must be a non-empty list, got {_fmt(values)}")
    out = [check(f"{name}[{i}]", v, **bounds) for i, v in enumerate(values)]
    if unique and len(set(out)) < len(out):
        raise PrivlabError(f"{name} must not repeat a value, got {out}")
    return out
