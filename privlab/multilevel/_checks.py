"""Input validation shared by the multilevel modules (one clear line per bad input).

Size limits: every function that allocates an array whose size follows from its arguments
(an s x s matrix, a table of s^k cells, n x m copies, trials or chunks) checks the size
first (`check_cells`), so that a typo such as ``uni_pert_matrix(0.5, 10**9)`` ends in one
line instead of an attempt to allocate exabytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_int, check_real

CODE_DTYPE = np.int32  # values are codes 0..s-1
MAX_CELLS = 2**27  # cells of one array a call allocates (1 GiB of int64 or float64)
MAX_CHUNKS = 10**7  # chunks one Monte Carlo run lists (their sizes and marks are held in memory)


def check_p(p: Any, name: str = "p") -> float:
    """A retention probability in (0, 1]."""
    return check_real(name, p, low=0.0, high=1.0, low_open=True)


def check_s(domain_size: Any) -> int:
    """The domain size s >= 2 (codes fit in int32)."""
    return check_int("domain_size", domain_size, low=2, high=2**31 - 1)


def check_codes(x: Any, s: int, name: str = "x") -> np.ndarray:
    """Integer codes 0..s-1 as an int32 array."""
    arr = np.asarray(x)
    if arr.dtype.kind == "f":
        if arr.size and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
            raise PrivlabError(f"{name} must hold integer codes 0..{s - 1}, got non-integer values")
    arr = check_array(name, arr, ndim=1, dtype=np.int64, min_size=0)
    if arr.size and (arr.min() < 0 or arr.max() >= s):
        bad = np.flatnonzero((arr < 0) | (arr >= s))[:5].tolist()
        raise PrivlabError(f"{name} must hold codes 0..{s - 1} (domain_size {s}); outside at positions {bad}")
    return arr.astype(CODE_DTYPE)


def check_ps(ps: Any, name: str = "ps") -> list[float]:
    """A non-empty list of retention probabilities, each in (0, 1]."""
    if isinstance(ps, np.ndarray):
        values = check_array(name, ps, ndim=1, dtype=float, min_size=1).tolist()
    elif isinstance(ps, (str, bytes, dict)) or not hasattr(ps, "__iter__"):
        raise PrivlabError(f"{name} must be a list of retention probabilities, got {type(ps).__name__}")
    else:
        values = list(ps)  # each element checked as it is: a bool or a string is refused, not read as 1.0
    if not values:
        raise PrivlabError(f"{name} must hold at least 1 element(s), got 0")
    return [check_p(v, f"{name}[{i}]") for i, v in enumerate(values)]


def check_trials(trials: Any) -> int:
    """A trial count: a positive integer (1e10 from YAML accepted)."""
    return check_int("trials", trials, low=1)


def as_seed_sequence(seed: Any) -> np.random.SeedSequence:
    """A SeedSequence from a SeedSequence or a non-negative int."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(check_int("seed", seed, low=0))


def child_seed(seed: np.random.SeedSequence, i: int) -> np.random.SeedSequence:
    """Child ``i`` of ``seed``: what a fresh ``seed.spawn`` gives as its i-th child, without
    spawning (so the same item always gets the same stream, whoever asks first)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, i), pool_size=seed.pool_size)


def check_cells(what: str, cells: int, high: int = MAX_CELLS) -> int:
    """Refuse an array of more than ``high`` cells before allocating it, in one line.

    ``what`` names the array and how its size follows from the arguments, e.g.
    ``"uni_pert_matrix: domain_size 10 x 10"``.
    """
    if cells > high:
        raise PrivlabError(f"{what} = {cells:,} cells exceed the {high:,} one call may hold in memory")
    return cells


def check_counts(F: Any, name: str = "F") -> np.ndarray:
    """A table of counts F[X, Y_1, ..., Y_k]: k >= 1, every axis of the same length s >= 2,
    finite non-negative numbers."""
    arr = np.asarray(F)
    if arr.dtype.kind not in "iuf" or arr.ndim < 2:
        raise PrivlabError(f"{name} must be a numeric array F[X, Y_1, ..., Y_k], k >= 1; got {arr.dtype} {arr.shape}")
    if len(set(arr.shape)) != 1 or arr.shape[0] < 2:
        raise PrivlabError(f"{name} must have every axis of the same length s >= 2 (the domain), got shape {arr.shape}")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise PrivlabError(f"{name} must be finite")
    if arr.size and arr.min() < 0:
        raise PrivlabError(f"{name} must hold non-negative counts")
    return arr
