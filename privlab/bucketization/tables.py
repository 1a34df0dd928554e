"""The experiments' tables: a sensitive attribute and its quasi-identifiers from a data frame,
and Figure 7's domain scale-up."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from privlab._validation import PrivlabError, check_int, rng_from
from privlab.datasets.census import SIZES

from .settings import check_codes

__all__ = ["Table", "split_table", "recode", "scale_up", "census_table", "attribute_table", "check_tables"]


class Table(NamedTuple):
    """A table as the algorithms see it: sensitive codes, QI codes and their domain sizes."""

    sa: np.ndarray  # (n,) sensitive value codes 0..sa_size-1
    qi: np.ndarray  # (n, d) quasi-identifier codes
    qi_sizes: list[int]  # domain size of each QI column
    sa_size: int  # domain size of the sensitive attribute


def check_tables(tables: object) -> Mapping[str, Table]:
    """``tables`` must map table names to `Table` s (one line naming it otherwise)."""
    if not isinstance(tables, Mapping) or not tables or not all(isinstance(t, Table) for t in tables.values()):
        raise PrivlabError("tables must be a non-empty mapping of table names to Tables (census_table)")
    return tables


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
    if not isinstance(frame, pd.DataFrame):
        raise PrivlabError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if not isinstance(domains, Mapping):
        raise PrivlabError(f"domains must map every column to its domain size, got {type(domains).__name__}")
    if sa_column not in frame.columns:
        raise PrivlabError(
            f"sa_column must be a column of the data ({', '.join(map(str, frame.columns))}), got {sa_column!r}"
        )
    qi_cols = [c for c in frame.columns if c != sa_column]
    missing = [c for c in frame.columns if c not in domains]
    if missing:
        raise PrivlabError(f"domains must give the domain size of every column; missing {', '.join(missing)}")
    bad = [c for c in frame.columns if frame[c].isna().any() or frame[c].min() < 0 or frame[c].max() >= domains[c]]
    if bad:
        raise PrivlabError(f"frame must hold codes 0..size-1 of every column (see recode); column {bad[0]!r} does not")
    return Table(
        frame[sa_column].to_numpy(np.int64),
        frame[qi_cols].to_numpy(np.int64),
        [int(domains[c]) for c in qi_cols],
        int(domains[sa_column]),
    )


def recode(frame: pd.DataFrame, columns: Mapping[str, str]) -> tuple[pd.DataFrame, dict[str, int]]:
    """The data columns a mapping names, as integer codes, for a data set that is not coded
    0..size-1 already (e.g. ACS: ages, industry codes, PUMA strings).

    Parameters
    ----------
    frame : pandas.DataFrame
        The records (missing values allowed).
    columns : mapping of str to str
        The paper's attribute -> the data column standing in for it (e.g. ``occupation:
        INDP``); the result keeps the data columns, in this order.

    Returns
    -------
    (frame, domains): the records with a value in every named column (the others dropped:
    a record must have a sensitive value and every quasi-identifier), each column coded
    0..k-1 by the rank of its value among the k distinct values present; and each column's
    domain size k.
    """
    if not isinstance(frame, pd.DataFrame):
        raise PrivlabError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if not isinstance(columns, Mapping) or not columns:
        raise PrivlabError("columns must map each of the paper's attributes to a data column")
    cols = [str(c) for c in columns.values()]
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise PrivlabError(
            f"columns must name columns of the data ({', '.join(map(str, frame.columns))}); no {missing[0]!r}"
        )
    if len(set(cols)) != len(cols):
        raise PrivlabError(f"columns must name each data column once, got {', '.join(cols)}")
    kept = frame[cols].dropna()
    if kept.empty:
        raise PrivlabError(f"no record has a value in every column of {', '.join(cols)}")
    out, domains = {}, {}
    for c in cols:
        values = kept[c].to_numpy()
        uniq, codes = np.unique(values.astype(str) if values.dtype == object else values, return_inverse=True)
        out[c] = codes.astype(np.int64)
        domains[c] = int(uniq.size)
    return pd.DataFrame(out), domains


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
    sa = check_codes("sa_codes", sa_codes)
    gamma = check_int("gamma", gamma, low=1, high=2**20)
    if sa.max() >= 2**62 // gamma:
        raise PrivlabError(f"gamma must keep the scaled codes below 2^62; code {sa.max()} times {gamma} does not")
    rng = rng_from(seed)
    return sa * gamma + rng.integers(0, gamma, sa.size)


def _coded(frame: pd.DataFrame, columns: Mapping[str, str] | None) -> tuple[pd.DataFrame, Mapping[str, int]]:
    """CENSUS's coded columns as they are (``columns`` None), or the columns a real-data twin
    maps, recoded (`recode`); with every column's domain size."""
    if columns is None:
        if not isinstance(frame, pd.DataFrame):
            raise PrivlabError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
        return frame, SIZES
    return recode(frame, columns)


def census_table(
    frame: pd.DataFrame, table: str, sa_columns: Mapping[str, str], columns: Mapping[str, str] | None = None
) -> Table:
    """The experiments' table ``table`` (OCC, EDU) of a CENSUS-like data set or a real-data twin.

    Parameters
    ----------
    frame : pandas.DataFrame
        The records: CENSUS's coded columns, or any data ``columns`` maps.
    table : str
        A key of ``sa_columns``.
    sa_columns : mapping of str to str
        Table name -> its sensitive attribute (e.g. ``OCC: occupation``).
    columns : mapping of str to str, optional
        A real-data twin's mapping of the paper's attributes to its columns (`recode`); None for
        CENSUS's coded columns (domain sizes `privlab.datasets.census.SIZES`).

    Returns
    -------
    Table (`split_table`) of the sensitive attribute ``sa_columns[table]``.
    """
    if not isinstance(sa_columns, Mapping) or table not in sa_columns:
        names = ", ".join(sa_columns) if isinstance(sa_columns, Mapping) else "a key of sa_columns"
        raise PrivlabError(f"table must be one of {names}; got {table!r}")
    coded, domains = _coded(frame, columns)
    return split_table(coded, sa_columns[table], domains)


def attribute_table(frame: pd.DataFrame, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Table 5: every attribute, the data column standing in for it, its domain size and the
    distinct values present.

    Parameters
    ----------
    frame : pandas.DataFrame
        The records, as for `census_table`.
    columns : mapping of str to str, optional
        A real-data twin's mapping (attribute -> column); None for CENSUS's own attributes.

    Returns
    -------
    DataFrame: attribute, column, domain, distinct, records (the records kept).
    """
    coded, domains = _coded(frame, columns)
    pairs = dict(columns) if columns is not None else {a: a for a in SIZES}
    rows = [
        {"attribute": a, "column": c, "domain": domains[c], "distinct": coded[c].nunique()} for a, c in pairs.items()
    ]
    return pd.DataFrame(rows).assign(records=len(coded))
