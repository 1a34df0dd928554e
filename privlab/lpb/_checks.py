"""Size limits of privlab.lpb: what one call may hold in memory, checked before allocating."""

from __future__ import annotations

from .._validation import PrivlabError, check_int

MAX_DRAWS = 10**8  # noise draws or responses held at once (800 MB of float64)
MAX_CELLS = 10**8  # cells of a responses x candidates (or candidates x candidates) array
MAX_WORK = 10**10  # candidate pairs one exact supremum may visit (minutes of work beyond)


def check_size(name: str, value: object, *, low: int, high: int, why: str) -> int:
    """An integer ``value`` in [low, high]; above ``high`` the one-line message says why."""
    k = check_int(name, value, low=low)
    if k > high:
        raise PrivlabError(f"{name} must be at most {high:,} ({why}), got {k:,}")
    return k


def check_cells(what: str, rows: int, cols: int, high: int = MAX_CELLS) -> None:
    """Refuse a ``rows x cols`` array larger than ``high`` cells, in one line."""
    if rows * cols > high:
        raise PrivlabError(f"{what}: {rows:,} x {cols:,} = {rows * cols:,} values exceed the {high:,} held in memory")
