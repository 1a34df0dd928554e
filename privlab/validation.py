"""Input validation in one place: the library's argument checks.

Every public function of privlab validates its inputs here, so that bad input ends in one clear line
naming the parameter and what is allowed. A public entry point declares what each argument may be with
`validate_params` (scikit-learn's shape: the declaration is data, introspectable, and the generated
bad-input suite calls the function with every value it refuses); the ``check_*`` helpers check what
a declaration cannot (arrays, distributions, tables). Every constraint is one of
`privlab.constraints`, the protocol the configs' contracts use too.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from .constraints import Constraint, Interval, Options
from .errors import PrivlabError
from .errors import fmt as _fmt
from .relations import Relation

__all__ = [
    "validate_params",
    "declared",
    "check_real",
    "check_int",
    "check_choice",
    "check_array",
    "check_distribution",
    "check_same_length",
    "check_callable",
    "check_mapping",
    "check_table",
    "map_in_order",
    "rng_from",
    "MapFn",
    "SeedSequenceFn",
]

F = TypeVar("F", bound=Callable[..., Any])

#: every function declared with `validate_params`, by its module and qualified name
_DECLARED: dict[str, Callable[..., Any]] = {}


def validate_params(*relations: Relation, **constraints: Constraint) -> Callable[[F], F]:
    """Declare what the arguments of a public function may be, and check them at every call.

    Each keyword names an argument and its `privlab.constraints.Constraint`; each positional one is a
    relation between arguments (`privlab.relations`, e.g. ``Ordered("rho1", "rho2")``). The arguments
    a call gives are checked before the body runs and reach it converted (an int from 1e10, a float
    from a numpy number); a bad one ends in one line naming it. The declaration stays readable:
    ``fn.constraints`` (argument -> constraint), ``fn.relations``, and `declared` lists every declared
    function, from which ``tests/core/test_bad_input.py`` calls each with every value it refuses.

    >>> from privlab.constraints import Real
    >>> @validate_params(scale=Real(0, low_open=True))
    ... def variance(scale):
    ...     return 2 * scale**2
    >>> variance(-1)
    Traceback (most recent call last):
    ...
    privlab.errors.PrivlabError: scale must be in (0, inf), got -1
    """

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        unknown = sorted(set(constraints) - set(signature.parameters))
        if unknown:
            raise TypeError(f"validate_params of {fn.__qualname__} names no argument {', '.join(unknown)}")

        @functools.wraps(fn)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind_partial(*args, **kwargs)
            except TypeError:  # a call Python refuses (an unknown keyword): its own error
                return fn(*args, **kwargs)
            given = bound.arguments
            for name, constraint in constraints.items():
                if name in given:
                    given[name] = constraint.check(name, given[name])
            for relation in relations:  # over the arguments given (the others keep their defaults)
                if all(name in given for name in relation.names()):
                    relation.check("", given)
            return fn(*bound.args, **bound.kwargs)

        checked.constraints = MappingProxyType(dict(constraints))  # type: ignore[attr-defined]
        checked.relations = tuple(relations)  # type: ignore[attr-defined]
        _DECLARED[f"{fn.__module__}.{fn.__qualname__}"] = checked
        return checked  # type: ignore[return-value]

    return decorate


def declared() -> dict[str, Callable[..., Any]]:
    """Every function declared with `validate_params` so far (its module imported), by qualified name."""
    return dict(_DECLARED)


def check_real(
    name: str, value, *, low=None, high=None, low_open=False, high_open=False, exclude: Iterable[float] = ()
) -> float:
    """Return ``value`` as a float after checking it is finite and in range.

    ``low``/``high`` are bounds (``None`` = unbounded); ``*_open`` make them strict; ``exclude``
    leaves points out (`privlab.constraints.Interval`, the same check as a config's ``Real``).
    """
    return Interval(float, low, high, low_open=low_open, high_open=high_open, exclude=exclude).check(name, value)


def check_int(name: str, value, *, low=None, high=None, exclude: Iterable[int] = ()) -> int:
    """Return ``value`` as an int after checking it is an integer in [low, high], not one of ``exclude``
    (`privlab.constraints.Interval`, the same check as a config's ``Int``)."""
    return Interval(int, low, high, exclude=exclude).check(name, value)


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
