"""Table I (the worked example) and Table II (the attribute description), recomputed."""

from __future__ import annotations

import numpy as np

from .._validation import PrivlabError, check_array, check_real, check_same_length
from ..claims import rounds_to
from .adversary import posteriors, query_answers, sensitivity
from .laplace import laplace_density

__all__ = ["worked_example", "response_matches", "attribute_summary"]


def worked_example(
    universe: np.ndarray, known: np.ndarray, response: float, epsilon: float, query: str = "mean"
) -> dict[str, np.ndarray | float]:
    """Every column of Table I: f(D_u), the noise r - f(D_u), its Laplace density and the posterior."""
    eps = check_real("epsilon", epsilon, low=0, low_open=True)
    response = check_real("response", response)
    answers = query_answers(universe, known, query)
    lam = sensitivity(universe, known, query) / eps
    noise = response - answers
    return {
        "answers": answers,
        "noise": noise,
        "density": laplace_density(noise, lam),
        "posterior": posteriors(universe, known, response, eps, query),
        "lambda": lam,
    }


def response_matches(printed_noise: list[str] | np.ndarray, answers: np.ndarray, candidates: list[float]) -> dict:
    """For each candidate response r, how many printed noises r - f(D_u) reproduces at the printed precision.

    Table I's text gives the response twice, differently; the noise column tells which one
    the table was computed with.
    """
    texts = [str(v).strip() for v in np.atleast_1d(np.asarray(printed_noise, dtype=object))]
    bad = [t for t in texts if not _is_number(t)]
    if bad:
        raise PrivlabError(f"printed_noise must hold numbers (as printed), got {bad[0]!r}")
    a = check_array("answers", answers)
    check_same_length("printed_noise", texts, "answers", a)
    cands = check_array("candidates", candidates)
    return {float(r): int(sum(rounds_to(pn, float(r) - v) for pn, v in zip(texts, a))) for r in cands}


def _is_number(text: str) -> bool:
    try:
        return bool(np.isfinite(float(text)))
    except ValueError:
        return False


def attribute_summary(column: np.ndarray) -> dict[str, float | int]:
    """One row of Table II: max, min, sensitivity (max - min) / n of the mean, the universe
    min..max and the random-guess rate 1 / |U|."""
    col = check_array("column", column)
    lo, hi, n = col.min(), col.max(), col.size
    return {
        "n": n,
        "max": hi,
        "min": lo,
        "sensitivity": (hi - lo) / n,
        "universe_size": int(hi - lo + 1),
        "rg": 1.0 / (hi - lo + 1),
        "distinct_values": int(np.unique(col).size),
        "range": hi - lo,
    }
