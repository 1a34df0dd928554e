"""The mechanisms: uni-pert, independent uni-pert copies, and multi-pert.

Values are integer codes ``0..s-1`` of a domain of size ``s`` (the paper's 1..s shifted
by one). A *retention probability* ``p`` in (0, 1] keeps a value with probability ``p``
and otherwise replaces it by a uniform draw from the domain (uni-pert).

`MultiLevelPerturber` answers requests for copies at any retention probabilities, in any
order, with multi-pert: every copy is marginally a uni-pert copy (Theorem 2) and any set
of copies tells no more about the original than the best of them (Theorem 1). It keeps
only the released p's and, per tuple, the points where the tuple's value changes along
the chain of copies ordered by decreasing p (O(n + m) expected space, Lemma 2).

Randomness: every random decision uses one 64-bit word of the bit generator. The low 32
bits are the coin, compared with an integer threshold ``round(prob * 2**32)``; the high
32 bits give the uniform value ``(w * s) >> 32``. Both deviate from the exact
probabilities by at most ``s / 2**32`` (< 1.2e-8 for s = 50), far below Monte Carlo error
even at 10^10 trials.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_int, rng_from
from ._checks import CODE_DTYPE, check_cells, check_codes, check_p, check_ps, check_s

__all__ = ["CODE_DTYPE", "uv", "uni_pert", "independent_copies", "MultiLevelPerturber", "release_in_order"]

_TWO32 = 1 << 32
_MASK32 = np.uint64(_TWO32 - 1)
_SHIFT32 = np.uint64(32)
STORES = ("history", "dense")
MAX_DENSE_BYTES = 2**33  # the dense (naive) store's default limit: 8 GiB of copies


# ---------------------------------------------------------------------------------------
# the shared vectorised kernel: one 64-bit word per tuple and decision
# ---------------------------------------------------------------------------------------
def threshold(prob: float) -> np.uint64:
    """Integer threshold t with Pr[coin < t] = prob (to 2**-32) for a uniform 32-bit coin."""
    return np.uint64(min(_TWO32, max(0, int(round(prob * _TWO32)))))


def split_words(words: np.ndarray, s: int) -> tuple[np.ndarray, np.ndarray]:
    """(coin, uniform value) from 64-bit words: low 32 bits, and (high 32 bits * s) >> 32."""
    coin = words & _MASK32
    high = words >> _SHIFT32
    high *= np.uint64(s)  # < 2**63: in place, no temporaries
    high >>= _SHIFT32
    return coin, high.astype(CODE_DTYPE)


def random_words(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` raw 64-bit words of the generator's bit stream."""
    return np.asarray(rng.bit_generator.random_raw(n), dtype=np.uint64)


def _perturb_from(y_l: np.ndarray, p_ratio: float, s: int, words: np.ndarray) -> np.ndarray:
    """Keep ``y_l`` with probability ``p_ratio``, else a uniform value (uni-pert step)."""
    coin, value = split_words(words, s)
    return np.where(coin < threshold(p_ratio), y_l, value)


def uv(p: float, p_l: float, p_r: float, s: int) -> tuple[float, float, float, float]:
    """multi-pert's (u, v) when y_l = y_r and when y_l != y_r (Equations 3 and 4).

    Parameters
    ----------
    p : float
        Retention probability of the new copy.
    p_l, p_r : float
        The released retention probabilities just above and just below ``p``.
    s : int
        Domain size.

    Returns
    -------
    tuple of float
        ``(u_eq, v_eq, u_ne, v_ne)``: keep y_l with probability u, y_r with probability
        v, otherwise draw uniformly.
    """
    p, p_l, p_r = check_p(p), check_p(p_l, "p_l"), check_p(p_r, "p_r")
    s = check_s(s)
    if not p_r < p < p_l:
        raise PrivlabError(f"uv needs p_r < p < p_l (the released p's around p), got {p_r:g}, {p:g}, {p_l:g}")
    u_eq = p / p_l
    v_eq = (1.0 - p / p_l) * (1.0 - (1.0 - p_r / p) / ((s - 1) * p_r / p_l + 1.0))
    u_ne = (p - p_r) / (p_l - p_r)
    v_ne = p_r * (p_l - p) / (p * (p_l - p_r))
    return u_eq, v_eq, u_ne, v_ne


def _perturb_between(
    y_l: np.ndarray, y_r: np.ndarray, p: float, p_l: float, p_r: float, s: int, words: np.ndarray
) -> np.ndarray:
    """Draw the new copy from its conditional law given its two chain neighbours."""
    u_eq, v_eq, u_ne, v_ne = uv(p, p_l, p_r, s)
    coin, out = split_words(words, s)  # out: the uniform values, overwritten where a neighbour is kept
    eq = y_l == y_r
    # keep y_l below threshold(u), y_r below threshold(u + v) (u, v >= 0: the first lies below the second),
    # else the uniform value; where y_l = y_r both keeps are one value, decided by threshold(u + v) alone
    np.copyto(out, y_r, where=np.where(eq, coin < threshold(u_eq + v_eq), coin < threshold(u_ne + v_ne)))
    keep_l = coin < threshold(u_ne)
    keep_l &= ~eq  # where y_l = y_r the rule is threshold(u + v) alone (u_ne <= u_eq + v_eq as computed, but not shown)
    np.copyto(out, y_l, where=keep_l)
    return out


# ---------------------------------------------------------------------------------------
# uni-pert and the naive baseline
# ---------------------------------------------------------------------------------------
def uni_pert(x: Any, p: float, domain_size: int, seed: Any = 0) -> np.ndarray:
    """Uniform perturbation of every value of ``x`` at retention probability ``p``.

    Parameters
    ----------
    x : array of int
        Codes 0..domain_size-1.
    p : float
        Retention probability in (0, 1].
    domain_size : int
        s >= 2.
    seed : int, SeedSequence or Generator

    Returns
    -------
    ndarray of int32
        y with Pr[y = x] = p + (1-p)/s and Pr[y = z] = (1-p)/s for z != x.
    """
    s = check_s(domain_size)
    codes = check_codes(x, s)
    p = check_p(p)
    rng = rng_from(seed)
    return _perturb_from(codes, p, s, random_words(rng, codes.size))


def independent_copies(x: Any, ps: Any, domain_size: int, seed: Any = 0) -> np.ndarray:
    """The naive baseline: one independent uni-pert copy of ``x`` per retention probability.

    Parameters
    ----------
    x : array of int
        Codes 0..domain_size-1.
    ps : sequence of float
        Retention probabilities, each in (0, 1].
    domain_size : int
        s >= 2.
    seed : int, SeedSequence or Generator

    Returns
    -------
    ndarray of int32, shape (len(ps), len(x))
    """
    s = check_s(domain_size)
    checked = check_ps(ps)
    n = np.asarray(x).size
    check_cells(f"independent_copies: {len(checked):,} copies x {n:,} tuples", len(checked) * n)
    codes = check_codes(x, s)
    rng = rng_from(seed)
    return np.stack([_perturb_from(codes, p, s, random_words(rng, codes.size)) for p in checked])


# ---------------------------------------------------------------------------------------
# multi-pert
# ---------------------------------------------------------------------------------------
class MultiLevelPerturber:
    """Releases perturbed copies of one table at any retention probabilities, in any order.

    Parameters
    ----------
    x : array of int
        The original values (codes 0..domain_size-1), one per tuple.
    domain_size : int
        s >= 2.
    seed : int, SeedSequence or Generator
    store : {"history", "dense"}
        "history" (default) keeps the sorted released p's and per-tuple change points
        (O(n + m) expected space); "dense" keeps every released copy (the naive O(n m)
        store). Both release identical copies for a seed, through the same kernel.
    max_bytes : int
        The dense store refuses a release that would make its copies exceed this many
        bytes (default `MAX_DENSE_BYTES`, 8 GiB); the history store ignores it.

    Notes
    -----
    History layout (store="history"): entries of tuple t are
    ``_hp[_starts[t]:_starts[t+1]]`` (p of the version where the value changes, in
    decreasing order, first 1.0 for the original) and ``_hy[...]`` (the value from that
    version down to the next entry). The copy at a released q takes, per tuple, the
    value of the last entry with p >= q.
    """

    def __init__(
        self, x: Any, domain_size: int, seed: Any = 0, store: str = "history", max_bytes: int = MAX_DENSE_BYTES
    ) -> None:
        self.s = check_s(domain_size)
        codes = check_codes(x, self.s)
        if store not in STORES:
            raise PrivlabError(f"store must be one of {', '.join(STORES)}; got {store!r}")
        self.store = store
        self.max_bytes = check_int("max_bytes", max_bytes, low=0)
        self.n = codes.size
        self._rng = rng_from(seed)
        self._released: list[float] = []  # ascending, for bisect
        self._x = codes
        self._copies: dict[float, np.ndarray] = {}
        history = store == "history"  # the dense store keeps copies instead
        self._hp = np.ones(self.n if history else 0)
        self._hy = codes.copy() if history else codes[:0].copy()
        self._starts = np.arange(self.n + 1 if history else 0, dtype=np.int64)
        # working memory reused from release to release (fresh arrays of this size cost page faults):
        # the buffers the next insertion writes the history into, and the running count's
        self._spare: tuple[np.ndarray, np.ndarray] | None = None
        self._running = np.empty(0, dtype=np.int32)

    # -- bookkeeping ----------------------------------------------------------------
    @property
    def released(self) -> list[float]:
        """The released retention probabilities, in decreasing order (p_1 >= ... >= p_m)."""
        return self._released[::-1]

    @property
    def m(self) -> int:
        """The number of distinct released retention probabilities."""
        return len(self._released)

    def change_points(self) -> int:
        """Number of stored change points (history entries beyond each tuple's original value)."""
        if self.store == "history":
            return int(self._hp.size - self.n)
        return 0

    def stored_bytes(self) -> int:
        """Bytes of the released-p list and the history (or, dense store, of every copy),
        not counting the original data that both stores need."""
        plist = 8 * len(self._released)
        if self.store == "history":
            changes = self.change_points()
            return plist + changes * (self._hp.itemsize + self._hy.itemsize) + self._starts.nbytes
        return plist + sum(c.nbytes for c in self._copies.values())

    # -- reconstruction ---------------------------------------------------------------
    def _value_at(self, q: float) -> np.ndarray:
        if q == 1.0:
            return self._x
        if self.store == "dense":
            return self._copies[q]
        return self._hy[self._last_at_or_above(q)]

    def _last_at_or_above(self, q: float) -> np.ndarray:
        """Per tuple, the index of its last history entry with p >= q (its value at q).

        Entries with p >= q form a prefix of every tuple's decreasing list, which starts at
        1.0 >= q: the index is the tuple's start plus its count of such entries, minus one.
        """
        # a running count read at the list ends: one pass, several times faster than reduceat over short lists
        size = self._hp.size + 1
        dtype = np.int32 if size <= 2**31 else np.int64
        if self._running.size < size or self._running.dtype != dtype:
            self._running = np.empty(_capacity(size), dtype=dtype)
        running = self._running[:size]
        running[0] = 0
        np.cumsum(self._hp >= q, out=running[1:])
        at_ends = running[self._starts]
        return self._starts[:-1] + np.diff(at_ends) - 1

    def version(self, p: float) -> np.ndarray:
        """The copy released earlier at retention ``p`` (reconstructed from the history)."""
        p = check_p(p)
        i = bisect.bisect_left(self._released, p)
        if i == len(self._released) or self._released[i] != p:
            have = ", ".join(f"{q:g}" for q in self.released) or "none"
            raise PrivlabError(f"p = {p:g} was never released; released: {have}")
        return self._value_at(p).copy()

    # -- release ----------------------------------------------------------------------
    def release(self, p: float) -> np.ndarray:
        """The copy for a new recipient at retention ``p`` (multi-pert).

        Asking again for an earlier p returns that same copy.
        """
        p = check_p(p)
        asc = self._released
        i = bisect.bisect_left(asc, p)
        if i < len(asc) and asc[i] == p:
            return self._value_at(p).copy()
        if self.store == "dense" and p != 1.0:
            after = (len(self._copies) + 1) * self.n * np.dtype(CODE_DTYPE).itemsize
            if after > self.max_bytes:
                raise PrivlabError(
                    f"the dense store would hold {after:,} bytes of copies after this release, "
                    f"above max_bytes = {self.max_bytes:,}"
                )
        p_l = asc[i] if i < len(asc) else 1.0  # smallest released p above p
        p_r = asc[i - 1] if i > 0 else None  # largest released p below p
        if p == 1.0:  # the original itself: nothing to draw
            y = self._x.copy()
        elif self.store == "dense":
            y_l = self._value_at(p_l)
            words = random_words(self._rng, self.n)
            if p_r is None:
                y = _perturb_from(y_l, p / p_l, self.s, words)
            else:
                y = _perturb_between(y_l, y_r=self._value_at(p_r), p=p, p_l=p_l, p_r=p_r, s=self.s, words=words)
            self._copies[p] = y
        else:
            # one scan finds both neighbours: y_r's entry, if any, is the next after y_l's (no released p
            # lies between p_r and p_l), and the new entries go right after y_l's
            last_l = self._last_at_or_above(p_l)
            nxt = last_l + 1
            y_l = self._hy[last_l]
            words = random_words(self._rng, self.n)
            if p_r is None:
                y_r = None
                y = _perturb_from(y_l, p / p_l, self.s, words)
            else:
                # the entry after y_l's belongs to the next tuple when y_r inherits y_l's value; that one
                # starts with p = 1.0 > p_r, so equality alone decides (only the last tuple's can run past the end)
                y_r = self._hy[last_l + (np.take(self._hp, nxt, mode="clip") == p_r)]
                y = _perturb_between(y_l, y_r, p, p_l, p_r, self.s, words)
            self._record(p, p_r, y, y_l, y_r, nxt)
        asc.insert(i, p)
        return y.copy()

    def _record(
        self, p: float, p_r: float | None, y: np.ndarray, y_l: np.ndarray, y_r: np.ndarray | None, pos: np.ndarray
    ) -> None:
        """Insert version p into every tuple's change-point list, keeping it minimal.

        ``pos`` is, per tuple, the position after its entries with p_e > p.
        """
        starts = self._starts
        changed = y != y_l
        if p_r is None or y_r is None:
            add_new, add_r, retag = changed, np.zeros_like(changed), np.zeros_like(changed)
        else:
            had_r = y_r != y_l  # an entry (p_r, y_r) exists exactly when y_r differs from y_l
            retag = changed & had_r & (y == y_r)  # (p_r, y_r) becomes (p, y_r)
            add_new = changed & ~retag  # a new change at p
            add_r = changed & ~had_r  # p_r no longer inherits the value from above
        if retag.any():
            self._hp[pos[retag]] = p
        t_new = np.flatnonzero(add_new)
        t_r = np.flatnonzero(add_r)
        # np.insert keeps the given order for equal indices: (p, y) lands before (p_r, y_r)
        idx = np.concatenate([pos[t_new], pos[t_r]])
        hp_vals = np.concatenate([np.full(t_new.size, p), np.full(t_r.size, p_r if p_r is not None else 0.0)])
        hy_vals = np.concatenate([y[t_new], y_r[t_r] if y_r is not None else y[t_r]])
        size = self._hp.size + idx.size
        if self._spare is None or self._spare[0].size < size:
            self._spare = (np.empty(_capacity(size)), np.empty(_capacity(size), dtype=self._hy.dtype))
        into = (self._spare[0][:size], self._spare[1][:size])
        old = (self._hp.base, self._hy.base)  # the buffers being read: the next insertion's spares
        self._hp, self._hy = _insert_at(idx, (self._hp, hp_vals), (self._hy, hy_vals), out=into)
        self._spare = (old[0], old[1]) if old[0] is not None and old[1] is not None else None
        inc = add_new.view(np.int8) + add_r.view(np.int8)  # entries added per tuple: 0, 1 or 2
        starts[1:] += np.cumsum(inc, dtype=np.int64)


def _capacity(size: int) -> int:
    """Room for ``size`` entries and an eighth more: a growing history reallocates rarely."""
    return size + size // 8 + 1024


def _insert_at(
    idx: np.ndarray, *pairs: tuple[np.ndarray, np.ndarray], out: Sequence[np.ndarray] | None = None
) -> list[np.ndarray]:
    """``np.insert(array, idx, values)`` for each (array, values) pair, the placement found once.

    Like `np.insert`, values at equal indices keep their given order. ``out``: one array per pair,
    of the merged size and not overlapping its inputs, to write into instead of fresh arrays.
    """
    order = np.argsort(idx, kind="stable")
    new_at = np.empty(idx.size, dtype=np.int64)
    new_at[order] = idx[order] + np.arange(idx.size)
    old = np.ones(pairs[0][0].size + idx.size, dtype=bool)
    old[new_at] = False
    merged_all = []
    for i, (array, values) in enumerate(pairs):
        merged = np.empty(old.size, dtype=array.dtype) if out is None else out[i]
        merged[old] = array
        merged[new_at] = values
        merged_all.append(merged)
    return merged_all


def release_in_order(x: Any, ps: Any, domain_size: int, seed: Any = 0, store: str = "history") -> np.ndarray:
    """multi-pert copies of ``x`` requested at ``ps`` in the order given.

    Parameters
    ----------
    x : array of int
        Codes 0..domain_size-1.
    ps : sequence of float
        Retention probabilities in request order, each in (0, 1].
    domain_size : int
        s >= 2.
    seed : int, SeedSequence or Generator
    store : {"history", "dense"}
        See `MultiLevelPerturber`.

    Returns
    -------
    ndarray of int32, shape (len(ps), len(x))
    """
    checked = check_ps(ps)
    n = np.asarray(x).size
    check_cells(f"release_in_order: {len(checked):,} copies x {n:,} tuples", len(checked) * n)
    perturber = MultiLevelPerturber(x, domain_size, seed, store=store)
    return np.stack([perturber.release(p) for p in checked])
