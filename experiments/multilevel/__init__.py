"""Multi-level perturbation paper (seed 001), its science in `privlab.multilevel`: `paper_figures` (Figures 5-8, the MC
check) and `slides` (formulas, worked examples, laws of X), with real-data twins on ACS records (``<name>_acs``)."""

from __future__ import annotations

from privlab.registry import Paper

from . import paper_figures, slides  # noqa: F401  (importing them registers the experiments)

PAPER = Paper(
    "Xiao, Tao, Chen - Optimal Random Perturbation at Multiple Privacy Levels", text="001_c5de60d83f81c6f0.txt"
)
