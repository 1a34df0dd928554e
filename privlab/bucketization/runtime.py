"""Figure 7: the runtime of the mechanisms' searches (TwoSizeBucketing's pruning modes, the
two-size ILP) vs the cardinality n and vs the domain scale-up gamma (Section 7.3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from privlab._validation import PrivlabError, SeedSequenceFn, check_callable, check_int

from .mechanisms import BucketingMechanism, timed_runs
from .settings import check_mapping, fprivacy
from .tables import scale_up

__all__ = ["timing_rows", "runtime_vs_n", "runtime_vs_scaleup"]


def timing_rows(
    mechanisms: Mapping[str, BucketingMechanism],
    counts: ArrayLike,
    theta: float,
    offset: float,
    max_size: int,
    repeats: int,
    timings: bool,
) -> list[dict[str, Any]]:
    """Every mechanism's `timed_plan` on one table's per-value counts.

    Parameters
    ----------
    mechanisms : mapping of str to BucketingMechanism
        The table's label of each mechanism -> the mechanism.
    counts : array of int
        Records per sensitive value (F = `fprivacy` of their frequencies).
    theta, offset : float
        F's parameters (`fprivacy`).
    max_size : int
        Largest bucket size M.
    repeats : int
        Runs per plan (the median time is kept; an ILP runs once).
    timings : bool
        Keep the seconds (False: NaN, for tables compared exactly).

    Returns
    -------
    list of dict: method (the label), seconds (the median run), seconds_low and seconds_high (the
    fastest and the slowest run: one run, for an ILP, gives one value), status, loss (NaN when
    none was found).
    """
    mechanisms = check_mapping("mechanisms", mechanisms, "labels to BucketingMechanisms")
    if not isinstance(timings, bool):
        raise PrivlabError(f"timings must be True or False, got {timings!r}")
    o = np.asarray(counts)
    if o.ndim != 1 or not o.size or o.sum() <= 0:
        raise PrivlabError(f"counts must be a non-empty 1-d array of records per value, got shape {o.shape}")
    F = fprivacy(o / o.sum(), theta, offset)
    rows = []
    for label, m in mechanisms.items():
        p, runs = timed_runs(m, o, F, max_size, repeats)
        if not timings:
            runs = np.full(1, np.nan)
        seconds = {"seconds": float(np.median(runs)), "seconds_low": runs.min(), "seconds_high": runs.max()}
        rows.append({"method": label, **seconds, "status": p.status, "loss": np.nan if p.loss is None else p.loss})
    return rows


def runtime_vs_n(
    counts: Mapping[int, ArrayLike],
    mechanisms: Mapping[str, BucketingMechanism],
    theta: float,
    offset: float,
    max_size: int,
    repeats: int,
    timings: bool,
) -> pd.DataFrame:
    """Figure 7 (cardinality): `timing_rows` of a table drawn at every n.

    Parameters
    ----------
    counts : mapping of int to array of int
        n -> the per-value counts of the table drawn with n records, in the figure's order.
    mechanisms, theta, offset, max_size, repeats, timings
        As for `timing_rows`.

    Returns
    -------
    DataFrame: n and the `timing_rows` columns.
    """
    counts = check_mapping("counts", counts, "n to per-value counts")
    rows = []
    for n, o in counts.items():
        rows += [{"n": n, **r} for r in timing_rows(mechanisms, o, theta, offset, max_size, repeats, timings)]
    return pd.DataFrame(rows)


def runtime_vs_scaleup(
    sa_codes: ArrayLike,
    gammas: Sequence[int],
    mechanisms: Mapping[str, BucketingMechanism],
    theta: float,
    offset: float,
    max_size: int,
    repeats: int,
    timings: bool,
    *,
    seed_sequence: SeedSequenceFn,
) -> pd.DataFrame:
    """Figure 7 (domain size): `timing_rows` of the table's domain scaled up by every gamma
    (`scale_up`, seed ``seed_sequence("scaleup", gamma)``).

    Parameters
    ----------
    sa_codes : array of int
        The table's sensitive value codes.
    gammas : sequence of int
        The scale-up factors.
    mechanisms, theta, offset, max_size, repeats, timings
        As for `timing_rows`.
    seed_sequence : callable
        ``seed_sequence("scaleup", gamma)`` -> SeedSequence (e.g. ``RunContext.seed_sequence``).

    Returns
    -------
    DataFrame: gamma, m (the values present) and the `timing_rows` columns.
    """
    check_callable("seed_sequence", seed_sequence)
    rows = []
    for gamma in gammas:
        gamma = check_int("gammas", gamma, low=1, high=2**20)
        o = np.bincount(scale_up(sa_codes, gamma, seed_sequence("scaleup", gamma)))
        m = int(np.count_nonzero(o))
        rows += [
            {"gamma": gamma, "m": m, **r} for r in timing_rows(mechanisms, o, theta, offset, max_size, repeats, timings)
        ]
    return pd.DataFrame(rows)
