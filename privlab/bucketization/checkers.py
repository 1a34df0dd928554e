"""Independent check of a released bucketization: for every bucket B and value x_i,
o(x_i, B) / |B| <= F_i. Deliberately shares no code with the algorithms (it only sees the
bucket id and SA value of each record and uses pandas group counts)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from privlab._validation import PrivlabError


def _finite(name: str, values: ArrayLike) -> np.ndarray:
    """A float array of finite numbers (the checker shares no validation code with the algorithms)."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise PrivlabError(f"{name} must be an array of numbers, got {type(values).__name__}") from None
    if not np.all(np.isfinite(arr)):
        raise PrivlabError(f"{name} must be finite")
    return arr


@dataclass(frozen=True)
class CheckReport:
    ok: bool
    n_records: int
    n_buckets: int
    worst_margin: float  # max over (B, x_i) of o(x_i,B)/|B| - F_i (<= 0 when ok)
    worst_bucket: int
    worst_value: int
    violations: int  # number of (bucket, value) cells over their threshold
    size_histogram: dict  # bucket size -> number of buckets


def check_bucketization(sa_codes: ArrayLike, bucket_ids: ArrayLike, F: ArrayLike, tol: float = 1e-9) -> CheckReport:
    """Verify F-privacy of a bucketization from its records alone.

    Parameters
    ----------
    sa_codes : array of int
        Sensitive value code (0..m-1) of each record.
    bucket_ids : array of int
        Bucket id of each record (same length).
    F : array of float
        Thresholds F_i in (0, 1], one per code.
    tol : float
        Slack on o(x_i, B) / |B| <= F_i (floating point).
    """
    F = np.asarray(_finite("F", F), dtype=float)
    if F.ndim != 1 or F.size == 0 or np.any((F <= 0) | (F > 1)):
        raise PrivlabError("F must be a non-empty 1-dimensional array of thresholds in (0, 1]")
    sa = _finite("sa_codes", sa_codes)
    bid = _finite("bucket_ids", bucket_ids)
    for name, a in (("sa_codes", sa), ("bucket_ids", bid)):
        if a.ndim != 1 or a.size == 0 or np.any(a != np.floor(a)) or a.min() < 0:
            raise PrivlabError(f"{name} must be a non-empty 1-dimensional array of non-negative integer codes")
    if sa.size != bid.size:
        raise PrivlabError(f"sa_codes and bucket_ids must have the same length, got {sa.size} and {bid.size}")
    if sa.max() >= F.size:
        raise PrivlabError(f"sa_codes must be codes in 0..{F.size - 1} (one per value of F), got up to {sa.max():g}")
    if not isinstance(tol, (int, float)) or isinstance(tol, bool) or not 0 <= tol < 1:
        raise PrivlabError(f"tol must be a number in [0, 1), got {tol!r}")
    frame = pd.DataFrame({"bucket": bid.astype(np.int64), "value": sa.astype(np.int64)})
    thresholds = pd.Series(F)
    size = frame.groupby("bucket").size()
    cell = frame.groupby(["bucket", "value"]).size().rename("count").reset_index()
    cell["share"] = cell["count"] / cell["bucket"].map(size)
    cell["margin"] = cell["share"] - cell["value"].map(thresholds)
    worst = cell.loc[cell["margin"].idxmax()]
    violations = int((cell["margin"] > tol).sum())
    hist = size.value_counts().sort_index()
    return CheckReport(
        ok=violations == 0,
        n_records=len(frame),
        n_buckets=int(size.size),
        worst_margin=float(worst["margin"]),
        worst_bucket=int(worst["bucket"]),
        worst_value=int(worst["value"]),
        violations=violations,
        size_histogram={int(k): int(v) for k, v in hist.items()},
    )
