"""LPB paper (seed 003): Tables I-II and Figures 1-5 on UCI Adult, a breach simulation, the
displayed formulas re-derived, the description of Adult checked, Figure 5's "same effect as
eps-DP" made checkable, and real-data twins of Table II and Figure 1 on ACS person records.

The science and the claims' logic live in `privlab.lpb` (claims: `privlab.experiments.lpb.verdicts`), the
printed values in ``conf/experiment/lpb/``. Modules: ``tables`` (Tables I-II, the formulas, Figure 1,
Section V's data, the ACS twins) and ``noise`` (Figures 2-5, Figure 5's statement, the breach
simulation); the registry imports them all through this package, which also registers
``privlab epsilon`` (`privlab.lpb.command`).
"""

from __future__ import annotations

from privlab.lpb import command as epsilon_command
from privlab.registry import Paper, command

PAPER = Paper("Ouyang, Yin, Liu - Limiting Privacy Breaches in Differential Privacy", text="003_bcd9c4aebb45eb59.txt")

from . import noise, tables  # noqa: E402  (registers the experiments; PAPER first)

# LPB's advisor for your own statistics: privlab epsilon
command(
    "epsilon",
    help=epsilon_command.HELP,
    description=epsilon_command.DESCRIPTION,
    configure=epsilon_command.configure,
)(epsilon_command.run)

__all__ = ["PAPER", "noise", "tables"]
