"""What the grid runners of privlab.lpb share: the map over tasks, the attribute summaries and the panels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .._validation import PrivlabError, check_array
from .examples import attribute_summary


def summaries(columns: Mapping[str, np.ndarray]) -> dict[str, dict]:
    """`attribute_summary` of each column of a non-empty mapping attribute -> column."""
    if not isinstance(columns, Mapping) or not columns:
        raise PrivlabError("columns must be a non-empty mapping of attribute names to columns")
    return {str(a): attribute_summary(c) for a, c in columns.items()}


def panel_rho1s(panels: Mapping[str, Sequence[float]], attributes: Sequence[str]) -> dict[str, list[float]]:
    """The rho1 of each panel of Figures 2-4 per attribute, in the panels' order, for the
    attributes among ``attributes`` only."""
    if not isinstance(panels, Mapping):
        raise PrivlabError(f"panels must be a mapping of attributes to rho1 lists, got {panels!r}")
    return {str(a): [float(r) for r in check_array(f"panels[{a!r}]", v)] for a, v in panels.items() if a in attributes}
