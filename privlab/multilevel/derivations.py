"""Independent re-derivations of the seed's displayed formulas (issue 13: the formula audit).

Every checker compares a formula *as the seed prints it* (a sympy string from the
experiment's config; the seed is a talk's slides) with one derived here from the
definitions, and returns a `Case`: both expressions, one numeric instance of each and
whether they agree. A deliberately altered formula comes out as a mismatch
(tests/multilevel/test_formulas.py).

What is derived from what:

- uni-pert's law (`uni_pert_law`) from its three-line algorithm (keep x with probability
  p, else a uniform draw among the s values);
- the kernel between two copies (`chain_kernel`): solved with sympy from the two
  requirements of the derivation slide, both copies uni-pert and X independent of the
  lower copy given the higher one; the result is Lemma 1's transition;
- the derivation slide's five-case conditional Pr[Y_b = y_b | Y_a = y_a, X = x]
  (`conditional_cases`) by Bayes' rule on X -> Y_b -> Y_a, the denominator summed over the
  s values by classes;
- u1, v1, u2, v2 (`uv_cases`): the conditional law of a new copy given its two chain
  neighbours, set equal to the algorithm's "y_l with probability u, y_r with probability
  v, else uniform" and solved with sympy;
- Lemma 1, Theorems 1-2 and Lemma 2 numerically (`chain_cases`, `lemma2_cases`): the exact
  law of X and every copy obtained by *following multi-pert step by step*
  (`algorithm_joint`, with any u/v formula), on a seeded grid of domain sizes,
  retention probabilities and request orders.

Nothing here calls the mechanism or the chain law of `privlab.multilevel.exact`; the
estimators of the slides' Experiments are compared with `exact.posterior` and `exact.copy_given_x`
(`estimator_cases`), which in turn never see the u/v formulas.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .._validation import MapFn, PrivlabError, check_distribution, check_int, check_mapping, check_real
from ..formulas import Case, Checker, check_all, compare, describe, function, parse, same, value_at
from ._checks import check_cells, check_ps, check_s
from .exact import copy_given_x, posterior
from .perturbation import uv as privlab_uv

__all__ = [
    "Case",
    "SYMBOLS",
    "GridPoint",
    "grid",
    "neighbour_points",
    "uni_pert_law",
    "chain_kernel",
    "uni_pert_cases",
    "conditional_cases",
    "uv_cases",
    "printed_uv",
    "algorithm_joint",
    "chain_cases",
    "lemma2_cases",
    "estimator_cases",
    "index_case",
    "formula_table",
]

# the symbols a printed formula may use: p (new copy), pl/pr (its neighbours), pa/pb (the
# derivation slide's Alice and Bob), p_i/p_prev (Lemma 1), s (domain size), c (Lemma 2)
SYMBOLS = ("p", "pl", "pr", "pa", "pb", "p_i", "p_prev", "s", "c")
UV = Callable[[float, float, float, int], tuple[float, float, float, float]]


@functools.cache
def symbols() -> dict[str, Any]:
    """`SYMBOLS` as positive sympy symbols (built on first use: sympy is slow to import)."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    return {n: sp.Symbol(n, positive=True) for n in SYMBOLS}


def _values(points: Any, names: Sequence[str], what: str) -> list[dict[str, float]]:
    """A non-empty list of points, each giving a finite value to every one of ``names``."""
    if isinstance(points, (str, bytes, Mapping)) or not isinstance(points, Sequence) or not points:
        raise PrivlabError(f"{what}: points must be a non-empty list of mappings of {', '.join(names)}")
    out = []
    for i, pt in enumerate(points):
        if not isinstance(pt, Mapping) or any(n not in pt for n in names):
            raise PrivlabError(f"{what}: points[{i}] must give {', '.join(names)}, got {pt!r}"[:200])
        out.append({str(k): check_real(f"points[{i}].{k}", v) for k, v in pt.items()})
    return out


def _grid_points(points: Any, what: str) -> list[GridPoint]:
    if isinstance(points, (str, bytes)) or not isinstance(points, Sequence) or not points:
        raise PrivlabError(f"{what}: points must be a non-empty list of GridPoint (derivations.grid)")
    if not all(isinstance(g, GridPoint) for g in points):
        raise PrivlabError(f"{what}: points must be GridPoint instances (derivations.grid)")
    return list(points)


def _symbolic(case: str, printed: str, derived: Any, points: Sequence[Mapping[str, float]]) -> Case:
    """A printed formula against a derived expression on the grid's points (`privlab.formulas.compare`):
    shown at the first point, the derivation factored."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    points = _values(points, [], case)
    return compare(case, printed, derived, symbols(), points[0], derived_text=str(sp.factor(derived)), at=points)


# ---------------------------------------------------------------------------------------
# the grid: domain sizes, retention probabilities, request orders
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GridPoint:
    """One instance of the numeric checks: a prior on 0..s-1 and p's in request order."""

    s: int
    prior: np.ndarray
    ps: tuple[float, ...]

    @property
    def order(self) -> str:
        """ascending, descending or mixed: the order of the requests' p's."""
        d = np.diff(self.ps)
        return "ascending" if (d > 0).all() else "descending" if (d < 0).all() else "mixed"


def grid(
    domain_sizes: Iterable[int], orders: Iterable[Sequence[float]], random_orders: int, max_copies: int, seed: int = 0
) -> list[GridPoint]:
    """For every domain size: each of ``orders`` and ``random_orders`` random request orders of
    2..``max_copies`` distinct p's in (0.05, 1), each with a Dirichlet(1) prior.

    Parameters
    ----------
    domain_sizes : iterable of int
        s >= 2 each; s^(1 + copies) cells are held per instance.
    orders : iterable of sequences of float
        Fixed request orders (e.g. the paper's 0.3, 0.1, 0.5; an ascending and a descending one).
    random_orders : int
        Random orders per domain size, >= 0.
    max_copies : int
        At most this many copies in a random order, 2..6.
    seed : int
    """
    random_orders = check_int("random_orders", random_orders, low=0)
    max_copies = check_int("max_copies", max_copies, low=2, high=6)
    fixed = [tuple(check_ps(o, "orders[]")) for o in orders]
    rng = np.random.default_rng(check_int("seed", seed, low=0))
    out = []
    for s in domain_sizes:
        s = check_s(s)
        draws = []
        for _ in range(random_orders):
            k = int(rng.integers(2, max_copies + 1))
            draws.append(tuple(float(round(v, 4)) for v in rng.choice(np.arange(0.05, 1.0, 0.0125), k, replace=False)))
        for ps in [*fixed, *draws]:
            check_cells(f"grid: domain_size {s} to the power 1 + {len(ps)} copies", s ** (1 + len(ps)))
            out.append(GridPoint(s, rng.dirichlet(np.ones(s)), ps))
    if not out:
        raise PrivlabError("the grid is empty: give domain_sizes and orders or random_orders")
    return out


def neighbour_points(points: Sequence[GridPoint]) -> list[dict[str, float]]:
    """(p_l > p > p_r, s) from the grid's orders: every three consecutive distinct p's, and
    p_l = 1 (the original) above the largest."""
    points = _grid_points(points, "neighbour_points")
    out = []
    for g in points:
        chain = sorted({1.0, *g.ps}, reverse=True)
        for pl, p, pr in zip(chain, chain[1:], chain[2:]):
            out.append({"p": p, "pl": pl, "pr": pr, "s": float(g.s)})
    if not out:
        raise PrivlabError("the grid holds no three distinct retention probabilities")
    return out


# ---------------------------------------------------------------------------------------
# the derivations
# ---------------------------------------------------------------------------------------
def uni_pert_law(p: Any, s: Any) -> tuple[Any, Any]:
    """Pr[Y = x | X = x] and Pr[Y = y | X = x] (y != x) from the algorithm uni-pert: the coin
    heads (probability p) returns x; tails returns each of the s values with probability 1/s."""
    heads, tails = p, 1 - p
    return heads * 1 + tails * (1 / s), heads * 0 + tails * (1 / s)


def _compose(k1: tuple[Any, Any], k2: tuple[Any, Any], s: Any) -> tuple[Any, Any]:
    """(K1 K2)[a, b] = sum_z K1[a, z] K2[z, b] for kernels (same, other), by classes of z."""
    (a1, b1), (a2, b2) = k1, k2
    same = a1 * a2 + (s - 1) * b1 * b2  # z = a, or one of the s - 1 others
    other = a1 * b2 + b1 * a2 + (s - 2) * b1 * b2  # z = a, z = b, or one of the s - 2 others
    return same, other


@functools.cache
def chain_kernel() -> tuple[Any, Any]:
    """Pr[Y_a = y | Y_b = z] (same, other) for copies at p_a < p_b, solved from the derivation
    slide's requirements: X -> Y_b -> Y_a (X independent of Y_a given Y_b) and both copies
    uni-pert, i.e. T(p_b) K = T(p_a). Unique for p_b > 0."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    alpha, beta = sp.symbols("alpha beta")
    s = sym["s"]
    composed = _compose(uni_pert_law(sym["pb"], s), (alpha, beta), s)
    target = uni_pert_law(sym["pa"], s)
    sol = sp.solve([sp.Eq(composed[0], target[0]), sp.Eq(composed[1], target[1])], [alpha, beta], dict=True)
    (one,) = sol
    return sp.simplify(one[alpha]), sp.simplify(one[beta])


def _kernel(upper: Any, lower: Any) -> tuple[Any, Any]:
    """Pr[lower copy | upper copy] for the copies at retention ``upper`` > ``lower``."""
    sym = symbols()
    same, other = chain_kernel()
    swap = {sym["pa"]: lower, sym["pb"]: upper}
    return same.subs(swap, simultaneous=True), other.subs(swap, simultaneous=True)


def uni_pert_cases(printed: Mapping[str, str], points: Sequence[Mapping[str, float]]) -> list[Case]:
    """uni-pert's law as printed (``same``: x = y, ``other``: x != y) against the algorithm's,
    and the slide's two extremes (p = 1: D* = D; p = 0: every value a uniform draw)."""
    printed = check_mapping("printed", printed, ("same", "other"))
    points = _values(points, ("p", "s"), "uni_pert_cases")
    sym = symbols()
    same, other = uni_pert_law(sym["p"], sym["s"])
    out = [
        _symbolic("uni_pert_same", printed["same"], same, points),
        _symbolic("uni_pert_other", printed["other"], other, points),
    ]
    e_same, e_other = (parse(printed[k], symbols(), what="the printed uni-pert law") for k in ("same", "other"))
    rows = []
    for pt in points:
        s = pt["s"]
        one = (value_at(e_same, {"p": 1.0, "s": s}), value_at(e_other, {"p": 1.0, "s": s}))
        zero = (value_at(e_same, {"p": 0.0, "s": s}), value_at(e_other, {"p": 0.0, "s": s}))
        rows.append(np.allclose(one, (1.0, 0.0), atol=1e-12) and np.allclose(zero, (1 / s, 1 / s), atol=1e-12))
    s0 = points[0]["s"]
    out.append(
        Case(
            "uni_pert_extremes",
            f"p = 1: [{printed['same']}, {printed['other']}] = [1, 0]; p = 0: [1/s, 1/s]",
            "p = 1 keeps x (D* = D); p = 0 draws uniformly",
            f"s = {s0:g}, p = 0",
            value_at(e_same, {"p": 0.0, "s": s0}),
            1 / s0,
            bool(all(rows)),
        )
    )
    return out


_COND_KEYS = ("same", "a_is_x", "ab_not_x", "b_is_x", "other")


def conditional_cases(printed: Mapping[str, str], points: Sequence[Mapping[str, float]]) -> list[Case]:
    """The derivation slide's Pr[Y_b = y_b | Y_a = y_a, X = x] (copies at p_a < p_b), case by
    case, against Bayes' rule on X -> Y_b -> Y_a; and whether the printed cases form a law
    (they sum to 1 over y_b for y_a = x and for y_a != x).

    ``printed`` has the keys same (y_a = y_b = x), a_is_x (y_a = x != y_b), ab_not_x
    (y_a = y_b != x), b_is_x (x = y_b != y_a) and other, in the symbols pa, pb, s.
    """
    printed = check_mapping("printed", printed, _COND_KEYS)
    points = _values(points, ("pa", "pb", "s"), "conditional_cases")
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    s = sym["s"]
    t_s, t_o = uni_pert_law(sym["pb"], s)  # Pr[Y_b | X]
    k_s, k_o = _kernel(sym["pb"], sym["pa"])  # Pr[Y_a | Y_b]
    d_s, d_o = _compose((t_s, t_o), (k_s, k_o), s)  # Pr[Y_a | X], summed over Y_b
    derived = {
        "same": t_s * k_s / d_s,
        "a_is_x": t_o * k_o / d_s,
        "ab_not_x": t_o * k_s / d_o,
        "b_is_x": t_s * k_o / d_o,
        "other": t_o * k_o / d_o,
    }
    out = [_symbolic(f"conditional_{k}", printed[k], sp.simplify(derived[k]), points) for k in _COND_KEYS]
    e = {k: parse(printed[k], symbols(), what=f"the printed conditional {k}") for k in _COND_KEYS}
    sums = (e["same"] + (s - 1) * e["a_is_x"], e["ab_not_x"] + e["b_is_x"] + (s - 2) * e["other"])
    ok = all(same(total, sp.Integer(1), at=points) for total in sums)
    at = points[0]
    shown = f"y_a = x: {value_at(sums[0], at):.6g}; y_a != x: {value_at(sums[1], at):.6g}"
    out.append(
        Case(
            "conditional_total",
            "sum over y_b of the printed cases",
            "1 (a conditional law)",
            describe(at),
            value_at(sums[1], at),
            1.0,
            ok,
            shown,
        )
    )
    out.append(_requirements(e, points))
    return out


def _requirements(e: Mapping[str, Any], points: Sequence[Mapping[str, float]]) -> Case:
    """The slide's "both are satisfied when": with Y_a uni-pert at p_a and Y_b drawn from the
    printed conditional, is Y_b uni-pert at p_b given X, and is Pr[Y_a | Y_b, X] free of X
    (so that Pr[Q(X) | Y_a, Y_b] = Pr[Q(X) | Y_b] for every prior)?"""
    sym = symbols()
    s = sym["s"]
    a_s, a_o = uni_pert_law(sym["pa"], s)  # Pr[Y_a | X]
    b_s = a_s * e["same"] + (s - 1) * a_o * e["b_is_x"]  # Pr[Y_b = x | X = x], summed over y_a
    b_o = a_s * e["a_is_x"] + a_o * e["ab_not_x"] + (s - 2) * a_o * e["other"]  # Pr[Y_b = y != x | X = x]
    want_s, want_o = uni_pert_law(sym["pb"], s)
    # Pr[Y_a = y_a | Y_b = y_b, X = x] by the class of (x, y_a, y_b): it may depend on y_a = y_b only
    keep = [a_s * e["same"] / b_s, a_o * e["ab_not_x"] / b_o]  # y_a = y_b (= x, != x)
    move = [a_s * e["a_is_x"] / b_o, a_o * e["b_is_x"] / b_s, a_o * e["other"] / b_o]  # y_a != y_b
    checks = [same(b_s, want_s, at=points), same(b_o, want_o, at=points), same(keep[0], keep[1], at=points)]
    checks += [same(move[0], m, at=points) for m in move[1:]]
    at = points[0]
    detail = (
        f"Pr[Y_b = y != x | X = x] = {value_at(b_o, at):.6g} (uni-pert: {value_at(want_o, at):.6g}); "
        f"Pr[Y_a = y_b | Y_b, X] = {value_at(keep[0], at):.6g} if X = y_b, {value_at(keep[1], at):.6g} if not"
    )
    return Case(
        "conditional_requirements",
        "the printed conditional",
        "Y_b uni-pert, X independent of Y_a given Y_b",
        describe(at),
        value_at(b_o, at),
        value_at(want_o, at),
        all(checks),
        detail,
    )


@functools.cache
def _solved_uv() -> dict[str, Any]:
    """u1 + v1, u2, v2 solved from the new copy's conditional law given its neighbours."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    s = sym["s"]
    k1 = _kernel(sym["pl"], sym["p"])  # Pr[Y | Y_l]
    k2 = _kernel(sym["p"], sym["pr"])  # Pr[Y_r | Y]
    d_s, d_o = _compose(k1, k2, s)  # Pr[Y_r | Y_l]
    w, u, v = sp.symbols("w u v")
    # y_l = y_r: keeping y_l and keeping y_r are the same outcome; only u1 + v1 = w appears
    eq_keep = sp.Eq(w + (1 - w) / s, k1[0] * k2[0] / d_s)
    (w_sol,) = sp.solve(eq_keep, w)
    consistent_eq = sp.simplify((1 - w_sol) / s - k1[1] * k2[1] / d_s) == 0
    # y_l != y_r: three outcomes, two free equations
    eqs = [sp.Eq(u + (1 - u - v) / s, k1[0] * k2[1] / d_o), sp.Eq(v + (1 - u - v) / s, k1[1] * k2[0] / d_o)]
    (sol,) = sp.solve(eqs, [u, v], dict=True)
    consistent_ne = sp.simplify((1 - sol[u] - sol[v]) / s - k1[1] * k2[1] / d_o) == 0
    if not (consistent_eq and consistent_ne):  # the conditional is not of the algorithm's form
        raise RuntimeError("the neighbours' conditional law is not 'y_l w.p. u, y_r w.p. v, else uniform'")
    # no p_r (Algorithm step 9): keep y_l with probability q, else uniform
    q = sp.Symbol("q")
    (keep,) = sp.solve(sp.Eq(q + (1 - q) / s, k1[0]), q)
    return {
        "uv_eq": sp.simplify(w_sol),
        "u_ne": sp.simplify(sol[u]),
        "v_ne": sp.simplify(sol[v]),
        "keep": sp.simplify(keep),
    }


def printed_uv(printed: Mapping[str, str]) -> UV:
    """The printed Equations 3-4 (keys u_eq, v_eq, u_ne, v_ne) as a u/v function for
    `algorithm_joint`."""
    printed = check_mapping("printed", printed, ("u_eq", "v_eq", "u_ne", "v_ne"))
    sym = symbols()
    fns = [
        function(parse(printed[k], sym, what=f"the printed {k}"), ("p", "pl", "pr", "s"), sym)
        for k in ("u_eq", "v_eq", "u_ne", "v_ne")
    ]

    def uv(p: float, p_l: float, p_r: float, s: int) -> tuple[float, float, float, float]:
        a, b, c, d = (float(f(p, p_l, p_r, s)) for f in fns)
        return a, b, c, d

    return uv


def uv_cases(printed: Mapping[str, str], points: Sequence[Mapping[str, float]], uv: UV = privlab_uv) -> list[Case]:
    """Equations 3-4 as printed, and privlab's ``uv``, against u1 + v1, u2, v2 solved from the
    new copy's conditional law given its neighbours (``points``: p_l > p > p_r, s).

    ``printed`` has u_eq, v_eq, u_ne, v_ne (y_l = y_r and y_l != y_r) and keep (step 9: keep
    y_l with probability ``keep`` when no p_r exists). With y_l = y_r only the sum u1 + v1 is
    determined; the printed split is checked to be a valid one (0 <= u1, v1; u1 + v1 <= 1).
    """
    printed = check_mapping("printed", printed, ("u_eq", "v_eq", "u_ne", "v_ne", "keep"))
    points = _values(points, ("p", "pl", "pr", "s"), "uv_cases")
    if not callable(uv):
        raise PrivlabError("uv must be a function (p, p_l, p_r, s) -> (u_eq, v_eq, u_ne, v_ne)")
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    solved = _solved_uv()
    e = {k: parse(printed[k], symbols(), what=f"the printed {k}") for k in ("u_eq", "v_eq", "u_ne", "v_ne", "keep")}
    out = [
        _symbolic("uv_u_ne", printed["u_ne"], solved["u_ne"], points),
        _symbolic("uv_v_ne", printed["v_ne"], solved["v_ne"], points),
        _symbolic("uv_sum_eq", f"({printed['u_eq']}) + ({printed['v_eq']})", solved["uv_eq"], points),
        _symbolic("uv_keep", printed["keep"], solved["keep"], points),
    ]
    splits = [(value_at(e["u_eq"], pt), value_at(e["v_eq"], pt)) for pt in points]
    valid = all(u >= -1e-12 and v >= -1e-12 and u + v <= 1 + 1e-12 for u, v in splits)
    at = points[0]
    out.append(
        Case(
            "uv_split_eq",
            f"u1 = {printed['u_eq']}, v1 = {printed['v_eq']}",
            f"any 0 <= u1 <= u1 + v1 = {sp.factor(solved['uv_eq'])}",
            describe(at),
            splits[0][0],
            value_at(solved["uv_eq"], at),
            bool(valid),
            f"u1, v1 are not separately determined (y_l = y_r); the printed split is "
            f"{'a valid' if valid else 'not a valid'} pair of probabilities on {len(points)} grid points",
        )
    )
    fns = {k: function(solved[k], ("p", "pl", "pr", "s"), symbols()) for k in ("uv_eq", "u_ne", "v_ne")}
    gap, first = 0.0, None
    for pt in points:
        args = (pt["p"], pt["pl"], pt["pr"], int(pt["s"]))
        u1, v1, u2, v2 = uv(*args)
        want = (fns["uv_eq"](*args), fns["u_ne"](*args), fns["v_ne"](*args))
        gap = max(gap, *(abs(a - b) for a, b in zip((u1 + v1, u2, v2), want)))
        first = first or (u1 + v1, want[0])
    assert first is not None
    out.append(
        Case(
            "uv_privlab",
            "privlab.multilevel.uv",
            "solved u1 + v1, u2, v2",
            describe(at),
            first[0],
            first[1],
            bool(gap <= 1e-12),
            f"max |privlab - solved| = {gap:.2e} over {len(points)} grid points",
        )
    )
    return out


# ---------------------------------------------------------------------------------------
# the exact law of the algorithm, followed step by step
# ---------------------------------------------------------------------------------------
def algorithm_joint(
    prior: Any, ps: Any, domain_size: int, uv: UV = privlab_uv, keep: Callable[[float, float], float] | None = None
) -> np.ndarray:
    """Exact joint law of (X, copies in request order) by following the slides' Algorithm multi-pert.

    Each request: an earlier p returns that copy (p = 1: X itself); else p_l (smallest released
    p above, or 1 and X itself) and p_r (largest released p below). Without p_r the new copy keeps y_l
    with probability ``keep(p, p_l)`` (the text: p / p_l), else a uniform value; with p_r it
    takes y_l with probability u, y_r with probability v, else a uniform value, (u, v) from
    ``uv`` by whether y_l = y_r. No chain law is assumed.

    Parameters
    ----------
    prior : array of float
        The law of X on 0..s-1.
    ps : sequence of float
        Retention probabilities in request order.
    domain_size : int
        s >= 2; s^(1 + len(ps)) cells are held.
    uv : callable
        (p, p_l, p_r, s) -> (u_eq, v_eq, u_ne, v_ne); privlab's `uv` by default.
    keep : callable, optional
        (p, p_l) -> probability of keeping y_l when no p_r exists; p / p_l by default.

    Returns
    -------
    ndarray, shape (s,) * (1 + len(ps))
    """
    s = check_s(domain_size)
    checked = check_ps(ps)
    check_cells(f"algorithm_joint: domain_size {s} to the power 1 + {len(checked)} copies", s ** (1 + len(checked)))
    law = check_distribution("prior", prior)
    if law.size != s:
        raise PrivlabError(f"prior must have domain_size = {s} entries, got {law.size}")
    keep = keep or (lambda p, p_l: p / p_l)
    eye = np.eye(s)
    joint = law.copy()
    released: dict[float, int] = {1.0: 0}  # p -> axis of its copy; p = 1 is the original D itself (step 4)
    for p in checked:
        k = joint.ndim
        shape = [1] * (k + 1)
        if p in released:
            shape[released[p]], shape[k] = s, s
            joint = joint[..., None] * eye.reshape(shape)
            continue
        p_l = min(q for q in released if q > p)
        ax_l = released[p_l]
        below = [q for q in released if q < p]
        if not below:
            q = keep(p, p_l)
            cond = q * eye + (1 - q) / s  # [y_l, y]
            shape[ax_l], shape[k] = s, s
        else:
            p_r = max(below)
            ax_r = released[p_r]
            u1, v1, u2, v2 = uv(p, p_l, p_r, s)
            same = eye[:, :, None] > 0  # [y_l, y_r, 1]: y_l = y_r
            u, v = np.where(same, u1, u2), np.where(same, v1, v2)
            cond = u * eye[:, None, :] + v * eye[None, :, :] + (1 - u - v) / s  # [y_l, y_r, y]
            if ax_l > ax_r:  # a reshape lays the axes out in order
                cond = cond.transpose(1, 0, 2)
            shape[ax_l], shape[ax_r], shape[k] = s, s, s
        joint = joint[..., None] * cond.reshape(shape)
        released[p] = k
    return joint


def _margin(joint: np.ndarray, keep: Sequence[int]) -> np.ndarray:
    """The joint law of the axes ``keep`` (in that order)."""
    other = tuple(a for a in range(joint.ndim) if a not in keep)
    m = joint.sum(axis=other)
    order = sorted(keep)
    return np.moveaxis(m, [order.index(a) for a in keep], list(range(len(keep))))


def _theorem_gaps(g: GridPoint, uv: UV, laws: Mapping[str, Callable[..., float]]) -> dict[str, float]:
    """Max deviations of one grid point's algorithm law from Lemma 1, Theorems 1 and 2."""
    s, ps = g.s, list(g.ps)
    joint = algorithm_joint(g.prior, ps, s, uv)
    k = len(ps)
    eye = np.eye(s, dtype=bool)
    gaps = dict.fromkeys(("theorem2", "lemma1_markov", "lemma1_transition", "theorem1"), 0.0)
    for i, p in enumerate(ps):  # Theorem 2: Pr[Y_i | X] is uni-pert's
        pair = _margin(joint, [0, 1 + i])
        cond = pair / pair.sum(axis=1, keepdims=True)
        want = np.where(eye, laws["same"](p, s), laws["other"](p, s))
        gaps["theorem2"] = max(gaps["theorem2"], float(np.abs(cond - want).max()))
    chain = [0] + [1 + i for i in sorted(range(k), key=lambda i: -ps[i])]  # X, then decreasing p
    chain_p = [1.0] + sorted(ps, reverse=True)
    for j in range(1, len(chain)):  # Lemma 1 along the chain Y_0 = X, Y_1, ...
        full = _margin(joint, chain[: j + 1])
        given_all = full / full.sum(axis=-1, keepdims=True)
        pair = _margin(joint, [chain[j - 1], chain[j]])
        given_prev = pair / pair.sum(axis=-1, keepdims=True)
        gaps["lemma1_markov"] = max(gaps["lemma1_markov"], float(np.abs(given_all - given_prev).max()))
        want = np.where(
            eye, laws["step_same"](chain_p[j], chain_p[j - 1], s), laws["step_other"](chain_p[j], chain_p[j - 1], s)
        )
        gaps["lemma1_transition"] = max(gaps["lemma1_transition"], float(np.abs(given_prev - want).max()))
    for r in range(1, k + 1):  # Theorem 1: every subset of copies tells what its best copy tells
        for subset in itertools.combinations(range(k), r):
            best = max(subset, key=lambda i: ps[i])
            m = _margin(joint, [0, *(1 + i for i in subset)])
            post = m / m.sum(axis=0, keepdims=True)
            b = _margin(joint, [0, 1 + best])
            b = b / b.sum(axis=0, keepdims=True)
            shape = [s] + [s if i == best else 1 for i in subset]
            gaps["theorem1"] = max(gaps["theorem1"], float(np.abs(post - b.reshape(shape)).max()))
    return gaps


def _lambdas(printed: Mapping[str, str]) -> dict[str, Callable[..., float]]:

    sym = symbols()
    out = {}
    for key, names in (
        ("same", ("p", "s")),
        ("other", ("p", "s")),
        ("step_same", ("p_i", "p_prev", "s")),
        ("step_other", ("p_i", "p_prev", "s")),
    ):
        out[key] = function(parse(printed[key], sym, what=f"the printed {key}"), names, sym)
    return out


def chain_cases(
    printed: Mapping[str, str], points: Sequence[GridPoint], uv: UV = privlab_uv, *, tol: float = 1e-12
) -> list[Case]:
    """Lemma 1, Theorems 1 and 2 on the law of the algorithm followed step by step.

    ``printed`` holds Theorem 2's law (``same``, ``other`` in p, s) and Lemma 1's transition
    (``step_same``, ``step_other`` in p_i, p_prev, s). Every grid point (prior, s, p's in
    request order) gives the exact joint law of X and the copies through `algorithm_joint`
    with ``uv``; each check reports its largest deviation over the grid.
    """
    printed = check_mapping("printed", printed, ("same", "other", "step_same", "step_other"))
    points = _grid_points(points, "chain_cases")
    laws = _lambdas(printed)
    tol = check_real("tol", tol, low=0)
    per = [(g, _theorem_gaps(g, uv, laws)) for g in points]
    worst = {key: max(gaps[key] for _, gaps in per) for key in per[0][1]}
    g0 = points[0]
    first = algorithm_joint(g0.prior, list(g0.ps), g0.s, uv)
    pair = _margin(first, [0, 1])  # (X, the first copy)
    top = 1 + int(np.argmax(g0.ps))  # the chain's first step: X -> the highest copy
    step = _margin(first, [0, top])
    inst = f"s = {g0.s}, ps = {list(g0.ps)}, x = y = 1"
    sizes, most = sorted({g.s for g in points}), max(len(g.ps) for g in points)
    size = f"{len(points)} grid points (s in {sizes}, up to {most} copies)"
    rows = {
        "lemma1_markov": ("Pr[Y_i | Y_0, ..., Y_(i-1)] = Pr[Y_i | Y_(i-1)]", "lemma1_markov", math.nan, math.nan),
        "lemma1_transition": (
            f"[{printed['step_same']}, {printed['step_other']}]",
            "lemma1_transition",
            laws["step_same"](max(g0.ps), 1.0, g0.s),
            float(step[0, 0] / step[0].sum()),
        ),
        "theorem1": ("Pr[X | L] = Pr[X | best(L)]", "theorem1", math.nan, math.nan),
        "theorem2": (
            f"[{printed['same']}, {printed['other']}]",
            "theorem2",
            laws["same"](g0.ps[0], g0.s),
            float(pair[0, 0] / pair[0].sum()),
        ),
    }
    out = []
    for case, (shown, key, pv, dv) in rows.items():
        detail = f"max deviation {worst[key]:.2e} over {size}"
        out.append(Case(case, shown, "the algorithm's exact law", inst, pv, dv, bool(worst[key] <= tol), detail))
    orders = {o: [g for g, _ in per if g.order == o] for o in ("ascending", "descending", "mixed")}
    held = {o: all(max(gaps.values()) <= tol for g, gaps in per if g.order == o) for o in orders}
    detail = "; ".join(
        f"{o}: {len(v)} order(s), {'all hold' if held[o] else 'a check fails'}" for o, v in orders.items()
    )
    ok = all(held.values()) and all(orders.values())
    out.append(
        Case(
            "orders",
            "any order of requests",
            "Lemma 1 and Theorems 1-2 in every order",
            inst,
            math.nan,
            math.nan,
            bool(ok),
            detail,
        )
    )
    return out


def lemma2_cases(
    printed: Mapping[str, str],
    points: Sequence[GridPoint],
    cs: Sequence[float],
    steps: Sequence[int],
    uv: UV = privlab_uv,
) -> list[Case]:
    """Lemma 2: E[disp(t)] < ln(1/c) (``printed['bound']`` in c), disp(t) the number of
    consecutive copies (in decreasing p) that differ, when every p >= c.

    Two checks: Pr[Y_i != Y_(i-1)] from the printed Lemma 1 transition against the
    algorithm's law (``step``); and the bound, with E[disp] from the algorithm's law on the
    grid and, for long chains (``steps`` p's spread geometrically over [c, 1] for each c in
    ``cs``), from Lemma 1's step probabilities.
    """
    printed = check_mapping("printed", printed, ("bound", "step_same"))
    points = _grid_points(points, "lemma2_cases")
    for m in steps:
        check_cells(f"lemma2_cases: a chain of {m:,} steps", check_int("steps[]", m, low=2))
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    bound = parse(printed["bound"], symbols(), what="the printed bound")
    f_bound = function(bound, ("c",), sym)
    laws = _lambdas(printed)
    worst_step, ratios = 0.0, []
    for g in points:
        joint = algorithm_joint(g.prior, list(g.ps), g.s, uv)
        order = sorted(range(len(g.ps)), key=lambda i: -g.ps[i])
        disp = 0.0
        for a, b in zip(order, order[1:]):
            differ = 1.0 - float(np.trace(_margin(joint, [1 + a, 1 + b])))
            printed_differ = 1.0 - laws["step_same"](g.ps[b], g.ps[a], g.s)
            worst_step = max(worst_step, abs(differ - printed_differ))
            disp += differ
        c = min(g.ps)
        ratios.append((disp, f_bound(c), g.s, c))
    for s in sorted({g.s for g in points}):
        for c in cs:
            c = check_real("cs[]", c, low=0, high=1, low_open=True, high_open=True)
            for m in steps:
                m = check_int("steps[]", m, low=2)
                chain = c ** (np.arange(m) / (m - 1))  # 1 = p_1 > ... > p_m = c
                disp = float(sum(1 - laws["step_same"](q, prev, s) for prev, q in zip(chain, chain[1:])))
                ratios.append((disp, f_bound(c), s, c))
    holds = all(d < b for d, b, _, _ in ratios)
    top = max(ratios, key=lambda r: r[0] / r[1])
    inst_c = min(points[0].ps)
    first = ratios[0]
    detail = (
        f"largest E[disp] / bound = {top[0] / top[1]:.4f} (s = {top[2]}, c = {top[3]:g}); it tends to "
        f"1 - 1/s as the p's fill [c, 1]; at c = 1 (no perturbation) both sides are 0 and '<' fails"
    )
    s0 = points[0].s
    step_sym = 1 - parse(printed["step_same"], symbols(), what="the printed step_same")
    derived_step = (1 - 1 / sym["s"]) * (1 - sym["p_i"] / sym["p_prev"])
    return [
        Case(
            "lemma2_step",
            f"1 - ({printed['step_same']})",
            str(sp.factor(derived_step)),
            f"s = {s0}, ps = {list(points[0].ps)}",
            float(step_sym.subs({sym["p_i"]: 0.5, sym["p_prev"]: 1.0, sym["s"]: s0})),
            float(derived_step.subs({sym["p_i"]: 0.5, sym["p_prev"]: 1.0, sym["s"]: s0})),
            bool(worst_step <= 1e-12),
            f"max |printed - algorithm's law| = {worst_step:.2e}",
        ),
        Case(
            "lemma2_bound",
            printed["bound"],
            "(1 - 1/s) sum_i (1 - p_i/p_(i-1)) <= (1 - 1/s) ln(p_1/p_m)",
            f"s = {s0}, ps = {list(points[0].ps)}, c = {inst_c:g}",
            first[1],
            first[0],
            bool(holds),
            detail,
        ),
    ]


def estimator_cases(points: Sequence[GridPoint], uv: UV = privlab_uv) -> list[Case]:
    """The Experiments slides' estimators from F[X, Y_a, Y_b, Y_c] (the slides' ratios of sums), applied to
    the expected counts of the algorithm's law, against `exact.posterior` and
    `exact.copy_given_x` (the chain law, computed without u/v)."""
    points = _grid_points(points, "estimator_cases")
    out_all, out_c, out_copy = 0.0, 0.0, 0.0
    used = [g for g in points if len(g.ps) == 3]
    if not used:
        raise PrivlabError("the estimator check needs grid points with three copies (Y_a, Y_b, Y_c)")
    for g in used:
        s, ps = g.s, list(g.ps)
        F = 1e10 * algorithm_joint(g.prior, ps, s, uv)  # expected counts of 10^10 trials
        for ya, yb, yc in itertools.product(range(s), repeat=3):
            est = F[:, ya, yb, yc] / F[:, ya, yb, yc].sum()  # F[x,ya,yb,yc] / sum_x' F[x',ya,yb,yc]
            out_all = max(out_all, float(np.abs(est - posterior(g.prior, ps, s, {0: ya, 1: yb, 2: yc})).max()))
        for yc in range(s):
            est = F[:, :, :, yc].sum(axis=(1, 2)) / F[:, :, :, yc].sum()
            out_c = max(out_c, float(np.abs(est - posterior(g.prior, ps, s, {2: yc})).max()))
        est = F.sum(axis=(2, 3)) / F.sum(axis=(1, 2, 3))[:, None]  # sum_yb,yc F[x,ya,..] / sum_ya,yb,yc F[x,..]
        out_copy = max(out_copy, float(np.abs(est - copy_given_x(g.prior, ps, s, 0)).max()))
    shown = f"{len(used)} grid points with three copies"
    return [
        Case(
            "estimator_all",
            "F[x,ya,yb,yc] / sum_x' F[x',ya,yb,yc]",
            "Pr[X = x | Y_a, Y_b, Y_c]",
            shown,
            math.nan,
            math.nan,
            bool(out_all <= 1e-9),
            f"max deviation {out_all:.2e}",
        ),
        Case(
            "estimator_c",
            "sum_ya,yb F[x,ya,yb,yc] / sum_x',ya,yb F[x',ya,yb,yc]",
            "Pr[X = x | Y_c]",
            shown,
            math.nan,
            math.nan,
            bool(out_c <= 1e-9),
            f"max deviation {out_c:.2e}",
        ),
        Case(
            "estimator_copy",
            "sum_yb,yc F[x,ya,yb,yc] / sum_ya,yb,yc F[x,ya,yb,yc]",
            "Pr[Y_a = y_a | X = x]",
            shown,
            math.nan,
            math.nan,
            bool(out_copy <= 1e-9),
            f"max deviation {out_copy:.2e}",
        ),
    ]


def index_case(printed: str, symbol: str, symbols: Mapping[str, str], recipients: str = "H") -> Case:
    """The range a theorem gives the recipient index, against the problem definition's table.

    The recipients are the set ``recipients`` (the slides: H, "the set of recipients we
    responded to before"); their index runs to the symbol the table defines as its size.

    Parameters
    ----------
    printed : str
        The range as printed (the slides' Theorem 2: ``1 <= i <= n``).
    symbol : str
        Its upper bound's symbol (``n``).
    symbols : mapping of str to str
        The problem definition's table: symbol -> description.
    recipients : str
        The symbol of the set of recipients.
    """
    if not all(isinstance(v, str) and v for v in (printed, symbol, recipients)):
        raise PrivlabError("index_case takes the printed range, its symbol and the recipients' symbol as strings")
    if not isinstance(symbols, Mapping):
        raise PrivlabError(f"symbols must be a mapping of symbol to description, got {type(symbols).__name__}")
    wanted = f"the size of {recipients}".lower()
    found = [k for k, text in symbols.items() if str(text).strip().lower() == wanted]
    if len(found) != 1:
        raise PrivlabError(f"symbols must define exactly one symbol as 'the size of {recipients}', found {found}")
    size = found[0]
    what = symbols.get(symbol, "not in the table")
    detail = f"{symbol}: {what}; {size}: {symbols[size]}"
    derived = printed.replace(symbol, size) if symbol != size else printed
    return Case(
        "theorem2_index",
        printed,
        derived,
        "Parameters slide: m = 3 recipients (Alice, Bob, Charlie)",
        math.nan,
        math.nan,
        symbol == size,
        detail,
    )


def formula_table(
    formulas: Mapping[str, Any],
    instance: Mapping[str, Any],
    grid_spec: Mapping[str, Any],
    lemma2: Mapping[str, Any],
    *,
    tol: float,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """The whole formula audit: every displayed formula, printed against derived, as one table.

    Parameters
    ----------
    formulas : mapping
        The printed formulas by group: ``uni_pert``, ``conditional``, ``uv``, ``lemma1``,
        ``lemma2`` (sympy strings by key), ``theorem2_index`` (``range``, ``symbol``) and
        ``symbols`` (see the checkers).
    instance : mapping
        The numeric instance shown beside each symbolic check: ``p``, ``pl``, ``pr``, ``s``
        (uni-pert, u/v) and ``pa``, ``pb``, ``s_derivation`` (the derivation slide).
    grid_spec : mapping
        `grid`'s ``domain_sizes``, ``orders``, ``random_orders``, ``max_copies`` and ``seed``.
    lemma2 : mapping
        `lemma2_cases`' ``cs`` and ``steps``.
    tol : float
        The numeric slack of `chain_cases`.
    map_fn : callable, optional
        Runs the checkers, one group of formulas each (`privlab.formulas.check_all`).

    Returns
    -------
    DataFrame
        The formulas table (`privlab.formulas.COLUMNS`): one row per case, keyed by the printed
        formula's name.
    """
    groups = ("uni_pert", "conditional", "uv", "lemma1", "lemma2", "theorem2_index", "symbols")
    f = check_mapping("formulas", formulas, groups)
    i = check_mapping("instance", instance, ("p", "pl", "pr", "pa", "pb", "s", "s_derivation"))
    g = check_mapping("grid_spec", grid_spec, ("domain_sizes", "orders", "random_orders", "max_copies", "seed"))
    check_mapping("lemma2", lemma2, ("cs", "steps"))
    points = grid(g["domain_sizes"], g["orders"], g["random_orders"], g["max_copies"], seed=g["seed"])
    near = neighbour_points(points)  # p_l > p > p_r and s from the grid
    at = {"p": i["p"], "pl": i["pl"], "pr": i["pr"], "s": float(i["s"])}
    pair = [{"pa": i["pa"], "pb": i["pb"], "s": float(i["s_derivation"])}]
    pair += [{"pa": q["pr"], "pb": q["p"], "s": q["s"]} for q in near]
    laws = {**f["uni_pert"], **f["lemma1"], **f["lemma2"]}
    uv = printed_uv(f["uv"])  # the slides' u, v drive the algorithm
    single = [{"p": i["p"], "s": float(i["s"])}] + [{"p": q["p"], "s": q["s"]} for q in near]
    cases: dict[str, Checker] = {
        "uni_pert": partial(uni_pert_cases, points=single),
        "conditional": partial(conditional_cases, points=pair),
        "uv": partial(uv_cases, points=[at, *near]),  # privlab's uv beside the printed formulas
        "chain": partial(chain_cases, points=points, uv=uv, tol=tol),
        "theorem2_index": partial(index_case, symbol=f["theorem2_index"]["symbol"], symbols=f["symbols"]),
        "lemma2": partial(lemma2_cases, points=points, cs=lemma2["cs"], steps=lemma2["steps"], uv=uv),
        "estimators": partial(estimator_cases, [q for q in points if q.s <= 5], uv),
    }
    printed = {group: f[group] for group in ("uni_pert", "conditional", "uv")}
    printed |= {"chain": laws, "theorem2_index": f["theorem2_index"]["range"], "lemma2": laws}
    return check_all(cases, printed, map_fn)
