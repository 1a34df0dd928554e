"""Statistical disclosure control techniques of seed 004 and the intruder models that
turn each technique's output plus supplementary knowledge (SK) into candidate values
``d_i`` with probabilities ``p_i`` for :mod:`privlab.cae`.

Techniques
----------
- :func:`sample`: simple random sample without replacement.
- :class:`QueryRestriction`: exact answers to overlapping range-sum queries of query-set
  size ``Q = 2l`` over shuffled records; per-record bounds ``[L, U]`` of the confidential
  value by linear programming (PuLP-free: SciPy's HiGHS) or by an exact structural method.
- :func:`add_binomial_noise`: integer binomial noise on every attribute's domain code.

Intruder models (all batched over the value combinations of one SK attribute set;
``groups[r]`` is the combination record ``r`` matches, i.e. the ``M_o`` it belongs to)
------------------------------------------------------------------------------------
- :func:`sampling_probs`: ``p_d = f_d/|M_o| + (|M_o| - |M_s|)/(|M_o| |D|)`` (the seed prints
  ``... * |D|`` at the end, a typo: the probabilities must sum to 1).
- :func:`interval_probs`: Algorithms 2 and 3: each record of ``M_o`` spreads ``1/|M_o|``
  uniformly over the domain values inside its ``[L, U]``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ._validation import PrivlabError, check_array, check_choice, check_int, check_real, rng_from

__all__ = [
    "attribute_domain",
    "encode",
    "sample",
    "noise_max",
    "add_binomial_noise",
    "QueryRestriction",
    "bounds_to_indices",
    "noise_intervals",
    "sampling_probs",
    "interval_probs",
    "group_ids",
]


# ---------------------------------------------------------------------------------------
# domains and codes
# ---------------------------------------------------------------------------------------
def attribute_domain(column) -> np.ndarray:
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
        return np.arange(lo, hi + 1, step, dtype=np.int64)
    return np.asarray(sorted(col.unique()))


def encode(column, domain) -> np.ndarray:
    """Index of each value of ``column`` in ``domain`` (0-based codes)."""
    domain = np.asarray(domain)
    col = np.asarray(column)
    codes = np.searchsorted(domain, col)
    bad = (codes >= domain.size) | (domain[np.minimum(codes, domain.size - 1)] != col)
    if np.any(bad):
        raise PrivlabError(f"column holds a value outside its domain: {col[np.flatnonzero(bad)[0]]!r}")
    return codes.astype(np.int64)


def group_ids(df: pd.DataFrame, attributes) -> tuple[np.ndarray, int]:
    """The SK value combination each record matches: ``(groups, n_groups)``.

    ``groups[r]`` indexes the distinct combinations of ``attributes`` occurring in ``df``
    (sorted), so records with the same index form one ``M_o``.
    """
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


# ---------------------------------------------------------------------------------------
# sampling
# ---------------------------------------------------------------------------------------
def sample(df: pd.DataFrame, fraction, seed) -> pd.DataFrame:
    """Simple random sample without replacement of ``round(fraction * n)`` records (at least 1).

    The sample keeps the original index (so the matching records ``M_s`` are ``M_o``'s
    records that were drawn) and the original order.
    """
    f = check_real("fraction", fraction, low=0, low_open=True, high=1)
    n = len(df)
    if n == 0:
        raise PrivlabError("df must hold at least one record")
    size = max(1, int(math.floor(f * n + 0.5)))
    chosen = np.sort(rng_from(seed).choice(n, size=size, replace=False))
    return df.iloc[chosen]


def sampling_probs(groups, codes, in_sample, n_groups, domain_size) -> np.ndarray:
    """Intruder's ``p`` over the domain for every SK combination after sampling.

    Parameters
    ----------
    groups : array of int, shape (n,)
        SK combination of each original record.
    codes : array of int, shape (n,)
        Domain index of each record's confidential value.
    in_sample : array of bool, shape (n,)
        Whether the record was released in the sample.
    n_groups, domain_size : int

    Returns
    -------
    ndarray, shape (n_groups, domain_size)
        ``p_d = f_d/|M_o| + (|M_o| - |M_s|)/(|M_o| |D|)``: a sampled matching record
        reveals its value, an unsampled one leaves every domain value equally likely.
    """
    groups = check_array("groups", groups, dtype=np.int64)
    codes = check_array("codes", codes, dtype=np.int64)
    in_sample = np.asarray(in_sample, dtype=bool)
    G = check_int("n_groups", n_groups, low=1)
    m = check_int("domain_size", domain_size, low=1)
    if groups.size != codes.size or groups.size != in_sample.size:
        raise PrivlabError("groups, codes and in_sample must have the same length")
    m_o = np.bincount(groups, minlength=G).astype(float)
    f = np.bincount(groups[in_sample] * m + codes[in_sample], minlength=G * m).reshape(G, m).astype(float)
    m_s = f.sum(axis=1)
    return f / m_o[:, None] + ((m_o - m_s) / (m_o * m))[:, None]


# ---------------------------------------------------------------------------------------
# noise addition
# ---------------------------------------------------------------------------------------
def noise_max(level, domain_size) -> int:
    """Maximum noise ``M``: ``level``% of ``|D| - 1`` rounded to the nearest even number (halves up)."""
    k = check_real("level", level, low=0, high=100)
    m = check_int("domain_size", domain_size, low=1)
    return 2 * int(math.floor(k / 100.0 * (m - 1) / 2.0 + 0.5))


def add_binomial_noise(df: pd.DataFrame, level, seed, domains=None) -> pd.DataFrame:
    """Perturb every attribute by integer binomial noise on its domain code.

    For an attribute with domain ``D`` (see :func:`attribute_domain`), ``M`` is
    :func:`noise_max` and the noise is ``Binomial(M, 1/2) - M/2`` in ``[-M/2, M/2]``,
    added to the value's index in ``D``. A code pushed off the domain is clipped to the
    nearest end: the released file stays inside every domain, and the released value is
    never farther from the true one than the unclipped value was, so ``released ± M/2``
    still contains the truth.

    Parameters
    ----------
    df : DataFrame
    level : float
        Noise level ``k`` in percent, 0..100.
    seed : int, SeedSequence or Generator
    domains : dict, optional
        Column -> domain array; :func:`attribute_domain` of the column otherwise.
    """
    k = check_real("level", level, low=0, high=100)
    rng = rng_from(seed)
    out = {}
    for col in df.columns:
        domain = np.asarray(domains[col]) if domains and col in domains else attribute_domain(df[col])
        codes = encode(df[col].to_numpy(), domain)
        M = noise_max(k, domain.size)
        noisy = codes + rng.binomial(M, 0.5, size=codes.size) - M // 2
        out[col] = domain[np.clip(noisy, 0, domain.size - 1)]
    return pd.DataFrame(out, index=df.index)


def noise_intervals(released_codes, M, domain_size) -> tuple[np.ndarray, np.ndarray]:
    """``[L, U]`` (domain indices) of each record: released code ± M/2, clipped to the domain."""
    c = check_array("released_codes", released_codes, dtype=np.int64)
    M = check_int("M", M, low=0)
    m = check_int("domain_size", domain_size, low=1)
    return np.clip(c - M // 2, 0, m - 1), np.clip(c + M // 2, 0, m - 1)


# ---------------------------------------------------------------------------------------
# query restriction
# ---------------------------------------------------------------------------------------
class QueryRestriction:
    """Overlapping range-sum queries over shuffled records and the bounds they imply.

    The records are shuffled (``order[pos]`` is the record at position ``pos``); with
    ``Q = 2l`` query ``t`` (``t = 0..k-1``) sums positions ``t l .. t l + 2l - 1``, so
    there are ``k = floor(2n/Q) - 1`` exact answers. The intruder bounds each record's
    value subject to the answers and ``d_min <= r <= d_max``.

    Parameters
    ----------
    values : array_like, shape (n,)
        Confidential values of the original records.
    set_size : int
        Query-set size ``Q``: even, ``2 <= Q <= n``.
    seed : int, SeedSequence or Generator
        Drives the shuffle.
    domain : array_like, optional
        Confidential domain (its min and max bound every record); the values' range otherwise.
    """

    def __init__(self, values, set_size, seed, domain=None):
        self.values = check_array("values", values, dtype=float)
        n = self.values.size
        Q = check_int("set_size", set_size, low=2, high=n)
        if Q % 2:
            raise PrivlabError(f"set_size must be even (Q = 2l), got {Q}")
        self.n, self.set_size, self.half = n, Q, Q // 2
        self.n_queries = (2 * n) // Q - 1
        dom = self.values if domain is None else check_array("domain", domain, dtype=float)
        self.d_min, self.d_max = float(dom.min()), float(dom.max())
        if self.values.min() < self.d_min or self.values.max() > self.d_max:
            raise PrivlabError("values must lie inside the domain")
        self.order = rng_from(seed).permutation(n)
        # answers: sums of the blocks t and t+1 of l shuffled records each
        l, k = self.half, self.n_queries
        block = self.values[self.order[: (k + 1) * l]].reshape(k + 1, l).sum(axis=1)
        self.answers = block[:-1] + block[1:]

    def equations(self):
        """The system ``A r = answers`` over records (``A`` a scipy CSR 0/1 matrix, shape (k, n))."""
        from scipy.sparse import csr_matrix

        l, k = self.half, self.n_queries
        rows = np.repeat(np.arange(k), 2 * l)
        pos = (np.arange(k)[:, None] * l + np.arange(2 * l)[None, :]).ravel()
        return csr_matrix((np.ones(rows.size), (rows, self.order[pos])), shape=(k, self.n)), self.answers.copy()

    def bounds(self, records=None, method: str = "structural") -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds ``(L, U)`` of the given records' values (all records by default).

        ``method="structural"`` is exact and O(n); ``method="lp"`` solves two linear programs
        per record with SciPy's HiGHS.
        """
        check_choice("method", method, ("structural", "lp"))
        recs = np.arange(self.n) if records is None else check_array("records", records, dtype=np.int64, min_size=0)
        if recs.size and (recs.min() < 0 or recs.max() >= self.n):
            raise PrivlabError(f"records must be indices in [0, {self.n - 1}]")
        if method == "lp":
            A, b = self.equations()
            return lp_bounds(A, b, self.d_min, self.d_max, recs)
        L, U = self._structural()
        return L[recs], U[recs]

    def _structural(self):
        """Exact bounds from the chain structure.

        Blocks ``B_0..B_k`` of ``l`` consecutive shuffled records have sums ``b_t`` with
        ``b_t + b_{t+1} = answer_t``: one degree of freedom, ``b_t = c_t + (-1)^t b_0``.
        Each ``b_t`` must lie in ``[l d_min, l d_max]``, which confines ``b_0`` to an
        interval and hence every ``b_t``. Records inside a block are otherwise free in
        the box, so a record of block ``t`` ranges over
        ``[max(d_min, b_t^lo - (l-1) d_max), min(d_max, b_t^hi - (l-1) d_min)]``.
        Records in no query keep the whole domain.
        """
        l, k = self.half, self.n_queries
        lo_sum, hi_sum = l * self.d_min, l * self.d_max
        # c_t by the alternating recurrence c_{t+1} = s_t - c_t
        sign = np.where(np.arange(k + 1) % 2 == 0, 1.0, -1.0)
        c = np.zeros(k + 1)
        if k:
            # c_t = sum_{s<t} (-1)^(t-1-s) s_s, computed in closed form with cumulative sums
            alt = np.cumsum(self.answers * sign[:k] * -1.0)  # sum_{s<=t-1} (-1)^(s+1) a_s
            c[1:] = sign[1:] * alt
        # b_0 interval from every block's box
        b0_lo = np.max(np.where(sign > 0, lo_sum - c, c - hi_sum))
        b0_hi = np.min(np.where(sign > 0, hi_sum - c, c - lo_sum))
        bt_lo = np.where(sign > 0, c + b0_lo, c - b0_hi)
        bt_hi = np.where(sign > 0, c + b0_hi, c - b0_lo)
        L = np.full(self.n, self.d_min)
        U = np.full(self.n, self.d_max)
        covered = self.order[: (k + 1) * l].reshape(k + 1, l)
        L[covered] = np.maximum(self.d_min, bt_lo - (l - 1) * self.d_max)[:, None]
        U[covered] = np.minimum(self.d_max, bt_hi - (l - 1) * self.d_min)[:, None]
        return L, U


def lp_bounds(A, b, d_min, d_max, records) -> tuple[np.ndarray, np.ndarray]:
    """Min and max of each ``r_i`` (i in ``records``) subject to ``A r = b``, ``d_min <= r <= d_max``.

    A generic path through SciPy's HiGHS (two LPs per record), sharing nothing with the
    structural method of :class:`QueryRestriction`.
    """
    from scipy.optimize import linprog

    n = A.shape[1]
    records = np.asarray(records, dtype=np.int64)
    L = np.empty(records.size)
    U = np.empty(records.size)
    for out, i in enumerate(records):
        c = np.zeros(n)
        for sense, dest in ((1.0, L), (-1.0, U)):
            c[i] = sense
            res = linprog(c, A_eq=A, b_eq=b, bounds=(d_min, d_max), method="highs")
            if res.status != 0:
                raise RuntimeError(f"LP for record {i} failed: {res.message}")
            dest[out] = sense * res.fun
    return L, U


def bounds_to_indices(L, U, domain, *, tol=1e-6) -> tuple[np.ndarray, np.ndarray]:
    """Domain indices of the first value >= L and the last value <= U (``tol`` absorbs LP round-off)."""
    domain = check_array("domain", domain, dtype=float)
    L = check_array("L", L, dtype=float, min_size=0)
    U = check_array("U", U, dtype=float, min_size=0)
    lo = np.searchsorted(domain, L - tol, side="left")
    hi = np.searchsorted(domain, U + tol, side="right") - 1
    if np.any(hi < lo):
        raise PrivlabError("every [L, U] must contain at least one domain value")
    return lo.astype(np.int64), hi.astype(np.int64)


def interval_probs(groups, lo, hi, n_groups, domain_size) -> np.ndarray:
    """Algorithms 2 and 3: ``p`` over the domain for every SK combination.

    Each record of ``M_o`` adds ``1/|M_o|`` spread uniformly over the domain indices
    ``lo..hi`` of its bounds: ``p_d += 1/(hi - lo + 1) * 1/|M_o|``.

    Returns
    -------
    ndarray, shape (n_groups, domain_size)
    """
    groups = check_array("groups", groups, dtype=np.int64)
    lo = check_array("lo", lo, dtype=np.int64)
    hi = check_array("hi", hi, dtype=np.int64)
    G = check_int("n_groups", n_groups, low=1)
    m = check_int("domain_size", domain_size, low=1)
    if np.any(lo < 0) or np.any(hi >= m) or np.any(hi < lo):
        raise PrivlabError(f"bounds must satisfy 0 <= lo <= hi < {m}")
    m_o = np.bincount(groups, minlength=G).astype(float)
    d = np.arange(m)
    inside = (d[None, :] >= lo[:, None]) & (d[None, :] <= hi[:, None])
    share = inside / ((hi - lo + 1) * m_o[groups])[:, None]
    p = np.zeros((G, m))
    np.add.at(p, groups, share)  # exact zeros outside every record's interval
    return p
