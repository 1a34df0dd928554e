"""The bucketing mechanisms the experiments compare (``conf/mechanism/``, kind ``bucketing``).

Each mechanism turns a table's sensitive values and their F-privacy thresholds into a
release: a `Plan` (the bucket setting it chose, with its status, loss and search time)
and, when it releases anything, the bucket id of every record. `release_checked` runs one
and verifies what it released with the independent checker (`check_bucketization`), which
shares no code with the mechanisms.

============================  ==========================================================
class                         what (seed 000)
============================  ==========================================================
`TwoSizeBucketing`            the optimal two-size setting (Section 5.1), with its search
                              strategy ``pruning`` (none / loss / full)
`MultiSizeBucketing`          recursive two-size splits (Section 5.2), a heuristic
`OptimalBucketing`            the exact multi-size optimum by ILP (HiGHS or CBC, ``time_limit``)
`OptimalTwoSizeBucketing`     the two-size optimum by one ILP (Figure 7's "Optimal")
`AnatomyBucketing`            Anatomy's l-diverse groups, l = ceil(1 / min F_i) (baseline)
============================  ==========================================================
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from privlab._validation import PrivlabError, check_array, check_choice, check_int, check_real

from .anatomy import anatomy, required_l
from .assign import bucketize
from .checkers import check_bucketization
from .ilp import SOLVERS, TIME_LIMIT_MAX, OptimalResult, optimal, optimal_two_size
from .multi_size import multi_size
from .settings import BucketSetting, check_codes, check_max_size, prepare
from .two_size import PRUNINGS, two_size

__all__ = [
    "Plan",
    "Release",
    "BucketingMechanism",
    "TwoSizeBucketing",
    "MultiSizeBucketing",
    "OptimalBucketing",
    "OptimalTwoSizeBucketing",
    "AnatomyBucketing",
    "release_checked",
    "release_all",
    "timed_plan",
    "timed_runs",
]


@dataclass(frozen=True)
class Plan:
    """What a mechanism decided for one table.

    Attributes
    ----------
    status : str
        "optimal", "heuristic", an ILP outcome ("timed out", "infeasible", "solver error"),
        or Anatomy's "l-diverse" / "ineligible (sizes only, privacy ignored)".
    setting : BucketSetting or None
        The bucket setting found (None: none found, or groups not built from a setting).
    loss : int or None
        Loss = sum_B (|B| - 1) of the release (Anatomy when ineligible: of the group sizes it
        would use, ignoring privacy); None when nothing was found.
    n_sizes : int
        Distinct bucket sizes (0 when nothing was found).
    text : str
        The setting as result tables print it ("{(12, 1300), (50, 288)}", "l=43", or "").
    seconds : float
        Time to find the setting (NaN when not measured).
    """

    status: str
    setting: BucketSetting | None
    loss: int | None
    n_sizes: int
    text: str
    seconds: float


@dataclass(frozen=True)
class Release:
    """A mechanism's release: its plan, the bucket id of every record (None: nothing released)
    and the independent checker's verdict on it (None: nothing to check)."""

    plan: Plan
    bucket_ids: np.ndarray | None
    checked: bool | None = None

    @property
    def verdict(self) -> str:
        """The checker's verdict as result tables print it: "passed", "FAILED" or "not released"."""
        return "not released" if self.checked is None else ("passed" if self.checked else "FAILED")

    def summary(self, n: int, timed: bool = True) -> dict[str, Any]:
        """A result-table row for a table of ``n`` records: status, loss, mse (Loss / n),
        n_sizes, setting, checker and seconds (NaN loss and mse when nothing was found; NaN
        seconds unless ``timed``)."""
        p, loss = self.plan, math.nan if self.plan.loss is None else self.plan.loss
        row = {"status": p.status, "loss": loss, "mse": loss / n, "n_sizes": p.n_sizes, "setting": p.text}
        return {**row, "checker": self.verdict, "seconds": p.seconds if timed else math.nan}


def _codes(sa_codes: Any, F: Any) -> tuple[np.ndarray, np.ndarray]:
    F = check_array("F", F, dtype=float)
    return check_codes("sa_codes", sa_codes, F.size), F


class BucketingMechanism:
    """A bucketing mechanism that searches a bucket setting, then assigns records to it.

    Subclasses implement `search`; `plan` times it and `release` assigns the records of a
    valid setting by record partition and round-robin (`bucketize`).
    """

    #: an ILP solve is long: its time is measured once, however many repeats are asked for
    time_once: ClassVar[bool] = False

    def search(self, counts: np.ndarray, F: np.ndarray, max_size: int) -> tuple[BucketSetting | None, str, str]:
        """The setting (or None), its status and, when nothing was found, why (or "")."""
        raise NotImplementedError

    def plan(self, counts: Any, F: Any, max_size: int) -> Plan:
        """The mechanism's bucket setting for per-value counts ``counts`` and thresholds ``F``.

        Parameters
        ----------
        counts : array of int
            Per-value record counts o_i.
        F : array of float
            Thresholds F_i in (0, 1].
        max_size : int
            Largest bucket size M.

        Returns
        -------
        Plan, with ``seconds`` the time the search took.
        """
        max_size = check_max_size(max_size)
        t0 = time.perf_counter()
        s, status, why = self.search(counts, F, max_size)
        seconds = time.perf_counter() - t0
        if s is None:
            return Plan(status, None, None, 0, why, seconds)
        return Plan(status, s, s.loss, len(s.sizes), str(s), seconds)

    def release(self, sa_codes: Any, F: Any, max_size: int, seed: Any = 0) -> Release:
        """Bucket ids for the records with sensitive codes ``sa_codes`` (0..m-1, one F per code).

        Returns
        -------
        Release (unchecked: see `release_checked`); no bucket ids when no setting was found.
        """
        sa, F = _codes(sa_codes, F)
        p = self.plan(np.bincount(sa, minlength=F.size), F, max_size)
        ids = bucketize(sa, F, p.setting, seed=seed) if p.setting is not None else None
        return Release(p, ids)


@dataclass(frozen=True)
class TwoSizeBucketing(BucketingMechanism):
    """TwoSizeBucketing: the optimal setting with at most two sizes (`two_size`).

    Parameters
    ----------
    pruning : {"none", "loss", "full"}
        Search strategy (Section 5.1); all find the same optimum, at different speeds.
    """

    pruning: str = "full"

    def __post_init__(self) -> None:
        check_choice("pruning", self.pruning, PRUNINGS)

    def search(self, counts: np.ndarray, F: np.ndarray, max_size: int) -> tuple[BucketSetting | None, str, str]:
        return two_size(counts, F, max_size, self.pruning), "optimal", ""


@dataclass(frozen=True)
class MultiSizeBucketing(BucketingMechanism):
    """MultiSizeBucketing: recursive optimal two-size splits while they lower the loss (`multi_size`)."""

    def search(self, counts: np.ndarray, F: np.ndarray, max_size: int) -> tuple[BucketSetting | None, str, str]:
        return multi_size(counts, F, max_size), "heuristic", ""


@dataclass(frozen=True)
class OptimalBucketing(BucketingMechanism):
    """The exact optimal multi-size setting by ILP (`optimal`); a solve that reaches
    ``time_limit`` seconds releases nothing and reports "timed out".

    Parameters
    ----------
    time_limit : float
        The solver's time limit per solve, in seconds (> 0).
    solver : {"highs", "cbc"}
        The MIP solver (`privlab.bucketization.ilp.SOLVERS`).
    memo : callable, optional
        ``memo(fn, *args, keep=...)`` -> ``fn(*args)``, memoised (e.g. the run context's
        ``ctx.memo``): an instance solved once is not solved again, whichever experiment asks
        (Figures 4 and 5 release the same settings). Only proven outcomes are kept.
    """

    time_limit: float = 60.0
    solver: str = "highs"
    memo: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    time_once: ClassVar[bool] = True
    two_sizes: ClassVar[bool] = False

    def __post_init__(self) -> None:
        check_real("time_limit", self.time_limit, low=0, low_open=True, high=TIME_LIMIT_MAX)
        check_choice("solver", self.solver, SOLVERS)
        if self.memo is not None and not callable(self.memo):
            raise PrivlabError(f"memo must be a function or None, got {type(self.memo).__name__}")

    def solve(self, counts: Any, F: Any, max_size: int) -> OptimalResult:
        """The ILP's outcome for one table (through ``memo`` when given)."""
        solve = optimal_two_size if self.two_sizes else optimal
        args = (np.asarray(counts), np.asarray(F), max_size, self.time_limit, self.solver)
        return solve_ilp(solve, *args) if self.memo is None else self.memo(solve_ilp, solve, *args, keep=proven)

    def search(self, counts: np.ndarray, F: np.ndarray, max_size: int) -> tuple[BucketSetting | None, str, str]:
        res = self.solve(counts, F, max_size)
        return res.setting, res.status, res.message

    def plan(self, counts: Any, F: Any, max_size: int) -> Plan:
        """As `BucketingMechanism.plan`, with ``seconds`` the solve's own time (a memoised
        outcome keeps the time its solve took)."""
        max_size = check_max_size(max_size)
        res = self.solve(counts, F, max_size)
        s = res.setting
        if s is None:
            return Plan(res.status, None, None, 0, res.message, res.seconds)
        return Plan(res.status, s, s.loss, len(s.sizes), str(s), res.seconds)


@dataclass(frozen=True)
class OptimalTwoSizeBucketing(OptimalBucketing):
    """The optimal setting with at most two sizes by one ILP with size-choice binaries
    (`optimal_two_size`): Figure 7's "Optimal"."""

    two_sizes: ClassVar[bool] = True


def solve_ilp(solve: Callable[..., OptimalResult], counts, F, max_size, time_limit, solver) -> OptimalResult:
    """``solve(counts, F, max_size, time_limit=..., solver=...)``: one ILP instance, the unit a memo keeps."""
    return solve(counts, F, max_size, time_limit=time_limit, solver=solver)


def proven(result: OptimalResult) -> bool:
    """Whether an ILP outcome is worth keeping: proved optimal or infeasible (a time-out or a
    solver error depends on the machine and is tried again)."""
    return result.status in ("optimal", "infeasible")


ANATOMY_STATUS = {True: "l-diverse", False: "ineligible (sizes only, privacy ignored)"}


@dataclass(frozen=True)
class AnatomyBucketing(BucketingMechanism):
    """Anatomy (Xiao & Tao 2006) modelling F-privacy by l-diversity, l = ceil(1 / min F_i).

    Groups of l or l+1 records whatever ``max_size``. When l-diversity is not eligible
    (some f_i > 1/l) nothing is released and the loss is that of the group sizes Anatomy
    would use, ignoring privacy (the paper plots it "for comparison purposes"). Not timed.
    """

    def plan(self, counts: Any, F: Any, max_size: int) -> Plan:
        check_max_size(max_size)  # unused (Anatomy's groups have l or l+1 records) but checked
        o, F = prepare(counts, F, feasible=False)  # ineligible tables are reported, not refused
        l, n = required_l(F), int(o.sum())
        if not 1 <= l <= n:
            raise PrivlabError(f"l = ceil(1 / min F_i) = {l} must be at most the number of records {n}")
        eligible = bool(o.max() * l <= n)
        # eligible or not, Anatomy forms floor(n / l) groups of l or l+1 records
        return Plan(ANATOMY_STATUS[eligible], None, n - n // l, 2, f"l={l}", math.nan)

    def release(self, sa_codes: Any, F: Any, max_size: int, seed: Any = 0) -> Release:
        check_max_size(max_size)
        sa, F = _codes(sa_codes, F)
        l = required_l(F)
        res = anatomy(sa, l, seed=seed)
        return Release(Plan(ANATOMY_STATUS[res.eligible], None, res.loss, 2, f"l={l}", math.nan), res.groups)


def release_checked(
    mechanism: BucketingMechanism, sa_codes: Any, F: Any, max_size: int, seed: Any = 0, keep_ids: bool = True
) -> Release:
    """Run ``mechanism`` on the records ``sa_codes`` and check its release independently.

    Parameters
    ----------
    mechanism : BucketingMechanism
    sa_codes : array of int
        Sensitive value code (0..m-1) of each record.
    F : array of float
        Thresholds F_i, one per code.
    max_size : int
        Largest bucket size M.
    seed : int, SeedSequence or Generator
        Randomness of the assignment (which records share a bucket).
    keep_ids : bool
        Keep the bucket ids in the result (False: only the plan and the verdict).

    Returns
    -------
    Release with ``checked`` the checker's verdict (None when nothing was released).
    """
    if not isinstance(mechanism, BucketingMechanism):
        raise PrivlabError(f"mechanism must be a BucketingMechanism, got {type(mechanism).__name__}")
    r = mechanism.release(sa_codes, F, max_size, seed)
    ok = None if r.bucket_ids is None else check_bucketization(sa_codes, r.bucket_ids, F).ok
    return Release(r.plan, r.bucket_ids if keep_ids else None, ok)


def release_all(
    sa_codes: Any,
    F: Any,
    mechanisms: Sequence[BucketingMechanism],
    max_size: int,
    seeds: Sequence[Any],
    keep_ids: bool = True,
) -> list[Release]:
    """`release_checked` of every mechanism on one table, the i-th with ``seeds[i]``."""
    if isinstance(mechanisms, BucketingMechanism) or not isinstance(mechanisms, Sequence):
        raise PrivlabError(f"mechanisms must be a sequence of BucketingMechanism, got {type(mechanisms).__name__}")
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence):
        raise PrivlabError(f"seeds must be a sequence of seeds (one per mechanism), got {type(seeds).__name__}")
    if len(seeds) != len(mechanisms):
        raise PrivlabError(f"seeds must give one seed per mechanism ({len(mechanisms)}), got {len(seeds)}")
    return [release_checked(m, sa_codes, F, max_size, s, keep_ids) for m, s in zip(mechanisms, seeds)]


def timed_runs(
    mechanism: BucketingMechanism, counts: Any, F: Any, max_size: int, repeats: int = 1
) -> tuple[Plan, np.ndarray]:
    """``mechanism.plan`` run ``repeats`` times (once for an ILP, see ``time_once``).

    Returns
    -------
    The plan of the last run and the seconds of every run (their spread is the timing's).
    """
    if not isinstance(mechanism, BucketingMechanism):
        raise PrivlabError(f"mechanism must be a BucketingMechanism, got {type(mechanism).__name__}")
    repeats = check_int("repeats", repeats, low=1, high=10_000)
    runs = [mechanism.plan(counts, F, max_size) for _ in range(1 if mechanism.time_once else repeats)]
    return runs[-1], np.array([r.seconds for r in runs], dtype=float)


def timed_plan(mechanism: BucketingMechanism, counts: Any, F: Any, max_size: int, repeats: int = 1) -> Plan:
    """`timed_runs` with the median time.

    Returns
    -------
    Plan of the last run, its ``seconds`` the median over the runs.
    """
    plan, seconds = timed_runs(mechanism, counts, F, max_size, repeats)
    return replace(plan, seconds=float(np.median(seconds)))
