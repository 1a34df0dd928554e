"""privlab.params: the contract refuses what it does not allow, naming the parameter, and
accepts what it does."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privlab import PrivlabError
from privlab.params import Bool, Choice, Free, Int, List, MapOf, Optional, Real, Str, describe, validate

SCHEMA = {
    "n": Int(1, 100, limit="rows held in memory"),
    "rho": Real(0, 1, low_open=True, high_open=True),
    "kind": Choice("a", "b"),
    "sizes": List(Int(0, 6), unique=True),
    "rows": Optional(Int(1)),
    "flag": Bool(),
    "name": Str(),
    "mc": {"trials": Int(1, 10**12), "store": Choice("dense", "history")},
    "priors": MapOf({"kind": Str()}),
    "printed": Free(),
}
GOOD = {
    "n": 5,
    "rho": 0.5,
    "kind": "a",
    "sizes": [0, 2],
    "rows": None,
    "flag": True,
    "name": "x",
    "mc": {"trials": 1e10, "store": "dense"},
    "priors": {"u": {"kind": "uniform"}},
    "printed": {"any": [1]},
}


def test_accepts_good_values():
    out = validate(SCHEMA, GOOD)
    assert out["mc"]["trials"] == 10**10 and isinstance(out["mc"]["trials"], int)


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("n", 0, "n must be an integer in [1, 100], got 0"),
        ("n", 101, "n must be at most 100 (rows held in memory), got 101"),
        ("n", 2.5, "n must be an integer"),
        ("n", "abc", "n must be an integer"),
        ("n", True, "n must be an integer"),
        ("rho", 1.0, "rho must be in (0, 1), got 1.0"),
        ("rho", math.nan, "rho must be a finite number"),
        ("kind", "c", "kind must be one of a, b; got 'c'"),
        ("sizes", [-1], "sizes[0] must be an integer in [0, 6], got -1"),
        ("sizes", [1, 1], "sizes must not repeat"),
        ("sizes", [], "sizes must be a list of at least 1"),
        ("sizes", "abc", "sizes must be a list"),
        ("flag", "maybe", "flag must be true or false"),
        ("mc", {"trials": 0, "store": "dense"}, "mc.trials must be an integer"),
        ("mc", {"trials": 5, "store": "dense", "oops": 1}, "unknown parameter mc.'oops'"),
        ("priors", {"u": {"kind": 3}}, "priors.u.kind must be a non-empty string"),
    ],
)
def test_refuses_with_the_parameter_named(key, value, message):
    with pytest.raises(PrivlabError) as err:
        validate(SCHEMA, {**GOOD, key: value})
    assert message in str(err.value) and "\n" not in str(err.value)


def test_unknown_and_missing_keys():
    with pytest.raises(PrivlabError, match="unknown parameter 'foo'"):
        validate(SCHEMA, {**GOOD, "foo": 1})
    with pytest.raises(PrivlabError, match="parameter rho is missing"):
        validate(SCHEMA, {k: v for k, v in GOOD.items() if k != "rho"})


@given(st.integers(-(10**6), 10**6))
def test_int_bounds_exactly(k):
    spec = Int(-10, 10)
    if -10 <= k <= 10:
        assert spec.check("k", k) == k
    else:
        with pytest.raises(PrivlabError):
            spec.check("k", k)


def test_describe_flattens():
    rows = dict(describe(SCHEMA))
    assert rows["mc.trials"].startswith("an integer in [1,") and rows["rho"] == "in (0, 1)"


def test_real_excludes_a_point():
    """F10: a contract leaves a point out (Warner's p = 1/2) without a Spec of its own."""
    spec = Real(0, 1, exclude=(0.5,))
    assert spec.check("p", 0.49) == 0.49 and spec.allowed() == "in [0, 1] other than 0.5"
    with pytest.raises(PrivlabError, match=r"^ps\[1\] must be in \[0, 1\] other than 0.5, got 0.5$"):
        validate({"ps": List(spec)}, {"ps": [0.3, 0.5]})
    assert ("the excluded point 0.5", 0.5) in list(spec.invalid())  # the bad-input suite derives the case
