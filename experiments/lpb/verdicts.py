"""The LPB experiments' claims: what each result table says about the paper's printed values
and statements, decided through the helpers of `privlab.claims`.

One function per experiment (a real-data twin shares its original's). Each takes the
experiment's result table and the config blocks it reads (``printed:`` entries, ``claims:``
thresholds, settings), as OmegaConf nodes or plain mappings, and returns the claims in the
order ``claims.csv`` lists them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab._validation import PrivlabError, check_mapping, check_real, check_table
from privlab.formulas import table_rows
from privlab.lpb.adversary import sensitivity
from privlab.lpb.breach import two_point_breach_rate
from privlab.lpb.calibration import lpb_epsilon
from privlab.lpb.laplace import laplace_density

from .figures import NR_PANELS

__all__ = [
    "table1",
    "table2",
    "fig1_lambda",
    "data_description",
    "formulas",
    "fig2_4_noise_ratio",
    "fig5_dp_noise_ratio",
    "fig5_lpb_vs_dp",
    "breach_check",
]

Block = Mapping[str, Any]


def _stand_in(a: str, stands_for: Block, data_name: str) -> str:
    """The note of a twin's claim: which column stands in for which Adult attribute."""
    return f"{data_name} column {a} stands in for Adult's {stands_for[a]}" if a in stands_for else ""


def _yes(ok: bool) -> str:
    return "yes" if ok else "no"


def _rows(df: pd.DataFrame) -> list[Any]:
    """The table's rows as named tuples (column access by attribute)."""
    return list(df.itertuples())


# --- Table I and the formulas ---------------------------------------------------------------


def _per_value(check: Any, item: Block, values: Iterable[Any], got: Iterable[Any]) -> list[cl.Claim]:
    """``check`` of each element of a printed column (an entry with ``values``) against its recomputation."""
    return [check(cl.each(item, f"value {v}", pv), g) for v, pv, g in zip(values, item["values"], got)]


def table1(
    df: pd.DataFrame,
    *,
    printed: Block,
    universe: Sequence[float],
    known: Sequence[float],
    query: str,
    epsilon: float,
    rho1: float,
    rho2: float,
) -> list[cl.Claim]:
    """Table I's cells and Section III.B's numbers against the recomputed worked example
    (`privlab.lpb.examples.worked_example_table`), and the example's conclusions.

    ``universe``, ``known``, ``query`` and ``epsilon`` are the example's setting (the
    sensitivity and lambda are recomputed from them); ``rho1``, ``rho2`` the thresholds it is
    judged against.
    """
    cols = ("value", "response", "true_mean", "noise", "density", "posterior", "data_set")
    df = check_table(df, (*cols, "printed_noise", "printed_density", "noise_matches_per_candidate"))
    p = check_mapping("printed", printed, ("response_header", "sensitivity", "lambda", "noise", "density", "posterior"))
    eps = check_real("epsilon", epsilon, low=0, low_open=True)
    delta = sensitivity(np.asarray(universe, float), np.asarray(known, float), query)
    matched = f"noises reproduced: {df.noise_matches_per_candidate[0]}"
    out = [cl.equal(p["response_header"], f"{df.response[0]:g}", note=matched)]
    out += [cl.printed_value(p["sensitivity"], delta), cl.printed_value(p["lambda"], delta / eps)]
    for c in ("noise", "density", "posterior"):
        out += _per_value(cl.printed_value, p[c], df.value, df[c])
    out += _per_value(cl.equal, p["data_set"], df.value, df.data_set)
    dens = [int(str(pv).split("/")[1]) for pv in p["true_mean"]["values"]]  # shown over the printed denominator
    out += _per_value(cl.equal, p["true_mean"], df.value, [f"{m * d:g}/{d}" for m, d in zip(df.true_mean, dens)])
    # the prior the paper's own numbers imply: printed posterior / printed density, normalised
    implied = np.asarray(df.printed_posterior, float) / np.asarray(df.printed_density, float)
    implied = implied / implied.sum()
    far = float(np.abs(implied - 1 / len(df)).max())
    shown = f"implied by the printed posteriors / densities: {implied.min():.4f}..{implied.max():.4f}"
    prior = p["uniform_prior"]
    out.append(cl.at_most(prior, far, float(prior["tolerance"]), printed=prior["value"], reproduced=shown))
    out += [cl.printed_value(p["mean10"], df.true_mean.iloc[-1]), cl.printed_value(p["noise10"], df.noise.iloc[-1])]
    out.append(cl.printed_value(p["posterior10"], df.posterior.iloc[-1]))
    density = laplace_density(np.asarray(df.printed_noise, float), delta / eps)
    ok = all(cl.rounds_to(a, b) for a, b in zip(p["density"]["values"], density))
    rule = "Laplace density of each printed noise"
    out.append(cl.statement(p["densities_follow"], ok, reproduced=_yes(ok), rule=rule))
    rounded = np.asarray(df.printed_density, float)
    ok = all(cl.rounds_to(a, b) for a, b in zip(p["posterior"]["values"], rounded / rounded.sum()))
    rule = "printed densities / their sum"
    out.append(cl.statement(p["posteriors_normalised"], ok, reproduced=_yes(ok), rule=rule))
    top = float(df.posterior.max())
    out.append(cl.at_least(p["not_private"], top, rho2, reproduced=f"{df.posterior.max():.4f}"))
    out.append(cl.at_most(p["lpb_below"], lpb_epsilon(rho1, rho2), eps, strict=True))
    return out


def formulas(df: pd.DataFrame, *, printed: Block) -> list[cl.Claim]:
    """Each displayed formula's match (`privlab.lpb.derivations.formula_table`) as a statement, and
    each in-text number against its printed value."""
    rows = table_rows(df)
    p = check_mapping("printed", printed, ("formulas", "numbers"))
    out = []
    for r in rows:
        if r.key in p["numbers"]:
            out.append(cl.printed_value(p["numbers"][r.key], r.derived_value))
            continue
        if r.key not in p["formulas"]:
            raise PrivlabError(f"printed.formulas lacks the case {r.key!r} of the result table")
        at = f"at {r.instance}: printed {r.printed_value:.4g}, derived {r.derived_value:.4g}"
        item = p["formulas"][r.key]
        out.append(cl.statement(item, bool(r.match), reproduced=f"{r.derived} ({at})", rule=r.detail))
    return out


# --- Table II, Figure 1, Section V's data -------------------------------------------------------


def _table2_items(printed: Block, name: str, n: int | None) -> dict[str, dict]:
    """Table II's claims of one attribute (and of panel (a) of its Figure ``n``), from the config's entries."""
    items = {c: {**e, "claim": f"{name} {e['claim']}"} for c, e in printed["columns"].items()}
    panel = printed["panel"]
    return {**items, "panel": {**panel, "claim": panel["claim"].format(n=n, name=name), "ledger": f"fig{n}.panel_a"}}


def table2(df: pd.DataFrame, *, printed: Block, panels: Block, stands_for: Block, data_name: str) -> list[cl.Claim]:
    """Table II's max, min, sensitivity and random-guess rate of each attribute (and panel (a)
    of its Figure 2-4, whose rho1 is that rate) against the recomputed row; a disagreement
    names its cause where the recomputation pins it down (a tenfold sensitivity, swapped rates,
    |U| taken as max - min).

    On a real-data twin (an attribute in ``stands_for``, a column of ``data_name``) the printed
    values describe Adult: they are shown beside the recomputed ones, never compared.
    """
    cols = ("attribute", "max", "min", "sensitivity", "universe_size", "rg")
    df = check_table(df, cols)
    p = check_mapping("printed", printed, ("columns", "panel", "not_comparable"))
    stands_for = check_mapping("stands_for", stands_for)
    out, figure_of = [], dict(NR_PANELS)
    rate_of = {int(r.universe_size): r.attribute for r in _rows(df)}
    for r in _rows(df):
        a = r.attribute
        name = str(stands_for.get(a, a))
        row, n = p[name], figure_of.get(name)
        item = _table2_items(p, name, n)
        rg = f"{r.rg:.3g} (1/{r.universe_size})"
        if a in stands_for:  # a real-data twin: the printed values describe Adult, not this data set
            note = f"{_stand_in(a, stands_for, data_name)}; {p['not_comparable']}"
            cells = {"max": f"{r.max:g}", "min": f"{r.min:g}", "sensitivity": f"{r.sensitivity:.3g}", "rg": rg}
            out += [cl.info(item[c], cells[c], printed=f"{row[c]}", note=note) for c in p["columns"]]
            if n is not None:
                out.append(cl.info(item["panel"], rg, printed=f"{panels[name][0]:g}", note=note))
            continue
        out += [cl.equal(item[c], f"{getattr(r, c):g}", printed=f"{row[c]:g}") for c in ("max", "min")]
        printed_delta = row["sensitivity"]
        tenfold = cl.rounds_to(float(printed_delta) / 10, r.sensitivity, cl.decimals_of(printed_delta) + 1)
        why = p["columns"]["sensitivity"]["tenfold"] if tenfold else ""
        out.append(cl.printed_value(item["sensitivity"], r.sensitivity, printed=printed_delta, if_disagree=why))
        k = round(1 / float(row["rg"]))
        templates = p["columns"]["rg"]
        if rate_of.get(k, a) != a:
            why = templates["swapped"].format(k=k, other=rate_of[k])
        elif k == r.universe_size - 1:
            why = templates["max_minus_min"].format(k=k, size=r.universe_size, lo=r.min, hi=r.max)
        else:
            why = ""
        shown = f"{r.rg:.4f} (1/{r.universe_size})"
        out.append(cl.printed_value(item["rg"], r.rg, printed=row["rg"], reproduced=shown, if_disagree=why))
        if n is not None:  # the first panel of Figures 2-4 sits at the attribute's random-guess rate
            pv = f"{panels[a][0]:g}"
            k = round(1 / float(pv))
            why = p["panel"]["max_minus_min"].format(k=k) if k == r.universe_size - 1 else ""
            out.append(cl.printed_value(item["panel"], r.rg, printed=pv, reproduced=shown, if_disagree=why))
    return out


def fig1_lambda(df: pd.DataFrame, *, printed: Block, stands_for: Block, data_name: str) -> list[cl.Claim]:
    """Figure 1: lambda increases with rho1 on every curve; differential identifiability's
    lambda beside LPB's above rho1 = 1/|U| (shown: true by construction); the caption's one
    rho1 against the swept range.

    On a real-data twin each claim's note says which column stands in for which attribute.
    """
    df = check_table(df, ("attribute", "rho1", "lambda", "universe_size", "lambda_di"))
    p = check_mapping("printed", printed, ("increases", "di_less", "caption"))
    stands_for = check_mapping("stands_for", stands_for)
    out = []
    for a, g in df.groupby("attribute", sort=False):
        name, note = str(stands_for.get(str(a), a)), _stand_in(str(a), stands_for, data_name)
        above = g[g.rho1 > 1.0 / g.universe_size.iloc[0]]["lambda"]
        lam = g["lambda"].to_numpy(dtype=float)
        out.append(cl.monotone(cl.each(p["increases"], name, p["increases"]["value"]), lam, note=note))
        shown = f"lambda_DI = {g.lambda_di.iloc[0]:.3g}, LPB's {above.min():.3g}.." if len(above) else "no rho1 > 1/|U|"
        di_note = "; ".join(x for x in (p["di_less"].get("note", ""), note) if x)
        out.append(cl.info(cl.each(p["di_less"], name, p["di_less"]["value"]), shown, note=di_note))
    lo, hi = p["caption"]["text_rho1"]
    return [*out, cl.equal(p["caption"], f"{lo:g}..{hi:g}", printed=f"{p['caption']['value']:g}")]


def data_description(df: pd.DataFrame, *, printed: Block, class_label: str) -> list[cl.Claim]:
    """Section V's description of Adult (records, attributes, their types, age's universe)
    against the facts measured by `privlab.lpb.examples.data_facts`."""
    df = check_table(df, ("fact", "value"))
    p = check_mapping(
        "printed", printed, ("counted", "records", "attributes", "categorical", "numerical", "age_universe")
    )
    fact = dict(zip(df.fact, df.value))
    needed = ("records", "attributes", "categorical", "numerical", "numerical_names", "age_range")
    missing = [f for f in needed if f not in fact]
    if missing:
        raise PrivlabError(f"df lacks the fact(s) {', '.join(missing)}")
    named = p["counted"].format(names=fact["numerical_names"], label=class_label)
    out = [cl.equal(p["records"], fact["records"])]
    out += [cl.equal(p[k], fact[k], note=named) for k in ("attributes", "categorical", "numerical")]
    return [*out, cl.equal(p["age_universe"], fact["age_range"])]


# --- Figures 2-5 and the breach simulation -------------------------------------------------------


def _rises(groups: Any) -> list[bool]:
    """For each group of a groupby: does its lambda strictly rise along the group's order?"""
    return [bool(np.all(np.diff(g["lambda"]) > 0)) for _, g in groups]


def fig2_4_noise_ratio(df: pd.DataFrame, *, printed: Block, claim_rho2: float, limits: Block) -> list[cl.Claim]:
    """Figures 2-4: lambda rises with rho2 in every panel (the paper says so; its rule says
    otherwise), grows with rho1 at ``claim_rho2``, every box fence lies within
    ``limits.close_fraction`` of the range, and the sampled statistics lie within
    ``limits.z_max`` standard errors of the exact Laplace quantiles."""
    df = check_table(df, ("attribute", "rho1", "rho2", "stat", "lambda", "mc", "exact", "mc_se"))
    p = check_mapping("printed", printed, ("more_noise", "grows", "close", "quartiles"))
    limits = check_mapping("limits", limits, ("z_max", "close_fraction"))
    lam = df[df.stat == "median"]
    up = _rises(lam.groupby(["attribute", "rho1"], sort=False))
    at = lam[np.isclose(lam.rho2, claim_rho2)]
    grows = _rises((a, g.sort_values("rho1")) for a, g in at.groupby("attribute"))
    fences = float(df[df.stat.isin(["lower_fence", "upper_fence"])].mc.abs().max())
    rises = f"lambda rises with rho2 in {sum(up)} of {len(up)} panels"
    in_all = f"in {sum(grows)} of {len(grows)} attributes"
    close = f"fences within {fences:.2e} of the range"
    return [
        cl.all_of(p["more_noise"], up, what="panel (attribute, rho1)", reproduced=rises),
        cl.all_of(p["grows"], grows, what="attribute", reproduced=in_all),
        cl.at_most(p["close"], fences, limits["close_fraction"], reproduced=close),
        cl.within_se(p["quartiles"], df.mc, df.exact, df.mc_se, k=limits["z_max"]),
    ]


def fig5_dp_noise_ratio(df: pd.DataFrame, *, printed: Block, limits: Block) -> list[cl.Claim]:
    """Figure 5: each attribute's sampled interquartile range as eps grows, for reading (it shrinks
    by construction: the scale is Delta / eps), and the attributes' panels differ (their exact IQRs
    more than ``limits.identical_tol`` apart)."""
    df = check_table(df, ("attribute", "epsilon", "stat", "mc", "exact", "mc_se"))
    p = check_mapping("printed", printed, ("shrinks", "differ"))
    limits = check_mapping("limits", limits, ("identical_tol",))
    q1, q3 = (df[df.stat == s].set_index(["attribute", "epsilon"]) for s in ("q1", "q3"))
    iqr = q3.mc - q1.mc
    out = []
    for a, g in iqr.groupby(level="attribute", sort=False):
        # the noise scale is Delta / eps: the IQR shrinks as eps grows by construction of the sampler
        item = cl.each(p["shrinks"], f"{a} (sampled IQR)", p["shrinks"]["value"])
        v = g.to_numpy(dtype=float)
        out.append(cl.info(item, f"{v[0]:.4g} -> {v[-1]:.4g} over {v.size} eps", note=p["shrinks"]["by_construction"]))
    spread = float((q3.exact - q1.exact).groupby(level="epsilon").std().fillna(0).max())
    shown = f"exact IQRs differ by at most {spread:.1e}"
    return [*out, cl.at_least(p["differ"], spread, limits["identical_tol"], strict=True, reproduced=shown)]


def fig5_lpb_vs_dp(df: pd.DataFrame, *, printed: Block, limits: Block) -> list[cl.Claim]:
    """Figure 5's statement: at the calibrated eps, LPB's Laplace scale equals eps-DP's (their largest
    relative gap at most ``limits.scale_tol``: two formulas, LPB's calibration and Delta / eps, that
    could differ), and eps-DP is breached exactly from the calibrated eps on. The two-sample KS test
    of the sampled noise is shown for reading only: once the scales are equal both samples come from
    one law, and the test could fail only by chance."""
    cols = ("at_calibrated_eps", "exact_quartile_gap", "ks_p", "epsilon", "eps_calibrated", "breach")
    df = check_table(df, (*cols, "worst_posterior", "rho2", "lambda_calibrated", "lambda_dp"))
    p = check_mapping("printed", printed, ("same_noise", "semantics"))
    limits = check_mapping("limits", limits, ("scale_tol",))
    at = df[df.at_calibrated_eps]
    k, gap = len(at), float(at.exact_quartile_gap.max())
    rel = float((at.lambda_calibrated - at.lambda_dp).abs().div(at.lambda_dp).max())
    shown = f"largest relative gap of the two Laplace scales over {k} settings {rel:.1e}; exact quartiles differ by "
    shown += f"at most {gap:.1e} of the range; sampled: smallest two-sample KS p = {float(at.ks_p.min()):.3g}"
    out = [cl.at_most(p["same_noise"], rel, limits["scale_tol"], reproduced=shown)]
    expected = df.epsilon >= df.eps_calibrated  # a breach exactly from the calibrated eps on (Definition 3: >= rho2)
    against = int((df.breach != expected).sum())
    below, above = df[~expected], df[expected]
    shown = (
        f"{against} of {len(df)} (setting, eps) pairs against it: no breach at {int((~below.breach).sum())} of "
        f"{len(below)} eps below, breach at {int(above.breach.sum())} of {len(above)} at or above; worst posterior at "
        f"the calibrated eps within {float((at.worst_posterior - at.rho2).abs().max()):.1e} of rho2"
    )
    rule = "breach iff eps >= calibrated eps"
    return [*out, cl.statement(p["semantics"], against == 0, reproduced=shown, rule=rule)]


def breach_check(df: pd.DataFrame, *, printed: Block, rho2: float, limits: Block) -> list[cl.Claim]:
    """The breach simulation (`privlab.lpb.breach.breach_grid`): at the calibrated eps no exact
    posterior exceeds ``rho2`` (within ``limits.posterior_tol``) and priors capped at rho1 are
    never breached; the two-point prior's simulated breach rate against its exact value
    (within ``limits.z_max`` standard errors); above the calibrated eps breaches appear."""
    cols = ("attribute", "rho1", "prior", "eps_factor", "epsilon", "responses")
    df = check_table(df, (*cols, "exact_max_posterior", "exact_breach", "mc_breach", "mc_breach_rate"))
    p = check_mapping("printed", printed, ("bounded", "capped"))
    limits = check_mapping("limits", limits, ("posterior_tol", "z_max"))
    tol = limits["posterior_tol"]
    at, above = df[np.isclose(df.eps_factor, 1.0)], df[df.eps_factor > 1.0]
    capped, tight = at[at.prior != "two_point"], at[at.prior == "two_point"]
    top, hits = capped.exact_max_posterior.max(), capped.mc_breach.sum()
    seen = f"exact supremum <= {top:.4f}; simulated breach in {hits} settings"
    none = not (capped.exact_breach.any() or capped.mc_breach.any())
    out = [
        cl.at_most(p["bounded"], float(at.exact_max_posterior.max()), rho2 + tol),
        cl.statement(p["capped"], none, reproduced=seen, rule="no breach, exact or simulated"),
    ]
    if len(tight):
        exact = np.array([two_point_breach_rate(r, e) for r, e in zip(tight.rho1, tight.epsilon)])
        rates = f"two-point prior: breach rate {tight.mc_breach_rate.min():.4f}..{tight.mc_breach_rate.max():.4f}"
        holds = bool((tight.mc_breach_rate == 0).all() and not tight.exact_breach.any())
        out.append(cl.statement(p["no_breach"], holds, reproduced=rates, rule="no breach, exact or simulated"))
        se = np.sqrt(exact * (1 - exact) / tight.responses)
        out.append(cl.within_se(p["rate"], tight.mc_breach_rate, exact, se, k=limits["z_max"]))
    adv, capped_above = above[above.prior == "two_point"], above[above.prior == "adversarial"]
    if len(adv):
        shown = (
            f"exact breach in {adv.exact_breach.sum()} of {len(adv)} settings, rate >= {adv.mc_breach_rate.min():.3f}"
        )
        holds = bool(adv.exact_breach.all() and adv.mc_breach.all())
        out.append(cl.statement(p["above"], holds, reproduced=shown, rule="in every setting"))
    if len(capped_above):
        safe = capped_above[~capped_above.exact_breach]
        where = "; ".join(f"{a} rho1={r:g} at {f:g}x" for a, r, f in zip(safe.attribute, safe.rho1, safe.eps_factor))
        shown = f"exact breach in {len(capped_above) - len(safe)} of {len(capped_above)} settings"
        note = p["capped_above"]["safe"].format(where=where or "none")
        out.append(cl.info(p["capped_above"], shown, note=note))
    return out
