"""One displayed formula of a paper, printed against independently derived.

The papers' `formulas` experiments (``privlab.<paper>.derivations``) return these; the table
row is every field.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

__all__ = ["Case", "case_table"]


@dataclass(frozen=True)
class Case:
    """One displayed formula (or one case of it): printed beside derived, at one numeric instance.

    Attributes
    ----------
    case : str
        Its key in the paper's ledger and config.
    printed, derived : str
        The expression as the paper prints it (or as reconstructed) and as derived.
    instance : str
        The parameter values both are evaluated at.
    printed_value, derived_value : float
        Both expressions at ``instance``.
    match : bool
        Whether they agree (symbolically, or on the checker's grid).
    detail : str
        How the comparison was made, or where they part.
    """

    case: str
    printed: str
    derived: str
    instance: str
    printed_value: float
    derived_value: float
    match: bool
    detail: str = ""

    def row(self) -> dict[str, Any]:
        return asdict(self)


def case_table(cases: Iterable[Case]) -> pd.DataFrame:
    """A formulas experiment's table: one row per case, its key in column ``key``, then the other fields."""
    return pd.DataFrame([{"key": c.case, **c.row()} for c in cases]).drop(columns="case")
