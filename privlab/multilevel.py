"""Random perturbation at multiple privacy levels (Xiao, Tao, Chen, VLDB 2009; seed 001).

Values are integer codes ``0..s-1`` of a domain of size ``s`` (the paper's 1..s shifted
by one). A *retention probability* ``p`` in (0, 1] keeps a value with probability ``p``
and otherwise replaces it by a uniform draw from the domain (uni-pert).

``MultiLevelPerturber`` answers requests for copies at any retention probabilities, in
any order, with multi-pert: every copy is marginally a uni-pert copy (Theorem 2) and any
set of copies tells no more about the original than the best of them (Theorem 1). It
keeps only the released p's and, per tuple, the points where the tuple's value changes
along the chain of copies ordered by decreasing p (O(n + m) expected space, Lemma 2).

The exact analysis (`exact_joint`, `posterior`, ...) is computed from the Markov chain
X -> Y(p_(1)) -> Y(p_(2)) -> ... of Lemma 1 (copies sorted by decreasing p, step i a
uni-pert with retention p_(i)/p_(i-1)); it shares no code with the mechanism, so
agreement between the two checks the mechanism's u/v formulas.

Randomness: every random decision uses one 64-bit word of the bit generator. The low
32 bits are the coin, compared with an integer threshold ``round(prob * 2**32)``; the
high 32 bits give the uniform value ``(w * s) >> 32``. Both deviate from the exact
probabilities by at most ``s / 2**32`` (< 1.2e-8 for s = 50), far below Monte Carlo
error even at 10^10 trials.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from ._validation import PrivlabError, check_array, check_distribution, check_int, check_real, rng_from

_TWO32 = 1 << 32
_MASK32 = np.uint64(_TWO32 - 1)
_SHIFT32 = np.uint64(32)
CODE_DTYPE = np.int32


# ---------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------
def _check_p(p, name: str = "p") -> float:
    return check_real(name, p, low=0.0, high=1.0, low_open=True)


def _check_s(domain_size) -> int:
    return check_int("domain_size", domain_size, low=2, high=2**31 - 1)


def _check_codes(x, s: int, name: str = "x") -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind == "f":
        if arr.size and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
            raise PrivlabError(f"{name} must hold integer codes 0..{s - 1}, got non-integer values")
    arr = check_array(name, arr, ndim=1, dtype=np.int64, min_size=0)
    if arr.size and (arr.min() < 0 or arr.max() >= s):
        bad = np.flatnonzero((arr < 0) | (arr >= s))[:5].tolist()
        raise PrivlabError(f"{name} must hold codes 0..{s - 1} (domain_size {s}); outside at positions {bad}")
    return arr.astype(CODE_DTYPE)


def _check_ps(ps, name: str = "ps") -> list[float]:
    arr = check_array(name, ps, ndim=1, dtype=float, min_size=1)
    return [_check_p(v, f"{name}[{i}]") for i, v in enumerate(arr.tolist())]


# ---------------------------------------------------------------------------------------
# the shared vectorised kernel: one 64-bit word per tuple and decision
# ---------------------------------------------------------------------------------------
def _threshold(prob: float) -> np.uint64:
    """Integer threshold t with Pr[coin < t] = prob (to 2**-32) for a uniform 32-bit coin."""
    return np.uint64(min(_TWO32, max(0, int(round(prob * _TWO32)))))


def _split(words: np.ndarray, s: int):
    """(coin, uniform value) from 64-bit words: low 32 bits, and (high 32 bits * s) >> 32."""
    coin = words & _MASK32
    value = (((words >> _SHIFT32) * np.uint64(s)) >> _SHIFT32).astype(CODE_DTYPE)
    return coin, value


def _perturb_from(y_l: np.ndarray, p_ratio: float, s: int, words: np.ndarray) -> np.ndarray:
    """Keep ``y_l`` with probability ``p_ratio``, else a uniform value (uni-pert step)."""
    coin, value = _split(words, s)
    return np.where(coin < _threshold(p_ratio), y_l, value)


def uv(p: float, p_l: float, p_r: float, s: int) -> tuple[float, float, float, float]:
    """multi-pert's (u, v) when y_l = y_r and when y_l != y_r (Equations 3 and 4).

    Returns ``(u_eq, v_eq, u_ne, v_ne)``: keep y_l with probability u, y_r with
    probability v, otherwise draw uniformly.
    """
    u_eq = p / p_l
    v_eq = (1.0 - p / p_l) * (1.0 - (1.0 - p_r / p) / ((s - 1) * p_r / p_l + 1.0))
    u_ne = (p - p_r) / (p_l - p_r)
    v_ne = p_r * (p_l - p) / (p * (p_l - p_r))
    return u_eq, v_eq, u_ne, v_ne


def _perturb_between(y_l, y_r, p, p_l, p_r, s, words) -> np.ndarray:
    """Draw the new copy from its conditional law given its two chain neighbours."""
    u_eq, v_eq, u_ne, v_ne = uv(p, p_l, p_r, s)
    coin, value = _split(words, s)
    eq = y_l == y_r
    t_u = np.where(eq, _threshold(u_eq), _threshold(u_ne))
    t_uv = np.where(eq, _threshold(u_eq + v_eq), _threshold(u_ne + v_ne))
    return np.where(coin < t_u, y_l, np.where(coin < t_uv, y_r, value))


def _words(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.bit_generator.random_raw(n)


# ---------------------------------------------------------------------------------------
# uni-pert and the naive baseline
# ---------------------------------------------------------------------------------------
def uni_pert(x, p, domain_size, seed=0) -> np.ndarray:
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
    ndarray of int32: y with Pr[y = x] = p + (1-p)/s, Pr[y = z] = (1-p)/s for z != x.
    """
    s = _check_s(domain_size)
    x = _check_codes(x, s)
    p = _check_p(p)
    rng = rng_from(seed)
    return _perturb_from(x, p, s, _words(rng, x.size))


def uni_pert_matrix(p, domain_size) -> np.ndarray:
    """Transition matrix M[x, y] = Pr[Y = y | X = x] of uni-pert (the paper's formula)."""
    s = _check_s(domain_size)
    p = check_real("p", p, low=0.0, high=1.0)  # 0 allowed here: a pure uniform draw
    return np.full((s, s), (1.0 - p) / s) + p * np.eye(s)


def independent_copies(x, ps, domain_size, seed=0) -> np.ndarray:
    """The naive baseline: one independent uni-pert copy of ``x`` per retention probability.

    Returns an array of shape (len(ps), len(x)).
    """
    s = _check_s(domain_size)
    x = _check_codes(x, s)
    ps = _check_ps(ps)
    rng = rng_from(seed)
    return np.stack([_perturb_from(x, p, s, _words(rng, x.size)) for p in ps])


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
        store). Both release identically distributed copies through the same kernel.

    Notes
    -----
    History layout (store="history"): entries of tuple t are
    ``_hp[_starts[t]:_starts[t+1]]`` (p of the version where the value changes, in
    decreasing order, first 1.0 for the original) and ``_hy[...]`` (the value from that
    version down to the next entry). The copy at a released q takes, per tuple, the
    value of the last entry with p >= q.
    """

    def __init__(self, x, domain_size, seed=0, store: str = "history"):
        self.s = _check_s(domain_size)
        x = _check_codes(x, self.s)
        if store not in ("history", "dense"):
            raise PrivlabError(f"store must be one of history, dense; got {store!r}")
        self.store = store
        self.n = x.size
        self._rng = rng_from(seed)
        self._released: list[float] = []  # ascending, for bisect
        self._x = x
        if store == "history":
            self._hp = np.ones(self.n)
            self._hy = x.copy()
            self._starts = np.arange(self.n + 1, dtype=np.int64)
        else:
            self._copies: dict[float, np.ndarray] = {}

    # -- bookkeeping ----------------------------------------------------------------
    @property
    def released(self) -> list[float]:
        """The released retention probabilities, in decreasing order (p_1 >= ... >= p_m)."""
        return self._released[::-1]

    @property
    def m(self) -> int:
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
        # entries with p >= q form a prefix of every tuple's (decreasing) list
        count = np.add.reduceat((self._hp >= q).astype(np.int32), self._starts[:-1])
        return self._hy[self._starts[:-1] + count - 1]

    def version(self, p) -> np.ndarray:
        """The copy released earlier at retention ``p`` (reconstructed from the history)."""
        p = _check_p(p)
        i = bisect.bisect_left(self._released, p)
        if i == len(self._released) or self._released[i] != p:
            have = ", ".join(f"{q:g}" for q in self.released) or "none"
            raise PrivlabError(f"p = {p:g} was never released; released: {have}")
        return self._value_at(p).copy()

    # -- release ----------------------------------------------------------------------
    def release(self, p) -> np.ndarray:
        """The copy for a new recipient at retention ``p`` (multi-pert).

        Asking again for an earlier p returns that same copy.
        """
        p = _check_p(p)
        asc = self._released
        i = bisect.bisect_left(asc, p)
        if i < len(asc) and asc[i] == p:
            return self._value_at(p).copy()
        p_l = asc[i] if i < len(asc) else 1.0  # smallest released p above p
        p_r = asc[i - 1] if i > 0 else None  # largest released p below p
        if p == 1.0:  # the original itself: nothing to draw
            y = self._x.copy()
        else:
            y_l = self._value_at(p_l)
            words = _words(self._rng, self.n)
            if p_r is None:
                y = _perturb_from(y_l, p / p_l, self.s, words)
            else:
                y_r = self._value_at(p_r)
                y = _perturb_between(y_l, y_r, p, p_l, p_r, self.s, words)
            if self.store == "history":
                self._record(p, p_r, y, y_l, y_r if p_r is not None else None)
            else:
                self._copies[p] = y
        asc.insert(i, p)
        return y.copy()

    def _record(self, p, p_r, y, y_l, y_r) -> None:
        """Insert version p into every tuple's change-point list, keeping it minimal."""
        starts = self._starts
        changed = y != y_l
        # position after the tuple's entries with p_e > p (no entry lies strictly between p and p_r)
        pos = starts[:-1] + np.add.reduceat((self._hp > p).astype(np.int32), starts[:-1])
        if p_r is None:
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
        self._hp = np.insert(self._hp, idx, hp_vals)
        self._hy = np.insert(self._hy, idx, hy_vals)
        inc = add_new.astype(np.int64) + add_r.astype(np.int64)
        self._starts = starts + np.concatenate([[0], np.cumsum(inc)])


def release_in_order(x, ps, domain_size, seed=0, store: str = "history") -> np.ndarray:
    """multi-pert copies of ``x`` requested at ``ps`` in the order given; shape (len(ps), n)."""
    perturber = MultiLevelPerturber(x, domain_size, seed, store=store)
    return np.stack([perturber.release(p) for p in _check_ps(ps)])


# ---------------------------------------------------------------------------------------
# exact analysis from the chain (Lemma 1); no code shared with the mechanism
# ---------------------------------------------------------------------------------------
def _chain_matrix(q: float, s: int) -> np.ndarray:
    m = np.full((s, s), (1.0 - q) / s)
    m[np.diag_indices(s)] += q
    return m


def exact_joint(prior, ps, domain_size) -> np.ndarray:
    """Exact joint law of (X, Y_1, ..., Y_k) for copies requested at ``ps`` in that order.

    Returns an array of shape (s,) * (1 + k): axis 0 is X, axis i the copy of ps[i-1].
    Copies at equal p are the same copy.
    """
    s = _check_s(domain_size)
    prior = check_distribution("prior", prior)
    if prior.size != s:
        raise PrivlabError(f"prior must have domain_size = {s} entries, got {prior.size}")
    ps = _check_ps(ps)
    order = sorted(range(len(ps)), key=lambda i: -ps[i])  # chain order: decreasing p
    joint = prior.copy()
    prev = 1.0
    for i in order:
        t = _chain_matrix(ps[i] / prev, s)  # ps[i]/prev = 1 for a repeated p: identity
        joint = joint[..., None] * t.reshape((1,) * (joint.ndim - 1) + (s, s))
        prev = ps[i]
    # axes are (X, chain order); put copies back in request order
    axes = [0] + [1 + order.index(i) for i in range(len(ps))]
    return np.transpose(joint, axes)


def posterior(prior, ps, domain_size, observed: dict) -> np.ndarray:
    """Exact Pr[X = x | Y_i = y_i for i in observed], for all x.

    ``observed`` maps copy indices (into ``ps``) to observed codes; any subset works.
    """
    s = _check_s(domain_size)
    ps = _check_ps(ps)
    joint = exact_joint(prior, ps, s)
    index = [slice(None)]
    keep = []
    for i in range(len(ps)):
        if i in observed:
            y = check_int(f"observed[{i}]", observed[i], low=0, high=s - 1)
            index.append(y)
        else:
            index.append(slice(None))
            keep.append(i)
    for i in observed:
        check_int("observed copy index", i, low=0, high=len(ps) - 1)
    sub = joint[tuple(index)]
    post = sub.reshape(s, -1).sum(axis=1)
    total = post.sum()
    if total <= 0:
        raise PrivlabError("observed copies have probability 0 under this prior")
    return post / total


def copy_given_x(prior, ps, domain_size, i: int) -> np.ndarray:
    """Exact Pr[Y_i = y | X = x] as an s x s matrix [x, y] (rows with prior 0 are NaN)."""
    s = _check_s(domain_size)
    ps = _check_ps(ps)
    i = check_int("i", i, low=0, high=len(ps) - 1)
    joint = exact_joint(prior, ps, s)
    other = tuple(a for a in range(1, 1 + len(ps)) if a != i + 1)
    pair = joint.sum(axis=other) if other else joint
    with np.errstate(invalid="ignore", divide="ignore"):
        return pair / pair.sum(axis=1, keepdims=True)


def best_copy_posterior(prior, p, domain_size, y: int) -> np.ndarray:
    """Pr[X | Y = y] for a single uni-pert copy at retention p (Theorem 1's right side)."""
    s = _check_s(domain_size)
    prior = check_distribution("prior", prior)
    like = uni_pert_matrix(_check_p(p), s)[:, check_int("y", y, low=0, high=s - 1)]
    post = prior * like
    return post / post.sum()


# ---------------------------------------------------------------------------------------
# adversary's confidence in the true value (Figure 7), exact, uniform prior
# ---------------------------------------------------------------------------------------
def _set_partitions(k: int):
    """Every set partition of {0..k-1} as a list of blocks (restricted growth strings)."""

    def rec(i, blocks):
        if i == k:
            yield [list(b) for b in blocks]
            return
        for b in blocks:
            b.append(i)
            yield from rec(i + 1, blocks)
            b.pop()
        blocks.append([i])
        yield from rec(i + 1, blocks)
        blocks.pop()

    yield from rec(0, [])


def expected_confidence_independent(ps, domain_size) -> float:
    """Exact E[Pr[X = X_true | Y_1..Y_k]] for independent uni-pert copies, uniform prior on X.

    With a uniform prior the posterior depends only on which copies share a value, so
    the sum over the s^k outcomes is a sum over set partitions of the k copies:
    a partition with b blocks covers s!/(s-b)! outcomes.
    """
    s = _check_s(domain_size)
    ps = _check_ps(ps)
    k = len(ps)
    if k > 10:
        raise PrivlabError(f"ps may hold at most 10 copies for the exact sum (Bell number), got {k}")
    if max(ps) == 1.0:
        return 1.0  # a copy at p = 1 is the original
    b_i = np.array([(1 - p) / s for p in ps])
    ratio = np.array([(p + (1 - p) / s) / ((1 - p) / s) for p in ps])  # a_i / b_i
    bprod = float(np.prod(b_i))
    total = 0.0
    for blocks in _set_partitions(k):
        nb = len(blocks)
        if nb > s:
            continue
        # outcome with these blocks: Pr[x, y] = bprod/s * (r_j if x is block j's value else 1)
        r = np.array([np.prod(ratio[b]) for b in blocks])
        total += math.perm(s, nb) * bprod / s * ((r**2).sum() + (s - nb)) / (r.sum() + (s - nb))
    return float(total)


def expected_confidence_single(p, domain_size) -> float:
    """Exact E[Pr[X = X_true | Y]] for one uni-pert copy at retention p, uniform prior."""
    return expected_confidence_independent([p], domain_size)


# ---------------------------------------------------------------------------------------
# Monte Carlo of the collusion experiment through MultiLevelPerturber
# ---------------------------------------------------------------------------------------
def alias_table(prior) -> tuple[np.ndarray, np.ndarray]:
    """Walker/Vose alias table of ``prior`` with integer (32-bit) acceptance thresholds."""
    prior = check_distribution("prior", prior)
    s = prior.size
    scaled = prior * s
    accept = np.zeros(s)
    alias = np.arange(s)
    small = [i for i in range(s) if scaled[i] < 1.0]
    large = [i for i in range(s) if scaled[i] >= 1.0]
    while small and large:
        lo, hi = small.pop(), large.pop()
        accept[lo] = scaled[lo]
        alias[lo] = hi
        scaled[hi] = scaled[hi] + scaled[lo] - 1.0
        (small if scaled[hi] < 1.0 else large).append(hi)
    for i in small + large:
        accept[i] = 1.0
    thresholds = np.array([_threshold(a) for a in accept], dtype=np.uint64)
    return thresholds, alias.astype(CODE_DTYPE)


def sample_prior(prior, n, seed=0) -> np.ndarray:
    """``n`` codes drawn from ``prior`` (alias method, one 64-bit word per draw)."""
    thresholds, alias = alias_table(prior)
    n = check_int("n", n, low=0)
    words = _words(rng_from(seed), n)
    coin, cell = _split(words, thresholds.size)
    return np.where(coin < thresholds[cell], cell, alias[cell])


def collusion_counts_chunk(prior, ps, domain_size, n, seed, store: str = "history") -> np.ndarray:
    """One chunk of the collusion Monte Carlo: counts F[X, Y_1, ..., Y_k] (flattened, int64).

    ``n`` tuples are drawn from ``prior`` and form one table, which a `MultiLevelPerturber`
    perturbs at ``ps`` in the order given; every (X, copies) combination is counted.
    """
    s = _check_s(domain_size)
    ps = _check_ps(ps)
    n = check_int("n", n, low=1)
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(check_int("seed", seed, low=0))
    x_seed, pert_seed = ss.spawn(2)
    x = sample_prior(prior, n, x_seed)
    perturber = MultiLevelPerturber(x, s, pert_seed, store=store)
    flat = x.astype(np.int64)
    for p in ps:
        flat = flat * s + perturber.release(p)
    return np.bincount(flat, minlength=s ** (1 + len(ps)))


def check_trials(trials) -> int:
    """A trial count: a positive integer (1e10 from YAML accepted)."""
    return check_int("trials", trials, low=1)
