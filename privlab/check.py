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
            both_nan = np.isnan(x) & np.isnan(y)
            allowed = tol.atol + tol.rtol * np.abs(y)
            if tol.se:
                allowed = allowed + tol.k * np.abs(ref[tol.se].to_numpy(float))
            diff = np.where(both_nan, 0.0, np.abs(x - y))
            diff = np.where(np.isnan(diff), np.inf, diff)
            ratio = np.where(diff == 0, 0.0, diff / np.maximum(allowed, 1e-300))
            col_worst = float(ratio.max()) if ratio.size else 0.0
        else:
            same = ((a.astype(str) == b.astype(str)) | (a.isna() & b.isna())).to_numpy()
            col_worst = 0.0 if same.all() else np.inf
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


def check_against_reference(exp: Experiment, table: pd.DataFrame, reference_dir: Path) -> Drift:
    path = reference_path(exp, reference_dir)
    if not path.is_file():
        return Drift("missing", f"no reference at {path}; run 'privlab check {exp.id} --update'", np.inf)
    return compare(exp, table, pd.read_csv(path))
