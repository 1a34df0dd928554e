"""HiGHS (highspy) without its banner: the papers' solvers that call HiGHS directly share this."""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["quiet_highs_class", "quiet_highs"]


@functools.cache
def quiet_highs_class() -> type:
    """A `highspy.Highs` that prints nothing: HiGHS prints a banner on stdout when a model's
    callbacks start with output on, before a caller could turn output off; this subclass turns it
    off first. Made on first use: highspy is imported only when something is solved."""
    # HiGHS: loaded only when a model is solved
    import highspy

    class QuietHighs(highspy.Highs):
        def enableCallbacks(self):  # noqa: N802 (highspy's name): called by Highs() before any output
            self.setOptionValue("output_flag", False)
            super().enableCallbacks()

    return QuietHighs


def quiet_highs(**options: Any) -> Any:
    """A silent `highspy.Highs` with ``options`` set (e.g. ``threads=1``)."""
    h = quiet_highs_class()()
    h.setOptionValue("output_flag", False)
    for name, value in options.items():
        h.setOptionValue(name, value)
    return h
