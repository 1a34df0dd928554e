"""The slides' HIV examples, by enumerating every random choice of the algorithms (exact fractions).

- `hiv_example`: the worked example of multi-pert. X = HIV; Alice's copy is uni-pert at
  p_1 (her coin keeps HIV, else a uniform disease); Bob's, requested later at p < p_1, keeps
  Alice's value with probability p / p_1, else a uniform disease. Every number the slides
  print (p/p_1, Pr[Alice's copy is HIV], the three cases, their sum, uni-pert's value) and
  what the example's assumption "HIV is retained in Alice's data set" would give.
- `hiv_requirement3`: the example's "y for Bob is solely computed from Alice's value, hence
  requirement 3 is satisfied", as the largest |Pr[X | Y_Alice, Y_Bob] - Pr[X | Y_Alice]|.
- `independent_pair`: the slide "Problem with independent perturbation": two independent
  uni-pert copies of X both HIV when X is not, and the posterior of HIV given both copies,
  beside the multi-pert copies at the same p's.

Nothing here uses the chain law, the u/v formulas or the mechanism: every probability is a
sum over the outcomes of the coins and the uniform draws the algorithms' text describes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_distribution, check_int, check_mapping
from ._checks import check_p, check_s

__all__ = [
    "MAX_ENUMERATED",
    "hiv_example",
    "hiv_requirement3",
    "independent_pair",
    "arithmetic",
    "example_table",
]

HIV = 0  # the disease of the examples, as code 0 of the domain
MAX_ENUMERATED = 1000  # domain sizes the enumerations visit (s^3 outcomes at most)


def _frac(value: float) -> Fraction:
    """A probability as the decimal fraction it is written as (0.4 -> 2/5)."""
    return Fraction(repr(float(value)))


def _uni_pert(x: int, p: Fraction, s: int) -> Iterator[tuple[int, Fraction]]:
    """Outcomes of uni-pert(x, p) with their probabilities: the coin heads returns x; tails
    returns each value of the domain with probability 1/s."""
    yield x, p
    for y in range(s):
        yield y, (1 - p) / s


def _domain(domain_size: Any) -> int:
    s = check_s(domain_size)
    return check_int("domain_size", s, high=MAX_ENUMERATED)


def _two_p(p_first: float, p_second: float) -> tuple[Fraction, Fraction]:
    a, b = check_p(p_first, "p_first"), check_p(p_second, "p_second")
    if b > a:
        raise PrivlabError(
            f"the second request must not have the higher p (the slides' 20% after 40%), got {a:g}, {b:g}"
        )
    return _frac(a), _frac(b)


def hiv_example(domain_size: int, p_first: float, p_second: float) -> dict[str, float]:
    """The worked example: Alice's copy at ``p_first``, then Bob's at ``p_second`` < ``p_first``.

    Parameters
    ----------
    domain_size : int
        |DOM| (the slides: 10), at most 1,000.
    p_first, p_second : float
        Alice's and Bob's retention probabilities (the slides: 0.4 and 0.2), p_second <= p_first.

    Returns
    -------
    dict of str to float
        ``ratio`` (p/p_1), ``alice_hiv`` (Pr[Alice's copy is HIV]), ``case1`` (Alice's copy HIV
        and Bob's coin heads), ``case2`` (Alice's HIV, Bob's tails and his draw HIV),
        ``case3`` (Alice's not HIV, Bob's tails and his draw HIV), ``total``
        (Pr[Y_Bob = HIV | X = HIV]), ``uni_pert`` (Pr[Y = HIV | X = HIV] of uni-pert at
        ``p_second``), ``given_alice_hiv`` (Pr[Y_Bob = HIV | X = HIV, Alice's copy HIV]).
    """
    s = _domain(domain_size)
    pa, pb = _two_p(p_first, p_second)
    keep = pb / pa
    out = dict.fromkeys(("alice_hiv", "case1", "case2", "case3", "total", "both"), Fraction(0))
    for alice, w_a in _uni_pert(HIV, pa, s):
        out["alice_hiv"] += w_a * (alice == HIV)
        # Bob: the coin heads (p/p_1) keeps Alice's value; tails draws each value with 1/s
        for heads, w_coin in ((True, keep), (False, 1 - keep)):
            for bob, w_v in ((alice, Fraction(1)),) if heads else ((y, Fraction(1, s)) for y in range(s)):
                w = w_a * w_coin * w_v
                out["case1"] += w * (alice == HIV and heads)
                out["case2"] += w * (alice == HIV and not heads and bob == HIV)
                out["case3"] += w * (alice != HIV and not heads and bob == HIV)
                out["total"] += w * (bob == HIV)
                out["both"] += w * (alice == HIV and bob == HIV)
    uni = sum((w for y, w in _uni_pert(HIV, pb, s) if y == HIV), Fraction(0))
    result = {k: out[k] for k in ("alice_hiv", "case1", "case2", "case3", "total")}
    result.update(ratio=keep, uni_pert=uni, given_alice_hiv=out["both"] / out["alice_hiv"])
    return {k: float(v) for k, v in result.items()}


def _posterior_gap(joint: dict[tuple[int, int, int], Fraction], s: int) -> Fraction:
    """max |Pr[X | Y_1, Y_2] - Pr[X | Y_1]| over the outcomes of positive probability."""
    gap = Fraction(0)
    for y1 in range(s):
        one = [sum((joint.get((x, y1, y2), Fraction(0)) for y2 in range(s)), Fraction(0)) for x in range(s)]
        n1 = sum(one, Fraction(0))
        for y2 in range(s):
            both = [joint.get((x, y1, y2), Fraction(0)) for x in range(s)]
            n2 = sum(both, Fraction(0))
            if n2:
                gap = max(gap, max(abs(b / n2 - o / n1) for b, o in zip(both, one)))
    return gap


def hiv_requirement3(domain_size: int, p_first: float, p_second: float, prior: Any = None) -> float:
    """Requirement 3 for the worked example's two copies: the largest |Pr[X | Y_Alice, Y_Bob] -
    Pr[X | Y_Alice]| (Alice's copy is the best), X drawn from ``prior`` (uniform by default).

    Parameters
    ----------
    domain_size : int
        |DOM|, at most 1,000 (s^3 outcomes are enumerated; keep it small).
    p_first, p_second : float
        Alice's and Bob's retention probabilities, p_second <= p_first.
    prior : array of float, optional
        The law of X on 0..s-1.
    """
    s = _domain(domain_size)
    pa, pb = _two_p(p_first, p_second)
    law = [Fraction(1, s)] * s if prior is None else [_frac(v) for v in check_distribution("prior", prior)]
    if len(law) != s:
        raise PrivlabError(f"prior must have domain_size = {s} entries, got {len(law)}")
    joint: dict[tuple[int, int, int], Fraction] = {}
    for x in range(s):
        for alice, w_a in _uni_pert(x, pa, s):
            for bob, w_b in _uni_pert(alice, pb / pa, s):  # Bob keeps Alice's value w.p. p/p_1
                key = (x, alice, bob)
                joint[key] = joint.get(key, Fraction(0)) + law[x] * w_a * w_b
    return float(_posterior_gap(joint, s))


def independent_pair(domain_size: int, p_first: float, p_second: float) -> dict[str, float]:
    """Two copies of X, both HIV: independent uni-pert copies against multi-pert's, X uniform.

    Parameters
    ----------
    domain_size : int
        |DOM| (the slides: 10), at most 1,000.
    p_first, p_second : float
        The two retention probabilities, the second at most the first (multi-pert releases
        the second from the first; at an equal p it is the same copy).

    Returns
    -------
    dict of str to float
        ``both_given_not`` (independent copies: Pr[both HIV | X is another disease]),
        ``posterior_both`` and ``posterior_one`` (Pr[X = HIV | both copies HIV] and
        Pr[X = HIV | the first copy HIV], X uniform), ``multi_both_given_not`` and
        ``multi_posterior_both`` (the same for multi-pert's copies).
    """
    s = _domain(domain_size)
    pa, pb = _two_p(p_first, p_second)
    other = 1 % s  # another disease
    ind: dict[tuple[int, int, int], Fraction] = {}
    multi: dict[tuple[int, int, int], Fraction] = {}
    for x in range(s):
        for a, w_a in _uni_pert(x, pa, s):
            for b, w_b in _uni_pert(x, pb, s):  # independent: from X itself
                ind[(x, a, b)] = ind.get((x, a, b), Fraction(0)) + Fraction(1, s) * w_a * w_b
            for b, w_b in _uni_pert(a, pb / pa, s):  # multi-pert: from the first copy
                multi[(x, a, b)] = multi.get((x, a, b), Fraction(0)) + Fraction(1, s) * w_a * w_b

    def given_x(joint: dict[tuple[int, int, int], Fraction], x: int) -> Fraction:
        return joint.get((x, HIV, HIV), Fraction(0)) * s  # Pr[both HIV | X = x] (X uniform)

    def posterior(joint: dict[tuple[int, int, int], Fraction], both: bool) -> Fraction:
        hit = [
            sum((w for (x2, a, b), w in joint.items() if x2 == x and a == HIV and (b == HIV or not both)), Fraction(0))
            for x in range(s)
        ]
        return hit[HIV] / sum(hit)

    out = {
        "both_given_not": given_x(ind, other),
        "posterior_both": posterior(ind, True),
        "posterior_one": posterior(ind, False),
        "multi_both_given_not": given_x(multi, other),
        "multi_posterior_both": posterior(multi, True),
    }
    return {k: float(v) for k, v in out.items()}


def arithmetic(expression: str) -> float:
    """The value of an expression of numbers as a slide prints it (``"0.46 * 0.5 * 0.1"``).

    Parameters
    ----------
    expression : str
        Numbers, + - * / and parentheses only.
    """
    # SymPy: about 0.5 s to import, loaded only by the formula audit
    import sympy

    if not isinstance(expression, str) or not re.fullmatch(r"[0-9.+\-*/() ]+", expression) or not expression.strip():
        raise PrivlabError(
            f"expression must be arithmetic on numbers (digits, + - * / and parentheses), got {expression!r}"
        )
    try:
        value = sympy.sympify(expression, rational=True)
    except (sympy.SympifyError, SyntaxError, TypeError):
        raise PrivlabError(f"expression must be arithmetic on numbers, got {expression!r}") from None
    if value.free_symbols or not value.is_number:
        raise PrivlabError(f"expression must be arithmetic on numbers (no symbols), got {expression!r}")
    return float(value)


def example_table(
    numbers: Mapping[str, Any],
    domain_size: int,
    p_alice: float,
    p_bob: float,
    independent_domain_size: int,
    independent_ps: Sequence[float],
) -> pd.DataFrame:
    """Every number of the slides' HIV examples: printed, the slide's own arithmetic and enumerated.

    Parameters
    ----------
    numbers : mapping
        Key -> ``{expression, value}``: a number the slides print (``value``) and the expression
        they print it as; the key names one of the enumerated values below.
    domain_size, p_alice, p_bob
        The multi-pert example (`hiv_example`, `hiv_requirement3`).
    independent_domain_size, independent_ps
        The independent-perturbation slide (`independent_pair`): its domain size and its two p's.

    Returns
    -------
    DataFrame
        One row per key: ``expression``, ``printed`` and ``slide_arithmetic`` (empty, empty and
        NaN for a value the slides do not print) and ``enumerated``, the value the enumeration gives.
    """
    check_mapping("numbers", numbers)
    if isinstance(independent_ps, (str, bytes)) or not isinstance(independent_ps, Sequence) or len(independent_ps) != 2:
        raise PrivlabError(f"independent_ps must be the slide's two retention probabilities, got {independent_ps!r}")
    found = hiv_example(domain_size, p_alice, p_bob)
    found |= {"requirement3": hiv_requirement3(domain_size, p_alice, p_bob)}
    found |= independent_pair(independent_domain_size, *independent_ps)
    rows = []
    for key, number in numbers.items():
        e = check_mapping(f"numbers.{key}", number, ("expression", "value"))
        if key not in found:
            raise PrivlabError(f"numbers.{key} must name an enumerated value: one of {', '.join(found)}")
        rows.append({"key": key, "expression": e["expression"], "printed": e["value"]})
        rows[-1]["slide_arithmetic"] = arithmetic(e["expression"])
    done = {row["key"] for row in rows}
    rows += [{"key": k, "expression": "", "printed": "", "slide_arithmetic": np.nan} for k in found if k not in done]
    return pd.DataFrame(rows).assign(enumerated=lambda d: d.key.map(found))
