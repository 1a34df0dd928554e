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
    values with the most records left to form a group; this makes g = floor(n/l) groups and
    leaves r = n - g l < l residual records. Each residue then joins a different group lacking
    its value (`assign_residue`), so groups hold l or l+1 records. Where r > g (possible only
    when n < l(l-1)) g groups of at most l+1 records cannot hold all n: groups then hold
    floor(n/g) or ceil(n/g). Eligible iff every value's frequency is <= 1/l; otherwise no
    l-diverse grouping exists and only the size-based loss is reported.
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
    g = 0
    while np.count_nonzero(left) >= l:
        top = np.argpartition(-left, l - 1)[:l]  # the l values with most records left
        groups[order[next_rec[top]]] = g
        next_rec[top] += 1
        left[top] -= 1
        g += 1
    residue = order[np.flatnonzero(groups[order] < 0)]
    groups = assign_residue(sa, groups, residue, g)
    loss = n - g
    return AnatomyResult(l, True, groups, loss, loss / n)


def assign_residue(sa: np.ndarray, groups: np.ndarray, residue: np.ndarray, n_groups: int) -> np.ndarray:
    """Give each residual record of Anatomy a group lacking its value, a different one for
    each residue while every group can take one (sizes l or l+1), evenly beyond.

    Groups fill in turn: the k-th residue may only join a group of fewer than
    l + ceil(k / g) records. When every group lacking its value is full, records move along a
    chain of groups (an augmenting path: a record of value w leaves its group for one lacking
    w) until a group with room takes one. Such a chain always exists when each group's values
    are distinct and no value has more records than there are groups (Anatomy's
    eligibility): the grouped records and the first k residues, sorted by value and dealt
    round-robin over the g groups, make groups of distinct values and at most l + ceil(k/g)
    records, so until all k are placed the placement is not a maximum flow (records to
    groups, one per value and group, that many per group) and has an augmenting path.

    Parameters
    ----------
    sa : array (n,) of int
        Sensitive value code of each record.
    groups : array (n,) of int
        Group of each grouped record (l distinct values per group), -1 for the residue.
    residue : array of int
        The residual records, in the order they are placed.
    n_groups : int
        Number of groups g (>= 1).

    Returns
    -------
    array (n,) of int: the group of every record (a copy).
    """
    groups = groups.copy()
    size = np.bincount(groups[groups >= 0], minlength=n_groups)
    l = int(size.min())
    by_value = np.argsort(sa, kind="stable")
    value_start = np.concatenate([[0], np.cumsum(np.bincount(sa))])

    def lacking(w: int, seen: np.ndarray) -> np.ndarray:
        free = ~seen
        held = groups[by_value[value_start[w] : value_start[w + 1]]]
        free[held[held >= 0]] = False
        return np.flatnonzero(free)

    for k, rec in enumerate(residue.tolist(), start=1):
        cap = l + -(-k // n_groups)  # every group reaches l+1 before any reaches l+2
        v = int(sa[rec])
        seen = np.zeros(n_groups, dtype=bool)
        level = lacking(v, seen)
        seen[level] = True
        came_from = {G: (-1, v) for G in level.tolist()}  # group -> (group its new record leaves, value)
        room = level[size[level] < cap]
        by_group = group_start = by_value[:0]  # built when a chain is needed
        if not room.size:  # a chain: breadth first over groups, each value's lacking groups once
            by_group = np.argsort(groups, kind="stable")
            group_start = np.searchsorted(groups[by_group], np.arange(n_groups + 1))
            expanded = {v}
            while level.size and not room.size:
                nxt = []
                for G in level.tolist():
                    for w in sa[by_group[group_start[G] : group_start[G + 1]]].tolist():
                        if w in expanded:
                            continue
                        expanded.add(w)
                        for G2 in lacking(w, seen).tolist():
                            seen[G2] = True
                            came_from[G2] = (G, w)
                            nxt.append(G2)
                level = np.array(nxt, dtype=np.int64)
                room = level[size[level] < cap]
            if not room.size:  # cannot happen on an eligible table (see above)
                raise PrivlabError(f"no group can take a record of value {v}: the groups are not Anatomy's")
        G = int(room[0])
        size[G] += 1
        while True:  # walk the chain back: each group takes the record its predecessor gives up
            P, w = came_from[G]
            if P < 0:
                groups[rec] = G
                break
            in_p = by_group[group_start[P] : group_start[P + 1]]  # P's records, unchanged so far
            groups[in_p[sa[in_p] == w][0]] = G
            G = P
    return groups


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
