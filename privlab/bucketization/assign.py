"""From a valid bucket setting to buckets: record partition (Section 4.3) and round-robin
assignment (RRA, Section 4.1)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from privlab._validation import PrivlabError, check_array, rng_from

from .settings import BucketSetting, SeedLike, check_codes, check_setting, prepare
from .validity import max_flow_allocation, upper_bounds


def record_partition(counts: ArrayLike, F: ArrayLike, setting: BucketSetting) -> np.ndarray:
    """How many records of each value go to each size: x_ij, shape (m, number of sizes).

    Two sizes: the constructive proof of Theorem 4.17: T_1 gets min(o_i, u_i1) records of
    x_i, T_2 the rest; while |T_1| > b_1 S_1, records of values with fewer than u_i2 records
    in T_2 move from T_1 to T_2. One size: everything. Three or more: a max-flow allocation
    (exact, see `validity`). Raises PrivlabError if the setting is not valid.
    """
    o, F = prepare(counts, F)
    setting = check_setting(setting)
    if setting.n != int(o.sum()):
        raise PrivlabError(f"setting holds {setting.n} records but the table has {int(o.sum())}")
    u = upper_bounds(o, F, setting)
    demand = np.asarray(setting.sizes, dtype=np.int64) * np.asarray(setting.counts, dtype=np.int64)
    k = len(setting.sizes)
    if k == 1:
        x = o[:, None].copy()
    elif k == 2:
        t1 = np.minimum(o, u[:, 0])
        excess = int(t1.sum() - demand[0])
        room = np.maximum(0, np.minimum(t1, u[:, 1] - (o - t1)))  # movable without breaking T_2
        if excess > 0:
            # move from the values in index order, each up to its room (any order works)
            take = np.minimum(room, np.maximum(0, excess - (np.cumsum(room) - room)))
            t1 = t1 - take
        x = np.stack([t1, o - t1], axis=1)
    else:
        flow, x = max_flow_allocation(o, u, demand)
        if flow != int(o.sum()):
            raise PrivlabError(f"setting {setting} is not valid for these counts and F")
    if np.any(x.sum(axis=0) != demand) or np.any(x > u):
        raise PrivlabError(f"setting {setting} is not valid for these counts and F")
    return x


def bucketize(sa_codes: ArrayLike, F: ArrayLike, setting: BucketSetting, seed: SeedLike = 0) -> np.ndarray:
    """Bucket id of every record for a valid ``setting``.

    Records of each value are split between the sizes by `record_partition` (which records
    go where is random), then RRA inside each size: the records of that size, grouped by
    value, go to bucket p mod b_j by their position p, so each bucket of size S_j holds
    floor or ceil(x_ij / b_j) <= floor(F_i S_j) records of x_i.

    Parameters
    ----------
    sa_codes : array of int
        Sensitive value code (0..m-1) of each record.
    F : array of float
        Thresholds F_i, one per code.
    setting : BucketSetting
    seed : int, SeedSequence or Generator

    Returns
    -------
    ndarray of int64, bucket ids 0..(number of buckets - 1).
    """
    F = check_array("F", F, dtype=float)
    sa = check_codes("sa_codes", sa_codes, F.size)
    setting = check_setting(setting)
    o = np.bincount(sa, minlength=F.size)
    x = record_partition(o, F, setting)
    rng = rng_from(seed)
    # a random order of the records, stably grouped by value
    order = rng.permutation(sa.size)
    order = order[np.argsort(sa[order], kind="stable")]
    starts = np.concatenate([[0], np.cumsum(o)[:-1]])
    bucket = np.empty(sa.size, dtype=np.int64)
    first_id = 0
    for j, b in enumerate(setting.counts):
        # records of size j: the next x_ij records of each value, in value order
        idx = np.concatenate(
            [order[starts[i] + x[i, :j].sum() : starts[i] + x[i, : j + 1].sum()] for i in range(F.size)]
        )
        bucket[idx] = first_id + np.arange(idx.size) % b
        first_id += b
    # random bucket labels, so ids carry no information about sizes or values
    return rng.permutation(first_id)[bucket]
