"""The data an intruder model works on: attribute domains, domain codes, and the value
combinations of every supplementary-knowledge (SK) attribute set.

`prepare` turns a loaded data set (a DataFrame) into `SKData`: plain arrays small enough
(about 0.7 MB for 2,500 records and all 64 SK sets of six attributes) to travel with each
Monte Carlo task to a worker process.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_int

__all__ = ["attribute_domain", "encode", "group_ids", "SKData", "SKSet", "prepare"]


def attribute_domain(column: Any) -> np.ndarray:
    """The domain of an attribute as a sorted array.

    Integer attributes: every multiple of the values' common step from min to max (salary
    rounded to 10K gives 10, 20, ..., 250: 25 values); anything else: the distinct values.
    """
    col = pd.Series(column)
    if col.size == 0:
        raise PrivlabError("column must hold at least one value")
    if col.isna().any():
        raise PrivlabError(f"column {col.name!r} has missing values; code them as a category first")
    if pd.api.types.is_integer_dtype(col.dtype):
        v = col.to_numpy(dtype=np.int64)
        lo, hi = int(v.min()), int(v.max())
        step = int(np.gcd.reduce(v - lo)) or 1
        return np.arange(lo, hi + 1, step, dtype=np.int64)
    return np.asarray(sorted(col.unique()))


def encode(column: Any, domain: Any) -> np.ndarray:
    """Index of each value of ``column`` in ``domain`` (0-based codes)."""
    domain = np.asarray(domain)
    col = np.asarray(column)
    codes = np.searchsorted(domain, col)
    bad = (codes >= domain.size) | (domain[np.minimum(codes, domain.size - 1)] != col)
    if np.any(bad):
        raise PrivlabError(f"column holds a value outside its domain: {col[np.flatnonzero(bad)[0]]!r}")
    return codes.astype(np.int64)


def group_ids(df: pd.DataFrame, attributes: Sequence[str]) -> tuple[np.ndarray, int]:
    """The SK value combination each record matches: ``(groups, n_groups)``.

    ``groups[r]`` indexes the distinct combinations of ``attributes`` occurring in ``df``
    (sorted), so records with the same index form one ``M_o``.
    """
    attributes = list(attributes)
    if not attributes:
        raise PrivlabError("attributes must name at least one SK attribute")
    codes = []
    for a in attributes:
        if a not in df.columns:
            raise PrivlabError(f"attributes must be columns of the data; got {a!r}")
        codes.append(pd.factorize(df[a], sort=True)[0].astype(np.int64))
    _, inverse = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    return inverse, int(inverse.max()) + 1


@dataclass(frozen=True)
class SKSet:
    """One SK attribute set: its attributes and the combination ``groups[r]`` of each record."""

    attributes: tuple[str, ...]
    groups: np.ndarray
    n_groups: int


@dataclass(frozen=True)
class SKData:
    """A data set coded for the intruder models.

    Attributes
    ----------
    columns : tuple of str
        The confidential attribute first, then the SK attributes.
    domains : tuple of ndarray
        Each column's domain (`attribute_domain`).
    codes : ndarray of int32, shape (n, len(columns))
        Each record's domain index per column; column 0 is the confidential one.
    sets : dict
        SK size -> the `SKSet` of every attribute set of that size (size 0: one set,
        every record in one combination).
    """

    columns: tuple[str, ...]
    domains: tuple[np.ndarray, ...]
    codes: np.ndarray
    sets: dict[int, list[SKSet]]

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    @property
    def grid(self) -> np.ndarray:
        """The confidential domain as floats: the value grid of every intruder distribution."""
        return self.domains[0].astype(float)

    @property
    def confidential_values(self) -> np.ndarray:
        """Each record's confidential value (float)."""
        return self.grid[self.codes[:, 0]]

    @property
    def domain_sizes(self) -> tuple[int, ...]:
        return tuple(int(d.size) for d in self.domains)


def prepare(
    df: pd.DataFrame,
    confidential: str,
    sk: Sequence[str],
    sk_sizes: Sequence[int],
    *,
    round_to: int | None = None,
    n_records: int | None = None,
    subsample_seed: int = 0,
    max_sets: int | None = None,
) -> SKData:
    """Code a loaded data set for the intruder models.

    Parameters
    ----------
    df : DataFrame
        The data set as loaded (`privlab.datasets.load`).
    confidential : str
        The confidential attribute (integer-valued).
    sk : sequence of str
        The attributes an intruder may know.
    sk_sizes : sequence of int
        The SK sizes to prepare (0 = no SK: the whole data set is one combination).
    round_to : int, optional
        Round the confidential value to this step, at least one step (as salary to 10K).
    n_records : int, optional
        A seeded subsample (``subsample_seed``) of this many records, in file order.
    max_sets : int, optional
        At most this many attribute sets per size, a subset seeded by the size (None: all).
    """
    sk = list(sk)
    for a in (confidential, *sk):
        if a not in df.columns:
            raise PrivlabError(f"confidential and sk must be columns of the data; got {a!r}")
    if confidential in sk or len(set(sk)) != len(sk):
        raise PrivlabError("sk must be distinct attributes other than the confidential one")
    for s in sk_sizes:
        check_int("sk_sizes[]", s, low=0, high=len(sk))
    if n_records and n_records < len(df):
        rng = np.random.default_rng(subsample_seed)
        df = df.iloc[np.sort(rng.choice(len(df), size=n_records, replace=False))].reset_index(drop=True)
    cols = [confidential, *sk]
    df = df[cols].copy()
    for c in sk:
        if not pd.api.types.is_integer_dtype(df[c].dtype):
            # Adult's missing workclass/occupation/country are a category of their own, "?" as in the raw file
            df[c] = df[c].astype(object).where(df[c].notna(), "?").astype(str)
    if not pd.api.types.is_integer_dtype(df[confidential].dtype):
        raise PrivlabError(f"confidential attribute {confidential!r} must be integer-valued")
    if round_to:
        step = check_int("round_to", round_to, low=1)
        v = df[confidential].to_numpy()
        df[confidential] = np.maximum(step, (np.floor(v / step + 0.5) * step).astype(np.int64))
    domains = tuple(attribute_domain(df[c]) for c in cols)
    codes = np.stack([encode(df[c].to_numpy(), d) for c, d in zip(cols, domains)], axis=1)
    sets: dict[int, list[SKSet]] = {}
    for size in sk_sizes:
        combos = list(itertools.combinations(sk, size))
        if max_sets and len(combos) > max_sets:
            # a seeded subset of the attribute sets (the paper uses all)
            pick = np.random.default_rng(size).choice(len(combos), size=max_sets, replace=False)
            combos = [combos[i] for i in sorted(pick)]
        groups = [group_ids(df, c) if c else (np.zeros(len(df), dtype=np.int64), 1) for c in combos]
        # int32 halves what every Monte Carlo task carries to its worker
        sets[int(size)] = [SKSet(c, g.astype(np.int32), G) for c, (g, G) in zip(combos, groups)]
    return SKData(tuple(cols), domains, codes.astype(np.int32), sets)
