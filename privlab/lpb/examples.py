"""Table I (the worked example), Table II (the attribute description) and Section V's
description of Adult, recomputed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import PrivlabError, check_array, check_real, check_same_length
from ..claims import rounds_to
from .adversary import posteriors, query_answers, sensitivity
from .laplace import laplace_density

__all__ = [
    "worked_example",
    "response_matches",
    "worked_example_table",
    "attribute_summary",
    "attribute_columns",
    "attribute_table",
    "data_facts",
]

TABLE1_PRINTED = ("noise", "density", "posterior")  # Table I's printed columns kept beside the recomputed ones


def worked_example(
    universe: np.ndarray, known: np.ndarray, response: float, epsilon: float, query: str = "mean"
) -> dict[str, np.ndarray | float]:
    """Every column of Table I: f(D_u), the noise r - f(D_u), its Laplace density and the posterior."""
    eps = check_real("epsilon", epsilon, low=0, low_open=True)
    response = check_real("response", response)
    answers = query_answers(universe, known, query)
    lam = sensitivity(universe, known, query) / eps
    noise = response - answers
    return {
        "answers": answers,
        "noise": noise,
        "density": laplace_density(noise, lam),
        "posterior": posteriors(universe, known, response, eps, query),
        "lambda": lam,
    }


def response_matches(printed_noise: list[str] | np.ndarray, answers: np.ndarray, candidates: list[float]) -> dict:
    """For each candidate response r, how many printed noises r - f(D_u) reproduces at the printed precision.

    Table I's text gives the response twice, differently; the noise column tells which one
    the table was computed with.
    """
    texts = [str(v).strip() for v in np.atleast_1d(np.asarray(printed_noise, dtype=object))]
    bad = [t for t in texts if not _is_number(t)]
    if bad:
        raise PrivlabError(f"printed_noise must hold numbers (as printed), got {bad[0]!r}")
    a = check_array("answers", answers)
    check_same_length("printed_noise", texts, "answers", a)
    cands = check_array("candidates", candidates)
    return {float(r): int(sum(rounds_to(pn, float(r) - v) for pn, v in zip(texts, a))) for r in cands}


def _is_number(text: str) -> bool:
    try:
        return bool(np.isfinite(float(text)))
    except ValueError:
        return False


def attribute_summary(column: np.ndarray) -> dict[str, float | int]:
    """One row of Table II: max, min, sensitivity (max - min) / n of the mean, the universe
    min..max and the random-guess rate 1 / |U|."""
    col = check_array("column", column)
    lo, hi, n = col.min(), col.max(), col.size
    return {
        "n": n,
        "max": hi,
        "min": lo,
        "sensitivity": (hi - lo) / n,
        "universe_size": int(hi - lo + 1),
        "rg": 1.0 / (hi - lo + 1),
        "distinct_values": int(np.unique(col).size),
        "range": hi - lo,
    }


def worked_example_table(
    universe: np.ndarray,
    known: np.ndarray,
    query: str,
    epsilon: float,
    candidates: Sequence[float],
    printed: Mapping[str, Any],
) -> pd.DataFrame:
    """Table I recomputed, one row per candidate value of the missing record.

    The text prints the response twice, differently: the response is the candidate whose
    noises ``r - f(D_u)`` reproduce most of the printed noise column (the first on a tie).

    Parameters
    ----------
    universe, known : array_like
        The candidate values of the missing record and the records the adversary knows.
    query : str
        One of `QUERIES`.
    epsilon : float
        The mechanism's epsilon (> 0).
    candidates : sequence of float
        The responses the text prints.
    printed : mapping
        Table I's printed columns: ``noise``, ``density`` and ``posterior``, each an entry
        whose ``values`` are the printed numbers, one per candidate value.

    Returns
    -------
    DataFrame
        ``value``, ``data_set``, ``response``, ``true_mean``, ``noise``, ``density``, ``posterior``,
        the printed columns (``printed_noise`` ...) and ``noise_matches_per_candidate``
        (``response:matches;...``).
    """
    u, k = check_array("universe", universe), check_array("known", known, min_size=0)
    values = {}
    for c in TABLE1_PRINTED:
        if not isinstance(printed, Mapping) or not isinstance(printed.get(c), Mapping) or "values" not in printed[c]:
            raise PrivlabError(f"printed must hold Table I's {c} column as an entry with 'values'")
        values[c] = list(printed[c]["values"])
        check_same_length(f"printed {c} values", values[c], "universe", u)
    matches = response_matches(values["noise"], query_answers(u, k, query), list(candidates))
    order = list(matches)
    response = max(matches, key=lambda r: (matches[r], -order.index(r)))
    ex = worked_example(u, k, response, epsilon, query)
    table = pd.DataFrame({"value": u.astype(int), "data_set": [",".join(f"{v:g}" for v in (*k, x)) for x in u]})
    table = table.assign(response=response, true_mean=ex["answers"], noise=ex["noise"], density=ex["density"])
    table = table.assign(
        posterior=ex["posterior"], **{f"printed_{c}": [float(v) for v in values[c]] for c in TABLE1_PRINTED}
    )
    return table.assign(noise_matches_per_candidate=";".join(f"{r}:{m}" for r, m in matches.items()))


def attribute_columns(
    data: pd.DataFrame, attributes: Sequence[str], data_name: str = "the data"
) -> dict[str, np.ndarray]:
    """The numeric columns ``attributes`` of ``data`` as float arrays, in the given order.

    Records without a value (ACS's "N", not applicable) are left out; Adult's numeric
    columns have none.

    Parameters
    ----------
    data : DataFrame
        The data set.
    attributes : sequence of str
        Column names of ``data``.
    data_name : str
        The data set's name, for the message when an attribute is not one of its columns.
    """
    if not isinstance(data, pd.DataFrame):
        raise PrivlabError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if isinstance(attributes, str) or not all(isinstance(a, str) for a in attributes):
        raise PrivlabError(f"attributes must be a list of column names, got {attributes!r}")
    numeric = [
        c for c in data.columns if pd.api.types.is_numeric_dtype(data[c]) and not pd.api.types.is_bool_dtype(data[c])
    ]
    for a in attributes:
        if a not in data.columns:
            raise PrivlabError(f"attributes must be columns of {data_name}; got {a!r}")
        if a not in numeric:  # LPB's noise is added to a number
            raise PrivlabError(
                f"attributes must be numeric columns of {data_name} ({', '.join(map(str, numeric)) or 'none'}); "
                f"got {a!r}, which holds text"
            )
    return {a: check_array(f"column {a}", data[a].dropna().to_numpy(dtype=float)) for a in attributes}


def attribute_table(
    columns: Mapping[str, np.ndarray], printed: Mapping[str, Any], stands_for: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Table II: one row per attribute (`attribute_summary`, without ``range``) beside its printed row.

    Parameters
    ----------
    columns : mapping
        Attribute -> its column (`attribute_columns`), in the table's order.
    printed : mapping
        The paper's attribute -> its printed row (``max``, ``min``, ``sensitivity``, ``rg``).
    stands_for : mapping, optional
        On a real-data twin: column -> the paper's attribute whose printed row it is shown beside.
    """
    names = _stands_for(stands_for)
    rows = []
    for a, column in _columns(columns).items():
        p = printed.get(names.get(a, a)) if isinstance(printed, Mapping) else None
        if not isinstance(p, Mapping) or not {"max", "min", "sensitivity", "rg"} <= set(p):
            raise PrivlabError(f"printed must hold a row (max, min, sensitivity, rg) for {names.get(a, a)!r}")
        s = attribute_summary(column)
        s.pop("range")
        rows.append({"attribute": a, **s, "printed_max": p["max"], "printed_min": p["min"]})
        rows[-1].update(printed_sensitivity=float(p["sensitivity"]), printed_rg=float(p["rg"]))
    return pd.DataFrame(rows)


def data_facts(data: pd.DataFrame, class_label: str, attributes: Sequence[str]) -> pd.DataFrame:
    """What Section V says about the data, measured: records, attributes (all columns but the
    class label), how many are numerical and categorical, the numerical ones' names and the
    range ``min~max`` of each of ``attributes``.

    Returns
    -------
    DataFrame
        ``fact``, ``value`` (as text): ``records``, ``attributes``, ``numerical``, ``categorical``,
        ``numerical_names`` and ``<attribute>_range``.
    """
    attribute_columns(data, attributes)
    if class_label not in data.columns:
        raise PrivlabError(f"class_label must be a column of the data; got {class_label!r}")
    attrs = [c for c in data.columns if c != class_label]
    numeric = [c for c in attrs if pd.api.types.is_numeric_dtype(data[c])]
    facts: dict[str, Any] = {"records": f"{len(data):,}", "attributes": len(attrs), "numerical": len(numeric)}
    facts |= {"categorical": len(attrs) - len(numeric), "numerical_names": ", ".join(numeric)}
    facts |= {f"{a}_range": f"{data[a].min():g}~{data[a].max():g}" for a in attributes}
    return pd.DataFrame({"fact": list(facts), "value": [str(v) for v in facts.values()]})


def _columns(columns: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Validate a mapping attribute -> column."""
    if not isinstance(columns, Mapping) or not columns:
        raise PrivlabError("columns must be a non-empty mapping of attribute names to columns")
    return {str(a): check_array(f"column {a}", c) for a, c in columns.items()}


def _stands_for(stands_for: Mapping[str, str] | None) -> dict[str, str]:
    """Validate a twin's mapping column -> the paper's attribute."""
    if stands_for is None:
        return {}
    if not isinstance(stands_for, Mapping):
        raise PrivlabError(f"stands_for must be a mapping of columns to the paper's attributes, got {stands_for!r}")
    return {str(k): str(v) for k, v in stands_for.items()}
