"""Shared helpers for the data-set loaders: reading user files and naming bad values.

Every error raised here is one line naming the file, the line number (1-based, as a text
editor shows it) and the column, plus what was expected.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from privlab._validation import PrivlabError, _fmt

# An integer written in a text file: optional sign, digits, optional surrounding blanks.
_INT_RE = r"\s*[+-]?\d+\s*"


def check_path(name: str, value, *, kind: str = "file") -> Path:
    """Return ``value`` as a Path after checking it names an existing file or directory."""
    if not isinstance(value, (str, os.PathLike)):
        raise PrivlabError(f"{name} must be a path to a {kind}, got {_fmt(value)}")
    path = Path(value)
    ok = path.is_dir() if kind == "directory" else path.is_file()
    if not ok:
        raise PrivlabError(f"{name} must be an existing {kind}, got {str(path)!r}")
    return path


def bad_value(file: str, line: int, column: str, expected: str, got) -> PrivlabError:
    """The one-line error for a bad value in a file."""
    return PrivlabError(f"{file} line {line}, column {column}: expected {expected}, got {_fmt(got)}")


def read_csv_strings(path: Path, columns, *, file_label: str | None = None):
    """Read a headed CSV as strings and check that it has the wanted ``columns``.

    Returns ``(frame, lines)``: the wanted columns as strings (missing cells as ""), and
    the 1-based file line number of every row, for error messages. Extra columns are
    ignored (ACS person files carry hundreds); trailing blank lines are dropped.
    """
    label = file_label or str(path)
    try:
        frame = pd.read_csv(
            path, dtype=str, keep_default_na=False, skip_blank_lines=False, usecols=lambda c: c.strip() in set(columns)
        )
    except pd.errors.EmptyDataError:
        raise PrivlabError(
            f"{label} line 1: expected a header with columns {', '.join(columns)}, got an empty file"
        ) from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        msg = " ".join(str(exc).split())
        raise PrivlabError(f"{label}: not a readable CSV file ({msg})") from None
    frame.columns = [c.strip() for c in frame.columns]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise PrivlabError(
            f"{label} line 1: header must contain columns {', '.join(columns)}; missing {', '.join(missing)}"
        )
    frame = frame[list(columns)]
    # skip_blank_lines=False keeps row i on file line i + 2, so line numbers stay exact;
    # only trailing blank lines (a common editor artefact) are forgiven.
    empty = (frame == "").all(axis=1).to_numpy()
    keep = len(frame)
    while keep > 0 and empty[keep - 1]:
        keep -= 1
    frame = frame.iloc[:keep].reset_index(drop=True)
    lines = np.arange(2, keep + 2)
    return frame, lines


def parse_int_column(
    values: pd.Series, *, file: str, column: str, lines, low=None, high=None, allow_blank: bool = False
) -> np.ndarray:
    """Parse a column of strings as integers in [low, high], naming the first bad cell.

    With ``allow_blank`` empty cells are allowed and returned as -1 (callers drop them);
    ``low`` must then be >= 0 so that -1 cannot be a real value.
    """
    text = values.astype(str)
    blank = text.str.strip() == ""
    is_int = text.str.fullmatch(_INT_RE)
    ok = is_int | blank if allow_blank else is_int
    if not ok.all():
        i = int(np.flatnonzero(~ok.to_numpy())[0])
        raise bad_value(file, int(lines[i]), column, "an integer", text.iloc[i])
    out = np.full(len(text), -1, dtype=np.int64)
    filled = ~blank.to_numpy()
    try:
        out[filled] = text[filled].str.strip().astype(np.int64).to_numpy()
    except OverflowError:  # pragma: no cover - absurdly long digit strings
        raise PrivlabError(f"{file}, column {column}: integer too large") from None
    bad = np.zeros(len(out), dtype=bool)
    if low is not None:
        bad |= filled & (out < low)
    if high is not None:
        bad |= filled & (out > high)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise bad_value(file, int(lines[i]), column, f"an integer in [{lo}, {hi}]", text.iloc[i].strip())
    return out
