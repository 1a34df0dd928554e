"""The isolation experiments' claims: what each reproduced table says about the talk's words.

One function per experiment, named after it. Each takes the result table and the config
blocks it reads (``printed``: the talk's words, ``limits``: the experiment's ``claims:``
thresholds; an OmegaConf node or a plain mapping) and returns the claims, built through
`privlab.claims` only. A printed entry about one subject (a sanitizer, a row of the talk's
table) carries the subject's name in front of its claim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab._lazy import lazy
from privlab._validation import PrivlabError, check_mapping
from privlab.formulas import table_rows
from privlab.isolation.rates import BEST, DecayFit, exact_upper, fit_decay, natural_rows
from privlab.stats import proportion_se

stats = lazy("scipy.stats")

__all__ = ["isolation_vs_d", "isolation_vs_c_T", "bad_sanitizer", "utility", "real_data", "formulas"]

Block = Mapping[str, Any]


def _check(df: Any, columns: Sequence[str], **blocks: Any) -> None:
    """``df`` a non-empty result table with ``columns``; each of ``blocks`` a mapping."""
    if not isinstance(df, pd.DataFrame) or df.empty:
        raise PrivlabError(f"df must be a non-empty result table (DataFrame), got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise PrivlabError(f"df must have the columns {', '.join(columns)}; missing {', '.join(missing)}")
    for name, block in blocks.items():
        check_mapping(name, block)


def _about(subject: str | Block, entry: Block) -> dict[str, Any]:
    """A printed entry about one subject (a sanitizer's label, or a printed row of the talk's
    table, whose where and value it inherits): the subject's name in front of its claim."""
    base = {"claim": subject} if isinstance(subject, str) else dict(subject)
    return {**base, **entry, "claim": f"{base['claim']}: {entry['claim']}"}


RATES = ("sanitizer", "adversary", "rate", "rate_any")  # the columns of every attack table


def _decay(g: pd.DataFrame, successes: str, trials: str, level: float) -> tuple[DecayFit, str]:
    """The binomial ML fit of rate(d) = a 2^(-b d) to a sanitizer's rows, and how it reads."""
    fit = fit_decay(g.d, g[successes], g[trials], level=level)
    zeros = f", {fit.zero_dims} of them with 0 successes" if fit.zero_dims else ""
    dof = fit.dims - 2
    gof = f" (deviance {fit.deviance:.3g} on {dof} df, p = {stats.chi2.sf(fit.deviance, dof):.2g})" if dof > 0 else ""
    return fit, f"rate ~ a 2^-(b d): {fit.describe()}, binomial ML over {fit.dims} d{zeros}{gof}"


def _strongest(df: pd.DataFrame, sanitizer: str) -> pd.DataFrame:
    """A sanitizer's strongest adversary per d: its best-of row where it has several adversaries
    (a target counts when any of them isolates it), else its one natural adversary."""
    g = df[df.sanitizer == sanitizer]
    best = g[g.adversary == BEST]
    return (best if len(best) else natural_rows(g)).sort_values("d")


def _below_bound(item: Block, g: pd.DataFrame, k: Block, c: float) -> cl.Claim:
    """Every d's rate shown below 2^-d by a one-sided test (`privlab.claims.differ` on 2^-d - rate):
    the d least in the bound's favour decides, among the d whose 2^-d the trials can resolve (zero
    successes bound the rate below it: 3 / trials < 2^-d); a rate shown above 2^-d at any d disagrees."""
    se = np.array([proportion_se(s, t) for s, t in zip(g.successes, g.trials)])
    z = (g.talk_bound.to_numpy(float) - g.rate.to_numpy(float)) / se
    resolved = (3.0 / g.trials.to_numpy(float)) < g.talk_bound.to_numpy(float)
    above = z < -float(stats.norm.isf(0.05))
    pick = np.flatnonzero(above) if above.any() else np.flatnonzero(resolved) if resolved.any() else np.arange(len(g))
    i = int(pick[np.argmin(z[pick])])
    r = g.iloc[i]
    adversaries = "best of its adversaries" if (g.adversary == BEST).all() else f"adversary {g.adversary.iloc[0]}"
    scope = f"d <= {int(g.d[resolved].max())}" if resolved.any() else "no d"
    shown = f"{adversaries}, at the d the trials resolve ({scope}); deciding d = {int(r.d)}: {int(r.successes)} of "
    shown += f"{int(r.trials)} = {r.rate:.4g} vs 2^-d = {r.talk_bound:.3g} (c = {c})"
    more = str(k["decide_with"])
    s = float(se[i])
    return cl.differ(item, r.talk_bound - r.rate, s, margin=0.0, trials=r.trials, decide_with=more, reproduced=shown)


def isolation_vs_d(df: pd.DataFrame, *, printed: Block, limits: Block, c: float) -> list[cl.Claim]:
    """The talk's results table (slide 24) against the rates vs d.

    Per printed row of the talk's table (``printed.talk_table``, keyed by sanitizer): the fitted
    decay in d (its interval above ``limits.min_decay``, and reaching ``limits.talk_b``), for
    hist_perturb also the rate of isolating anyone, the strongest adversary's rate (the best of its
    adversaries) shown below 2^-d at every d, and the gap over the aux-only rate at the largest d
    shown below ``limits.negligible`` (one-sided tests; undecided -> inconclusive); then
    the release checker and the perturbation noise law (within ``limits.noise_z_max`` s.e.).
    ``c`` is the ball factor the table was run at.
    """
    _check(df, ("d", *RATES, "successes", "trials", "rate_se", "talk_bound"), printed=printed, limits=limits)
    p, k, out = printed, limits, []
    aux, dmax = df[df.sanitizer == "aux_only"].set_index("d").rate, df.d.max()
    any_trials = "trials_any" if "trials_any" in df else "trials"
    for san, row in p["talk_table"].items():
        g = natural_rows(df[df.sanitizer == san]).sort_values("d")
        if g.empty:
            continue
        top = g[g.d == dmax].iloc[0]
        fit, shown = _decay(g, "successes", "trials", k["level"])
        shown += f"; {top.rate:.4g} at d = {dmax}"
        if top.successes == 0:
            upper = exact_upper(0, int(top.trials), k["level"])
            shown += (
                f" (0 successes in {int(top.trials)}: exact one-sided {100 * k['level']:g}% upper bound {upper:.3g})"
            )
        # the interval widened by the dispersion: where the rates bend away from one exponential,
        # many trials pin the average slope far more tightly than the law deserves
        interval = f"the {100 * k['level']:g}% interval for b (widened by the dispersion)"
        positive = f"lower end of {interval} > {k['min_decay']:g}"
        item = _about(row, p["decay"])
        out.append(cl.at_least(item, fit.b_low_quasi, k["min_decay"], strict=True, reproduced=shown, rule=positive))
        rule = f"upper end of {interval} >= {k['talk_b']:g} (the data allow b >= {k['talk_b']:g})"
        item = _about(row, p["corollary_rate"])
        out.append(cl.at_least(item, fit.b_high_quasi, k["talk_b"], reproduced=fit.describe(), rule=rule))
        if san == "hist_perturb":  # the table's O(n 2^-Omega(d)) bounds isolating anyone
            fit, shown = _decay(g, "successes_any", any_trials, k["level"])
            worst = g.loc[g.rate_any.idxmax()]
            shown += f"; {worst.rate_any:.4g} at worst (d = {worst.d}), {top.rate_any:.4g} at d = {dmax}"
            item = _about(row, p["someone"])
            out.append(cl.at_least(item, fit.b_low_quasi, k["min_decay"], strict=True, reproduced=shown, rule=positive))
        out.append(_below_bound(_about(row, p["corollary"]), _strongest(df, san), k, c))
        if dmax in aux.index:
            a = df[(df.sanitizer == "aux_only") & (df.d == dmax)].iloc[0]
            gap = float(top.rate - a.rate)
            se = float(np.hypot(proportion_se(top.successes, top.trials), proportion_se(a.successes, a.trials)))
            shown = f"{gap:.4g} at d = {dmax} ({int(top.successes)} vs {int(a.successes)} of {int(top.trials)})"
            item = _about(row, p["negligible"])
            more = str(k["decide_with"])
            gap_claim = cl.differ(
                item, k["negligible"] - gap, se, margin=0.0, trials=top.trials, decide_with=more, reproduced=shown
            )
            out.append(gap_claim)
    if "release_checked" in df:
        chk = df.release_checked.dropna()
        shown = f"{int((chk == 1).sum())} of {len(chk)} rows checked"
        out.append(cl.statement(p["checker"], bool((chk == 1).all()), reproduced=shown, rule="the checker passes all"))
    if "noise_ratio_mean" in df:
        pert = df.dropna(subset=["noise_ratio_mean"])
        est, exact, se = pert.noise_ratio_mean, pert.noise_ratio_exact, pert.noise_ratio_se
        out.append(cl.within_se(p["noise_law"], est, exact, se, k=k["noise_z_max"]))
    return out


def isolation_vs_c_T(df: pd.DataFrame, *, printed: Block, limits: Block, talk_c: float) -> list[cl.Claim]:
    """The definition's monotonicity in c and T, and perturbation alone at T = 1.

    The natural adversaries' rates may rise with c by at most ``limits.rate_slack`` (any T,
    sanitizer, adversary), the aux-only rates fall with T by at most as much, and one perturbed
    point isolates its source at T = 1 at rate at least ``1 - rate_slack``; the worst sanitized
    rate at the talk's ``talk_c`` and T >= 2, over every adversary (the best-of included, named),
    is shown for reading.
    """
    _check(df, ("d", "c", "T", *RATES), printed=printed, limits=limits)
    p, slack, nat = printed, limits["rate_slack"], natural_rows(df)
    # the largest step of the rate up as c grows (any T, adversary), and down as T grows (aux-only)
    up_c = max(np.diff(g.sort_values("c").rate).max(initial=0) for _, g in nat.groupby(["T", "sanitizer", "adversary"]))
    out = [cl.at_most(p["larger_c"], float(up_c), slack, reproduced=f"largest rise of a rate with c: {up_c:.3g}")]
    aux = nat[nat.sanitizer == "aux_only"].groupby("c")
    if len(aux):
        down_T = max(-np.diff(g.sort_values("T").rate).min(initial=0) for _, g in aux)
        out.append(cl.at_most(p["larger_T"], float(down_T), slack, reproduced=f"largest fall with T: {down_T:.3g}"))
    p1 = nat[(nat.sanitizer == "perturbed_one") & (nat["T"] == 1)]
    if len(p1):
        shown = f"released point isolates its source at rate {p1.rate.min():.3g}..{p1.rate.max():.3g}"
        out.append(cl.at_least(p["t1"], float(p1.rate.min()), 1 - slack, reproduced=shown))
    # the worst rate over every adversary, the best-of rows included: the strongest attack, named
    talk = df[(df.c == talk_c) & (df["T"] >= 2) & (df.sanitizer != "aux_only")]
    if len(talk):
        worst = talk.sort_values("rate", kind="stable").iloc[-1]
        shown = f"c = {talk_c:g}, d = {int(df.d.iloc[0])}: worst rate {worst.rate:.4g} "
        shown += f"({worst.sanitizer}, adversary {worst.adversary}, T = {int(worst['T'])})"
        out.append(cl.info(p["example"], shown))
    return out


def bad_sanitizer(df: pd.DataFrame, *, printed: Block, limits: Block) -> list[cl.Claim]:
    """Slide 9's bad sanitizer: the disclosed attributes exact in every row; with d - 1 exact, the
    largest stretch's rate shown below ``limits.negligible`` and the smallest's shown above it, each
    by a one-sided test on the rate over its attacks (a rate whose interval straddles the
    threshold is ``inconclusive``, with the trials that would decide it)."""
    columns = ("d", "stretch", "disclosed", "rate", "successes", "trials", "exact_columns", "exact_columns_expected")
    _check(df, columns, printed=printed, limits=limits)
    p, d = printed, int(df.d.iloc[0])
    match = df.exact_columns == df.exact_columns_expected
    shown = f"exact columns match in {int(match.sum())} of {len(df)} rows"
    out = [cl.statement(p["exact"], bool(match.all()), reproduced=shown, rule="exact columns = disclosed, every row")]
    top = df[df.disclosed == d - 1]
    by_stretch = ", ".join(f"{s:g}: {g.rate.max():.3g}" for s, g in top.groupby("stretch"))
    big, small = (top[top.stretch == f(top.stretch)] for f in (np.max, np.min))
    shown = f"best rate {big.rate.max():.4g} with {d - 1} of {d} attributes exact, stretch {big.stretch.iloc[0]:g} "
    shown += f"(best rate by stretch {by_stretch})"
    more, bound = str(limits["decide_with"]), float(limits["negligible"])
    # "nobody": negligible - rate > 0; "distance": rate - negligible > 0 (the interval from the rate's s.e.)
    b, s = big.loc[big.rate.idxmax()], small.loc[small.rate.idxmax()]
    se = proportion_se(b.successes, b.trials)
    shown += f", {int(b.successes)} of {int(b.trials)}"
    nobody = cl.differ(p["nobody"], bound - b.rate, se, margin=0.0, trials=b.trials, decide_with=more, reproduced=shown)
    shown = f"best rate {s.rate:.4g} at stretch {s.stretch:g}, {int(s.successes)} of {int(s.trials)}"
    se = proportion_se(s.successes, s.trials)
    return [
        *out,
        nobody,
        cl.differ(p["distance"], s.rate - bound, se, margin=0.0, trials=s.trials, decide_with=more, reproduced=shown),
    ]


def utility(df: pd.DataFrame, *, printed: Block, limits: Block) -> list[cl.Claim]:
    """Slides 10 and 15: per sanitizer, the column means within ``limits.mean_tolerance``, the
    measured noise error at most ``limits.noise_ratio_max`` times its exact value, k-means on
    SDB within ``limits.kmeans_tolerance`` of the RDB optimum; the histogram's box counts within
    ``limits.box_tolerance``. The sensitivity row ``hist_perturb_len_side`` is only shown beside
    hist_perturb's k-means claim."""
    errors = ("mean_error_rms", "noise_mean_error_rms", "noise_mean_error_rms_expected", "kmeans_cost_ratio")
    _check(df, ("d", "sanitizer", *errors, "box_query_mae", "box_query_mean_truth"), printed=printed, limits=limits)
    p, k, out = printed, limits, []
    short = df[df.sanitizer == "hist_perturb_len_side"]
    for san, g in df[df.sanitizer != "hist_perturb_len_side"].groupby("sanitizer", sort=False):
        worst = g.mean_error_rms.max()
        shown = f"RMS column-mean error <= {worst:.2g} (cube side 2)"
        out.append(cl.at_most(_about(san, p["means"]), float(worst), k["mean_tolerance"], reproduced=shown))
        exp = g.dropna(subset=["noise_mean_error_rms_expected"])
        if len(exp):
            ratio = exp.noise_mean_error_rms / exp.noise_mean_error_rms_expected
            shown = f"measured / expected RMS = {ratio.min():.2f}..{ratio.max():.2f}"
            item = _about(san, p["noise"])
            # two-sided: noise too small is as wrong as noise too large; the ratio farthest from 1 decides
            far = float(ratio.iloc[int(np.argmax(np.abs(np.log(ratio.to_numpy(float)))))])
            top = float(k["noise_ratio_max"])
            out.append(cl.between(item, far, 1 / top, top, reproduced=shown))
        kr = g.kmeans_cost_ratio.max()
        shown = f"k-means cost of SDB centres on RDB / RDB optimum <= {kr:.3f} "
        shown += f"(worst at d = {int(g.loc[g.kmeans_cost_ratio.idxmax(), 'd'])})"
        why = ""
        if san == "hist_perturb":
            shown += f"; perturbation proper <= {df[df.sanitizer == 'perturbation'].kmeans_cost_ratio.max():.3f}"
            shown += f"; noise of length ~ the cell side <= {short.kmeans_cost_ratio.max():.3f}" if len(short) else ""
            why = p["hist_perturb_blur"]
        note = "" if san == "perturbation" else p["extended"]
        item = _about(san, p["kmeans"])
        out.append(cl.at_most(item, float(kr), k["kmeans_tolerance"], reproduced=shown, note=note, if_disagree=why))
    h = df[df.sanitizer == "histogram"]
    if len(h):
        shown = (
            f"mean |box count error| {h.box_query_mae.min():.3g}..{h.box_query_mae.max():.3g} "
            f"(boxes hold {h.box_query_mean_truth.mean():.2f} of the data on average)"
        )
        out.append(cl.at_most(p["density"], float(h.box_query_mae.max()), k["box_tolerance"], reproduced=shown))
    return out


def real_data(
    df: pd.DataFrame, *, printed: Block, limits: Block, dataset: str, columns: Sequence[str]
) -> list[cl.Claim]:
    """Slide 21: per sanitizer, its best rate on the real data set ``dataset`` beside uniform data
    (for reading); rank scaling's rates above min-max scaling's by at most ``limits.scaling_slack``;
    a twin's ``printed.mapping`` of the talk's columns onto ``columns``, for reading."""
    _check(df, ("data", *RATES), printed=printed, limits=limits)
    p, nat, out = printed, natural_rows(df), []
    piv = nat.pivot_table(index="sanitizer", columns="data", values="rate")
    real = [col for col in piv.columns if col.startswith(f"{dataset}_")]
    for san in piv.index.drop("aux_only", errors="ignore"):
        row = piv.loc[san]
        shown = f"{dataset} {max(row[c] for c in real):.4g} vs uniform {row['uniform_cube']:.4g}"
        out.append(cl.info(_about(san, p["real_vs_uniform"]), shown))
    if {f"{dataset}_rank", f"{dataset}_minmax"} <= set(piv.columns):
        gap = (piv[f"{dataset}_rank"] - piv[f"{dataset}_minmax"]).drop("aux_only", errors="ignore")
        shown = f"rank scaling's rate exceeds min-max scaling's by at most {gap.max():.4g} (over the sanitizers)"
        out.append(cl.at_most(p["scaling"], float(gap.max()), limits["scaling_slack"], reproduced=shown))
    if "mapping" in p:  # the twin states its mapping of the talk's real data onto ACS columns
        out.append(cl.info(p["mapping"], f"{len(columns)} columns: {', '.join(columns)}"))
    return out


def formulas(df: pd.DataFrame, *, printed: Block) -> list[cl.Claim]:
    """Every displayed formula (`derivations.formula_table`): the printed entry of each row's
    ``key`` agrees when the printed formula matches its derivation."""
    check_mapping("printed", printed)
    out = []
    for r in table_rows(df):
        shown = f"{r.derived}; at {r.instance}: printed {r.printed_value:.6g}, derived {r.derived_value:.6g}"
        shown += f" ({r.detail})" if r.detail else ""
        out.append(cl.statement(printed[str(r.key)], bool(r.match), reproduced=shown, rule="printed = derived"))
    return out
