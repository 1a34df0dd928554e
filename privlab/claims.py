"""Claims: what a paper prints or states, checked against the reproduction.

A claim's verdict is one of three words:

``agree``
    a comparison that could have failed came out in the paper's favour;
``disagree``
    it came out against the paper (a typo, a wrong formula, a statement our data refutes);
``info``
    reported but not checkable: a value the paper does not print, a measured figure
    shown for reading, or a statement true by construction of privlab's own code or data.
    Its note says which.

Claims are built only through the helpers below, each of which decides the verdict by
its own comparison and records the rule it applied; no experiment writes a verdict.
Every threshold a helper takes comes from the experiment's config (``claims:``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

VERDICTS = ("agree", "disagree", "info")
# a note that opens with one of these says what caused a disagreement that is no error of the paper
RECONSTRUCTED = "[reconstructed"  # privlab rebuilt what it compares: "[reconstructed] ...", "[reconstructed inputs]"
OTHER_DATA = "[other data]"  # the claim was checked on data other than the paper's
COLUMNS = ("claim", "printed", "reproduced", "verdict", "rule", "note", "ledger")

__all__ = [
    "VERDICTS",
    "Claim",
    "printed_value",
    "equal",
    "within_se",
    "gof",
    "at_most",
    "at_least",
    "between",
    "monotone",
    "statement",
    "info",
    "decimals_of",
    "rounds_to",
    "each",
    "RECONSTRUCTED",
    "OTHER_DATA",
    "on_other_data",
]


@dataclass(frozen=True)
class Claim:
    """One row of ``claims.csv``."""

    claim: str
    printed: str
    reproduced: str
    verdict: str
    rule: str = ""
    note: str = ""
    ledger: str = ""  # the id of the paper's ledger item this claim checks (experiments/<paper>.ledger.yaml)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}; got {self.verdict!r}")
        if self.verdict == "info" and not self.note:
            raise ValueError(f"an info claim says in its note why it is not checkable: {self.claim!r}")

    def row(self) -> dict[str, str]:
        return asdict(self)


def _decide(holds: Any) -> str:
    if not isinstance(holds, (bool, np.bool_)):
        raise TypeError(f"a claim's comparison must give a bool, got {type(holds).__name__}")
    return "agree" if holds else "disagree"


Item = str | Mapping[str, Any]


def _item(item: Item, printed: Any, note: str, if_disagree: str) -> tuple[str, Any, str, str]:
    """A claim's text, printed value and notes: from a string, or from a ``printed:`` entry of the
    config (``claim``, ``value``, and optionally ``where``, ``note``, ``if_disagree``), whose
    fields the keyword arguments override."""
    if isinstance(item, str):
        return item, ("-" if printed is None else printed), note, if_disagree
    if not isinstance(item, Mapping) or "claim" not in item:
        raise TypeError(f"a claim item is a string or a printed: entry with a 'claim' key, got {item!r}")
    text = str(item["claim"]) + (f" ({item['where']})" if item.get("where") else "")
    value = printed if printed is not None else item.get("value", "-")
    return text, value, note or str(item.get("note", "")), if_disagree or str(item.get("if_disagree", ""))


def each(item: Mapping[str, Any], suffix: str, value: Any) -> dict[str, Any]:
    """One element of a printed list (a ``printed:`` entry with ``values``): the entry's claim
    with ``suffix`` appended and the element's own printed ``value``."""
    out = {k: v for k, v in item.items() if k != "values"}  # keeps the entry's ledger id
    return {**out, "claim": f"{item['claim']}, {suffix}", "value": value}


def _ledger(item: Item) -> str:
    return str(item.get("ledger", "")) if isinstance(item, Mapping) else ""


def _make(item: Item, printed: Any, reproduced: Any, holds: Any, rule: str, note: str, if_disagree: str) -> Claim:
    verdict = _decide(holds)
    text, value, note, if_disagree = _item(item, printed, note, if_disagree)
    if verdict == "disagree" and if_disagree:
        note = f"{note}; {if_disagree}" if note else if_disagree
    return Claim(text, _show(value), str(reproduced), verdict, rule, note, _ledger(item))


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)) or (hasattr(value, "__iter__") and not isinstance(value, (str, Mapping))):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def decimals_of(printed: Any) -> int:
    """Decimals a printed number shows ("0.0020" -> 4). Write printed values as strings in
    config to keep trailing zeros; a YAML float 0.0020 reads back as 0.002."""
    text = str(printed).strip().lower()
    if "e" in text:
        mantissa, _, exponent = text.partition("e")
        return max(0, decimals_of(mantissa) - int(exponent))
    return len(text.split(".", 1)[1]) if "." in text else 0


def rounds_to(printed: Any, value: float, decimals: int | None = None) -> bool:
    """Does ``value`` print as ``printed`` at the printed precision (half a unit of the last digit)?"""
    d = decimals_of(printed) if decimals is None else decimals
    return bool(abs(float(printed) - float(value)) <= 0.5 * 10.0 ** (-d) + 1e-12)


def printed_value(
    item: Item,
    value: float,
    *,
    printed: Any = None,
    decimals: int | None = None,
    reproduced: str | None = None,
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """A number the paper prints against its recomputation, at the printed precision.

    Agrees when ``value`` rounds to the printed number at its number of decimals
    (``decimals`` overrides what the printed text shows). ``printed`` defaults to the
    item's ``value``.
    """
    _, shown_printed, _, _ = _item(item, printed, note, if_disagree)
    d = decimals_of(shown_printed) if decimals is None else decimals
    shown = reproduced if reproduced is not None else f"{float(value):.{d + 2}f}"
    holds = rounds_to(shown_printed, value, d)
    return _make(item, shown_printed, shown, holds, f"rounds to the printed value at {d} decimals", note, if_disagree)


def equal(item: Item, reproduced: Any, *, printed: Any = None, note: str = "", if_disagree: str = "") -> Claim:
    """A printed count, set, word or list against the recomputed one: equal or not."""
    _, shown_printed, _, _ = _item(item, printed, note, if_disagree)
    holds = _normal(shown_printed) == _normal(reproduced)
    return _make(item, shown_printed, _show(reproduced), holds, "equal", note, if_disagree)


def _normal(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {k: _normal(v) for k, v in x.items()}
    if isinstance(x, str):
        return x
    if hasattr(x, "__iter__"):
        return [_normal(v) for v in list(x)]
    if isinstance(x, (np.integer, np.floating, np.bool_)):
        return x.item()
    return x


def within_se(
    item: Item,
    estimate: Any,
    exact: Any,
    se: Any,
    *,
    k: float,
    printed: Any = "(exact counterpart)",
    detail: str = "",
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """Monte Carlo estimates against their exact values: every ``|estimate - exact| <= k * se``.

    Entries with ``se == 0`` (a deterministic estimate) must match to 1e-9.
    """
    est, ex, s = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (estimate, exact, se))
    est, ex, s = np.broadcast_arrays(est, ex, s)
    diff = np.abs(est - ex)
    noisy = s > 0
    z = diff[noisy] / s[noisy]
    zmax = float(z.max()) if z.size else 0.0
    exact_ok = bool(np.all(diff[~noisy] <= 1e-9))
    holds = bool(zmax <= k) and exact_ok and bool(np.all(np.isfinite(z)))
    text = f"max |estimate - exact| / se = {zmax:.2f} over {est.size} value(s)"
    if (~noisy).any():
        text += f"; {int((~noisy).sum())} deterministic value(s) {'equal' if exact_ok else 'differ'}"
    if detail:
        text += f"; {detail}"
    return _make(item, printed, text, holds, f"|z| <= {k:g}", note, if_disagree)


def gof(
    item: Item,
    pvalue: float,
    *,
    alpha: float,
    printed: Any = "agrees",
    detail: str = "",
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """A goodness-of-fit p-value against its level: agrees when ``p > alpha``."""
    text = f"p = {pvalue:.3g}" + (f"; {detail}" if detail else "")
    return _make(item, printed, text, bool(pvalue > alpha), f"p > {alpha:g}", note, if_disagree)


def at_most(
    item: Item,
    value: float,
    bound: float,
    *,
    printed: Any = None,
    reproduced: str | None = None,
    strict: bool = False,
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """``value <= bound`` (``<`` with ``strict``)."""
    holds = bool(value < bound) if strict else bool(value <= bound)
    shown = reproduced if reproduced is not None else f"{value:.4g}"
    return _make(item, printed, shown, holds, f"{'<' if strict else '<='} {bound:g}", note, if_disagree)


def at_least(
    item: Item,
    value: float,
    bound: float,
    *,
    printed: Any = None,
    reproduced: str | None = None,
    strict: bool = False,
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """``value >= bound`` (``>`` with ``strict``)."""
    holds = bool(value > bound) if strict else bool(value >= bound)
    shown = reproduced if reproduced is not None else f"{value:.4g}"
    return _make(item, printed, shown, holds, f"{'>' if strict else '>='} {bound:g}", note, if_disagree)


def between(
    item: Item,
    value: float,
    low: float,
    high: float,
    *,
    printed: Any = None,
    reproduced: str | None = None,
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """``low <= value <= high`` (e.g. a ratio within bounds)."""
    holds = bool(low <= value <= high)
    shown = reproduced if reproduced is not None else f"{value:.4g}"
    return _make(item, printed, shown, holds, f"in [{low:g}, {high:g}]", note, if_disagree)


def monotone(
    item: Item,
    values: Sequence[float] | np.ndarray,
    *,
    increasing: bool = True,
    tol: float = 0.0,
    printed: Any = None,
    reproduced: str | None = None,
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """Every step of ``values`` goes the stated way, allowing steps back of at most ``tol``.

    ``tol = 0`` demands strict monotonicity; a positive ``tol`` (e.g. two standard errors)
    tolerates sampling noise.
    """
    v = np.asarray(values, dtype=float)
    steps = np.diff(v) if increasing else -np.diff(v)
    holds = bool(np.all(steps > 0)) if tol == 0 else bool(np.all(steps >= -tol))
    way = "increasing" if increasing else "decreasing"
    shown = reproduced if reproduced is not None else (f"{v[0]:.4g} -> {v[-1]:.4g}" if v.size else "no values")
    if v.size and not holds:
        shown += f" ({int((steps <= 0).sum() if tol == 0 else (steps < -tol).sum())} step(s) the other way)"
    rule = f"strictly {way}" if tol == 0 else f"{way} within {tol:.3g}"
    return _make(item, printed, shown, holds, rule, note, if_disagree)


def statement(
    item: Item,
    holds: bool | np.bool_,
    *,
    reproduced: str,
    rule: str,
    printed: Any = None,
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """A statement checked by a comparison the experiment computed (``holds``), with its rule.

    For comparisons the other helpers do not cover; ``holds`` must come from the result
    (the conformance test refuses a literal).
    """
    return _make(item, printed, reproduced, holds, rule, note, if_disagree)


def info(item: Item, reproduced: Any, *, note: str = "", printed: Any = None) -> Claim:
    """A row shown for reading, not checked; its note says why (not printed, true by construction, ...)."""
    text, value, note, _ = _item(item, printed, note, "")
    return Claim(text, _show(value), str(reproduced), "info", "not checkable", note, _ledger(item))


def on_other_data(claims: Sequence[Claim], what: str) -> list[Claim]:
    """``claims`` with the note of every disagree row opening with ``[other data] <what>``: a
    disagreement found on data other than the paper's says so (a note that already does is kept)."""
    out = []
    for c in claims:
        if c.verdict == "disagree" and OTHER_DATA not in c.note:
            note = f"{OTHER_DATA} {what}" + (f"; {c.note}" if c.note else "")
            c = Claim(c.claim, c.printed, c.reproduced, c.verdict, c.rule, note, c.ledger)
        out.append(c)
    return out


def counts(claims: Sequence[Claim]) -> dict[str, int]:
    """How many claims have each verdict."""
    out = dict.fromkeys(VERDICTS, 0)
    for c in claims:
        out[c.verdict] += 1
    return out


def counts_text(tally: dict[str, int]) -> str:
    return ", ".join(f"{tally[v]} {v}" for v in VERDICTS)
