"""Section 3's two salary examples (Table 1, Figure 1): what the intruder learns from a maximum
and an average over two academics, and the CAE of it.

With two members in the queried group, the answers ``max`` and ``avg`` leave the target's salary
one of ``max`` and ``2 avg - max``, equally likely (the seed's "1 bit"). The approximate compromise
range is the distance between them, centred on ``X0 = avg``; H(eps) is 1 bit below that range and
0 from it on, so the area under H is the range itself.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_real
from .measure import cae, entropy_curve, min_entropy

__all__ = ["salary_pair", "salary_table", "integer_steps"]


def salary_pair(maximum: float, average: float, *, unit: float = 1.0) -> dict[str, Any]:
    """What ``SELECT MAX`` and ``SELECT AVG`` over a group of two reveal about either member.

    Parameters
    ----------
    maximum, average : float
        The two answers (Table 1), ``average <= maximum``.
    unit : float
        Every value is divided by it (1000: thousands, as the seed's text writes "107K").

    Returns
    -------
    dict
        ``candidates`` (the two possible salaries, ascending), ``other`` (``2 avg - max``), ``H0``
        (Shannon entropy of the two equally likely candidates, bits), ``DR`` (``1 / H0``, Eq. (1)),
        ``X0`` (the centre), ``half_range`` and ``range`` (the approximate compromise range eps),
        ``eps`` and ``H`` (the step function H(eps)) and ``area``.
    """
    hi = check_real("maximum", maximum)
    avg = check_real("average", average, high=hi)
    u = check_real("unit", unit, low=0, low_open=True)
    other = 2.0 * avg - hi
    if other == hi:
        raise PrivlabError("maximum and average must differ (otherwise both members earn the maximum)")
    x = np.array([other, hi]) / u
    p = np.array([0.5, 0.5])
    eps, H = entropy_curve(x, p)
    H0, area = cae(x, p)
    return {
        "candidates": x,
        "other": float(x[0]),
        "H0": H0,
        "DR": 1.0 / H0,
        "X0": float(x.mean()),
        "half_range": float((x[1] - x[0]) / 2),
        "range": float(x[1] - x[0]),
        "eps": eps,
        "H": H,
        "area": area,
    }


def salary_table(examples: Mapping[str, Mapping[str, Any]], *, unit: float = 1.0) -> pd.DataFrame:
    """Section 3's examples side by side (Table 1, Figure 1): `salary_pair` of each, one row per
    breakpoint of its H(eps).

    Parameters
    ----------
    examples : mapping
        Example name -> its ``label``, ``group``, ``maximum`` and ``average`` (Table 1's answers).
    unit : float
        Every value is divided by it (1000: thousands).

    Returns
    -------
    DataFrame
        ``example, label, group, eps, H, low, high, maximum, average`` (the answers in ``unit``s),
        then the example's ``other, H0, DR, X0, half_range, range, area`` (see `salary_pair`).
    """
    if not isinstance(examples, Mapping) or not examples:
        raise PrivlabError(f"examples must be a non-empty mapping of example names to their answers, got {examples!r}")
    u = check_real("unit", unit, low=0, low_open=True)
    rows = []
    for ex, e in examples.items():
        missing = [k for k in ("label", "group", "maximum", "average") if not isinstance(e, Mapping) or k not in e]
        if missing:
            raise PrivlabError(f"examples[{ex!r}] must have label, group, maximum and average; missing {missing}")
        r = salary_pair(e["maximum"], e["average"], unit=u)
        low, high = r["candidates"]
        keep = {k: r[k] for k in ("other", "H0", "DR", "X0", "half_range", "range", "area")}
        for eps, h in zip(r["eps"], r["H"]):
            row = {
                "example": ex,
                "label": e["label"],
                "group": e["group"],
                "eps": eps,
                "H": h,
                "low": low,
                "high": high,
            }
            rows.append({**row, "maximum": e["maximum"] / u, "average": e["average"] / u, **keep})
    return pd.DataFrame(rows)


def integer_steps(values: Any, probs: Any, printed: Mapping[int, float] | None = None) -> pd.DataFrame:
    """H(eps) at every integer eps from 0 to the last breakpoint (the appendix's worked example,
    Figure 3): the paper's dynamic program beside the exact step function.

    Parameters
    ----------
    values, probs : array_like
        The candidate values and their probabilities (validated by `entropy_curve`).
    printed : mapping, optional
        Integer eps -> the H(eps) the paper prints there: shown in a column ``printed_H`` (NaN
        where it prints none).

    Returns
    -------
    DataFrame
        One row per integer ``eps``: ``H`` (`min_entropy`), ``H_curve`` (the step function of
        `entropy_curve` at ``eps``), ``breakpoint`` (whether ``eps`` is one of its breakpoints),
        (``printed_H``,) and the CAE pair ``H0``, ``area`` (the same on every row).
    """
    if printed is not None and not isinstance(printed, Mapping):
        raise PrivlabError(f"printed must be a mapping of integer eps to printed H(eps), got {printed!r}")
    steps, h_steps = entropy_curve(values, probs)
    H0, area = cae(values, probs)
    rows = []
    for e in range(int(math.ceil(steps[-1])) + 1):
        k = int(np.searchsorted(steps, e, side="right") - 1)
        rows.append(
            {
                "eps": e,
                "H": min_entropy(values, probs, float(e)),
                "H_curve": float(h_steps[k]),
                "breakpoint": bool(np.isclose(steps, e).any()),
                "H0": H0,
                "area": area,
            }
        )
    table = pd.DataFrame(rows)
    if printed is not None:
        shown = {int(e): float(v) for e, v in printed.items()}
        table.insert(table.columns.get_loc("H0"), "printed_H", table.eps.map(shown))
    return table
