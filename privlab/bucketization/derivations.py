"""The paper's displayed formulas, re-derived independently (seed 000).

Each case takes the formula as the paper prints it (a sympy-readable string; where the seed
lost the symbols, the reconstruction privlab uses, said so in the config) and compares it
with a derivation from the defining conditions that shares no code with the algorithms:
symbolically with sympy where the formula is algebraic, otherwise case by case on a grid
of parameters against a brute-force enumeration of what the formula claims to describe.
Every check returns a `privlab.formulas.Case` (symbolic ones compared by
`privlab.formulas.same`, the others by `privlab.formulas.grid_case`, whose detail names the
method and how many cases it tried).

=========================  ===============================================================
case                       derived from
=========================  ===============================================================
laplace_mean/_variance     integrals of x and x^2 against the Laplace(b) density
theorem1_dp                the density ratio of Laplace(1/eps) answers on neighbouring
                           counts, maximised over a grid of outputs
theorem2_mean/_variance    second-order delta method for a2~/a1~ (sympy derivatives)
theorem2_mean_exists       a comparison integral: E|a2~/a1~| is infinite (a1~ has density at 0)
corollary24_mean/_var      limits of the derived mean and variance as a1 grows, a2/a1 fixed
mse_bucket                 sum over a bucket of (association estimate - truth)^2
mse_one_bucket             the same for one bucket holding every record, divided by n
loss_setting               Loss = n - number of buckets, with sum b_j S_j = n
lemma37                    every set partition of small tables (a valid bucketization exists?)
lemma413_cond3/_cond4      every split of o records over b buckets of size S
smallest_size              the least S with floor(F S) >= 1, by search
remark38_l                 the least l whose 1/l is at most every F_i, by search
eq8_step_b1/_b2            consecutive pairs of the enumerated list L
eq9_last                   the last index of the enumerated list L
list_length                the enumerated list's length against the printed bound
lemma524_loss_step         Loss along L (sympy)
eq11_cutoff                the last k of L with Loss below a bound, by search
lemma526_fc                FC_1 / FC_2 along enumerated lists of random instances
lemma528_pc                o_i <= u_i1 / o_i <= u_i2 along the same lists
eq16_pc_step               the sign of the step of u_i1 + u_i2 along L
sec6_fake_share            the share of fakes among the values left (sympy derivative)
sec6_certainty             the adversary's certainty after all but one record is corrupted
=========================  ===============================================================
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from privlab._validation import MapFn, PrivlabError, check_mapping
from privlab.formulas import Case, check_all, function, grid_case, parse, same, value_at

__all__ = ["symbols", "CASES", "check_formula", "formula_table"]


@cache
def symbols() -> dict[str, Any]:
    """The names a printed formula may use (positive symbols), and lcm / gcd that stay
    unevaluated on symbols (sympy's own would turn lcm(S1, S2) into S1*S2). Built on first use:
    sympy is slow to import."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    names = "a1 a2 b b1 b2 epsilon eps s n S S1 S2 g k l c L loss0 b10 b20 o r F f x".split()
    out: dict[str, Any] = {name: sp.Symbol(name, positive=True) for name in names}

    class lcm(sp.Function):  # noqa: N801 (the name a formula writes)
        @classmethod
        def eval(cls, a, b):
            return sp.ilcm(a, b) if a.is_Integer and b.is_Integer else None

    class gcd(sp.Function):  # noqa: N801
        @classmethod
        def eval(cls, a, b):
            return sp.igcd(a, b) if a.is_Integer and b.is_Integer else None

    out.update(lcm=lcm, gcd=gcd, floor=sp.floor, ceiling=sp.ceiling, Min=sp.Min)
    return out


def _exact(printed: str, *names: str) -> Any:
    """The printed formula as an exact function of ``names`` (ints and Fractions in)."""
    return function(parse(printed, symbols()), names, symbols(), exact=True)


# --- Section 2.1: the Laplace mechanism and the noisy ratio ---------------------------------
def _laplace_moments() -> tuple[Any, Any]:
    """Mean and variance of Laplace(b), by integrating its density (2b)^-1 exp(-|x|/b)."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    x, b = symbols()["x"], symbols()["b"]
    density = sp.exp(-x / b) / (2 * b)  # on x > 0; the density is symmetric
    mean = sp.integrate(x * density, (x, 0, sp.oo)) - sp.integrate(x * density, (x, 0, sp.oo))
    second = 2 * sp.integrate(x**2 * density, (x, 0, sp.oo))
    return sp.simplify(mean), sp.simplify(second - mean**2)


def laplace_mean(printed: str) -> Case:
    p, (mean, _) = parse(printed, symbols()), _laplace_moments()
    at = {"b": 10}
    return Case("laplace_mean", printed, str(mean), "b = 10: 0", value_at(p, at), value_at(mean, at), same(p, mean),
                "sympy integral")  # fmt: skip


def laplace_variance(printed: str) -> Case:
    p, (_, var) = parse(printed, symbols()), _laplace_moments()
    got, want = value_at(p, {"b": 10}), value_at(var, {"b": 10})
    inst = f"b = 10: printed {got:g}, derived {want:g}"
    return Case("laplace_variance", printed, str(var), inst, got, want, same(p, var), "sympy integral")


def theorem1_dp(printed: str) -> Case:
    """Laplace(1/eps) noise on a count (sensitivity 1): the largest ratio of the answer's
    densities on neighbouring tables (counts a and a + 1), over a grid of outputs."""
    p = parse(printed, symbols())
    mismatches, checked = [], 0
    for eps in (0.05, 0.1, 0.5, 1.0, 2.0):
        out = np.linspace(-40 / eps, 40 / eps, 4001)
        log_ratio = (np.abs(out - 1.0) - np.abs(out)) * eps  # log p(out - 0) / p(out - 1)
        worst = float(np.exp(np.max(np.abs(log_ratio))))
        bound = value_at(p, {"epsilon": eps, "eps": eps})
        checked += 1
        if not (worst <= bound * (1 + 1e-9) and worst >= bound * (1 - 1e-6)):
            mismatches.append(f"eps = {eps:g}: largest ratio {worst:.6g}, printed bound {bound:.6g}")
    inst = f"eps = 0.1: largest density ratio {math.exp(0.1):.6f} = exp(eps)"
    return grid_case("theorem1_dp", printed, "exp(epsilon) (attained)", method="numeric grid", mismatches=mismatches,
                     checked=checked, instance=inst, printed_value=value_at(p, {"epsilon": 0.1, "eps": 0.1}),
                     derived_value=math.exp(0.1))  # fmt: skip


def _delta_method() -> tuple[Any, Any]:
    """Second-order delta method for a2~/a1~ with independent Laplace(b) noise (variance
    2 b^2, from `laplace_variance`'s integral): E ~ f + (1/2) sum f_ii Var_i,
    Var ~ sum f_i^2 Var_i, f(u, v) = v / u at (a1, a2)."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    a1, a2 = sym["a1"], sym["a2"]
    u, v = sp.symbols("u v", positive=True)
    f = v / u
    var = _laplace_moments()[1]
    at = {u: a1, v: a2}
    mean = f.subs(at) + sp.Rational(1, 2) * (sp.diff(f, u, 2) + sp.diff(f, v, 2)).subs(at) * var
    variance = (sp.diff(f, u) ** 2 + sp.diff(f, v) ** 2).subs(at) * var
    return sp.simplify(mean), sp.simplify(variance)


_A = {"a1": 100, "a2": 90, "b": 10}  # Theorem 2's instance


def theorem2_mean(printed: str) -> Case:
    p, (mean, _) = parse(printed, symbols()), _delta_method()
    got, want = value_at(p, _A), value_at(mean, _A)
    inst = f"a1 = 100, a2 = 90, b = 10: printed {got:.6f}, derived {want:.6f} (factor {want / 0.9:.4f})"
    return Case("theorem2_mean", printed, str(mean), inst, got, want, same(p, mean), "sympy (delta method)")


def theorem2_variance(printed: str) -> Case:
    p, (_, var) = parse(printed, symbols()), _delta_method()
    got, want = value_at(p, _A), value_at(var, _A)
    inst = f"a1 = 100, a2 = 90, b = 10: printed {got:.6f}, derived {want:.6f}"
    return Case("theorem2_variance", printed, str(var), inst, got, want, same(p, var), "sympy (delta method)")


def _limit(expr: Any) -> Any:
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    return sp.limit(expr.subs(sym["a2"], sym["r"] * sym["a1"]), sym["a1"], sp.oo)


def theorem2_mean_exists(printed: str) -> Case:
    """Whether E[a2~/a1~] is finite, as an approximation of it presumes (printed: "finite" or
    "infinite"). a1~ = a1 + Laplace(b) has density at least c = exp(-(a1 + 1)/b) / (2b) > 0 on
    (-1, 1), so E|1/a1~| >= c * integral of 1/|x| over (0, 1), which sympy finds infinite."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    if printed not in ("finite", "infinite"):
        raise PrivlabError(f"printed must be 'finite' or 'infinite' for theorem2_mean_exists, got {printed!r}")
    c = sp.exp(-(sym["a1"] + 1) / sym["b"]) / (2 * sym["b"])
    bound = c * sp.integrate(1 / sym["x"], (sym["x"], 0, 1))
    derived = "infinite" if bound == sp.oo else "finite"
    x = np.logspace(-2, -8, 4)  # E|1/a1~| restricted to |a1~| > x grows like log(1/x)
    grow = [float(c.subs({sym["a1"]: 100, sym["b"]: 10})) * math.log(1 / t) for t in x]
    inst = "a1 = 100, b = 10: the part of E|1/a1~| from t < a1~ < 1 is at least " + ", ".join(f"{g:.1e}" for g in grow)
    inst += " for t = 1e-2, 1e-4, 1e-6, 1e-8: it grows like log(1/t), without bound"
    return Case("theorem2_mean_exists", printed, f"{derived} (lower bound {bound})", inst, math.nan, math.nan,
                printed == derived, "sympy (comparison integral)")  # fmt: skip


def corollary24_mean(printed: str) -> Case:
    """The limit of the derived mean of a2~/a1~ as a1 grows with a2 = r a1 (printed: a2/a1)."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    p = parse(printed, sym).subs(sym["a2"], sym["r"] * sym["a1"])
    lim = _limit(_delta_method()[0])
    got, want = value_at(_limit(p), {"r": 0.9}), value_at(lim, {"r": 0.9})
    return Case("corollary24_mean", printed, f"{lim} (a2 = r a1)", f"r = 0.9: limit {want:g}", got, want,
                same(sp.simplify(p), lim), "sympy limit")  # fmt: skip


def corollary24_variance(printed: str) -> Case:
    p, lim = parse(printed, symbols()), _limit(_delta_method()[1])
    got, want = value_at(_limit(p), {"r": 0.9}), value_at(lim, {"r": 0.9})
    return Case("corollary24_variance", printed, str(lim), "r = 0.9: limit 0", got, want, same(p, lim), "sympy limit")


# --- Section 3: MSE and Loss ----------------------------------------------------------------
def _bucket_error() -> Any:
    """Sum over the ordered pairs (t, t') of one bucket of size s of (1/s - [t = t'])^2:
    s pairs with t = t' and s (s - 1) with t != t'."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    s = symbols()["s"]
    return sp.simplify(s * (1 - 1 / s) ** 2 + s * (s - 1) * (1 / s) ** 2)


def mse_bucket(printed: str) -> Case:
    """A bucket's contribution to n * MSE (Definition 3.9: MSE = (1/n) sum_B of it)."""
    p, d = parse(printed, symbols()), _bucket_error()
    got, want = (sum(value_at(e, {"s": x}) for x in (2, 3, 5)) / 10 for e in (p, d))
    inst = f"sizes 2, 3, 5 (n = 10): MSE printed {got:g}, derived {want:g}"
    return Case("mse_bucket", printed, str(d), inst, got, want, same(p, d), "sympy (defining squared errors)")


def mse_one_bucket(printed: str) -> Case:
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    p, sym = parse(printed, symbols()), symbols()
    d = sp.simplify(_bucket_error().subs(sym["s"], sym["n"]) / sym["n"])
    got, want = value_at(p, {"n": 300000}), value_at(d, {"n": 300000})
    inst = f"n = 300000: {want:.7f}"
    return Case("mse_one_bucket", printed, str(d), inst, got, want, same(p, d), "sympy (defining squared errors)")


def loss_setting(printed: str) -> Case:
    """Loss of {(S1, b1), (S2, b2)}: n - (number of buckets), with n = b1 S1 + b2 S2."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    S1, S2, b1, b2 = sym["S1"], sym["S2"], sym["b1"], sym["b2"]
    p = parse(printed, sym)
    d = (b1 * S1 + b2 * S2) - (b1 + b2)
    at = {"S1": 12, "S2": 50, "b1": 1300, "b2": 288}
    got, want = value_at(p, at), value_at(d, at)
    inst = f"(12, 1300), (50, 288): {want:g}"
    return Case("loss_setting", printed, str(sp.expand(d)), inst, got, want, same(p, d), "sympy")


def _partitions(items: list[int]) -> Iterator[list[list[int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first, *part[i]]] + part[i + 1 :]
        yield [[first], *part]


def lemma37(printed: str) -> Case:
    """A bucketization satisfying F-privacy exists iff (printed: f <= F for every value):
    every set partition of every small table is tried."""
    holds = _exact(printed, "f", "F")
    mismatches, checked = [], 0
    thresholds = [Fraction(1, 4), Fraction(1, 3), Fraction(2, 5), Fraction(1, 2), Fraction(2, 3), Fraction(1)]
    for counts in [(1, 1), (2, 1), (3, 1), (2, 2), (3, 2), (2, 1, 1), (3, 1, 1), (2, 2, 1)]:
        n = sum(counts)
        records = [v for v, c in enumerate(counts) for _ in range(c)]
        parts = list(_partitions(list(range(n))))
        for F in itertools.product(thresholds, repeat=len(counts)):
            exists = any(
                all(sum(records[t] == v for t in B) <= F[v] * len(B) for B in part for v in range(len(counts)))
                for part in parts
            )
            claim = all(bool(holds(Fraction(c, n), F[v])) for v, c in enumerate(counts))
            checked += 1
            if claim != exists:
                mismatches.append(f"o = {counts}, F = {[str(x) for x in F]}: exists {exists}, printed says {claim}")
    inst = "o = (2, 1), F = (1/2, 1): f = (2/3, 1/3) > F for x1, no valid bucketization"
    return grid_case(
        "lemma37",
        printed,
        "f_i <= F_i for all i",
        method="every set partition",
        mismatches=mismatches,
        checked=checked,
        instance=inst,
    )


def _fits(o: int, b: int, S: int, F: Fraction) -> bool:
    """Can o records of one value go into b buckets of size S with at most F S per bucket?
    The most even split puts ceil(o / b) in some bucket (search over the per-bucket cap)."""
    cap = max((h for h in range(S + 1) if h <= F * S), default=0)
    return o <= b * cap


def _lemma413(case: str, printed: str) -> Case:
    holds = _exact(printed, "o", "b", "S", "F")
    mismatches, checked = [], 0
    for o, b, S in itertools.product(range(0, 25), range(1, 6), range(1, 9)):
        for F in (Fraction(1, 7), Fraction(1, 4), Fraction(1, 3), Fraction(2, 5), Fraction(1, 2), Fraction(3, 4)):
            truth = _fits(o, b, S, F)
            got = bool(holds(o, b, S, F)) if o else True
            checked += 1
            if got != truth:
                mismatches.append(f"o = {o}, b = {b}, S = {S}, F = {F}: fits {truth}, printed says {got}")
    inst = "o = 7, b = 3, S = 4, F = 1/2: ceil(7/3) = 3 > 2 = F S, and 7 > 3 floor(2) = 6: does not fit"
    return grid_case(
        case,
        printed,
        "o records fit in b buckets of size S",
        method="exhaustive grid",
        mismatches=mismatches,
        checked=checked,
        instance=inst,
    )


def lemma413_cond3(printed: str) -> Case:
    return _lemma413("lemma413_cond3", printed)


def lemma413_cond4(printed: str) -> Case:
    return _lemma413("lemma413_cond4", printed)


def smallest_size(printed: str) -> Case:
    """The least bucket size S with floor(F S) >= 1 (a record of the value fits), by search."""
    fn = _exact(printed, "F")
    mismatches, checked = [], 0
    for num, den in itertools.product(range(1, 13), range(1, 13)):
        if num > den:
            continue
        F = Fraction(num, den)
        least = next(S for S in itertools.count(1) if math.floor(F * S) >= 1)
        got = int(fn(F))
        checked += 1
        if got != least:
            mismatches.append(f"F = {F}: least size {least}, printed {got}")
    inst = "F = 0.3: least size 4 = ceil(1/0.3)"
    return grid_case("smallest_size", printed, "least S with floor(F S) >= 1", method="exhaustive grid",
                     mismatches=mismatches, checked=checked, instance=inst,
                     printed_value=float(fn(Fraction(3, 10))), derived_value=4.0)  # fmt: skip


def remark38_l(printed: str) -> Case:
    """The least l such that l-diversity (Pr <= 1/l) implies F-privacy (1/l <= F_i for all i)."""
    fn = _exact(printed, "F")
    mismatches, checked = [], 0
    grid = [Fraction(a, d) for d in range(1, 10) for a in range(1, d + 1)]
    for F in itertools.combinations(sorted(set(grid)), 2):
        least = next(l for l in itertools.count(1) if all(Fraction(1, l) <= x for x in F))
        got = int(fn(min(F)))
        checked += 1
        if got != least:
            mismatches.append(f"F = {[str(x) for x in F]}: least l {least}, printed {got}")
    return grid_case("remark38_l", printed, "least l with 1/l <= min F", method="exhaustive grid",
                     mismatches=mismatches, checked=checked, instance="F = (0.0236, 1): l = 43",
                     printed_value=float(fn(Fraction(236, 10000))), derived_value=43.0)  # fmt: skip


# --- Section 5.1: the list L of a size pair -----------------------------------------------
def _enumerated(n: int, s1: int, s2: int) -> list[tuple[int, int]]:
    """Every (b1, b2) >= 0 with b1 s1 + b2 s2 = n, b1 descending (the list L, by search)."""
    return [(b1, (n - b1 * s1) // s2) for b1 in range(n // s1, -1, -1) if (n - b1 * s1) % s2 == 0]


def _grid_lists() -> Iterator[tuple[int, int, int, list[tuple[int, int]]]]:
    for n in (12, 28, 30, 47, 60, 97, 120):
        for s1, s2 in itertools.combinations(range(1, 13), 2):
            L = _enumerated(n, s1, s2)
            if len(L) >= 2:
                yield n, s1, s2, L


def _eq8(case: str, printed: str, j: int) -> Case:
    fn = _exact(printed, "S1", "S2")

    mismatches, checked = [], 0
    for n, s1, s2, L in _grid_lists():
        steps = {abs(L[i + 1][j] - L[i][j]) for i in range(len(L) - 1)}
        got = fn(s1, s2)
        checked += 1
        if steps != {got}:
            mismatches.append(f"n = {n}, S = ({s1}, {s2}): steps {sorted(steps)}, printed {got}")
    inst = "n = 28, S = (2, 4): steps 2 and 1 (Example 5.23)"
    step = abs(_enumerated(28, 2, 4)[1][j] - _enumerated(28, 2, 4)[0][j])
    return grid_case(case, printed, "steps of the enumerated list L", method="exhaustive grid", mismatches=mismatches,
                     checked=checked, instance=inst, printed_value=float(fn(2, 4)), derived_value=step)  # fmt: skip


def eq8_step_b1(printed: str) -> Case:
    return _eq8("eq8_step_b1", printed, 0)


def eq8_step_b2(printed: str) -> Case:
    return _eq8("eq8_step_b2", printed, 1)


def eq9_last(printed: str) -> Case:
    """The last index of L from its first pair's b1 (printed in terms of b10 = b1 of pair 0)."""
    fn = _exact(printed, "b10", "S1", "S2")

    mismatches, checked = [], 0
    for n, s1, s2, L in _grid_lists():
        got = fn(L[0][0], s1, s2)
        checked += 1
        if got != len(L) - 1:
            mismatches.append(f"n = {n}, S = ({s1}, {s2}): last index {len(L) - 1}, printed {got}")
    inst = "n = 28, S = (2, 4): b10 = 14, last index 7"
    return grid_case("eq9_last", printed, "last index of the enumerated L", method="exhaustive grid",
                     mismatches=mismatches, checked=checked, instance=inst, printed_value=float(fn(14, 2, 4)),
                     derived_value=len(_enumerated(28, 2, 4)) - 1)  # fmt: skip


def list_length(printed: str) -> Case:
    """|L| against the printed bound on it: never above, and within two pairs of it."""
    fn = _exact(printed, "n", "S1", "S2")

    mismatches, checked = [], 0
    for n, s1, s2, L in _grid_lists():
        bound = float(fn(n, s1, s2))
        checked += 1
        if not len(L) - 1e-9 <= bound < len(L) + 2:  # |L| = floor(b10 g / S2) + 1 > n g / (S1 S2) - 1
            mismatches.append(f"n = {n}, S = ({s1}, {s2}): |L| = {len(L)}, printed bound {bound:g}")
    inst = "n = 300000, S = (12, 50): |L| <= 1001"
    return grid_case("list_length", printed, "|L| <= bound < |L| + 2", method="exhaustive grid",
                     mismatches=mismatches, checked=checked, instance=inst, printed_value=float(fn(300000, 12, 50)),
                     derived_value=len(_enumerated(300000, 12, 50)))  # fmt: skip


def lemma524_loss_step(printed: str) -> Case:
    """Loss(k + 1) - Loss(k) along L, with pair k = (b10 - k S2/g, b20 + k S1/g)."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    S1, S2, g, k, n = sym["S1"], sym["S2"], sym["g"], sym["k"], sym["n"]
    b1 = sym["b10"] - k * S2 / g
    b2 = sym["b20"] + k * S1 / g
    loss = n - b1 - b2
    d = sp.simplify(loss.subs(k, k + 1) - loss)
    p = parse(printed, sym).subs(sym["gcd"](S1, S2), g)
    at = {"S1": 2, "S2": 4, "g": 2}
    got, want = value_at(p, at), value_at(d, at)
    inst = f"S = (2, 4), g = 2: step {want:g} (> 0: Loss grows along L)"
    return Case("lemma524_loss_step", printed, str(d), inst, got, want, same(p, d), "sympy")


def eq11_cutoff(printed: str) -> Case:
    """The last k of L whose Loss is below L (the best loss so far), by search."""
    fn = _exact(printed, "L", "loss0", "S1", "S2")

    mismatches, checked = [], 0
    for n, s1, s2, lst in _grid_lists():
        losses = [n - b1 - b2 for b1, b2 in lst]
        for bound in range(losses[0], losses[-1] + 3):
            below = [k for k, x in enumerate(losses) if x < bound]
            truth = below[-1] if below else -1
            got = fn(bound, losses[0], s1, s2)
            checked += 1
            if min(got, len(lst) - 1) != truth:
                mismatches.append(f"n = {n}, S = ({s1}, {s2}), bound {bound}: last k {truth}, printed {got}")
    inst = "n = 28, S = (2, 4), bound 20: losses 14, 15, ..., last k = 5"
    return grid_case("eq11_cutoff", printed, "last k with Loss(k) < bound", method="exhaustive grid",
                     mismatches=mismatches, checked=checked, instance=inst, printed_value=float(fn(20, 14, 2, 4)),
                     derived_value=5.0)  # fmt: skip


def _random_lists(seed: int = 0, trials: int = 300) -> Iterator[tuple[Any, ...]]:
    """Random instances with their enumerated L: (o, F, S1, S2, L, floor(F S1), floor(F S2))."""
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        m = int(rng.integers(1, 6))
        o = rng.integers(1, 15, m)
        n = int(o.sum())
        F = np.minimum(1.0, o / n + rng.uniform(0, 0.6, m))
        s1, s2 = sorted(rng.choice(np.arange(1, 12), 2, replace=False).tolist())
        L = _enumerated(n, s1, s2)
        if len(L) >= 2:
            yield o, F, s1, s2, L, np.floor(F * s1 + 1e-9).astype(int), np.floor(F * s2 + 1e-9).astype(int)


def _direction(flags: list[bool]) -> str:
    """monotone: once true, true for every later pair; anti-monotone: once false, false after."""
    if all(a <= b for a, b in zip(flags, flags[1:])):
        return "monotone"
    if all(a >= b for a, b in zip(flags, flags[1:])):
        return "anti-monotone"
    return "neither"


def _directions(printed: str) -> dict[str, str]:
    """'FC1 monotone, FC2 anti-monotone' -> {'FC1': 'monotone', 'FC2': 'anti-monotone'}."""
    out = {}
    for part in str(printed).split(","):
        words = part.split()
        if len(words) != 2 or words[1] not in ("monotone", "anti-monotone"):
            raise PrivlabError(f"printed must read like 'FC1 monotone, FC2 anti-monotone', got {printed!r}")
        out[words[0]] = words[1]
    return out


Along = Callable[[np.ndarray, int, int, list, np.ndarray, np.ndarray], list[list[bool]]]


def _monotonicity(case: str, printed: str, conditions: dict[str, Along]) -> Case:
    """Each named condition, evaluated on every pair of L, goes the printed way (a constant
    sequence goes both ways)."""
    stated = _directions(printed)
    unknown = set(stated) - set(conditions)
    if unknown:
        raise PrivlabError(f"printed names {', '.join(sorted(unknown))}; known here: {', '.join(conditions)}")
    mismatches, checked = [], 0
    for o, F, s1, s2, L, c1, c2 in _random_lists():
        for name, direction in stated.items():
            for flags in conditions[name](o, s1, s2, L, c1, c2):
                checked += 1
                seen = _direction(flags)
                if seen != direction and len(set(flags)) > 1:
                    mismatches.append(
                        f"o = {o.tolist()}, F = {np.round(F, 3).tolist()}, S = ({s1}, {s2}): {name} is {seen}"
                    )
    derived = ", ".join(f"{k} {v}" for k, v in stated.items()) if not mismatches else "not as printed"
    return grid_case(
        case,
        printed,
        derived,
        method="random instances",
        mismatches=mismatches,
        checked=checked,
        instance="every condition along every list",
    )


def lemma526_fc(printed: str) -> Case:
    """FC_j (sum_i min(o_i, b_j floor(F_i S_j)) >= b_j S_j) along L."""

    def fc(j: int) -> Along:
        def along(o, s1, s2, L, c1, c2):
            c, S = (c1, s1) if j == 0 else (c2, s2)
            return [[bool(np.minimum(o, b[j] * c).sum() >= b[j] * S) for b in L]]

        return along

    return _monotonicity("lemma526_fc", printed, {"FC1": fc(0), "FC2": fc(1)})


def lemma528_pc(printed: str) -> Case:
    """o_i <= u_i1 and o_i <= u_i2 (the parts of PC_i, Eq. 14) along L, for every value."""

    def part(j: int) -> Along:
        def along(o, s1, s2, L, c1, c2):
            c = c1 if j == 0 else c2
            return [[bool(o[i] <= b[j] * c[i]) for b in L] for i in range(o.size)]

        return along

    return _monotonicity("lemma528_pc", printed, {"PC_u1": part(0), "PC_u2": part(1)})


def eq16_pc_step(printed: str) -> Case:
    """The condition under which u_i1 + u_i2 does not fall from one pair of L to the next
    (so PC_i in the form of Eq. 15 is monotone), against the step computed along L."""
    holds = _exact(printed, "S1", "S2", "F")

    mismatches, checked = [], 0
    for _, s1, s2, L in _grid_lists():
        for F in (Fraction(1, 5), Fraction(1, 4), Fraction(1, 3), Fraction(2, 5), Fraction(1, 2), Fraction(3, 4)):
            c1, c2 = math.floor(F * s1), math.floor(F * s2)
            step = (L[1][0] * c1 + L[1][1] * c2) - (L[0][0] * c1 + L[0][1] * c2)
            got = bool(holds(s1, s2, F))
            checked += 1
            if got != (step >= 0):
                mismatches.append(f"S = ({s1}, {s2}), F = {F}: step {step}, printed says {got}")
    inst = "S = (3, 7), F = 1/3: 3 floor(7/3) = 6 >= 7 floor(1) = 7 fails: u_i1 + u_i2 falls along L"
    return grid_case("eq16_pc_step", printed, "step of u_i1 + u_i2 along L >= 0", method="exhaustive grid",
                     mismatches=mismatches, checked=checked, instance=inst)  # fmt: skip


# --- Section 6: fake values ---------------------------------------------------------------
def sec6_fake_share(printed: str) -> Case:
    """Share of fakes among the l - c + k values left after c of l records are corrupted,
    and its growth in c (a larger c leaves a larger share of fakes)."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    l, c, k = sym["l"], sym["c"], sym["k"]
    d = k / (l - c + k)
    p = parse(printed, sym)
    grows = sp.simplify(sp.diff(p, c))
    ok = same(p, d) and bool(sp.simplify(grows - k / (l - c + k) ** 2) == 0)
    shares = [value_at(d, {"l": 4, "k": 1, "c": x}) for x in range(4)]
    inst = f"l = 4, k = 1: c = 0..3 -> {', '.join(f'{v:.3f}' for v in shares)}"
    return Case("sec6_fake_share", printed, f"{d} (d/dc = {sp.simplify(sp.diff(d, c))} > 0)", inst,
                value_at(p, {"l": 4, "k": 1, "c": 0}), shares[0], ok, "sympy")  # fmt: skip


def sec6_certainty(printed: str) -> Case:
    """Certainty that a value left is real after all but one record (c = l - 1) are corrupted."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    sym = symbols()
    l, c, k = sym["l"], sym["c"], sym["k"]
    d = sp.simplify(((l - c) / (l - c + k)).subs(c, l - 1))
    p = parse(printed, sym)
    certain = [value_at(d, {"k": x}) for x in (0, 1, 2)]
    inst = f"k = 0, 1, 2: {', '.join(f'{v:.4f}' for v in certain)}"
    return Case("sec6_certainty", printed, str(d), inst, value_at(p, {"k": 0, "l": 4, "c": 3}), certain[0], same(p, d),
                "sympy")  # fmt: skip


CASES: dict[str, Callable[[str], Case]] = {
    f.__name__: f
    for f in (
        laplace_mean,
        laplace_variance,
        theorem1_dp,
        theorem2_mean,
        theorem2_variance,
        theorem2_mean_exists,
        corollary24_mean,
        corollary24_variance,
        mse_bucket,
        mse_one_bucket,
        loss_setting,
        lemma37,
        lemma413_cond3,
        lemma413_cond4,
        smallest_size,
        remark38_l,
        eq8_step_b1,
        eq8_step_b2,
        eq9_last,
        list_length,
        lemma524_loss_step,
        eq11_cutoff,
        lemma526_fc,
        lemma528_pc,
        eq16_pc_step,
        sec6_fake_share,
        sec6_certainty,
    )
}


def check_formula(case: str, printed: str) -> Case:
    """Compare the printed formula of ``case`` (one of `CASES`) with its derivation.

    Parameters
    ----------
    case : str
        The case id (see the module docstring).
    printed : str
        The formula as printed (or reconstructed), readable by sympy: e.g.
        ``"(a2/a1)*(1 + 2*b**2/a1**2)"``; relations for conditions (``"o <= b*floor(F*S)"``);
        for the monotonicity cases a phrase like ``"FC1 monotone, FC2 anti-monotone"``.

    Returns
    -------
    Case
        ``match`` False (and the first mismatch as its instance, for a check on a grid) when the
        printed formula differs from the derivation.
    """
    if case not in CASES:
        raise PrivlabError(f"case must be one of {', '.join(CASES)}; got {case!r}")
    return CASES[case](printed)


def formula_table(cases: Sequence[str], printed: Mapping[str, str], *, map_fn: MapFn | None = None) -> pd.DataFrame:
    """`check_formula` of every case against its printed formula.

    Parameters
    ----------
    cases : sequence of str
        Cases of `CASES`.
    printed : mapping of str to str
        Case -> the formula as printed (or reconstructed).
    map_fn : callable, optional
        Runs the checkers (`privlab.formulas.check_all`).

    Returns
    -------
    DataFrame
        The formulas table (`privlab.formulas.COLUMNS`), one row per case.
    """
    check_mapping("printed.formulas", printed, cases)
    unknown = [str(case) for case in cases if case not in CASES]
    if unknown:
        raise PrivlabError(f"cases must be among {', '.join(CASES)}; got {', '.join(unknown)}")
    return check_all({c: CASES[c] for c in cases}, {c: str(printed[c]) for c in cases}, map_fn)
