"""Input validation in one place.

Every public function of privlab validates its inputs through these helpers so
that bad input ends in one clear line naming the parameter and what is allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd


class PrivlabError(ValueError):
    """Bad input or a bad file: the message is one line naming the parameter
    (or file, line and column) and what is allowed."""


def _fmt(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# the one constraint vocabulary (it raises PrivlabError, defined above)
from .constraints import Interval, Options  # noqa: E402


def check_real(name: str, value, *, low=None, high=None, low_open=False, high_open=False) -> float:
    """Return ``value`` as a float after checking it is finite and in range.

    ``low``/``high`` are bounds (``None`` = unbounded); ``*_open`` make them strict
    (`privlab.constraints.Interval`, the same check as a config's ``Real``).
    """
    return Interval(float, low, high, low_open=low_open, high_open=high_open).check(name, value)


def check_int(name: str, value, *, low=None, high=None) -> int:
    """Return ``value`` as an int after checking it is an integer in [low, high]
    (`privlab.constraints.Interval`, the same check as a config's ``Int``)."""
    return Interval(int, low, high).check(name, value)


def check_choice(name: str, value, allowed):
    """Check ``value`` is one of ``allowed`` (`privlab.constraints.Options`, as a config's ``Choice``)."""
    return Options(allowed).check(name, value)


def check_array(name: str, values, *, ndim=1, dtype=float, min_size=1) -> np.ndarray:
    """Convert to a numpy array of ``dtype`` and check shape and finiteness."""
    try:
        arr = np.asarray(values, dtype=dtype)
    except (TypeError, ValueError):
        raise PrivlabError(f"{name} must be an array of {np.dtype(dtype).name}, got {_fmt(values)}") from None
    if ndim is not None and arr.ndim != ndim:
        raise PrivlabError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if arr.size < min_size:
        raise PrivlabError(f"{name} must hold at least {min_size} element(s), got {arr.size}")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        bad = np.flatnonzero(~np.isfinite(arr.ravel()))[:5].tolist()
        raise PrivlabError(f"{name} must be finite; non-finite at positions {bad}")
    return arr


def check_distribution(name: str, probs, *, atol=1e-9) -> np.ndarray:
    """Check a probability vector: non-negative entries summing to 1 within ``atol``."""
    p = check_array(name, probs, dtype=float)
    if np.any(p < 0):
        bad = np.flatnonzero(p < 0)[:5].tolist()
        raise PrivlabError(f"{name} must be non-negative; negative at positions {bad}")
    total = float(p.sum())
    if abs(total - 1.0) > atol:
        raise PrivlabError(f"{name} must sum to 1 (within {atol:g}), sums to {total!r}")
    return p


def check_same_length(name_a: str, a, name_b: str, b) -> None:
    if len(a) != len(b):
        raise PrivlabError(f"{name_a} and {name_b} must have the same length, got {len(a)} and {len(b)}")


def check_callable(name: str, value, *, optional: bool = False):
    """A function (``None`` too with ``optional``): a seed source, a map, a loader."""
    if not (callable(value) or (optional and value is None)):
        raise PrivlabError(f"{name} must be a function{' or None' if optional else ''}, got {type(value).__name__}")
    return value


#: ``map_fn(fn, items)``: a possibly parallel map, the one way the library takes parallelism. The
#: papers' grids want it ordered (``RunContext.map``); an engine that reassembles its parts by
#: index also takes an unordered one (``RunContext.map_unordered``).
MapFn = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[Any]]

#: ``seed_sequence(*key) -> SeedSequence``: independent seeds keyed by the piece of work they
#: seed (``RunContext.seed_sequence``); a function that draws one stream takes ``seed`` instead.
SeedSequenceFn = Callable[..., np.random.SeedSequence]


def map_in_order(fn: Callable[[Any], Any], items, map_fn: MapFn | None = None, *, name: str = "map_fn") -> list:
    """``[fn(item) for item in items]``, through ``map_fn`` when one is given: the papers' grids
    take their parallelism this way, so the library never sees the run context."""
    check_callable(name, map_fn, optional=True)
    items = list(items)
    return [fn(item) for item in items] if map_fn is None else list(map_fn(fn, items))


def check_mapping(name: str, value, keys=()):
    """A mapping (a config block: an OmegaConf node or a dict) holding at least ``keys``."""
    if not isinstance(value, Mapping):
        raise PrivlabError(f"{name} must be a mapping (a config block), got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise PrivlabError(f"{name} lacks the key(s) {', '.join(map(str, missing))}")
    return value


def check_table(df, columns=(), *, name: str = "df", min_rows: int = 0):
    """A result table (a pandas DataFrame) with at least ``columns`` and ``min_rows`` rows."""
    if not isinstance(df, pd.DataFrame):
        raise PrivlabError(f"{name} must be a result table (a DataFrame), got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise PrivlabError(f"{name} lacks the column(s) {', '.join(map(str, missing))}")
    if len(df) < min_rows:
        raise PrivlabError(f"{name} must hold at least {min_rows} row(s), got {len(df)}")
    return df


def rng_from(seed) -> np.random.Generator:
    """A numpy Generator from an int seed, a SeedSequence or a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    return np.random.default_rng(check_int("seed", seed, low=0))
