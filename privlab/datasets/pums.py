"""A seeded PUMS-like generator (SYNTHETIC) and a loader for a real ACS PUMS person file.

Seed 004 used 2,500 records of the 2006 Illinois ACS PUMS with seven attributes
(its Table 2); that sample is not available, so privlab generates a stand-in with the
same columns and domains, all int64:

    salary       10, 20, ..., 250 (thousands of dollars, rounded to 10K; 25 values;
                 the confidential attribute)
    age          16..84
    sex          1 = male, 2 = female (ACS SEX codes)
    education    1..16 (the 2006 ACS SCHL levels: 1 no schooling ... 9 high-school
                 graduate, 13 bachelor's, 14 master's, 15 professional, 16 doctorate)
    industry     1..18 (ACS industry sectors, ``INDUSTRIES``)
    occupation   1..25 (ACS occupation groups, ``OCCUPATIONS``)
    travel_time  1..177 (minutes to work, right-skewed)

Generator model (fixed tables; ``seed`` only changes the sample):
age ~ a truncated normal N(41, 14^2) on 16..84 with an extra taper after 65; sex independent
(P(male) = 0.53); education | age band from a worker education distribution with the
degrees a person cannot hold yet removed (<= 9 up to 18, <= 12 up to 21, <= 14 up to
24); occupation | (education, sex) ∝ share[o] * exp(-(skill[o] - skill(e))^2 / (2 * 2.2^2))
* sex-mix[o, sex]; industry | occupation a seeded Dirichlet mix tilted towards the
occupation's natural sector (teachers to education, nurses to health care, ...);
log(salary in K) = 2.95 + 0.09 (skill(e) - 9) + 0.05 (age - 16) - 0.0007 (age - 16)^2
- 0.22 [female] + 0.07 (skill[o] - 10) + industry effect + N(0, 0.6^2), then rounded to
10K and clipped to 10..250 (a log-normal wage model, so salary depends on education,
age, sex, occupation and industry); travel_time = round(exp(N(log 20 + industry
effect / 2, 0.7^2))) clipped to 1..177.

Real files (``path``): an ACS PUMS person CSV with at least WAGP, AGEP, SEX, SCHL, INDP,
OCCP and JWMNP, preprocessed as in seed 004 so far as it tells (salary rounded to 10K
and kept within 10..250) and recoded to the Table 2 domains:

* salary = WAGP / 10000 rounded half up, times 10; rows with WAGP blank or below 5,000 (salary < 10)
  are dropped, salaries above 250 are top-coded to 250. (ADJINC is not applied.)
* age: AGEP, rows outside 16..84 dropped. sex: SEX as is.
* education: SCHL. Files before 2008 use the 16-level scheme, kept as is; 2008 and later
  use 24 levels, merged into the 16 (02-07 -> 2 nursery..grade 4, 08-09 -> 3, 10-11 -> 4,
  12..15 -> 5..8, 16-17 (diploma, GED) -> 9, 18..24 -> 10..16). Blank rows dropped.
* industry: INDP mapped to the 18 sectors of the ACS industry recode by code range
  (AGR 0170.., EXT 0370.., UTL 0570.., CON 0770.., MFG 1070.., WHL 4070.., RET 4670..,
  TRN 6070.., INF 6470.., FIN 6870.., PRF 7270.., EDU 7860.., MED 7970.., SCA 8370..,
  ENT 8560.., SRV 8770.., ADM 9370.., MIL 9670..9870); 9920 (not worked in 5 years) and
  blank rows dropped.
* occupation: OCCP mapped to the 25 major groups of the ACS occupation recode by code
  range (MGR 0010.., BUS 0500.., ..., MIL 9800..9830, ``OCCP_STARTS``); files before 2010
  write OCCP with three digits (001..983), which are multiplied by 10 first. 9920 and
  blank rows dropped.
* travel_time: JWMNP, blank rows (non-commuters) dropped, above 177 top-coded to 177.

The code ranges follow the ACS PUMS data dictionaries as we read them; ``acs_year`` says
which vintage the file is (default 2006, the paper's year).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd

from privlab._validation import PrivlabError, check_int, rng_from
from privlab.datasets._io import bad_value, check_path, parse_int_column, read_csv_strings
from privlab.datasets.census import _cumulative, sample_rows

COLUMNS = ("salary", "age", "sex", "education", "industry", "occupation", "travel_time")
DOMAINS = {
    "salary": tuple(range(10, 251, 10)),
    "age": tuple(range(16, 85)),
    "sex": (1, 2),
    "education": tuple(range(1, 17)),
    "industry": tuple(range(1, 19)),
    "occupation": tuple(range(1, 26)),
    "travel_time": tuple(range(1, 178)),
}
N_MAX = 1_000_000
N_DEFAULT = 2_500
MODEL_SEED = 20_060_017
RAW_COLUMNS = ("WAGP", "AGEP", "SEX", "SCHL", "INDP", "OCCP", "JWMNP")

INDUSTRIES = (
    "AGR",
    "EXT",
    "UTL",
    "CON",
    "MFG",
    "WHL",
    "RET",
    "TRN",
    "INF",
    "FIN",
    "PRF",
    "EDU",
    "MED",
    "SCA",
    "ENT",
    "SRV",
    "ADM",
    "MIL",
)
INDP_STARTS = np.array(
    [170, 370, 570, 770, 1070, 4070, 4670, 6070, 6470, 6870, 7270, 7860, 7970, 8370, 8560, 8770, 9370, 9670]
)
INDP_LAST = 9870
OCCUPATIONS = (
    "MGR",
    "BUS",
    "FIN",
    "CMM",
    "ENG",
    "SCI",
    "CMS",
    "LGL",
    "EDU",
    "ENT",
    "MED",
    "HLS",
    "PRT",
    "EAT",
    "CLN",
    "PRS",
    "SAL",
    "OFF",
    "FFF",
    "CON",
    "EXT",
    "RPR",
    "PRD",
    "TRN",
    "MIL",
)
OCCP_STARTS = np.array(
    [
        10,
        500,
        800,
        1000,
        1300,
        1600,
        2000,
        2100,
        2200,
        2600,
        3000,
        3600,
        3700,
        4000,
        4200,
        4300,
        4700,
        5000,
        6000,
        6200,
        6800,
        7000,
        7700,
        9000,
        9800,
    ]
)
OCCP_LAST = 9830
NOT_WORKED = 9920  # INDP/OCCP code of the unemployed who last worked 5+ years ago
# 2008+ SCHL (index = code) -> 2006 SCHL level.
SCHL_2008 = np.array([0, 1, 2, 2, 2, 2, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 9, 9, 10, 11, 12, 13, 14, 15, 16])

# Generator tables (hand-set, plausible orders of magnitude for US workers).
_OCC_SHARE = np.array(
    [
        0.10,
        0.045,
        0.025,
        0.025,
        0.02,
        0.01,
        0.015,
        0.01,
        0.06,
        0.02,
        0.055,
        0.025,
        0.02,
        0.055,
        0.035,
        0.035,
        0.105,
        0.14,
        0.007,
        0.05,
        0.002,
        0.035,
        0.07,
        0.06,
        0.003,
    ]
)
_OCC_SKILL = np.array(
    [
        14,
        13.5,
        14,
        14.5,
        14.5,
        15,
        12.5,
        15,
        14,
        12.5,
        14.5,
        10.5,
        10,
        8.5,
        8,
        9.5,
        10.5,
        10.5,
        7.5,
        8.5,
        8.5,
        9.5,
        9,
        8.5,
        10.5,
    ]
)
_OCC_FEMALE = np.array(
    [
        0.38,
        0.55,
        0.55,
        0.25,
        0.12,
        0.40,
        0.65,
        0.50,
        0.73,
        0.47,
        0.72,
        0.88,
        0.22,
        0.55,
        0.40,
        0.78,
        0.49,
        0.74,
        0.20,
        0.03,
        0.03,
        0.04,
        0.30,
        0.15,
        0.14,
    ]
)
# Skill scale of each education level 1..16 (index 0 unused).
_EDU_SKILL = np.array([0, 7, 7, 7.5, 7.5, 8, 8, 8.5, 8.5, 9, 10, 10, 11, 13.5, 14.5, 15.5, 15.5])
_EDU_SHARE = np.array(
    [0.004, 0.003, 0.006, 0.012, 0.012, 0.015, 0.02, 0.02, 0.27, 0.07, 0.15, 0.08, 0.19, 0.09, 0.02, 0.013]
)
_IND_SHARE = np.array(
    [
        0.012,
        0.004,
        0.009,
        0.07,
        0.13,
        0.035,
        0.115,
        0.055,
        0.025,
        0.075,
        0.11,
        0.09,
        0.11,
        0.025,
        0.085,
        0.05,
        0.05,
        0.005,
    ]
)
_IND_WAGE = np.array(
    [-0.15, 0.20, 0.25, 0.05, 0.08, 0.05, -0.20, 0.05, 0.10, 0.15, 0.15, -0.10, 0, -0.20, -0.35, -0.20, 0.10, 0]
)
_IND_TRAVEL = np.array(
    [-0.3, 0.1, 0.1, 0.1, 0.05, 0.05, -0.1, 0.15, 0.05, 0.1, 0.1, -0.05, 0, -0.05, -0.15, -0.1, 0.1, -0.2]
)
# Occupation group -> (its natural industry sector, weight of that sector).
_AFFINITY = {
    "EDU": ("EDU", 0.7),
    "MED": ("MED", 0.7),
    "HLS": ("MED", 0.6),
    "MIL": ("MIL", 0.9),
    "CON": ("CON", 0.6),
    "EXT": ("EXT", 0.6),
    "FFF": ("AGR", 0.6),
    "EAT": ("ENT", 0.7),
    "SAL": ("RET", 0.5),
    "PRD": ("MFG", 0.6),
    "TRN": ("TRN", 0.5),
    "FIN": ("FIN", 0.5),
    "LGL": ("PRF", 0.5),
    "CMS": ("SCA", 0.5),
    "PRT": ("ADM", 0.5),
    "ENT": ("INF", 0.3),
    "CLN": ("SRV", 0.2),
    "PRS": ("SRV", 0.4),
}
_AGE_BAND_EDGES = np.array([19, 22, 25])  # bands 16-18, 19-21, 22-24, 25+
_AGE_BAND_MAX_EDU = (9, 12, 14, 16)


@functools.lru_cache(maxsize=1)
def model() -> dict:
    """The fixed generator tables (see the module docstring)."""
    rng = np.random.default_rng(MODEL_SEED)
    ages = np.arange(16, 85)
    w = np.exp(-0.5 * ((ages - 41) / 14.0) ** 2) * np.where(ages > 65, np.exp(-(ages - 65) / 8.0), 1.0)
    m = {"age_cum": _cumulative(w[None, :])}
    edu = np.zeros((len(_AGE_BAND_MAX_EDU), 16))
    for band, top in enumerate(_AGE_BAND_MAX_EDU):
        edu[band, :top] = _EDU_SHARE[:top]
    m["edu_cum"] = _cumulative(edu)
    # occupation | (sex, education): rows (sex - 1) * 16 + (education - 1).
    fit = np.exp(-((_OCC_SKILL[None, :] - _EDU_SKILL[1:, None]) ** 2) / (2 * 2.2**2))
    sex_mix = np.stack([(1 - _OCC_FEMALE) / 0.53, _OCC_FEMALE / 0.47])
    occ = _OCC_SHARE[None, None, :] * fit[None, :, :] * sex_mix[:, None, :]
    m["occ_cum"] = _cumulative(occ.reshape(-1, len(OCCUPATIONS)))
    ind = rng.dirichlet(8.0 * _IND_SHARE / _IND_SHARE.sum() + 1e-3, len(OCCUPATIONS)) + 1e-6
    ind /= ind.sum(axis=1, keepdims=True)
    for occ_name, (ind_name, weight) in _AFFINITY.items():
        row = OCCUPATIONS.index(occ_name)
        ind[row] *= 1 - weight
        ind[row, INDUSTRIES.index(ind_name)] += weight
    m["ind_cum"] = _cumulative(ind)
    return m


def generate(n: int, seed) -> pd.DataFrame:
    """The PUMS-like table of ``n`` rows for ``seed`` (see the module docstring)."""
    m = model()
    rng = rng_from(seed)
    age = 16 + sample_rows(m["age_cum"], np.zeros(n, dtype=np.int64), rng.random(n))
    sex = 1 + (rng.random(n) >= 0.53).astype(np.int64)
    band = np.searchsorted(_AGE_BAND_EDGES, age, side="right")
    education = 1 + sample_rows(m["edu_cum"], band, rng.random(n))
    occupation = 1 + sample_rows(m["occ_cum"], (sex - 1) * 16 + (education - 1), rng.random(n))
    industry = 1 + sample_rows(m["ind_cum"], occupation - 1, rng.random(n))
    years = age - 16
    log_wage = (
        2.95
        + 0.09 * (_EDU_SKILL[education] - 9)
        + 0.05 * years
        - 0.0007 * years**2
        - 0.22 * (sex == 2)
        + 0.07 * (_OCC_SKILL[occupation - 1] - 10)
        + _IND_WAGE[industry - 1]
        + rng.normal(0.0, 0.6, n)
    )
    salary = np.clip(np.rint(np.exp(log_wage) / 10.0) * 10, 10, 250).astype(np.int64)
    log_travel = np.log(20.0) + 0.5 * _IND_TRAVEL[industry - 1] + rng.normal(0.0, 0.7, n)
    travel = np.clip(np.rint(np.exp(log_travel)), 1, 177).astype(np.int64)
    columns = {
        "salary": salary,
        "age": age,
        "sex": sex,
        "education": education,
        "industry": industry,
        "occupation": occupation,
        "travel_time": travel,
    }
    return pd.DataFrame({c: columns[c].astype(np.int64) for c in COLUMNS})


def _map_ranges(codes, starts, last, *, file, column, lines, what) -> np.ndarray:
    """Map ACS codes to 1-based groups by range start; -1 (blank) and 9920 -> 0 (drop)."""
    drop = (codes == -1) | (codes == NOT_WORKED)
    bad = ~drop & ((codes < starts[0]) | (codes > last))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise bad_value(
            file,
            int(lines[i]),
            column,
            f"an ACS {what} code in {starts[0]}..{last} or {NOT_WORKED} or blank",
            str(codes[i]),
        )
    groups = np.searchsorted(starts, codes, side="right")
    return np.where(drop, 0, groups)


def read_acs(path: Path, acs_year: int) -> pd.DataFrame:
    """Read and preprocess an ACS PUMS person CSV (see the module docstring)."""
    raw, lines = read_csv_strings(path, RAW_COLUMNS)
    file = str(path)

    def col(name, hint="", **kw):
        try:
            return parse_int_column(raw[name], file=file, column=name, lines=lines, **kw)
        except PrivlabError as exc:
            raise PrivlabError(f"{exc}{hint}") from None

    vintage = f" (codes of acs_year={acs_year}; pass the survey year of the file as acs_year)"

    wagp = col("WAGP", low=0, allow_blank=True)
    agep = col("AGEP", low=0, high=99)
    sex = col("SEX", low=1, high=2)
    schl_top = 16 if acs_year < 2008 else 24
    schl = col("SCHL", vintage, low=1, high=schl_top, allow_blank=True)
    education = np.where(schl == -1, 0, schl if acs_year < 2008 else SCHL_2008[np.maximum(schl, 0)])
    indp = col("INDP", low=0, allow_blank=True)
    industry = _map_ranges(indp, INDP_STARTS, INDP_LAST, file=file, column="INDP", lines=lines, what="industry (INDP)")
    occp_high = 992 if acs_year < 2010 else None
    occp = col("OCCP", vintage, low=0, high=occp_high, allow_blank=True)
    if acs_year < 2010:
        occp = np.where(occp == -1, -1, occp * 10)  # three-digit codes before 2010
    occupation = _map_ranges(
        occp, OCCP_STARTS, OCCP_LAST, file=file, column="OCCP", lines=lines, what="occupation (OCCP)"
    )
    jwmnp = col("JWMNP", low=1, allow_blank=True)

    salary = (wagp + 5_000) // 10_000 * 10  # round half up (np.rint would round 25K to 20K)
    keep = (
        (wagp != -1)
        & (salary >= 10)
        & (agep >= 16)
        & (agep <= 84)
        & (education > 0)
        & (industry > 0)
        & (occupation > 0)
        & (jwmnp != -1)
    )
    frame = pd.DataFrame(
        {
            "salary": np.minimum(salary, 250)[keep],
            "age": agep[keep],
            "sex": sex[keep],
            "education": education[keep],
            "industry": industry[keep],
            "occupation": occupation[keep],
            "travel_time": np.minimum(jwmnp, 177)[keep],
        },
        columns=list(COLUMNS),
    )
    if len(frame) == 0:
        raise PrivlabError(
            f"{file}: no rows left after preprocessing (rows need WAGP >= 5000, "
            f"AGEP 16..84 and SCHL, INDP, OCCP, JWMNP filled in)"
        )
    return frame.astype(np.int64)


def load(n=None, seed=0, path=None, acs_year=2006) -> pd.DataFrame:
    """PUMS-like data (synthetic, default) or a real ACS PUMS person file (``path``).

    Parameters
    ----------
    n : int, optional
        Number of rows, in [1, 1000000]; default 2500 (seed 004's sample size). With
        ``path``: default all rows left after preprocessing, otherwise a seeded random
        subset of n of them (in file order).
    seed : int
        Seed of the sample (the generator's tables are fixed).
    path : str or path-like, optional
        An ACS PUMS person CSV holding WAGP, AGEP, SEX, SCHL, INDP, OCCP, JWMNP.
    acs_year : int
        Survey year of the file at ``path`` (2005..2030), which fixes the SCHL and OCCP
        code schemes; unused without ``path``.

    Returns
    -------
    pandas.DataFrame
        The seven int64 columns of ``COLUMNS``.
    """
    if n is not None:
        n = check_int("n", n, low=1, high=N_MAX)
    rng = rng_from(seed)
    acs_year = check_int("acs_year", acs_year, low=2005, high=2030)
    if path is None:
        frame = generate(N_DEFAULT if n is None else n, rng)
    else:
        path = check_path("path", path)
        frame = read_acs(path, acs_year)
        if n is not None:
            if n > len(frame):
                raise PrivlabError(f"n must be at most the {len(frame)} usable rows of {path}, got {n}")
            keep = np.sort(rng.choice(len(frame), size=n, replace=False))
            frame = frame.iloc[keep].reset_index(drop=True)
    frame.attrs.update(dataset="pums", synthetic=path is None)
    return frame
