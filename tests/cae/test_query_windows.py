"""Query restriction's window scheme (`QueryRestriction(overlap=...)`, study cae/query_windows):
disjoint windows' structural bounds against the independent HiGHS LP and an integer brute force,
their equations, the seed's overlapping scheme unchanged by default, and bad input."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import cae, mechanisms
from privlab._validation import PrivlabError


def _windows(n, Q, stride):
    """Positions of each query window, from the scheme's description (not from the class)."""
    return [list(range(s, s + Q)) for s in range(0, n - Q + 1, stride)]


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 30), st.sampled_from([2, 4, 6, 8]), st.integers(1, 9))
def test_disjoint_structural_bounds_equal_lp(seed, n, Q, top):
    Q = min(Q, n - n % 2)
    rng = np.random.default_rng(seed)
    values = rng.integers(0, top + 1, n).astype(float)
    qr = cae.QueryRestriction(values, Q, seed, domain=np.arange(top + 1), overlap="none")
    L, U = qr.bounds()
    L2, U2 = qr.bounds(method="lp")  # two HiGHS LPs per record over equations(): shares nothing with _disjoint
    np.testing.assert_allclose(L, L2, atol=1e-7)
    np.testing.assert_allclose(U, U2, atol=1e-7)
    assert np.all((L <= values) & (values <= U))
    assert qr.n_queries == n // Q == len(_windows(n, Q, Q))
    uncovered = qr.order[qr.n_queries * Q :]
    assert np.all(L[uncovered] == 0) and np.all(U[uncovered] == top)


def _brute_bounds(values, windows, order, domain):
    """Bounds by enumerating every assignment of domain values (tiny n only)."""
    answers = [sum(values[order[p]] for p in w) for w in windows]
    L, U = np.full(len(values), np.inf), np.full(len(values), -np.inf)
    for r in itertools.product(domain, repeat=len(values)):
        if all(sum(r[order[p]] for p in w) == a for w, a in zip(windows, answers)):
            L, U = np.minimum(L, r), np.maximum(U, r)
    return L, U


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(4, 2), (5, 2), (6, 2), (4, 4), (6, 4), (7, 2)]))
def test_disjoint_bounds_equal_integer_brute_force(seed, nq):
    n, Q = nq
    values = np.random.default_rng(seed).integers(0, 4, n)
    qr = cae.QueryRestriction(values, Q, seed, domain=np.arange(4), overlap="none")
    L, U = qr.bounds()
    bL, bU = _brute_bounds(list(values), _windows(n, Q, Q), qr.order, range(4))
    np.testing.assert_allclose(L, bL)
    np.testing.assert_allclose(U, bU)


@pytest.mark.parametrize("overlap, stride", [("half", 0.5), ("none", 1)])
@pytest.mark.parametrize("n, Q", [(10, 2), (17, 4), (24, 8), (9, 8)])
def test_equations_describe_the_scheme(overlap, stride, n, Q):
    values = np.random.default_rng(n).integers(1, 26, n) * 10.0
    qr = cae.QueryRestriction(values, Q, 5, overlap=overlap)
    A, b = qr.equations()
    windows = _windows(n, Q, int(stride * Q))
    expected = np.zeros((len(windows), n))
    for t, w in enumerate(windows):
        expected[t, qr.order[w]] = 1.0
    np.testing.assert_array_equal(A.toarray(), expected)
    np.testing.assert_allclose(b, A @ values)
    assert qr.n_queries == len(windows) == ((2 * n) // Q - 1 if overlap == "half" else n // Q)


def test_half_is_the_default_and_disjoint_bounds_are_looser():
    values = np.random.default_rng(1).integers(1, 26, 200) * 10.0
    default = cae.QueryRestriction(values, 8, 3)
    half = cae.QueryRestriction(values, 8, 3, overlap="half")
    none = cae.QueryRestriction(values, 8, 3, overlap="none")
    assert default.overlap == "half"
    np.testing.assert_array_equal(default.order, none.order)  # same shuffle, other windows
    np.testing.assert_array_equal(default.answers, half.answers)
    for a, b in zip(default.bounds(), half.bounds()):
        np.testing.assert_array_equal(a, b)
    # a disjoint window's answer is one of the overlapping system's consequences (b_2t + b_2t+1 = a_2t)
    np.testing.assert_array_equal(none.answers, half.answers[::2][: none.n_queries])
    (Lh, Uh), (Ln, Un) = half.bounds(), none.bounds()
    assert np.all(Ln <= Lh) and np.all(Un >= Uh)


def test_technique_passes_the_scheme_through():
    df = pd.DataFrame({"c": np.arange(40) % 7 * 10 + 10, "a": np.arange(40) % 2, "b": np.arange(40) % 3})
    data = cae.prepare(df, "c", ["a", "b"], [0, 1])
    spec = {"_target_": "privlab.cae.QueryRestrictionTechnique", "label": "qr", "kind": "sdc_technique"}
    for overlap in ("half", "none"):
        tech = mechanisms.build({"qr": {**spec, "levels": [4], "overlap": overlap}})["qr"].impl
        release = tech.release(data, 4, 0)
        assert release.queries.overlap == overlap
        assert tech.check(data, release, 4, np.random.SeedSequence(0), 40) == 0  # the LP agrees on every record
    assert cae.QueryRestrictionTechnique(levels=[4]).overlap == "half"


@pytest.mark.parametrize(
    "call",
    [
        lambda: cae.QueryRestriction(np.arange(10.0), 2, 0, overlap="quarter"),
        lambda: cae.QueryRestrictionTechnique(levels=[2], overlap="quarter"),
        lambda: cae.QueryRestrictionTechnique(levels=[2], overlap=None),
    ],
)
def test_bad_overlap_is_one_line(call):
    with pytest.raises(PrivlabError, match="overlap must be one of half, none") as err:
        call()
    assert "\n" not in str(err.value)
