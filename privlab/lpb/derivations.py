"""The paper's displayed formulas, re-derived independently (sympy, or a grid against the
defining probabilities) and compared case by case with what the seed prints.

Every checker takes the printed formula as text (sympy syntax, from the experiment's
config) and returns a `privlab.formulas.Case`: the printed and the derived expression, both
evaluated at one numeric instance, and whether they match. An altered formula (an operator flipped, a
term dropped) gives ``match=False``: the tests feed each checker such alterations.

Symbols: ``x`` (noise), ``r`` (response), ``f_i``, ``f_j`` (query answers), ``lam``
(Laplace scale), ``Delta`` (sensitivity), ``eps``, ``rho1``, ``rho2``, ``gamma``, ``p``
(a prior), ``m`` (|U|), ``n`` (records), ``hi``, ``lo`` (the universe's ends), ``S`` (the
known records' sum), ``L1``..``L5`` (the five likelihoods of Table I).
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp

from .._validation import MapFn, PrivlabError, check_choice, check_real
from ..claims import rounds_to
from ..formulas import Case, check_all, compare, parse, same, value_at
from ._checks import MAX_DRAWS, check_size
from .adversary import max_posterior, posteriors, query_answers
from .breach import capped_prior
from .calibration import check_rhos

__all__ = ["SYMBOLS", "domain", "CHECKS", "checker", "check", "formula_table", "largest_change", "arithmetic"]

_POS = ("lam", "Delta", "eps", "rho1", "rho2", "gamma", "p", "m", "n", "L1", "L2", "L3", "L4", "L5")
_REAL = ("x", "r", "f_i", "f_j", "hi", "lo", "S")
SYMBOLS: dict[str, sp.Symbol] = {
    **{k: sp.Symbol(k, positive=True) for k in _POS},
    **{k: sp.Symbol(k, real=True) for k in _REAL},
}
_s = SYMBOLS
# Table I's setting: U = {1, 2, 3, 5, 10}, D' = {1, 2, 3}, the mean, eps = 2, r = 5.041
_U, _KNOWN, _EPS, _R = np.array([1.0, 2.0, 3.0, 5.0, 10.0]), np.array([1.0, 2.0, 3.0]), 2.0, 5.041


def domain(rng: np.random.Generator) -> dict[str, float]:
    """A random point of the symbols whose domain is narrower than their sign (`privlab.formulas.same`'s
    ``domain``): 0 < rho1 < rho2 < 1, a prior p in (0, 1), m >= 2 and n >= 2 integers, gamma >= 1."""
    r1 = float(rng.uniform(0.01, 0.9))
    return {
        "rho1": r1,
        "rho2": float(rng.uniform(r1 + 0.01, 0.99)),
        "p": float(rng.uniform(0.001, 0.999)),
        "m": float(rng.integers(2, 200)),
        "n": float(rng.integers(2, 10**5)),
        "gamma": float(rng.uniform(1, 50)),
    }


def arithmetic(expr: str, value: str | float) -> Case:
    """An in-text number: the paper's arithmetic ``expr`` (sympy syntax) evaluated beside the
    result it prints (``value``), which matches when the value rounds to it at the printed precision."""
    got = value_at(parse(expr, SYMBOLS, what="the printed arithmetic"), {})
    shown = check_real("value", float(value))
    return Case("", expr, "evaluated", "the printed inputs", shown, got, rounds_to(value, got), "arithmetic")


def _laplace(x: sp.Expr) -> sp.Expr:
    """The Laplace density as the derivative of its distribution function (piecewise in x)."""
    t = sp.Symbol("t", real=True)
    cdf = sp.Piecewise((sp.exp(t / _s["lam"]) / 2, t < 0), (1 - sp.exp(-t / _s["lam"]) / 2, True))
    return sp.diff(cdf, t).subs(t, x)


def _gamma_bound() -> sp.Expr:
    """The largest amplification keeping the worst posterior below rho2 (Bayes, derived)."""
    g, p = _s["gamma"], _s["p"]
    worst = g * p / (g * p + 1 - p)  # likelihood ratio gamma for the value against every other
    (sol,) = sp.solve(sp.Eq(worst.subs(p, _s["rho1"]), _s["rho2"]), g)
    return sp.simplify(sol)


# --- the checkers ---------------------------------------------------------------------------
def laplace_density(printed: str) -> Case:
    """p(x | lam) = exp(-|x| / lam) / (2 lam): against the derivative of Lap(lam)'s distribution function."""
    expr = parse(printed, SYMBOLS)
    pos, neg = sp.Symbol("xp", positive=True), sp.Symbol("xn", negative=True)
    ok = all(
        same(expr.subs(_s["x"], v), sp.simplify(_laplace(v)), domain=domain)
        for v in (pos, neg)  # both branches of the piecewise derivative
    )
    derived = "d/dx F(x), F(x) = exp(x/lam)/2 (x < 0), 1 - exp(-x/lam)/2 (x >= 0)"
    inst = {"x": 1.041, "lam": 1.125}
    return Case(
        "", printed, derived, "x = 1.041, lam = 1.125", value_at(expr, inst),
        value_at(_laplace(sp.Float(1.041)), {"lam": 1.125}), ok, "sympy, both branches",
    )  # fmt: skip


def _max_log_ratio(scale: float, shift: np.ndarray) -> float:
    """sup over a grid of outputs o in R^2 of ln p(o) / p(o - shift), p the product Laplace density."""
    grid = np.linspace(-12, 12, 481)
    o = np.stack(np.meshgrid(grid, grid), axis=-1)
    return float(np.max((np.abs(o - shift).sum(-1) - np.abs(o).sum(-1)) / scale))


def theorem1(printed: str) -> Case:
    """Theorem 1: f(D) + Lap(scale)^d is eps-DP with scale = Delta / eps. Derived: the log density
    ratio of two outputs is at most ||f(D) - f(D')||_1 / scale, attained, so eps-DP needs Delta / scale <= eps."""
    scale = parse(printed, SYMBOLS)
    needed = sp.simplify(_s["Delta"] / scale)  # the eps the printed scale actually gives
    ok = same(sp.Min(needed, _s["eps"]), needed, domain=domain)  # Delta / scale <= eps wherever they are defined
    delta, eps = 2.25, 2.0
    lam = value_at(scale, {"Delta": delta, "eps": eps})
    seen = _max_log_ratio(lam, np.array([1.25, 1.0]))  # ||(1.25, 1.0)||_1 = Delta, d = 2
    return Case(
        "", f"Lap({printed})^d gives eps-DP", "sup_o ln p(o - f(D)) / p(o - f(D')) = Delta / scale <= eps",
        "d = 2, Delta = 2.25, eps = 2: the largest log ratio on a grid", seen, eps,
        bool(ok) and seen <= eps + 1e-9, "sympy + grid of outputs",
    )  # fmt: skip


def sensitivity_example(printed: str) -> Case:
    """Definition 2 on Table I's example: the largest change of the mean of 4 records drawn from
    U between neighbours (one record replaced), by brute force."""
    expr = parse(printed, SYMBOLS)
    best = 0.0
    for d in itertools.product(_U, repeat=4):
        for i, v in itertools.product(range(4), _U):
            nb = list(d)
            nb[i] = v
            best = max(best, abs(np.mean(d) - np.mean(nb)))
    value = value_at(expr, {})
    return Case(
        "", printed, "max |mean(D) - mean(D')| over D in U^4, D' one record replaced", "U = {1, 2, 3, 5, 10}, n = 4",
        value, best, bool(abs(value - best) <= 1e-12), "brute force over all neighbours",
    )  # fmt: skip


def sensitivity_rule(printed: str) -> Case:
    """Section V: Delta f = |f(D_max) - f(D_min)| = (max - min) / n for the mean of n records."""
    n, total = _s["n"], _s["S"]
    derived = sp.simplify((total + _s["hi"]) / n - (total + _s["lo"]) / n)  # D' holds n - 1 records summing to S
    inst = {"hi": 90, "lo": 17, "n": 48842}
    return compare(
        "", printed, derived, SYMBOLS, inst, shown="age: max 90, min 17, n = 48842", detail="sympy", domain=domain
    )


def eq2_ratio(printed: str) -> Case:
    """Eq. (2): Pr[D_i -> r] / Pr[D_j -> r] for Laplace noise, from the density."""
    derived = sp.simplify(
        sp.exp(-sp.Abs(_s["r"] - _s["f_i"]) / _s["lam"]) / sp.exp(-sp.Abs(_s["r"] - _s["f_j"]) / _s["lam"])
    )
    inst = {"r": _R, "f_i": 4.0, "f_j": 1.75, "lam": 1.125}
    shown = "Table I: r = 5.041, D_i = D_10 (4), D_j = D_1 (7/4), lam = 1.125"
    return compare("", printed, derived, SYMBOLS, inst, shown=shown, detail="sympy", domain=domain)


def triangle_bound(printed: str) -> Case:
    """The bound after Eq. (2): sup over r of the ratio is exp(|f(D_i) - f(D_j)| / lam), on a grid of r."""
    expr = parse(printed, SYMBOLS)
    ok, worst = True, (0.0, 0.0)
    for fi, fj, lam in ((4.0, 1.75, 1.125), (-3.0, 2.5, 0.4), (0.0, 0.0, 2.0), (7.5, -1.0, 3.0)):
        r = np.linspace(min(fi, fj) - 20 * lam, max(fi, fj) + 20 * lam, 20001)
        sup = float(np.max(np.exp((np.abs(r - fj) - np.abs(r - fi)) / lam)))
        bound = value_at(expr, {"f_i": fi, "f_j": fj, "lam": lam})
        ok &= abs(sup - bound) <= 1e-9 * bound
        if fi == 4.0:
            worst = (bound, sup)
    return Case(
        "", printed, "sup_r exp((|r - f_j| - |r - f_i|)/lam) on a grid of r", "Table I: D_10 against D_1, lam = 1.125",
        worst[0], worst[1], bool(ok), "grid of responses",
    )  # fmt: skip


def theorem2_bound(printed: str) -> Case:
    """Theorem 2's gamma: solve worst posterior = rho2, the worst posterior of a value with prior
    rho1 under gamma-amplification being gamma rho1 / (gamma rho1 + 1 - rho1)."""
    return compare(
        "", printed, _gamma_bound(), SYMBOLS, {"rho1": 0.2, "rho2": 0.5}, detail="sympy (solve)", domain=domain
    )


_RELATIONS = ("<", "<=", "=", ">=", ">")


def _tight_posterior(rho1: float, rho2: float) -> float:
    """The worst posterior at LPB's eps for Table I's data, exact: prior rho1 on the largest value."""
    eps = float(np.log(rho2 * (1 - rho1) / (rho1 * (1 - rho2))))
    return float(max_posterior(_U, _KNOWN, eps, prior=capped_prior("two_point", _U.size, rho1))[-1])


def theorem2_relation(printed: str) -> Case:
    """Theorem 2's comparison: at gamma = the bound the worst posterior equals rho2, which
    Definition 3 counts as a breach (>= rho2); the guarantee needs gamma strictly below it."""
    rel = check_choice("relation", printed.strip(), _RELATIONS)
    g, p = _s["gamma"], _s["p"]
    at_bound = sp.simplify((g * p / (g * p + 1 - p)).subs({g: _gamma_bound(), p: _s["rho1"]}))
    derived = "<" if sp.simplify(at_bound - _s["rho2"]) == 0 else "<="
    seen = _tight_posterior(0.2, 0.5)
    return Case(
        "", f"gamma {rel} rho2 (1 - rho1) / (rho1 (1 - rho2))", f"gamma {derived} bound (worst posterior at the bound: "
        f"{at_bound} >= rho2)", "Table I data, rho1 = 0.2, rho2 = 0.5, gamma = 4: worst posterior vs rho2",
        seen, 0.5, rel == derived, "sympy + exact posterior (Laplace)",
    )  # fmt: skip


def lambda_bound(printed: str) -> Case:
    """Eq. (3) solved for lambda: Delta / lam <= ln(gamma bound) gives lam >= Delta / ln(bound)."""
    lam = _s["lam"]
    sol = sp.solve(sp.Eq(_s["Delta"] / lam, sp.log(_gamma_bound())), lam)
    derived = sp.simplify(sol[0])
    # Delta / lam falls as lam grows, so the <= becomes lam >= the solution
    falls = sp.simplify(sp.diff(_s["Delta"] / lam, lam)).is_negative
    inst = {"Delta": 2.25, "rho1": 0.2, "rho2": 0.5}
    case = compare("", printed, derived, SYMBOLS, inst, detail="sympy (solve)", domain=domain)
    return replace(case, printed=f"lam >= {printed}", derived=f"lam >= {derived}", match=bool(falls) and case.match)


def lpb_rule(printed: str) -> Case:
    """Section IV's conclusion: lam = Delta / ln(bound) achieves (rho1, rho2)-privacy. Derived:
    at that lam the worst posterior is exactly rho2, a breach by Definition 3; lam must exceed it."""
    rel = check_choice("relation", printed.strip(), _RELATIONS)
    seen = _tight_posterior(0.2, 0.5)
    derived = ">" if seen >= 0.5 - 1e-12 else ">="
    return Case(
        "", f"lam {rel} Delta / ln(bound) achieves (rho1, rho2)-privacy", f"lam {derived} Delta / ln(bound)",
        "Table I data, rho1 = 0.2, rho2 = 0.5, lam = Delta / ln 4: worst posterior vs rho2", seen, 0.5,
        rel == derived, "exact posterior (Laplace)",
    )  # fmt: skip


def rho_order(printed: str) -> Case:
    """lam > 0 needs ln(bound) > 0, i.e. bound > 1: on (0, 1)^2 that is rho2 > rho1."""
    cond = parse(printed, SYMBOLS)
    b = _gamma_bound()
    factored = sp.factor(sp.simplify(b - 1))
    r12 = [_s["rho1"], _s["rho2"]]
    a, c = np.meshgrid(np.linspace(0.01, 0.99, 41), np.linspace(0.015, 0.985, 41))  # never on the diagonal
    said = np.broadcast_to(sp.lambdify(r12, cond, "numpy")(a, c), a.shape)
    ok = bool(np.all(said == (sp.lambdify(r12, b, "numpy")(a, c) > 1)))
    at = {_s["rho1"]: 0.5, _s["rho2"]: 0.2}
    return Case(
        "", printed, f"bound - 1 = {factored} > 0", "rho1 = 0.5, rho2 = 0.2: printed condition (1 holds) vs bound - 1",
        float(bool(cond.subs(at))), float(b.subs(at) - 1), ok, "sympy + a 41 x 41 grid of (0, 1)^2",
    )  # fmt: skip


def impossible_below_prior(printed: str, tol: float = 0.01) -> Case:
    """'Impossible to protect with a posterior below the prior': a value with prior rho1 reaches a
    posterior of at least rho1 at some response for every lam (the posterior averages to the
    prior), and no more than that as lam grows: the floor of any guarantee is the prior itself."""
    floor = parse(printed, SYMBOLS)  # the printed lower limit of what can be guaranteed, in units of the prior
    lowest = np.inf
    for eps in np.geomspace(1e-3, 20, 25):
        for rho1 in (0.05, 0.2, 0.5):
            prior = capped_prior("two_point", _U.size, rho1)
            lowest = min(lowest, float(max_posterior(_U, _KNOWN, float(eps), prior=prior)[-1]) / rho1)
    value = value_at(floor, {"rho1": 1.0})
    return Case(
        "", f"posterior bound >= {printed}", "min over lam of sup_r posterior / prior (Table I data)",
        "eps in [0.001, 20], rho1 in {0.05, 0.2, 0.5}", value, lowest, bool(value - 1e-9 <= lowest <= value + tol),
        "exact posterior (Laplace)",
    )  # fmt: skip


def di_instance(printed: str) -> Case:
    """rho1 = 1/m in LPB's rule gives differential identifiability's Delta / ln((m - 1) rho2 / (1 - rho2))."""
    derived = sp.simplify((_s["Delta"] / sp.log(_gamma_bound())).subs(_s["rho1"], 1 / _s["m"]))
    return compare("", printed, derived, SYMBOLS, {"Delta": 2.25, "m": 5, "rho2": 0.5}, detail="sympy", domain=domain)


def posterior_display(printed: str) -> Case:
    """Section III.B's display with the uniform prior cancelled: Bayes over the five candidates."""
    expr = parse(printed, SYMBOLS)
    like = [_s[f"L{i}"] for i in range(1, 6)]
    derived = sp.simplify((like[4] / 5) / sum(v / 5 for v in like))  # Pr[X = 10 | r], prior 1/5 each
    lam = 9 / 8
    vals = {f"L{i + 1}": float(np.exp(-abs(_R - a) / lam) / (2 * lam)) for i, a in enumerate(query_answers(_U, _KNOWN))}
    return Case(
        "", printed, str(derived), "Table I at r = 5.041", value_at(expr, vals),
        float(posteriors(_U, _KNOWN, _R, _EPS)[-1]), same(expr, derived, domain=domain), "sympy",
    )  # fmt: skip


def belief_change(printed: str, rho1: float = 0.3, rho2: float = 0.9) -> Case:
    """'Publishing changes the belief by at most rho2 - rho1': the largest change of a value with
    prior p <= rho1 under LPB's gamma is max_p gamma p / (gamma p + 1 - p) - p, which is rho2 - rho1
    only when rho1 + rho2 <= 1, else (sqrt(gamma) - 1) / (sqrt(gamma) + 1) at p = 1 / (1 + sqrt(gamma))."""
    expr = parse(printed, SYMBOLS)
    closed = "rho2 - rho1 if rho1 + rho2 <= 1, else (sqrt(gamma) - 1) / (sqrt(gamma) + 1) at p = 1 / (1 + sqrt(gamma))"
    rho1, rho2 = check_rhos(rho1, rho2)
    ok = True
    for a, c in ((0.2, 0.5), (0.01, 0.5), (0.45, 0.6), (0.19, 0.9), (0.6, 0.7), (rho1, rho2)):
        ok &= abs(value_at(expr, {"rho1": a, "rho2": c}) - largest_change(a, c)) <= 1e-6
    return Case(
        "", printed, f"max over p <= rho1 of the posterior's rise = {closed}", f"rho1 = {rho1:g}, rho2 = {rho2:g}",
        value_at(expr, {"rho1": rho1, "rho2": rho2}), largest_change(rho1, rho2), bool(ok),
        "grid of priors (closed form beside)",
    )  # fmt: skip


def largest_change(rho1: float, rho2: float, points: int = 200001) -> float:
    """The largest rise of a posterior over its prior p <= rho1 under LPB's gamma, on a grid of p:
    ``max_p gamma p / (gamma p + 1 - p) - p`` (the two-point prior attains it for Laplace noise)."""
    r1, r2 = check_rhos(rho1, rho2)
    n = check_size("points", points, low=2, high=MAX_DRAWS, why="grid points held in memory")
    gamma = r2 * (1 - r1) / (r1 * (1 - r2))
    ps = np.linspace(r1 / (n - 1), r1, n)
    return float(np.max(gamma * ps / (gamma * ps + 1 - ps) - ps))


def gap_rule(printed: str, settings: list[tuple[float, float]]) -> Case:
    """'The smaller rho2 - rho1, the more noise': lam = Delta / ln(bound) ordered against the gap
    over the paper's own (rho1, rho2) settings; a pair ordered the other way refutes it."""
    check_choice("direction", printed.strip(), ("decreasing", "increasing"))
    settings = [check_rhos(*pair) for pair in settings]
    if len(settings) < 2:
        raise PrivlabError(f"settings must hold at least two (rho1, rho2) pairs, got {len(settings)}")
    bound = _gamma_bound()
    lam = {(a, c): 1 / value_at(sp.log(bound), {"rho1": a, "rho2": c}) for a, c in settings}  # in units of Delta
    bad = [
        (s, t)
        for s, t in itertools.permutations(settings, 2)
        if (s[1] - s[0]) < (t[1] - t[0]) and (lam[s] > lam[t]) != (printed.strip() == "decreasing")
    ]
    worst = max(bad, key=lambda st: lam[st[1]] / lam[st[0]], default=None)
    text = "no pair against it" if worst is None else (
        f"gap {worst[0][1] - worst[0][0]:.3g} at {worst[0]} needs lam = {lam[worst[0]]:.3g} Delta, "
        f"gap {worst[1][1] - worst[1][0]:.3g} at {worst[1]} needs {lam[worst[1]]:.3g} Delta"
    )  # fmt: skip
    return Case(
        "", f"lam {printed} in rho2 - rho1", f"{len(bad)} of {len(settings) * (len(settings) - 1)} ordered pairs "
        f"go the other way; {text}", f"{len(settings)} (rho1, rho2) settings of the paper",
        0.0 if worst is None else lam[worst[0]], 0.0 if worst is None else lam[worst[1]], not bad, "ordering of pairs",
    )  # fmt: skip


def monotone_in(printed: str, variable: str) -> Case:
    """The sign of d lam / d variable for lam = Delta / ln(bound) on 0 < rho1 < rho2 < 1."""
    check_choice("variable", variable, ("rho1", "rho2"))
    way = check_choice("direction", printed.strip(), ("increasing", "decreasing"))
    v = _s[variable]
    dlog = sp.simplify(sp.diff(sp.log(_gamma_bound()), v))  # lam falls where ln(bound) rises
    rng = np.random.default_rng(1)
    signs = {float(np.sign(value_at(dlog, domain(rng)))) for _ in range(200)}
    derived = "decreasing" if signs == {1.0} else "increasing" if signs == {-1.0} else "not monotone"
    return Case(
        "", f"lam {way} in {variable}", f"lam {derived} in {variable} (d ln(bound)/d {variable} = {dlog})",
        "200 random points of 0 < rho1 < rho2 < 1", float(way == "increasing"), float(derived == "increasing"),
        way == derived, "sympy derivative, sign on a sample",
    )  # fmt: skip


def def3_quantifier(printed: str) -> Case:
    """Definition 3 calls it a breach when the posterior reaches rho2 'for all r'. The posterior
    averages to the prior over the responses, so with prior <= rho1 < rho2 'for all r' never holds
    and the paper's own example (a breach at one r) needs 'for some r'."""
    q = check_choice("quantifier", printed.strip(), ("all", "some"))
    r = np.linspace(-60.0, 70.0, 130001)
    post = posteriors(_U, _KNOWN, r, _EPS)[:, -1]
    lam = 9 / 8
    dens = np.exp(-np.abs(r[:, None] - query_answers(_U, _KNOWN)) / lam).mean(axis=1) / (2 * lam)
    mean_post = float(np.sum(post * dens) * (r[1] - r[0]))  # = the prior 1/5
    lowest, highest = float(post.min()), float(post.max())
    derived = "some" if highest >= 0.5 > lowest else "all"
    return Case(
        "", f"breach iff for {q} r: prior <= rho1 and posterior >= rho2", f"for {derived} r (E_r[posterior] = "
        f"{mean_post:.4f} = prior; posterior of 10 ranges {lowest:.4f}..{highest:.4f})",
        "Table I: value 10, rho1 = 0.2, rho2 = 0.5: lowest vs highest posterior over r", lowest, highest,
        q == derived, "exact posterior on a grid of responses",
    )  # fmt: skip


CHECKS: dict[str, Callable[..., Case]] = {
    "laplace_density": laplace_density,
    "theorem1": theorem1,
    "sensitivity_example": sensitivity_example,
    "sensitivity_rule": sensitivity_rule,
    "eq2_ratio": eq2_ratio,
    "triangle_bound": triangle_bound,
    "theorem2_bound": theorem2_bound,
    "theorem2_relation": theorem2_relation,
    "lambda_bound": lambda_bound,
    "lpb_rule": lpb_rule,
    "rho_order": rho_order,
    "impossible_below_prior": impossible_below_prior,
    "di_instance": di_instance,
    "posterior_display": posterior_display,
    "belief_change": belief_change,
    "gap_rule": gap_rule,
    "monotone_in": monotone_in,
    "def3_quantifier": def3_quantifier,
}


def checker(name: str, **options: Any) -> Callable[[str], Case]:
    """The checker ``name`` of `CHECKS` with its options bound: a function of the printed formula."""
    check_choice("check", name, CHECKS)
    takes = set(inspect.signature(CHECKS[name]).parameters) - {"printed"}
    if set(options) - takes:
        extra = ", ".join(sorted(set(options) - takes))
        raise PrivlabError(f"check {name} takes {', '.join(sorted(takes)) or 'no options'}; got {extra}")
    return partial(CHECKS[name], **options)


def check(name: str, printed: str, key: str = "", **options: Any) -> Case:
    """Run the checker ``name`` on the printed formula; ``key`` labels the row (``name`` by default)."""
    return replace(checker(name, **options)(printed), key=key or name)


def _entries(name: str, entries: Mapping[str, Any], fields: tuple[str, ...]) -> None:
    """Refuse a block of printed entries without the fields a check reads."""
    if not isinstance(entries, Mapping):
        raise PrivlabError(f"{name} must be a mapping of case names to printed entries, got {entries!r}")
    for key, e in entries.items():
        if not isinstance(e, Mapping) or not set(fields) <= set(e):
            raise PrivlabError(f"{name}.{key} must be an entry with {', '.join(fields)}")


def formula_table(
    formulas: Mapping[str, Any], numbers: Mapping[str, Any], *, map_fn: MapFn | None = None
) -> pd.DataFrame:
    """Every displayed formula (`check`) and every in-text number (`arithmetic`), one row each.

    Parameters
    ----------
    formulas : mapping
        Case -> its printed entry: ``check`` (a name of `CHECKS`), ``expr`` (the printed
        formula) and optionally ``options`` (the checker's keyword arguments).
    numbers : mapping
        Case -> its printed entry: ``expr`` (the paper's arithmetic) and ``value`` (its printed result).
    map_fn : callable, optional
        Runs the checkers (`privlab.formulas.check_all`; sympy is slow); serially otherwise.

    Returns
    -------
    DataFrame
        The formulas table (`privlab.formulas.COLUMNS`), the formulas first, then the numbers.
    """
    _entries("formulas", formulas, ("check", "expr"))
    _entries("numbers", numbers, ("expr", "value"))
    both = sorted(set(formulas) & set(numbers))
    if both:
        raise PrivlabError(f"formulas and numbers must not share a case; both hold {', '.join(both)}")
    cases = {k: checker(e["check"], **dict(e.get("options") or {})) for k, e in formulas.items()}
    cases |= {k: partial(arithmetic, value=e["value"]) for k, e in numbers.items()}
    printed = {k: e["expr"] for k, e in [*formulas.items(), *numbers.items()]}
    return check_all(cases, printed, map_fn)
