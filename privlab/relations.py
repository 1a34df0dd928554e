"""Constraints over several parameters: what each value may be is `privlab.constraints`; how values relate is here.

A `Relation` is a `privlab.constraints.Constraint` whose value is a config (or the block it reads):
``check(name, config)`` (``name``: where the config sits, ``""`` for the whole one) returns the config
or raises one line naming its parameters; ``describe()`` says what it requires.

An experiment declares its relations beside its parameters (``relations=`` of
`privlab.registry.experiment`)::

    relations=(Ordered("rho1_min", "rho1_max", "rho2"), Subset("claim_rho2", of="rho2_grid"),
               Product("mc.chunk", "domain_size", high=MAX_CELLS, limit="likelihoods held in memory"))

After the single parameters pass their specs, every relation is checked on the composed config
(`check_relations`), for every job of a sweep before any job runs, and a broken one ends in one
line naming the parameters and their values. Each relation also derives the overrides that
break it (`Relation.violations`), so the generated bad-input suite covers relations as it covers
single parameters. Names are config paths as a user writes them: ``mc.chunk``, ``sizes[0]``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from .constraints import Constraint, Int, List, MapOf, Optional, Real
from .errors import PrivlabError
from .errors import fmt as _fmt

__all__ = ["Relation", "Ordered", "Each", "Subset", "Cost", "Product", "lookup", "check_relations", "memory_budget"]

_TOKEN = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


def _tokens(path: str) -> list[str | int]:
    out: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"bad config path {path!r}")
        out.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    return out


def lookup(config: Any, path: str) -> Any:
    """The value at ``path`` (``a.b``, ``sizes[0]``, ``gap_settings[1][0]``) of a config; KeyError if absent,
    None under a block that is null (switched off)."""
    value = config
    for token in _tokens(path):
        if value is None:  # a block switched off (null): nothing under it to relate
            return None
        if isinstance(token, int):
            if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence) or token >= len(value):
                raise KeyError(path)
            value = value[token]
        else:
            if not isinstance(value, Mapping) or token not in value:
                raise KeyError(path)
            value = value[token]
    return value


def _join(prefix: str, name: str) -> str:
    if not prefix:
        return name
    return prefix + name if name.startswith("[") else f"{prefix}.{name}"


def _numbers(name: str, value: Any) -> list[tuple[str, float]]:
    """``(path, number)`` for a number, or for each number of a list (or mapping of lists) of them."""
    if isinstance(value, Mapping):
        return [item for key, v in value.items() for item in _numbers(f"{name}.{key}", v)]
    if isinstance(value, (list, tuple)):
        return [item for i, v in enumerate(value) for item in _numbers(f"{name}[{i}]", v)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [(name, value)]
    return []


def _show(x: float) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


class Relation(Constraint):
    """A constraint over several parameters: ``check(name, config)`` returns ``config`` or raises
    PrivlabError in one line naming them (``name``, where the config sits, is "" for a whole one)."""

    def names(self) -> tuple[str, ...]:
        """The config paths the relation reads."""
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def check(self, name: Any, value: Any = None) -> Any:
        """``config`` if it keeps the relation, else one PrivlabError line (``check(config)``, the
        one-argument form of before, is kept for one release)."""
        config = name if value is None and isinstance(name, Mapping) else value
        self.holds(config)
        return config

    def holds(self, config: Mapping[str, Any]) -> None:
        """Raise PrivlabError in one line naming the parameters if ``config`` breaks the relation."""
        raise NotImplementedError

    def violations(
        self, config: Mapping[str, Any], schema: Mapping[str, Any] | None = None
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(what, {path: value})``: overrides of ``config`` (a valid config) that break the relation,
        each value allowed on its own by its spec in ``schema`` (the experiment's ``params``). The
        bad-input suite runs them."""
        return iter(())

    def within(self, prefix: str) -> Relation:
        """The same relation with every path under ``prefix`` (used by `Each`)."""
        raise NotImplementedError


class Ordered(Relation):
    """``names[0] < names[1] < ...`` (``<=`` with ``strict=False``).

    A name may hold a list (or a mapping of lists) of numbers: then every number of it must
    keep the order (``Ordered("panels", "rho2")``: every rho1 of every panel below rho2).
    """

    def __init__(self, *names: str, strict: bool = True) -> None:
        if len(names) < 2:
            raise ValueError("Ordered relates at least two parameters")
        self._names, self.strict = names, strict

    def names(self) -> tuple[str, ...]:
        return self._names

    def describe(self) -> str:
        return (" < " if self.strict else " <= ").join(self._names)

    def within(self, prefix: str) -> Ordered:
        return Ordered(*(_join(prefix, n) for n in self._names), strict=self.strict)

    def holds(self, config: Mapping[str, Any]) -> None:
        for left, right in zip(self._names, self._names[1:]):
            lows, highs = _numbers(left, lookup(config, left)), _numbers(right, lookup(config, right))
            if not lows or not highs:
                continue
            a_name, a = max(lows, key=lambda item: item[1])
            b_name, b = min(highs, key=lambda item: item[1])
            if a < b or (not self.strict and a == b):
                continue
            word = "smaller than" if self.strict else "at most"
            sign = ">=" if self.strict else ">"
            raise PrivlabError(f"{a_name} must be {word} {b_name}, got {a_name}={_show(a)} {sign} {b_name}={_show(b)}")

    def violations(self, config: Mapping[str, Any], schema: Mapping[str, Any] | None = None):
        for left, right in zip(self._names, self._names[1:]):
            a, b = lookup(config, left), lookup(config, right)
            lows, highs = _numbers(left, a), _numbers(right, b)
            if not lows or not highs:
                continue
            top, bottom = max(v for _, v in lows), min(v for _, v in highs)
            tries: list[tuple[str, dict[str, Any]]] = []
            if lows == [(left, a)] and highs == [(right, b)]:
                tries.append((f"{left} and {right} swapped", {left: b, right: a}))
            if highs == [(right, b)]:  # the right side lowered to (or below) the left's largest
                tries.append((f"{right} at {left}'s largest", {right: _below(top, b, self.strict)}))
            if lows == [(left, a)]:  # the left side raised to (or above) the right's smallest
                tries.append((f"{left} at {right}'s smallest", {left: _above(bottom, a, self.strict)}))
            for what, change in tries:
                if all(_allowed(schema, name, value) for name, value in change.items()):
                    yield what, change
                    break


def _below(x: float, like: Any, strict: bool) -> Any:
    """A value of ``like``'s kind that is not above ``x`` (strict) or below it (not strict)."""
    if isinstance(like, int):
        return int(x) if strict and float(x).is_integer() else math.floor(x) - (0 if strict else 1)
    return float(x) if strict else float(x) / 2


def _above(x: float, like: Any, strict: bool) -> Any:
    """A value of ``like``'s kind that is not below ``x`` (strict) or above it (not strict)."""
    if isinstance(like, int):
        return int(x) if strict and float(x).is_integer() else math.ceil(x) + (0 if strict else 1)
    if strict:
        return float(x)
    return float(x) + (1 - float(x)) / 2 if 0 <= x < 1 else float(x) * 2 + 1  # a probability stays one


def _allowed(schema: Mapping[str, Any] | None, name: str, value: Any) -> bool:
    """Does the spec that declares ``name`` allow ``value`` on its own (True where none is known)?"""
    spec = _spec_at(schema or {}, name)
    if spec is None or isinstance(spec, Mapping):
        return True
    try:
        spec.check(name, value)
    except PrivlabError:
        return False
    return True


class Each(Relation):
    """``relation`` for every element of the list (or every value of the mapping) at ``block``;
    the relation's names are relative to the element (``Each("gap_settings", Ordered("[0]", "[1]"))``)."""

    def __init__(self, block: str, relation: Relation) -> None:
        self.block, self.relation = block, relation

    def names(self) -> tuple[str, ...]:
        return (self.block,)

    def describe(self) -> str:
        return f"for each element of {self.block}: {self.relation.describe()}"

    def within(self, prefix: str) -> Each:
        return Each(_join(prefix, self.block), self.relation)

    def _elements(self, config: Mapping[str, Any]) -> list[tuple[str, Any]]:
        value = lookup(config, self.block)
        if isinstance(value, Mapping):
            return [(f"{self.block}.{k}", v) for k, v in value.items()]
        return [(f"{self.block}[{i}]", v) for i, v in enumerate(value or [])]

    def holds(self, config: Mapping[str, Any]) -> None:
        for path, _ in self._elements(config):
            self.relation.within(path).holds(config)

    def violations(self, config: Mapping[str, Any], schema: Mapping[str, Any] | None = None):
        elements = self._elements(config)
        if not elements:
            return
        path, _ = elements[0]
        for what, change in self.relation.within(path).violations(config, schema):
            block = _deep_copy(lookup(config, self.block))
            for name, value in change.items():
                _assign(block, _tokens(name[len(self.block) :]), value)
            yield f"{path}: {what}", {self.block: block}


class Subset(Relation):
    """Every element of ``name`` (a list, the keys of a mapping, or one value) is one of ``of``'s."""

    def __init__(self, name: str, *, of: str) -> None:
        self.name, self.of = name, of

    def names(self) -> tuple[str, ...]:
        return (self.name, self.of)

    def describe(self) -> str:
        return f"{self.name} within {self.of}"

    def within(self, prefix: str) -> Subset:
        return Subset(_join(prefix, self.name), of=_join(prefix, self.of))

    @staticmethod
    def _items(value: Any) -> list[Any]:
        if isinstance(value, Mapping):
            return list(value)
        return list(value) if isinstance(value, (list, tuple)) else [value]

    def holds(self, config: Mapping[str, Any]) -> None:
        allowed = self._items(lookup(config, self.of))
        for item in self._items(lookup(config, self.name)):
            if item not in allowed:
                shown = ", ".join(map(_fmt, allowed)) or "none"
                raise PrivlabError(f"{self.name} must be among the {self.of} ({shown}), got {_fmt(item)}")

    def violations(self, config: Mapping[str, Any], schema: Mapping[str, Any] | None = None):
        value, allowed = lookup(config, self.name), self._items(lookup(config, self.of))
        if isinstance(value, Mapping) or not allowed:
            return
        outside = _outside(allowed)
        if outside is not None:
            yield (
                f"{self.name} outside {self.of}",
                {self.name: [*value, outside] if isinstance(value, list) else outside},
            )


def _outside(allowed: list[Any]) -> Any:
    """A value of the same kind as ``allowed``'s that is not among them (between two of them for reals)."""
    first = allowed[0]
    if isinstance(first, str):
        return "no_such_" + first
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        numbers = sorted(v for v in allowed if isinstance(v, (int, float)))
        if isinstance(first, int) and all(isinstance(v, int) for v in numbers):
            return numbers[-1] + 1
        gaps = [(lo + hi) / 2 for lo, hi in zip(numbers, numbers[1:]) if (lo + hi) / 2 not in numbers]
        return gaps[0] if gaps else (first / 2 if first / 2 not in numbers else None)
    return None


class Cost(Relation):
    """A resource a setting takes, ``fn(*values)``, at most ``high``: ``what`` names it, ``limit``
    says why (``Cost("domain_size^4", lambda s: s**4, "domain_size", high=2**27, limit="cells of F")``).

    The check computes the cost from the parameters alone, before anything is allocated."""

    def __init__(self, what: str, fn: Callable[..., float], *names: str, high: float, limit: str) -> None:
        self.what, self.fn, self._names, self.high, self.limit = what, fn, names, high, limit

    def names(self) -> tuple[str, ...]:
        return self._names

    def describe(self) -> str:
        return f"{self.what} at most {_show(self.high)} ({self.limit})"

    def within(self, prefix: str) -> Cost:
        return Cost(self.what, self.fn, *(_join(prefix, n) for n in self._names), high=self.high, limit=self.limit)

    def cost(self, config: Mapping[str, Any]) -> float:
        return self.fn(*(lookup(config, n) for n in self._names))

    def holds(self, config: Mapping[str, Any]) -> None:
        if any(lookup(config, n) is None for n in self._names):  # null: switched off or the default
            return
        cost = self.cost(config)
        if cost > self.high:
            given = ", ".join(f"{n}={_fmt(lookup(config, n))}" for n in self._names)
            raise PrivlabError(
                f"{self.what} = {_show(cost)} must be at most {_show(self.high)} ({self.limit}); "
                f"lower {' or '.join(self._names)} (got {given})"
            )

    def violations(self, config: Mapping[str, Any], schema: Mapping[str, Any] | None = None):
        """Each parameter raised alone to the largest value its own spec in ``schema`` allows,
        where that takes the cost past the bound."""
        largest = {name: _largest(_spec_at(schema or {}, name))[:1] for name in self._names}
        tries = [{name: values[0]} for name, values in largest.items() if values]
        if len(tries) > 1:
            tries.append({k: v for t in tries for k, v in t.items()})  # all raised together
        for change in tries:
            changed = _deep_copy(dict(config))
            for name, value in change.items():
                _assign(changed, _tokens(name), value)
            try:
                over = self.cost(changed) > self.high
            except (TypeError, ValueError, OverflowError):
                continue
            if over:
                yield f"{' and '.join(change)} raised past the bound of {self.what}", change
                return


class Product(Cost):
    """The product of parameters (a list counts by its length) at most ``high``."""

    def __init__(self, *names: str, high: float, limit: str) -> None:
        super().__init__(" x ".join(names), _product, *names, high=high, limit=limit)

    def within(self, prefix: str) -> Product:
        return Product(*(_join(prefix, n) for n in self._names), high=self.high, limit=self.limit)


def _product(*values: Any) -> float:
    return math.prod(len(v) if isinstance(v, (list, tuple, Mapping)) else v for v in values)


def _spec_at(schema: Mapping[str, Any], path: str) -> Any:
    """The spec that declares ``path`` in a params mapping (None if none does)."""
    spec: Any = schema
    for token in _tokens(path):
        while isinstance(spec, Optional):
            spec = spec.of
        if isinstance(spec, Mapping):
            spec = spec.get(token) if isinstance(token, str) else None
        elif isinstance(spec, List) and isinstance(token, int):
            spec = spec.of
        elif isinstance(spec, MapOf) and isinstance(token, str):
            spec = spec.of
        else:
            return None
    return spec


def _largest(spec: Any) -> list[Any]:
    """The largest values ``spec`` allows (a list of its largest element for a list of numbers)."""
    if isinstance(spec, Optional):
        return _largest(spec.of)
    if isinstance(spec, List) and isinstance(spec.of, Constraint):
        return [[v] for v in _largest(spec.of)]
    if isinstance(spec, (Int, Real)) and spec.high is not None and not spec.high_open:
        return [spec.kind(spec.high)]
    return []


def memory_budget() -> int:
    """Half of this machine's physical memory, in bytes: what one run may plan to hold at once."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not a POSIX system: assume 8 GiB
        total = 8 << 30
    return int(total) // 2


def _deep_copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_deep_copy(v) for v in value]
    return value


def _assign(target: Any, tokens: list[str | int], value: Any) -> None:
    for token in tokens[:-1]:
        target = target[token]
    target[tokens[-1]] = value


def check_relations(relations: Sequence[Relation], config: Mapping[str, Any], *, where: str = "") -> None:
    """Check every relation on ``config`` (checked values of single parameters); one line on the first broken."""
    for relation in relations:
        try:
            relation.holds(config)
        except KeyError as exc:  # a relation over a key the config lacks is a contract bug, not a user error
            what = f"relation {relation.describe()}{where} reads {exc.args[0]!r}, which is not a parameter"
            raise TypeError(what) from None
