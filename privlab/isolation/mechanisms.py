"""The sanitizers as mechanisms of the ``conf/mechanism`` group (kind ``sanitizer``).

Each class bundles a release (`privlab.isolation.sanitizers`, `.histogram`) with its
natural adversaries (`privlab.isolation.adversaries`) behind one interface:

* the constructor takes the release's *setting* (diffprivlib's shape: the mechanism's
  parameters in the constructor, the data in the call): the privacy parameter ``T``, the box
  ``[low, high]^d`` of the data, the auxiliary draws ``aux`` from D and a shared
  ``index`` of the database, beside the sanitizer's own parameters (``scale``, ...);
  `Sanitizer.with_setting` gives a copy with another setting (the engines set ``T``, the
  box, ``aux`` and ``index`` on the configured sanitizers);
* `Sanitizer.attack(db, targets, seeds)`: release ``db``, let the adversaries output one
  point per target, and report columns describing the release (checked by
  `privlab.isolation.checkers`);
* `Sanitizer.utility(db, seeds)`: the release as weighted points and a box-count
  estimator, for `privlab.isolation.utility`.

A new sanitizer is a subclass here (or anywhere importable) plus one config file;
`privlab.isolation.simulation` runs any of them. ``seed_names`` lists the random streams
a sanitizer draws from (the run provides one SeedSequence per name).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from .. import stats
from .._validation import PrivlabError, check_choice, check_int, check_real
from .adversaries import adversary_cell_centre, adversary_cell_uniform, adversary_column_midpoint
from .checkers import check_histogram_release, exact_columns, perturbation_noise_ratios
from .distances import DistanceIndex
from .histogram import build_histogram
from .sanitizers import bad_sanitizer, expected_noise_length_ratio, histogram_plus_perturbation, perturb_release
from .utility import box_fraction_histogram, box_fraction_points, column_range, noise_mean_error

__all__ = [
    "AdversaryOutput",
    "Attack",
    "UtilityView",
    "Sanitizer",
    "AuxOnly",
    "RecursiveHistogram",
    "Perturbation",
    "HistogramPlusPerturbation",
    "BadSanitizer",
]

Seeds = Mapping[str, Any]  # stream name -> int, SeedSequence or Generator


@dataclass(frozen=True)
class AdversaryOutput:
    """One adversary's outputs, one point per target.

    ``natural``: the sanitizer's natural adversary, also asked whether it isolates anyone.
    """

    name: str
    queries: np.ndarray
    natural: bool


@dataclass(frozen=True)
class Attack:
    """What `Sanitizer.attack` returns: the adversaries' outputs and columns about the release."""

    outputs: list[AdversaryOutput]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UtilityView:
    """A release seen by an analyst: weighted points (leaf centres weigh their counts), a
    box-count estimator (fraction of the data in an axis-aligned box), and the RMS column-mean
    error of its noise part with its exact value (NaN when nothing is noise)."""

    points: np.ndarray
    weights: np.ndarray
    box_fraction: Callable[[np.ndarray, np.ndarray], float]
    noise_rms: tuple[float, float]


@dataclass(frozen=True, kw_only=True)
class Sanitizer:
    """A sanitizer of the isolation experiments (see the module docstring).

    Parameters
    ----------
    T : int or None
        The privacy parameter it releases at (at least ``min_T``); None: not set yet (set it
        with `with_setting` before a release).
    low, high : float
        The box ``[low, high]^d`` the data lives in.
    aux : array (>= m, d) or None
        Draws from the data distribution (for sanitizers with ``needs_aux``).
    index : DistanceIndex or None
        ``distance_index(db)`` of the database it will release, shared with the isolation
        test (a sanitizer that asks distance questions of db reuses it).
    """

    T: int | None = None
    low: float = -1.0
    high: float = 1.0
    aux: np.ndarray | None = field(default=None, repr=False, compare=False)
    index: DistanceIndex | None = field(default=None, repr=False, compare=False)

    seed_names: ClassVar[tuple[str, ...]] = ()
    min_T: ClassVar[int] = 1  # the smallest T it can release at (a histogram needs 2)
    needs_aux: ClassVar[bool] = False  # its adversary uses draws from D (the aux-only baseline)

    def __post_init__(self) -> None:
        if self.T is not None:
            check_int("T", self.T, low=self.min_T)
        low, high = check_real("low", self.low), check_real("high", self.high)
        if not low < high:
            raise PrivlabError(f"low must be below high (the box of the data), got {low:g} and {high:g}")

    def with_setting(self, **setting: Any) -> Sanitizer:
        """A copy released at another setting (any of ``T``, ``low``, ``high``, ``aux``, ``index``)."""
        unknown = set(setting) - {"T", "low", "high", "aux", "index"}
        if unknown:
            raise PrivlabError(f"with_setting takes T, low, high, aux and index; got {', '.join(sorted(unknown))}")
        return replace(self, **setting)

    @property
    def release_T(self) -> int:
        """``T``, which a release needs."""
        if self.T is None:
            raise PrivlabError(f"{type(self).__name__} needs T: build it with T=... or use with_setting(T=...)")
        return int(self.T)

    def attack(self, db: np.ndarray, targets: np.ndarray, seeds: Seeds) -> Attack:
        """Release ``db`` and return the adversaries' outputs for ``targets``.

        Parameters
        ----------
        db : array (n, d) inside [low, high]^d
        targets : int array (m,)
        seeds : mapping
            One seed per name of ``seed_names``.
        """
        raise NotImplementedError

    def utility(self, db: np.ndarray, seeds: Seeds) -> UtilityView:
        """Release ``db`` and return what an analyst sees of it."""
        raise PrivlabError(f"{type(self).__name__} releases nothing an analyst could use")


@dataclass(frozen=True)
class AuxOnly(Sanitizer):
    """The baseline (slide 8): no release; the adversary outputs a draw from D (auxiliary information)."""

    needs_aux: ClassVar[bool] = True

    def attack(self, db: np.ndarray, targets: np.ndarray, seeds: Seeds) -> Attack:
        if self.aux is None or len(self.aux) < len(targets):
            raise PrivlabError(f"aux must hold at least {len(targets)} draws from the data distribution")
        return Attack([AdversaryOutput("distribution_draw", np.asarray(self.aux)[: len(targets)], True)])


@dataclass(frozen=True)
class RecursiveHistogram(Sanitizer):
    """The recursive histogram over all points (slide 12); adversaries: a uniform point of the
    target's cell (natural) and its centre. Extra columns: ``leaves`` and ``release_checked``
    (1 when the independent checker passes the release)."""

    seed_names: ClassVar[tuple[str, ...]] = ("hist_adv",)
    min_T: ClassVar[int] = 2

    def attack(self, db: np.ndarray, targets: np.ndarray, seeds: Seeds) -> Attack:
        T = self.release_T
        hist = build_histogram(db, T, self.low, self.high)
        leaf = hist.point_leaf[targets]
        lows, sides = hist.leaf_low[leaf], hist.leaf_side[leaf]
        chk = check_histogram_release(db, hist.leaves(), T, self.low, self.high)
        passed = all(chk[k] for k in ("counts_match", "partition", "below_T", "parents_full"))
        return Attack(
            [
                AdversaryOutput("cell_uniform", adversary_cell_uniform(lows, sides, seeds["hist_adv"]), True),
                AdversaryOutput("cell_centre", adversary_cell_centre(lows, sides), False),
            ],
            {"leaves": hist.leaf_count.size, "release_checked": float(passed and chk["total"] == db.shape[0])},
        )

    def utility(self, db: np.ndarray, seeds: Seeds) -> UtilityView:
        hist = build_histogram(db, self.release_T, self.low, self.high)
        return UtilityView(
            hist.leaf_centre,
            hist.leaf_count.astype(float),
            lambda lo, hi: box_fraction_histogram(hist, lo, hi),
            (np.nan, np.nan),
        )


@dataclass(frozen=True)
class Perturbation(Sanitizer):
    """Perturbation (slide 13): x plus a spherical Gaussian of expected length ``scale * t_x``.

    The adversary outputs the target's released point. Extra columns: the measured mean of
    ``||noise|| / t_x`` over the first ``n_checked`` targets (an independent recomputation
    of t_x), its s.e. and its exact value.
    """

    scale: float = 1.0
    n_checked: int = 100

    seed_names: ClassVar[tuple[str, ...]] = ("perturb",)

    def __post_init__(self) -> None:
        super().__post_init__()
        check_real("scale", self.scale, low=0)
        check_int("n_checked", self.n_checked, low=0)

    def attack(self, db: np.ndarray, targets: np.ndarray, seeds: Seeds) -> Attack:
        T = self.release_T
        released, _ = perturb_release(db, T, self.scale, seeds["perturb"], indices=targets, index=self.index)
        k = min(self.n_checked, len(targets))
        ratios = perturbation_noise_ratios(db, targets[:k], released[:k], T)
        ratios = ratios[np.isfinite(ratios)]
        extra = {
            "noise_ratio_mean": float(ratios.mean()) if ratios.size else np.nan,
            "noise_ratio_se": stats.mean_se(ratios) if ratios.size > 1 else np.nan,
            "noise_ratio_exact": expected_noise_length_ratio(db.shape[1], self.scale) if ratios.size else np.nan,
        }
        return Attack([AdversaryOutput("perturbed_point", released, True)], extra)

    def utility(self, db: np.ndarray, seeds: Seeds) -> UtilityView:
        released, sd = perturb_release(db, self.release_T, self.scale, seeds["perturb"])
        cols = column_range(released)
        return UtilityView(
            released,
            np.ones(db.shape[0]),
            lambda lo, hi: box_fraction_points(released, lo, hi, col_range=cols),
            noise_mean_error(released, db, sd),
        )


@dataclass(frozen=True)
class HistogramPlusPerturbation(Sanitizer):
    """Histogram over a random half, the other half perturbed (slide 14).

    ``noise_length``: "diameter" gives per-coordinate s.d. ``scale * side`` (noise of length
    ~ the cell's diameter, the scale of the talk's privacy argument); "side" divides it by
    sqrt(d) (length ~ the cell's side) [reconstructed: the talk fixes neither]. The
    adversary outputs a uniform point of the target's cell when the target was
    histogrammed, else its perturbed point (natural), or the cell's centre instead.
    """

    scale: float = 1.0
    noise_length: str = "diameter"

    seed_names: ClassVar[tuple[str, ...]] = ("hp", "hp_adv")
    min_T: ClassVar[int] = 2
    LENGTHS: ClassVar[tuple[str, ...]] = ("diameter", "side")

    def __post_init__(self) -> None:
        super().__post_init__()
        check_real("scale", self.scale, low=0)
        check_choice("noise_length", self.noise_length, self.LENGTHS)

    def _release(self, db: np.ndarray, seeds: Seeds) -> Any:
        scale = self.scale if self.noise_length == "diameter" else self.scale / np.sqrt(db.shape[1])
        return histogram_plus_perturbation(db, self.release_T, seeds["hp"], scale=scale, low=self.low, high=self.high)

    def attack(self, db: np.ndarray, targets: np.ndarray, seeds: Seeds) -> Attack:
        rel = self._release(db, seeds)
        in_hist = np.isin(targets, rel.hist_index)
        pos_p = np.searchsorted(rel.perturbed_index, targets)
        pos_h = np.searchsorted(rel.hist_index, targets)
        h = rel.histogram
        leaf = h.point_leaf[np.minimum(pos_h, rel.hist_index.size - 1)]
        lows, sides = h.leaf_low[leaf], h.leaf_side[leaf]
        unif = adversary_cell_uniform(lows, sides, seeds["hp_adv"])
        centre = adversary_cell_centre(lows, sides)
        pert = rel.perturbed[np.minimum(pos_p, rel.perturbed_index.size - 1)]
        return Attack(
            [
                AdversaryOutput("cell_uniform_or_perturbed_point", np.where(in_hist[:, None], unif, pert), True),
                AdversaryOutput("cell_centre_or_perturbed_point", np.where(in_hist[:, None], centre, pert), False),
            ]
        )

    def utility(self, db: np.ndarray, seeds: Seeds) -> UtilityView:
        rel = self._release(db, seeds)
        h, n = rel.histogram, db.shape[0]
        half, n_pert = h.leaf_count.sum(), rel.perturbed.shape[0]
        cols = column_range(rel.perturbed)
        return UtilityView(
            np.vstack([h.leaf_centre, rel.perturbed]),
            np.concatenate([h.leaf_count.astype(float), np.ones(n_pert)]),
            lambda lo, hi: (
                (
                    box_fraction_histogram(h, lo, hi) * half
                    + box_fraction_points(rel.perturbed, lo, hi, col_range=cols) * n_pert
                )
                / n
            ),
            noise_mean_error(rel.perturbed, db[rel.perturbed_index], rel.noise_sd),
        )


@dataclass(frozen=True)
class BadSanitizer(Sanitizer):
    """The "bad sanitizer that passes" (slide 9): the last ``disguised`` attributes replaced by
    uniform noise over their range, the others released exactly.

    Adversaries: the target's released row (natural) and the row with each disguised
    attribute at the middle of its range. Extra columns: ``exact_columns`` (counted by an
    independent comparison with db) and ``exact_columns_expected``.
    """

    disguised: int = 1

    seed_names: ClassVar[tuple[str, ...]] = ("perturb",)

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("disguised", self.disguised, low=0)

    def attack(self, db: np.ndarray, targets: np.ndarray, seeds: Seeds) -> Attack:
        d = db.shape[1]
        if self.disguised > d:
            raise PrivlabError(f"disguised must be at most d = {d}, got {self.disguised}")
        hidden = np.arange(d - self.disguised, d)
        released = bad_sanitizer(db, hidden, seeds["perturb"])
        col_low = db[:, hidden].min(axis=0) if hidden.size else np.zeros(0)
        col_high = db[:, hidden].max(axis=0) if hidden.size else np.zeros(0)
        mid = adversary_column_midpoint(released[targets], hidden, col_low, col_high)
        exact = exact_columns(db, released)
        return Attack(
            [AdversaryOutput("released_row", released[targets], True), AdversaryOutput("column_midpoint", mid, False)],
            {"exact_columns": int(exact.sum()), "exact_columns_expected": d - self.disguised},
        )
