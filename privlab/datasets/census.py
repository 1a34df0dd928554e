"""A seeded CENSUS-like generator (SYNTHETIC) and a loader for a real CENSUS extract.

The CENSUS data of seed 000 (IPUMS, 500K American adults, also used by Anatomy) is not
redistributable, so privlab generates a stand-in with the same eight attributes and
domain sizes (seed 000, Table 5), all integer codes 0..size-1:

    age 76, gender 2, education 14, marital 6, race 9, workclass 10, country 83,
    occupation 50.

OCC uses occupation as the sensitive attribute (SA) and the other seven as QI; EDU uses
education as the SA. Count-query experiments on bucketized tables measure how well
"QI predicate AND SA value" counts survive bucketization: with QI and SA independent every
such count is just n * P(QI) * P(SA) and every method looks perfect. So the model makes
the QIs depend on BOTH occupation and education, and the two SAs depend on each other.

Model (all tables are built once from the fixed ``MODEL_SEED``, so every ``seed`` draws
from the same population; ``seed`` only changes the sample):

1. Marginals (published facts). Occupation frequencies fall from 7.5% (code 0) to 0.18%
   (code 49) and education from 27.3% (code 0) to 0.44% (code 13), codes sorted by
   frequency. Between the ends the frequency decays geometrically in a warped index:
   ``f_k = hi * (lo/hi) ** ((k/(K-1)) ** g)``, with ``g`` solved so the ``f_k`` sum to 1
   (``g = 1`` is the plain geometric decay, whose sum is 1.0005 for occupation and 0.992
   for education; warping instead of rescaling keeps both ends exact). For every n the
   SA columns hold exactly the largest-remainder roundings of ``n * f`` (so min/max
   frequencies match to within 1/n), in a seeded random order.
2. Occupation <-> education. A latent "status" ``U = mu[occupation] + N(0, 0.8^2)``
   (``mu[o] ~ N(0, 1)`` per occupation). The records are ranked by U and education levels
   are handed out in order of a fixed level ranking of the 14 codes, each level taking
   exactly its count: a Gaussian copula, so the education marginal stays exact while
   high-status occupations get the high education levels.
3. Latent class. Each record gets one of K = 8 classes, ``P(C = c | o, e) ∝
   exp(alpha[o, c] + beta[e, c])`` with ``alpha, beta ~ N(0, 2^2)``: the class carries
   information from both occupation and education.
4. QIs given the class. age: a discretised normal per class (class mean between codes 5
   and 50, sd 6..12, a small floor so every age occurs); gender: P(code 1) per class in
   [0.1, 0.9]; marital, race, workclass, country: per-class draws from
   Dirichlet(15 * base) around a skewed base distribution (e.g. country code 0, the
   home country, ~87%). Given C the QIs are independent, so QI <-> SA dependence runs
   through the class (a latent-class / naive-Bayes network
   ``(occupation, education) -> C -> QIs``).

All sampling is vectorised inverse-CDF sampling from cumulative tables (500K rows in well
under a second).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privlab._validation import PrivlabError, check_int, rng_from
from privlab.datasets._io import check_path, parse_int_column, read_csv_strings

COLUMNS = ("age", "gender", "education", "marital", "race", "workclass", "country", "occupation")
SIZES = {
    "age": 76,
    "gender": 2,
    "education": 14,
    "marital": 6,
    "race": 9,
    "workclass": 10,
    "country": 83,
    "occupation": 50,
}
QI_COLUMNS = ("age", "gender", "marital", "race", "workclass", "country")
N_MAX = 500_000
N_DEFAULT = 300_000
MODEL_SEED = 20_090_403  # fixed: the population model is part of the data-set definition
N_CLASSES = 8

# Published frequency range of each SA (seed 000, Section 7.1).
FREQ_RANGE = {"occupation": (0.075, 0.0018), "education": (0.273, 0.0044)}


def warped_geometric(size: int, hi: float, lo: float) -> np.ndarray:
    """Frequencies from ``hi`` down to ``lo`` (exactly) that sum to 1.

    ``f_k = hi * (lo/hi) ** ((k/(size-1)) ** g)``; the exponent warp ``g`` is found by
    bisection (the sum decreases as g decreases).
    """
    t = np.arange(size) / (size - 1)

    def freqs(g):
        return hi * (lo / hi) ** (t**g)

    a, b = 0.05, 20.0
    for _ in range(200):
        mid = 0.5 * (a + b)
        if freqs(mid).sum() > 1.0:
            b = mid
        else:
            a = mid
    f = freqs(0.5 * (a + b))
    # The bisection leaves ~1e-15; put it on the interior so both ends stay exact.
    f[1:-1] *= (1.0 - f[0] - f[-1]) / f[1:-1].sum()
    return f


def largest_remainder(n: int, freqs: np.ndarray) -> np.ndarray:
    """Integer counts summing to n closest to ``n * freqs`` (Hamilton's method)."""
    exact = n * np.asarray(freqs, dtype=float)
    counts = np.floor(exact).astype(np.int64)
    short = n - int(counts.sum())
    if short > 0:
        # Stable sort: ties go to the smaller (more frequent) code, deterministically.
        order = np.argsort(-(exact - counts), kind="stable")
        counts[order[:short]] += 1
    return counts


def _cumulative(probs: np.ndarray) -> np.ndarray:
    """Row-wise CDF with the last entry exactly 1 (inverse-CDF sampling relies on it)."""
    probs = probs / probs.sum(axis=-1, keepdims=True)
    cum = np.cumsum(probs, axis=-1)
    cum[..., -1] = 1.0
    return cum


def sample_rows(cum: np.ndarray, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Draw one category per record from row ``rows[i]`` of the CDF table ``cum``.

    One searchsorted over the rows laid end to end, row r shifted by r so the flat table
    stays sorted; the clip guards against r + u rounding up to r + 1.
    """
    n_rows, size = cum.shape
    flat = (np.arange(n_rows)[:, None] + cum).ravel()
    idx = np.searchsorted(flat, rows + u, side="right")
    idx = np.minimum(idx, rows * size + size - 1)
    return idx - rows * size


@functools.lru_cache(maxsize=1)
def model() -> dict:
    """The fixed population model (tables only; see the module docstring)."""
    rng = np.random.default_rng(MODEL_SEED)
    m: dict[str, Any] = {name: warped_geometric(SIZES[name], *FREQ_RANGE[name]) for name in FREQ_RANGE}
    m["status"] = rng.normal(0.0, 1.0, SIZES["occupation"])
    m["status_noise"] = 0.8
    # Education code k is the k-th most frequent; its "level" (position in the status
    # ranking, low to high) is a fixed random permutation.
    m["edu_by_level"] = rng.permutation(SIZES["education"])
    alpha = rng.normal(0.0, 2.0, (SIZES["occupation"], N_CLASSES))
    beta = rng.normal(0.0, 2.0, (SIZES["education"], N_CLASSES))
    logits = alpha[:, None, :] + beta[None, :, :]  # (occupation, education, class)
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    m["class_cum"] = _cumulative(weights.reshape(-1, N_CLASSES))

    qi = {}
    ages = np.arange(SIZES["age"])
    means = rng.uniform(5, 50, N_CLASSES)
    sds = rng.uniform(6, 12, N_CLASSES)
    dens = np.exp(-0.5 * ((ages[None, :] - means[:, None]) / sds[:, None]) ** 2)
    dens = dens / dens.sum(axis=1, keepdims=True) + 0.002  # floor: every age possible
    qi["age"] = dens
    p_male = rng.uniform(0.1, 0.9, N_CLASSES)
    qi["gender"] = np.column_stack([1.0 - p_male, p_male])
    bases = {
        "marital": np.array([0.52, 0.27, 0.10, 0.05, 0.04, 0.02]),
        "race": np.array([0.78, 0.11, 0.04, 0.025, 0.02, 0.01, 0.008, 0.005, 0.002]),
        "workclass": np.array([0.69, 0.08, 0.06, 0.05, 0.04, 0.035, 0.025, 0.012, 0.005, 0.003]),
        # country: the home country, then a geometric tail of 82 others.
        "country": np.concatenate([[0.87], 0.13 * _geometric_tail(82, 0.93)]),
    }
    for name, base in bases.items():
        base = base / base.sum()
        draws = rng.dirichlet(15.0 * base + 1e-3, N_CLASSES)
        qi[name] = draws + 1e-6  # keep every code reachable
    m["qi_cum"] = {name: _cumulative(table) for name, table in qi.items()}
    return m


def _geometric_tail(size: int, ratio: float) -> np.ndarray:
    w = ratio ** np.arange(size)
    return w / w.sum()


def generate(n: int, seed) -> pd.DataFrame:
    """The CENSUS-like table of ``n`` rows for ``seed`` (see the module docstring)."""
    m = model()
    rng = rng_from(seed)
    occ_counts = largest_remainder(n, m["occupation"])
    occupation = rng.permutation(np.repeat(np.arange(SIZES["occupation"]), occ_counts))

    status = m["status"][occupation] + m["status_noise"] * rng.standard_normal(n)
    edu_counts = largest_remainder(n, m["education"])
    levels = m["edu_by_level"]
    education = np.empty(n, dtype=np.int64)
    # Lowest status gets the lowest level, each level exactly its count.
    education[np.argsort(status, kind="stable")] = np.repeat(levels, edu_counts[levels])

    cls = sample_rows(m["class_cum"], occupation * SIZES["education"] + education, rng.random(n))
    columns = {"education": education, "occupation": occupation}
    for name in QI_COLUMNS:
        columns[name] = sample_rows(m["qi_cum"][name], cls, rng.random(n))
    frame = pd.DataFrame({name: columns[name].astype(np.int64) for name in COLUMNS})
    return frame


def read_extract(path: Path) -> pd.DataFrame:
    """Read a real CENSUS extract: a headed CSV with the eight columns as integer codes."""
    frame, lines = read_csv_strings(path, COLUMNS)
    if len(frame) == 0:
        raise PrivlabError(f"{path}: expected at least one data line, got none")
    out = {
        name: parse_int_column(frame[name], file=str(path), column=name, lines=lines, low=0, high=SIZES[name] - 1)
        for name in COLUMNS
    }
    return pd.DataFrame(out, columns=list(COLUMNS))


def load(n=None, seed=0, path=None) -> pd.DataFrame:
    """CENSUS-like data (synthetic, default) or a real extract (``path``).

    Parameters
    ----------
    n : int, optional
        Number of rows, in [1, 500000]; default 300000 (OCC-300K / EDU-300K). With
        ``path``: default all rows of the file, otherwise a seeded random subset of n rows
        (in file order), as OCC-n is drawn from the 500K CENSUS.
    seed : int
        Seed of the sample (the population model itself is fixed).
    path : str or path-like, optional
        A CSV with header age,gender,education,marital,race,workclass,country,occupation
        and integer codes within the Table 5 domains.

    Returns
    -------
    pandas.DataFrame
        The eight int64 columns of ``COLUMNS``.
    """
    if n is not None:
        n = check_int("n", n, low=1, high=N_MAX)
    rng = rng_from(seed)  # validates seed before any work
    if path is None:
        frame = generate(N_DEFAULT if n is None else n, rng)
    else:
        path = check_path("path", path)
        frame = read_extract(path)
        if n is not None:
            if n > len(frame):
                raise PrivlabError(f"n must be at most the {len(frame)} rows of {path}, got {n}")
            keep = np.sort(rng.choice(len(frame), size=n, replace=False))
            frame = frame.iloc[keep].reset_index(drop=True)
    frame.attrs.update(dataset="census", synthetic=path is None)
    return frame
