"""Multi-level perturbation paper (seed 001): Figures 5-8, the MC-vs-exact agreement, the audit of
the slides (every displayed formula, the worked HIV example, the distributions of X) and the
real-data twins on ACS records (``<experiment>_acs``).

The science lives in `privlab.multilevel`; the paper's setting, printed values and statements in
``conf/experiment/multilevel/``. Modules by artifact: `collusion` (Figures 5-6 and the agreement
check, sharing the collusion Monte Carlo's counts), `pooling_overhead` (Figures 7-8) and `slides`
(formulas, worked examples, the laws of X); `_common` holds what they share.
"""

from __future__ import annotations

from privlab.registry import Paper

from . import collusion, pooling_overhead, slides  # noqa: F401  (importing them registers the experiments)

PAPER = Paper(
    "Xiao, Tao, Chen - Optimal Random Perturbation at Multiple Privacy Levels", seed="001_c5de60d83f81c6f0.txt"
)
