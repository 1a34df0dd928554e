"""TwoSizeBucketing (seed 000, Section 5.1, Algorithm 1): the optimal setting with at most
two bucket sizes S_1 < S_2 <= max_size.

For a size pair the feasible (b_1, b_2) with b_1 S_1 + b_2 S_2 = n form the list L in
descending b_1 (Lemma 5.21): pair k is (b_1^0 - k S_2/g, b_2^0 + k S_1/g), g = gcd(S_1, S_2),
k = 0..floor(b_1^0 g / S_2). The number of buckets falls by S_2/g - S_1/g per step, so the
loss grows linearly in k and the first valid pair of L is the optimum of the size pair
(Lemma 5.24). Three strategies find it, all returning the same optimum:

- ``"none"``: evaluates Theorem 4.17 on every pair of every L (vectorised);
- ``"loss"``: evaluates Theorem 4.17 along the prefix of L whose loss is below the best loss
  so far (Lemma 5.25), stopping at the first valid pair;
- ``"full"``: loss pruning plus privacy pruning. Along L each PC_i is linear in k, so it holds
  on a prefix or a suffix; FC_j depends on b_j alone and holds exactly for b_j <= b_j^*(S_j)
  (sum_i min(o_i, b c_ij) - b S_j is concave in b and 0 at b = 0), found once per size by a
  binary search. The valid k are an interval, computed in O(m) per pair after O(m log n) per
  size (Theorem 5.30).

Size pairs are scanned with smaller sizes first (to tighten the loss bound early); ties in
loss keep the first setting found. One-size settings are the endpoints of L.
"""

from __future__ import annotations

from math import gcd

import numpy as np
from numpy.typing import ArrayLike

from privlab._validation import PrivlabError, check_choice, check_int

from .settings import MAX_RECORDS, BucketSetting, caps, check_max_size, prepare, smallest_size

PRUNINGS = ("none", "loss", "full")
_CHUNK_ELEMENTS = 2_000_000  # bound on m * (pairs evaluated at once) in the scans
_FIRST_WIDTH = 256  # a Loss-pruning scan's first chunk (pairs): most prefixes end early, so chunks grow from it


def pair_list(n: int, s1: int, s2: int) -> tuple[int, int, int, int, int] | None:
    """Head of the list L for sizes s1 < s2: (b1_0, b2_0, K, step1, step2), or None when empty.

    Pair k of L is (b1_0 - k*step1, b2_0 + k*step2), k = 0..K.
    """
    n = check_int("n", n, low=0, high=MAX_RECORDS)
    s1 = check_int("s1", s1, low=1, high=MAX_RECORDS)
    s2 = check_int("s2", s2, low=1, high=MAX_RECORDS)
    if s2 <= s1:
        raise PrivlabError(f"s2 must be larger than s1 = {s1}, got {s2}")
    return _pair_list(n, s1, s2)


def _pair_list(n: int, s1: int, s2: int) -> tuple[int, int, int, int, int] | None:
    """`pair_list` of checked ints (the scan calls it for every size pair)."""
    g = gcd(s1, s2)
    if n % g:
        return None
    a, b, nn = s1 // g, s2 // g, n // g
    # b1 * a = nn (mod b): b1 = nn * a^{-1} (mod b)
    r = 0 if b == 1 else (nn % b) * pow(a, -1, b) % b
    bmax = n // s1
    if bmax < r:
        return None
    b1 = bmax - ((bmax - r) % b)
    b2 = (n - b1 * s1) // s2
    return b1, b2, b1 // b, b, a


def fill_limit(o: np.ndarray, c: np.ndarray, size: int) -> int:
    """b^*(S): the largest b with sum_i min(o_i, b c_i) >= b S (FC for size S holds iff b <= b^*)."""
    return int(fill_limits(o, np.asarray(c)[:, None], np.array([size]))[0])


def fill_limits(o: np.ndarray, c_all: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """`fill_limit` of every size at once: ``c_all[:, j]`` the caps of ``sizes[j]``. g(b) =
    sum_i min(o_i, b c_i) - b S is >= 0 exactly on [0, b^*]: a binary search per size, its steps
    taken for all sizes together (one array operation per step)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    lo = np.zeros(sizes.size, dtype=np.int64)
    hi = int(o.sum()) // sizes
    live = lo < hi
    while live.any():
        mid = (lo + hi + 1) // 2
        ok = np.minimum(o[:, None], mid * c_all).sum(axis=0) >= mid * sizes
        lo = np.where(live & ok, mid, lo)
        hi = np.where(live & ~ok, mid - 1, hi)
        live = lo < hi
    return lo


def _first_valid_scan(o, c1, c2, s1, s2, b1_0, b2_0, step1, step2, k_hi, stop_early):
    """Smallest k in 0..k_hi with (b1, b2) valid by Theorem 4.17 (vectorised chunks; None if none).

    Each chunk tests PC on every pair, FC only on the span of pairs where PC holds. With
    ``stop_early`` (Loss-pruning) the chunks grow from `_FIRST_WIDTH` pairs and the scan stops at
    the first valid pair; without it (No-pruning) every pair up to k_hi is evaluated."""
    m = max(o.size, 1)
    chunk = max(1, _CHUNK_ELEMENTS // m)
    b2_hi = b2_0 + k_hi * step2
    # int32 where every product and sum fits (halves the memory the scan streams through)
    big = int(c1.max(initial=0)) * b1_0 + int(c2.max(initial=0)) * b2_hi
    dt = np.int32 if max(big, int(o.max(initial=0)), b1_0 * s1, b2_hi * s2) < 2**31 - 1 else np.int64
    oc, c1c, c2c = o.astype(dt)[:, None], c1.astype(dt)[:, None], c2.astype(dt)[:, None]
    width = min(chunk, _FIRST_WIDTH) if stop_early else chunk
    first = None
    start = 0
    while start <= k_hi:
        k = np.arange(start, min(k_hi, start + width - 1) + 1, dtype=dt)
        b1 = (b1_0 - k * step1).astype(dt)
        b2 = (b2_0 + k * step2).astype(dt)
        u1 = c1c * b1
        u2 = c2c * b2
        tot = u1 + u2
        ok = (oc <= tot).all(axis=0)  # PC
        live = np.flatnonzero(ok)
        if live.size:  # FC only where PC holds
            lo, hi = live[0], live[-1] + 1
            okr = ok[lo:hi]
            okr &= np.minimum(oc, u1[:, lo:hi], out=tot[:, lo:hi]).sum(axis=0) >= b1[lo:hi].astype(np.int64) * s1
            okr &= np.minimum(oc, u2[:, lo:hi], out=tot[:, lo:hi]).sum(axis=0) >= b2[lo:hi].astype(np.int64) * s2
            hits = np.flatnonzero(okr)
            if hits.size and first is None:
                first = int(k[lo + hits[0]])
                if stop_early:
                    return first
        start += width
        width = min(chunk, width * 4)
    return first


def _pc_interval(o, c1, c2, b1_0, b2_0, step1, step2, lo, hi):
    """Intersect [lo, hi] with {k : o_i <= b1(k) c_i1 + b2(k) c_i2 for all i} (each PC_i linear in k)."""
    a = b1_0 * c1 + b2_0 * c2 - o  # PC_i at k = 0: a_i >= 0
    d = step2 * c2 - step1 * c1  # slope in k
    if np.any((d == 0) & (a < 0)):
        return lo, -1
    pos, neg = d > 0, d < 0
    if pos.any():  # k >= ceil(-a / d)
        lo = max(lo, int(np.max(-((a[pos]) // d[pos]))))
    if neg.any():  # k <= floor(a / -d)
        hi = min(hi, int(np.min(a[neg] // (-d[neg]))))
    return lo, hi


def two_size_core(
    o: np.ndarray, F: np.ndarray, max_size: int, pruning: str = "full"
) -> tuple[BucketSetting | None, int]:
    """``two_size`` on validated arrays; returns (BucketSetting or None, pairs evaluated)."""
    n = int(o.sum())
    present = o > 0
    o, F = o[present], F[present]
    max_size = min(max_size, n)  # no bucket holds more than the n records
    smin = smallest_size(F, o)
    sizes = np.arange(smin, max_size + 1)
    c_all = caps(F, sizes)  # c[:, S - smin] = floor(F_i S)
    best, best_loss, evaluated = None, None, 0
    # b*(S) of every size (Full-pruning's FC bounds; a lone size's check)
    b_star = fill_limits(o, c_all, sizes) if pruning == "full" or smin == max_size else None

    def limit(size):
        assert b_star is not None
        return int(b_star[size - smin])

    if smin == max_size:  # a single admissible size
        if n % smin == 0 and n // smin <= limit(smin):
            return BucketSetting([smin], [n // smin]), 1
        return None, 1
    for s1 in range(smin, max_size + 1):
        c1 = c_all[:, s1 - smin]
        for s2 in range(s1 + 1, max_size + 1):
            head = _pair_list(n, s1, s2)
            if head is None:
                continue
            b1_0, b2_0, K, step1, step2 = head
            loss0 = n - b1_0 - b2_0
            k_hi = K
            if pruning != "none" and best_loss is not None:
                # Lemma 5.25: only the prefix with loss0 + k (step1 - step2) < best_loss can improve
                k_hi = min(K, (best_loss - loss0 - 1) // (step1 - step2))
                if k_hi < 0:
                    continue
            c2 = c_all[:, s2 - smin]
            if pruning == "full":
                lo, hi = 0, k_hi
                # FC_1: b1 <= b1*  <=>  k >= ceil((b1_0 - b1*) / step1); FC_2: b2 <= b2*
                lo = max(lo, -((limit(s1) - b1_0) // step1))
                hi = min(hi, (limit(s2) - b2_0) // step2)
                if lo <= hi:
                    lo, hi = _pc_interval(o, c1, c2, b1_0, b2_0, step1, step2, lo, hi)
                evaluated += 1
                k = lo if lo <= hi else None
            else:
                k = _first_valid_scan(o, c1, c2, s1, s2, b1_0, b2_0, step1, step2, k_hi, stop_early=(pruning == "loss"))
                evaluated += k_hi + 1 if (pruning == "none" or k is None) else k + 1
            if k is None:
                continue
            loss = loss0 + k * (step1 - step2)
            if best_loss is None or loss < best_loss:
                best_loss = loss
                best = BucketSetting([s1, s2], [b1_0 - k * step1, b2_0 + k * step2])
    return best, evaluated


def two_size(counts: ArrayLike, F: ArrayLike, max_size: int = 50, pruning: str = "full") -> BucketSetting | None:
    """The optimal valid bucket setting with at most two sizes (TwoSizeBucketing).

    Parameters
    ----------
    counts : array of int
        Per-value record counts o_i.
    F : array of float
        Thresholds F_i in (0, 1] (e.g. from `fprivacy`).
    max_size : int
        Largest bucket size M.
    pruning : {"none", "loss", "full"}
        Search strategy (Section 5.1); all return the same optimum.

    Returns
    -------
    BucketSetting or None (no valid setting with sizes <= max_size).
    """
    max_size = check_max_size(max_size)
    o, F = prepare(counts, F, max_size)
    check_choice("pruning", pruning, PRUNINGS)
    return two_size_core(o, F, max_size, pruning)[0]
