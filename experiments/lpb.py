"""LPB paper (seed 003): Tables I-II and Figures 1-5 on UCI Adult, plus a breach simulation.

The science lives in `privlab.lpb`; the paper's printed values and statements in the
``printed:`` blocks of ``conf/experiment/lpb/``. This module joins them: config in,
library calls, a tidy table and the claims out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import PrivlabError, lpb
from privlab import claims as cl
from privlab.lpb import figures
from privlab.params import Choice, Int, List, MapOf, Real, Str
from privlab.registry import Paper, Tolerance, experiment

PAPER = Paper("Ouyang, Yin, Liu - Limiting Privacy Breaches in Differential Privacy", seed="003_bcd9c4aebb45eb59.txt")

PROB, POS = Real(0, 1, low_open=True, high_open=True), Real(0, low_open=True)
ADULT = {"attributes": List(Str(), unique=True), "panels": MapOf(List(PROB))}
N_QUERIES = Int(4, 10**8, limit="noise draws held in memory")
MC_TOL = {"mc": Tolerance(se="mc_se", k=5)}
NR_FIGURES = {f"fig{n}_{a.replace('-', '_')}": figures.noise_ratio(a, n) for a, n in figures.NR_PANELS}


def _summaries(cfg, ctx, attributes) -> dict[str, dict]:
    """Table II's row (sensitivity, universe, range) of each attribute, from the configured data set."""
    data = ctx.dataset(cfg.dataset)
    for a in attributes:
        if a not in data.columns:
            raise PrivlabError(f"attributes must be columns of {cfg.dataset.name}; got {a!r}")
    return {a: lpb.attribute_summary(data[a].to_numpy(dtype=float)) for a in attributes}


def _panels(cfg) -> dict:
    """The rho1 panels of the configured attributes, in the panels' order."""
    return {a: list(v) for a, v in cfg.panels.items() if a in cfg.attributes}


def _yes(ok: bool) -> str:
    return "yes" if ok else "no"


# --- Table I: the worked example ---------------------------------------------------------
@experiment(
    artifact="Table I",
    summary="Worked example: posterior of the missing value given one noisy mean (eps = 2)",
    keys=("value",),
    figures={"table1_posteriors": figures.table1_posteriors},
    params={
        "universe": List(Real()),
        "known": List(Real(), min_len=0),
        "query": Choice(*lpb.QUERIES),
        "epsilon": POS,
        "response_candidates": List(Real()),
        "rho1": PROB,
        "rho2": PROB,
    },
)
def table1(cfg, ctx):
    p, universe, known = cfg.printed, np.asarray(cfg.universe, float), np.asarray(cfg.known, float)
    answers = lpb.query_answers(universe, known, cfg.query)
    # the text prints the response twice, differently: the noise column tells which one the table used
    matches = lpb.response_matches(p.noise["values"], answers, list(cfg.response_candidates))
    response = max(matches, key=lambda r: (matches[r], -list(matches).index(r)))
    ex = lpb.worked_example(universe, known, response, cfg.epsilon, cfg.query)
    table = pd.DataFrame(
        {"value": universe.astype(int), "data_set": [",".join(f"{v:g}" for v in (*known, u)) for u in universe]}
    )
    table = table.assign(response=response, true_mean=ex["answers"], noise=ex["noise"], density=ex["density"])
    table = table.assign(
        posterior=ex["posterior"],
        **{f"printed_{c}": [float(v) for v in p[c]["values"]] for c in ("noise", "density", "posterior")},
    )
    return table.assign(noise_matches_per_candidate=";".join(f"{r}:{m}" for r, m in matches.items()))


@table1.claims
def _(df, cfg):
    p, eps = cfg.printed, cfg.epsilon
    delta = lpb.sensitivity(np.asarray(cfg.universe, float), np.asarray(cfg.known, float), cfg.query)
    out = [
        cl.equal(
            p.response_header, f"{df.response[0]:g}", note=f"noises reproduced: {df.noise_matches_per_candidate[0]}"
        ),
        cl.printed_value(p.sensitivity, delta),
        cl.printed_value(p["lambda"], delta / eps),
    ]
    for c in ("noise", "density", "posterior"):
        out += [
            cl.printed_value(cl.each(p[c], f"value {v}", pv), got)
            for v, pv, got in zip(df.value, p[c]["values"], df[c])
        ]
    dens = lpb.laplace_density(np.asarray(df.printed_noise, float), delta / eps)
    ok = all(cl.rounds_to(a, b) for a, b in zip(p.density["values"], dens))
    out.append(cl.statement(p.densities_follow, ok, reproduced=_yes(ok), rule="Laplace density of each printed noise"))
    rounded = np.asarray(df.printed_density, float)
    ok = all(cl.rounds_to(a, b) for a, b in zip(p.posterior["values"], rounded / rounded.sum()))
    out.append(cl.statement(p.posteriors_normalised, ok, reproduced=_yes(ok), rule="printed densities / their sum"))
    out.append(cl.at_least(p.not_private, float(df.posterior.max()), cfg.rho2, reproduced=f"{df.posterior.max():.4f}"))
    out.append(cl.at_most(p.lpb_below, lpb.lpb_epsilon(cfg.rho1, cfg.rho2), eps, strict=True))
    return out


# --- Table II: the attributes --------------------------------------------------------------
@experiment(
    artifact="Table II",
    summary="Max, min, sensitivity (max-min)/n and random-guess rate per numeric attribute, recomputed from Adult",
    keys=("attribute",),
    params=ADULT,
)
def table2(cfg, ctx):
    rows = []
    for a, s in _summaries(cfg, ctx, cfg.attributes).items():
        p = cfg.printed[a]
        s.pop("range")
        rows.append({"attribute": a, **s, "printed_max": p.max, "printed_min": p.min})
        rows[-1].update(printed_sensitivity=float(p.sensitivity), printed_rg=float(p.rg))
    return pd.DataFrame(rows)


@table2.claims
def _(df, cfg):
    out, rate_of = [], {int(r.universe_size): r.attribute for r in df.itertuples()}
    for r in df.itertuples():
        p, a = cfg.printed[r.attribute], r.attribute
        out += [cl.equal(f"{a} {c} (Table II)", f"{getattr(r, c):g}", printed=f"{p[c]:g}") for c in ("max", "min")]
        tenfold = cl.rounds_to(float(p.sensitivity) / 10, r.sensitivity, cl.decimals_of(p.sensitivity) + 1)
        why = "10x the recomputed value: a misplaced decimal point" if tenfold else ""
        out.append(
            cl.printed_value(
                f"{a} sensitivity (max-min)/n (Table II)", r.sensitivity, printed=p.sensitivity, if_disagree=why
            )
        )
        k = round(1 / float(p.rg))
        if rate_of.get(k, a) != a:
            why = f"1/{k} is the rate of {rate_of[k]}: the RG cells of education-num and hours-per-week are swapped"
        else:
            why = (
                f"1/{k}: |U| taken as max - min, not the {r.universe_size} values {r.min:g}..{r.max:g}"
                if k == r.universe_size - 1
                else ""
            )
        shown = f"{r.rg:.4f} (1/{r.universe_size})"
        out.append(
            cl.printed_value(
                f"{a} random-guess rate 1/|U| (Table II)", r.rg, printed=p.rg, reproduced=shown, if_disagree=why
            )
        )
    return out


# --- Figure 1: lambda vs rho1 -------------------------------------------------------------
@experiment(
    artifact="Figure 1",
    summary="LPB's Laplace scale lambda vs prior threshold rho1 at rho2 = 50%, one curve per attribute",
    keys=("attribute", "rho1"),
    figures={"fig1_lambda": figures.lambda_vs_rho1},
    params={
        **ADULT,
        "rho2": PROB,
        "rho1_min": PROB,
        "rho1_max": PROB,
        "rho1_points": Int(2, 10**6, limit="grid points"),
    },
    smoke=("rho1_points=4",),
)
def fig1_lambda(cfg, ctx):
    rows, rho2 = [], cfg.rho2
    for a, s in _summaries(cfg, ctx, cfg.attributes).items():
        d, m = s["sensitivity"], s["universe_size"]
        lam_di = lpb.differential_identifiability_scale(d, m, rho2)
        for r1 in np.linspace(cfg.rho1_min, cfg.rho1_max, int(cfg.rho1_points)):
            eps, lam = lpb.lpb_epsilon(r1, rho2), lpb.laplace_scale(d, r1, rho2)
            rows.append({"attribute": a, "rho1": round(float(r1), 10), "rho2": rho2, "delta": d, "epsilon": eps})
            rows[-1].update({"lambda": lam, "universe_size": m, "lambda_di": lam_di})
    return pd.DataFrame(rows)


@fig1_lambda.claims
def _(df, cfg):
    out, p = [], cfg.printed
    for a, g in df.groupby("attribute", sort=False):
        above = g[g.rho1 > 1.0 / g.universe_size.iloc[0]]["lambda"]
        out.append(cl.monotone(cl.each(p.increases, a, p.increases.value), g["lambda"]))
        out.append(
            cl.info(
                cl.each(p.di_less, a, p.di_less.value),
                f"lambda_DI = {g.lambda_di.iloc[0]:.3g}, LPB's {above.min():.3g}..",
            )
        )
    lo, hi = p.caption.text_rho1
    return [*out, cl.equal(p.caption, f"{lo:g}..{hi:g}", printed=f"{p.caption.value:g}")]


# --- Figures 2-5: the noise ratio ---------------------------------------------------------
def _nr_rows(task):
    label, lam, u_range, n, seed = task
    return [{**label, "lambda": lam, **row} for row in lpb.noise_ratio_stats(lam, u_range, n, seed)]


@experiment(
    artifact="Figures 2-4",
    summary="Noise ratio of 1,000 LPB-calibrated mean queries: box plots per attribute, rho1 panel and rho2",
    keys=("attribute", "rho1", "rho2", "stat"),
    tolerances=MC_TOL,
    figures=NR_FIGURES,
    mechanism_kind="noise_calibration",
    one_mechanism=True,
    params={
        **ADULT,
        "n_queries": N_QUERIES,
        "rho2_grid": List(PROB),
        "claim_rho2": PROB,
        "claims": {"z_max": POS, "close_fraction": POS},
    },
    smoke=("n_queries=40",),
)
def fig2_4_noise_ratio(cfg, ctx):
    (calib,) = ctx.mechanisms(cfg.mechanism, kind="noise_calibration").values()
    summaries, tasks = _summaries(cfg, ctx, cfg.attributes), []
    for a, panel in _panels(cfg).items():
        s = summaries[a]
        for rho1, rho2 in ((r1, r2) for r1 in panel for r2 in cfg.rho2_grid if r2 > r1):
            eps, lam = calib.impl.calibrate(s["sensitivity"], s["universe_size"], rho1, rho2)
            label = {"attribute": a, "rho1": rho1, "rho2": rho2, "epsilon": eps}
            tasks.append((label, lam, s["range"], int(cfg.n_queries), ctx.seed_sequence(a, rho1, rho2)))
    return pd.DataFrame([r for chunk in ctx.map(_nr_rows, tasks, desc="noise ratio") for r in chunk])


@fig2_4_noise_ratio.claims
def _(df, cfg):
    p, lam = cfg.printed, df[df.stat == "median"]
    up = [bool(np.all(np.diff(g["lambda"]) > 0)) for _, g in lam.groupby(["attribute", "rho1"], sort=False)]
    at = lam[np.isclose(lam.rho2, cfg.claim_rho2)]
    grows = [bool(np.all(np.diff(g.sort_values("rho1")["lambda"]) > 0)) for _, g in at.groupby("attribute")]
    fences = float(df[df.stat.isin(["lower_fence", "upper_fence"])].mc.abs().max())
    return [
        cl.statement(
            p.more_noise,
            all(up),
            reproduced=f"lambda rises with rho2 in {sum(up)} of {len(up)} panels",
            rule="every panel",
        ),
        cl.statement(
            p.grows,
            bool(grows) and all(grows),
            reproduced=f"in {sum(grows)} of {len(grows)} attributes",
            rule="every attribute",
        ),
        cl.at_most(p.close, fences, cfg.claims.close_fraction, reproduced=f"fences within {fences:.2e} of the range"),
        cl.within_se(
            "sampled quartiles agree with the exact Laplace quantiles", df.mc, df.exact, df.mc_se, k=cfg.claims.z_max
        ),
    ]


@experiment(
    artifact="Figure 5",
    summary="Noise ratio of plain eps-DP mean queries across a grid of eps, per attribute",
    keys=("attribute", "epsilon", "stat"),
    tolerances=MC_TOL,
    figures={"fig5_dp_noise_ratio": figures.dp_noise_ratio},
    params={**ADULT, "n_queries": N_QUERIES, "epsilons": List(POS), "claims": {"z_max": POS, "identical_tol": POS}},
    smoke=("n_queries=40",),
)
def fig5_dp_noise_ratio(cfg, ctx):
    tasks = []
    for a, s in _summaries(cfg, ctx, cfg.attributes).items():
        for e in map(float, cfg.epsilons):
            tasks.append(
                (
                    {"attribute": a, "epsilon": e},
                    s["sensitivity"] / e,
                    s["range"],
                    int(cfg.n_queries),
                    ctx.seed_sequence(a, e),
                )
            )
    return pd.DataFrame([r for chunk in ctx.map(_nr_rows, tasks, desc="noise ratio") for r in chunk])


@fig5_dp_noise_ratio.claims
def _(df, cfg):
    p = cfg.printed
    q1, q3 = (df[df.stat == s].set_index(["attribute", "epsilon"]) for s in ("q1", "q3"))
    iqr, se = q3.mc - q1.mc, np.hypot(q3.mc_se, q1.mc_se)
    out = [
        cl.monotone(
            cl.each(p.shrinks, f"{a} (sampled IQR)", p.shrinks.value),
            g,
            increasing=False,
            tol=cfg.claims.z_max * se.loc[a].max(),
        )
        for a, g in iqr.groupby(level="attribute", sort=False)
    ]
    spread = float((q3.exact - q1.exact).groupby(level="epsilon").std().fillna(0).max())
    shown = f"exact IQRs differ by at most {spread:.1e}"
    return [*out, cl.at_least(p.differ, spread, cfg.claims.identical_tol, strict=True, reproduced=shown)]


# --- Breach simulation (not in the paper: it checks the central guarantee) ---------------
def _breach_row(task):
    label, args = task
    return {**label, **lpb.breach_simulation(*args)}


@experiment(
    artifact="Section IV (simulation)",
    summary="Informed adversary against LPB-calibrated noise: largest posterior seen vs rho2, exact and simulated, "
    "at LPB's eps and above it",
    keys=("attribute", "rho1", "prior", "eps_factor"),
    figures={"breach_check": figures.breach_check},
    mechanism_kind="noise_calibration",
    one_mechanism=True,
    tolerances={
        "mc_max_posterior": Tolerance(atol=0.02),
        "mc_breach_rate": Tolerance(atol=0.01),
        "mc_breach": Tolerance(ignore=True),
    },
    params={
        **ADULT,
        "rho2": PROB,
        "priors": List(Choice(*lpb.PRIORS), unique=True),
        "eps_factors": List(POS),
        "target_index": Int(),
        "n_responses": Int(1, 10**9, limit="responses per setting"),
        "chunk": Int(1, 10**6, limit="responses held in memory"),
        "claims": {"posterior_tol": Real(0), "z_max": POS},
    },
    smoke=("n_responses=200", "chunk=100"),
)
def breach_check(cfg, ctx):
    (calib,) = ctx.mechanisms(cfg.mechanism, kind="noise_calibration").values()
    data, tasks, rho2 = ctx.dataset(cfg.dataset), [], float(cfg.rho2)
    for a, panel in _panels(cfg).items():
        col = data[a].to_numpy(dtype=float)
        if not -col.size <= cfg.target_index < col.size:
            raise PrivlabError(f"target_index must be in [{-col.size}, {col.size - 1}], got {cfg.target_index}")
        known, values = np.delete(col, cfg.target_index), np.arange(col.min(), col.max() + 1)
        for rho1, prior, factor in (
            (float(r), p, float(f)) for r in panel for p in cfg.priors for f in cfg.eps_factors
        ):
            if prior != "two_point" and values.size * rho1 < 1 - 1e-12:  # no prior keeps every value <= rho1
                ctx.log(f"breach_check: no {prior} prior for {a} at rho1={rho1:g} < 1/|U|")
                continue
            eps = factor * calib.impl.epsilon(values.size, rho1, rho2)
            label = {"attribute": a, "rho1": rho1, "rho2": rho2, "prior": prior, "eps_factor": factor, "epsilon": eps}
            seed = ctx.seed_sequence(a, rho1, prior, factor)
            tasks.append((label, (values, known, rho1, rho2, prior, eps, int(cfg.n_responses), int(cfg.chunk), seed)))
    return pd.DataFrame(ctx.map(_breach_row, tasks, desc="breach simulation"))


@breach_check.claims
def _(df, cfg):
    p, tol, rho2 = cfg.printed, cfg.claims.posterior_tol, cfg.rho2
    at, above = df[np.isclose(df.eps_factor, 1.0)], df[df.eps_factor > 1.0]
    capped, tight = at[at.prior != "two_point"], at[at.prior == "two_point"]
    top, hits = capped.exact_max_posterior.max(), capped.mc_breach.sum()
    seen = f"exact supremum <= {top:.4f}; simulated breach in {hits} settings"
    out = [
        cl.at_most(p.bounded, float(at.exact_max_posterior.max()), rho2 + tol),
        cl.statement(
            p.capped,
            not (capped.exact_breach.any() or capped.mc_breach.any()),
            reproduced=seen,
            rule="no breach, exact or simulated",
        ),
    ]
    if len(tight):
        exact = np.array([lpb.two_point_breach_rate(r, e) for r, e in zip(tight.rho1, tight.epsilon)])
        rates = f"two-point prior: breach rate {tight.mc_breach_rate.min():.4f}..{tight.mc_breach_rate.max():.4f}"
        holds = bool((tight.mc_breach_rate == 0).all() and not tight.exact_breach.any())
        out.append(cl.statement(p.no_breach, holds, reproduced=rates, rule="no breach, exact or simulated"))
        se = np.sqrt(exact * (1 - exact) / tight.responses)
        out.append(cl.within_se(p.rate, tight.mc_breach_rate, exact, se, k=cfg.claims.z_max))
    adv, capped_above = above[above.prior == "two_point"], above[above.prior == "adversarial"]
    if len(adv):
        shown = (
            f"exact breach in {adv.exact_breach.sum()} of {len(adv)} settings, rate >= {adv.mc_breach_rate.min():.3f}"
        )
        out.append(
            cl.statement(
                p.above, bool(adv.exact_breach.all() and adv.mc_breach.all()), reproduced=shown, rule="in every setting"
            )
        )
    if len(capped_above):
        safe = capped_above[~capped_above.exact_breach]
        where = "; ".join(f"{a} rho1={r:g} at {f:g}x" for a, r, f in zip(safe.attribute, safe.rho1, safe.eps_factor))
        shown = f"exact breach in {len(capped_above) - len(safe)} of {len(capped_above)} settings"
        why = f"not in the paper; no breach only where rho1 is near 1/|U| (a nearly uniform prior): {where or 'none'}"
        out.append(cl.info(p.capped_above, shown, note=why))
    return out
