"""NIST's ACS Data Excerpts: real American Community Survey person records (2019, 2018 control).

Curated excerpts of real records of the US Census Bureau's 2019 (and, as a control set,
2018) American Community Survey for Massachusetts and Texas PUMAs, published by NIST as
benchmark data (SDNist, ``BenchmarkData/ACSDataExcerpts``). 24 columns: PUMA, AGEP (age),
SEX, MSP (marital status), HISP, RAC1P (race), NOC, NPF, HOUSING_TYPE, OWN_RENT, DENSITY,
INDP (industry code), INDP_CAT (industry category), EDU (educational attainment), PINCP
(personal income, dollars), PINCP_DECILE, POVPIP, DVET, DREM, DPHY, DEYE, DEAR, PWGTP, WGTP.

privlab ships an xz-compressed copy in ``privlab/datasets/data/acs/`` with the NIST notice
(``LICENSE.NIST``, which must travel with any copy) and the data dictionary; each file is
decompressed in memory and its sha256 checked against the constants below. "N" (not
applicable) is read as missing; every other value is checked against the data dictionary.
Two columns are added: ``STATE`` ("ma" or "tx") and ``YEAR``.

Source: National Institute of Standards and Technology, "NIST Data Excerpts" of the
American Community Survey (usnistgov/SDNist, commit 76b74a1e). privlab's copy is the
original files, compressed (2026-11-23); nothing else was changed.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import lzma
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privlab._validation import PrivlabError, check_choice
from privlab.datasets._io import bad_value, check_path

COLUMNS = (
    "PUMA", "AGEP", "SEX", "MSP", "HISP", "RAC1P", "NOC", "NPF", "HOUSING_TYPE", "OWN_RENT", "DENSITY", "INDP",
    "INDP_CAT", "EDU", "PINCP", "PINCP_DECILE", "POVPIP", "DVET", "DREM", "DPHY", "DEYE", "DEAR", "PWGTP", "WGTP",
)  # fmt: skip
REAL = ("DENSITY", "PINCP")  # real-valued; every other column but PUMA holds integer codes
STATES = ("ma", "tx", "both")
YEARS = (2019, 2018)
ROWS = {("ma", 2019): 7634, ("tx", 2019): 9276, ("ma", 2018): 7244, ("tx", 2018): 8775}
# sha256 of the uncompressed shipped files (as published by NIST; also in data/acs/README.md)
SHA256 = {
    "ma2019.csv": "5489f7d45bccad8ae591dfe9011638def521b3f8641edf169bb45fea2c62fb44",
    "tx2019.csv": "0dab7a8b745232c622d7d3bc0b7fdeaf7f8ecdb3a5653a73fd2867f5f116ed96",
    "ma2018.csv": "067b99e8180a6b8149d03fa31b5a29aa6d9ff66a9173e6425915d46a4bb77cad",
    "tx2018.csv": "f6a6d7ba4f845b168a6e1d8ee869c11ea156abe4221f2abb1d2bddb50fe7d0fa",
    "data_dictionary.json": "16a170c50b89ea15b41826ca439ac971345f1a545e17278e2bdfa891fe7b56e8",
}


def _read_shipped(name: str) -> bytes:
    """Decompress a shipped file in memory and check its sha256."""
    package = resources.files("privlab.datasets").joinpath("data").joinpath("acs")
    try:
        blob = package.joinpath(name + ".xz").read_bytes()
    except (FileNotFoundError, OSError):
        raise PrivlabError(f"the shipped ACS file {name}.xz is missing from privlab/datasets/data/acs/") from None
    data = lzma.decompress(blob)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256[name]:
        raise PrivlabError(f"the shipped ACS file {name} has sha256 {digest[:16]}..., expected {SHA256[name][:16]}...")
    return data


@functools.cache
def dictionary() -> dict[str, Any]:
    """NIST's data dictionary: every column's description and its codes or range."""
    return dict(json.loads(_read_shipped("data_dictionary.json")))


def _allowed(column: str) -> tuple[set[str], float | None, float | None]:
    """Codes named in the dictionary, and the [min, max] range of the values it does not name."""
    values = dictionary().get(column, {}).get("values")
    if not isinstance(values, dict):
        return set(), None, None
    codes = {k for k in values if k not in ("min", "max")}
    return codes, values.get("min"), values.get("max")


def parse(text: str, file: str, state: str, year: int) -> pd.DataFrame:
    """Parse one NIST ACS excerpt (CSV text) into a frame; a bad value names file, line and column."""
    try:
        raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise PrivlabError(f"{file}: not a valid CSV ({str(exc).strip().splitlines()[-1]})") from None
    if tuple(raw.columns) != COLUMNS:
        raise PrivlabError(f"{file} line 1: expected the 24 NIST ACS columns {', '.join(COLUMNS)}")
    out: dict[str, Any] = {"PUMA": raw["PUMA"].to_numpy()}
    lines = np.arange(2, len(raw) + 2)
    for col in COLUMNS[1:]:
        cells = raw[col]
        missing = (cells == "N").to_numpy()
        number = pd.to_numeric(cells.where(~missing), errors="coerce").to_numpy(dtype=float)
        bad = ~missing & ~np.isfinite(number)
        codes, low, high = _allowed(col)
        if col not in REAL:
            bad |= ~missing & np.isfinite(number) & (number != np.floor(number))
        if codes or low is not None:
            named = cells.isin(codes).to_numpy()
            in_range = (number >= (low if low is not None else np.inf)) & (
                number <= (high if high is not None else -np.inf)
            )
            bad |= ~missing & ~named & ~in_range
        if missing.any() and "N" not in codes and codes:
            bad |= missing
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            allowed = ", ".join(sorted(codes)) + (f" or {low:g}..{high:g}" if low is not None else "")
            raise bad_value(file, int(lines[i]), col, allowed or "a number", cells.iloc[i])
        out[col] = pd.Series(np.where(missing, np.nan, number)).astype("Float64" if col in REAL else "Int64").array
    frame = pd.DataFrame(out)
    frame["STATE"] = state
    frame["YEAR"] = year
    return frame


@functools.cache
def _shipped(state: str, year: int) -> pd.DataFrame:
    name = f"{state}{year}.csv"
    return parse(_read_shipped(name).decode(), name, state, year)


def load(state: str = "both", year: int = 2019, path: str | None = None) -> pd.DataFrame:
    """The NIST ACS excerpt of ``state`` ("ma", "tx" or "both") and ``year`` (2019, or 2018 the control set).

    ``path``: a directory holding NIST's files ``<state><year>.csv`` (read and validated the same
    way, without the checksum) instead of privlab's shipped copy.
    """
    state = check_choice("state", state, STATES)
    if year not in YEARS or isinstance(year, bool):
        raise PrivlabError(f"year must be one of {', '.join(map(str, YEARS))}; got {year!r}")
    parts = []
    for s in ("ma", "tx") if state == "both" else (state,):
        if path is None:
            parts.append(_shipped(s, year).copy())
        else:
            directory = check_path("path", path, kind="directory")
            file = Path(directory) / f"{s}{year}.csv"
            if not file.is_file():
                raise PrivlabError(f"path {directory} holds no {file.name} (NIST's file name for {s.upper()} {year})")
            parts.append(parse(file.read_text(), str(file), s, year))
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs.update(dataset="acs", synthetic=False)
    return frame
