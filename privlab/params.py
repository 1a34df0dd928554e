"""The parameter contract: what every config key of an experiment may hold.

Each experiment declares its parameters beside its function (``params=`` of
`privlab.registry.experiment`) with the specs below; a nested mapping declares a nested
config block. After Hydra composes a config, `validate` checks every key against the
contract *before anything runs*: an undeclared key, a value of the wrong type, out of
range or not among the allowed choices ends in one line naming the parameter as the user
writes it (``mc.trials``, ``sk_sizes[2]``) and what is allowed.

>>> validate({"rho2": Real(0, 1, low_open=True, high_open=True)}, {"rho2": 1.5})
Traceback (most recent call last):
...
privlab._validation.PrivlabError: rho2 must be in (0, 1), got 1.5
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from ._validation import PrivlabError, _fmt
from .constraints import Constraint, Interval, Options

__all__ = ["Spec", "Int", "Real", "Bool", "Str", "Choice", "List", "Optional", "Free", "Printed", "MapOf", "validate"]


class Spec:
    """One parameter's contract. ``check(name, value)`` returns the value or raises PrivlabError;
    ``invalid()``/``valid()`` give the values it refuses and those just inside it (the bad-input
    suite's cases, derived from the same declaration)."""

    def check(self, name: str, value: Any) -> Any:
        raise NotImplementedError

    def allowed(self) -> str:
        raise NotImplementedError

    def invalid(self) -> Iterator[tuple[str, Any]]:
        return iter(())

    def valid(self) -> Iterator[tuple[str, Any]]:
        return iter(())


class _Constrained(Spec):
    """A parameter checked by one `privlab.constraints.Constraint` (the library's checks use the same)."""

    constraint: Constraint

    def allowed(self) -> str:
        return self.constraint.describe()

    def check(self, name: str, value: Any) -> Any:
        return self.constraint.check(name, value)

    def invalid(self) -> Iterator[tuple[str, Any]]:
        return self.constraint.invalid()

    def valid(self) -> Iterator[tuple[str, Any]]:
        return self.constraint.valid()


class Int(_Constrained):
    """An integer in ``[low, high]`` (a YAML float such as 1e10 counts when integral).

    ``limit`` says why ``high`` is what it is when it is a resource limit
    (e.g. "points held in memory"), and appears in the message.
    """

    constraint: Interval

    def __init__(
        self, low: int | None = None, high: int | None = None, *, limit: str = "", nonzero: bool = False
    ) -> None:
        self.constraint = Interval(int, low, high, limit=limit, nonzero=nonzero)


class Real(_Constrained):
    """A finite real number in a closed, open or half-open interval."""

    constraint: Interval

    def __init__(
        self, low: float | None = None, high: float | None = None, *, low_open: bool = False, high_open: bool = False
    ) -> None:
        self.constraint = Interval(float, low, high, low_open=low_open, high_open=high_open)


class Bool(Spec):
    def allowed(self) -> str:
        return "true or false"

    def check(self, name: str, value: Any) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise PrivlabError(f"{name} must be true or false, got {_fmt(value)}")
        return bool(value)

    def invalid(self) -> Iterator[tuple[str, Any]]:
        yield "not a bool", "maybe"


class Str(Spec):
    """A string (non-empty unless ``empty``)."""

    def __init__(self, *, empty: bool = False) -> None:
        self.empty = empty

    def allowed(self) -> str:
        return "a string" if self.empty else "a non-empty string"

    def check(self, name: str, value: Any) -> str:
        if not isinstance(value, str) or (not self.empty and not value):
            raise PrivlabError(f"{name} must be {self.allowed()}, got {_fmt(value)}")
        return value


class Choice(_Constrained):
    """One of a fixed set of values (strings, numbers)."""

    constraint: Options

    def __init__(self, *values: Any) -> None:
        self.constraint = Options(values)

    @property
    def values(self) -> tuple[Any, ...]:
        return self.constraint.values


class List(Spec):
    """A list whose elements each meet ``of``; ``min_len``/``max_len`` bound its length."""

    def __init__(
        self, of: Spec | Mapping[str, Any], *, min_len: int = 1, max_len: int | None = None, unique: bool = False
    ) -> None:
        self.of, self.min_len, self.max_len, self.unique = of, min_len, max_len, unique

    def allowed(self) -> str:
        inner = self.of.allowed() if isinstance(self.of, Spec) else "a mapping"
        size = f"at least {self.min_len}" if self.max_len is None else f"{self.min_len} to {self.max_len}"
        return f"a list of {size} element(s), each {inner}" + (", distinct" if self.unique else "")

    def check(self, name: str, value: Any) -> list[Any]:
        if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
            raise PrivlabError(f"{name} must be {self.allowed()}, got {_fmt(value)}")
        items = list(value)
        if len(items) < self.min_len or (self.max_len is not None and len(items) > self.max_len):
            raise PrivlabError(f"{name} must be {self.allowed()}, got {len(items)} element(s)")
        out = [_check(self.of, f"{name}[{i}]", v) for i, v in enumerate(items)]
        if self.unique and len({repr(v) for v in out}) != len(out):
            raise PrivlabError(f"{name} must not repeat an element, got {_fmt(items)}")
        return out

    def invalid(self) -> Iterator[tuple[str, Any]]:
        yield "a word", "abc"
        if self.min_len >= 1:
            yield "an empty list", []
        inner = next(iter(self.of.invalid()), None) if isinstance(self.of, Spec) else None
        if inner is not None and not isinstance(inner[1], list):
            yield "a bad element", [inner[1]]


class Optional(Spec):
    """``None`` (null in YAML; its meaning documented beside the key) or a value meeting ``of``."""

    def __init__(self, of: Spec) -> None:
        self.of = of

    def allowed(self) -> str:
        return f"null or {self.of.allowed()}"

    def check(self, name: str, value: Any) -> Any:
        return None if value is None else self.of.check(name, value)

    def invalid(self) -> Iterator[tuple[str, Any]]:
        return ((what, v) for what, v in self.of.invalid() if v is not None)

    def valid(self) -> Iterator[tuple[str, Any]]:
        return self.of.valid()


class Free(Spec):
    """Anything: for blocks that are not parameters (the paper's printed values)."""

    def allowed(self) -> str:
        return "anything"

    def check(self, name: str, value: Any) -> Any:
        return value


class Printed(Free):
    """The block of what the paper prints (``printed:``), which an experiment's claims compare with:
    free in form, but there (a verdict reads it)."""

    def allowed(self) -> str:
        return "the block of the paper's printed values its claims compare with (keep it; override its entries)"


class MapOf(Spec):
    """A mapping from free names (``keys`` restricts them) to values meeting ``of``."""

    def __init__(self, of: Spec | Mapping[str, Any], *, keys: Spec | None = None, min_len: int = 1) -> None:
        self.of, self.keys, self.min_len = of, keys, min_len

    def allowed(self) -> str:
        return f"a mapping of at least {self.min_len} name(s)"

    def check(self, name: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise PrivlabError(f"{name} must be {self.allowed()}, got {_fmt(value)}")
        if len(value) < self.min_len:
            raise PrivlabError(f"{name} must be {self.allowed()}, got {len(value)}")
        out = {}
        for key, v in value.items():
            if self.keys is not None:
                self.keys.check(f"a name under {name}", key)
            out[key] = _check(self.of, f"{name}.{key}", v)
        return out


def _check(spec: Spec | Mapping[str, Any] | Callable[..., Any], name: str, value: Any) -> Any:
    if isinstance(spec, Mapping):
        return validate(spec, value, prefix=f"{name}.")
    if isinstance(spec, Spec):
        return spec.check(name, value)
    raise TypeError(f"the contract of {name} must be a privlab.params spec or a mapping, got {spec!r}")


def validate(schema: Mapping[str, Any], config: Any, *, prefix: str = "", where: str = "") -> dict[str, Any]:
    """Check ``config`` (a mapping) against ``schema``; return the checked values.

    Every key of ``config`` must be declared and every declared key present (a spec of
    `Optional` still needs the key; its value may be null).
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
    return spec.allowed() if isinstance(spec, Spec) else "a mapping"


def describe(schema: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """``(parameter, what is allowed)`` for every declared key, nested blocks flattened."""
    rows: list[tuple[str, str]] = []
    for key, spec in schema.items():
        if isinstance(spec, Mapping):
            rows += describe(spec, f"{prefix}{key}.")
        else:
            rows.append((f"{prefix}{key}", _describe(spec)))
    return rows
