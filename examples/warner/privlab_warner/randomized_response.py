"""Warner's randomized response (1965): the design, its estimator, its variance and their exact law.

Each of ``n`` respondents, drawn with replacement from a population in which a share ``pi`` belongs
to group A, works a randomizing device unseen by the interviewer: with probability ``p`` it shows
the statement "I am a member of A", otherwise "I am not a member of A", and the respondent answers
"yes" or "no" to the statement shown. A "yes" then has probability

    lambda = p pi + (1 - p)(1 - pi),

so the share of "yes" answers, lambda_hat, estimates pi through

    pi_hat = (lambda_hat - (1 - p)) / (2p - 1),        p != 1/2,

unbiased, with variance

    Var(pi_hat) = pi (1 - pi) / n + p (1 - p) / (n (2p - 1)^2):

the variance of a direct question plus the price of the respondents' privacy, which grows without
bound as p approaches 1/2 (at p = 1/2 the answers carry no information about pi).

Every function is pure: numbers or arrays (and a seed) in, numbers or arrays out. The closed form
(`variance`) has two independent counterparts: the exact variance under the Binomial law of the
number of "yes" answers (`exact_variance`, a sum over that law's support) and the Monte Carlo of
whole surveys (`simulate_surveys`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from privlab.constraints import Interval

__all__ = [
    "yes_probability",
    "estimate",
    "variance",
    "exact_variance",
    "simulate_surveys",
    "variance_of_variance",
    "survey_summary",
]

# the design probability: any p in [0, 1] except 1/2, where 2p - 1 = 0 divides
P = Interval(float, 0, 1, exclude=(0.5,))
PI = Interval(float, 0, 1)
N = Interval(int, 1, 10**9, limit="respondents per survey")


def yes_probability(pi: float, p: float) -> float:
    """lambda = p pi + (1 - p)(1 - pi): the probability that a respondent answers "yes"."""
    pi, p = PI.check("pi", pi), Interval(float, 0, 1).check("p", p)
    return p * pi + (1 - p) * (1 - pi)


def estimate(yes: Any, n: int, p: float) -> np.ndarray:
    """Warner's estimate pi_hat = (lambda_hat - (1 - p)) / (2p - 1) from ``yes`` "yes" answers of ``n``.

    Parameters
    ----------
    yes : int or array of int
        Number of "yes" answers in each survey, in [0, n].
    n : int
        Respondents per survey.
    p : float
        Probability that the device shows "I am a member of A"; not 1/2.

    Returns
    -------
    numpy.ndarray
        pi_hat for each survey (not truncated to [0, 1]: the unbiased estimator the variance is of).

    Examples
    --------
    >>> float(estimate(70, 100, 0.7))   # lambda_hat = 0.7: (0.7 - 0.3) / 0.4
    1.0
    """
    n, p = N.check("n", n), P.check("p", p)
    counts = np.asarray(yes)
    if counts.size and (not np.issubdtype(counts.dtype, np.integer) or counts.min() < 0 or counts.max() > n):
        raise ValueError(f"yes must hold integer counts in [0, {n}], got {counts.ravel()[:4].tolist()}")
    return (counts / n - (1 - p)) / (2 * p - 1)


def variance(pi: float, n: int, p: float) -> float:
    """Warner's variance of pi_hat: pi (1 - pi) / n + p (1 - p) / (n (2p - 1)^2).

    >>> round(variance(0.3, 100, 0.7), 6)   # 0.0021 + 0.21 / 16
    0.015225
    """
    pi, n, p = PI.check("pi", pi), N.check("n", n), P.check("p", p)
    return pi * (1 - pi) / n + p * (1 - p) / (n * (2 * p - 1) ** 2)


def exact_variance(pi: float, n: int, p: float) -> tuple[float, float]:
    """The mean and variance of pi_hat under its exact law: the number of "yes" answers is
    Binomial(n, lambda); both moments are sums over its support, sharing no code with `variance`.

    Returns
    -------
    (mean, variance) : tuple of float
    """
    pi, n, p = PI.check("pi", pi), N.check("n", n), P.check("p", p)
    k = np.arange(n + 1)
    law = stats.binom.pmf(k, n, yes_probability(pi, p))
    values = estimate(k, n, p)
    mean = float(np.sum(law * values))
    return mean, float(np.sum(law * (values - mean) ** 2))


def simulate_surveys(pi: float, n: int, p: float, surveys: int, seed: Any) -> np.ndarray:
    """pi_hat of ``surveys`` simulated surveys of ``n`` respondents, respondent by respondent in law.

    Each survey draws its members of A (Binomial(n, pi)), the device's statement for each member
    (shown "I am a member" with probability p: a "yes") and for each non-member (shown "I am not a
    member" with probability 1 - p: a "yes"), then estimates pi from the "yes" count. The counts
    are drawn, not the respondents one by one: the same law, in memory independent of n.

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        The randomness of the surveys.
    """
    pi, n, p = PI.check("pi", pi), N.check("n", n), P.check("p", p)
    surveys = Interval(int, 2, 10**8, limit="surveys held in memory").check("surveys", surveys)
    rng = np.random.default_rng(seed)
    members = rng.binomial(n, pi, size=surveys)
    yes = rng.binomial(members, p) + rng.binomial(n - members, 1 - p)
    return estimate(yes, n, p)


def variance_of_variance(sample: np.ndarray) -> tuple[float, float]:
    """The sample variance of ``sample`` and its standard error, from the fourth central moment:
    Var(s^2) = (m4 - s^4 (R - 3) / (R - 1)) / R for R draws."""
    x = np.asarray(sample, dtype=float)
    r = x.size
    if r < 4:
        raise ValueError(f"sample must hold at least 4 draws for the standard error of its variance, got {r}")
    s2 = float(np.var(x, ddof=1))
    m4 = float(np.mean((x - x.mean()) ** 4))
    return s2, float(np.sqrt(max(m4 - s2**2 * (r - 3) / (r - 1), 0.0) / r))


def survey_summary(item: tuple[float, int, float, int, Any]) -> dict[str, float]:
    """One Monte Carlo cell, ``(pi, n, p, surveys, seed)``: the mean and variance of pi_hat over
    the simulated surveys, with their standard errors, beside Warner's variance (run in a worker)."""
    pi, n, p, surveys, seed = item
    estimates = simulate_surveys(pi, n, p, surveys, seed)
    var, var_se = variance_of_variance(estimates)
    return {
        "p": p,
        "mc_mean": float(estimates.mean()),
        "mc_mean_se": float(estimates.std(ddof=1) / np.sqrt(surveys)),
        "mc_variance": var,
        "mc_variance_se": var_se,
        "variance": variance(pi, n, p),
        "direct_variance": variance(pi, n, 1.0),  # p = 1: the question asked directly
    }
