"""Input validation shared by the multilevel modules (one clear line per bad input)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_int, check_real

CODE_DTYPE = np.int32  # values are codes 0..s-1


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
    arr = check_array(name, ps, ndim=1, dtype=float, min_size=1)
    return [check_p(v, f"{name}[{i}]") for i, v in enumerate(arr.tolist())]


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
