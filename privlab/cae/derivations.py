"""Independent re-derivations of the seed's displayed formulas (issue 13: the formula audit).

Every checker compares a formula *as the seed prints it* with an expression derived here
from its definition, and returns a `privlab.formulas.Case`: both expressions, one numeric
instance of each and whether they agree. Printed formulas come in two forms:

- a sympy expression string over `symbols` (the experiment's config holds the seed's formula,
  e.g. the sampling probability); compared by `privlab.formulas.same` (sympy's simplification,
  then seeded random points where sympy is inconclusive);
- a transcription of a printed algorithm or recurrence (`printed_recurrence`,
  `printed_algorithm1`), compared numerically on a seeded grid against a brute force over
  the defining objects (every covering satisfying the problem statement's conditions).

The derivations share no code with the measure or the techniques they audit: the brute
force enumerates coverings itself, the window count enumerates windows, the interval
probabilities count domain values. A deliberately altered formula passed to a checker
comes out as a mismatch (tests/cae/test_formulas.py).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .._validation import MapFn, PrivlabError, check_array, check_int, check_mapping, check_real
from ..formulas import Case, check_all, compare, function, parse, same, value_at
from .measure import cae
from .noise import noise_max

__all__ = [
    "Case",
    "shannon_h0",
    "sampling_probability",
    "sampling_total",
    "query_count",
    "query_rank",
    "interval_probability",
    "reversed_bounds",
    "noise_max_rule",
    "noise_support",
    "noise_interval",
    "brute_force_entropy",
    "printed_recurrence",
    "printed_algorithm1",
    "recurrence",
    "algorithm1",
    "problem_statement",
    "base_case_order",
    "eps_max_statement",
    "area_integral",
    "coverings",
    "PRINTED_FORMULAS",
    "formula_table",
]

# enumerating coverings costs 2^(n-1) per instance
MAX_BRUTE_VALUES = 14


@functools.cache
def symbols() -> dict[str, Any]:
    """The symbols a printed formula may use, all positive: ``p`` (a value's probability), ``f``
    (f_{d_i}), ``Ms`` (|M_s|), ``Mo`` (|M_o|), ``D`` (|D|), ``n`` (records), ``Q`` (a query set's
    size), ``L`` and ``U`` (an interval's ends). Built on first use: sympy is slow to import."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    return {n: sp.Symbol(n, positive=True) for n in ("p", "f", "Ms", "Mo", "D", "n", "Q", "L", "U")}


# --- the measure --------------------------------------------------------------------------
def shannon_h0(printed_term: str, probs: Sequence[float]) -> Case:
    """H(0) = sum of the printed term over the values (Appendix, step 1) against Shannon's
    entropy in bits, ``-sum p log2 p`` (bits: two equally likely values give the seed's "1 bit").

    ``printed_term`` is one value's term in ``p`` (the seed: ``p*log(1/p, 2)``); the instance
    is the sum over ``probs``.
    """
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    s = symbols()
    p = check_array("probs", probs, dtype=float)
    expr = parse(printed_term, s, what="the printed term of H0")
    derived = -s["p"] * sp.log(s["p"]) / sp.log(2)
    total = [sum(value_at(e, {"p": float(q)}) for q in p if q > 0) for e in (expr, derived)]
    shown = "p = (" + ", ".join(f"{q:g}" for q in p) + "), summed"
    return Case("H0", printed_term, "-p*log2(p)", shown, total[0], total[1], same(expr, derived))


# --- sampling -------------------------------------------------------------------------------
def _sampling_derived(s: Mapping[str, Any]) -> Any:
    """Law of total probability: the target is one of the |M_s| sampled matching records with
    probability |M_s|/|M_o| (then its value is d with probability f/|M_s|), else it is unsampled
    and every one of the |D| values is equally likely."""
    inside = s["Ms"] / s["Mo"]
    return inside * (s["f"] / s["Ms"]) + (1 - inside) * (1 / s["D"])


def sampling_probability(printed: str, instance: Mapping[str, float]) -> Case:
    """The seed's p_i for sampling against the law of total probability (`_sampling_derived`).

    ``printed`` is a sympy string in ``f`` (f_{d_i}), ``Ms`` (|M_s|), ``Mo`` (|M_o|), ``D`` (|D|).
    """
    return compare("sampling p_i", printed, _sampling_derived(symbols()), symbols(), instance)


def sampling_total(printed: str, instance: Mapping[str, float]) -> Case:
    """The printed p_i summed over the domain (sum f = |M_s|) against 1, the total of any distribution.

    The p_i are affine in f, so the total is ``p(f = |M_s|) + (|D| - 1) p(f = 0)``.
    """
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp

    s = symbols()
    expr = parse(printed, s, what="the printed sampling formula")
    if sp.simplify(sp.diff(expr, s["f"], 2)) != 0:
        raise PrivlabError("the printed sampling formula must be affine in f (one value's count)")
    total = sp.simplify(expr.subs(s["f"], s["Ms"]) + (s["D"] - 1) * expr.subs(s["f"], 0))
    derived = sp.simplify(
        _sampling_derived(s).subs(s["f"], s["Ms"]) + (s["D"] - 1) * _sampling_derived(s).subs(s["f"], 0)
    )
    shown = ", ".join(f"{k} = {v:g}" for k, v in instance.items() if k != "f")
    return Case(
        "sampling sum of p_i",
        str(total),
        str(derived),
        shown,
        value_at(total, instance),
        value_at(derived, instance),
        same(total, sp.Integer(1)),
    )


# --- query restriction ----------------------------------------------------------------------
def _windows(n: int, half: int) -> int:
    """The seed's queries: records [1..2l], [l+1..3l], [2l+1..4l], ... while they fit in n records."""
    count, start = 0, 0
    while start + 2 * half <= n:
        count, start = count + 1, start + half
    return count


def query_count(printed: str, n_values: Sequence[int], q_values: Sequence[int]) -> Case:
    """The seed's number of queries ``k`` (a sympy string in ``n`` and ``Q``, e.g.
    ``floor(2*n/Q) - 1``) against counting the windows of its query scheme, on a grid."""
    f = function(parse(printed, symbols(), what="the printed query count"), ("n", "Q"), symbols())
    worst, where, cells = 0.0, "", 0
    for n in n_values:
        for Q in q_values:
            n, Q = check_int("n_values[]", n, low=2), check_int("q_values[]", Q, low=2)
            if Q % 2 or Q > n:
                continue
            got, want = f(n, Q), float(_windows(n, Q // 2))
            cells += 1
            gap = abs(got - want) if math.isfinite(got) else math.inf
            if gap > worst:
                worst, where = gap, f"n = {n}, Q = {Q}: printed {got:g}, windows {want:g}"
    n0, q0 = int(max(n_values)), 8 if 8 in q_values else int(min(q_values))
    return Case(
        "query count k",
        printed,
        "number of windows [t l + 1, t l + 2l] inside n records",
        f"n = {n0}, Q = {q0}",
        f(n0, q0),
        float(_windows(n0, q0 // 2)),
        worst == 0,
        f"{cells} (n, Q) pairs" + (f"; worst {where}" if where else ""),
    )


def query_rank(n_values: Sequence[int], q_values: Sequence[int]) -> Case:
    """The Appendix (Query Restriction): "a system of k linearly independent equations in n unknowns",
    k < n: the rank of the seed's query matrix (built here from the window scheme) against k, on a grid."""
    bad, cells, last = [], 0, (0, 0, 0)
    for n in n_values:
        for Q in q_values:
            n, Q = check_int("n_values[]", n, low=2, high=400), check_int("q_values[]", Q, low=2)
            if Q % 2 or Q > n:
                continue
            half, k = Q // 2, _windows(n, Q // 2)
            A = np.zeros((k, n))
            for t in range(k):
                A[t, t * half : t * half + Q] = 1.0
            rank = int(np.linalg.matrix_rank(A)) if k else 0
            cells += 1
            last = (n, Q, k)
            if rank != k or k >= n:
                bad.append(f"n = {n}, Q = {Q}: rank {rank} of k = {k}")
    n, Q, k = last
    return Case(
        "query rank",
        "k linearly independent equations, k < n",
        "rank of the window matrix = k < n",
        f"n = {n}, Q = {Q}",
        float(k),
        float(k),
        not bad,
        f"{cells} (n, Q) pairs" + (f"; {bad[0]}" if bad else ""),
    )


def interval_probability(printed: str, domain: Sequence[float]) -> Case:
    """Algorithms 2 and 3: the share ``printed`` (a sympy string in ``L``, ``U``, ``Mo``; the seed:
    ``1/(U - L + 1) * 1/Mo``) each domain value in ``[L, U]`` receives from one record, against
    ``1/(number of domain values in [L, U]) * 1/Mo``, the share that gives each record a total of
    ``1/|M_o|``; over every pair of domain values ``L <= U``.
    """
    f = function(parse(printed, symbols(), what="the printed interval probability"), ("L", "U", "Mo"), symbols())
    d = check_array("domain", domain, dtype=float)
    if d.size > 1 and not np.all(np.diff(d) > 0):
        raise PrivlabError("domain must be strictly increasing")
    worst, shown = 0.0, ""
    for i, j in itertools.combinations_with_replacement(range(d.size), 2):
        count = j - i + 1
        mass = count * f(d[i], d[j], 1.0)  # one record's total probability (|M_o| = 1)
        gap = abs(mass - 1.0) if math.isfinite(mass) else math.inf
        if gap > worst:
            worst, shown = gap, f"[{d[i]:g}, {d[j]:g}]: {count} values get a total of {mass:.4g}"
    full = d.size * f(d[0], d[-1], 1.0)
    return Case(
        "interval probability",
        printed,
        "1/#{d in D : L <= d <= U} * 1/Mo",
        f"L = {d[0]:g}, U = {d[-1]:g}, |M_o| = 1: one record's total",
        full,
        1.0,
        worst <= 1e-12,
        f"domain {d[0]:g}..{d[-1]:g} ({d.size} values)" + (f"; worst {shown}" if worst > 1e-12 else ""),
    )


def reversed_bounds(domain: Sequence[float]) -> Case:
    """The Appendix calls ``L`` and ``U`` "the upper and the lower bound"; Algorithms 2 and 3 loop over
    ``[L, U]``. With the text's assignment (L the maximum, U the minimum of the LPs) the interval of
    a record whose bounds differ holds no domain value; with L the lower bound it holds them all."""
    d = check_array("domain", domain, dtype=float)
    lo, hi = d[0], d[-1]
    as_printed = int(np.sum((d >= hi) & (d <= lo)))  # [L, U] with L = max, U = min
    as_derived = int(np.sum((d >= lo) & (d <= hi)))
    return Case(
        "L, U order",
        "L = upper bound, U = lower bound",
        "L = lower bound (LP minimum), U = upper bound (LP maximum)",
        f"a record with LP bounds {lo:g} and {hi:g}: domain values in [L, U]",
        float(as_printed),
        float(as_derived),
        as_printed == as_derived,
    )


# --- noise addition -------------------------------------------------------------------------
def noise_max_rule(rule: Callable[[float, int], int], levels: Sequence[float], sizes: Sequence[int]) -> Case:
    """ "k% noise: the maximum noise M is k% of |D| - 1, rounded to the nearest 2": ``rule(k, |D|)``
    (privlab's `noise_max`) against the nearest even number found by search (ties up)."""
    bad, cells = [], 0
    for k in levels:
        for m in sizes:
            k, m = check_real("levels[]", k, low=0, high=100), check_int("sizes[]", m, low=1)
            target = k / 100.0 * (m - 1)
            evens = np.arange(0, 2 * (m + 1), 2)
            gap = np.abs(evens - target)
            want = int(evens[np.flatnonzero(gap <= gap.min() + 1e-12)[-1]])  # nearest; a tie goes up
            cells += 1
            if int(rule(k, m)) != want:
                bad.append(f"k = {k:g}, |D| = {m}: rule {rule(k, m)}, nearest even {want}")
    return Case(
        "noise M",
        "M = k% of (|D| - 1), rounded to the nearest 2",
        "the even number nearest k (|D| - 1) / 100 (ties up)",
        "k = 25, |D| = 25",
        float(rule(25, 25)),
        6.0,
        not bad,
        f"{cells} (k, |D|) pairs" + (f"; {bad[0]}" if bad else ""),
    )


def noise_support(M_values: Sequence[int]) -> Case:
    """privlab's reading of the binomial noise with maximum M [reconstructed: the seed names the
    distribution and M only]: ``Binomial(M, 1/2) - M/2`` has support ``[-M/2, M/2]`` (width M)
    and mean 0, by sympy.stats on each M."""
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy as sp
    from sympy.stats import Binomial, E, density

    bad = []
    for M in M_values:
        M = check_int("M_values[]", M, low=0, high=200)
        if M % 2:
            raise PrivlabError(f"M_values must be even, got {M}")
        if M == 0:
            continue
        X = Binomial("X", M, sp.Rational(1, 2)) - sp.Rational(M, 2)
        support = sorted(density(X).dict)
        if (support[0], support[-1]) != (-sp.Rational(M, 2), sp.Rational(M, 2)) or E(X) != 0:
            bad.append(f"M = {M}: support {support[0]}..{support[-1]}, mean {E(X)}")
    top = max(int(m) for m in M_values)
    return Case(
        "noise support",
        "noise in [-M/2, M/2], mean 0 [reconstructed]",
        "support and mean of Binomial(M, 1/2) - M/2 (sympy.stats)",
        f"M = {top}: the largest noise",
        float(top // 2),
        float(top // 2),
        not bad,
        f"{len(M_values)} values of M" + (f"; {bad[0]}" if bad else ""),
    )


def noise_interval(domain_sizes: Sequence[int], M_values: Sequence[int]) -> Case:
    """The intruder's interval (Algorithm 3 as privlab reads it): the released code +- M/2, clipped
    to the domain, against the set of true codes that could have produced the released code
    (enumerating every true code and noise outcome, with the clip to the domain)."""

    def sources(m: int, M: int, y: int) -> set[int]:
        return {c for c in range(m) for b in range(M + 1) if min(max(c + b - M // 2, 0), m - 1) == y}

    def interval(m: int, M: int, y: int) -> set[int]:
        return set(range(max(y - M // 2, 0), min(y + M // 2, m - 1) + 1))

    bad, cells = [], 0
    for m in domain_sizes:
        for M in M_values:
            m, M = check_int("domain_sizes[]", m, low=1, high=500), check_int("M_values[]", M, low=0, high=500)
            cells += 1
            for y in range(m):
                src = sources(m, M, y)
                if src and src != interval(m, M, y):
                    got = sorted(interval(m, M, y))
                    bad.append(f"|D| = {m}, M = {M}, perturbed {y}: interval {got}, sources {sorted(src)}")
                    break
    return Case(
        "noise interval",
        "[perturbed - M/2, perturbed + M/2] clipped to the domain",
        "every true value that can produce the perturbed one",
        "|D| = 25, M = 6, perturbed code 0: values in the interval",
        float(len(interval(25, 6, 0))),
        float(len(sources(25, 6, 0))),
        not bad,
        f"{cells} (|D|, M) pairs" + (f"; {bad[0]}" if bad else ""),
    )


# --- H(eps): brute force, the printed recurrence and Algorithm 1 ------------------------------
def _check_xp(values: Any, probs: Any) -> tuple[np.ndarray, np.ndarray]:
    x = check_array("values", values, dtype=float)
    p = check_array("probs", probs, dtype=float)
    if x.size != p.size:
        raise PrivlabError(f"values and probs must have the same length, got {x.size} and {p.size}")
    if x.size > 1 and not np.all(np.diff(x) > 0):
        raise PrivlabError("values must be strictly increasing")
    if np.any(p < 0) or abs(p.sum() - 1.0) > 1e-9:
        raise PrivlabError("probs must be non-negative and sum to 1")
    return x, p


def _info(q: float) -> float:
    return 0.0 if q <= 0 or q >= 1.0 - 1e-12 else -q * math.log2(q)


def brute_force_entropy(values: Any, probs: Any, eps: float, best: Callable[..., float] = min) -> float:
    """``best`` (min: H(eps); max: the problem statement's "maximised") entropy over every covering
    of Section 3's problem statement: cut points ``y_1 < ... < y_m``, each group's span
    ``x_last - x_first <= eps`` (conditions (1)-(3)), probabilities ``q`` summed per group."""
    x, p = _check_xp(values, probs)
    e = check_real("eps", eps, low=0)
    n = x.size
    if n > MAX_BRUTE_VALUES:
        raise PrivlabError(
            f"values must hold at most {MAX_BRUTE_VALUES} values for the brute force (2^(n-1) coverings)"
        )
    found = []
    for cuts in itertools.product((False, True), repeat=n - 1):
        bounds = [0, *[i + 1 for i, c in enumerate(cuts) if c], n]
        groups = list(zip(bounds[:-1], bounds[1:]))
        if all(x[b - 1] - x[a] <= e + 1e-9 for a, b in groups):
            found.append(sum(_info(float(p[a:b].sum())) for a, b in groups))
    return float(best(found))


def printed_recurrence(values: Any, probs: Any, eps: float) -> float:
    """Section 4's recurrence as printed: ``H(eps, i) = min[(H(eps, i-1) + a_i), ..., (H(eps, j-1) + a_j)]``
    with ``a_j = (sum_{k=j}^{i} p_k) log(1/sum)`` and ``j`` the first index with ``x_i - x_j <= eps``;
    base cases ``H(eps, 0) = 0``, ``H(eps, 1) = p_1 log(1/p_1)``."""
    x, p = _check_xp(values, probs)
    e = check_real("eps", eps, low=0)
    n = x.size
    H = [0.0, _info(float(p[0]))]
    for i in range(2, n + 1):
        j = i
        while j > 1 and x[i - 1] - x[j - 2] <= e + 1e-9:
            j -= 1
        H.append(min(H[t - 1] + _info(float(p[t - 1 : i].sum())) for t in range(j, i + 1)))
    return float(H[n])


def printed_algorithm1(values: Any, probs: Any) -> dict[int, float]:
    """Algorithm 1 as printed, over the integer stages ``eps = 0, 1, ..., x_n - x_1``: each cell starts
    from the previous stage's value ``H(eps - 1, i)`` (none before the first stage: +inf), then the
    while loop walks ``j`` down from ``i`` while ``x_i - x_j <= eps`` and ``j != 0``."""
    x, p = _check_xp(values, probs)
    n = x.size
    out: dict[int, float] = {}
    prev = [math.inf] * (n + 1)
    for eps in range(int(math.ceil(x[-1] - x[0])) + 1):
        H = [0.0, _info(float(p[0]))] + [math.inf] * (n - 1)
        for i in range(2, n + 1):
            j, partial = i, 0.0
            H[i] = prev[i]
            while j != 0 and x[i - 1] - x[j - 1] <= eps + 1e-9:
                partial += float(p[j - 1])
                temp = _info(partial) + H[j - 1]
                if temp < H[i]:
                    H[i] = temp
                j -= 1
        out[eps] = float(H[n])
        prev = H
    return out


def _random_instances(count: int, seed: int, n_max: int = 7, span: int = 12) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(2, n_max + 1))
        x = np.sort(rng.choice(np.arange(span + 1), size=n, replace=False)).astype(float)
        w = rng.gamma(0.7, size=n)
        out.append((x, w / w.sum()))
    return out


def recurrence(
    rule: Callable[[Any, Any, float], float] = printed_recurrence,
    *,
    instances: int = 40,
    seed: int = 0,
    example: tuple[Sequence[float], Sequence[float], float] = ((1, 3, 8, 9), (0.15, 0.10, 0.70, 0.05), 6.0),
) -> Case:
    """The recurrence (``rule``, the printed one by default) against the brute-force minimum over
    coverings, on ``instances`` seeded distributions at every integer and half-integer eps."""
    count = check_int("instances", instances, low=1, high=10_000)
    worst, where = 0.0, ""
    for x, p in _random_instances(count, check_int("seed", seed, low=0)):
        for e in np.arange(0.0, x[-1] - x[0] + 1.0, 0.5):
            diff = abs(rule(x, p, float(e)) - brute_force_entropy(x, p, float(e)))
            if diff > worst:
                worst, where = diff, f"x = {x.tolist()}, eps = {e:g}"
    x, p = (np.asarray(v, dtype=float) for v in example[:2])
    e = float(example[2])
    return Case(
        "recurrence",
        "H(eps,i) = min_j [H(eps,j-1) + a_j], a_j = (sum_j^i p) log(1/sum_j^i p)",
        "minimum entropy over the coverings of conditions (1)-(3), by enumeration",
        f"appendix example, eps = {e:g}",
        rule(x, p, e),
        brute_force_entropy(x, p, e),
        worst <= 1e-9,
        f"{count} distributions, max |difference| {worst:.2g}" + (f" at {where}" if worst > 1e-9 else ""),
    )


def algorithm1(
    rule: Callable[[Any, Any], Mapping[int, float]] = printed_algorithm1,
    *,
    instances: int = 40,
    seed: int = 1,
    example: tuple[Sequence[float], Sequence[float]] = ((1, 3, 8, 9), (0.15, 0.10, 0.70, 0.05)),
) -> Case:
    """Algorithm 1 (``rule``, the printed one by default) at every integer eps against the brute force."""
    count = check_int("instances", instances, low=1, high=10_000)
    worst, where = 0.0, ""
    for x, p in _random_instances(count, check_int("seed", seed, low=0)):
        for e, h in rule(x, p).items():
            diff = abs(h - brute_force_entropy(x, p, float(e)))
            if diff > worst:
                worst, where = diff, f"x = {x.tolist()}, eps = {e}"
    got = rule(*example)
    x, p = (np.asarray(v, dtype=float) for v in example)
    return Case(
        "Algorithm 1",
        "stages eps = 0, 1, ...; H(eps,i) starts at H(eps-1,i); while x_i - x_j <= eps and j != 0",
        "minimum entropy over the coverings, by enumeration, at each integer eps",
        "appendix example, eps = 7",
        got[7],
        brute_force_entropy(x, p, 7.0),
        worst <= 1e-9,
        f"{count} distributions, max |difference| {worst:.2g}" + (f" at {where}" if worst > 1e-9 else ""),
    )


def problem_statement(values: Any, probs: Any, printed: Mapping[float, float], *, decimals: int = 3) -> Case:
    """Section 3's problem statement says H(eps) is *maximised* over the coverings; the brute-force
    maximum against the appendix's printed H(eps) (which are the minima)."""
    found = {float(e): brute_force_entropy(values, probs, float(e), best=max) for e in printed}
    off = {e: v for e, v in found.items() if round(v, decimals) != round(float(printed[e]), decimals)}
    e0 = max(printed)
    for e in sorted(printed):
        if e in off:
            e0 = e
            break
    return Case(
        "maximised",
        "H(eps) maximised over all collections C",
        "the maximum over the coverings, by enumeration",
        f"appendix example, eps = {e0:g}",
        float(printed[e0]),
        found[e0],
        not off,
        f"the maximum matches the printed H(eps) at {len(found) - len(off)} of {len(found)} eps",
    )


def base_case_order(values: Any, probs: Any) -> Case:
    """Section 4 prints the base cases ``H(0, eps) = 0`` and ``H(1, eps) = p_1 log(1/p_1)``, the
    arguments in the order (i, eps), while the recurrence writes ``H(eps, i)``. Read in the
    recurrence's order, ``H(1, .)`` is H at eps = 1 of all the values, not ``p_1 log(1/p_1)``."""
    x, p = _check_xp(values, probs)
    printed = _info(float(p[0]))
    derived = brute_force_entropy(x, p, 1.0)
    return Case(
        "base cases",
        "H(0, eps) = 0, H(1, eps) = p1 log(1/p1)",
        "H(eps, 0) = 0, H(eps, 1) = p1 log(1/p1); read as H(eps = 1, i = n): the minimum at eps = 1",
        "appendix example, H(1, .) in the recurrence's order (eps first)",
        printed,
        derived,
        math.isclose(printed, derived, abs_tol=1e-9),
    )


def eps_max_statement(values: Any, probs: Any) -> Case:
    """Section 3: "Formally, H(eps_max = 0) and H(eps > 0) for all eps < eps_max". Read as printed,
    H(eps_max = 0) is H at eps = 0 (the initial entropy); the definition it stands for is
    ``H(eps_max) = 0`` and ``H(eps) > 0`` below, with eps_max the span of the positive-probability values."""
    x, p = _check_xp(values, probs)
    support = x[p > 0]
    e_max = float(support[-1] - support[0])
    below = [brute_force_entropy(x, p, float(e)) for e in np.arange(0.0, e_max, 0.5)]
    h_max = brute_force_entropy(x, p, e_max)
    return Case(
        "eps_max",
        "H(eps_max = 0) and H(eps > 0) for all eps < eps_max",
        "H(eps_max) = 0 and H(eps) > 0 for eps < eps_max",
        "appendix example: H at the printed argument eps_max = 0",
        brute_force_entropy(x, p, 0.0),
        h_max,
        math.isclose(brute_force_entropy(x, p, 0.0), h_max, abs_tol=1e-12),
        f"eps_max = {e_max:g}; H(eps_max) = {h_max:g}; least H below eps_max = {min(below, default=math.nan):.4g}",
    )


def area_integral(
    closed_form: Callable[[Any, Any], float],
    *,
    instances: int = 30,
    seed: int = 2,
    step: float = 0.25,
    example: tuple[Sequence[float], Sequence[float]] = ((1, 3, 8, 9), (0.15, 0.10, 0.70, 0.05)),
) -> Case:
    """A = integral of H(eps) d eps from 0 to eps_max (Section 3; the seed omits "d eps"):
    ``closed_form(x, p)`` (privlab's exact sum over the breakpoints) against the midpoint rule with
    the brute-force H on integer-valued instances, whose breakpoints are integers, so that the
    midpoint rule at ``step`` (a divisor of 1) is exact up to rounding."""
    h = check_real("step", step, low=0, low_open=True, high=1)
    if not float(1.0 / h).is_integer():
        raise PrivlabError(f"step must divide 1 (the instances' breakpoints are integers), got {step!r}")
    count = check_int("instances", instances, low=1, high=10_000)

    def midpoint(x: np.ndarray, p: np.ndarray) -> float:
        mids = np.arange(h / 2, x[-1] - x[0], h)
        return float(sum(brute_force_entropy(x, p, float(e)) for e in mids) * h)

    worst = 0.0
    for x, p in _random_instances(count, check_int("seed", seed, low=0), n_max=6, span=10):
        worst = max(worst, abs(closed_form(x, p) - midpoint(x, p)))
    x, p = (np.asarray(v, dtype=float) for v in example)
    return Case(
        "area",
        "A = integral_0^eps_max H(eps) [d eps]",
        "sum over breakpoints of H times the gap to the next breakpoint",
        "appendix example",
        midpoint(x, p),
        closed_form(x, p),
        worst <= 1e-9,
        f"{count} distributions, max |difference| {worst:.2g}",
    )


def coverings(values: Any, eps: float, *, maximal: bool = False) -> list[list[list[float]]]:
    """Every covering of the sorted ``values`` by contiguous groups of span <= ``eps`` (Section 3's
    collections C); with ``maximal``, only those no two neighbouring groups of which could be merged
    within ``eps`` (the appendix's "options": coverings that cannot be coarsened)."""
    x = check_array("values", values, dtype=float)
    e = check_real("eps", eps, low=0)
    n = x.size
    if n > MAX_BRUTE_VALUES:
        raise PrivlabError(f"values must hold at most {MAX_BRUTE_VALUES} values (2^(n-1) coverings)")
    if n > 1 and not np.all(np.diff(x) > 0):
        raise PrivlabError("values must be strictly increasing")
    out = []
    for cuts in itertools.product((False, True), repeat=n - 1):
        bounds = [0, *[i + 1 for i, c in enumerate(cuts) if c], n]
        groups = list(zip(bounds[:-1], bounds[1:]))
        if any(x[b - 1] - x[a] > e + 1e-9 for a, b in groups):
            continue
        if maximal and any(x[b2 - 1] - x[a1] <= e + 1e-9 for (a1, _), (_, b2) in zip(groups[:-1], groups[1:])):
            continue
        out.append([x[a:b].tolist() for a, b in groups])
    return out


PRINTED_FORMULAS = ("H0", "sampling", "query_count", "interval")  # the formulas formula_table reads as printed


def _area(x: Any, p: Any) -> float:
    """privlab's area under H(eps) (`privlab.cae.cae`), the closed form `area_integral` audits."""
    return cae(x, p)[1]


def formula_table(
    printed: Mapping[str, str],
    values: Sequence[float],
    probs: Sequence[float],
    appendix: Mapping[float, float],
    salary: Mapping[str, int],
    sampling_instance: Mapping[str, float],
    *,
    instances: int,
    n_values: Sequence[int],
    q_values: Sequence[int],
    noise_levels: Sequence[float],
    domain_sizes: Sequence[int],
    M_values: Sequence[int],
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Every displayed formula of the seed re-derived, one row per formula.

    The measure (`privlab.cae.cae`, for the area) and the noise rule (`privlab.cae.noise_max`) are
    handed to their checkers as the functions audited; every other formula is checked on its own.

    Parameters
    ----------
    printed : mapping
        The formulas as the seed prints them (sympy strings), one per name in `PRINTED_FORMULAS`.
    values, probs : sequence of float
        The appendix example's values and their probabilities.
    appendix : mapping
        eps -> the H(eps) the appendix prints (for the problem statement).
    salary : mapping
        The salary domain of Section 5's interval probabilities: ``low`` to ``high`` (inclusive) by ``step``.
    sampling_instance : mapping
        One numeric instance of the sampling formula's symbols.
    instances : int
        Brute-forced distributions per randomised check.
    n_values, q_values : sequence of int
        The records and query-set sizes of the query-count and query-rank checks.
    noise_levels, domain_sizes, M_values : sequence
        The noise levels, domain sizes and maximum noises of the noise checks.
    map_fn : callable, optional
        Runs the checkers (`privlab.formulas.check_all`).

    Returns
    -------
    DataFrame
        The formulas table (`privlab.formulas.COLUMNS`), one row per formula.
    """
    check_mapping("printed", printed, PRINTED_FORMULAS)
    x, q = list(values), list(probs)
    seen = {float(e): float(v) for e, v in appendix.items()}
    instance = dict(sampling_instance)
    if not isinstance(salary, Mapping) or any(k not in salary for k in ("low", "high", "step")):
        raise PrivlabError(f"salary must be a mapping with low, high and step, got {salary!r}")
    low, high = check_int("salary.low", salary["low"]), check_int("salary.high", salary["high"])
    domain = list(range(low, high + 1, check_int("salary.step", salary["step"], low=1)))
    ns, qs = list(n_values), list(q_values)
    sizes, ms = list(domain_sizes), list(M_values)

    cases = {
        "H0": partial(shannon_h0, probs=q),
        "maximised": partial(problem_statement, x, q, seen),
        "eps_max": partial(eps_max_statement, x, q),
        "area": partial(area_integral, _area, instances=instances),
        "recurrence": partial(recurrence, instances=instances),
        "base_cases": partial(base_case_order, x, q),
        "algorithm1": partial(algorithm1, instances=instances),
        "sampling": partial(sampling_probability, instance=instance),
        "sampling_total": partial(sampling_total, instance=instance),
        "query_count": partial(query_count, n_values=ns, q_values=qs),
        "query_rank": partial(query_rank, ns, qs),
        "bounds_order": partial(reversed_bounds, domain),
        "interval": partial(interval_probability, domain=domain),
        "interval_index": partial(interval_probability, domain=list(range(1, len(domain) + 1))),
        "noise_max": partial(noise_max_rule, noise_max, list(noise_levels), sizes),
        "noise_support": partial(noise_support, ms),
        "noise_interval": partial(noise_interval, sizes, ms),
    }
    read = {k: printed[k] for k in PRINTED_FORMULAS}  # two printed formulas are checked twice
    read |= {"sampling_total": printed["sampling"], "interval_index": printed["interval"]}
    return check_all(cases, read, map_fn)
