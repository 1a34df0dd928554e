"""CAE paper (seed 004): the appendix worked example, Figures 2 and 4 (sampling, query
restriction and noise addition vs the intruder's supplementary knowledge) on PUMS-like data and
on UCI Adult, and their real-data twins on ACS records (``<experiment>_acs``); the audit of the
seed: every displayed formula re-derived (``formulas``), Section 3's examples (``table1_fig1``)
and Table 2 with the data description (``table2_data``). The inventory of what the seed prints
and what checks it is ``experiments/cae.ledger.yaml``.

The science lives in `privlab.cae`; the techniques are mechanisms of kind ``sdc_technique``
(``conf/mechanism/sdc_*.yaml``); the paper's printed values and statements are in the
``printed:`` blocks of ``conf/experiment/cae/``. This package joins them, by artifact: ``worked``
(the appendix example, Section 3's examples, the formulas), ``sdc`` (Figures 2 and 4, their ACS
twins, Table 2 and the data) and ``_common`` (the data sets' coding, the SDC contract, helpers).
"""

from privlab.registry import Paper

from . import sdc, worked

__all__ = ["PAPER", "sdc", "worked"]

PAPER = Paper(
    "Alfalayleh, Brankovic - Quantifying Privacy: A Novel Entropy-Based Measure of Disclosure Risk",
    seed="004_b36d4829993efdbd.txt",
)
