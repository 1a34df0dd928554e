"""Noise addition (Section 5): integer binomial noise on every attribute's domain code.

For an attribute with domain ``D``, k% noise means the maximum noise ``M`` is k% of
``|D| - 1`` rounded to the nearest even number, and the noise is
``Binomial(M, 1/2) - M/2`` in ``[-M/2, M/2]``, added to the value's index in ``D``. A code
pushed off the domain is clipped to the nearest end: the released file stays inside every
domain, and the released value is never farther from the true one than the unclipped value
was, so ``released +- M/2`` still contains the truth.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_array, check_int, check_real, rng_from
from ._checks import check_codes
from .data import attribute_domain, encode
from .intruder import interval_probs

__all__ = [
    "noise_max",
    "binomial_noise_codes",
    "add_binomial_noise",
    "noise_intervals",
    "NoisyRelease",
]


def noise_max(level: float, domain_size: int) -> int:
    """Maximum noise ``M``: ``level``% of ``|D| - 1`` rounded to the nearest even number (halves up)."""
    k = check_real("level", level, low=0, high=100)
    m = check_int("domain_size", domain_size, low=1)
    return 2 * int(math.floor(k / 100.0 * (m - 1) / 2.0 + 0.5))


def binomial_noise_codes(codes: Any, domain_sizes: Any, level: float, seed: Any) -> np.ndarray:
    """Perturb coded records: column ``j`` (codes in ``0..domain_sizes[j]-1``) gets
    ``Binomial(M_j, 1/2) - M_j/2``, clipped to the domain; columns drawn in order.

    Parameters
    ----------
    codes : array of int, shape (n, c)
    domain_sizes : sequence of int, length c
    level : float
        Noise level ``k`` in percent, 0..100.
    seed : int, SeedSequence or Generator
    """
    k = check_real("level", level, low=0, high=100)
    c = check_array("codes", codes, ndim=2, dtype=np.int64)
    sizes = [check_int("domain_sizes[]", m, low=1) for m in domain_sizes]
    if len(sizes) != c.shape[1]:
        raise PrivlabError(f"domain_sizes must have one entry per column ({c.shape[1]}), got {len(sizes)}")
    for j, m in enumerate(sizes):
        check_codes(f"codes[:, {j}]", c[:, j], m)
    rng = rng_from(seed)
    out = np.empty_like(c)
    for j, m in enumerate(sizes):
        M = noise_max(k, m)
        out[:, j] = np.clip(c[:, j] + rng.binomial(M, 0.5, size=c.shape[0]) - M // 2, 0, m - 1)
    return out


def add_binomial_noise(
    df: pd.DataFrame, level: float, seed: Any, domains: Mapping[str, Any] | None = None
) -> pd.DataFrame:
    """Perturb every attribute of ``df`` by :func:`binomial_noise_codes` on its domain code.

    ``domains`` maps a column to its domain array (:func:`attribute_domain` of the column
    otherwise). Returns the perturbed values, same index and columns.
    """
    if not isinstance(df, pd.DataFrame):
        raise PrivlabError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    if domains is not None and not isinstance(domains, Mapping):
        raise PrivlabError(f"domains must map columns to their domains, got {type(domains).__name__}")
    doms = [np.asarray(domains[c]) if domains and c in domains else attribute_domain(df[c]) for c in df.columns]
    codes = np.stack([encode(df[c].to_numpy(), d) for c, d in zip(df.columns, doms)], axis=1)
    noisy = binomial_noise_codes(codes, [d.size for d in doms], level, seed)
    return pd.DataFrame({c: d[noisy[:, j]] for j, (c, d) in enumerate(zip(df.columns, doms))}, index=df.index)


def noise_intervals(released_codes: Any, M: int, domain_size: int) -> tuple[np.ndarray, np.ndarray]:
    """``[L, U]`` (domain indices) of each record: released code +- M/2, clipped to the domain."""
    c = check_array("released_codes", released_codes, dtype=np.int64)
    M = check_int("M", M, low=0)
    m = check_int("domain_size", domain_size, low=1)
    check_codes("released_codes", c, m)
    return np.clip(c - M // 2, 0, m - 1), np.clip(c + M // 2, 0, m - 1)


@dataclass(frozen=True)
class NoisyRelease:
    """A perturbed file (coded) and the intruder's interval of each record's confidential code."""

    codes: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    domain_size: int

    def probs(self, groups: np.ndarray, n_groups: int, records: np.ndarray) -> np.ndarray:
        return interval_probs(groups, self.lo[records], self.hi[records], n_groups, self.domain_size)
