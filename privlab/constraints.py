"""The constraint vocabulary: what one value may be, written once.

An `Interval` (integers or reals, closed, open or half-open, a resource limit with its reason)
and a set of `Options` serve both sides of privlab: the config contracts of
`privlab.params` (``Int``, ``Real``, ``Choice`` hold one) and the library's argument checks of
`privlab._validation` (``check_int``, ``check_real``, ``check_choice`` build one), as
scikit-learn's ``Interval``/``StrOptions`` serve both ``validate_params`` and its estimators. A
constraint also says which values break it and which lie just inside it (`Constraint.invalid`,
`Constraint.valid`): the generated bad-input suite derives its cases from the same declaration
that checks them.

>>> Interval(int, 2, 10**6, limit="grid points").check("rho1_points", 1)
Traceback (most recent call last):
...
privlab._validation.PrivlabError: rho1_points must be an integer in [2, 1,000,000], got 1
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ._validation import PrivlabError, _fmt

__all__ = ["Constraint", "Interval", "Options"]


class Constraint:
    """What one value may be: ``check(name, value)`` returns the value (converted) or raises
    PrivlabError in one line naming ``name``; ``describe()`` says what is allowed."""

    def describe(self) -> str:
        raise NotImplementedError

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
    ``float`` (a finite real). ``nonzero`` leaves 0 out; ``exclude`` leaves out other points where
    the quantity is undefined (p = 1/2 in Warner's randomized response, where 2p - 1 divides).
    ``limit`` says why ``high`` is what it is when it is a resource limit (e.g. "points held in
    memory") and appears in the message.

    >>> Interval(float, 0, 1, exclude=(0.5,)).check("p", 0.5)
    Traceback (most recent call last):
    ...
    privlab._validation.PrivlabError: p must be in [0, 1] other than 0.5, got 0.5
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
        self.exclude = tuple(kind(x) for x in exclude)

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

    def describe(self) -> str:
        others = ([0] if self.nonzero else []) + [x for x in self.exclude if not (self.nonzero and x == 0)]
        but = f" other than {', '.join(_number(x, self.integer) for x in others)}" if others else ""
        if self.integer:
            where = "" if self.low is None and self.high is None else f" in {self.interval()}"
            return f"an integer{where}{but}"
        return f"in {self.interval()}{but}"

    def _in(self) -> str:
        """`` in <interval>`` where the interval bounds anything (the wrong-type messages)."""
        bounded = self.low is not None or self.high is not None or self.nonzero or self.exclude
        return f" in {self.interval()}" if bounded else ""

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
            yield "an excluded point", x

    def valid(self) -> Iterator[tuple[str, Any]]:
        for bound, is_open in ((self.low, self.low_open), (self.high, self.high_open)):
            if bound is None or is_open or (self.nonzero and bound == 0) or abs(bound) >= 10**7:
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
