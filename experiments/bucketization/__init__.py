"""Bucketization paper (seed 000): F-privacy with buckets of several sizes on CENSUS-like OCC and
EDU tables (Figures 2-5, 7, Table 5) and their real-data twins on ACS, the worked examples
(Tables 1-2, Examples 4.20, 5.23, 5.32, Remark 3.12), the displayed formulas re-derived,
Section 2.1's differential inference and Section 6's fake values against corruption.

The science lives in `privlab.bucketization` (the claims in its `verdicts`), the mechanisms
compared in ``conf/mechanism/`` (kind ``bucketing``), the paper's printed values and statements
in the ``printed:`` blocks of ``conf/experiment/bucketization/``. Tables name a mechanism
by its label (``TwoSize``), claims by its config name (``two_size``), and skip what a run
without that mechanism cannot check.

=================  ================================================================
module             experiments
=================  ================================================================
census             Figures 2-5 and Table 5 on the CENSUS-like tables (and ACS twins)
runtime            Figure 7: runtime vs n and vs the domain scale-up gamma
attacks            Section 2.1's differential inference, Section 6's corruption attack
worked_examples    Tables 1-2, Remark 3.12, Examples 4.20, 5.23, 5.32, the formulas
_common            shared contracts, tables, mechanisms, claims registration
=================  ================================================================
"""

from __future__ import annotations

from privlab.registry import Paper

PAPER = Paper(
    "Wang, Wang, Fu, Wong - Inferential or Differential: Privacy Laws Dictate", text="000_b477ba34304addb4.txt"
)

# importing a module registers its experiments
from . import attacks, census, runtime, worked_examples  # noqa: E402, F401
