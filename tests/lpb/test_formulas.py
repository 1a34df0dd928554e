"""The displayed formulas of LPB re-derived (privlab.lpb.derivations): each printed formula is
compared as privlab reads it, a deliberately altered formula is caught by every checker, and a
corrected one passes where the paper's does not."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError, lpb, runner
from privlab.formulas import COLUMNS, parse, same
from privlab.lpb import derivations as d

WRONG = {"eq2", "theorem2_relation", "lpb_rule", "belief_change", "gap_rule", "more_noise_rho2", "def3_quantifier"}


@pytest.fixture(scope="module")
def printed():
    return runner.compose("lpb/formulas").printed


def _options(entry):
    return dict(entry.get("options") or {})


@pytest.mark.slow
def test_printed_formulas_as_privlab_reads_them(printed):
    """Every displayed formula of the config: the paper's wrong ones (WRONG) mismatch, the rest match."""
    found = {k: d.check(e.check, e.expr, key=e.ledger, **_options(e)) for k, e in printed.formulas.items()}
    assert {k for k, c in found.items() if not c.match} == WRONG
    assert all(c.key == printed.formulas[k].ledger for k, c in found.items())
    eq2 = found["eq2"]
    assert eq2.printed_value == pytest.approx(math.exp(-2)) and eq2.derived_value == pytest.approx(math.exp(2))
    assert found["belief_change"].derived_value == pytest.approx((math.sqrt(21) - 1) / (math.sqrt(21) + 1), abs=1e-6)
    assert found["theorem2_relation"].printed_value == pytest.approx(0.5, abs=1e-12)  # the worst posterior: rho2


# (checker, altered formula, options): an operator flipped, a term dropped or a factor changed
ALTERED = [
    ("laplace_density", "exp(-Abs(x)/lam)/lam", {}),  # normalising 2 dropped
    ("laplace_density", "exp(Abs(x)/lam)/(2*lam)", {}),  # sign flipped
    ("theorem1", "eps/Delta", {}),  # scale inverted
    ("theorem1", "Delta/(2*eps)", {}),  # half the noise: 2 eps
    ("sensitivity_example", "16/4 - 8/4", {}),
    ("sensitivity_rule", "(hi - lo)/(n - 1)", {}),
    ("sensitivity_rule", "(hi + lo)/n", {}),
    ("eq2_ratio", "exp((Abs(r - f_i) + Abs(r - f_j))/lam)", {}),
    ("triangle_bound", "exp(Abs(f_i + f_j)/lam)", {}),
    ("triangle_bound", "exp(Abs(f_i - f_j)/(2*lam))", {}),
    ("theorem2_bound", "rho2/rho1*(1 + rho1)/(1 - rho2)", {}),
    ("theorem2_bound", "rho2/rho1*(1 - rho1)", {}),  # a term dropped
    ("theorem2_relation", ">=", {}),
    ("lambda_bound", "Delta*log(rho2/rho1*(1 - rho1)/(1 - rho2))", {}),
    ("lambda_bound", "Delta/log(rho2/rho1)", {}),
    ("lpb_rule", "<", {}),
    ("rho_order", "rho2 < rho1", {}),
    ("impossible_below_prior", "rho1/2", {}),
    ("impossible_below_prior", "2*rho1", {}),
    ("di_instance", "Delta/log((m + 1)*rho2/(1 - rho2))", {}),
    ("di_instance", "Delta/log(m*rho2/(1 - rho2))", {}),
    ("posterior_display", "L5/(L1 + L2 + L3 + L4)", {}),
    ("posterior_display", "L1/(L1 + L2 + L3 + L4 + L5)", {}),
    ("belief_change", "rho2 + rho1", {}),
    ("gap_rule", "increasing", {"settings": [(0.01, 0.5), (0.05, 0.5), (0.1, 0.5)]}),
    ("monotone_in", "decreasing", {"variable": "rho1"}),
    ("def3_quantifier", "all", {}),
]


@pytest.mark.parametrize("check, formula, options", ALTERED, ids=[f"{c}:{f}" for c, f, _ in ALTERED])
def test_altered_formula_is_caught(check, formula, options):
    assert not d.check(check, formula, **options).match


CORRECTED = [
    ("eq2_ratio", "exp((Abs(r - f_j) - Abs(r - f_i))/lam)", {}),
    ("theorem2_relation", "<", {}),
    ("lpb_rule", ">", {}),
    ("monotone_in", "decreasing", {"variable": "rho2"}),
    ("def3_quantifier", "some", {}),
    ("gap_rule", "decreasing", {"settings": [(0.01, 0.5), (0.05, 0.5), (0.1, 0.5), (0.3, 0.5)]}),  # at fixed rho2
    (
        "belief_change",
        "Piecewise((rho2 - rho1, rho1 + rho2 <= 1), ((sqrt(rho2*(1 - rho1)/(rho1*(1 - rho2))) - 1)"
        "/(sqrt(rho2*(1 - rho1)/(rho1*(1 - rho2))) + 1), True))",
        {},
    ),
    ("theorem1", "2*Delta/eps", {}),  # more noise than needed is eps-DP too
]


@pytest.mark.parametrize("check, formula, options", CORRECTED, ids=[c for c, _, _ in CORRECTED])
def test_corrected_formula_passes(check, formula, options):
    assert d.check(check, formula, **options).match


@settings(max_examples=25, deadline=None)
@given(st.floats(0.01, 0.9), st.floats(0.01, 0.98))
def test_largest_change_closed_form(rho1, frac):
    rho2 = rho1 + frac * (1 - rho1) * 0.99 + 1e-3
    if rho2 >= 1:
        return
    g = math.sqrt(rho2 * (1 - rho1) / (rho1 * (1 - rho2)))
    closed = rho2 - rho1 if rho1 + rho2 <= 1 else (g - 1) / (g + 1)
    assert d.largest_change(rho1, rho2) == pytest.approx(closed, abs=1e-6)
    # attained by the Laplace mechanism: two-point prior with p on the largest value, p = min(rho1, 1/(1+g))
    p = min(rho1, 1 / (1 + g))
    eps = lpb.lpb_epsilon(rho1, rho2)
    sup = lpb.max_posterior(np.arange(5.0), [2.0], eps, prior=[1 - p, 0, 0, 0, p])[-1]
    assert sup - p == pytest.approx(closed, abs=1e-6)


def test_di_gives_less_noise_above_random_guess():
    """Section V: for rho1 > 1/|U| differential identifiability (Lee and Clifton's own formula,
    written out here) gives less noise than LPB, on Adult's universes."""
    for m in (74, 16, 99):  # |U| of age, education-num, hours-per-week
        delta, rho = 1.0, 0.5
        lam_di = delta / math.log((m - 1) * rho / (1 - rho))
        for rho1 in np.linspace(1 / m + 1e-4, 0.49, 50):
            assert lam_di < lpb.laplace_scale(delta, rho1, rho)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.3, 0.95), st.floats(0.05, 0.95), st.floats(1e-3, 30))
def test_popular_value_cannot_be_protected(prior_top, frac, eps):
    """Section III.B: a value whose prior already reaches rho2 cannot be kept below rho2 by any noise."""
    rho2 = frac * prior_top
    prior = np.array([1 - prior_top, 0.0, prior_top])
    sup = lpb.max_posterior([0.0, 1.0, 2.0], [1.0, 1.0], eps, prior=prior)[-1]
    assert sup >= prior_top - 1e-12 >= rho2 - 1e-12


@pytest.mark.parametrize(
    "text, word",
    [("", "non-empty"), ("exp(", "sympy can read"), ("q + 1", "unknown symbol"), (3, "non-empty")],
)
def test_parse_rejects_in_one_line(text, word):
    with pytest.raises(PrivlabError, match=word) as err:
        parse(text, d.SYMBOLS)
    assert "\n" not in str(err.value)


def test_check_rejects_unknown_checker_and_options():
    with pytest.raises(PrivlabError, match="check must be one of"):
        d.check("nope", "x")
    with pytest.raises(PrivlabError, match="takes variable"):
        d.check("monotone_in", "increasing", variable="rho1", extra=1)
    with pytest.raises(PrivlabError, match="relation must be one of"):
        d.check("theorem2_relation", "=<")
    with pytest.raises(PrivlabError, match="rho1 must be smaller than rho2"):
        d.check("gap_rule", "decreasing", settings=[(0.5, 0.2), (0.1, 0.3)])


def test_same_symbolic_and_numeric_on_the_papers_domain():
    s = d.SYMBOLS
    assert same(s["rho2"] * (1 - s["rho1"]) / (s["rho1"] * (1 - s["rho2"])), d._gamma_bound(), domain=d.domain)
    assert not same(sp.Abs(s["r"] - s["f_i"]), s["r"] - s["f_i"], domain=d.domain)  # equal only for r >= f_i
    # equal only where rho1 < rho2 (the domain): sympy cannot say, the domain's points can
    assert same(sp.Max(s["rho1"], s["rho2"]), s["rho2"], domain=d.domain)
    assert not same(sp.Max(s["rho1"], s["rho2"]), s["rho2"])  # without the domain rho1 > rho2 is drawn too
    rng = np.random.default_rng(0)
    assert all(0 < p["rho1"] < p["rho2"] < 1 and p["m"] >= 2 for p in (d.domain(rng) for _ in range(200)))


def test_arithmetic_evaluates_the_printed_inputs():
    case = d.arithmetic("(9/4)/2", "1.125")
    assert case.derived_value == pytest.approx(1.125) and case.match and case.detail == "arithmetic"
    assert not d.arithmetic("(90 - 17)/48842", "0.0020").match  # 0.0015 does not round to 0.0020
    assert tuple(case.row()) == COLUMNS
    with pytest.raises(PrivlabError, match="unknown symbol"):
        d.arithmetic("q + 1", "1")


@pytest.mark.slow
def test_formula_table_is_one_row_per_formula_and_number(printed):
    calls = []

    def map_fn(fn, items):
        calls.append(len(items))
        return [fn(x) for x in items]

    table = d.formula_table(printed.formulas, printed.numbers, map_fn=map_fn)
    assert calls == [len(printed.formulas) + len(printed.numbers)]
    assert table.key.tolist() == [*printed.formulas, *printed.numbers] and tuple(table.columns) == COLUMNS
    assert set(table[~table.match].key) == WRONG
    with pytest.raises(PrivlabError, match="formulas.eq2 must be an entry with check, expr"):
        d.formula_table({"eq2": {"expr": "x"}}, {})
    with pytest.raises(PrivlabError, match="must not share a case; both hold eq2"):
        d.formula_table({"eq2": printed.formulas.eq2}, {"eq2": {"expr": "1", "value": "1"}})
