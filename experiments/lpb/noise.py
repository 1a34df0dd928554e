"""The noise LPB calibrates: Figures 2-5's noise ratio, Figure 5's "same effect as eps-DP" made
checkable, and the breach simulation against the informed adversary (Section IV)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab import lpb
from privlab.lpb import figures
from privlab.lpb.breach import informed_adversary
from privlab.params import Choice, Int, List, Real
from privlab.registry import IGNORE, Tolerance, experiment

from ._common import (
    ADULT,
    CALIBRATION,
    GRID,
    MC_TOL,
    N_QUERIES,
    POS,
    PROB,
    TARGET_INDEX,
    calibration,
    panels,
    summaries,
)

NR_FIGURES = {f"fig{n}_{a.replace('-', '_')}": figures.noise_ratio(a, n) for a, n in figures.NR_PANELS}


def _nr_rows(task):
    label, lam, u_range, n, seed = task
    return [{**label, "lambda": lam, **row} for row in lpb.noise_ratio_stats(lam, u_range, n, seed)]


def _noise_ratio(ctx, tasks) -> pd.DataFrame:
    """The noise-ratio statistics of each (label, lambda, range, n_queries, seed) task, one row per statistic."""
    return pd.DataFrame([r for chunk in ctx.map(_nr_rows, tasks, desc="noise ratio") for r in chunk])


@experiment(
    artifact="Figures 2-4",
    summary="Noise ratio of 1,000 LPB-calibrated mean queries: box plots per attribute, rho1 panel and rho2",
    keys=("attribute", "rho1", "rho2", "stat"),
    tolerances=MC_TOL,
    figures=NR_FIGURES,
    **CALIBRATION,
    params={**GRID, "claim_rho2": PROB, "claims": {"z_max": POS, "close_fraction": POS}},
    smoke=("n_queries=40",),
)
def fig2_4_noise_ratio(cfg, ctx):
    calib, s_of, tasks = calibration(cfg, ctx), summaries(cfg, ctx, cfg.attributes), []
    for a, panel in panels(cfg).items():
        s = s_of[a]
        for rho1, rho2 in ((r1, r2) for r1 in panel for r2 in cfg.rho2_grid if r2 > r1):
            eps, lam = calib.calibrate(s["sensitivity"], s["universe_size"], rho1, rho2)
            label = {"attribute": a, "rho1": rho1, "rho2": rho2, "epsilon": eps}
            tasks.append((label, lam, s["range"], int(cfg.n_queries), ctx.seed_sequence(a, rho1, rho2)))
    return _noise_ratio(ctx, tasks)


@fig2_4_noise_ratio.claims
def _(df, cfg):
    p, lam = cfg.printed, df[df.stat == "median"]
    up = [bool(np.all(np.diff(g["lambda"]) > 0)) for _, g in lam.groupby(["attribute", "rho1"], sort=False)]
    at = lam[np.isclose(lam.rho2, cfg.claim_rho2)]
    grows = [bool(np.all(np.diff(g.sort_values("rho1")["lambda"]) > 0)) for _, g in at.groupby("attribute")]
    fences = float(df[df.stat.isin(["lower_fence", "upper_fence"])].mc.abs().max())
    rises = f"lambda rises with rho2 in {sum(up)} of {len(up)} panels"
    in_all = f"in {sum(grows)} of {len(grows)} attributes"
    return [
        cl.statement(p.more_noise, all(up), reproduced=rises, rule="every panel"),
        cl.statement(p.grows, bool(grows) and all(grows), reproduced=in_all, rule="every attribute"),
        cl.at_most(p.close, fences, cfg.claims.close_fraction, reproduced=f"fences within {fences:.2e} of the range"),
        cl.within_se(p.quartiles, df.mc, df.exact, df.mc_se, k=cfg.claims.z_max),
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
    n = int(cfg.n_queries)
    tasks = [
        ({"attribute": a, "epsilon": e}, s["sensitivity"] / e, s["range"], n, ctx.seed_sequence(a, e))
        for a, s in summaries(cfg, ctx, cfg.attributes).items()
        for e in map(float, cfg.epsilons)
    ]
    return _noise_ratio(ctx, tasks)


@fig5_dp_noise_ratio.claims
def _(df, cfg):
    p = cfg.printed
    q1, q3 = (df[df.stat == s].set_index(["attribute", "epsilon"]) for s in ("q1", "q3"))
    iqr, se = q3.mc - q1.mc, np.hypot(q3.mc_se, q1.mc_se)
    out = []
    for a, g in iqr.groupby(level="attribute", sort=False):
        item = cl.each(p.shrinks, f"{a} (sampled IQR)", p.shrinks.value)
        out.append(cl.monotone(item, g, increasing=False, tol=cfg.claims.z_max * se.loc[a].max()))
    spread = float((q3.exact - q1.exact).groupby(level="epsilon").std().fillna(0).max())
    shown = f"exact IQRs differ by at most {spread:.1e}"
    return [*out, cl.at_least(p.differ, spread, cfg.claims.identical_tol, strict=True, reproduced=shown)]


def _vs_row(task):
    label, args = task
    return [{**label, **row} for row in lpb.lpb_vs_dp(*args)]


@experiment(
    artifact="Figure 5 (statement)",
    summary="'LPB can achieve the same effect as eps-DP': eps-DP at LPB's eps gives LPB's noise, and eps-DP keeps "
    "(rho1, rho2)-privacy exactly below LPB's eps",
    keys=("attribute", "rho1", "rho2", "epsilon"),
    figures={"fig5_lpb_vs_dp": figures.lpb_vs_dp},
    **CALIBRATION,
    params={**GRID, "epsilons": List(POS), "target_index": TARGET_INDEX, "claims": {"alpha": PROB}},
    smoke=("n_queries=40",),
)
def fig5_lpb_vs_dp(cfg, ctx):
    calib, data, tasks = calibration(cfg, ctx), ctx.dataset(cfg.dataset), []
    for a, panel in panels(cfg).items():
        known, values = informed_adversary(data[a].dropna().to_numpy(dtype=float), cfg.target_index)
        for rho1, rho2 in ((float(r1), float(r2)) for r1 in panel for r2 in cfg.rho2_grid if r2 > r1):
            seed = ctx.seed_sequence(a, rho1, rho2)
            args = (values, known, rho1, rho2, list(cfg.epsilons), int(cfg.n_queries), seed, calib)
            tasks.append(({"attribute": a, "rho1": rho1, "rho2": rho2}, args))
    return pd.DataFrame([r for chunk in ctx.map(_vs_row, tasks, desc="LPB vs eps-DP") for r in chunk])


@fig5_lpb_vs_dp.claims
def _(df, cfg):
    p, at = cfg.printed, df[df.at_calibrated_eps]
    k, gap = len(at), float(at.exact_quartile_gap.max())
    adjusted = min(1.0, float(at.ks_p.min()) * k)  # Bonferroni over the settings
    detail = f"smallest of {k} two-sample KS p-values x {k}; exact quartiles differ by at most {gap:.1e} of the range"
    out = [cl.gof(p.same_noise, adjusted, alpha=cfg.claims.alpha, detail=detail)]
    expected = df.epsilon >= df.eps_calibrated  # a breach exactly from the calibrated eps on (Definition 3: >= rho2)
    against = int((df.breach != expected).sum())
    below, above = df[~expected], df[expected]
    shown = (
        f"{against} of {len(df)} (setting, eps) pairs against it: no breach at {int((~below.breach).sum())} of "
        f"{len(below)} eps below, breach at {int(above.breach.sum())} of {len(above)} at or above; worst posterior at "
        f"the calibrated eps within {float((at.worst_posterior - at.rho2).abs().max()):.1e} of rho2"
    )
    return [*out, cl.statement(p.semantics, against == 0, reproduced=shown, rule="breach iff eps >= calibrated eps")]


def _breach_row(task):
    label, args = task
    return {**label, **lpb.breach_simulation(*args)}


@experiment(
    artifact="Section IV (simulation)",
    summary="Informed adversary against LPB-calibrated noise: largest posterior seen vs rho2, exact and simulated, "
    "at LPB's eps and above it",
    keys=("attribute", "rho1", "prior", "eps_factor"),
    figures={"breach_check": figures.breach_check},
    **CALIBRATION,
    tolerances={"mc_max_posterior": Tolerance(atol=0.02), "mc_breach_rate": Tolerance(atol=0.01), "mc_breach": IGNORE},
    params={
        **ADULT,
        "rho2": PROB,
        "priors": List(Choice(*lpb.PRIORS), unique=True),
        "eps_factors": List(POS),
        "target_index": TARGET_INDEX,
        "n_responses": Int(1, 10**9, limit="responses per setting"),
        "chunk": Int(1, 10**6, limit="responses held in memory"),
        "claims": {"posterior_tol": Real(0), "z_max": POS},
    },
    smoke=("n_responses=200", "chunk=100"),
)
def breach_check(cfg, ctx):
    calib, data, tasks, rho2 = calibration(cfg, ctx), ctx.dataset(cfg.dataset), [], float(cfg.rho2)
    for a, panel in panels(cfg).items():
        known, values = informed_adversary(data[a].dropna().to_numpy(dtype=float), cfg.target_index)
        settings = ((float(r), p, float(f)) for r in panel for p in cfg.priors for f in cfg.eps_factors)
        for rho1, prior, factor in settings:
            if prior != "two_point" and values.size * rho1 < 1 - 1e-12:  # no prior keeps every value <= rho1
                ctx.log(f"breach_check: no {prior} prior for {a} at rho1={rho1:g} < 1/|U|")
                continue
            eps = factor * calib.epsilon(values.size, rho1, rho2)
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
    none = not (capped.exact_breach.any() or capped.mc_breach.any())
    out = [
        cl.at_most(p.bounded, float(at.exact_max_posterior.max()), rho2 + tol),
        cl.statement(p.capped, none, reproduced=seen, rule="no breach, exact or simulated"),
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
        holds = bool(adv.exact_breach.all() and adv.mc_breach.all())
        out.append(cl.statement(p.above, holds, reproduced=shown, rule="in every setting"))
    if len(capped_above):
        safe = capped_above[~capped_above.exact_breach]
        where = "; ".join(f"{a} rho1={r:g} at {f:g}x" for a, r, f in zip(safe.attribute, safe.rho1, safe.eps_factor))
        shown = f"exact breach in {len(capped_above) - len(safe)} of {len(capped_above)} settings"
        out.append(cl.info(p.capped_above, shown, note=p.capped_above.safe.format(where=where or "none")))
    return out
