"""LPB: choosing the Laplace scale so that no (rho1, rho2) privacy breach occurs.

Ouyang, Yin, Liu, "Limiting Privacy Breaches in Differential Privacy". The informed
adversary knows every record but one (``known``) and the universe ``U`` of values
the missing record may take; ``D_u = known + [u]``. With the Laplace mechanism
``R = f(D) + Lap(lam)`` the adversary's posterior is
``Pr[X = u | R = r] ∝ Pr[X = u] exp(-|r - f(D_u)| / lam)``.

LPB's rule: ``lam = delta / ln(rho2 (1 - rho1) / (rho1 (1 - rho2)))`` keeps every
posterior of a value whose prior is at most rho1 at or below rho2.

Every function is pure: arrays and a seed in, arrays out.
"""

from __future__ import annotations

import numpy as np

from ._validation import (
    PrivlabError,
    check_array,
    check_choice,
    check_distribution,
    check_real,
    check_same_length,
    rng_from,
)

QUERIES = {"mean": np.mean, "sum": np.sum, "median": np.median}


def _check_rhos(rho1, rho2) -> tuple[float, float]:
    rho1 = check_real("rho1", rho1, low=0, high=1, low_open=True, high_open=True)
    rho2 = check_real("rho2", rho2, low=0, high=1, low_open=True, high_open=True)
    if rho1 >= rho2:
        raise PrivlabError(f"rho1 must be smaller than rho2, got rho1={rho1:g} >= rho2={rho2:g}")
    return rho1, rho2


def amplification_bound(rho1, rho2) -> float:
    """gamma = rho2 (1 - rho1) / (rho1 (1 - rho2)): the largest amplification that
    still guarantees (rho1, rho2)-privacy (Evfimievski et al., Theorem 2 of the paper)."""
    rho1, rho2 = _check_rhos(rho1, rho2)
    return rho2 * (1 - rho1) / (rho1 * (1 - rho2))


def lpb_epsilon(rho1, rho2) -> float:
    """The epsilon LPB assigns to (rho1, rho2): ln gamma (for the informed adversary)."""
    return float(np.log(amplification_bound(rho1, rho2)))


def laplace_scale(delta, rho1, rho2) -> float:
    """LPB's Laplace scale ``lam = delta / ln(rho2 (1 - rho1) / (rho1 (1 - rho2)))``.

    Parameters
    ----------
    delta : float
        Global sensitivity of the query (> 0).
    rho1, rho2 : float
        Prior and posterior thresholds, 0 < rho1 < rho2 < 1.
    """
    delta = check_real("delta", delta, low=0, low_open=True)
    return delta / lpb_epsilon(rho1, rho2)


def differential_identifiability_scale(delta, universe_size, rho) -> float:
    """Lee & Clifton's rule, LPB's special case rho1 = 1/|U|: delta / ln((m-1) rho / (1-rho))."""
    m = int(universe_size)
    if m < 2:
        raise PrivlabError(f"universe_size must be at least 2, got {universe_size!r}")
    return laplace_scale(delta, 1.0 / m, rho)


def query_answers(universe, known, query: str = "mean") -> np.ndarray:
    """f(D_u) = f(known + [u]) for every u in the universe, in order."""
    check_choice("query", query, QUERIES)
    universe = check_array("universe", universe)
    known = check_array("known", known, min_size=0)
    if query == "mean":  # closed forms: exact and O(|U|) for a 48,842-row D'
        return (known.sum() + universe) / (known.size + 1)
    if query == "sum":
        return known.sum() + universe
    return np.array([QUERIES[query](np.append(known, u)) for u in universe])


def sensitivity(universe, known, query: str = "mean") -> float:
    """Delta over the universe as the paper takes it: max_u f(D_u) - min_u f(D_u)."""
    answers = query_answers(universe, known, query)
    return float(answers.max() - answers.min())


def laplace_density(x, scale) -> np.ndarray:
    """Density of Lap(scale) at x: exp(-|x|/scale) / (2 scale)."""
    scale = check_real("scale", scale, low=0, low_open=True)
    x = np.asarray(x, dtype=float)
    return np.exp(-np.abs(x) / scale) / (2 * scale)


def laplace_quantile(q, scale) -> np.ndarray:
    """Quantile function of Lap(scale) (the exact counterpart of sampled noise)."""
    scale = check_real("scale", scale, low=0, low_open=True)
    q = np.asarray(q, dtype=float)
    if np.any((q <= 0) | (q >= 1)):
        raise PrivlabError("q must lie in (0, 1)")
    return np.where(q < 0.5, scale * np.log(2 * q), -scale * np.log(2 - 2 * q))


def laplace_noise(scale, size, seed=0) -> np.ndarray:
    """``size`` draws of Lap(scale); bias 0, variance 2 scale^2 (see `laplace_variance`)."""
    scale = check_real("scale", scale, low=0, low_open=True)
    return rng_from(seed).laplace(0.0, scale, size=size)


def laplace_variance(scale) -> float:
    """Analytic variance of Lap(scale) noise: 2 scale^2 (its bias is 0)."""
    scale = check_real("scale", scale, low=0, low_open=True)
    return 2.0 * scale * scale


def _prior(prior, size: int) -> np.ndarray:
    if prior is None:
        return np.full(size, 1.0 / size)
    p = check_distribution("prior", prior)
    check_same_length("prior", p, "universe", np.empty(size))
    return p


def _scale_for(answers: np.ndarray, epsilon) -> float:
    epsilon = check_real("epsilon", epsilon, low=0, low_open=True)
    delta = float(answers.max() - answers.min())
    if delta <= 0:
        raise PrivlabError("universe must give at least two different query answers (sensitivity is 0)")
    return delta / epsilon


def _normalise_log(logw: np.ndarray, axis=-1) -> np.ndarray:
    logw = logw - logw.max(axis=axis, keepdims=True)
    w = np.exp(logw)
    return w / w.sum(axis=axis, keepdims=True)


def posteriors(universe, known, response, epsilon, query: str = "mean", prior=None) -> np.ndarray:
    """The informed adversary's posterior Pr[X = u | R = response] for every u in ``universe``.

    The sensitivity is taken over the universe as the paper does
    (max minus min of f(known + [u])), and lam = sensitivity / epsilon.

    Parameters
    ----------
    universe : array_like
        The candidate values of the missing record, distinct.
    known : array_like
        The records the adversary knows (D').
    response : float or array_like
        Observed mechanism output(s); an array gives one posterior row per response.
    epsilon : float
        The mechanism's epsilon (> 0).
    query : {"mean", "sum", "median"}
    prior : array_like, optional
        Prior over the universe (default uniform).

    Returns
    -------
    ndarray of shape (len(universe),) or (len(response), len(universe)).
    """
    universe = check_array("universe", universe)
    if np.unique(universe).size != universe.size:
        raise PrivlabError("universe values must be distinct")
    answers = query_answers(universe, known, query)
    lam = _scale_for(answers, epsilon)
    p = _prior(prior, universe.size)
    r = np.asarray(response, dtype=float)
    if not np.all(np.isfinite(r)):
        raise PrivlabError("response must be finite")
    with np.errstate(divide="ignore"):
        logw = np.log(p) - np.abs(r[..., None] - answers) / lam
    return _normalise_log(logw)


def max_posterior(universe, known, epsilon, query: str = "mean", prior=None) -> np.ndarray:
    """Exact supremum over all responses r of Pr[X = u | r], for every u.

    For r above f(D_u) every likelihood ratio against u is non-decreasing in r, and
    below it non-increasing, so the supremum is attained at r = f(D_u):
    ``p_u / sum_v p_v exp(-|f_u - f_v| / lam)``. The analytic counterpart of the
    breach simulation.
    """
    universe = check_array("universe", universe)
    answers = query_answers(universe, known, query)
    lam = _scale_for(answers, epsilon)
    p = _prior(prior, universe.size)
    kernel = np.exp(-np.abs(answers[:, None] - answers[None, :]) / lam)
    return p / (kernel @ p)
