"""The formula audit's toolkit: a formula as the paper prints it against one derived independently.

Every paper's ``privlab.<paper>.derivations`` keeps only what is its own: its symbol table (the
names a printed formula may use), its derivations and its table of cases (key -> checker). The
rest is here, written once:

- `Case`, one row of a ``formulas`` table, with the one schema `COLUMNS` every paper's table has;
- `parse`, a printed formula in sympy syntax over the paper's symbol table (bad text: one line
  naming the formula);
- `same`, whether two expressions are equal: sympy's simplification first, then agreement at
  seeded random points of the symbols' domain (deterministic);
- `value_at`, an expression at a numeric instance; `function`, a printed formula as a fast
  numeric (or exact rational) function for checks on a grid;
- `compare`, a printed formula against a derived expression as a `Case`; `grid_case`, a formula
  sympy cannot decide checked case by case on a grid against its defining conditions, as a `Case`
  whose ``detail`` names the method;
- `case_table` and `check_all`, the cases of a paper checked (in parallel through ``map_fn``, in
  a stable order) into its ``formulas`` table; `table_rows`, that table read back by a verdict.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._validation import MapFn, PrivlabError, check_callable, check_mapping, check_table, map_in_order

if TYPE_CHECKING:  # sympy is imported when a formula is first parsed: it is slow to import
    import sympy

__all__ = [
    "COLUMNS",
    "Case",
    "Checker",
    "Domain",
    "parse",
    "same",
    "value_at",
    "function",
    "describe",
    "compare",
    "grid_case",
    "case_table",
    "check_all",
    "table_rows",
    "POINTS",
    "RTOL",
    "ATOL",
]

#: How many seeded random points `same` compares two expressions at when sympy cannot decide, and
#: its tolerance there: ``|a - b| <= ATOL + RTOL * max(|a|, |b|)``.
POINTS, RTOL, ATOL = 64, 1e-9, 1e-12

#: ``domain(rng) -> {name: value}``: one random point of (some of) a paper's symbols, where the
#: default draw (by each symbol's sympy assumptions) does not fit, e.g. ``0 < rho1 < rho2 < 1``.
Domain = Callable[[np.random.Generator], Mapping[str, float]]


def _sp() -> Any:
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy

    return sympy


@dataclass(frozen=True)
class Case:
    """One displayed formula (or one part of it): printed beside derived, at one numeric instance.

    Attributes
    ----------
    key : str
        Its name in the paper's config and claims ledger (the row's key).
    printed : str
        The formula as the paper prints it (or as reconstructed where the text lost it).
    derived : str
        The same quantity derived independently (an expression, or what the check computed).
    instance : str
        The parameter values both are shown at (or the first case where they part).
    printed_value, derived_value : float
        Both at ``instance``; NaN where the formula is a statement with no value.
    match : bool
        Whether printed and derived agree (symbolically, at seeded points, or on a grid).
    detail : str
        How the comparison was made, or where the two part.
    """

    key: str
    printed: str
    derived: str
    instance: str
    printed_value: float
    derived_value: float
    match: bool
    detail: str = ""

    def __post_init__(self) -> None:
        # numpy scalars in, plain floats and bools out: every paper's table has the same dtypes
        for name in ("printed_value", "derived_value"):
            object.__setattr__(self, name, float(getattr(self, name)))
        object.__setattr__(self, "match", bool(self.match))

    def row(self) -> dict[str, Any]:
        """The table row: `COLUMNS` in order."""
        return asdict(self)


#: The columns of every paper's ``formulas`` table, in order.
COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Case))

#: A paper's check of one displayed formula: called with the printed entry of its key (or with no
#: argument where the paper prints none), it returns one `Case` or the `Case` of each part.
Checker = Callable[..., "Case | Sequence[Case]"]


def parse(text: Any, symbols: Mapping[str, Any], *, what: str = "printed formula") -> sympy.Expr:
    """A printed formula in sympy syntax, over the paper's symbol table only.

    Parameters
    ----------
    text : str
        The formula (``"exp(-Abs(x)/lam)/(2*lam)"``); a relation (``"o <= b*floor(F*S)"``) too.
    symbols : mapping of str to sympy objects
        The paper's symbol table: name -> `sympy.Symbol` (with its assumptions: positive, real,
        integer), or a function or constant a formula may call by that name (``lcm``, ``gamma``).
        A name here overrides sympy's own (``gamma``, ``S``, ``Q`` can be symbols).
    what : str
        The formula's name in an error message (``"the printed formula of eq2"``).

    Returns
    -------
    sympy expression (or relation)

    Raises
    ------
    PrivlabError
        One line naming the formula: empty or not a string, not readable by sympy, or using a
        symbol the table does not hold.
    """
    sp = _sp()
    if not isinstance(text, str) or not text.strip():
        raise PrivlabError(f"{what} must be a non-empty formula in sympy syntax, got {text!r}")
    try:
        expr = sp.sympify(text, locals=dict(symbols))
    except Exception as exc:  # sympify raises many kinds (SympifyError, SyntaxError, TokenError, TypeError)
        raise PrivlabError(f"{what} {text!r} is not a formula sympy can read ({type(exc).__name__})") from None
    if not isinstance(expr, sp.Basic):  # a bare function or class name ("exp", "O"), not a formula
        raise PrivlabError(f"{what} {text!r} is not a formula sympy can read (it names a {type(expr).__name__})")
    known = {name for name, v in symbols.items() if isinstance(v, sp.Symbol)}
    unknown = sorted({str(s) for s in getattr(expr, "free_symbols", ())} - known)
    if unknown:
        raise PrivlabError(
            f"{what} {text!r} uses unknown symbol(s) {', '.join(unknown)}; allowed: {', '.join(sorted(known))}"
        )
    return expr


def value_at(expr: Any, instance: Mapping[str, float]) -> float:
    """``expr`` at a numeric instance, its symbols matched by name.

    Parameters
    ----------
    expr : sympy expression (or a number)
    instance : mapping of str to float
        A value for every free symbol of ``expr`` (more are ignored).

    Returns
    -------
    float
        NaN where the expression is undefined there (a pole, a complex value).

    Raises
    ------
    PrivlabError
        When ``instance`` lacks a value for a symbol of ``expr``.
    """
    sp = _sp()
    expr = sp.sympify(expr)
    free = {s for s in expr.free_symbols if isinstance(s, sp.Symbol)}
    missing = sorted(str(s) for s in free if s.name not in instance)
    if missing:
        raise PrivlabError(f"instance lacks a value for {', '.join(missing)} of {str(expr)[:60]!r}")
    value = expr.subs({s: instance[s.name] for s in free}).evalf()
    try:
        out = complex(value)
    except (TypeError, ValueError):  # zoo, nan, an unevaluated relation
        return math.nan
    if out.imag != 0 or not math.isfinite(out.real):
        return math.nan
    return out.real


def _draw(symbol: Any, rng: np.random.Generator) -> float:
    """One random value of a symbol by its assumptions: integers 1..99, positive (negative) values
    log-uniform on [0.01, 100] (its negative), anything else uniform on [-20, 20]."""
    if symbol.is_integer:
        return float(rng.integers(1, 100) if symbol.is_positive else rng.integers(-50, 50))
    if symbol.is_positive:
        return float(10 ** rng.uniform(-2, 2))
    if symbol.is_negative:
        return float(-(10 ** rng.uniform(-2, 2)))
    return float(rng.uniform(-20, 20))


def _agree(a: float, b: float, rtol: float, atol: float) -> bool | None:
    """Equal within tolerance; None where both are undefined (no evidence either way)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return None if not (math.isfinite(a) or math.isfinite(b)) else False
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def same(
    a: Any,
    b: Any,
    *,
    points: int = POINTS,
    seed: int = 0,
    domain: Domain | None = None,
    at: Sequence[Mapping[str, float]] = (),
    rtol: float = RTOL,
    atol: float = ATOL,
) -> bool:
    """Are two expressions equal on their symbols' domain?

    First symbolically: the difference is 0 after sympy's ``cancel`` (decisive for rational
    functions), ``simplify``, or ``simplify`` of its expanded logarithms (sound: ``expand_log``
    uses the symbols' assumptions). Where sympy cannot show it, numerically: both sides agree
    within ``|a - b| <= atol + rtol max(|a|, |b|)`` at every point of ``at`` and at ``points``
    random points drawn with ``numpy.random.default_rng(seed)`` (so the answer is
    deterministic). A point where both sides are undefined is skipped; where only one is, they
    differ; if no point could be compared, they are not shown equal.

    Parameters
    ----------
    a, b : sympy expressions (or numbers)
    points : int
        Random points (default `POINTS` = 64).
    seed : int
        The seed of the random points.
    domain : callable, optional
        ``domain(rng) -> {name: value}``: a random point of the symbols it names (e.g.
        ``0 < rho1 < rho2 < 1``); other symbols are drawn by their assumptions (integers 1..99,
        positive ones log-uniform on [0.01, 100], real ones uniform on [-20, 20]).
    at : sequence of mappings
        Points checked besides the random ones (e.g. the paper's own grid of instances).
    rtol, atol : float
        The tolerance (defaults `RTOL` = 1e-9, `ATOL` = 1e-12).

    Returns
    -------
    bool
    """
    sp = _sp()
    a, b = sp.sympify(a), sp.sympify(b)
    if not (isinstance(a, sp.Expr) and isinstance(b, sp.Expr)):
        raise PrivlabError("same compares expressions, not relations: check a relation on a grid (grid_case)")
    diff = a - b
    if diff == 0 or sp.cancel(sp.together(diff)) == 0 or sp.simplify(diff) == 0:
        return True
    if diff.has(sp.log) and sp.simplify(sp.expand_log(diff)) == 0:
        return True
    free = sorted((s for s in a.free_symbols | b.free_symbols if isinstance(s, sp.Symbol)), key=str)
    if not free:
        return bool(_agree(value_at(a, {}), value_at(b, {}), rtol, atol))
    rng = np.random.default_rng(seed)
    drawn = []
    for _ in range(points):
        given = dict(domain(rng)) if domain is not None else {}
        drawn.append({s.name: float(given[s.name]) if s.name in given else _draw(s, rng) for s in free})
    compared = 0
    for point in [*at, *drawn]:
        verdict = _agree(value_at(a, point), value_at(b, point), rtol, atol)
        if verdict is False:
            return False
        compared += verdict is True
    return compared > 0


_EXACT: dict[str, Callable[..., Any]] = {
    "floor": math.floor,
    "ceiling": math.ceil,
    "lcm": lambda a, b: math.lcm(int(a), int(b)),
    "gcd": lambda a, b: math.gcd(int(a), int(b)),
    "Min": min,
    "Max": max,
    "exp": math.exp,
}


def function(expr: Any, names: Sequence[str], symbols: Mapping[str, Any], *, exact: bool = False) -> Callable[..., Any]:
    """A formula as a fast numeric function of the named symbols, for checks on a grid.

    Parameters
    ----------
    expr : sympy expression or relation
    names : sequence of str
        The arguments, in order (symbols of ``symbols``).
    symbols : mapping
        The paper's symbol table.
    exact : bool
        Evaluate in exact rational arithmetic: pass ints or `fractions.Fraction` (ints are made
        Fractions); ``floor``, ``ceiling``, ``lcm``, ``gcd``, ``Min``, ``Max`` act on them exactly and
        a relation returns a bool. Otherwise floats (``math``), NaN where the formula is undefined.

    Returns
    -------
    callable
    """
    sp = _sp()
    missing = [n for n in names if n not in symbols]
    if missing:
        raise PrivlabError(f"names must be symbols of the table; unknown: {', '.join(missing)}")
    f = sp.lambdify([symbols[n] for n in names], expr, modules=[_EXACT, "math"] if exact else "math")

    if exact:

        def call_exact(*values: Any) -> Any:
            return f(*(Fraction(v) if isinstance(v, int) else v for v in values))

        return call_exact

    def call(*values: float) -> float:
        try:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # numpy scalars in: NaN, not warnings
                out = float(f(*values))
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            return math.nan
        return out if math.isfinite(out) else math.nan

    return call


def describe(instance: Mapping[str, float]) -> str:
    """An instance as text: ``"d = 10, c = 4"``."""
    return ", ".join(f"{k} = {v:g}" for k, v in instance.items())


def compare(
    key: str,
    printed: str,
    derived: Any,
    symbols: Mapping[str, Any],
    instance: Mapping[str, float],
    *,
    shown: str | None = None,
    derived_text: str | None = None,
    detail: str = "",
    **same_options: Any,
) -> Case:
    """A printed formula against a derived expression: both at ``instance``, matched by `same`.

    Parameters
    ----------
    key : str
        The case's key.
    printed : str
        The printed formula (sympy syntax over ``symbols``).
    derived : sympy expression
        The derivation.
    symbols : mapping
        The paper's symbol table (`parse`).
    instance : mapping of str to float
        The numeric instance both are shown at.
    shown : str, optional
        The instance as text (default `describe` of it).
    derived_text : str, optional
        The derivation as shown (default ``str(derived)``).
    detail : str
        How it was derived (``"sympy integral"``).
    **same_options
        Passed to `same` (``points``, ``domain``, ``at``, ...).

    Returns
    -------
    Case
    """
    expr = parse(printed, symbols, what=f"the printed formula of {key}" if key else "printed formula")
    return Case(
        key,
        printed,
        str(derived) if derived_text is None else derived_text,
        describe(instance) if shown is None else shown,
        value_at(expr, instance),
        value_at(derived, instance),
        same(expr, derived, **same_options),
        detail,
    )


def grid_case(
    key: str,
    printed: str,
    derived: str,
    *,
    method: str,
    mismatches: Sequence[str],
    checked: int,
    instance: str,
    printed_value: float = math.nan,
    derived_value: float = math.nan,
) -> Case:
    """A formula sympy cannot decide (a floor, a condition, a search), checked case by case on a
    grid against its defining conditions: it matches when no case parts.

    Parameters
    ----------
    key, printed, derived : str
        The case's key, the printed formula and what it was checked against.
    method : str
        How (``"exhaustive grid"``); the detail reads ``"<method> (<checked> cases)"``.
    mismatches : sequence of str
        The cases where printed and derived part, each described.
    checked : int
        How many cases were checked.
    instance : str
        A worked instance, shown when nothing parts (else the first mismatch is shown).
    printed_value, derived_value : float
        Both at the instance, where they have values.

    Returns
    -------
    Case
    """
    shown = instance if not mismatches else f"first mismatch: {mismatches[0]}"
    return Case(
        key, printed, derived, shown, printed_value, derived_value, not mismatches, f"{method} ({checked} cases)"
    )


def case_table(cases: Iterable[Case]) -> pd.DataFrame:
    """A ``formulas`` table: one row per case, the columns `COLUMNS` in order."""
    return pd.DataFrame([c.row() for c in cases], columns=list(COLUMNS))


def _run(task: tuple[str, Checker, tuple[Any, ...]]) -> list[Case]:
    """One checker's cases; a single case takes the key it was registered under."""
    key, checker, args = task
    found = checker(*args)
    if isinstance(found, Case):
        return [replace(found, key=key)]
    out = list(found)
    if not out or not all(isinstance(c, Case) and c.key for c in out):
        raise PrivlabError(f"the checker of {key} must return a Case or keyed Cases, got {found!r}"[:200])
    return out


def check_all(cases: Mapping[str, Checker], printed: Mapping[str, Any], map_fn: MapFn | None = None) -> pd.DataFrame:
    """Every case of a paper's formula audit, checked into its ``formulas`` table.

    Parameters
    ----------
    cases : mapping of str to callable
        The paper's table of cases, key -> checker. The checker of a key that ``printed`` holds
        is called with that entry (the formula as printed); any other without arguments (a
        statement checked against its definition, or a checker with its printed formulas bound).
        A checker returns one `Case` (its row takes the key) or the keyed `Case` of each part.
    printed : mapping of str to any
        The printed formulas, by case key; every key must be a case's.
    map_fn : callable, optional
        ``map_fn(fn, items) -> results in order``: the checkers run through it (sympy is slow;
        ``RunContext.map`` runs them in parallel); serially otherwise.

    Returns
    -------
    DataFrame
        `case_table` of the cases, in the order of ``cases`` (each checker's parts in its order):
        the same table whatever ``map_fn``.

    Raises
    ------
    PrivlabError
        A checker that is not a function, a printed entry with no case, or two rows with one key.
    """
    check_mapping("cases", cases)
    check_mapping("printed", printed)
    for key, checker in cases.items():
        check_callable(f"cases.{key}", checker)
    stray = [str(k) for k in printed if k not in cases]
    if stray:
        raise PrivlabError(f"printed holds formula(s) with no case: {', '.join(stray)}; cases: {', '.join(cases)}")
    tasks = [(str(k), c, (printed[k],) if k in printed else ()) for k, c in cases.items()]
    found = [case for part in map_in_order(_run, tasks, map_fn) for case in part]
    keys = [c.key for c in found]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise PrivlabError(f"the cases give two rows the key(s) {', '.join(twice)}")
    return case_table(found)


def table_rows(df: Any, *, name: str = "df") -> list[Any]:
    """A ``formulas`` table's rows for a verdict function (named tuples of `COLUMNS`), its
    ``detail`` an empty string where a CSV read it back as missing."""
    df = check_table(df, COLUMNS, name=name, min_rows=1)
    detail = [d if isinstance(d, str) else "" for d in df.detail]
    return list(df.assign(detail=detail).itertuples(index=False))
