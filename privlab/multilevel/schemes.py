"""Perturbation schemes as configurable mechanisms, and the adversary who pools copies (Figure 7).

A scheme (mechanism kind ``perturbation``, ``conf/mechanism/``) answers requests at the
retention probabilities ``ps`` in order, and knows its own law well enough to give

- ``release(x, ps, domain_size, seed)``: the copies, shape (k, n);
- ``pooled_confidence(x, copies, ps, domain_size)``: for j = 1..k, the adversary's
  posterior Pr[X = x_true | the first j copies] per tuple, for a uniform prior on X;
- ``expected_confidence(ps, domain_size)``: the exact expectation of that posterior
  after pooling all of ``ps``.

`confidence_curves` estimates the expectation for every scheme and every j by Monte Carlo,
chunk by chunk through the caller's ``map_fn``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from .._validation import MapFn, PrivlabError, SeedSequenceFn, check_int, check_mapping, map_in_order
from ._checks import (
    MAX_CELLS,
    MAX_CHUNKS,
    as_seed_sequence,
    check_cells,
    check_codes,
    check_ps,
    check_s,
    check_trials,
    child_seed,
)
from .exact import expected_confidence_independent, expected_confidence_single
from .montecarlo import sample_prior
from .perturbation import STORES, independent_copies, release_in_order

__all__ = [
    "PerturbationScheme",
    "IndependentCopies",
    "MultiPert",
    "confidence_chunk",
    "confidence_curves",
    "confidence_table",
]


def _check_copies(copies: Any, k: int, n: int, s: int) -> np.ndarray:
    """Released copies: codes 0..s-1 of shape (k, n), one row per retention probability."""
    arr = np.asarray(copies)
    if arr.shape != (k, n):
        raise PrivlabError(f"copies must have shape (len(ps), len(x)) = ({k}, {n}), got {arr.shape}")
    return check_codes(arr.reshape(-1), s, "copies").reshape(k, n)


class PerturbationScheme(Protocol):
    """What a mechanism of kind ``perturbation`` provides."""

    def release(self, x: Any, ps: Any, domain_size: int, seed: Any) -> np.ndarray: ...

    def pooled_confidence(self, x: Any, copies: np.ndarray, ps: Any, domain_size: int) -> list[np.ndarray]: ...

    def expected_confidence(self, ps: Any, domain_size: int) -> float: ...


class IndependentCopies:
    """The naive scheme: an independent uni-pert copy for every request.

    Pooled copies multiply their likelihoods, so every copy adds to the adversary's
    confidence.
    """

    def release(self, x: Any, ps: Any, domain_size: int, seed: Any) -> np.ndarray:
        """Independent uni-pert copies, shape (len(ps), len(x))."""
        return independent_copies(x, ps, domain_size, seed)

    def pooled_confidence(self, x: Any, copies: np.ndarray, ps: Any, domain_size: int) -> list[np.ndarray]:
        """Pr[X = x_true | copies 1..j] per tuple, j = 1..k: the normalised product of the
        uni-pert likelihoods (uniform prior)."""
        s, checked = check_s(domain_size), check_ps(ps)
        truth = check_codes(x, s)
        n = truth.size
        if n * s > MAX_CELLS:
            raise PrivlabError(f"{n:,} tuples x domain_size {s} likelihoods exceed {MAX_CELLS:,} cells of memory")
        copies = _check_copies(copies, len(checked), n, s)
        if max(checked) == 1.0:
            raise PrivlabError("ps must be below 1 for independent copies (p = 1 releases the original)")
        base = np.arange(n) * s  # cell (t, v) of the n x s tables is base[t] + v
        loglik = np.zeros(n * s)
        top = np.zeros(n)  # each row's largest log-likelihood: they only grow from 0
        post = np.empty((n, s))
        flat = post.reshape(-1)
        cells = [base + y for y in copies]
        out = []
        for j, (p, cell) in enumerate(zip(checked, cells), start=1):
            loglik[cell] += math.log((p + (1 - p) / s) / ((1 - p) / s))
            np.maximum(top, loglik[cell], out=top)
            # exp(loglik - top) cell by cell, as one exp over the table gives it: a value no copy
            # named holds 0 - top = -top; only the (at most j) named ones need their own exp
            post[:] = np.exp(-top)[:, None]
            for named in cells[:j]:
                flat[named] = np.exp(loglik[named] - top)
            out.append(flat[base + truth] / post.sum(axis=1))
        return out

    def expected_confidence(self, ps: Any, domain_size: int) -> float:
        """Exact expected confidence after pooling independent copies at ``ps``."""
        return expected_confidence_independent(ps, domain_size)


class MultiPert:
    """multi-pert: copies drawn along one chain (`MultiLevelPerturber`).

    By Lemma 1 the copies' likelihood factorises along the chain and only the factor of
    the highest-p copy depends on X: the pooled posterior is the best copy's.

    Parameters
    ----------
    store : {"history", "dense"}
        The perturber's store (identical copies for a seed).
    """

    def __init__(self, store: str = "history") -> None:
        if store not in STORES:
            raise PrivlabError(f"store must be one of {', '.join(STORES)}; got {store!r}")
        self.store = store

    def release(self, x: Any, ps: Any, domain_size: int, seed: Any) -> np.ndarray:
        """multi-pert copies requested at ``ps`` in order, shape (len(ps), len(x))."""
        return release_in_order(x, ps, domain_size, seed, store=self.store)

    def pooled_confidence(self, x: Any, copies: np.ndarray, ps: Any, domain_size: int) -> list[np.ndarray]:
        """Pr[X = x_true | copies 1..j] per tuple, j = 1..k: the best copy's uni-pert
        likelihood (with a uniform prior the posterior equals the likelihood)."""
        s, checked = check_s(domain_size), check_ps(ps)
        truth = check_codes(x, s)
        copies = _check_copies(copies, len(checked), truth.size, s)
        out = []
        for k in range(1, len(checked) + 1):
            best = int(np.argmax(checked[:k]))
            p = checked[best]
            out.append(np.where(copies[best] == truth, p + (1 - p) / s, (1 - p) / s))
        return out

    def expected_confidence(self, ps: Any, domain_size: int) -> float:
        """Exact expected confidence after pooling: that of the single best copy."""
        return expected_confidence_single(max(check_ps(ps)), domain_size)


# ---------------------------------------------------------------------------------------
# the Monte Carlo of Figure 7
# ---------------------------------------------------------------------------------------
def confidence_chunk(item: tuple[Sequence[PerturbationScheme], Any, int, int, Any]) -> np.ndarray:
    """One chunk of `confidence_curves`: ``(schemes, ps, s, n, seed)`` -> sums.

    X is drawn uniformly (seed child 0); scheme j releases its copies from seed child 1 + j.

    Returns
    -------
    ndarray, shape (len(schemes), len(ps), 2)
        Sum and sum of squares of the confidence over the chunk's tuples.
    """
    schemes, ps, s, n, seed = item
    s, n = check_s(s), check_int("n", n, low=1)
    check_cells(f"confidence_chunk: {n:,} tuples x domain_size {s:,} likelihoods", n * s)
    ss = as_seed_sequence(seed)
    x = sample_prior(np.full(s, 1.0 / s), n, child_seed(ss, 0))
    out = np.empty((len(schemes), len(ps), 2))
    for j, scheme in enumerate(schemes):
        copies = scheme.release(x, ps, s, child_seed(ss, 1 + j))
        for k, conf in enumerate(scheme.pooled_confidence(x, copies, ps, s)):
            out[j, k] = conf.sum(), (conf**2).sum()
    return out


def confidence_curves(
    schemes: Sequence[PerturbationScheme],
    ps: Any,
    domain_size: int,
    trials: int,
    *,
    chunk: int,
    seed: Any,
    map_fn: MapFn | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo of the adversary's expected confidence after pooling the first j copies.

    Parameters
    ----------
    schemes : sequence of PerturbationScheme
    ps : sequence of float
        Retention probabilities in request order (k copies).
    domain_size : int
        s >= 2.
    trials : int
        Tuples simulated (X uniform on the domain).
    chunk : int
        Tuples per chunk; chunk c uses the seed's child c.
    seed : int or SeedSequence
    map_fn : callable, optional
        ``map_fn(fn, items)``, possibly parallel (``ctx.map``); serial by default.

    Returns
    -------
    (mean, se) : ndarrays of shape (len(schemes), k)
        The estimate for j = 1..k pooled copies and its standard error.
    """
    s, checked, trials = check_s(domain_size), check_ps(ps), check_trials(trials)
    chunk = check_int("chunk", chunk, low=1)
    check_cells(f"confidence_curves: chunk of {chunk:,} tuples x domain_size {s:,} likelihoods", min(chunk, trials) * s)
    chunks = -(-trials // chunk)
    check_cells(f"confidence_curves: {trials:,} trials in chunks of {chunk:,} (raise chunk)", chunks, MAX_CHUNKS)
    if not schemes:
        raise PrivlabError("schemes must hold at least one perturbation scheme")
    ss = as_seed_sequence(seed)
    items = [
        (list(schemes), checked, s, min(chunk, trials - c * chunk), child_seed(ss, c))
        for c in range(-(-trials // chunk))
    ]
    parts = map_in_order(confidence_chunk, items, map_fn)
    total = parts[0].copy()
    for part in parts[1:]:
        total += part  # in chunk order, whatever the workers
    mean = total[..., 0] / trials
    var = np.maximum(total[..., 1] / trials - mean**2, 0.0)
    return mean, np.sqrt(var / trials)


def confidence_table(
    schemes: Mapping[str, PerturbationScheme],
    ps: Any,
    domain_size: int,
    trials: int,
    *,
    chunk: int,
    seed_sequence: SeedSequenceFn,
    map_fn: MapFn | None = None,
) -> pd.DataFrame:
    """Figure 7: every scheme's expected confidence after pooling k = 1..len(ps) copies, exact and MC.

    Parameters
    ----------
    schemes : mapping
        The table's ``scheme`` label -> its PerturbationScheme, in the table's order.
    ps, domain_size, trials, chunk, map_fn
        As in `confidence_curves` (which draws the Monte Carlo).
    seed_sequence : callable
        ``seed_sequence(*key) -> SeedSequence`` (``ctx.seed_sequence``); the Monte Carlo is seeded
        by ``seed_sequence("fig7")``: chunk c by its child c, X by the chunk's child 0, scheme j by 1 + j.

    Returns
    -------
    DataFrame
        One row per (scheme, k): p_k, the best p among the first k, the exact expectation
        (``exact``, the scheme's `expected_confidence`), its Monte Carlo estimate ``mc`` with
        ``mc_se``, and the trials.
    """
    check_mapping("schemes", schemes)
    checked = check_ps(ps)
    seed = seed_sequence("fig7")
    mean, se = confidence_curves(
        list(schemes.values()), checked, domain_size, trials, chunk=chunk, seed=seed, map_fn=map_fn
    )
    rows = []
    for j, (label, scheme) in enumerate(schemes.items()):
        for k in range(1, len(checked) + 1):
            exact = scheme.expected_confidence(checked[:k], domain_size)
            rows.append({"scheme": label, "k": k, "p_k": checked[k - 1], "best_p": max(checked[:k]), "exact": exact})
            rows[-1].update(mc=mean[j, k - 1], mc_se=se[j, k - 1], trials=trials)
    return pd.DataFrame(rows)
