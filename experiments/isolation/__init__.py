"""Isolation paper (seed 002): the talk's results table and utility claims by simulation.

The talk has theorems and no experiments. Each experiment draws a real database RDB, lets the
sanitizers of ``conf/mechanism`` (kind ``sanitizer``) release it and their natural adversaries
output one point per target, and tabulates how often that point (c, T)-isolates the target, beside
the aux-only baseline. The experiments are in ``slides``, the science and the claims' logic in
`privlab.isolation`, the talk's words and the thresholds in ``conf/experiment/isolation/``, the
claims ledger in ``experiments/isolation/ledger.yaml``.
"""

from __future__ import annotations

from privlab.registry import Paper

PAPER = Paper(
    "Chawla, Dwork, McSherry, Smith, Wee - Towards Privacy in Public Databases", text="002_142f47f7580c4c95.txt"
)

from . import slides  # noqa: E402  (importing registers the experiments)

__all__ = ["PAPER", "slides"]
