"""CAE paper (seed 004), by artifact: ``worked`` (the appendix example, Section 3's examples in
``table1_fig1``, the formula audit) and ``sdc`` (Figures 2 and 4, their twins on real ACS records
``<experiment>_acs``, Table 2 and the data). The science and the claims' logic are `privlab.cae`'s
(`privlab.experiments.cae.verdicts`), the printed values ``conf/experiment/cae/``'s, the inventory of what the
seed prints and what checks it ``experiments/cae/ledger.yaml``."""

from privlab.registry import Paper

from . import sdc, worked

__all__ = ["PAPER", "sdc", "worked"]

PAPER = Paper(
    "Alfalayleh, Brankovic - Quantifying Privacy: A Novel Entropy-Based Measure of Disclosure Risk",
    text="004_b36d4829993efdbd.txt",
)
