"""The formula audit's toolkit (privlab.formulas): `same` agrees with sympy on random identities and
catches random perturbations, parse errors are one line naming the formula, `value_at` is the
expression's value, and `check_all` gives the same table whatever the map."""

from __future__ import annotations

import io
import math
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from functools import partial

import numpy as np
import pandas as pd
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError
from privlab.formulas import (
    ATOL,
    COLUMNS,
    POINTS,
    RTOL,
    Case,
    case_table,
    check_all,
    compare,
    describe,
    function,
    grid_case,
    parse,
    same,
    table_rows,
    value_at,
)

X, Y = sp.Symbol("x", positive=True), sp.Symbol("y", positive=True)
R = sp.Symbol("r", real=True)
SYMBOLS = {"x": X, "y": Y, "r": R}

coefficients = st.lists(st.integers(-5, 5), min_size=6, max_size=6)
MONOMIALS = (1, X, Y, X * Y, X**2, Y**3)


def _poly(cs: list[int]) -> sp.Expr:
    return sum((c * m for c, m in zip(cs, MONOMIALS)), sp.Integer(0))


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(coefficients, coefficients, st.integers(1, 5), st.sampled_from(MONOMIALS[1:]))
def test_same_agrees_with_sympy_on_polynomial_identities_and_catches_a_perturbation(p, q, c, term):
    """(P + Q)^2 against its expansion: equal, as sympy's expand says; one term more or less is caught."""
    lhs = (_poly(p) + _poly(q)) ** 2
    rhs = sp.expand(lhs)
    assert same(lhs, rhs) is (sp.expand(lhs - rhs) == 0) is True
    assert not same(lhs, rhs + c * term)
    assert not same(lhs, rhs - c * term * X)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(coefficients, coefficients, st.integers(1, 4))
def test_same_on_rational_identities(p, q, k):
    """P/Q against (P (x + k)) / (Q (x + k)): equal where defined; P/Q against P/(Q + 1): caught."""
    num, den = _poly(p), _poly(q) + 7 * X**2 + 1  # a denominator with few zeros in the positive quadrant
    assert same(num / den, sp.expand(num * (X + k)) / sp.expand(den * (X + k)))
    if num != 0:
        assert not same(num / den, num / (den + k))


def test_same_falls_back_on_seeded_points_where_sympy_cannot_decide():
    a, b = sp.Symbol("a"), sp.Symbol("b")
    assert sp.simplify(sp.Max(a, b) - b) != 0  # sympy cannot tell without the domain ...
    in_order = {"at": (), "domain": lambda rng: {"a": rng.uniform(0, 1), "b": rng.uniform(1, 2)}}
    assert same(sp.Max(a, b), b, **in_order)  # ... the domain's points can
    assert not same(sp.Max(a, b), b)  # with a > b drawn too, they differ
    assert not same(sp.Max(a, b), b, at=[{"a": 3.0, "b": 1.0}], domain=in_order["domain"])  # an explicit point
    assert not same(sp.Abs(R), R)  # equal only for r >= 0: a real symbol is drawn on [-20, 20]
    assert same(sp.Abs(X), X)  # a positive one is not


def test_same_tolerance_and_undefined_points():
    assert (POINTS, RTOL, ATOL) == (64, 1e-9, 1e-12)
    assert same(X, X * (1 + sp.Float(1e-12)))  # within the relative tolerance
    assert not same(X, X * (1 + sp.Float(1e-6)))
    assert not same(sp.log(R), sp.log(-R))  # at every point one side is undefined, the other not
    assert same(sp.Integer(2), sp.sqrt(4)) and not same(sp.Integer(2), sp.sqrt(5))  # no symbols
    with pytest.raises(PrivlabError, match="not relations"):
        same(X < 1, X < 1)


def test_same_is_deterministic():
    a, b = sp.Symbol("a"), sp.Symbol("b")
    runs = {same(sp.Max(a, b), b, points=3, seed=s) for s in range(5) for _ in range(2)}
    assert runs == {False, True}  # 3 points may all draw a < b, depending on the seed ...
    assert all(same(sp.Max(a, b), b, points=3, seed=s) == same(sp.Max(a, b), b, points=3, seed=s) for s in range(9))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"^the printed eq1 must be a non-empty formula in sympy syntax, got ''$"),
        (3, r"^the printed eq1 must be a non-empty formula in sympy syntax, got 3$"),
        ("exp(", r"^the printed eq1 'exp\(' is not a formula sympy can read \(\w+\)$"),
        ("x = 1", r"^the printed eq1 'x = 1' is not a formula sympy can read \(\w+\)$"),
        ("exp", r"^the printed eq1 'exp' is not a formula sympy can read \(it names a \w+\)$"),
        ("O", r"^the printed eq1 'O' is not a formula sympy can read \(it names a \w+\)$"),
        ("q + x", r"^the printed eq1 'q \+ x' uses unknown symbol\(s\) q; allowed: r, x, y$"),
    ],
)
def test_parse_errors_are_one_line_naming_the_formula(text, message):
    with pytest.raises(PrivlabError, match=message) as err:
        parse(text, SYMBOLS, what="the printed eq1")
    assert "\n" not in str(err.value)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=12))
def test_parse_of_any_text_is_an_expression_or_one_line(text):
    try:
        parse(text, SYMBOLS)
    except PrivlabError as err:
        assert "\n" not in str(err) and str(err).startswith("printed formula")


def test_parse_uses_the_papers_table():
    gamma = sp.Symbol("gamma", positive=True)
    assert parse("gamma*x", {**SYMBOLS, "gamma": gamma}) == gamma * X  # a symbol, not the Gamma function
    assert parse("gamma(x)", SYMBOLS) == sp.gamma(X)
    assert parse("x <= y", SYMBOLS) == (X <= Y)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(coefficients, coefficients, st.floats(0.1, 10), st.floats(0.1, 10))
def test_value_at_matches_numeric_evaluation(p, q, x, y):
    expr = _poly(p) / (_poly(q) ** 2 + 1)
    num = sum(c * m for c, m in zip(p, (1, x, y, x * y, x**2, y**3)))
    den = sum(c * m for c, m in zip(q, (1, x, y, x * y, x**2, y**3))) ** 2 + 1
    assert value_at(expr, {"x": x, "y": y, "unused": 1.0}) == pytest.approx(num / den, rel=1e-12, abs=1e-12)


def test_value_at_undefined_and_missing():
    assert math.isnan(value_at(1 / R, {"r": 0.0})) and math.isnan(value_at(sp.sqrt(R), {"r": -1.0}))
    assert value_at(sp.Integer(3), {}) == 3.0
    with pytest.raises(PrivlabError, match=r"^instance lacks a value for y of 'x\*y'"):
        value_at(X * Y, {"x": 1.0})


def test_function_exact_and_float():
    F, S = sp.Symbol("F", positive=True), sp.Symbol("S", positive=True)
    table = {"F": F, "S": S}
    exact = function(parse("floor(F*S) >= 1", table), ("F", "S"), table, exact=True)
    assert exact(Fraction(1, 3), 3) is True and exact(Fraction(1, 3), 2) is False  # exact at the boundary
    ratio = function(parse("S/(F - 1)", table), ("F", "S"), table)
    assert ratio(3.0, 4.0) == 2.0 and math.isnan(ratio(1.0, 4.0)) and math.isnan(ratio(np.float64(1.0), 4.0))
    with pytest.raises(PrivlabError, match="unknown: q"):
        function(F, ("q",), table)


def test_case_has_the_one_schema_and_plain_values():
    case = Case("k", "x", "x", "x = 1", np.float64(1.0), np.int64(1), np.bool_(True))
    assert tuple(case.row()) == COLUMNS == (
        "key", "printed", "derived", "instance", "printed_value", "derived_value", "match", "detail"
    )  # fmt: skip
    assert type(case.printed_value) is float and type(case.match) is bool and case.detail == ""
    assert list(case_table([]).columns) == list(COLUMNS)


def test_compare_and_grid_case():
    case = compare("eq1", "x**2 - y**2", (X - Y) * (X + Y), SYMBOLS, {"x": 3.0, "y": 1.0}, detail="sympy")
    assert case == Case("eq1", "x**2 - y**2", "(x - y)*(x + y)", "x = 3, y = 1", 8.0, 8.0, True, "sympy")
    wrong = compare("eq1", "x**2 + y**2", (X - Y) * (X + Y), SYMBOLS, {"x": 3.0, "y": 1.0}, shown="here")
    assert not wrong.match and (wrong.printed_value, wrong.derived_value, wrong.instance) == (10.0, 8.0, "here")
    with pytest.raises(PrivlabError, match="^the printed formula of eq1 'x\\*\\*' is not"):
        compare("eq1", "x**", X, SYMBOLS, {"x": 1.0})
    assert describe({"d": 10.0, "c": 0.25}) == "d = 10, c = 0.25"
    ok = grid_case("g", "p", "d", method="exhaustive grid", mismatches=[], checked=12, instance="n = 2")
    bad = grid_case(
        "g", "p", "d", method="exhaustive grid", mismatches=["n = 3", "n = 5"], checked=12, instance="n = 2"
    )
    assert ok.match and ok.instance == "n = 2" and ok.detail == "exhaustive grid (12 cases)"
    assert not bad.match and bad.instance == "first mismatch: n = 3" and math.isnan(bad.printed_value)


def _square(printed: str, at: float) -> Case:
    return compare("", printed, X**2, SYMBOLS, {"x": at})


def _parts() -> list[Case]:
    return [Case(f"part{i}", "-", "-", "-", i, i, True) for i in range(3)]


CASES = {
    "square": partial(_square, at=2.0),
    "parts": _parts,  # no printed formula: called without one
    "cube": lambda printed: compare("", printed, X**3, SYMBOLS, {"x": 2.0}),
}
PRINTED = {"square": "x*x", "cube": "x**2*x"}


def _reversed_map(fn, items):
    """Works through the items last first (as a pool may finish them), returns them in order."""
    return list(reversed([fn(item) for item in reversed(items)]))


def _threads(fn, items):
    with ThreadPoolExecutor(3) as pool:
        return list(pool.map(fn, items))


def test_check_all_serial_equals_mapped_in_a_stable_order():
    serial = check_all(CASES, PRINTED)
    assert serial.key.tolist() == ["square", "part0", "part1", "part2", "cube"] and serial.match.all()
    assert tuple(serial.columns) == COLUMNS and serial.printed_value.tolist() == [4.0, 0.0, 1.0, 2.0, 8.0]
    for map_fn in (_reversed_map, _threads):
        pd.testing.assert_frame_equal(check_all(CASES, PRINTED, map_fn), serial)
    altered = check_all(CASES, {**PRINTED, "square": "x*x + 1"})
    assert altered.match.tolist() == [False, True, True, True, True]


@pytest.mark.parametrize(
    ("cases", "printed", "message"),
    [
        (
            CASES,
            {**PRINTED, "typo": "x"},
            r"^printed holds formula\(s\) with no case: typo; cases: square, parts, cube$",
        ),
        ({"a": _parts, "b": _parts}, {}, r"^the cases give two rows the key\(s\) part0, part1, part2$"),
        ({"a": 3}, {}, "^cases.a must be a function"),
        ({"a": lambda: []}, {}, "^the checker of a must return a Case or keyed Cases"),
        ([1], {}, "^cases must be a mapping"),
    ],
)
def test_check_all_refuses_in_one_line(cases, printed, message):
    with pytest.raises(PrivlabError, match=message) as err:
        check_all(cases, printed)
    assert "\n" not in str(err.value)


def test_table_rows_read_back_from_csv():
    table = check_all(CASES, PRINTED)
    back = pd.read_csv(io.StringIO(table.to_csv(index=False)))
    assert back.detail.isna().all()  # empty details come back missing ...
    rows = table_rows(back)
    assert [r.detail for r in rows] == [""] * 5 and [r.key for r in rows] == table.key.tolist()  # ... and read as ""
    with pytest.raises(PrivlabError, match=r"^df lacks the column\(s\) detail$"):
        table_rows(back.drop(columns="detail"))
    with pytest.raises(PrivlabError, match="at least 1 row"):
        table_rows(back.iloc[:0])
