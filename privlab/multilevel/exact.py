"""Exact analysis from the chain of copies (Lemma 1); no code shared with the mechanism.

Copies sorted by decreasing p form the Markov chain X -> Y(p_(1)) -> Y(p_(2)) -> ..., step
i a uni-pert with retention p_(i)/p_(i-1). Every law the experiments plot follows from it
exactly: the joint of X and the copies, posteriors given any set of copies, each copy's
law given X, the adversary's expected confidence, and the expected number of change
points the history store keeps. Agreement between these and the mechanism's output
checks multi-pert's u/v formulas.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_distribution, check_int
from ..constraints import Real
from ..validation import validate_params
from ._checks import check_cells, check_p, check_ps, check_s

__all__ = [
    "uni_pert_matrix",
    "exact_joint",
    "posterior",
    "copy_given_x",
    "best_copy_posterior",
    "expected_confidence_independent",
    "expected_confidence_single",
    "independent_all_other",
    "expected_change_points",
]

MAX_EXACT_COPIES = 10  # the exact confidence sums over set partitions: Bell(10) = 115,975


@validate_params(p=Real(0, 1))
def uni_pert_matrix(p: float, domain_size: int) -> np.ndarray:
    """Transition matrix M[x, y] = Pr[Y = y | X = x] of uni-pert (the paper's formula).

    Parameters
    ----------
    p : float
        Retention probability in [0, 1] (0: a pure uniform draw).
    domain_size : int
        s >= 2.

    Returns
    -------
    ndarray, shape (s, s)
        At most ``MAX_CELLS`` cells (s <= 11,585).
    """
    s = check_s(domain_size)
    check_cells(f"uni_pert_matrix: domain_size {s:,} x {s:,}", s * s)
    return np.full((s, s), (1.0 - p) / s) + p * np.eye(s)


def _chain_matrix(q: float, s: int) -> np.ndarray:
    m = np.full((s, s), (1.0 - q) / s)
    m[np.diag_indices(s)] += q
    return m


def exact_joint(prior: Any, ps: Any, domain_size: int) -> np.ndarray:
    """Exact joint law of (X, Y_1, ..., Y_k) for copies requested at ``ps`` in that order.

    Parameters
    ----------
    prior : array of float
        The law of X on 0..s-1.
    ps : sequence of float
        Retention probabilities in request order; copies at equal p are the same copy.
    domain_size : int
        s >= 2.

    Returns
    -------
    ndarray, shape (s,) * (1 + k)
        Axis 0 is X, axis i the copy of ``ps[i-1]``; at most ``MAX_CELLS`` cells.
    """
    s = check_s(domain_size)
    checked = check_ps(ps)
    check_cells(f"exact_joint: domain_size {s:,} to the power 1 + {len(checked)} copies", s ** (1 + len(checked)))
    law = check_distribution("prior", prior)
    if law.size != s:
        raise PrivlabError(f"prior must have domain_size = {s} entries, got {law.size}")
    order = sorted(range(len(checked)), key=lambda i: -checked[i])  # chain order: decreasing p
    joint = law.copy()
    prev = 1.0
    for i in order:
        t = _chain_matrix(checked[i] / prev, s)  # checked[i]/prev = 1 for a repeated p: identity
        joint = joint[..., None] * t.reshape((1,) * (joint.ndim - 1) + (s, s))
        prev = checked[i]
    # axes are (X, chain order); put copies back in request order
    axes = [0] + [1 + order.index(i) for i in range(len(checked))]
    return np.transpose(joint, axes)


def posterior(prior: Any, ps: Any, domain_size: int, observed: Mapping[int, int]) -> np.ndarray:
    """Exact Pr[X = x | Y_i = y_i for i in observed], for all x.

    Parameters
    ----------
    prior, ps, domain_size
        As in `exact_joint`.
    observed : mapping of int to int
        Copy index (into ``ps``) -> observed code; any subset of the copies.

    Returns
    -------
    ndarray, shape (s,)
    """
    s = check_s(domain_size)
    checked = check_ps(ps)
    if not isinstance(observed, Mapping):
        raise PrivlabError(f"observed must be a mapping of copy index to observed code, got {type(observed).__name__}")
    for i in observed:
        check_int("observed copy index", i, low=0, high=len(checked) - 1)
    joint = exact_joint(prior, checked, s)
    index: list[Any] = [slice(None)]
    for i in range(len(checked)):
        index.append(check_int(f"observed[{i}]", observed[i], low=0, high=s - 1) if i in observed else slice(None))
    post = joint[tuple(index)].reshape(s, -1).sum(axis=1)
    total = post.sum()
    if total <= 0:
        raise PrivlabError("observed copies have probability 0 under this prior")
    return post / total


def copy_given_x(prior: Any, ps: Any, domain_size: int, i: int) -> np.ndarray:
    """Exact Pr[Y_i = y | X = x] as an s x s matrix [x, y] (rows with prior 0 are NaN).

    Parameters
    ----------
    prior, ps, domain_size
        As in `exact_joint`.
    i : int
        Index of the copy in ``ps``.
    """
    s = check_s(domain_size)
    checked = check_ps(ps)
    i = check_int("i", i, low=0, high=len(checked) - 1)
    joint = exact_joint(prior, checked, s)
    other = tuple(a for a in range(1, 1 + len(checked)) if a != i + 1)
    pair = joint.sum(axis=other) if other else joint
    with np.errstate(invalid="ignore", divide="ignore"):
        return pair / pair.sum(axis=1, keepdims=True)


def best_copy_posterior(prior: Any, p: float, domain_size: int, y: int) -> np.ndarray:
    """Pr[X | Y = y] for a single uni-pert copy at retention p (Theorem 1's right side).

    Parameters
    ----------
    prior : array of float
        The law of X on 0..s-1.
    p : float
        Retention probability of the copy, in (0, 1].
    domain_size : int
        s >= 2.
    y : int
        The observed code.
    """
    s = check_s(domain_size)
    law = check_distribution("prior", prior)
    if law.size != s:
        raise PrivlabError(f"prior must have domain_size = {s} entries, got {law.size}")
    p, y = check_p(p), check_int("y", y, low=0, high=s - 1)
    like = np.full(s, (1.0 - p) / s)  # the column y of uni-pert's matrix
    like[y] += p
    post = law * like
    return post / post.sum()


# ---------------------------------------------------------------------------------------
# the adversary's confidence in the true value (Figure 7), uniform prior
# ---------------------------------------------------------------------------------------
def _set_partitions(k: int) -> Iterator[list[list[int]]]:
    """Every set partition of {0..k-1} as a list of blocks (restricted growth strings)."""

    def rec(i: int, blocks: list[list[int]]) -> Iterator[list[list[int]]]:
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


def expected_confidence_independent(ps: Any, domain_size: int) -> float:
    """Exact E[Pr[X = X_true | Y_1..Y_k]] for independent uni-pert copies, uniform prior on X.

    With a uniform prior the posterior depends only on which copies share a value, so the
    sum over the s^k outcomes is a sum over set partitions of the k copies: a partition
    with b blocks covers s!/(s-b)! outcomes.

    Parameters
    ----------
    ps : sequence of float
        Retention probabilities of the pooled copies (at most 10).
    domain_size : int
        s >= 2.
    """
    s = check_s(domain_size)
    checked = check_ps(ps)
    k = len(checked)
    if k > MAX_EXACT_COPIES:
        raise PrivlabError(f"ps may hold at most {MAX_EXACT_COPIES} copies for the exact sum (Bell number), got {k}")
    if max(checked) == 1.0:
        return 1.0  # a copy at p = 1 is the original
    b_i = np.array([(1 - p) / s for p in checked])
    ratio = np.array([(p + (1 - p) / s) / ((1 - p) / s) for p in checked])  # a_i / b_i
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


def expected_confidence_single(p: float, domain_size: int) -> float:
    """Exact E[Pr[X = X_true | Y]] for one uni-pert copy at retention p, uniform prior.

    Parameters
    ----------
    p : float
        Retention probability in (0, 1].
    domain_size : int
        s >= 2.
    """
    return expected_confidence_independent([check_p(p)], domain_size)


def independent_all_other(ps: Any, domain_size: int) -> float:
    """Exact Pr[every independent uni-pert copy shows the value y | X = x], for a y other than x.

    Parameters
    ----------
    ps : sequence of float
        The copies' retention probabilities, each in (0, 1]; the copies are drawn independently from X.
    domain_size : int
        s >= 2.

    Returns
    -------
    float
        The product of the copies' off-diagonal uni-pert probabilities (1 - p)/s.
    """
    s = check_s(domain_size)
    return float(np.prod([uni_pert_matrix(p, s)[0, 1] for p in check_ps(ps)]))


# ---------------------------------------------------------------------------------------
# the history store's size (Lemma 2)
# ---------------------------------------------------------------------------------------
def expected_change_points(ps: Any, domain_size: int) -> float:
    """Exact expected number of change points per tuple after releases at ``ps``.

    Along the chain 1 = q_0 > q_1 > ... (the distinct p's, decreasing) each step keeps
    the value with probability q_i/q_(i-1) + (1 - q_i/q_(i-1))/s, independently, so a
    tuple changes at step i with probability (1 - 1/s)(1 - q_i/q_(i-1)); Lemma 2 bounds
    the sum by ln(1/min p).

    Parameters
    ----------
    ps : sequence of float
        The released retention probabilities (any order, repeats allowed).
    domain_size : int
        s >= 2.
    """
    s = check_s(domain_size)
    checked = check_ps(ps)
    chain = np.concatenate([[1.0], np.sort(np.unique(checked))[::-1]])
    return (1 - 1 / s) * float((1 - chain[1:] / chain[:-1]).sum())
