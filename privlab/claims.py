"""Claims: what a paper prints or states, checked against the reproduction.

A claim's verdict is one of four words:

``agree``
    a comparison that could have failed came out in the paper's favour;
``disagree``
    it came out against the paper (a typo, a wrong formula, a statement our data refutes);
``inconclusive``
    the data cannot decide either way (too few trials in a cell, too few points for a trend,
    an interval wider than the margin); its note says why and what would decide it
    (e.g. "needs >= 2,400 trials in this cell: --profile paper");
``info``
    reported but not checkable: a value the paper does not print, a measured figure
    shown for reading, or a statement true by construction of privlab's own code or data.
    Its note says which.

Claims are built only through the helpers below, each of which decides the verdict by
its own comparison and records the rule it applied; no experiment writes a verdict.
Every threshold a helper takes comes from the experiment's config (``claims:``).

A claim decided on a number carries its `Comparison`: the value its rule read, what it was
compared with, the declared margin, the values at which the verdict changes and the rule itself
as a function, so that ``privlab claims --audit`` can print where each verdict flips and the
verdict mutation test can move the value past its margin. Two things *coincide* by an
equivalence test against a declared margin (`coincide`), never by failing to reject a difference;
they *differ* by a difference test (`differ`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ._lazy import lazy
from .stats import equivalence, gof_effect_bound, gof_trials_to_decide, log_slope, trials_to_decide

VERDICTS = ("agree", "disagree", "inconclusive", "info")
CHECKED = ("agree", "disagree")  # the verdicts that decide a claim
# a note that opens with one of these says what caused a disagreement that is no error of the paper
RECONSTRUCTED = "[reconstructed"  # privlab rebuilt what it compares: "[reconstructed] ...", "[reconstructed inputs]"
OTHER_DATA = "[other data]"  # the claim was checked on data other than the paper's
COLUMNS = ("claim", "printed", "reproduced", "verdict", "rule", "note", "ledger")

_st = lazy("scipy.stats")

__all__ = [
    "VERDICTS",
    "Claim",
    "printed_value",
    "equal",
    "within_se",
    "gof",
    "fits",
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
    "Comparison",
    "coincide",
    "differ",
    "inconclusive",
    "trend",
    "below_everywhere",
    "all_of",
    "CHECKED",
]


@dataclass(frozen=True)
class Comparison:
    """What a claim's rule compared, in a form that can be audited and mutated.

    ``value`` is the reproduced number the rule read, ``reference`` what it was compared with
    (a bound, the printed value, a level), ``margin`` the declared margin or slack (0 for a sharp
    bound), ``flips_at`` the values of ``value`` at which the verdict changes (empty: it cannot
    change), and ``decide`` the rule itself: the verdict the claim would have at another ``value``.
    """

    value: float
    reference: float
    margin: float
    flips_at: tuple[float, ...]
    decide: Callable[[float], str] = field(repr=False)

    def around(self, point: float) -> tuple[str, str]:
        """The verdicts just below and just above ``point``."""
        step = 1e-6 * max(abs(point), abs(self.margin), abs(self.reference), 1e-9)
        return self.decide(point - step), self.decide(point + step)

    def nearest_flip(self) -> float | None:
        """The flip point nearest to ``value`` where the verdict really changes (None: none does)."""
        real = [f for f in self.flips_at if len({*self.around(f), self.decide(f)}) > 1]
        return min(real, key=lambda f: abs(f - self.value)) if real else None

    def reaching(self, targets: Sequence[str]) -> float | None:
        """The value nearest to ``value``, just past one of the flip points, at which the rule says one
        of ``targets`` (None: no flip point leads there)."""
        for f in sorted(self.flips_at, key=lambda f: abs(f - self.value)):
            step = 1e-6 * max(abs(f), abs(self.margin), abs(self.reference), 1e-9)
            for v in (f - step, f + step, f):  # f itself: an exact equality agrees at one point
                if self.decide(v) in targets:
                    return v
        return None

    def text(self) -> str:
        flips = ", ".join(f"{f:.6g}" for f in self.flips_at) or "never"
        return f"value {self.value:.6g} vs {self.reference:.6g} (margin {self.margin:.3g}); flips at {flips}"


def _bound(value: float, bound: float, holds: Callable[[float], bool], margin: float = 0.0) -> Comparison:
    return Comparison(float(value), float(bound), float(margin), (float(bound),), lambda v: _decide(holds(v)))


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
    comparison: Comparison | None = field(default=None, compare=False, repr=False)  # not a column of claims.csv

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}; got {self.verdict!r}")
        if self.verdict == "info" and not self.note:
            raise ValueError(f"an info claim says in its note why it is not checkable: {self.claim!r}")
        if self.verdict == "inconclusive" and not self.note:
            raise ValueError(f"an inconclusive claim says in its note what would decide it: {self.claim!r}")

    def row(self) -> dict[str, str]:
        return {k: getattr(self, k) for k in COLUMNS}


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


def _make(
    item: Item,
    printed: Any,
    reproduced: Any,
    holds: Any,
    rule: str,
    note: str,
    if_disagree: str,
    comparison: Comparison | None = None,
    verdict: str | None = None,
) -> Claim:
    verdict = verdict or _decide(holds)
    text, value, note, if_disagree = _item(item, printed, note, if_disagree)
    if verdict == "disagree" and if_disagree:
        note = f"{note}; {if_disagree}" if note else if_disagree
    return Claim(text, _show(value), str(reproduced), verdict, rule, note, _ledger(item), comparison)


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
    half = 0.5 * 10.0 ** (-d)
    p = float(shown_printed)
    compared = Comparison(
        float(value), p, half, (p - half - 1e-12, p + half + 1e-12), lambda v: _decide(rounds_to(shown_printed, v, d))
    )
    rule = f"rounds to the printed value at {d} decimals"
    return _make(item, shown_printed, shown, holds, rule, note, if_disagree, compared)


def equal(item: Item, reproduced: Any, *, printed: Any = None, note: str = "", if_disagree: str = "") -> Claim:
    """A printed count, set, word or list against the recomputed one: equal or not."""
    _, shown_printed, _, _ = _item(item, printed, note, if_disagree)
    holds = _normal(shown_printed) == _normal(reproduced)
    compared = None
    if _number(reproduced) and _number(shown_printed):  # a number compared exactly: any other value flips it
        ref, v = float(shown_printed), float(reproduced)
        tiny = 1e-12 * max(1.0, abs(ref))
        compared = Comparison(v, ref, 0.0, (ref,), lambda x: _decide(abs(x - ref) <= tiny))
    return _make(item, shown_printed, _show(reproduced), holds, "equal", note, if_disagree, compared)


def _number(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (int, float, np.integer, np.floating)):
        return math.isfinite(float(x))
    if isinstance(x, str):
        try:
            return math.isfinite(float(x))
        except ValueError:
            return False
    return False


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
    finite = bool(np.all(np.isfinite(z)))
    holds = bool(zmax <= k) and exact_ok and finite
    text = f"max |estimate - exact| / se = {zmax:.2f} over {est.size} value(s)"
    if (~noisy).any():
        text += f"; {int((~noisy).sum())} deterministic value(s) {'equal' if exact_ok else 'differ'}"
    if detail:
        text += f"; {detail}"
    compared = _bound(zmax, k, lambda v: bool(v <= k) and exact_ok and finite)
    return _make(item, printed, text, holds, f"|z| <= {k:g}", note, if_disagree, compared)


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
    compared = _bound(pvalue, alpha, lambda v: bool(v > alpha))
    return _make(item, printed, text, bool(pvalue > alpha), f"p > {alpha:g}", note, if_disagree, compared)


def fits(
    item: Item,
    statistic: float,
    dof: int,
    trials: float,
    *,
    margin: float,
    alpha: float,
    difference_alpha: float,
    other_p: float | None = None,
    other_test: str = "other test",
    decide_with: str = "",
    printed: Any = "agrees",
    detail: str = "",
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """A table of ``trials`` counts follows its law, from its Pearson chi-square ``statistic`` on
    ``dof`` degrees of freedom: shown within ``margin`` of the law in Cohen's w by Wellek's
    equivalence test at ``alpha`` (`privlab.stats.gof_effect_bound`), not merely not rejected.

    Disagrees when the chi-square test (or the other test of the same table whose p-value is
    ``other_p``, named ``other_test``, e.g. the G-test) rejects the law at ``difference_alpha``; agrees when the
    upper bound of w lies below ``margin``; otherwise ``inconclusive`` (too few trials to show
    the table that close), saying how many trials would decide it and how to get them.
    """
    margin = float(margin)
    st = _st
    rejects_at = float(st.chi2.isf(difference_alpha, dof))  # the difference test rejects above this
    close_below = float(st.ncx2.ppf(alpha, dof, trials * margin**2))  # Wellek: within the margin below this

    other_rejects = other_p is not None and float(other_p) <= difference_alpha

    def decide(x: float) -> str:
        if x >= rejects_at or other_rejects:
            return "disagree"
        return "agree" if x < close_below else "inconclusive"

    x = float(statistic)
    verdict = decide(x) if math.isfinite(x) else "disagree"
    bound = gof_effect_bound(x, dof, trials, alpha=alpha)
    shown = f"chi2 = {x:.6g} on {dof:,} df, p = {float(st.chi2.sf(x, dof)):.3g}; w <= {bound:.3g}"
    shown += f" ({100 * (1 - alpha):g}% bound)" + (f"; {detail}" if detail else "")
    if verdict == "inconclusive":
        need = gof_trials_to_decide(dof, margin, alpha=alpha)
        why = f"w's bound {bound:.3g} is not below the margin {margin:g}: needs >= {math.ceil(need):,} trials"
        why += f": {decide_with}" if decide_with else ""
        note = _add_note(note, why)
    compared = Comparison(x, float(dof), margin, (close_below, rejects_at), decide)
    tests = f"chi-square or the {other_test}" if other_p is not None else "chi-square test"
    rule = (
        f"within w < {margin:g} of the law (Wellek's chi-square equivalence test, alpha {alpha:g}); "
        f"rejected if the {tests} p <= {difference_alpha:.3g}"
    )
    return _make(item, printed, shown, None, rule, note, if_disagree, compared, verdict=verdict)


def _one_sided(
    item: Item,
    value: float,
    bound: float,
    above: bool,
    strict: bool,
    printed: Any,
    reproduced: str | None,
    note: str,
    if_disagree: str,
    rule: str | None,
) -> Claim:
    """``value`` on the stated side of ``bound`` (above it or below it), the bound itself included
    unless ``strict``."""

    def holds(v: float) -> bool:
        if above:
            return bool(v > bound) if strict else bool(v >= bound)
        return bool(v < bound) if strict else bool(v <= bound)

    shown = reproduced if reproduced is not None else f"{value:.4g}"
    sign = (">" if above else "<") + ("" if strict else "=")
    rule = rule if rule is not None else f"{sign} {bound:g}"
    return _make(item, printed, shown, holds(value), rule, note, if_disagree, _bound(value, bound, holds))


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
    rule: str | None = None,
) -> Claim:
    """``value <= bound`` (``<`` with ``strict``); ``rule`` says what the value is, when ``<= bound`` does not."""
    return _one_sided(item, value, bound, False, strict, printed, reproduced, note, if_disagree, rule)


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
    rule: str | None = None,
) -> Claim:
    """``value >= bound`` (``>`` with ``strict``); ``rule`` says what the value is, when ``>= bound`` does not."""
    return _one_sided(item, value, bound, True, strict, printed, reproduced, note, if_disagree, rule)


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
    compared = Comparison(
        float(value), (low + high) / 2, (high - low) / 2, (float(low), float(high)), lambda v: _decide(low <= v <= high)
    )
    return _make(item, printed, shown, holds, f"in [{low:g}, {high:g}]", note, if_disagree, compared)


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
    compared = None
    if steps.size:  # the worst step against the tolerated step back
        worst = float(steps.min())
        compared = _bound(worst, -tol, (lambda x: bool(x > 0)) if tol == 0 else (lambda x: bool(x >= -tol)))
    return _make(item, printed, shown, holds, rule, note, if_disagree, compared)


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


def _add_note(note: str, why: str) -> str:
    """``why`` (what an undecided claim needs) after the claim's own note."""
    return f"{note}; {why}" if note else why


def _quantile(alpha: float, dof: float | None = None) -> float:
    """The one-sided quantile that `privlab.stats.equivalence` widens an interval by: z, or Student's t
    on ``dof`` degrees of freedom."""
    return float(_st.norm.isf(alpha)) if dof is None else float(_st.t.isf(alpha, dof))


def _above(low: float, high: float, margin: float) -> str:
    """An interval [low, high] against "above margin": shown above, shown below, or undecided."""
    return "agree" if low > margin else "disagree" if high < margin else "inconclusive"


def _three_way(decision: str, agree_on: str) -> str:
    return "agree" if decision == agree_on else "inconclusive" if decision == "undecided" else "disagree"


def _needs(d: float, s: float, margin: float, trials: Any, decide_with: str) -> str:
    """What would decide an undecided comparison: the trials it needs (where known), and how to get them."""
    if trials is None or not s > 0:
        return "a narrower interval" + (f": {decide_with}" if decide_with else "")
    n = trials_to_decide(d, s, margin, float(trials))
    need = (
        "trials beyond any number (the difference sits on the margin)" if math.isinf(n) else f"{math.ceil(n):,} trials"
    )
    return f">= {need}" + (f": {decide_with}" if decide_with else "")


def coincide(
    item: Item,
    estimate: Any,
    reference: Any,
    se: Any,
    *,
    margin: float,
    alpha: float = 0.05,
    trials: Any = None,
    decide_with: str = "",
    printed: Any = None,
    detail: str = "",
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """Two things coincide: every ``estimate - reference`` is shown smaller than ``margin`` by an
    equivalence test (TOST at level ``alpha``, `privlab.stats.equivalence`).

    Agrees when every interval lies inside ``(-margin, margin)`` (an intersection-union test: level
    ``alpha`` as it is); disagrees when one value's interval at the family-wise level ``alpha / m``
    (Bonferroni over the m values: any one of them may decide) lies wholly beyond the margin;
    otherwise (an interval wider than the room left) it is ``inconclusive``, and its note says how
    many trials (``trials``: each value's trials now, as a number or an array) would decide it and
    how to get them (``decide_with``, e.g. "--profile paper").
    """
    est, ref, s = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (estimate, reference, se))
    est, ref, s = np.broadcast_arrays(est, ref, s)
    n = None if trials is None else np.broadcast_to(np.asarray(trials, dtype=float), est.shape)
    d = est - ref
    family = alpha / max(1, d.size)

    def one(x: float, y: float) -> str:
        v = _three_way(equivalence(x, y, margin, alpha=alpha).decision, "equivalent")
        if v == "disagree" and family < alpha:  # beyond the margin at alpha, and still at alpha / m?
            v = (
                "disagree"
                if _three_way(equivalence(x, y, margin, alpha=family).decision, "equivalent") == "disagree"
                else "inconclusive"
            )
        return v

    def verdicts(diffs: np.ndarray) -> list[str]:
        return [one(x, y) for x, y in zip(diffs, s)]

    def overall(vs: list[str]) -> str:
        return "disagree" if "disagree" in vs else "inconclusive" if "inconclusive" in vs else "agree"

    each_v = verdicts(d)
    verdict = overall(each_v)
    z, z_family = _quantile(alpha), _quantile(family)
    # the cell that decides: the most different one for a disagree, else the least certain one
    key = (np.abs(d) - z_family * s) if verdict == "disagree" else (np.abs(d) + z * s)
    i = int(np.nanargmax(np.where(np.isfinite(key), key, np.inf)))
    zi = z_family if verdict == "disagree" else z
    lo, hi = d[i] - zi * s[i], d[i] + zi * s[i]
    text = f"largest |difference| {np.abs(d).max():.4g}; deciding value {d[i]:+.4g}, interval [{lo:.4g}, {hi:.4g}]"
    text += f" over {d.size} value(s)" + (f"; {detail}" if detail else "")
    if verdict == "inconclusive":
        why = f"interval [{lo:.3g}, {hi:.3g}] straddles the margin +-{margin:g}: needs " + _needs(
            d[i], s[i], margin, None if n is None else n[i], decide_with
        )
        note = _add_note(note, why)

    def decide(v: float) -> str:
        moved = np.abs(d).copy()
        moved[i] = abs(v)
        return overall(verdicts(moved))

    flips = tuple(sorted({max(0.0, margin - z * s[i]), margin + z_family * s[i]}))
    compared = Comparison(float(abs(d[i])), 0.0, float(margin), flips, decide)
    rule = f"equivalence (TOST, alpha {alpha:g}) within +-{margin:g}"
    if d.size > 1:
        rule += f"; beyond it at alpha/{d.size} (Bonferroni)"
    return _make(item, printed, text, None, rule, note, if_disagree, compared, verdict=verdict)


def differ(
    item: Item,
    difference: float,
    se: float,
    *,
    margin: float,
    alpha: float = 0.05,
    trials: Any = None,
    decide_with: str = "",
    printed: Any = None,
    reproduced: str | None = None,
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """One thing exceeds another by more than ``margin``: ``difference`` (the stated way round:
    "A higher than B" is A - B) is shown larger than ``margin`` by a one-sided test at ``alpha``.

    Agrees when the interval lies wholly above ``margin``; disagrees when it lies wholly below;
    ``inconclusive`` otherwise, with what would decide it. A deterministic value (``se == 0``) is
    compared with ``margin`` directly.
    """
    d, s = float(difference), float(se)
    z = _quantile(alpha)

    def decide(v: float) -> str:
        if s == 0:
            return _decide(v > margin)
        return _above(v - z * s, v + z * s, margin)

    verdict = decide(d)
    shown = reproduced if reproduced is not None else f"{d:.4g}"
    if s > 0:
        shown += f" (interval [{d - z * s:.4g}, {d + z * s:.4g}])"
    if verdict == "inconclusive":
        why = f"interval straddles the margin {margin:g}: needs " + _needs(d, s, margin, trials, decide_with)
        note = _add_note(note, why)
    flips = (float(margin),) if s == 0 else (margin - z * s, margin + z * s)
    compared = Comparison(d, 0.0, float(margin), flips, decide)
    rule = f"difference > {margin:g}" + (f" (one-sided, alpha {alpha:g})" if s > 0 else "")
    return _make(item, printed, shown, None, rule, note, if_disagree, compared, verdict=verdict)


def trend(
    item: Item,
    x: Any,
    y: Any,
    *,
    way: str,
    margin: float = 0.0,
    alpha: float = 0.05,
    min_points: int = 3,
    decide_with: str = "",
    printed: Any = None,
    reproduced: str | None = None,
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """How ``y`` grows with ``x``, from the fitted exponent b of y ~ x^b (least squares on logs,
    `privlab.stats.log_slope`) and its t-interval at level ``alpha`` from the residuals.

    ``way`` is ``"up"`` (b shown above ``margin``), ``"down"`` (b shown below ``-margin``),
    ``"little"`` (b shown below ``margin``: grows at most that fast) or ``"flat"`` (|b| shown below
    ``margin``: an equivalence test). Fewer than ``min_points`` points
    (or an interval that straddles the margin) are ``inconclusive``, saying what would decide it.
    """
    if way not in ("up", "down", "little", "flat"):
        raise ValueError(f"way must be one of up, down, little, flat; got {way!r}")
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(xs) & np.isfinite(ys) & (xs > 0) & (ys > 0)
    xs, ys = xs[keep], ys[keep]
    rule = {
        "up": f"exponent > {margin:.3g}",
        "down": f"exponent < {-margin:.3g}",
        "little": f"exponent < {margin:.3g}",
        "flat": f"|exponent| < {margin:.3g}",
    }[way]
    rule += (
        f" (fitted on >= {min_points} points, {100 * (1 - 2 * alpha if way == 'flat' else 1 - alpha):g}% t-interval)"
    )
    points = f"{xs.size} point(s)" + (f": {ys[0]:.4g} -> {ys[-1]:.4g}" if xs.size else "")
    shown = reproduced if reproduced is not None else points
    if xs.size < min_points or np.unique(xs).size < 2:
        why = f"{xs.size} point(s) cannot show a trend"
        need = f">= {min_points} points with an interval" + (f": {decide_with}" if decide_with else "")
        return inconclusive(item, shown, why=why, needs=need, rule=rule, printed=printed, note=note)
    b, se, dof = log_slope(xs, ys)

    t = _quantile(alpha, dof)

    def decide(v: float) -> str:
        if way == "flat":
            return _three_way(equivalence(v, se, margin, alpha=alpha, dof=dof).decision, "equivalent")
        lo, hi = v - t * se, v + t * se
        if way == "up":
            return _above(lo, hi, margin)
        return _above(-hi, -lo, margin if way == "down" else -margin)  # below -margin, or below margin

    verdict = decide(b)
    shown += f"; exponent {b:+.3f} (interval [{b - t * se:+.3f}, {b + t * se:+.3f}], {dof} df)"
    if verdict == "inconclusive":
        why = f"the exponent's interval straddles the margin {margin:g}: needs more or repeated points"
        why += f": {decide_with}" if decide_with else ""
        note = _add_note(note, why)
    edges = (-margin - t * se, -margin + t * se) if way == "down" else (margin - t * se, margin + t * se)
    flips = (-margin - t * se, -margin + t * se, margin - t * se, margin + t * se) if way == "flat" else edges
    compared = Comparison(b, 0.0, float(margin), tuple(sorted(set(flips))), decide)
    return _make(item, printed, shown, None, rule, note, if_disagree, compared, verdict=verdict)


def below_everywhere(
    item: Item,
    a_low: Any,
    a_high: Any,
    b_low: Any,
    b_high: Any,
    *,
    at: Sequence[Any],
    decide_with: str = "",
    printed: Any = None,
    reproduced: str | None = None,
    note: str = "",
    if_disagree: str = "",
) -> Claim:
    """A is below B at every point of ``at``, beyond the spread of repeated measurements: each
    point's range ``[a_low, a_high]`` (e.g. the fastest and the slowest of repeated timings)
    against B's ``[b_low, b_high]``.

    Agrees when A's slowest run is below B's fastest at every point; disagrees when A's fastest
    is above B's slowest at some point; otherwise (ranges that overlap) ``inconclusive``, saying
    where and what would decide it. A single run per point is its own range.
    """
    al, ah, bl, bh = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (a_low, a_high, b_low, b_high))
    al, ah, bl, bh = np.broadcast_arrays(al, ah, bl, bh)
    points = list(at)
    gaps = ah - bl  # below 0 at a point: A's slowest is below B's fastest there
    i = int(np.nanargmax(gaps))
    worst = float(gaps[i])
    # A's fastest above B's slowest somewhere: A is above B whatever the runs' spread. As a value of
    # the worst gap (A shifted as a whole), that happens beyond ``above_at``
    above_at = worst - float(np.nanmax(al - bh))

    def decide(v: float) -> str:
        if v > above_at:
            return "disagree"
        return "agree" if v < 0 else "inconclusive"

    verdict = decide(worst)
    shown = reproduced if reproduced is not None else f"closest at {points[i]}: {ah[i]:.4g} vs {bl[i]:.4g}"
    if verdict == "inconclusive":
        overlap = ", ".join(str(points[j]) for j in np.flatnonzero(gaps >= 0))
        why = f"the runs' ranges overlap at {overlap}: needs more repeated runs or a wider gap"
        why += f": {decide_with}" if decide_with else ""
        note = _add_note(note, why)
    compared = Comparison(worst, 0.0, 0.0, tuple(sorted({0.0, above_at})), decide)
    rule = "below at every point: A's slowest run under B's fastest (overlapping ranges: inconclusive)"
    return _make(item, printed, shown, None, rule, note, if_disagree, compared, verdict=verdict)


def all_of(
    item: Item, flags: Sequence[bool], *, what: str, printed: Any = None, reproduced: str | None = None, note: str = ""
) -> Claim:
    """A statement that must hold in every one of several cases (``flags``, one per panel, attribute,
    setting): agrees when all do; the value read is how many do, so one case the other way flips it."""
    held, n = sum(bool(f) for f in flags), len(flags)
    shown = reproduced if reproduced is not None else f"holds in {held} of {n} {what}"
    return at_least(item, held, max(n, 1), printed=printed, reproduced=shown, note=note, rule=f"holds in every {what}")


def inconclusive(
    item: Item, reproduced: Any, *, why: str, needs: str, rule: str, printed: Any = None, note: str = ""
) -> Claim:
    """A claim the data cannot decide (too few points, no trial in the cell): ``why``, and what it
    ``needs`` to be decided (e.g. ">= 3 values of n: --profile paper")."""
    text = f"{why}; needs {needs}"
    return _make(item, printed, reproduced, None, rule, _add_note(note, text), "", verdict="inconclusive")


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
            c = replace(c, note=note)
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
