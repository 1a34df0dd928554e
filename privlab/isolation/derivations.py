"""The talk's displayed formulas re-derived independently (seed 002; `isolation/formulas`).

Each checker takes the formula as the seed prints it (a sympy expression string; where the
extraction lost symbols, the reconstruction the config says) and derives the same quantity
from its defining conditions with sympy (an integral of the defining density, a volume, a
count), or from the definition on a numeric instance. It returns a `Case`: printed and
derived expressions, both at a numeric instance, and whether they match. A deliberately
altered printed formula (an operator flipped, a term dropped) is caught as a mismatch
(``tests/isolation/test_formulas.py``). Nothing here calls the code it checks, except where
a case is *about* privlab's code (`noise_law_cases` also compares `expected_noise_length_ratio`).
`formula_table` runs every checker on the config's printed formulas and instances.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp

from .._validation import MapFn, PrivlabError, check_int, check_mapping, check_real
from ..formulas import Case, Checker, check_all, compare, describe, parse, same, value_at
from .metric import t_radius
from .sanitizers import expected_noise_length_ratio

__all__ = [
    "SYMBOLS",
    "noise_law_cases",
    "ball_ratio_case",
    "cell_split_case",
    "universe_case",
    "case1_distance_case",
    "case1_count_case",
    "union_bound_case",
    "t_radius_case",
    "formula_table",
]

d, s, c, r, t, scale, n, b, T_ = sp.symbols("d s c r t scale n b T", positive=True)
#: The symbols a printed formula may use (and the Gamma function of the noise law).
SYMBOLS: dict[str, Any] = {"d": d, "s": s, "c": c, "r": r, "t": t, "scale": scale, "n": n, "b": b, "T": T_}
SYMBOLS["gamma"] = sp.gamma
GRID_D = tuple(range(1, 41))  # the dimensions a numeric comparison runs over besides same's random points


@functools.cache
def _noise_law() -> tuple[sp.Expr, sp.Expr]:
    """E||Z|| / t and E||Z||^2 of a spherical Gaussian of per-coordinate s.d. scale t / sqrt(d)."""
    x = sp.symbols("x", positive=True)
    sd = scale * t / sp.sqrt(d)
    chi = x ** (d - 1) * sp.exp(-(x**2) / 2) / (2 ** (d / 2 - 1) * sp.gamma(d / 2))
    mean = sp.simplify(sd * sp.integrate(x * chi, (x, 0, sp.oo), conds="none") / t)
    z = sp.symbols("z", real=True)
    second = sp.integrate(z**2 * sp.exp(-(z**2) / (2 * sd**2)) / sp.sqrt(2 * sp.pi * sd**2), (z, -sp.oo, sp.oo))
    return mean, sp.simplify(d * second)


def noise_law_cases(mean: str, square: str, at: dict[str, float], code: Any = None) -> list[Case]:
    """Perturbation's noise (slide 13: "a random vector of length proportional to t_x"), as
    privlab draws it [reconstructed]: a spherical Gaussian with per-coordinate s.d.
    ``scale t / sqrt(d)``. Derived from the density: ``E||Z||`` is the integral of r against the
    chi_d density (times the s.d.), ``E||Z||^2`` d times a coordinate's second moment.

    ``mean`` / ``square``: the printed E||Z|| / t and E||Z||^2; ``code(d, scale)``: privlab's
    `expected_noise_length_ratio`, compared on the grid of d too."""
    derived_mean, derived_sq = _noise_law()
    grid = [{"d": k, "scale": at["scale"] * f, "t": at["t"] * g} for k in GRID_D for f, g in ((1, 1), (0.7, 1.9))]
    mean_case = compare("noise_mean", mean, derived_mean, SYMBOLS, at, at=grid)
    if code is not None:  # privlab's own law, on the same grid
        gap = max(abs(code(int(p["d"]), p["scale"]) - value_at(derived_mean, p)) for p in grid)
        detail = f"privlab's expected_noise_length_ratio within {gap:.1e} of the derived law at d = 1..{GRID_D[-1]}"
        mean_case = replace(mean_case, match=mean_case.match and gap < 1e-12, detail=detail)
    return [mean_case, compare("noise_square", square, derived_sq, SYMBOLS, at, at=grid)]


def ball_ratio_case(printed: str, bound: str, at: dict[str, float]) -> Case:
    """Slide 18's proof idea: Vol(B(q, c r)) over Vol(B(q, r)) for balls inside the cell, from the
    volume of the d-ball pi^(d/2) r^d / Gamma(d/2 + 1); it exceeds the printed 2^d iff c > 2."""
    vol = sp.pi ** (d / 2) * r**d / sp.gamma(d / 2 + 1)
    derived = sp.simplify(vol.subs(r, c * r) / vol)
    bd = parse(bound, SYMBOLS, what="the printed ball_bound")
    grid = [{"d": k, "c": at["c"]} for k in GRID_D]
    case = compare("ball_ratio", printed, derived, SYMBOLS, at, at=grid)
    above = all(value_at(derived, p) > value_at(bd, p) for p in grid)
    detail = f"derived ratio > {bound} at every d = 1..{GRID_D[-1]} iff c > 2 (here c = {at['c']:g})"
    return replace(case, match=case.match and above, detail=detail)


def cell_split_case(printed: str, at: dict[str, float]) -> Case:
    """Slide 12: a cell of side s split "by splitting each side evenly" gives (s / (s/2))^d
    sub-cubes of side s/2, each holding 1/2^d of its volume."""
    derived = sp.simplify(s**d / (s / 2) ** d)
    return compare("cell_split", printed, derived, SYMBOLS, at, at=[{"d": k, "s": at["s"]} for k in GRID_D])


def universe_case(printed_exponent: str, derived_exponent: str, at: dict[str, float]) -> Case:
    """Slide 12: the universe, "a d-dimensional hypercube", printed as [-1, 1]^(printed exponent):
    the number of coordinates it gives against the d of its own words."""
    pr, der = parse(printed_exponent, SYMBOLS, what="the printed universe"), parse(derived_exponent, SYMBOLS)
    ok = same(pr, der)
    shown = f"[-1, 1]^{printed_exponent}", f"[-1, 1]^{derived_exponent}"
    detail = "coordinates of the universe at the instance"
    return Case("universe", shown[0], shown[1], describe(at), value_at(pr, at), value_at(der, at), bool(ok), detail)


@functools.cache
def _case1_ratio() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """c sqrt(E||q - x||^2) / diam(parent) for x uniform in a cell of side s and q uniform in it or
    at its centre, and E||q - x||^2 of the first."""
    u, v = sp.symbols("u v", real=True)
    uniform = sp.integrate(sp.integrate((u - v) ** 2, (u, 0, s)), (v, 0, s)) / s**2  # one coordinate
    centre = sp.integrate((u - s / 2) ** 2, (u, 0, s)) / s
    ratios = [sp.simplify(c * sp.sqrt(sp.simplify(d * e)) / (2 * s * sp.sqrt(d))) for e in (uniform, centre)]
    return ratios[0], ratios[1], sp.simplify(d * uniform)


def case1_distance_case(printed: str, at: dict[str, float]) -> Case:
    """Slide 17, Case 1: "c times this distance [||q - x||, q and x in the same cell] is larger
    than the diameter of the parent cell", for c "a large enough constant" (slides 14, 18).
    Derived: E||q - x|| is at most sqrt(E||q - x||^2) = s sqrt(d/6) for q, x uniform in a cell of
    side s (a coordinate's difference of two uniforms), s sqrt(d/12) for q at the cell's centre,
    and nearly equal to it in high d; the parent's diameter is 2 s sqrt(d). The ratio is c/(2
    sqrt(6)), or c/(4 sqrt(3)): free of d and s and growing in c, so it exceeds the printed bound
    for every c above a finite threshold (4.899, or 6.928 for q at the centre). The case matches
    when both thresholds exist; the derived value is the ratio at the instance's c (slide 7's
    example c = 4 is not large enough). ``printed``: the printed ratio (c times the distance over
    the parent's diameter) as a lower bound, e.g. ``1``."""
    uniform, centre, square = _case1_ratio()
    pr = parse(printed, SYMBOLS, what="the printed case1_distance")
    needed = []
    for ratio in (uniform, centre):
        roots = [r for r in sp.solve(sp.Eq(ratio, pr), c) if r.is_nonnegative and r.is_finite]
        grows = ratio.free_symbols == {c} and bool(sp.diff(ratio - pr, c).is_positive)
        needed.append(float(roots[0]) if len(roots) == 1 and grows else math.inf)
    ok = all(math.isfinite(x) for x in needed)
    derived = f"c sqrt(E||q-x||^2) / diam(parent) = {uniform} (q uniform in the cell; E||q-x||^2 = {square}), "
    derived += f"{centre} (q at its centre)"
    holds = [f"c > {x:.4f}" if math.isfinite(x) else "no c" for x in needed]
    detail = (
        f"holds for {holds[0]} (q uniform in the cell), {holds[1]} (q at its centre); "
        f"slide 7's example c = {at['c']:g} gives {value_at(uniform, at):.4f}"
    )
    return Case("case1_distance", f"c E||q-x|| / diam(parent) > {printed} for a large enough c", derived, describe(at),
                value_at(pr, at), value_at(uniform, at), ok, detail)  # fmt: skip


def case1_count_case(printed_others: str, T: int, d_: int, c_: float) -> Case:
    """Slide 17, Case 1: "B(q, c delta) contains at least T points", read against slide 7's
    definition (x is isolated when the ball holds fewer than T points *other than x*) and
    slide 12's rule (a cell holding T or more points is split). Instance: a parent cell holding
    exactly T points, the whole of the data, split into its sub-cubes; the adversary's q inside
    x's cell with a ball covering the parent. Derived: the others the ball holds, counted from
    the definition. ``printed_others``: the count Case 1 implies (``T``)."""
    T = check_int("T", T, low=2)
    d_ = check_int("d", d_, low=1)
    c_ = check_real("c", c_, low=1)
    rng = np.random.default_rng(0)
    corners = np.array([[(k >> j) & 1 for j in range(d_)] for k in range(T)], dtype=float)  # distinct sub-cubes
    db = -1 + corners + rng.uniform(0.25, 0.75, size=(T, d_))  # one point per sub-cube of [-1, 1]^d
    x, q = db[0], db[0] + 0.1  # q in x's cell
    radius = c_ * float(np.linalg.norm(q - x))
    if radius <= 2 * math.sqrt(d_) + 0.1 * math.sqrt(d_):  # the ball must cover the parent [-1, 1]^d
        radius_c = (2 * math.sqrt(d_) + 0.1 * math.sqrt(d_)) / float(np.linalg.norm(q - x))
        raise PrivlabError(f"c must be at least {radius_c:.3g} for the ball to cover the parent cell, got {c_:g}")
    others = int(np.sum(np.linalg.norm(db[1:] - q, axis=1) <= radius))
    pr = parse(printed_others, SYMBOLS, what="the printed case1_count")
    ok = others >= value_at(pr, {"T": T})  # not isolated needs T others
    at = {"T": float(T), "d": float(d_), "c": c_}
    detail = f"{others} other points < T = {T}: x is isolated (Case 1 needs parents of at least T + 1 points)"
    return Case("case1_count", f"points in B(q, c delta) >= {printed_others}, so x is not isolated",
                f"other points in B(q, c delta) = (points of the parent) - 1 = {others}", describe(at),
                value_at(pr, {"T": T}), float(others), bool(ok), "" if ok else detail)  # fmt: skip


def union_bound_case(printed: str, per_point: str, n_of_d: str, at: dict[str, float]) -> Case:
    """Slide 24, histogram over n/2 points and n/2 perturbed: isolating *anyone* is O(n 2^-Omega(d)),
    with n = 2^o(d). Derived: the union bound over n targets of a 2^(-b d) per-target probability,
    and its limit as d grows with n = ``n_of_d`` (sub-exponential)."""
    derived = n * parse(per_point, SYMBOLS, what="the printed per_point")
    case = compare("union_bound", printed, derived, SYMBOLS, at)
    limit = sp.limit(derived.subs(n, parse(n_of_d, SYMBOLS, what="n_of_d")), d, sp.oo)
    detail = f"with n = {n_of_d}: the bound tends to {limit} as d grows"
    return replace(case, match=case.match and limit == 0, detail=detail)


def t_radius_case(T: int, n_: int, d_: int, code: Any) -> Case:
    """Slide 13: t_x is the radius of the smallest ball B(x, t_x) holding T points (x included).
    Derived: the T-th smallest distance from x, by sorting; ``code(db, T)``: privlab's `t_radius`."""
    rng = np.random.default_rng(1)
    db = rng.uniform(-1, 1, size=(n_, d_))
    brute = np.sort(np.sqrt(((db[:, None, :] - db[None, :, :]) ** 2).sum(-1)), axis=1)[:, T - 1]
    got = np.asarray(code(db, T))
    counts = (np.sqrt(((db[:, None, :] - db[None, :, :]) ** 2).sum(-1)) <= got[:, None]).sum(1)
    ok = bool(np.allclose(got, brute, rtol=1e-12) and np.all(counts >= T))
    at = {"T": float(T), "n": float(n_), "d": float(d_)}
    return Case("t_radius", "|B(x, t_x)| = T, t_x smallest", "T-th smallest ||x - y|| over y in RDB (x included)",
                describe(at), float(got[0]), float(brute[0]), ok, f"every one of {n_} rows")  # fmt: skip


FORMULAS = (  # the printed formulas formula_table reads
    "noise_mean",
    "noise_square",
    "ball_ratio",
    "ball_bound",
    "cell_split",
    "universe",
    "case1_distance",
    "case1_count",
    "union_bound",
    "per_point",
)


def formula_table(
    formulas: Mapping[str, str],
    instance: Mapping[str, float],
    case1: Mapping[str, Any],
    radius: Mapping[str, int],
    n_of_d: str,
    *,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Every displayed formula of the talk beside its derivation: one row per case, in the talk's order.

    Parameters
    ----------
    formulas : mapping
        The printed formulas (sympy strings), keyed by `FORMULAS`.
    instance : mapping
        The numeric instance of the symbolic rows: ``d``, ``c``, ``s``, ``t``, ``scale``, ``n``, ``b``.
    case1 : mapping
        ``T``, ``d``, ``c`` of Case 1's count (`case1_count_case`).
    radius : mapping
        ``T``, ``n``, ``d`` of the T-radius check (`t_radius_case` of privlab's `t_radius`).
    n_of_d : str
        A sub-exponential n as a function of d, for the union bound's limit.
    map_fn : callable, optional
        Runs the checkers (`privlab.formulas.check_all`).

    Returns
    -------
    DataFrame
        The formulas table (`privlab.formulas.COLUMNS`).
    """
    f = check_mapping("formulas", formulas, FORMULAS)
    i = check_mapping("instance", instance, ("d", "c", "s", "t", "scale", "n", "b"))
    k1, tr = check_mapping("case1", case1, ("T", "d", "c")), check_mapping("radius", radius, ("T", "n", "d"))
    if not isinstance(n_of_d, str):
        raise PrivlabError(f"n_of_d must be a sympy expression string, got {n_of_d!r}")

    def at(*keys: str) -> dict[str, float]:
        return {k: check_real(f"instance.{k}", i[k]) for k in keys}

    mean, square = f["noise_mean"], f["noise_square"]
    cases: dict[str, Checker] = {
        "noise_law": partial(noise_law_cases, mean, square, at("d", "scale", "t"), expected_noise_length_ratio),
        "ball_ratio": partial(ball_ratio_case, bound=f["ball_bound"], at=at("d", "c")),
        "cell_split": partial(cell_split_case, at=at("d", "s")),
        "universe": partial(universe_case, derived_exponent="d", at=at("d", "n")),
        "case1_distance": partial(case1_distance_case, at=at("c", "d", "s")),
        "case1_count": partial(case1_count_case, T=k1["T"], d_=k1["d"], c_=k1["c"]),
        "union_bound": partial(union_bound_case, per_point=f["per_point"], n_of_d=n_of_d, at=at("n", "b", "d")),
        "t_radius": partial(t_radius_case, tr["T"], tr["n"], tr["d"], t_radius),
    }
    printed = {
        k: f[k] for k in ("ball_ratio", "cell_split", "universe", "case1_distance", "case1_count", "union_bound")
    }
    return check_all(cases, printed, map_fn)
