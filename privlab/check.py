"""Regression check: regenerate result tables at the quick profile and compare them
with the committed references in ``results/reference/<paper>/<name>/result.csv``,
column by column with the tolerances declared beside each experiment.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ._validation import PrivlabError
from .registry import Experiment, Tolerance


@dataclass
class Drift:
    status: str  # "ok", "drift", "missing"
    detail: str
    worst: float = 0.0  # largest |new - ref| / allowed over compared cells (<= 1 is ok)


def canonical(df: pd.DataFrame) -> pd.DataFrame:
    """The table as it reads back from its CSV (types normalised the same way as a reference)."""
    from .runner import table_to_csv

    return pd.read_csv(io.StringIO(table_to_csv(df)))


def _sorted_by(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Rows in the order of their key columns' text (the same order for a table and its reference)."""
    return df.assign(_k=df[keys].astype(str).agg("|".join, axis=1)).sort_values("_k").drop(columns="_k")


def _align(exp: Experiment, new: pd.DataFrame, ref: pd.DataFrame):
    if exp.keys:
        keys = list(exp.keys)
        new_keys = set(map(tuple, new[keys].astype(str).to_numpy()))
        ref_keys = set(map(tuple, ref[keys].astype(str).to_numpy()))
        if new_keys != ref_keys:
            extra, lost = sorted(new_keys - ref_keys)[:3], sorted(ref_keys - new_keys)[:3]
            return None, None, f"rows differ: new {extra}, missing {lost}"
        new, ref = _sorted_by(new, keys), _sorted_by(ref, keys)
    elif len(new) != len(ref):
        return None, None, f"{len(new)} rows, reference has {len(ref)}"
    return new.reset_index(drop=True), ref.reset_index(drop=True), ""


def compare(exp: Experiment, new: pd.DataFrame, ref: pd.DataFrame) -> Drift:
    """Compare a regenerated table with its reference under ``exp``'s tolerances."""
    new = canonical(new)
    if list(new.columns) != list(ref.columns):
        return Drift("drift", f"columns {list(new.columns)} != reference {list(ref.columns)}", np.inf)
    new, ref, why = _align(exp, new, ref)
    if new is None:
        return Drift("drift", why, np.inf)
    worst, worst_col, worst_text = 0.0, "", False
    for col in ref.columns:
        tol: Tolerance = exp.tolerance(col)
        if tol.ignore:
            continue
        a, b = new[col], ref[col]
        if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
            x, y = a.to_numpy(float), b.to_numpy(float)
            allowed = tol.atol + tol.rtol * np.abs(y)
            if tol.se:
                allowed = allowed + tol.k * np.abs(ref[tol.se].to_numpy(float))
            allowed = np.where(np.isnan(allowed), tol.atol, allowed)  # a missing s.e. allows no noise
            same = (x == y) | (np.isnan(x) & np.isnan(y))  # NaN equals only NaN
            diff = np.where(same, 0.0, np.abs(x - y))
            diff = np.where(np.isnan(diff), np.inf, diff)  # NaN against a number, either way round
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(diff == 0, 0.0, diff / np.maximum(allowed, 1e-300))
            col_worst = float(np.nanmax(ratio)) if ratio.size else 0.0
        else:
            same_text = ((a.astype(str) == b.astype(str)) | (a.isna() & b.isna())).to_numpy()
            col_worst = 0.0 if same_text.all() else np.inf
        if col_worst > worst:
            worst, worst_col = col_worst, col
            worst_text = not pd.api.types.is_numeric_dtype(a) or not pd.api.types.is_numeric_dtype(b)
    if worst > 1.0:
        why = (
            "differs (text, compared exactly)"
            if worst_text
            else f"beyond tolerance ({exp.tolerance(worst_col).describe()})"
        )
        return Drift("drift", f"column {worst_col!r} {why}", worst)
    return Drift("ok", f"{len(ref)} rows, {len(ref.columns)} columns", worst)


def reference_path(exp: Experiment, reference_dir: Path) -> Path:
    return Path(reference_dir) / exp.paper / exp.name / "result.csv"


def read_reference(exp: Experiment, path: Path) -> pd.DataFrame:
    """A committed reference table, read strictly: an unreadable, empty or malformed file, or
    one whose key columns repeat, is one line naming the file (and line)."""
    try:
        ref = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise PrivlabError(f"reference {path} is empty; regenerate it with 'privlab check {exp.id} --update'") from None
    except pd.errors.ParserError as exc:
        raise PrivlabError(f"reference {path} is not a valid CSV: {str(exc).strip().splitlines()[-1]}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PrivlabError(f"reference {path} cannot be read: {exc}") from None
    if ref.empty:
        raise PrivlabError(f"reference {path} has a header but no rows")
    missing = [k for k in exp.keys if k not in ref.columns]
    if missing:
        raise PrivlabError(f"reference {path} lacks the key column(s) {', '.join(missing)}")
    if exp.keys:
        dup = ref.duplicated(list(exp.keys), keep=False)
        if dup.any():
            lines = (np.flatnonzero(dup.to_numpy())[:4] + 2).tolist()  # +2: header line, 1-based
            raise PrivlabError(f"reference {path} repeats a row of key columns {', '.join(exp.keys)} at lines {lines}")
    return ref


def check_against_reference(exp: Experiment, table: pd.DataFrame, reference_dir: Path) -> Drift:
    reference_dir = Path(reference_dir)
    if not reference_dir.is_dir():
        raise PrivlabError(f"reference directory {reference_dir} does not exist")
    path = reference_path(exp, reference_dir)
    if not path.is_file():
        return Drift("missing", f"no reference at {path}; run 'privlab check {exp.id} --update'", np.inf)
    return compare(exp, table, read_reference(exp, path))
