"""The data an intruder model works on: attribute domains, domain codes, and the value
combinations of every supplementary-knowledge (SK) attribute set.

`prepare` turns a loaded data set (a DataFrame) into `SKData`: plain arrays small enough
(about 0.7 MB for 2,500 records and all 64 SK sets of six attributes) to travel with each
Monte Carlo task to a worker process.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import datasets
from .._validation import PrivlabError, check_int, check_real

__all__ = [
    "attribute_domain",
    "encode",
    "group_ids",
    "SKData",
    "SKSet",
    "prepare",
    "distinct_values",
    "count_values",
    "domain_table",
    "code_datasets",
    "MAX_DOMAIN",
    "MAX_CONFIDENTIAL",
]

MAX_DOMAIN = 1_000_000  # values of any attribute's domain (an array of them is held in memory)
MAX_CONFIDENTIAL = 1_000  # values of the confidential domain: H(eps) costs |D|^2 per distribution
MAX_RECORDS = 1_000_000  # records per data set (each intruder model holds n x |D| probabilities)


def attribute_domain(column: Any) -> np.ndarray:
    """The domain of an attribute as a sorted array.

    Integer attributes: every multiple of the values' common step from min to max (salary
    rounded to 10K gives 10, 20, ..., 250: 25 values); anything else: the distinct values.
    """
    col = pd.Series(column)
    if col.size == 0:
        raise PrivlabError("column must hold at least one value")
    if col.isna().any():
        raise PrivlabError(f"column {col.name!r} has missing values; code them as a category first")
    if pd.api.types.is_integer_dtype(col.dtype):
        v = col.to_numpy(dtype=np.int64)
        lo, hi = int(v.min()), int(v.max())
        step = int(np.gcd.reduce(v - lo)) or 1
        size = (hi - lo) // step + 1
        if size > MAX_DOMAIN:
            raise PrivlabError(
                f"column {col.name!r} spans {size:,} domain values ({lo}..{hi} by {step}), more than "
                f"{MAX_DOMAIN:,} (memory); round or recode it"
            )
        return np.arange(lo, hi + 1, step, dtype=np.int64)
    return np.asarray(sorted(col.unique()))


def encode(column: Any, domain: Any) -> np.ndarray:
    """Index of each value of ``column`` in ``domain`` (0-based codes)."""
    domain = np.asarray(domain)
    col = np.asarray(column)
    if domain.ndim != 1 or domain.size == 0:
        raise PrivlabError(f"domain must be a non-empty 1-dimensional array, got shape {domain.shape}")
    if domain.size > 1 and not np.all(domain[1:] > domain[:-1]):
        raise PrivlabError("domain must be sorted without repeats (attribute_domain)")
    codes = np.searchsorted(domain, col)
    bad = (codes >= domain.size) | (domain[np.minimum(codes, domain.size - 1)] != col)
    if np.any(bad):
        raise PrivlabError(f"column holds a value outside its domain: {col[np.flatnonzero(bad)[0]]!r}")
    return codes.astype(np.int64)


def group_ids(df: pd.DataFrame, attributes: Sequence[str]) -> tuple[np.ndarray, int]:
    """The SK value combination each record matches: ``(groups, n_groups)``.

    ``groups[r]`` indexes the distinct combinations of ``attributes`` occurring in ``df``
    (sorted), so records with the same index form one ``M_o``.
    """
    if not isinstance(df, pd.DataFrame):
        raise PrivlabError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    if isinstance(attributes, str):
        raise PrivlabError(f"attributes must be a list of column names, got {attributes!r}")
    attributes = list(attributes)
    if not attributes:
        raise PrivlabError("attributes must name at least one SK attribute")
    codes = []
    for a in attributes:
        if a not in df.columns:
            raise PrivlabError(f"attributes must be columns of the data; got {a!r}")
        codes.append(pd.factorize(df[a], sort=True)[0].astype(np.int64))
    _, inverse = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    return inverse, int(inverse.max()) + 1


@dataclass(frozen=True)
class SKSet:
    """One SK attribute set: its attributes and the combination ``groups[r]`` of each record."""

    attributes: tuple[str, ...]
    groups: np.ndarray
    n_groups: int


@dataclass(frozen=True)
class SKData:
    """A data set coded for the intruder models.

    Attributes
    ----------
    columns : tuple of str
        The confidential attribute first, then the SK attributes.
    domains : tuple of ndarray
        Each column's domain (`attribute_domain`).
    codes : ndarray of int32, shape (n, len(columns))
        Each record's domain index per column; column 0 is the confidential one.
    sets : dict
        SK size -> the `SKSet` of every attribute set of that size (size 0: one set,
        every record in one combination).
    """

    columns: tuple[str, ...]
    domains: tuple[np.ndarray, ...]
    codes: np.ndarray
    sets: dict[int, list[SKSet]]

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    @property
    def grid(self) -> np.ndarray:
        """The confidential domain as floats: the value grid of every intruder distribution."""
        return self.domains[0].astype(float)

    @property
    def confidential_values(self) -> np.ndarray:
        """Each record's confidential value (float)."""
        return self.grid[self.codes[:, 0]]

    @property
    def domain_sizes(self) -> tuple[int, ...]:
        return tuple(int(d.size) for d in self.domains)


def prepare(
    df: pd.DataFrame,
    confidential: str,
    sk: Sequence[str],
    sk_sizes: Sequence[int],
    *,
    round_to: int | None = None,
    unit: float | None = None,
    top_code: int | None = None,
    drop_missing: bool = False,
    n_records: int | None = None,
    subsample_seed: int = 0,
    max_sets: int | None = None,
) -> SKData:
    """Code a loaded data set for the intruder models.

    Parameters
    ----------
    df : DataFrame
        The data set as loaded (`privlab.datasets.load`).
    confidential : str
        The confidential attribute (integer-valued, or real-valued with ``round_to``).
    sk : sequence of str
        The attributes an intruder may know. A missing value of an integer-coded attribute
        is a category of its own, coded one above the column's largest code (ACS's INDP_CAT
        "N/A: not worked in five years" becomes 19); of any other attribute, ``"?"``.
    sk_sizes : sequence of int
        The SK sizes to prepare (0 = no SK: the whole data set is one combination).
    round_to : int, optional
        Round the confidential value (after ``unit``) half up to a multiple of this step,
        bottom-coded at one step (as salary to 10K: 10, 20, ...). None: no rounding; 0 is
        refused (it would silently mean "no rounding").
    unit : float, optional
        Divide the confidential value by this first (1000: dollars to thousands). None: 1.
    top_code : int, optional
        Values above this (after rounding) become this (salary: 250). None: no top code.
    drop_missing : bool
        Drop records whose confidential value is missing (ACS's PINCP is N/A under 15); a
        missing value is refused otherwise.
    n_records : int, optional
        A seeded subsample (``subsample_seed``) of this many records, in file order, drawn
        after ``drop_missing``. None: every record.
    subsample_seed : int
        Seeds that subsample.
    max_sets : int, optional
        At most this many attribute sets per size, a subset seeded by the size (None: all).
    """
    if not isinstance(df, pd.DataFrame):
        raise PrivlabError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    if isinstance(sk, str) or not isinstance(sk, Sequence):
        raise PrivlabError(f"sk must be a list of column names, got {sk!r}")
    if isinstance(sk_sizes, str) or not isinstance(sk_sizes, Sequence) or not len(sk_sizes):
        raise PrivlabError(f"sk_sizes must be a non-empty list of integers, got {sk_sizes!r}")
    sk = list(sk)
    for a in (confidential, *sk):
        if not isinstance(a, str) or a not in df.columns:
            raise PrivlabError(f"confidential and sk must be columns of the data; got {a!r}")
    if confidential in sk or len(set(sk)) != len(sk):
        raise PrivlabError("sk must be distinct attributes other than the confidential one")
    sizes = [check_int("sk_sizes[]", s, low=0, high=len(sk)) for s in sk_sizes]
    if len(set(sizes)) != len(sizes):
        raise PrivlabError(f"sk_sizes must not repeat a size, got {list(sk_sizes)}")
    step = None if round_to is None else check_int("round_to", round_to, low=1)
    scale = None if unit is None else check_real("unit", unit, low=0, low_open=True)
    top = None if top_code is None else check_int("top_code", top_code, low=1)
    if not isinstance(drop_missing, (bool, np.bool_)):
        raise PrivlabError(f"drop_missing must be true or false, got {drop_missing!r}")
    n_keep = None if n_records is None else check_int("n_records", n_records, low=1, high=MAX_RECORDS)
    seed = check_int("subsample_seed", subsample_seed, low=0)
    if max_sets is not None:
        check_int("max_sets", max_sets, low=1)
    cols = [confidential, *sk]
    df = df[cols]
    for c in sk:  # a missing integer code: a category of its own, above the column's codes
        if pd.api.types.is_integer_dtype(df[c].dtype) and df[c].isna().any():
            df = df.assign(**{c: df[c].fillna(int(df[c].max()) + 1)})
    if drop_missing:
        df = df[df[confidential].notna()].reset_index(drop=True)
    elif df[confidential].isna().any():
        raise PrivlabError(f"confidential attribute {confidential!r} has missing values; set drop_missing")
    if len(df) == 0:
        raise PrivlabError("df must hold at least one record with a confidential value")
    if n_keep is None and len(df) > MAX_RECORDS:
        raise PrivlabError(f"df holds {len(df):,} records, more than {MAX_RECORDS:,} (memory); set n_records")
    if n_keep and n_keep < len(df):
        rng = np.random.default_rng(seed)
        df = df.iloc[np.sort(rng.choice(len(df), size=n_keep, replace=False))].reset_index(drop=True)
    df = df.copy()
    for c in sk:
        if not pd.api.types.is_integer_dtype(df[c].dtype):
            # Adult's missing workclass/occupation/country are a category of their own, "?" as in the raw file
            df[c] = df[c].astype(object).where(df[c].notna(), "?").astype(str)
    v = df[confidential]
    if not pd.api.types.is_numeric_dtype(v.dtype) or (step is None and not pd.api.types.is_integer_dtype(v.dtype)):
        raise PrivlabError(f"confidential attribute {confidential!r} must be integer-valued (or rounded: round_to)")
    if scale is not None or step is not None or top is not None:
        x = v.to_numpy(dtype=float) / (scale or 1.0)
        if step is not None:
            x = np.maximum(step, np.floor(x / step + 0.5) * step)
        if top is not None:
            x = np.minimum(x, top)
        if not np.all(x == np.floor(x)):
            raise PrivlabError(
                f"confidential attribute {confidential!r} must be integer-valued after unit; set round_to"
            )
        df[confidential] = x.astype(np.int64)
    domains = tuple(attribute_domain(df[c]) for c in cols)
    if domains[0].size > MAX_CONFIDENTIAL:
        raise PrivlabError(
            f"confidential attribute {confidential!r} has {domains[0].size:,} domain values, more than "
            f"{MAX_CONFIDENTIAL:,} (H(eps) costs |D|^2 per distribution); set round_to"
        )
    codes = np.stack([encode(df[c].to_numpy(), d) for c, d in zip(cols, domains)], axis=1)
    sets: dict[int, list[SKSet]] = {}
    for size in sizes:
        combos = list(itertools.combinations(sk, size))
        if max_sets and len(combos) > max_sets:
            # a seeded subset of the attribute sets (the paper uses all)
            pick = np.random.default_rng(size).choice(len(combos), size=max_sets, replace=False)
            combos = [combos[i] for i in sorted(pick)]
        groups = [group_ids(df, c) if c else (np.zeros(len(df), dtype=np.int64), 1) for c in combos]
        # int32 halves what every Monte Carlo task carries to its worker
        sets[int(size)] = [SKSet(c, g.astype(np.int32), G) for c, (g, G) in zip(combos, groups)]
    return SKData(tuple(cols), domains, codes.astype(np.int32), sets)


def distinct_values(column: Any, *, exclude: Sequence[Any] = ()) -> int:
    """How many distinct values ``column`` holds, missing values and those in ``exclude`` not counted
    (ACS's INDP_CAT without 18 = UNEMPLOYED: its industry sectors)."""
    col = pd.Series(column)
    if isinstance(exclude, (str, bytes)) or not isinstance(exclude, Sequence):
        raise PrivlabError(f"exclude must be a list of values, got {exclude!r}")
    values = col.dropna()
    return int(values[~values.isin(list(exclude))].nunique())


def count_values(low: int, high: int, rounding: int | None = None) -> int:
    """How many values an integer attribute takes from ``low`` to ``high`` in steps of ``rounding``
    (Table 2's "No of Values" from its Min, Max and Rounding; ``None``: every integer).

    Raises
    ------
    PrivlabError
        When ``high < low``, or ``rounding`` is not a positive integer.
    """
    lo = check_int("low", low)
    hi = check_int("high", high, low=lo)
    step = 1 if rounding is None else check_int("rounding", rounding, low=1)
    return (hi - lo) // step + 1


def domain_table(
    rows: Mapping[str, Mapping[str, Any]],
    printed: Mapping[str, Mapping[str, Any]],
    data: Mapping[str, tuple[SKData, pd.DataFrame, str]],
) -> pd.DataFrame:
    """Table 2 beside the data that stand for it: per attribute, the printed row and the number of
    values it implies (`count_values`), and each data set's domain of the column that codes it.

    Parameters
    ----------
    rows : mapping
        Table 2's attribute -> ``{<data set>: its column or None, ..., "<data set>_exclude": raw
        values not counted as distinct (optional)}``, the data sets in the table's column order.
    printed : mapping
        Attribute -> its printed ``min``, ``max``, ``rounding`` (None: every integer) and ``values``.
    data : mapping
        Data set -> ``(SKData, raw frame, label)``: its coded records (`prepare`), the frame they
        were coded from and the table's label of them; a data set not in it is left out.

    Returns
    -------
    DataFrame
        One row per attribute: ``printed_<key>`` per printed key, ``derived_values``, and for each
        data set with a column ``<ds>_column, <ds>_min, <ds>_max, <ds>_values`` (its coded domain),
        ``<ds>_records, <ds>_data`` and ``<ds>_raw_distinct`` (`distinct_values` of the raw column).
    """
    for name, block in (("rows", rows), ("printed", printed), ("data", data)):
        if not isinstance(block, Mapping):
            raise PrivlabError(f"{name} must be a mapping, got {block!r}")
    missing = [attr for attr in rows if attr not in printed]
    if missing:
        raise PrivlabError(f"printed must have an entry for every attribute of rows; missing {missing}")
    out = []
    for attr, cols in rows.items():
        pr = printed[attr]
        row = {"attribute": attr, **{f"printed_{k}": v for k, v in pr.items()}}
        row["derived_values"] = count_values(pr["min"], pr["max"], pr["rounding"])
        for ds in [k for k in cols if not str(k).endswith("_exclude")]:
            col = cols[ds]
            if ds not in data or col is None:
                continue
            coded, frame, tag = data[ds]
            if col not in coded.columns:
                raise PrivlabError(f"rows[{attr!r}][{ds!r}] must be a coded column of {ds} ({list(coded.columns)})")
            dom = coded.domains[coded.columns.index(col)]
            row.update({f"{ds}_column": col, f"{ds}_min": dom[0], f"{ds}_max": dom[-1], f"{ds}_values": dom.size})
            row.update({f"{ds}_records": coded.n, f"{ds}_data": tag})
            row[f"{ds}_raw_distinct"] = distinct_values(frame[col], exclude=list(cols.get(f"{ds}_exclude", [])))
        out.append(row)
    return pd.DataFrame(out)


def code_datasets(
    codings: Mapping[str, Mapping[str, Any] | None], load: Callable[[Any], pd.DataFrame], **prepare_args: Any
) -> dict[str, tuple[SKData, pd.DataFrame, str]]:
    """Each data set switched on, loaded and coded by `prepare`, with its raw frame and the table's
    label of it.

    Parameters
    ----------
    codings : mapping
        Data set -> its coding block (None: switched off): ``dataset`` (the loader's block, a
        ``name`` and its parameters), ``role`` (not used here), and `prepare`'s ``confidential``,
        ``sk``, ``round_to``, ``unit``, ``top_code``, ``drop_missing``, ``n_records`` and
        ``subsample_seed``.
    load : callable
        ``load(dataset block) -> DataFrame`` (e.g. ``RunContext.dataset``, which caches).
    **prepare_args
        The rest of `prepare`'s arguments (``sk_sizes``, ``max_sets``), the same for every data set.

    Returns
    -------
    dict
        Data set -> ``(SKData, frame, label)``, in the order of ``codings``; the label names the data
        set, whether it is generated (`privlab.datasets.is_synthetic`), its size (and, where records
        without a confidential value are dropped, how many have one) and its confidential attribute.

    Raises
    ------
    PrivlabError
        When every coding is None, a coding lacks its ``dataset`` block, ``load`` is not a function
        or `prepare` refuses its arguments.
    """
    if not isinstance(codings, Mapping):
        raise PrivlabError(f"codings must be a mapping of data-set names to coding blocks, got {codings!r}")
    if not callable(load):
        raise PrivlabError(f"load must be a function (a dataset block -> its records), got {load!r}")
    found = {}
    for ds, spec in codings.items():
        if spec is None:
            continue
        if not isinstance(spec, Mapping) or not isinstance(spec.get("dataset"), Mapping):
            raise PrivlabError(f"codings[{ds!r}] must be a coding block with a dataset block, got {spec!r}")
        frame = load(spec["dataset"])
        coding = {k: v for k, v in spec.items() if k not in ("dataset", "role")}  # confidential, sk, ...
        kind = "SYNTHETIC" if datasets.is_synthetic(**spec["dataset"]) else "real"
        n = f"n={spec['n_records'] or 'all'}"
        if spec["drop_missing"]:
            n += f" of {int(frame[spec['confidential']].notna().sum())} with {spec['confidential']}"
        label = f"{spec['dataset']['name']} ({kind}, {n}, confidential={spec['confidential']})"
        found[ds] = (prepare(frame, **prepare_args, **coding), frame, label)
    if not found:
        raise PrivlabError("datasets must switch on at least one data set (a block that is not null)")
    return found
