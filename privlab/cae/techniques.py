"""The SDC techniques compared by CAE, as mechanisms of kind ``sdc_technique``
(``conf/mechanism/sdc_*.yaml``): sampling, query restriction and noise addition.

A technique releases an artifact from the coded data (`SKData`) at one of its levels and
a seed; the artifact's `Release.probs` is the intruder model; `SDCTechnique.check` hands
the artifact to its checker in `privlab.cae.checkers` (which shares no code with the
technique); `SDCTechnique.exact_unique` is the exact expectation of the CAE of a record its
SK identifies uniquely, where one exists. A new technique is a subclass plus one config file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from .._validation import PrivlabError, check_choice, check_real
from . import checkers, exact
from ._checks import check_instance
from .data import SKData
from .exact import Moments
from .noise import NoisyRelease, binomial_noise_codes, noise_intervals, noise_max
from .query_restriction import OVERLAPS, BoundsRelease, QueryRestriction, bounds_to_indices
from .sampling import SampleRelease, sample_records

__all__ = [
    "Release",
    "SDCTechnique",
    "Moments",
    "SamplingTechnique",
    "QueryRestrictionTechnique",
    "NoiseAdditionTechnique",
]


class Release(Protocol):
    """A released artifact, seen through the intruder model."""

    def probs(self, groups: np.ndarray, n_groups: int, records: np.ndarray) -> np.ndarray:
        """The intruder's ``p`` (shape ``(n_groups, |D|)``) for the combinations ``groups`` of ``records``."""
        ...


@dataclass(frozen=True)
class SDCTechnique:
    """An SDC technique and the levels (its parameter values) it is run at.

    Parameters
    ----------
    levels : sequence of float
        The technique's parameter values, one result line each, in the table's order.
    """

    levels: Sequence[float]

    name: ClassVar[str] = ""
    utility_sign: ClassVar[int] = 1  # +1: utility rises with the level; -1: it falls
    checked: ClassVar[str] = ""  # what the artifact's checker verifies
    level_range: ClassVar[tuple[float, float]] = (0.0, 100.0)

    def __post_init__(self) -> None:
        if isinstance(self.levels, (str, bytes)) or not isinstance(self.levels, Sequence) or not self.levels:
            raise PrivlabError(f"levels must be a non-empty list of numbers, got {self.levels!r}")
        lo, hi = self.level_range
        values = tuple(check_real("levels[]", v, low=lo, high=hi) for v in self.levels)
        if len(set(values)) != len(values):
            raise PrivlabError(f"levels must not repeat a value, got {list(values)}")
        object.__setattr__(self, "levels", values)
        for v in values:
            self.check_level(v)

    def check_level(self, level: float) -> None:
        """Refuse a level the technique cannot run at (beyond ``level_range``)."""

    def _level(self, data: Any, level: Any) -> float:
        """Check the arguments of `release` (a coded data set, a level in range) and return the level."""
        check_instance("data", data, SKData, "an SKData (privlab.cae.prepare)")
        lo, hi = self.level_range
        value = check_real("level", level, low=lo, high=hi)
        self.check_level(value)
        return value

    def release(self, data: SKData, level: float, seed: Any) -> Release:
        raise NotImplementedError

    def check(self, data: SKData, release: Any, level: float, seed: Any, lp_check_records: int) -> float:
        """What the artifact's independent checker found (0 = the artifact is what it claims)."""
        raise NotImplementedError

    def exact_unique(self, level: float, n: int, grid: np.ndarray) -> Moments:
        """Exact moments of the CAE of a record alone in its SK combination, per confidential code
        (NaN where the technique has no closed form)."""
        nan = np.full(grid.size, np.nan)
        return nan, nan, nan, nan

    def exact_unique_var(
        self, level: float, n: int, recs: np.ndarray, codes: np.ndarray, moments: Moments
    ) -> tuple[float, float]:
        """Exact variance of the mean (H0, A) over the singleton combinations of one repetition."""
        return np.nan, np.nan


@dataclass(frozen=True)
class SamplingTechnique(SDCTechnique):
    """Sampling at ``levels`` percent of the records (Figure 2 (a), (b)).

    Utility rises with the sample size. A record its SK identifies uniquely is disclosed when
    drawn and leaves the intruder the uniform distribution otherwise: `exact.unique_sampling`.
    """

    name: ClassVar[str] = "sampling"
    utility_sign: ClassVar[int] = 1
    checked: ClassVar[str] = "distinct records, size round(f n), values untouched"

    def check_level(self, level: float) -> None:
        if level <= 0:
            raise PrivlabError(f"sampling levels are percentages in (0, 100], got {level:g}")

    def release(self, data: SKData, level: float, seed: Any) -> SampleRelease:
        level = self._level(data, level)
        rows = sample_records(data.n, level / 100.0, seed)
        return SampleRelease(rows, data.codes[rows], data.n, data.domain_sizes[0])

    def check(self, data: SKData, release: Any, level: float, seed: Any, lp_check_records: int) -> float:
        return checkers.check_sample(data.codes, release.rows, release.values, level)

    def exact_unique(self, level: float, n: int, grid: np.ndarray) -> Moments:
        return exact.unique_sampling(level, n, grid)

    def exact_unique_var(
        self, level: float, n: int, recs: np.ndarray, codes: np.ndarray, moments: Moments
    ) -> tuple[float, float]:
        return exact.unique_sampling_var(level, n, recs, moments)


@dataclass(frozen=True)
class QueryRestrictionTechnique(SDCTechnique):
    """Query restriction at query-set sizes ``levels`` (Figure 2 (c), (d)).

    Utility falls as the query sets grow. The bounds come from the structural method; the
    checker re-derives some of them by the LP. No closed form for a uniquely identified
    record's CAE (it depends on the whole shuffle). ``overlap`` is the window scheme of
    `QueryRestriction`: ``"half"`` (the seed's ``k = floor(2n/Q) - 1``) or ``"none"`` (disjoint).
    """

    overlap: str = "half"

    name: ClassVar[str] = "query_restriction"
    utility_sign: ClassVar[int] = -1
    checked: ClassVar[str] = "answers are the true sums, truth inside [L, U], structural [L, U] = the HiGHS LP's"
    level_range: ClassVar[tuple[float, float]] = (2.0, float(10**9))

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice("overlap", self.overlap, OVERLAPS)

    def check_level(self, level: float) -> None:
        if not float(level).is_integer() or int(level) % 2:
            raise PrivlabError(f"query-set sizes must be even integers (Q = 2l), got {level:g}")

    def release(self, data: SKData, level: float, seed: Any) -> BoundsRelease:
        level = self._level(data, level)
        domain = data.domains[0]
        queries = QueryRestriction(data.confidential_values, int(level), seed, domain=domain, overlap=self.overlap)
        L, U = queries.bounds()
        lo, hi = bounds_to_indices(L, U, domain)
        return BoundsRelease(queries, L, U, lo, hi, data.domain_sizes[0])

    def check(self, data: SKData, release: Any, level: float, seed: Any, lp_check_records: int) -> float:
        A, b = release.queries.equations()
        grid = data.grid
        return checkers.check_bounds(
            data.confidential_values, A, b, release.L, release.U, grid[0], grid[-1], lp_check_records, seed
        )


@dataclass(frozen=True)
class NoiseAdditionTechnique(SDCTechnique):
    """Noise addition at ``levels`` percent (Figure 2 (e), (f) and Figure 4).

    Utility falls as the noise grows. The intruder takes each record's interval as its
    perturbed confidential value +- M/2 (Algorithm 3); the exact counterpart for a record
    its SK identifies uniquely sums over the M + 1 noise outcomes: `exact.unique_noise`.
    """

    name: ClassVar[str] = "noise"
    utility_sign: ClassVar[int] = -1
    checked: ClassVar[str] = "values in their domains, at most M/2 steps from the original"

    def release(self, data: SKData, level: float, seed: Any) -> NoisyRelease:
        level = self._level(data, level)
        noisy = binomial_noise_codes(data.codes, data.domain_sizes, level, seed)
        m = data.domain_sizes[0]
        lo, hi = noise_intervals(noisy[:, 0], noise_max(level, m), m)
        return NoisyRelease(noisy, lo, hi, m)

    def check(self, data: SKData, release: Any, level: float, seed: Any, lp_check_records: int) -> float:
        return checkers.check_noise(data.codes, release.codes, data.domain_sizes, level)

    def exact_unique(self, level: float, n: int, grid: np.ndarray) -> Moments:
        return exact.unique_noise(level, grid)

    def exact_unique_var(
        self, level: float, n: int, recs: np.ndarray, codes: np.ndarray, moments: Moments
    ) -> tuple[float, float]:
        return exact.unique_noise_var(recs, codes, moments)
