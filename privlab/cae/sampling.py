"""Sampling (Section 5): a simple random sample without replacement of the records is released."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_int, check_real, rng_from
from .intruder import sampling_probs

__all__ = ["sample_size", "sample_records", "sample", "SampleRelease"]

MAX_RECORDS = 10**7  # drawing a sample without replacement may permute all n record indices


def sample_size(fraction: float, n: int) -> int:
    """``round(fraction * n)`` (halves up), at least 1."""
    f = check_real("fraction", fraction, low=0, low_open=True, high=1)
    n = check_int("n", n, low=1, high=MAX_RECORDS)
    return max(1, int(math.floor(f * n + 0.5)))


def sample_records(n: int, fraction: float, seed: Any) -> np.ndarray:
    """Sorted indices of a simple random sample without replacement of :func:`sample_size` of ``n`` records."""
    size = sample_size(fraction, n)
    return np.sort(rng_from(seed).choice(n, size=size, replace=False))


def sample(df: pd.DataFrame, fraction: float, seed: Any) -> pd.DataFrame:
    """Simple random sample without replacement of ``round(fraction * n)`` records (at least 1).

    The sample keeps the original index (so the matching records ``M_s`` are ``M_o``'s
    records that were drawn) and the original order.
    """
    if not isinstance(df, pd.DataFrame):
        raise PrivlabError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    if len(df) == 0:
        raise PrivlabError("df must hold at least one record")
    return df.iloc[sample_records(len(df), fraction, seed)]


@dataclass(frozen=True)
class SampleRelease:
    """A released sample: the drawn records (of ``n``) and their coded rows."""

    rows: np.ndarray
    values: np.ndarray
    n: int
    domain_size: int

    def probs(self, groups: np.ndarray, n_groups: int, records: np.ndarray) -> np.ndarray:
        in_sample = np.zeros(self.n, dtype=bool)
        in_sample[self.rows] = True
        seen = np.zeros(self.n, dtype=np.int64)  # the intruder sees the confidential codes of sampled records only
        seen[self.rows] = self.values[:, 0]
        return sampling_probs(groups, seen[records], in_sample[records], n_groups, self.domain_size)
