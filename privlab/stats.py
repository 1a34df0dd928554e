"""Statistics shared by every paper: standard errors, intervals, z-scores, goodness of fit.

Monte Carlo estimates in privlab are always reported with a standard error computed
here, and compared with their exact counterparts by the helpers of `privlab.claims`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._lazy import lazy
from ._validation import PrivlabError, check_int, check_real

_st = lazy("scipy.stats")
_st_optimize = lazy("scipy.optimize")

__all__ = [
    "proportion_se",
    "wilson_interval",
    "mean_se",
    "quantile_se",
    "zscores",
    "family_z",
    "pooled_gof",
    "equivalence",
    "Equivalence",
    "trials_to_decide",
    "gof_effect_bound",
    "gof_trials_to_decide",
    "log_slope",
]


def proportion_se(count: float, n: float) -> float:
    """Standard error of the proportion ``count / n``, from the Laplace-smoothed
    ``(count + 1) / (n + 2)`` so that an empty (or full) cell does not claim zero uncertainty.

    NaN when ``n <= 0``.
    """
    if n <= 0:
        return float("nan")
    q = (count + 1) / (n + 2)
    return math.sqrt(q * (1 - q) / n)


def wilson_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion: good down to zero successes.

    With no success the upper end is ``z^2 / (n + z^2)`` (about 3.84 / n at 95 %).
    """
    k = check_int("successes", successes, low=0)
    n = check_int("n", n, low=1)
    if k > n:
        raise PrivlabError(f"successes must be at most n = {n}, got {k}")
    level = check_real("level", level, low=0, high=1, low_open=True, high_open=True)
    z = float(_st.norm.ppf(0.5 + level / 2))
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return lo, hi


def mean_se(values: np.ndarray) -> float:
    """Standard error of the sample mean (sample s.d. / sqrt(n)); 0 for a single value."""
    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return 0.0
    return float(v.std(ddof=1) / math.sqrt(v.size))


def quantile_se(q: float, n: int, density: float) -> float:
    """Asymptotic standard error of the sample ``q``-quantile: ``sqrt(q (1 - q) / n) / f(x_q)``."""
    return math.sqrt(q * (1 - q) / n) / density


def family_z(alpha: float, comparisons: int) -> float:
    """The one-sided z limit that keeps the family-wise false-alarm rate of ``comparisons``
    Monte Carlo comparisons at ``alpha`` (Bonferroni): a tie between two estimates then
    passes with probability at least 1 - alpha over the whole family."""
    a = check_real("alpha", alpha, low=0, high=1, low_open=True, high_open=True)
    n = check_int("comparisons", comparisons, low=1)
    return float(_st.norm.isf(a / n))


def zscores(estimate: np.ndarray, exact: np.ndarray, se: np.ndarray) -> np.ndarray:
    """``|estimate - exact| / se``, NaN where ``se`` is 0 (deterministic entries)."""
    est, ex, s = (np.asarray(v, dtype=float) for v in (estimate, exact, se))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, np.abs(est - ex) / np.where(s > 0, s, 1.0), np.nan)


def _merge_small(e: np.ndarray, c: np.ndarray, m: float) -> tuple[np.ndarray, np.ndarray]:
    """Merge consecutive cells (ascending expected counts) into groups that each expect at
    least ``m``; a short tail is folded into the last group. Cells below ``m`` are each
    smaller than ``m``, so a group never expects more than ``2 m``."""
    ends = []
    total = 0.0
    for i, x in enumerate(e):
        total += x
        if total >= m:
            ends.append(i + 1)
            total = 0.0
    if not ends:
        return (np.array([e.sum()]), np.array([c.sum()])) if e.size else (e, c)
    ends[-1] = e.size  # the tail joins the last full group
    starts = [0, *ends[:-1]]
    return np.add.reduceat(e, starts), np.add.reduceat(c, starts)


def pooled_gof(counts: np.ndarray, probs: np.ndarray, min_expected: float) -> dict[str, float]:
    """Pearson chi-square and Williams-corrected G-test of ``counts`` against ``probs``.

    Cells are sorted by expected count and consecutive small cells merged until every
    group expects at least ``min_expected`` (a grouping fixed by the null law alone, so
    the test keeps its level). (Before, groups were cut at multiples of ``min_expected`` of
    the running sum, which leaves the first group, and any group a large cell pushes over a
    multiple, expecting less than ``min_expected``.) Both statistics come from `scipy.stats.power_divergence`;
    Williams' correction divides G by ``q = 1 + (sum 1/E - 1/n) / (6 df)``, the first-order
    excess of E[G] over df when groups expect few counts.

    Returns
    -------
    dict with ``groups``, ``chi2``, ``chi2_p``, ``g``, ``williams_q``, ``g_p`` and
    ``impossible_cells_hit`` (counts in cells of probability 0: then both p-values are 0).
    """
    min_expected = check_real("min_expected", min_expected, low=0, low_open=True)
    counts = np.asarray(counts).ravel().astype(float)
    expected = np.asarray(probs, dtype=float).ravel() * counts.sum()
    zero = expected <= 0
    if counts[zero].sum() > 0:
        return {
            "groups": 0,
            "chi2": np.inf,
            "chi2_p": 0.0,
            "g": np.inf,
            "g_p": 0.0,
            "impossible_cells_hit": int((counts[zero] > 0).sum()),
        }
    order = np.argsort(expected[~zero], kind="stable")
    e, c = expected[~zero][order], counts[~zero][order]
    big = e >= min_expected
    small_e, small_c = e[~big], c[~big]
    ge, gc = _merge_small(small_e, small_c, min_expected)
    E = np.concatenate([e[big], ge])
    O = np.concatenate([c[big], gc])
    keep = E > 0
    E, O = E[keep], O[keep]
    df = E.size - 1
    if df < 1:
        raise PrivlabError(f"min_expected = {min_expected:g} pools every cell into one group: no test is possible")
    chi2 = float(_st.power_divergence(O, E, lambda_="pearson").statistic)
    g = float(_st.power_divergence(O, E, lambda_="log-likelihood").statistic)
    q = 1.0 + ((1.0 / E).sum() - 1.0 / O.sum()) / (6.0 * df)
    return {
        "groups": int(E.size),
        "chi2": chi2,
        "chi2_p": float(_st.chi2.sf(chi2, df)),
        "g": g,
        "williams_q": float(q),
        "g_p": float(_st.chi2.sf(g / q, df)),
        "impossible_cells_hit": 0,
    }


# ---------------------------------------------------------------------------------------
# equivalence and difference against a declared margin
# ---------------------------------------------------------------------------------------
class Equivalence(NamedTuple):
    """The outcome of `equivalence`: ``decision`` is ``"equivalent"`` (the interval lies inside
    ``[-margin, margin]``), ``"different"`` (it lies wholly outside: a difference larger than the
    margin is shown) or ``"undecided"`` (it straddles an end of the margin: the data cannot say)."""

    decision: str
    low: float
    high: float


def equivalence(
    difference: float, se: float, margin: float, *, alpha: float = 0.05, dof: float | None = None
) -> Equivalence:
    """Two one-sided tests (TOST) of ``|difference| < margin``, and the matching difference test.

    The ``1 - 2 alpha`` interval ``difference +- z_{1-alpha} se`` inside ``(-margin, margin)`` shows
    equivalence at level ``alpha`` (both one-sided tests reject); the same interval wholly beyond
    ``margin`` on one side shows a difference larger than the margin. Anything else is undecided:
    failing to reject a difference is never taken for equality. A deterministic value (``se == 0``)
    is its own interval. With ``dof`` the interval uses Student's t on that many degrees of freedom
    (an ``se`` estimated from few residuals).
    """
    margin = check_real("margin", margin, low=0)
    alpha = check_real("alpha", alpha, low=0, high=0.5, low_open=True, high_open=True)
    d, s = float(difference), float(se)
    if not (math.isfinite(d) and math.isfinite(s)) or s < 0:
        return Equivalence("undecided", -math.inf, math.inf)
    half = (float(_st.norm.isf(alpha)) if dof is None else float(_st.t.isf(alpha, dof))) * s
    lo, hi = d - half, d + half
    if -margin < lo and hi < margin or (s == 0 and abs(d) <= margin):
        return Equivalence("equivalent", lo, hi)
    if lo > margin or hi < -margin:
        return Equivalence("different", lo, hi)
    return Equivalence("undecided", lo, hi)


def trials_to_decide(difference: float, se: float, margin: float, trials: float, *, alpha: float = 0.05) -> float:
    """How many trials (for an ``se`` that shrinks as ``1 / sqrt(trials)``) the interval of
    `equivalence` needs to fall on one side of the margin: inside it when ``|difference| < margin``,
    beyond it otherwise. ``inf`` when the difference sits on the margin."""
    z = float(_st.norm.isf(alpha))
    room = abs(abs(float(difference)) - float(margin))
    if room <= 0 or se <= 0:
        return math.inf if room <= 0 else float(trials)
    return float(trials) * (z * float(se) / room) ** 2


def gof_effect_bound(statistic: float, dof: int, trials: float, *, alpha: float = 0.05) -> float:
    """The upper ``1 - alpha`` confidence bound of Cohen's effect size w = sqrt(sum (p1 - p0)^2 / p0)
    from a Pearson chi-square ``statistic`` on ``dof`` degrees of freedom over ``trials`` counts.

    Under a law at effect size w the statistic is approximately noncentral chi-square with
    noncentrality ``trials * w^2``; the bound is the w at which the observed statistic sits at that
    law's ``alpha`` quantile. A bound below a declared margin is Wellek's equivalence test of
    goodness of fit at level ``alpha``: the table is shown to lie within the margin of the law, not
    merely not shown to differ. The bound is 0 when the statistic lies below even the exact law's
    ``alpha`` quantile.
    """
    dof = check_int("dof", dof, low=1)
    n = check_real("trials", trials, low=0, low_open=True)
    alpha = check_real("alpha", alpha, low=0, high=0.5, low_open=True, high_open=True)
    x = float(statistic)
    if not math.isfinite(x):
        return math.inf
    if float(_st.chi2.cdf(x, dof)) <= alpha:  # smaller than even the exact law makes it in 1 - alpha
        return 0.0

    def excess(lam: float) -> float:  # decreasing in lam: P(noncentral chi2 <= x) - alpha
        return float(_st.ncx2.cdf(x, dof, lam)) - alpha

    hi = max(1.0, 2.0 * x)
    while excess(hi) > 0:
        hi *= 2.0
    lam = float(_st_optimize.brentq(excess, 0.0, hi, xtol=1e-9 * hi, rtol=1e-12))
    return math.sqrt(lam / n)


def gof_trials_to_decide(dof: int, margin: float, *, alpha: float = 0.05) -> float:
    """Trials at which a table drawn from the exact law (statistic at its mean, ``dof``) would show
    its effect size below ``margin`` by `gof_effect_bound`: Wellek's test needs the noncentral
    ``alpha`` quantile at ``trials * margin^2`` to pass ``dof``."""
    dof = check_int("dof", dof, low=1)
    margin = check_real("margin", margin, low=0, low_open=True)

    def short(n: float) -> float:
        return float(_st.ncx2.ppf(alpha, dof, n * margin**2)) - dof

    hi = 1.0 / margin**2
    while short(hi) <= 0:
        hi *= 2.0
    return float(_st_optimize.brentq(short, 0.0, hi, xtol=1e-6 * hi))


def log_slope(x: np.ndarray, y: np.ndarray) -> tuple[float, float, int]:
    """The least-squares slope of ``log y`` on ``log x`` (the exponent b of y ~ x^b), its standard
    error from the residuals and their degrees of freedom (points - 2). With two points the slope
    is exact but its error unknown: ``se`` is ``inf``."""
    lx, ly = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    if lx.size < 2 or np.ptp(lx) == 0:
        raise PrivlabError("a slope needs at least two distinct x")
    fit = _st.linregress(lx, ly)
    dof = lx.size - 2
    return float(fit.slope), float(fit.stderr) if dof > 0 else math.inf, dof
