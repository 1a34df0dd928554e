"""The natural adversaries of each sanitizer: each outputs one point q per target.

* against a histogram: a uniform point of the target's cell (the adversary's view of a
  histogram is a product of uniform distributions over the cells), or its centre;
* against the bad sanitizer: the released row, or the row with each disguised attribute
  set to the middle of its range;
* with auxiliary information only: a draw from the data distribution D.

Against perturbation the adversary outputs the released point itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_int, rng_from
from ._checks import check_indices

__all__ = ["adversary_cell_uniform", "adversary_cell_centre", "adversary_column_midpoint", "aux_only_queries"]


def _check_cells(cell_low: Any, cell_side: Any) -> tuple[np.ndarray, np.ndarray]:
    low = check_array("cell_low", cell_low, ndim=2, min_size=0)
    side = check_array("cell_side", cell_side, min_size=0)
    if side.size != low.shape[0]:
        raise PrivlabError(f"cell_side must hold one side per cell ({low.shape[0]}), got {side.size}")
    return low, side


def adversary_cell_uniform(cell_low: Any, cell_side: Any, seed: Any = None) -> np.ndarray:
    """A uniform point of each target's cell.

    Parameters
    ----------
    cell_low : array (m, d)
        The corner of each target's cell.
    cell_side : array (m,)
        Its side.
    seed : int, SeedSequence or Generator

    Returns
    -------
    array (m, d)
    """
    low, side = _check_cells(cell_low, cell_side)
    rng = rng_from(0 if seed is None else seed)
    return low + rng.uniform(size=low.shape) * side[:, None]


def adversary_cell_centre(cell_low: Any, cell_side: Any) -> np.ndarray:
    """The centre of each target's cell (see `adversary_cell_uniform`)."""
    low, side = _check_cells(cell_low, cell_side)
    return low + side[:, None] / 2


def adversary_column_midpoint(released_rows: Any, hidden: Any, col_low: Any, col_high: Any) -> np.ndarray:
    """The released rows with each disguised attribute replaced by the middle of its range.

    Parameters
    ----------
    released_rows : array (m, d)
        The targets' released rows.
    hidden : int array (h,)
        The disguised columns.
    col_low, col_high : arrays (h,)
        Each disguised column's range (public: the bad sanitizer draws its noise over it).

    Returns
    -------
    array (m, d)
    """
    q = check_array("released_rows", released_rows, ndim=2, min_size=0).copy()
    hidden = check_indices("hidden", hidden)
    if hidden.size and (hidden.min() < 0 or hidden.max() >= q.shape[1]):
        raise PrivlabError(f"hidden must be column indices in [0, {q.shape[1] - 1}], got {hidden.tolist()}")
    q[:, hidden] = (np.asarray(col_low, dtype=float) + np.asarray(col_high, dtype=float)) / 2
    return q


def aux_only_queries(
    sample_distribution: Callable[[int, np.random.Generator], Any], m: int, seed: Any = None
) -> np.ndarray:
    """Auxiliary-information-only baseline: ``m`` draws from the data distribution.

    ``sample_distribution(m, rng)`` draws m points of D (the adversary knows D).
    """
    m = check_int("m", m, low=1)
    return np.asarray(sample_distribution(m, rng_from(0 if seed is None else seed)), dtype=float)
