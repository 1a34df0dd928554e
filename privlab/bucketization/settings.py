"""F-privacy specifications, bucket settings and the input checks shared by the algorithms.

Notation (seed 000, Section 3): o_i is the number of records with sensitive value x_i,
n = sum o_i, f_i = o_i / n, F_i in (0, 1] the threshold on Pr(x_i | t). A bucket setting
{(S_j, b_j)} has b_j buckets of size S_j with sum b_j S_j = n and
Loss = sum b_j (S_j - 1); MSE = Loss / n.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privlab._validation import MapFn, PrivlabError, check_array, check_int, map_in_order
from privlab.constraints import Real
from privlab.validation import validate_params

# F_i * S is compared with integers; F_i comes from floating arithmetic (theta*f + b), so an
# exact product like 0.1 * 30 = 3.0000000000000004 or 2.9999999999999996 must count as 3.
CAP_TOL = 1e-9

# a seed: an int, a SeedSequence (ctx.seed_sequence) or a Generator
SeedLike = int | np.random.SeedSequence | np.random.Generator

#: the largest bucket size M accepted: the searches scan O(M^2) size pairs and the ILP has
#: O(m M) variables, so a larger M exhausts time and memory (the paper uses M = 50)
MAX_SIZE = 10_000
#: the most records (or codes) a table may hold: bounds the arrays the algorithms allocate
MAX_RECORDS = 10**9


def check_max_size(max_size: object) -> int:
    """``max_size`` as an int in [1, MAX_SIZE] (one line naming it otherwise)."""
    return check_int("max_size", max_size, low=1, high=MAX_SIZE)


def check_codes(name: str, values: ArrayLike, size: int | None = None, of: str = "F") -> np.ndarray:
    """Integer codes 0..size-1 (any non-negative integer without ``size``) as int64.

    Refuses, in one line naming ``name``: non-numbers, non-integer values (1.5 is not a
    code, though 2.0 is), negative codes and codes >= ``size`` (the domain size of ``of``).
    """
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        arr = check_array(name, values, dtype=np.int64)
    else:
        raw = check_array(name, values, dtype=float)
        bad = np.flatnonzero(raw != np.round(raw))
        if bad.size:
            raise PrivlabError(f"{name} must hold integer codes; non-integer at positions {bad[:5].tolist()}")
        if np.abs(raw).max() >= 2**62:
            raise PrivlabError(f"{name} must hold codes below 2^62, got {raw.max():g}")
        arr = raw.astype(np.int64)
    if arr.min() < 0:
        bad = np.flatnonzero(arr < 0)[:5].tolist()
        raise PrivlabError(f"{name} must hold non-negative codes; negative at positions {bad}")
    if size is not None and arr.max() >= size:
        raise PrivlabError(f"{name} must be codes in 0..{size - 1} (one per value of {of}), got up to {arr.max()}")
    return arr


def check_mapping(name: str, value: object, what: str) -> Mapping[Any, Any]:
    """``value`` must be a non-empty mapping (``what`` says of what to what)."""
    if not isinstance(value, Mapping) or not value:
        raise PrivlabError(f"{name} must be a non-empty mapping of {what}, got {type(value).__name__}")
    return value


def apply_task(task: tuple[Callable[..., Any], Sequence[Any]]) -> Any:
    """One work item of a ``map_fn``: ``(function, arguments)`` -> ``function(*arguments)``."""
    fn, args = task
    return fn(*args)


def map_tasks(tasks: Sequence[tuple[Callable[..., Any], Sequence[Any]]], map_fn: MapFn | None) -> list:
    """`apply_task` of every task, through ``map_fn`` (in order) or serially when it is None."""
    return map_in_order(apply_task, tasks, map_fn)


def check_setting(setting: object) -> BucketSetting:
    """``setting`` must be a `BucketSetting` (one line naming the type it got otherwise)."""
    if not isinstance(setting, BucketSetting):
        raise PrivlabError(f"setting must be a BucketSetting (sizes and counts), got {type(setting).__name__}")
    return setting


@validate_params(theta=Real(0, low_open=True), offset=Real(0))
def fprivacy(freqs: ArrayLike, theta: float, offset: float = 0.02) -> np.ndarray:
    """F-privacy thresholds F_i = min(1, theta * f_i + offset) (seed 000, Section 7.1).

    Parameters
    ----------
    freqs : array of float
        Frequencies f_i of the sensitive values (each in [0, 1]).
    theta : float
        Privacy coefficient (> 0).
    offset : float
        Additive offset b (>= 0); F_i must end up in (0, 1].

    Returns
    -------
    ndarray of float, the thresholds F_i.
    """
    f = check_array("freqs", freqs, dtype=float)
    if np.any((f < 0) | (f > 1)):
        bad = np.flatnonzero((f < 0) | (f > 1))[:5].tolist()
        raise PrivlabError(f"freqs must be in [0, 1]; out of range at values {bad}")
    if f.sum() > 1 + 1e-9:  # frequencies of distinct values (all of them sum to 1; a subset to less)
        raise PrivlabError(f"freqs must sum to at most 1 (frequencies of distinct values), sum to {f.sum():.6g}")
    F = np.minimum(1.0, theta * f + offset)
    if np.any(F <= 0):
        bad = np.flatnonzero(F <= 0)[:5].tolist()
        raise PrivlabError(f"offset must make every F_i > 0; F_i = 0 at values {bad} (use offset > 0)")
    return F


def caps(F: ArrayLike, sizes: ArrayLike) -> np.ndarray:
    """floor(F_i * S): most records of x_i one bucket of size S may hold (Lemma 4.13).

    Returns an int64 array of shape (len(F), len(sizes)).
    """
    F = check_array("F", F, dtype=float)
    if np.any((F <= 0) | (F > 1)):
        bad = np.flatnonzero((F <= 0) | (F > 1))[:5].tolist()
        raise PrivlabError(f"F must be in (0, 1]; out of range at values {bad}")
    S = check_codes("sizes", np.atleast_1d(sizes))
    if S.min() < 1 or S.max() > MAX_RECORDS or F.size * S.size > MAX_RECORDS:
        raise PrivlabError(f"sizes must be integers in [1, {MAX_RECORDS:,}] making at most {MAX_RECORDS:,} cells")
    return np.floor(F[:, None] * S[None, :] + CAP_TOL).astype(np.int64)


def smallest_size(F: ArrayLike, counts: ArrayLike) -> int:
    """Smallest admissible bucket size: the least S that can hold a record of some present value.

    A record of x_i fits only in buckets with floor(F_i S) >= 1, i.e. S >= 1 / F_i.
    """
    o, F = prepare(counts, F)
    fmax = float(F[o > 0].max())
    s = int(np.ceil(1.0 / fmax - CAP_TOL))
    return max(s, 1)


def prepare(
    counts: ArrayLike, F: ArrayLike, max_size: int | None = None, *, feasible: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Validate per-value counts o_i and thresholds F_i; return them as int64 / float arrays.

    Raises a one-line PrivlabError naming the values at fault when F_i < f_i (no valid
    bucketization exists, Lemma 3.7; not checked with ``feasible=False``), F is outside
    (0, 1], the lengths differ, the table is empty, or ``max_size`` is below the smallest
    admissible bucket size.
    """
    o = check_array("counts", counts, dtype=float)
    if np.any(o < 0) or np.any(o != np.round(o)):
        bad = np.flatnonzero((o < 0) | (o != np.round(o)))[:5].tolist()
        raise PrivlabError(f"counts must be non-negative integers; bad at values {bad}")
    if o.sum() > MAX_RECORDS:
        raise PrivlabError(f"counts must describe at most {MAX_RECORDS:,} records, got {o.sum():.4g}")
    o = o.astype(np.int64)
    F = check_array("F", F, dtype=float)
    if F.shape != o.shape:
        raise PrivlabError(f"counts and F must have the same length, got {o.size} and {F.size}")
    if np.any((F <= 0) | (F > 1)):
        bad = np.flatnonzero((F <= 0) | (F > 1))[:5].tolist()
        raise PrivlabError(f"F must be in (0, 1]; out of range at values {bad} ({F[bad].tolist()})")
    n = int(o.sum())
    if n == 0:
        raise PrivlabError("counts must describe a non-empty table (all counts are 0)")
    if not feasible:
        return o, F
    # f_i <= F_i  <=>  o_i <= F_i n (with the same tolerance as caps)
    bad = np.flatnonzero(o > np.floor(F * n + CAP_TOL))
    if bad.size:
        shown = ", ".join(f"x{i} (f={o[i] / n:.4g} > F={F[i]:.4g})" for i in bad[:5])
        more = f" and {bad.size - 5} more" if bad.size > 5 else ""
        raise PrivlabError(f"F: no valid bucketization exists because f_i > F_i for values {shown}{more}")
    if max_size is not None:
        max_size = check_max_size(max_size)
        smin = smallest_size(F, o)
        if max_size < smin:
            raise PrivlabError(
                f"max_size must be >= {smin}, the smallest admissible bucket size (1 / max F_i), got {max_size}"
            )
    return o, F


@dataclass(frozen=True)
class BucketSetting:
    """b_j buckets of size S_j for each j: ``sizes`` ascending, ``counts`` the b_j (> 0).

    Zero counts are dropped and equal sizes merged, so equal settings compare equal.
    """

    sizes: tuple[int, ...]
    counts: tuple[int, ...]

    def __init__(self, sizes: ArrayLike, counts: ArrayLike) -> None:
        s = [check_int("sizes", x, low=1) for x in np.atleast_1d(sizes).tolist()]
        b = [check_int("counts", x, low=0) for x in np.atleast_1d(counts).tolist()]
        if len(s) != len(b):
            raise PrivlabError(f"sizes and counts must have the same length, got {len(s)} and {len(b)}")
        merged: dict[int, int] = {}
        for size, count in zip(s, b):
            if count:
                merged[size] = merged.get(size, 0) + count
        if not merged:
            raise PrivlabError("a bucket setting needs at least one bucket (all counts are 0)")
        keys = sorted(merged)
        object.__setattr__(self, "sizes", tuple(keys))
        object.__setattr__(self, "counts", tuple(merged[k] for k in keys))

    @property
    def n(self) -> int:
        """Records the setting holds: sum b_j S_j."""
        return sum(s * b for s, b in zip(self.sizes, self.counts))

    @property
    def n_buckets(self) -> int:
        return sum(self.counts)

    @property
    def loss(self) -> int:
        """Loss = sum b_j (S_j - 1) (Definition 3.9, Equation 2)."""
        return sum(b * (s - 1) for s, b in zip(self.sizes, self.counts))

    def mse(self, n: int | None = None) -> float:
        """MSE = Loss / n (Equation 1); n defaults to the setting's own size."""
        n = self.n if n is None else check_int("n", n, low=1)
        return self.loss / n

    def __add__(self, other: object) -> BucketSetting:
        if not isinstance(other, BucketSetting):
            return NotImplemented  # Python's TypeError: unsupported operand type(s)
        return BucketSetting(self.sizes + other.sizes, self.counts + other.counts)

    def __str__(self) -> str:
        return "{" + ", ".join(f"({s}, {b})" for s, b in zip(self.sizes, self.counts)) + "}"
