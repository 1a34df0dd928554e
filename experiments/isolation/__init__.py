"""Isolation paper (seed 002): the talk's results table and utility claims by simulation.

The talk has theorems and no experiments. Each experiment draws a real database RDB, lets
the sanitizers of ``conf/mechanism`` (kind ``sanitizer``) release it and their natural
adversaries output one point per target, and tabulates how often that point (c, T)-isolates
the target, beside the aux-only baseline. The science lives in `privlab.isolation`; the
talk's words and the claim thresholds in ``conf/experiment/isolation/``.

Modules, by artifact: ``table`` (the results table vs d), ``parameters`` (c and T; the bad
sanitizer), ``utility``, ``real_data`` (Adult, and its ACS twin), ``formulas`` (every
displayed formula re-derived) and ``_common`` (the contract pieces and helpers they share).
The claims ledger is ``experiments/isolation.ledger.yaml``.
"""

from __future__ import annotations

from privlab.registry import Paper

PAPER = Paper(
    "Chawla, Dwork, McSherry, Smith, Wee - Towards Privacy in Public Databases", seed="002_142f47f7580c4c95.txt"
)

from . import formulas, parameters, real_data, table, utility  # noqa: E402  (importing registers the experiments)

__all__ = ["PAPER", "formulas", "parameters", "real_data", "table", "utility"]
