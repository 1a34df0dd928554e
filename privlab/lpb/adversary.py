"""The informed adversary of LPB: it knows every record but one (``known``) and the
universe ``U`` of values the missing record may take; ``D_u = known + [u]``. Against the
Laplace mechanism ``R = f(D) + Lap(lam)`` its posterior is
``Pr[X = u | R = r] ∝ Pr[X = u] exp(-|r - f(D_u)| / lam)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validation import (
    PrivlabError,
    check_array,
    check_choice,
    check_distribution,
    check_real,
    check_same_length,
)
from ._checks import MAX_CELLS, MAX_WORK, check_cells

__all__ = [
    "QUERIES",
    "query_answers",
    "sensitivity",
    "posteriors",
    "largest_posterior",
    "largest_posterior_given",
    "max_posterior",
]

QUERIES: dict[str, Callable[[np.ndarray], float]] = {"mean": np.mean, "sum": np.sum, "median": np.median}


def query_answers(universe: np.ndarray, known: np.ndarray, query: str = "mean") -> np.ndarray:
    """f(D_u) = f(known + [u]) for every u in the universe, in order."""
    check_choice("query", query, QUERIES)
    u = check_array("universe", universe)
    k = check_array("known", known, min_size=0)
    if query == "median":  # one median of len(known) + 1 values per candidate
        check_cells("query median over universe x known", u.size, k.size + 1, MAX_WORK)
    with np.errstate(over="ignore", invalid="ignore"):
        if query == "mean":  # closed forms: exact and O(|U|) for a 48,842-row D'
            answers = (k.sum() + u) / (k.size + 1)
            if not np.all(np.isfinite(answers)):  # the sum overflowed, not the mean: divide first
                answers = (k / (k.size + 1)).sum() + u / (k.size + 1)
        elif query == "sum":
            answers = k.sum() + u
        else:
            answers = np.array([QUERIES[query](np.append(k, v)) for v in u])
    if not np.all(np.isfinite(answers)):
        raise PrivlabError(
            f"the {query} of known and a universe value exceeds the largest float ({np.finfo(float).max:.3g}); "
            "rescale the values"
        )
    return answers


def sensitivity(universe: np.ndarray, known: np.ndarray, query: str = "mean") -> float:
    """Delta over the universe as the paper takes it: ``max_u f(D_u) - min_u f(D_u)``."""
    answers = query_answers(universe, known, query)
    return float(answers.max() - answers.min())


_DENSE = 4096  # max_posterior forms the whole kernel up to this many candidates


def _universe(universe: np.ndarray) -> np.ndarray:
    u = check_array("universe", universe)
    if np.unique(u).size != u.size:
        raise PrivlabError("universe values must be distinct")
    return u


def _prior(prior: np.ndarray | None, size: int) -> np.ndarray:
    if prior is None:
        return np.full(size, 1.0 / size)
    p = check_distribution("prior", prior)
    check_same_length("prior", p, "universe", np.empty(size))
    return p


def _scale_for(answers: np.ndarray, epsilon: float) -> float:
    eps = check_real("epsilon", epsilon, low=0, low_open=True)
    with np.errstate(over="ignore"):
        delta = float(answers.max() - answers.min())
    if not np.isfinite(delta / eps):
        raise PrivlabError(
            f"the query's answers span {answers.min():.3g}..{answers.max():.3g}: the sensitivity over epsilon "
            f"exceeds the largest float ({np.finfo(float).max:.3g}); rescale the values"
        )
    if delta <= 0:
        raise PrivlabError("universe must give at least two different query answers (sensitivity is 0)")
    return delta / eps


def _normalise_log(logw: np.ndarray, axis: int = -1) -> np.ndarray:
    logw = logw - logw.max(axis=axis, keepdims=True)
    w = np.exp(logw)
    return w / w.sum(axis=axis, keepdims=True)


def _distances(r: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """``|r - f(D_u)|`` up to a constant per response, exact however large ``r`` is.

    Beyond the answers' range every distance shares the term ``|r - nearest end|``, which
    the normalisation removes; far outside the range it is dropped, which keeps
    ``r = 1e300`` from swallowing the answers' differences (the posterior's large-response
    limit, not the uniform prior).
    """
    lo, hi = answers.min(), answers.max()
    with np.errstate(over="ignore"):  # an overflow (inf) means no response is that far
        far = 1e6 * max(hi - lo, np.finfo(float).tiny)  # beyond this, |r - f| would round away the differences
    r = r[..., None]
    direct = np.abs(r - answers)
    return np.where(r - hi > far, hi - answers, np.where(lo - r > far, answers - lo, direct))


def posteriors(
    universe: np.ndarray,
    known: np.ndarray,
    response: float | np.ndarray,
    epsilon: float,
    query: str = "mean",
    prior: np.ndarray | None = None,
) -> np.ndarray:
    """The informed adversary's posterior Pr[X = u | R = response] for every u in ``universe``.

    The sensitivity is taken over the universe as the paper does (max minus min of
    f(known + [u])), and lam = sensitivity / epsilon. Computed in log space, exact for
    any finite response.

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
    u = _universe(universe)
    r = check_array("response", response, ndim=None)
    if r.ndim > 1:
        raise PrivlabError(f"response must be a number or 1-dimensional, got shape {r.shape}")
    check_cells("posteriors of response x universe", r.size, u.size)
    answers = query_answers(u, known, query)
    lam = _scale_for(answers, epsilon)
    p = _prior(prior, u.size)
    with np.errstate(divide="ignore"):
        logw = np.log(p) - _distances(r, answers) / lam
    return _normalise_log(logw)


def largest_posterior(
    universe: np.ndarray,
    known: np.ndarray,
    response: np.ndarray,
    epsilon: float,
    among: np.ndarray,
    query: str = "mean",
    prior: np.ndarray | None = None,
) -> np.ndarray:
    """The largest posterior among the candidates ``among`` (a boolean mask of the universe), for
    each response: ``posteriors(...)[:, among].max(axis=1)`` (equal to rounding), in
    O(|U| + len(response) log |U|) instead of O(|U| len(response)), in log space throughout.

    With the answers sorted, a response r between answers a_j and a_(j+1) weighs every candidate at
    or below a_j by ``exp(-(r - a_j) / lam)`` times its weight seen from a_j, and every candidate
    above by ``exp(-(a_(j+1) - r) / lam)`` times its weight seen from a_(j+1); the totals and the
    largest chosen weight seen from each answer, from the left and from the right, are one pass each.

    Parameters
    ----------
    universe, known, epsilon, query, prior
        As in `posteriors`.
    response : array_like, 1-dimensional
    among : bool array of the universe's length, with at least one True

    Returns
    -------
    ndarray of shape (len(response),)
    """
    r = check_array("response", response)
    return largest_posterior_given(universe, known, epsilon, among, query, prior)(r)


def largest_posterior_given(
    universe: np.ndarray,
    known: np.ndarray,
    epsilon: float,
    among: np.ndarray,
    query: str = "mean",
    prior: np.ndarray | None = None,
) -> Callable[[np.ndarray], np.ndarray]:
    """`largest_posterior` as a function of the responses alone: its passes over the sorted
    answers are made once, for every batch of responses of one adversary (a Monte Carlo's chunks).

    Parameters
    ----------
    universe, known, epsilon, among, query, prior
        As in `largest_posterior`.

    Returns
    -------
    callable: responses (1-dimensional float array) -> largest posteriors, as `largest_posterior`.
    """
    u = _universe(universe)
    mask = np.asarray(among)
    if mask.dtype != bool or mask.shape != u.shape or not mask.any():
        raise PrivlabError(f"among must be a boolean mask of the {u.size} candidates with a True")
    answers = query_answers(u, known, query)
    lam = _scale_for(answers, epsilon)
    order = np.argsort(answers, kind="stable")
    a = answers[order]
    with np.errstate(divide="ignore"):
        log_p = np.log(_prior(prior, u.size)[order])
    log_chosen = np.where(mask[order], log_p, -np.inf)
    step = np.diff(a) / lam  # the log-weight lost from one answer to the next
    # log of the total (and of the largest chosen) weight of the candidates at or below each answer,
    # seen from that answer; and of those at or above, likewise
    tl, bl, tr, br = (np.empty(a.size) for _ in range(4))
    tl[0], bl[0], tr[-1], br[-1] = log_p[0], log_chosen[0], log_p[-1], log_chosen[-1]
    for j in range(1, a.size):
        tl[j] = np.logaddexp(log_p[j], tl[j - 1] - step[j - 1])
        bl[j] = max(log_chosen[j], bl[j - 1] - step[j - 1])
    for j in range(a.size - 2, -1, -1):
        tr[j] = np.logaddexp(log_p[j], tr[j + 1] - step[j])
        br[j] = max(log_chosen[j], br[j + 1] - step[j])

    def largest(r: np.ndarray) -> np.ndarray:
        at = np.clip(np.searchsorted(a, r, side="right") - 1, 0, a.size - 2)  # r in [a_at, a_(at+1)]
        left, right = -(r - a[at]) / lam, -(a[at + 1] - r) / lam
        out = np.exp(np.maximum(left + bl[at], right + br[at + 1]) - np.logaddexp(left + tl[at], right + tr[at + 1]))
        # beyond an end every weight shares the factor of the distance to it: the posterior is that end's
        out[r >= a[-1]] = np.exp(bl[-1] - tl[-1])
        out[r <= a[0]] = np.exp(br[0] - tr[0])
        return out

    return largest


def max_posterior(
    universe: np.ndarray, known: np.ndarray, epsilon: float, query: str = "mean", prior: np.ndarray | None = None
) -> np.ndarray:
    """Exact supremum over all responses r of Pr[X = u | r], for every u.

    For r above f(D_u) every likelihood ratio against u is non-decreasing in r, and
    below it non-increasing, so the supremum is attained at r = f(D_u):
    ``p_u / sum_v p_v exp(-|f_u - f_v| / lam)``. The analytic counterpart of the
    breach simulation.

    Up to 4,096 candidates the |U| x |U| kernel is formed at once; beyond, it is summed
    over the prior's support in blocks of rows (|U| x support at most 10**10 pairs).
    """
    u = _universe(universe)
    answers = query_answers(u, known, query)
    lam = _scale_for(answers, epsilon)
    p = _prior(prior, u.size)
    if u.size <= _DENSE:
        kernel = np.exp(-np.abs(answers[:, None] - answers[None, :]) / lam)
        return p / (kernel @ p)
    support = np.flatnonzero(p > 0)
    check_cells("max_posterior over universe x the prior's support", u.size, support.size, MAX_WORK)
    a, w = answers[support], p[support]
    step = max(1, MAX_CELLS // (10 * support.size))
    total = np.concatenate(
        [np.exp(-np.abs(answers[i : i + step, None] - a[None, :]) / lam) @ w for i in range(0, u.size, step)]
    )
    return p / total
