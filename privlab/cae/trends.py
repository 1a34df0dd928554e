"""Section 6's trends on the summarised tables of Figures 2 and 4 (`privlab.cae.summarise`).

The paper describes its figures in words: CAE rises as utility falls, privacy declines as the
intruder's SK grows, sampling's H0 drops faster than query restriction's. These functions turn a
summary table (one row per data set, technique level ``param`` and SK size, with Monte Carlo means
and their standard errors) into the numbers those statements are checked on.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_choice, check_int, check_real
from ..stats import family_z

__all__ = ["drop", "rises_with_utility", "declines_with_sk", "difference_z"]


def _columns(table: pd.DataFrame, needed: tuple[str, ...]) -> None:
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise PrivlabError(f"table must have the columns {', '.join(needed)}; missing {', '.join(missing)}")


def drop(values: pd.Series, low: float, high: float, decimals: int) -> float:
    """``values[low] - values[high]`` (a mean by SK size), rounded to ``decimals``.

    Rounding makes drops that are equal up to the float error of their sums compare equal;
    the result is never ``-0.0``.
    """
    d = check_int("decimals", decimals, low=0, high=15)
    return round(float(values[low] - values[high]), d) + 0.0


def rises_with_utility(
    table: pd.DataFrame, measure: str, utility_sign: int, *, alpha: float, float_tol: float
) -> tuple[list[str], float]:
    """Where ``measure`` rises with utility beyond a family-wise limit, and that limit in s.e.

    Per data set and SK size, the levels are ordered from low to high utility (``param`` ascending
    when ``utility_sign`` is +1: more utility with a larger parameter); each step of the mean may
    not rise by more than ``k`` times the combined s.e. of its two ends (plus ``float_tol``), with
    ``k`` the Bonferroni limit (`privlab.stats.family_z`) over every step of the table. Two
    neighbouring levels that are the same release tie and differ by sampling noise only, so the
    limit covers every comparison at once.

    Parameters
    ----------
    table : DataFrame
        Columns ``dataset``, ``sk_size``, ``param``, ``measure`` and ``<measure>_se``.
    measure : str
        The mean to check (``H0`` or ``area``).
    utility_sign : {1, -1}
        +1 when utility grows with ``param`` (sampling fraction), -1 when it falls (noise).
    alpha : float
        The family-wise false-alarm level, in (0, 1).
    float_tol : float
        Floating-point slack of each comparison, at least 0.

    Returns
    -------
    (list of str, float)
        ``"<dataset> SK=<size>"`` for each group with a violation, and ``k``.
    """
    check_choice("utility_sign", utility_sign, (1, -1))
    a = check_real("alpha", alpha, low=0, high=1, low_open=True, high_open=True)
    tol = check_real("float_tol", float_tol, low=0)
    _columns(table, ("dataset", "sk_size", "param", measure, f"{measure}_se"))
    groups = [h.sort_values("param", ascending=utility_sign > 0) for _, h in table.groupby(["dataset", "sk_size"])]
    k = family_z(a, max(1, sum(len(h) - 1 for h in groups)))
    bad = []
    for h in groups:  # low utility first
        v, se = h[measure].to_numpy(), h[f"{measure}_se"].to_numpy()
        if not (np.diff(v) <= k * np.hypot(se[1:], se[:-1]) + tol).all():
            bad.append(f"{h.dataset.iloc[0]} SK={h.sk_size.iloc[0]}")
    return bad, k


def declines_with_sk(table: pd.DataFrame, *, k: float, float_tol: float) -> bool:
    """Whether H0 never rises with the SK size, at every level ``param`` of one data set, by more
    than ``k`` times the largest s.e. of that level's means (plus ``float_tol``).

    ``table`` has the columns ``param``, ``sk_size``, ``H0`` and ``H0_se``.
    """
    kk = check_real("k", k, low=0)
    tol = check_real("float_tol", float_tol, low=0)
    _columns(table, ("param", "sk_size", "H0", "H0_se"))
    by_param = [h.sort_values("sk_size") for _, h in table.groupby("param")]
    return all((np.diff(h.H0) <= kk * h.H0_se.max() + tol).all() for h in by_param)


def difference_z(a: float, b: float, se_a: float, se_b: float) -> tuple[float, float]:
    """Two independent means: ``z = (a - b) / hypot(se_a, se_b)`` and the relative gap
    ``(a - b) / max(a, b)``.

    With both s.e. 0 the z is 0 for equal means and infinite (with the sign of ``a - b``) otherwise.
    """
    for name, value in (("a", a), ("b", b)):
        check_real(name, value)
    for name, value in (("se_a", se_a), ("se_b", se_b)):
        check_real(name, value, low=0)
    se = float(np.hypot(se_a, se_b))
    z = (a - b) / se if se > 0 else math.copysign(math.inf, a - b) if a != b else 0.0
    return z, (a - b) / max(a, b)
