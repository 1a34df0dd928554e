"""The Experiments' collusion Monte Carlo as result tables: Figure 5 (collusion is useless), Figure 6
(every copy is a uni-pert copy) and the agreement of the whole table F[X, Y_a, Y_b, Y_c] with the
exact joint.

Each table function takes the laws of X by name and ``counts(name, prior)``, the caller's source of
the counts F[X, Y_a, Y_b, Y_c] of that law (e.g. a resumable `collusion_counts` run behind a
checkpoint), so that the three tables can share one Monte Carlo run per law.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_callable, check_choice, check_distribution, check_mapping, check_real
from ..stats import pooled_gof
from ._checks import check_ps
from .exact import copy_given_x, exact_joint, posterior, uni_pert_matrix
from .montecarlo import counts_given, frequencies, margin

__all__ = ["RECIPIENTS", "collusion_table", "equivalence_table", "agreement_table"]

RECIPIENTS = ("Alice", "Bob", "Charlie")  # the requesters of p_a, p_b, p_c, in request order

CountsOf = Callable[[str, np.ndarray], np.ndarray]


def _inputs(priors: Any, ps: Any, counts: Any) -> tuple[dict[str, np.ndarray], list[float]]:
    """The laws of X by name and the three retention probabilities (p_a, p_b, p_c)."""
    check_mapping("priors", priors)
    if not priors:
        raise PrivlabError("priors must hold at least one law of X")
    laws = {name: check_distribution(f"priors[{name!r}]", prior) for name, prior in priors.items()}
    checked = check_ps(ps)
    if len(checked) != len(RECIPIENTS):
        raise PrivlabError(f"ps must hold p_a, p_b, p_c ({len(RECIPIENTS)} probabilities), got {len(checked)}")
    check_callable("counts", counts)
    return laws, checked


def _entry(block: Mapping[str, Any], name: str, key: str) -> Any:
    if name not in block:
        raise PrivlabError(f"{key} must have an entry for every distribution; {name!r} has none")
    return block[name]


def _codes(values: Any, s: int, key: str) -> list[int]:
    """The paper's values 1..s as codes 0..s-1."""
    if not all(1 <= int(v) <= s for v in values):
        raise PrivlabError(f"{key} must lie in 1..{s}; got {list(values)}")
    return [int(v) - 1 for v in values]


def collusion_table(priors: Mapping[str, Any], ps: Any, cells: Mapping[str, Any], counts: CountsOf) -> pd.DataFrame:
    """Figure 5: Pr[X = x | Y_a, Y_b, Y_c] against Pr[X = x | Y_c] at one observed cell per law.

    Parameters
    ----------
    priors : mapping
        Law name -> the law of X (length s), in the table's order.
    ps : sequence of 3 floats
        p_a, p_b, p_c, each in (0, 1].
    cells : mapping
        Law name -> the observed (y_a, y_b, y_c), values 1..s of that law.
    counts : callable
        ``counts(name, prior)`` -> F[X, Y_a, Y_b, Y_c] of that law.

    Returns
    -------
    DataFrame
        One row per (distribution, x): the cell, the prior, the Monte Carlo frequencies given all
        three copies (``mc_all``) and given Y_c alone (``mc_c``) with their standard errors, the
        exact posteriors (``exact_all``, ``exact_c``), the trials in each cell and in all.
    """
    laws, ps = _inputs(priors, ps, counts)
    check_mapping("cells", cells)
    frames = []
    for name, prior in laws.items():
        s = prior.size
        ya, yb, yc = _codes(_entry(cells, name, "cells"), s, f"cells.{name}")
        F, all3, only_c = counts(name, prior), {0: ya, 1: yb, 2: yc}, {2: yc}
        mc_all, mc_all_se, n_all = frequencies(counts_given(F, all3))
        mc_c, mc_c_se, n_c = frequencies(counts_given(F, only_c))
        cell = {"distribution": name, "x": np.arange(1, s + 1), "y_a": ya + 1, "y_b": yb + 1, "y_c": yc + 1}
        mc = {"mc_all": mc_all, "mc_all_se": mc_all_se, "mc_c": mc_c, "mc_c_se": mc_c_se}
        exact = {"exact_all": posterior(prior, ps, s, all3), "exact_c": posterior(prior, ps, s, only_c)}
        n = {"count_all": n_all, "count_c": n_c, "trials": int(F.sum())}
        frames.append(pd.DataFrame({**cell, "prior": prior, **mc, **exact, **n}))
    return pd.concat(frames, ignore_index=True)


def equivalence_table(
    priors: Mapping[str, Any], ps: Any, equivalence: Mapping[str, Any], counts: CountsOf
) -> pd.DataFrame:
    """Figure 6: one recipient's copy given X = x, from F, beside the uni-pert formula and the exact chain law.

    Parameters
    ----------
    priors, ps, counts
        As in `collusion_table`.
    equivalence : mapping
        Law name -> ``{recipient: one of RECIPIENTS, x: a value 1..s}``: the panel of that law.

    Returns
    -------
    DataFrame
        One row per (distribution, y): the recipient, its p, x, the Monte Carlo frequency of
        Y_i = y given X = x and its standard error, ``uni_pert`` (the formula), ``exact_chain``
        (the law of the copy under the chain), the trials with that x and in all.
    """
    laws, ps = _inputs(priors, ps, counts)
    check_mapping("equivalence", equivalence)
    frames = []
    for name, prior in laws.items():
        s = prior.size
        spec = check_mapping(f"equivalence.{name}", _entry(equivalence, name, "equivalence"), ("recipient", "x"))
        i = RECIPIENTS.index(check_choice(f"equivalence.{name}.recipient", spec["recipient"], RECIPIENTS))
        (x,) = _codes([spec["x"]], s, f"equivalence.{name}.x")
        F = counts(name, prior)
        mc, mc_se, n = frequencies(margin(F, i)[x])
        panel = {"distribution": name, "recipient": spec["recipient"], "p": ps[i], "x": x + 1, "y": np.arange(1, s + 1)}
        laws_y = {"uni_pert": uni_pert_matrix(ps[i], s)[x], "exact_chain": copy_given_x(prior, ps, s, i)[x]}
        frames.append(pd.DataFrame({**panel, "mc": mc, "mc_se": mc_se, **laws_y, "count_x": n, "trials": int(F.sum())}))
    return pd.concat(frames, ignore_index=True)


def agreement_table(priors: Mapping[str, Any], ps: Any, counts: CountsOf, min_expected: float) -> pd.DataFrame:
    """Chi-square and G-test of every F[X, Y_a, Y_b, Y_c] and its (X, Y_i) margins against the exact joint.

    Parameters
    ----------
    priors, ps, counts
        As in `collusion_table`.
    min_expected : float
        Expected count every pooled group reaches (`privlab.stats.pooled_gof`), > 0.

    Returns
    -------
    DataFrame
        One row per (distribution, table): trials, cells and `pooled_gof`'s statistics.
    """
    laws, ps = _inputs(priors, ps, counts)
    min_expected = check_real("min_expected", min_expected, low=0, low_open=True)
    rows = []
    for name, prior in laws.items():
        F = counts(name, prior)
        exact = exact_joint(prior, ps, prior.size)
        tables = {"X,Ya,Yb,Yc": (F, exact)}
        tables.update({f"X,Y_{r}": (margin(F, i), margin(exact, i)) for i, r in enumerate(RECIPIENTS)})
        for label, (table, probs) in tables.items():
            row = {"distribution": name, "table": label, "trials": int(F.sum()), "cells": int(table.size)}
            rows.append({**row, **pooled_gof(table, probs, min_expected)})
    return pd.DataFrame(rows)
