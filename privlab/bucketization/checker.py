"""Independent check of a released bucketization: for every bucket B and value x_i,
o(x_i, B) / |B| <= F_i. Deliberately shares no code with the algorithms (it only sees the
bucket id and SA value of each record and uses pandas group counts)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike


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
    """Verify F-privacy of a bucketization from its records alone."""
    frame = pd.DataFrame({"bucket": np.asarray(bucket_ids), "value": np.asarray(sa_codes)})
    if len(frame) == 0:
        raise ValueError("empty bucketization")
    thresholds = pd.Series(np.asarray(F, dtype=float))
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
