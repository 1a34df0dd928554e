"""LPB paper (seed 003): Tables I-II and Figures 1-5 on UCI Adult, a breach simulation, the
displayed formulas re-derived, the description of Adult checked, Figure 5's "same effect as
eps-DP" made checkable, and real-data twins of Table II and Figure 1 on ACS person records.

The science lives in `privlab.lpb`; the paper's printed values and statements in the
``printed:`` blocks of ``conf/experiment/lpb/``. This package joins them: config in,
library calls, a tidy table and the claims out. Its modules, by artifact:

- ``examples``: Table I's worked example and the displayed formulas;
- ``attributes``: Table II, Figure 1, Section V's description of Adult, and their ACS twins;
- ``noise``: Figures 2-5's noise ratio, Figure 5's "same effect as eps-DP", the breach simulation.

The registry imports only this package: every module of it is imported here.
"""

from __future__ import annotations

from privlab.registry import Paper

PAPER = Paper("Ouyang, Yin, Liu - Limiting Privacy Breaches in Differential Privacy", seed="003_bcd9c4aebb45eb59.txt")

from . import attributes, examples, noise  # noqa: E402  (registers the experiments; PAPER first)

__all__ = ["PAPER", "attributes", "examples", "noise"]
