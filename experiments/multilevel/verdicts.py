"""The claims of the multilevel experiments, from their result tables.

One function per experiment (its ``_acs`` twin shares it): it takes the result table and the
config blocks it reads (``printed``: what the paper prints or states; ``limits``: the
experiment's ``claims:`` thresholds; the experiment's setting where a claim needs it), each an
OmegaConf node or a plain mapping, and returns the claims, built only through `privlab.claims`.
A real-data twin's ``printed.mapping`` adds an info row naming the data behind each law of X.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab import datasets
from privlab._lazy import lazy
from privlab._validation import check_mapping, check_table
from privlab.claims import Claim
from privlab.formulas import table_rows
from privlab.multilevel.exact import copy_given_x, expected_confidence_single, independent_all_other
from privlab.multilevel.overhead import change_points_se
from privlab.multilevel.priors import prior_domain
from privlab.stats import zscores

stats = lazy("scipy.stats")

__all__ = [
    "fig5_collusion",
    "fig6_equivalence",
    "agreement",
    "fig7_independent",
    "fig8_overhead",
    "formulas",
    "example",
    "priors",
]

Block = Mapping[str, Any]


def _max_z(estimate: Any, exact: Any, se: Any) -> float:
    return float(np.nanmax(zscores(estimate, exact, se)))


def _gap(item: Block, gap: float, tol: float, what: str = "difference") -> Claim:
    """An exact equality, checked as its largest gap against the floating-point slack ``tol``."""
    return cl.at_most(item, gap, tol, reproduced=f"max |{what}| = {gap:.2e}")


def _mapping(printed: Block, distributions: Block, domain_size: int) -> list[Claim]:
    """A real-data twin's mapping to the paper's data, as an info row (none elsewhere)."""
    if "mapping" not in printed:
        return []
    check_mapping("distributions", distributions)
    used = [(n, d) for n, d in distributions.items() if d is not None]
    laws = "; ".join(
        f"{n}: {d['kind']} {d['column']} of {d['dataset']['name']}, s = {prior_domain(d, domain_size)}"
        for n, d in used
        if "dataset" in d
    )
    return [cl.info(printed["mapping"], laws or "-")]


def fig5_collusion(
    df: pd.DataFrame, *, printed: Block, limits: Block, distributions: Block, domain_size: int
) -> list[Claim]:
    """Figure 5: Theorem 1 on the exact posteriors, and per law the MC posterior given all three
    copies shown equivalent to the one given Y_c alone within ``limits.margin`` (an equivalence test:
    a cell with too few trials to show it is ``inconclusive``, with the trials it needs)
    (`privlab.multilevel.collusion_table`).

    ``printed`` holds ``theorem1``, ``bars`` (with ``no_trials``, ``few_trials``) and ``trials``;
    ``limits`` ``exact_tol``, ``margin``, ``alpha`` and ``decide_with``; ``distributions`` and
    ``domain_size`` (the setting) name the data of a twin's ``mapping``.
    """
    columns = ("distribution", "y_a", "y_b", "y_c", "mc_all", "mc_all_se", "mc_c", "mc_c_se", "exact_all", "exact_c")
    check_table(df, (*columns, "count_all", "trials"), min_rows=1)
    p = check_mapping("printed", printed, ("theorem1", "bars", "trials"))
    c = check_mapping("limits", limits, ("exact_tol", "margin", "alpha", "decide_with"))
    out = [_gap(p["theorem1"], float((df.exact_all - df.exact_c).abs().max()), c["exact_tol"])]
    bars = p["bars"]
    for name, g in df.groupby("distribution", sort=False):
        first = g.iloc[0]
        item = cl.each(bars, f"{name}, cell {first.y_a},{first.y_b},{first.y_c}", bars["value"])
        trials = f"{first.count_all:,} trials in the cell of {first.trials:,}"
        if first.count_all == 0:
            out.append(cl.info(item, trials, note=bars["no_trials"]))
            continue
        detail = f"{trials}; MC given all three vs exact: max z = {_max_z(g.mc_all, g.exact_all, g.mc_all_se):.2f}"
        paper_trials = p["trials"]["value"]
        note = bars["few_trials"].format(int(paper_trials)) if first.trials < paper_trials else ""
        se = np.hypot(g.mc_all_se, g.mc_c_se)
        out.append(
            cl.coincide(
                item,
                g.mc_all,
                g.mc_c,
                se,
                margin=c["margin"],
                alpha=c["alpha"],
                trials=int(first.count_all),
                decide_with=str(c["decide_with"]),
                printed=bars["value"],
                detail=detail,
                note=note,
            )
        )
    return out + _mapping(p, distributions, domain_size)


def fig6_equivalence(
    df: pd.DataFrame, *, printed: Block, limits: Block, distributions: Block, domain_size: int
) -> list[Claim]:
    """Figure 6: Theorem 2 (the exact chain law of each copy is the uni-pert formula), the slides'
    worked value of it, and per law a chi-square test of the MC copy law against the formula
    (`privlab.multilevel.equivalence_table`).

    ``printed`` holds ``theorem2``, ``worked_example`` (``domain_size``, ``retention``, ``value``)
    and ``bars``; ``limits`` ``exact_tol`` and ``alpha``; the setting as in `fig5_collusion`.
    """
    columns = ("distribution", "recipient", "p", "x", "mc", "mc_se", "uni_pert", "exact_chain", "count_x")
    check_table(df, columns, min_rows=1)
    p = check_mapping("printed", printed, ("theorem2", "worked_example", "bars"))
    c = check_mapping("limits", limits, ("exact_tol", "alpha"))
    ex = check_mapping("printed.worked_example", p["worked_example"], ("domain_size", "retention"))
    s_ex = int(ex["domain_size"])
    law = copy_given_x(np.full(s_ex, 1 / s_ex), list(ex["retention"]), s_ex, len(ex["retention"]) - 1)
    gap = float((df.exact_chain - df.uni_pert).abs().max())
    out = [_gap(p["theorem2"], gap, c["exact_tol"], what="chain - formula"), cl.printed_value(ex, law[0, 0])]
    bars = p["bars"]
    for name, g in df.groupby("distribution", sort=False):
        first = g.iloc[0]
        _, pval = stats.chisquare(g.mc * g.count_x, g.uni_pert * g.count_x)
        item = cl.each(bars, f"{name}, {first.recipient} at p={first.p:g}, x={first.x}", bars["value"])
        z = _max_z(g.mc, g.uni_pert, g.mc_se)
        detail = f"max |MC - formula| / SE = {z:.2f} over {first.count_x:,} trials with that x"
        out.append(cl.gof(item, float(pval), alpha=c["alpha"], printed=bars["value"], detail=detail))
    return out + _mapping(p, distributions, domain_size)


def agreement(
    df: pd.DataFrame, *, printed: Block, limits: Block, distributions: Block, domain_size: int
) -> list[Claim]:
    """The MC check: every table shown within ``limits.margin`` (Cohen's w) of the exact joint by
    Wellek's chi-square equivalence test at ``limits.alpha``, and not rejected by the chi-square
    or the G-test at ``limits.alpha`` Bonferroni-divided by the number of tables
    (`privlab.multilevel.agreement_table`); too few trials to show it is ``inconclusive``.

    ``printed`` holds ``follows`` (with ``rejected``); the setting as in `fig5_collusion`.
    """
    check_table(df, ("distribution", "table", "chi2", "g", "g_p", "chi2_p", "groups", "trials"), min_rows=1)
    p = check_mapping("printed", printed, ("follows",))
    c = check_mapping("limits", limits, ("alpha", "margin"))
    alpha, tests = c["alpha"], len(df)
    follows, out = p["follows"], []
    r: Any
    for r in df.itertuples():
        item = cl.each(follows, f"{r.table} ({r.distribution})", follows["value"])
        detail = f"G p = {r.g_p:.3f}; {r.groups:,} groups; {r.trials:,} trials"
        why = follows["rejected"].format(alpha=alpha, tests=tests)
        out.append(
            cl.fits(
                item,
                r.chi2,
                int(r.groups) - 1,
                r.trials,
                margin=c["margin"],
                alpha=alpha,
                difference_alpha=alpha / tests,
                other_p=r.g_p,
                other_test="G-test",
                decide_with="mc.trials (--profile paper: 10^10)",
                detail=detail,
                if_disagree=why,
            )
        )
    return out + _mapping(p, distributions, domain_size)


def fig7_independent(
    df: pd.DataFrame, *, printed: Block, limits: Block, mechanism: Block, domain_size: int
) -> list[Claim]:
    """Figure 7: pooling independent copies beats the best copy by more than ``limits.min_gain``;
    multi-pert's MC is shown against the best copy; the slides' "less than 1%"; every MC value
    within ``limits.z_max`` SE of its exact value (`privlab.multilevel.confidence_table`).

    ``printed`` holds ``leaks`` and ``no_gain`` (each naming its ``mechanism``), ``hiv`` and
    ``matches``; ``mechanism`` the config's mechanisms (name -> block with its ``label``, the
    table's ``scheme``); ``domain_size`` the setting's s.
    """
    check_table(df, ("scheme", "k", "best_p", "exact", "mc", "mc_se"), min_rows=1)
    p = check_mapping("printed", printed, ("leaks", "no_gain", "hiv", "matches"))
    c = check_mapping("limits", limits, ("min_gain", "z_max"))
    check_mapping("mechanism", mechanism)
    hiv = check_mapping("printed.hiv", p["hiv"], ("retention", "domain_size", "bound"))
    kmax, out = int(df.k.max()), []
    by = {label: g.set_index("k") for label, g in df.groupby("scheme", sort=False)}
    label = {name: m["label"] for name, m in mechanism.items()}  # the statements name mechanisms
    if label.get(p["leaks"]["mechanism"]) in by:
        g = by[label[p["leaks"]["mechanism"]]]
        best = expected_confidence_single(g.best_p[kmax], domain_size)
        shown = f"k={kmax}: {g.exact[kmax]:.3f} vs best copy {best:.3f}"
        out.append(cl.at_least(p["leaks"], g.exact[kmax] - best, c["min_gain"], strict=True, reproduced=shown))
    if label.get(p["no_gain"]["mechanism"]) in by:
        g = by[label[p["no_gain"]["mechanism"]]]
        z = _max_z(g.mc, g.exact, g.mc_se)
        out.append(cl.info(p["no_gain"], f"MC within {z:.2f} SE of the best copy's exact value at every k"))
    both = independent_all_other(hiv["retention"], hiv["domain_size"])
    out.append(cl.at_most(hiv, both, hiv["bound"], strict=True, reproduced=f"{both:.4f}"))
    matches = p["matches"]
    out.append(cl.within_se(matches, df.mc, df.exact, df.mc_se, k=c["z_max"], printed=matches["value"]))
    return out


def fig8_overhead(
    df: pd.DataFrame, *, printed: Block, limits: Block, c: float, m_step: int, timings: bool
) -> list[Claim]:
    """Figure 8: Lemma 2's bound, the measured change points within ``limits.z_max`` SE of their
    expectation, the history store's size and its flat time per release against the naive store
    (`privlab.multilevel.overhead_table`).

    ``printed`` holds ``lemma2``, ``expected``, ``space`` and ``time`` (with ``untimed``,
    ``untimed_note``); ``limits`` ``z_max``, ``space_ratio`` and ``time_ratio``; ``c``, ``m_step``
    and ``timings`` are the setting's smallest p, timing step and whether it measured time.
    """
    columns = ("n", "m", "change_points_per_tuple", "expected_change_points", "lemma2_bound")
    check_table(df, (*columns, "history_bytes", "naive_bytes", "history_ms_per_release"), min_rows=1)
    p = check_mapping("printed", printed, ("lemma2", "expected", "space", "time"))
    lim = check_mapping("limits", limits, ("z_max", "space_ratio", "time_ratio"))
    last = df[df.m == df.m.max()]
    big, g = last.iloc[-1], df[df.n == last.n.iloc[-1]]
    flat = float(g.history_ms_per_release.iloc[-1] / g.history_ms_per_release.iloc[0])
    worst = float((df.change_points_per_tuple - df.lemma2_bound).max())  # below the bound everywhere: < 0
    rule = "measured - ln(1/min p) < 0 at every (n, m)"
    seen = f"max {df.change_points_per_tuple.max():.3f}; ln(1/c) = {math.log(1 / c):.3f}"
    se = change_points_se(df.expected_change_points, df.n)
    space = f"n={int(big.n):,}, m={int(big.m)}: history {big.history_bytes / 2**20:.1f} MiB"
    space += f" vs naive {big.naive_bytes / 2**20:.1f} MiB"
    per_n = "; ".join(f"n={int(r.n):,}: {r.history_ms_per_release:.1f} ms" for r in last.itertuples())
    times = f"{per_n}; at n={int(big.n):,} the last {m_step} releases took {flat:.2f}x the first {m_step}"
    ratio = big.history_bytes / big.naive_bytes
    time_claim = (
        cl.at_most(p["time"], flat, lim["time_ratio"], strict=True, reproduced=times)
        if timings
        else cl.info(p["time"], p["time"]["untimed"], note=p["time"]["untimed_note"])
    )
    return [
        cl.at_most(p["lemma2"], worst, 0.0, strict=True, reproduced=seen, rule=rule),
        cl.within_se(p["expected"], df.change_points_per_tuple, df.expected_change_points, se, k=lim["z_max"]),
        cl.at_most(p["space"], ratio, lim["space_ratio"], strict=True, reproduced=space),
        time_claim,
    ]


def formulas(df: pd.DataFrame, *, printed: Block) -> list[Claim]:
    """The formula audit: each printed formula equals its derivation (`privlab.multilevel.derivations.formula_table`).

    ``printed`` holds the claim of every ``key`` of the table.
    """
    rows = table_rows(df)
    check_mapping("printed", printed, tuple(r.key for r in rows))
    out = []
    r: Any
    for r in rows:
        values = f": printed {r.printed_value:.6g}, derived {r.derived_value:.6g}"
        shown = f"{r.derived}; {r.instance}{'' if math.isnan(r.printed_value) else values}"
        shown += f" ({r.detail})" if r.detail else ""
        out.append(cl.statement(printed[r.key], bool(r.match), reproduced=shown, rule="printed = derived"))
    return out


def example(df: pd.DataFrame, *, printed: Block, limits: Block) -> list[Claim]:
    """The slides' HIV examples: every printed number against its enumeration, the slides'
    arithmetic, and the example's statements (`privlab.multilevel.example_table`).

    ``printed`` holds ``numbers`` (by key), ``arithmetic``, ``retained``, ``requirement3``,
    ``both_hiv`` (with its ``bound``), ``confidence`` and ``multi``; ``limits`` ``exact_tol``
    and ``high_confidence``.
    """
    check_table(df, ("key", "expression", "printed", "slide_arithmetic", "enumerated"), min_rows=1)
    names = ("numbers", "arithmetic", "retained", "requirement3", "both_hiv", "confidence", "multi")
    p = check_mapping("printed", printed, names)
    c = check_mapping("limits", limits, ("exact_tol", "high_confidence"))
    t = df.set_index("key").enumerated
    out, off = [], []
    # the printed text comes from config: a table read back from CSV has lost "0.50"'s last digit
    for r in df[df.key.isin(list(p["numbers"]))].itertuples():
        shown = f"{r.enumerated:.4f} (enumerated); the slide's expression gives {r.slide_arithmetic:.4f}"
        number = p["numbers"][r.key]
        out.append(cl.printed_value(number, r.enumerated, reproduced=shown))
        if not cl.rounds_to(number["value"], r.slide_arithmetic):
            off.append(f"{r.key}: {r.expression} = {r.slide_arithmetic:.4g}")
    rule, shown = "each expression rounds to the printed number", "; ".join(off) or "every expression rounds to it"
    out.append(cl.statement(p["arithmetic"], not off, reproduced=shown, rule=rule))
    given = f"{t.given_alice_hiv:.4f} given Alice's copy is HIV; {t.total:.4f} averaged over her copy"
    out.append(cl.printed_value(p["retained"], t.given_alice_hiv, reproduced=given))
    out.append(_gap(p["requirement3"], t.requirement3, c["exact_tol"]))
    both = p["both_hiv"]
    out.append(cl.at_most(both, t.both_given_not, both["bound"], strict=True, reproduced=f"{t.both_given_not:.4f}"))
    high = min(t.posterior_both - c["high_confidence"], t.posterior_both - t.posterior_one)
    shown = f"Pr[X = HIV | both HIV] = {t.posterior_both:.3f}; one copy: {t.posterior_one:.3f}"
    out.append(cl.at_least(p["confidence"], high, 0.0, strict=True, reproduced=shown))
    gap = abs(t.multi_posterior_both - t.posterior_one)
    shown = f"multi-pert, both HIV: {t.multi_posterior_both:.3f}; the best copy alone: {t.posterior_one:.3f}"
    return [*out, cl.at_most(p["multi"], gap, c["exact_tol"], reproduced=shown)]


def priors(df: pd.DataFrame, *, printed: Block, distributions: Block, domain_size: int) -> list[Claim]:
    """The laws of X: the panels are the configured laws, the values Figures 5-6 print lie in each
    law's domain, and each law's shape for reading (`privlab.multilevel.prior_table`).

    ``printed`` holds ``panels``, ``cells`` (``values`` by law, ``other_domain``) and ``shape``
    (``source`` by kind, with ``real`` and ``other``; ``lost``); ``distributions`` and
    ``domain_size`` are the setting's.
    """
    check_table(df, ("distribution", "kind", "data", "s", "mean", "sd", "skewness", "mode", "top"), min_rows=1)
    p = check_mapping("printed", printed, ("panels", "cells", "shape"))
    check_mapping("distributions", distributions)
    # the panels are the config's own laws: true by construction, shown for reading
    out = [cl.info(p["panels"], list(distributions), note=p["panels"]["by_construction"])]
    cells, shape = p["cells"], p["shape"]
    for name, g in df.groupby("distribution", sort=False):
        first = g.iloc[0]
        values = list(cells["values"].get(name, []))
        item, fits = cl.each(cells, str(name), values), bool(values) and all(1 <= v <= first.s for v in values)
        if first.s != domain_size:  # a law on another domain (a real attribute): the printed values do not apply
            why = cells["other_domain"].format(s=first.s, paper_s=domain_size)
            out.append(cl.info(item, f"s = {first.s}; printed {values}", note=why))
        else:
            out.append(cl.statement(item, fits, reproduced=f"s = {first.s}", rule="every value in 1..s"))
        real = first.data != "-" and not datasets.is_synthetic(first.data)
        source = shape["source"]["real"] if real else shape["source"].get(first.kind, shape["source"]["other"])
        shown = f"mean {first['mean']:.2f}, sd {first.sd:.2f}, skewness {first.skewness:.2f}, mode {first['mode']}"
        item = cl.each(shape, str(name), shape["value"])
        out.append(cl.info(item, f"{shown}, largest {first.top:.3f}", note=shape["lost"].format(source)))
    return out + _mapping(p, distributions, domain_size)
