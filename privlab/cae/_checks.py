"""Argument checks shared by privlab.cae (one-line PrivlabErrors, through privlab._validation)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import PrivlabError, _fmt

# the largest array one call may build (bytes): beyond it a call refuses its arguments
# instead of exhausting the memory of a laptop
MEMORY_LIMIT = 2**30


def check_memory(what: str, n_bytes: float, hint: str) -> None:
    """Refuse a call whose largest array would exceed `MEMORY_LIMIT`; ``hint`` says what to lower."""
    if n_bytes > MEMORY_LIMIT:
        raise PrivlabError(
            f"{what} would need {n_bytes / 2**30:,.1f} GiB, more than {MEMORY_LIMIT / 2**30:g} GiB; {hint}"
        )


def check_instance(name: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """``value`` must be an instance of ``kind`` (``what`` names it for the message)."""
    if not isinstance(value, kind):
        raise PrivlabError(f"{name} must be {what}, got {type(value).__name__} {_fmt(value)}")
    return value


def check_codes(name: str, codes: np.ndarray, size: int) -> np.ndarray:
    """Domain codes must lie in ``0..size-1``."""
    if codes.size and (int(codes.min()) < 0 or int(codes.max()) >= size):
        raise PrivlabError(
            f"{name} must be domain codes in [0, {size - 1}], got values in [{codes.min()}, {codes.max()}]"
        )
    return codes
