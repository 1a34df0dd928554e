"""The real UCI Adult data set (Kohavi and Becker, 1996; CC BY 4.0).

48,842 rows = adult.data (32,561) + adult.test (16,281), 15 columns. privlab ships an
xz-compressed copy in ``privlab/datasets/data/`` (see the README there for attribution);
it is decompressed in memory and its sha256 checked against the constants below at every
(uncached) load. Numeric columns are int64; the categorical columns are Python strings
(pandas' default string dtype) with the ", " separator spaces stripped and "?" read as missing (NaN).
income is "<=50K" or ">50K" in both parts (adult.test's trailing dot is removed).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import lzma
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from privlab._validation import PrivlabError, check_choice
from privlab.datasets._io import bad_value, check_path

COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)
NUMERIC = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")

# Allowed labels per categorical column, from adult.names; "?" (missing) is also allowed.
DOMAINS = {
    "workclass": (
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
    ),
    "education": (
        "Bachelors",
        "Some-college",
        "11th",
        "HS-grad",
        "Prof-school",
        "Assoc-acdm",
        "Assoc-voc",
        "9th",
        "7th-8th",
        "12th",
        "Masters",
        "1st-4th",
        "10th",
        "Doctorate",
        "5th-6th",
        "Preschool",
    ),
    "marital-status": (
        "Married-civ-spouse",
        "Divorced",
        "Never-married",
        "Separated",
        "Widowed",
        "Married-spouse-absent",
        "Married-AF-spouse",
    ),
    "occupation": (
        "Tech-support",
        "Craft-repair",
        "Other-service",
        "Sales",
        "Exec-managerial",
        "Prof-specialty",
        "Handlers-cleaners",
        "Machine-op-inspct",
        "Adm-clerical",
        "Farming-fishing",
        "Transport-moving",
        "Priv-house-serv",
        "Protective-serv",
        "Armed-Forces",
    ),
    "relationship": ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native-country": (
        "United-States",
        "Cambodia",
        "England",
        "Puerto-Rico",
        "Canada",
        "Germany",
        "Outlying-US(Guam-USVI-etc)",
        "India",
        "Japan",
        "Greece",
        "South",
        "China",
        "Cuba",
        "Iran",
        "Honduras",
        "Philippines",
        "Italy",
        "Poland",
        "Jamaica",
        "Vietnam",
        "Mexico",
        "Portugal",
        "Ireland",
        "France",
        "Dominican-Republic",
        "Laos",
        "Ecuador",
        "Taiwan",
        "Haiti",
        "Columbia",
        "Hungary",
        "Guatemala",
        "Nicaragua",
        "Scotland",
        "Thailand",
        "Yugoslavia",
        "El-Salvador",
        "Trinadad&Tobago",
        "Peru",
        "Hong",
        "Holand-Netherlands",
    ),
    "income": ("<=50K", ">50K"),
}

# sha256 of the uncompressed shipped files (also listed in data/README.md).
SHA256 = {
    "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "adult.names": "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
}
N_DATA, N_TEST = 32_561, 16_281
SPLITS = ("all", "train", "test")


def parse(text: str, file: str) -> pd.DataFrame:
    """Parse the text of adult.data or adult.test into the 15-column frame.

    Lines starting with "|" (the UCI comment convention; adult.test's first line) and
    blank lines are skipped. A bad line raises PrivlabError naming ``file``, the 1-based
    line number and the column.
    """
    numbered = [
        (number, raw)
        for number, raw in enumerate(text.splitlines(), start=1)
        if raw.strip() and not raw.startswith("|")
    ]
    if not numbered:
        raise PrivlabError(f"{file}: expected data lines, got none")
    lines = np.fromiter((number for number, _ in numbered), dtype=np.int64, count=len(numbered))
    kept = [raw for _, raw in numbered]
    commas = pd.Series(kept).str.count(",").to_numpy()
    if np.any(commas != len(COLUMNS) - 1):
        i = int(np.flatnonzero(commas != len(COLUMNS) - 1)[0])
        raise PrivlabError(
            f"{file} line {lines[i]}: expected {len(COLUMNS)} comma-separated fields, got {commas[i] + 1}"
        )
    # The C parser does the splitting (a Python loop over 48K lines costs ~0.5 s); the
    # comma count above guarantees row i is file line lines[i].
    raw = pd.read_csv(
        io.StringIO("\n".join(kept)),
        header=None,
        names=list(COLUMNS),
        dtype=str,
        keep_default_na=False,
        quoting=csv.QUOTE_NONE,
        skipinitialspace=True,
        engine="c",
    )
    out = {}
    for col in COLUMNS:
        values = raw[col]
        if col in NUMERIC:
            # to_numeric is C-fast; a regex per cell would double the load time.
            number = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
            ok = np.isfinite(number) & (number >= 0) & (number == np.floor(number))
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                what = "a non-negative integer" if number[i] < 0 else "an integer"
                raise bad_value(file, int(lines[i]), col, what, values.iloc[i])
            out[col] = number.astype(np.int64)
            continue
        allowed = set(DOMAINS[col]) | {"?"}
        if col == "income":
            allowed = set(DOMAINS[col]) | {label + "." for label in DOMAINS[col]}
        ok = values.isin(allowed).to_numpy()
        if not ok.all():  # only then pay for stripping trailing blanks
            values = values.str.strip()
            ok = values.isin(allowed).to_numpy()
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            what = f"one of the {len(DOMAINS[col])} {col} labels of adult.names" + (
                "" if col == "income" else " or '?'"
            )
            raise bad_value(file, int(lines[i]), col, what, values.iloc[i])
        if col == "income":
            values = values.where(~values.str.endswith("."), values.str[:-1])  # "<=50K." in adult.test
        out[col] = values.where(values != "?")  # "?" -> NaN
    return pd.DataFrame(out, columns=list(COLUMNS))


def _read_shipped(name: str) -> str:
    """Decompress a shipped file in memory and check its sha256."""
    blob = resources.files("privlab.datasets").joinpath("data").joinpath(name + ".xz").read_bytes()
    data = lzma.decompress(blob)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256[name]:
        raise PrivlabError(
            f"shipped file {name} is corrupt: sha256 {digest} does not match the expected {SHA256[name]}"
        )
    return data.decode("ascii")


@functools.lru_cache(maxsize=1)
def _shipped_parts() -> tuple[pd.DataFrame, pd.DataFrame]:
    # Cached per process: the parse costs a few tenths of a second, callers get copies.
    return (parse(_read_shipped("adult.data"), "adult.data"), parse(_read_shipped("adult.test"), "adult.test"))


def _user_parts(directory: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    parts = []
    for name in ("adult.data", "adult.test"):
        file = directory / name
        if not file.is_file():
            raise PrivlabError(
                f"path must be a directory holding adult.data and adult.test; {str(file)!r} does not exist"
            )
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise PrivlabError(f"{file}: expected a UTF-8 text file") from None
        parts.append(parse(text, str(file)))
    return parts[0], parts[1]


def load(path=None, split: str = "all") -> pd.DataFrame:
    """Load UCI Adult.

    Parameters
    ----------
    path : str or path-like, optional
        A directory holding uncompressed ``adult.data`` and ``adult.test``; default: the
        copy shipped with privlab (checksum-verified).
    split : {"all", "train", "test"}
        "all" = adult.data followed by adult.test (48,842 rows); "train" = adult.data only
        (32,561); "test" = adult.test only (16,281).

    Returns
    -------
    pandas.DataFrame
        The 15 columns of ``COLUMNS`` with a fresh RangeIndex.
    """
    check_choice("split", split, SPLITS)
    if path is None:
        train, test = _shipped_parts()
    else:
        train, test = _user_parts(check_path("path", path, kind="directory"))
    if split == "train":
        frame = train.copy()
    elif split == "test":
        frame = test.copy()
    else:
        frame = pd.concat([train, test], ignore_index=True)
    frame.attrs.update(dataset="adult", synthetic=False)
    return frame
