"""The experiments' tables: a sensitive attribute and its quasi-identifiers from a data frame,
and Figure 7's domain scale-up."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from privlab._validation import PrivlabError, check_array, check_int, rng_from

__all__ = ["Table", "split_table", "scale_up"]


class Table(NamedTuple):
    """A table as the algorithms see it: sensitive codes, QI codes and their domain sizes."""

    sa: np.ndarray  # (n,) sensitive value codes 0..sa_size-1
    qi: np.ndarray  # (n, d) quasi-identifier codes
    qi_sizes: list[int]  # domain size of each QI column
    sa_size: int  # domain size of the sensitive attribute


def split_table(frame: pd.DataFrame, sa_column: str, domains: Mapping[str, int]) -> Table:
    """The sensitive attribute ``sa_column`` and the other columns as quasi-identifiers.

    Parameters
    ----------
    frame : pandas.DataFrame
        Integer-coded records (e.g. the CENSUS-like table).
    sa_column : str
        The sensitive attribute (OCC: "occupation", EDU: "education").
    domains : mapping of str to int
        Domain size of every column (codes are 0..size-1).

    Returns
    -------
    Table: the SA codes, the QI codes (the other columns, in the frame's order), the QI
    domain sizes and the SA domain size.
    """
    if sa_column not in frame.columns:
        raise PrivlabError(
            f"sa_column must be a column of the data ({', '.join(map(str, frame.columns))}), got {sa_column!r}"
        )
    qi_cols = [c for c in frame.columns if c != sa_column]
    missing = [c for c in frame.columns if c not in domains]
    if missing:
        raise PrivlabError(f"domains must give the domain size of every column; missing {', '.join(missing)}")
    return Table(
        frame[sa_column].to_numpy(np.int64),
        frame[qi_cols].to_numpy(np.int64),
        [int(domains[c]) for c in qi_cols],
        int(domains[sa_column]),
    )


def scale_up(sa_codes: Any, gamma: int, seed: Any = 0) -> np.ndarray:
    """Domain scale-up (Section 7.3.2): value x becomes (x, r), r uniform in 1..gamma,
    coded x * gamma + (r - 1), so the domain grows from m to m * gamma.

    Parameters
    ----------
    sa_codes : array of int
        Sensitive value codes.
    gamma : int
        Scale-up factor (>= 1).
    seed : int, SeedSequence or Generator

    Returns
    -------
    ndarray of int64, the scaled codes.
    """
    sa = check_array("sa_codes", sa_codes, dtype=np.int64)
    gamma = check_int("gamma", gamma, low=1)
    rng = rng_from(seed)
    return sa * gamma + rng.integers(0, gamma, sa.size)
