"""The one constraint protocol: what a value may be, written once, for configs and library calls alike.

A `Constraint` says what one value may be (``describe``), checks it (``check(name, value)``: the
value, converted, or one `PrivlabError` line naming ``name``), and derives the values that break it
and those just inside it (``invalid``, ``valid``): the generated bad-input suite takes its cases from
the same declaration that checks them. As scikit-learn's ``Interval``/``StrOptions`` serve both
``validate_params`` and its estimators, these serve both sides of privlab:

* a config's contract (``params=`` of an experiment) is a mapping of constraints: `Int`, `Real`,
  `Choice`, `Bool`, `Str`, `List`, `Optional`, `MapOf`, `Free`, a nested mapping for a nested block
  (`Block`); `validate` checks a config against it;
* a relation between parameters (`privlab.relations`) is a constraint over several of them;
* the library's public entry points declare theirs with `privlab.validation.validate_params`, and the
  argument checks (``check_int``, ``check_real``, ``check_choice``) build one.

A point inside an interval that the mechanism cannot take is left out with ``exclude=`` (Warner's
design has no estimator at p = 1/2: ``Real(0, 1, exclude=(0.5,))``).

>>> Interval(int, 2, 10**6, limit="grid points").check("rho1_points", 1)
Traceback (most recent call last):
...
privlab.errors.PrivlabError: rho1_points must be an integer in [2, 1,000,000], got 1
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from .errors import PrivlabError
from .errors import fmt as _fmt

__all__ = [
    "Constraint",
    "Interval",
    "Options",
    "Int",
    "Real",
    "Choice",
    "Bool",
    "Str",
    "List",
    "Optional",
    "Free",
    "MapOf",
    "Block",
    "validate",
    "describe",
]


class Constraint:
    """What one value may be: ``check(name, value)`` returns the value (converted) or raises
    PrivlabError in one line naming ``name``; ``describe()`` says what is allowed."""

    def describe(self) -> str:
        if type(self).allowed is not Constraint.allowed:  # a constraint written with the old name
            return self.allowed()
        raise NotImplementedError

    def allowed(self) -> str:
        """`describe` under the name privlab.params.Spec gave it (kept for one release)."""
        return self.describe()

    def check(self, name: str, value: Any) -> Any:
        raise NotImplementedError

    def invalid(self) -> Iterator[tuple[str, Any]]:
        """``(what, value)`` pairs the constraint must refuse (the bad-input suite's cases)."""
        return iter(())

    def valid(self) -> Iterator[tuple[str, Any]]:
        """``(what, value)`` pairs just inside the constraint (its bounds, where they are values)."""
        return iter(())


def _number(x: float | int, integer: bool) -> str:
    return f"{x:,}" if integer else f"{x:g}"


class Interval(Constraint):
    """A number in ``[low, high]`` (``None``: unbounded), each end closed unless ``*_open``.

    ``kind`` is ``int`` (an integer; a float such as YAML's 1e10 counts when integral) or
    ``float`` (a finite real). ``nonzero`` leaves 0 out, ``exclude`` any other points (p = 1/2
    where a design has no estimator there). ``limit`` says why ``high`` is what it is when it is a
    resource limit (e.g. "points held in memory") and appears in the message.
    """

    def __init__(
        self,
        kind: type,
        low: float | None = None,
        high: float | None = None,
        *,
        low_open: bool = False,
        high_open: bool = False,
        nonzero: bool = False,
        limit: str = "",
        exclude: Iterable[float] = (),
    ) -> None:
        if kind not in (int, float):
            raise TypeError(f"an Interval holds int or float, not {kind!r}")
        self.kind, self.low, self.high = kind, low, high
        self.low_open, self.high_open, self.nonzero, self.limit = low_open, high_open, nonzero, limit
        self.exclude = tuple(sorted(exclude))

    @property
    def integer(self) -> bool:
        return self.kind is int

    def interval(self) -> str:
        """The interval as written in messages: ``[2, 1,000,000]``, ``(0, 1)``, ``[0, inf)``."""
        lo = "-inf" if self.low is None else _number(self.low, self.integer)
        hi = "inf" if self.high is None else _number(self.high, self.integer)
        if self.integer:  # integers: both ends as reached, unbounded ends written as inf
            return f"[{lo}, {hi}]"
        left = "(" if self.low_open or self.low is None else "["
        right = ")" if self.high_open or self.high is None else "]"
        return f"{left}{lo}, {hi}{right}"

    def _other_than(self) -> str:
        points = [0, *self.exclude] if self.nonzero else list(self.exclude)
        return " other than " + ", ".join(_number(x, self.integer) for x in points) if points else ""

    def describe(self) -> str:
        if self.integer:
            where = "" if self.low is None and self.high is None else f" in {self.interval()}"
            return f"an integer{where}" + self._other_than()
        return f"in {self.interval()}" + self._other_than()

    def _in(self) -> str:
        """`` in <interval>`` where the interval bounds anything (the wrong-type messages)."""
        bounded = self.low is not None or self.high is not None or self.nonzero or self.exclude
        return f" in {self.interval()}{self._other_than()}" if bounded else ""

    def check(self, name: str, value: Any) -> Any:
        if self.integer:
            return self._check_int(name, value)
        if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
            raise PrivlabError(f"{name} must be a real number{self._in()}, got {_fmt(value)}")
        x = float(value)
        if not math.isfinite(x):
            raise PrivlabError(f"{name} must be a finite number{self._in()}, got {_fmt(value)}")
        if not self.contains(x):
            raise PrivlabError(f"{name} must be {self.describe()}, got {_fmt(value)}")
        return x

    def _check_int(self, name: str, value: Any) -> int:
        if isinstance(value, bool):
            raise PrivlabError(f"{name} must be {self.describe()}, got {_fmt(value)}")
        if isinstance(value, (numbers.Integral, np.integer)):
            k = int(value)
        elif isinstance(value, (numbers.Real, np.floating)) and math.isfinite(value) and float(value).is_integer():
            k = int(float(value))  # 1e10 from a YAML file is a float but means an integer
        else:
            raise PrivlabError(f"{name} must be {self.describe()}, got {_fmt(value)}")
        if self.high is not None and k > self.high and self.limit:
            raise PrivlabError(f"{name} must be at most {self.high:,} ({self.limit}), got {_fmt(value)}")
        if not self.contains(k):
            raise PrivlabError(f"{name} must be {self.describe()}, got {_fmt(value)}")
        return k

    def contains(self, x: float) -> bool:
        """Is the number ``x`` (already of the right kind) inside the interval?"""
        bad_low = self.low is not None and (x <= self.low if self.low_open else x < self.low)
        bad_high = self.high is not None and (x >= self.high if self.high_open else x > self.high)
        return not (bad_low or bad_high or (self.nonzero and x == 0) or x in self.exclude)

    def invalid(self) -> Iterator[tuple[str, Any]]:
        yield "a word", "abc"
        if self.integer:
            yield "a fraction", 2.5
        yield "NaN", math.nan
        if not self.integer:
            yield "inf", math.inf
        if self.low is not None:
            yield "at or below the bound", self.low if self.low_open else self.low - 1
        if self.high is not None:
            yield "at or above the bound", self.high if self.high_open else self.high + 1
            if self.integer:
                yield "huge", 10**30
        if self.nonzero and self.contains(1) and (self.low is None or self.low < 0):
            yield "zero", 0
        for x in self.exclude:
            yield f"the excluded point {_number(x, self.integer)}", self.kind(x)

    def valid(self) -> Iterator[tuple[str, Any]]:
        for bound, is_open in ((self.low, self.low_open), (self.high, self.high_open)):
            left_out = (self.nonzero and bound == 0) or bound in self.exclude
            if bound is None or is_open or left_out or abs(bound) >= 10**7:
                continue
            yield f"the bound {_number(bound, self.integer)}", self.kind(bound)


class Options(Constraint):
    """One of a fixed set of values (strings, numbers; a bool is never one of them)."""

    def __init__(self, values: Iterable[Any]) -> None:
        self.values = tuple(values)

    def describe(self) -> str:
        return "one of " + ", ".join(map(str, self.values))

    def check(self, name: str, value: Any) -> Any:
        if isinstance(value, bool) or not _member(value, self.values):
            raise PrivlabError(f"{name} must be {self.describe()}; got {_fmt(value)}")
        return value

    def invalid(self) -> Iterator[tuple[str, Any]]:
        yield "an unknown choice", "no_such_choice"


def _member(value: Any, values: tuple[Any, ...]) -> bool:
    try:
        return value in values
    except (TypeError, ValueError):  # an unhashable or array-like value is none of them
        return False


# ---------------------------------------------------------------------------------------
# the constraints a config's contract is written in
# ---------------------------------------------------------------------------------------
class Int(Interval):
    """An integer in ``[low, high]`` (a YAML float such as 1e10 counts when integral).

    ``limit`` says why ``high`` is what it is when it is a resource limit
    (e.g. "points held in memory"), and appears in the message.
    """

    def __init__(
        self,
        low: int | None = None,
        high: int | None = None,
        *,
        limit: str = "",
        nonzero: bool = False,
        exclude: Iterable[int] = (),
    ) -> None:
        super().__init__(int, low, high, limit=limit, nonzero=nonzero, exclude=exclude)

    @property
    def constraint(self) -> Interval:
        """The interval itself (privlab.params' Int held one; kept for one release)."""
        return self


class Real(Interval):
    """A finite real number in a closed, open or half-open interval, less the points of ``exclude``."""

    def __init__(
        self,
        low: float | None = None,
        high: float | None = None,
        *,
        low_open: bool = False,
        high_open: bool = False,
        exclude: Iterable[float] = (),
    ) -> None:
        super().__init__(float, low, high, low_open=low_open, high_open=high_open, exclude=exclude)

    @property
    def constraint(self) -> Interval:
        """The interval itself (privlab.params' Real held one; kept for one release)."""
        return self


class Choice(Options):
    """One of a fixed set of values (strings, numbers)."""

    def __init__(self, *values: Any) -> None:
        super().__init__(values)

    @property
    def constraint(self) -> Options:
        """The options themselves (privlab.params' Choice held them; kept for one release)."""
        return self


class Bool(Constraint):
    """true or false."""

    def describe(self) -> str:
        return "true or false"

    def check(self, name: str, value: Any) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise PrivlabError(f"{name} must be true or false, got {_fmt(value)}")
        return bool(value)

    def invalid(self) -> Iterator[tuple[str, Any]]:
        yield "not a bool", "maybe"


class Str(Constraint):
    """A string (non-empty unless ``empty``)."""

    def __init__(self, *, empty: bool = False) -> None:
        self.empty = empty

    def describe(self) -> str:
        return "a string" if self.empty else "a non-empty string"

    def check(self, name: str, value: Any) -> str:
        if not isinstance(value, str) or (not self.empty and not value):
            raise PrivlabError(f"{name} must be {self.describe()}, got {_fmt(value)}")
        return value


class List(Constraint):
    """A list whose elements each meet ``of``; ``min_len``/``max_len`` bound its length."""

    def __init__(
        self, of: Constraint | Mapping[str, Any], *, min_len: int = 1, max_len: int | None = None, unique: bool = False
    ) -> None:
        self.of, self.min_len, self.max_len, self.unique = of, min_len, max_len, unique

    def describe(self) -> str:
        inner = _describe(self.of)
        size = f"at least {self.min_len}" if self.max_len is None else f"{self.min_len} to {self.max_len}"
        return f"a list of {size} element(s), each {inner}" + (", distinct" if self.unique else "")

    def check(self, name: str, value: Any) -> list[Any]:
        if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
            raise PrivlabError(f"{name} must be {self.describe()}, got {_fmt(value)}")
        items = list(value)
        if len(items) < self.min_len or (self.max_len is not None and len(items) > self.max_len):
            raise PrivlabError(f"{name} must be {self.describe()}, got {len(items)} element(s)")
        out = [_check(self.of, f"{name}[{i}]", v) for i, v in enumerate(items)]
        if self.unique and len({repr(v) for v in out}) != len(out):
            raise PrivlabError(f"{name} must not repeat an element, got {_fmt(items)}")
        return out

    def invalid(self) -> Iterator[tuple[str, Any]]:
        yield "a word", "abc"
        if self.min_len >= 1:
            yield "an empty list", []
        inner = next(iter(self.of.invalid()), None) if isinstance(self.of, Constraint) else None
        if inner is not None and not isinstance(inner[1], list):
            yield "a bad element", [inner[1]]


class Optional(Constraint):
    """``None`` (null in YAML; its meaning documented beside the key) or a value meeting ``of``."""

    def __init__(self, of: Constraint) -> None:
        self.of = of

    def describe(self) -> str:
        return f"null or {self.of.describe()}"

    def check(self, name: str, value: Any) -> Any:
        return None if value is None else self.of.check(name, value)

    def invalid(self) -> Iterator[tuple[str, Any]]:
        return ((what, v) for what, v in self.of.invalid() if v is not None)

    def valid(self) -> Iterator[tuple[str, Any]]:
        return self.of.valid()


class Free(Constraint):
    """Anything: for blocks that are not parameters (the paper's printed values)."""

    def describe(self) -> str:
        return "anything"

    def check(self, name: str, value: Any) -> Any:
        return value


class Printed(Free):
    """The block of what the paper prints (``printed:``), which an experiment's claims compare with:
    free in form, but there (a verdict reads it)."""

    def describe(self) -> str:
        return "the block of the paper's printed values its claims compare with (keep it; override its entries)"


class MapOf(Constraint):
    """A mapping from free names (``keys`` restricts them) to values meeting ``of``."""

    def __init__(self, of: Constraint | Mapping[str, Any], *, keys: Constraint | None = None, min_len: int = 1) -> None:
        self.of, self.keys, self.min_len = of, keys, min_len

    def describe(self) -> str:
        return f"a mapping of at least {self.min_len} name(s)"

    def check(self, name: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise PrivlabError(f"{name} must be {self.describe()}, got {_fmt(value)}")
        if len(value) < self.min_len:
            raise PrivlabError(f"{name} must be {self.describe()}, got {len(value)}")
        out = {}
        for key, v in value.items():
            if self.keys is not None:
                self.keys.check(f"a name under {name}", key)
            out[key] = _check(self.of, f"{name}.{key}", v)
        return out


class Block(Constraint):
    """A nested config block: a mapping whose keys are exactly those of ``schema`` (a mapping of
    constraints, nested mappings for nested blocks), each value meeting its constraint."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema

    def describe(self) -> str:
        return "a mapping"

    def check(self, name: str, value: Any) -> dict[str, Any]:
        return validate(self.schema, value, prefix=f"{name}." if name else "")


def _check(spec: Constraint | Mapping[str, Any], name: str, value: Any) -> Any:
    if isinstance(spec, Mapping):
        return validate(spec, value, prefix=f"{name}.")
    if isinstance(spec, Constraint):
        return spec.check(name, value)
    raise TypeError(f"the contract of {name} must be a privlab.constraints.Constraint or a mapping, got {spec!r}")


def validate(schema: Mapping[str, Any], config: Any, *, prefix: str = "", where: str = "") -> dict[str, Any]:
    """Check ``config`` (a mapping) against ``schema`` (a mapping of constraints); return the checked values.

    Every key of ``config`` must be declared and every declared key present (a key declared
    `Optional` still needs to be there; its value may be null).
    """
    block = prefix[:-1] if prefix else "the config"
    if not isinstance(config, Mapping):
        raise PrivlabError(f"{block} must be a mapping of parameters, got {_fmt(config)}")
    for key in config:
        if key not in schema:
            allowed = ", ".join(sorted(schema)) or "none"
            raise PrivlabError(f"unknown parameter {prefix}{key!r}{where}; allowed here: {allowed}")
    out = {}
    for key, spec in schema.items():
        if key not in config:
            raise PrivlabError(f"parameter {prefix}{key}{where} is missing; it must be {_describe(spec)}")
        out[key] = _check(spec, f"{prefix}{key}", config[key])
    return out


def _describe(spec: Any) -> str:
    return spec.describe() if isinstance(spec, Constraint) else "a mapping"


def describe(schema: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """``(parameter, what is allowed)`` for every declared key, nested blocks flattened."""
    rows: list[tuple[str, str]] = []
    for key, spec in schema.items():
        if isinstance(spec, Mapping):
            rows += describe(spec, f"{prefix}{key}.")
        else:
            rows.append((f"{prefix}{key}", _describe(spec)))
    return rows
