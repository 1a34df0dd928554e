"""Isolation success rates: the table columns of one adversary's outcomes and the fitted decay in d."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_array, check_int, check_real

__all__ = ["BEST", "Z95", "wilson_upper", "rate_columns", "natural_rows", "fit_exponent", "best_last"]

BEST = "best_of_above"  # the adversary row that takes, per target, the best of a sanitizer's adversaries
Z95 = 1.96  # the 95% normal quantile as the result tables have always used it (rounded)


def wilson_upper(k: int, m: int, z: float = Z95) -> float:
    """Upper end of the Wilson score interval for ``k`` successes in ``m`` trials.

    Unclipped (it can exceed 1 by a rounding error at ``k = m``); ``z = 1.96`` as the
    reference tables print it, where `privlab.stats.wilson_interval` takes the exact
    quantile and clips.
    """
    k, m = check_int("k", k, low=0), check_int("m", m, low=1)
    if k > m:
        raise PrivlabError(f"k must be at most m = {m}, got {k}")
    z = check_real("z", z, low=0, low_open=True)
    p = k / m
    centre = p + z * z / (2 * m)
    half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
    return float((centre + half) / (1 + z * z / m))


def rate_columns(mask: Any, any_mask: Any = None) -> dict[str, Any]:
    """The table columns of one adversary: trials, successes, rate, its binomial s.e.
    ``sqrt(p (1 - p) / m)``, the Wilson upper bound (meaningful at 0 successes) and, when
    ``any_mask`` is given, the same for isolating *anyone* (NaN otherwise).

    Parameters
    ----------
    mask : bool array (m,)
        Whether each adversary output isolated its target.
    any_mask : bool array (m,) or None
        Whether each output isolated some point of the database.
    """
    mask = check_array("mask", mask, dtype=bool)
    m = mask.size
    k = int(mask.sum())
    p = k / m
    row: dict[str, Any] = {
        "trials": m,
        "successes": k,
        "rate": p,
        "rate_se": float(np.sqrt(p * (1 - p) / m)),
        "wilson_upper": wilson_upper(k, m),
    }
    if any_mask is not None:
        any_mask = check_array("any_mask", any_mask, dtype=bool)
        ka = int(any_mask.sum())
        pa = ka / m
        row.update(successes_any=ka, rate_any=pa, rate_any_se=float(np.sqrt(pa * (1 - pa) / m)))
    else:
        row.update(successes_any=np.nan, rate_any=np.nan, rate_any_se=np.nan)
    return row


def natural_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of each sanitizer's natural adversaries: those `attack` also asked whether they
    isolate anyone (``rate_any`` present); the secondary adversaries and the best-of rows have none."""
    return df[df.rate_any.notna() & (df.adversary != BEST)]


def fit_exponent(d: Any, rate: Any, successes: Any) -> tuple[float, int]:
    """Least-squares slope b of ``log2(rate) = a - b d`` over the d with at least one success.

    Returns
    -------
    (b, number of d used); b is NaN with fewer than two such d.
    """
    d, rate, successes = (np.asarray(v, dtype=float) for v in (d, rate, successes))
    used = successes > 0
    if used.sum() < 2:
        return float("nan"), int(used.sum())
    b = -np.polyfit(d[used], np.log2(rate[used]), 1)[0]
    return float(b), int(used.sum())


def best_last(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of several `attack` runs with every best-of row moved after the others (order kept)."""
    return [r for r in rows if r["adversary"] != BEST] + [r for r in rows if r["adversary"] == BEST]
