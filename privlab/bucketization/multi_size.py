"""MultiSizeBucketing (seed 000, Section 5.2, Algorithm 2): recursive TwoSizeBucketing."""

from __future__ import annotations

from typing import Literal, overload

from numpy.typing import ArrayLike

from privlab._validation import PrivlabError

from .assign import record_partition
from .settings import BucketSetting, check_max_size, prepare
from .two_size import two_size_core


def _recurse(o, F, current: BucketSetting, max_size: int, depth: int, out: list) -> None:
    best, _ = two_size_core(o, F, max_size, "full")
    if best is None or best.loss >= current.loss or len(best.sizes) == 1:
        # no two-size improvement (a better one-size setting cannot exist: the group's
        # current size came from an optimum over a superset of choices); keep the group
        if best is not None and best.loss < current.loss:
            current = best
        out.append(current)
        return
    x = record_partition(o, F, best)
    for j in range(2):
        part = BucketSetting([best.sizes[j]], [best.counts[j]])
        _recurse(x[:, j], F, part, max_size, depth + 1, out)


@overload
def multi_size(
    counts: ArrayLike, F: ArrayLike, max_size: int = ..., return_parts: Literal[False] = ...
) -> BucketSetting | None: ...


@overload
def multi_size(
    counts: ArrayLike, F: ArrayLike, max_size: int = ..., *, return_parts: Literal[True]
) -> tuple[BucketSetting | None, list[BucketSetting]]: ...


def multi_size(
    counts: ArrayLike, F: ArrayLike, max_size: int = 50, return_parts: bool = False
) -> BucketSetting | None | tuple[BucketSetting | None, list[BucketSetting]]:
    """MultiSizeBucketing: split T by its optimal two-size setting while that lowers the loss.

    Starting from T as one group, find the group's optimal two-size setting; if it has a
    lower loss than the group's current setting, partition the group's records between the
    two sizes (record partition, Section 4.3) and recurse on each part with its single size
    as the current setting; otherwise keep the group.

    Parameters
    ----------
    counts : array of int
        Per-value record counts o_i.
    F : array of float
        Thresholds F_i in (0, 1].
    max_size : int
        Largest bucket size M.
    return_parts : bool
        Also return the list of the leaves' one-size settings.

    Returns
    -------
    BucketSetting (sizes merged over the leaves) or None when no valid setting exists;
    with ``return_parts`` a tuple (setting, leaves).
    """
    max_size = check_max_size(max_size)
    o, F = prepare(counts, F, max_size)
    if not isinstance(return_parts, bool):
        raise PrivlabError(f"return_parts must be True or False, got {return_parts!r}")
    first, _ = two_size_core(o, F, max_size, "full")
    if first is None:
        return (None, []) if return_parts else None
    leaves: list[BucketSetting] = []
    if len(first.sizes) == 1:
        leaves.append(first)
    else:
        x = record_partition(o, F, first)
        for j in range(2):
            _recurse(x[:, j], F, BucketSetting([first.sizes[j]], [first.counts[j]]), max_size, 1, leaves)
    total = leaves[0]
    for leaf in leaves[1:]:
        total = total + leaf
    return (total, leaves) if return_parts else total
