"""Section 2.1 (differential inference from noisy counts) and Section 6 (fake values against
the corruption attack)."""

from __future__ import annotations

import numpy as np

from privlab._validation import PrivlabError, check_array, check_int, check_real, rng_from


def noisy_ratio(a1, a2, epsilon, size, seed=0) -> tuple[np.ndarray, np.ndarray]:
    """Samples of the noisy answers (a1~, a2~) of two count queries under Laplace(1/epsilon).

    Returns (a1~, a2~), each of length ``size``; the adversary's estimate is a2~ / a1~.
    """
    a1 = check_real("a1", a1, low=0, low_open=True)
    a2 = check_real("a2", a2, low=0)
    eps = check_real("epsilon", epsilon, low=0, low_open=True)
    size = check_int("size", size, low=1)
    rng = rng_from(seed)
    b = 1.0 / eps
    return a1 + rng.laplace(0.0, b, size), a2 + rng.laplace(0.0, b, size)


def ratio_approximation(a1, a2, epsilon) -> tuple[float, float]:
    """Delta-method mean and variance of a2~/a1~ (Theorem 2 as reconstructed):
    E ~ (a2/a1)(1 + 2b^2/a1^2), Var ~ (2b^2/a1^2)(1 + a2^2/a1^2), b = 1/epsilon."""
    a1 = check_real("a1", a1, low=0, low_open=True)
    a2 = check_real("a2", a2, low=0)
    b = 1.0 / check_real("epsilon", epsilon, low=0, low_open=True)
    r = a2 / a1
    return r * (1 + 2 * b * b / (a1 * a1)), (2 * b * b / (a1 * a1)) * (1 + r * r)


def prob_nonpositive(a1, epsilon) -> float:
    """Pr[a1 + Laplace(1/epsilon) <= 0] = exp(-a1 epsilon) / 2 (the ratio's mean does not exist)."""
    return 0.5 * float(np.exp(-check_real("a1", a1, low=0, low_open=True) * epsilon))


def corruption_certainty(size, corrupted, fakes) -> float:
    """Certainty about a remaining record's value after ``corrupted`` records of a bucket of
    ``size`` distinct values with ``fakes`` fake values are known: 1 / (size - c + k)."""
    size = check_int("size", size, low=1)
    c = check_int("corrupted", corrupted, low=0, high=size - 1)
    k = check_int("fakes", fakes, low=0)
    return 1.0 / (size - c + k)


def add_fake_values(sa_codes, bucket_ids, fakes, domain_size, seed=0):
    """ST with ``fakes`` fake values per bucket: values of the SA domain not in the bucket.

    Returns (st_bucket, st_value, is_fake), the real entries first.
    """
    sa = check_array("sa_codes", sa_codes, dtype=np.int64)
    bid = check_array("bucket_ids", bucket_ids, dtype=np.int64)
    k = check_int("fakes", fakes, low=0)
    m = check_int("domain_size", domain_size, low=1)
    rng = rng_from(seed)
    nb = int(bid.max()) + 1
    present = np.zeros((nb, m), dtype=bool)
    present[bid, sa] = True
    if k and np.any(m - present.sum(axis=1) < k):
        raise PrivlabError(f"fakes must leave room in the domain: some bucket has fewer than {k} unused values")
    # k distinct unused values per bucket: the k smallest random keys among unused values
    keys = rng.random((nb, m))
    keys[present] = np.inf
    fake_vals = np.argsort(keys, axis=1)[:, :k]
    st_bucket = np.concatenate([bid, np.repeat(np.arange(nb), k)])
    st_value = np.concatenate([sa, fake_vals.ravel()])
    is_fake = np.concatenate([np.zeros(sa.size, bool), np.ones(nb * k, bool)])
    return st_bucket, st_value, is_fake


def simulate_corruption(sa_codes, bucket_ids, st_bucket, st_value, corrupted, seed=0) -> np.ndarray:
    """The corruption attack, bucket by bucket: the adversary learns the values of
    ``corrupted`` random records of the bucket, removes those values from the bucket's ST
    entries, and guesses the value of one random remaining record uniformly among the
    remaining entries. Returns the success indicator (one per bucket with more than
    ``corrupted`` records)."""
    sa = np.asarray(sa_codes, dtype=np.int64)
    bid = np.asarray(bucket_ids, dtype=np.int64)
    c = check_int("corrupted", corrupted, low=0)
    rng = rng_from(seed)
    rec_order = np.argsort(bid, kind="stable")
    rec_start = np.searchsorted(bid[rec_order], np.arange(bid.max() + 2))
    st_order = np.argsort(st_bucket, kind="stable")
    st_start = np.searchsorted(np.asarray(st_bucket)[st_order], np.arange(bid.max() + 2))
    out = []
    for B in range(bid.max() + 1):
        recs = rec_order[rec_start[B] : rec_start[B + 1]]
        if recs.size <= c:
            continue
        perm = rng.permutation(recs)
        known, target = perm[:c], perm[c]
        values = list(np.asarray(st_value)[st_order[st_start[B] : st_start[B + 1]]])
        for v in sa[known]:
            values.remove(v)  # one occurrence per corrupted record
        guess = values[rng.integers(len(values))]
        out.append(guess == sa[target])
    return np.asarray(out, dtype=bool)
