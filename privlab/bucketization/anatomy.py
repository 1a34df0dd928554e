"""Anatomy (Xiao & Tao, VLDB 2006): l-diverse groups of l or l+1 records, the paper's baseline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from privlab._validation import PrivlabError, check_array, check_int, check_real, rng_from

from .settings import SeedLike, check_codes, fprivacy
from .tables import Table, check_tables


@dataclass(frozen=True)
class AnatomyResult:
    """``groups``: group id per record (None when not eligible); ``eligible``: f_i <= 1/l for all i;
    ``loss``/``mse`` from the groups, or, when not eligible, from the group sizes Anatomy
    would use (floor(n/l) groups of l or l+1 records) ignoring the privacy constraint."""

    l: int
    eligible: bool
    groups: np.ndarray | None
    loss: int
    mse: float


def required_l(F: ArrayLike) -> int:
    """l-diversity modelling of F-privacy: l = ceil(1 / min_i F_i) (Remark 3.8)."""
    F = check_array("F", F, dtype=float)
    if np.any((F <= 0) | (F > 1)):
        raise PrivlabError("F must be in (0, 1]")
    return int(np.ceil(1.0 / F.min() - 1e-9))


def l_diversity_eligible(freqs: ArrayLike, l: int) -> bool:
    """Is l-diversity achievable (Remark 3.8, Anatomy's eligibility)? Iff every f_i <= 1/l.

    Parameters
    ----------
    freqs : array of float
        Frequencies f_i of the sensitive values.
    l : int
        The diversity (>= 1).
    """
    f = check_array("freqs", freqs, dtype=float)
    if np.any((f < 0) | (f > 1)):
        raise PrivlabError(
            f"freqs must be in [0, 1]; out of range at values {np.flatnonzero((f < 0) | (f > 1))[:5].tolist()}"
        )
    l = check_int("l", l, low=1)
    return bool(f.max() <= 1.0 / l)


def max_eligible_l(f_max: float) -> int:
    """The largest l for which a table is l-diversity eligible (f_i <= 1/l for every value):
    floor(1 / f_max), Section 1.2.

    Parameters
    ----------
    f_max : float
        The largest frequency of a sensitive value, in (0, 1].
    """
    f_max = check_real("f_max", f_max, low=0, high=1, low_open=True)
    return int(np.floor(1 / f_max + 1e-12))


def l_needed(freqs: ArrayLike, thetas: Sequence[float], offset: float = 0.02) -> list[dict[str, Any]]:
    """Figure 3: for each privacy coefficient theta, the l that models F-privacy
    (F_i = min(1, theta f_i + offset), l = ceil(1 / min F_i)) and whether it is eligible.

    Parameters
    ----------
    freqs : array of float
        Frequencies f_i of the sensitive values.
    thetas : sequence of float
        Privacy coefficients.
    offset : float
        Offset b of the F-privacy specification.

    Returns
    -------
    list of dict, one per theta: theta, f_min, f_max, F_min, l, eligible.
    """
    f = check_array("freqs", freqs, dtype=float)
    if isinstance(thetas, (str, bytes)) or not hasattr(thetas, "__iter__"):
        raise PrivlabError(f"thetas must be a sequence of privacy coefficients, got {thetas!r}")
    rows = []
    for theta in thetas:
        F = fprivacy(f, theta, offset)
        l = required_l(F)
        rows.append({"theta": theta, "f_min": f.min(), "f_max": f.max(), "F_min": F.min(), "l": l})
        rows[-1]["eligible"] = l_diversity_eligible(f, l)
    return rows


def anatomy(sa_codes: ArrayLike, l: int, seed: SeedLike = 0) -> AnatomyResult:
    """Anatomy's group creation with eligibility reported.

    While at least l SA values have records left, one record is taken from each of the l
    values with the most records left to form a group; the at most l-1 residual records (of
    distinct values) each join a group not yet holding their value. Eligible iff every
    value's frequency is <= 1/l; otherwise no l-diverse grouping exists and only the
    size-based loss is reported.
    """
    sa = check_codes("sa_codes", sa_codes)
    l = check_int("l", l, low=1)
    n = sa.size
    if l > n:
        raise PrivlabError(f"l must be <= the number of records {n}, got {l}")
    counts = np.bincount(sa)
    n_groups = n // l
    size_loss = n - n_groups  # floor(n/l) groups hold all n records
    eligible = bool(counts.max() * l <= n)
    if not eligible:
        return AnatomyResult(l, False, None, size_loss, size_loss / n)
    rng = rng_from(seed)
    order = rng.permutation(n)
    order = order[np.argsort(sa[order], kind="stable")]  # records grouped by value, random within
    next_rec = np.concatenate([[0], np.cumsum(counts)[:-1]])
    left = counts.copy()
    groups = np.full(n, -1, dtype=np.int64)
    members: list[set] = []
    g = 0
    while np.count_nonzero(left) >= l:
        top = np.argpartition(-left, l - 1)[:l]  # the l values with most records left
        recs = order[next_rec[top]]
        groups[recs] = g
        members.append(set(top.tolist()))
        next_rec[top] += 1
        left[top] -= 1
        g += 1
    for v in np.flatnonzero(left):  # residue: distinct values
        for _ in range(left[v]):
            target = next(k for k in range(g) if v not in members[k])
            groups[order[next_rec[v]]] = target
            members[target].add(int(v))
            next_rec[v] += 1
    loss = n - g
    return AnatomyResult(l, True, groups, loss, loss / n)


def l_needed_table(tables: Mapping[str, Table], thetas: Sequence[float], offset: float = 0.02) -> pd.DataFrame:
    """Figure 3: `l_needed` of every table's sensitive-value frequencies.

    Parameters
    ----------
    tables : mapping of str to Table
        Table name -> its records (`census_table`), in the figure's order.
    thetas : sequence of float
        The privacy parameters theta.
    offset : float
        F's offset b (`fprivacy`).

    Returns
    -------
    DataFrame: table and the `l_needed` columns, one row per (table, theta).
    """
    rows = []
    for name, t in check_tables(tables).items():
        rows += [{"table": name, **r} for r in l_needed(np.bincount(t.sa) / t.sa.size, thetas, offset)]
    return pd.DataFrame(rows)
