"""The noise LPB calibrates: Figures 2-5's noise ratio, Figure 5's "same effect as eps-DP" made
checkable, and the breach simulation against the informed adversary (Section IV)."""

from __future__ import annotations

from privlab.lpb.breach import PRIORS, breach_grid
from privlab.lpb.equivalence import lpb_vs_dp_grid
from privlab.lpb.noise_ratio import dp_noise_ratio, lpb_noise_ratio
from privlab.params import Choice, Int, List, Real
from privlab.registry import IGNORE, Tolerance, experiment
from privlab.relations import Ordered, Subset

from . import figures, verdicts
from ._common import ADULT, CALIBRATION, GRID, MC_TOL, N_QUERIES, POS, PROB, TARGET_INDEX, calibration, columns

NR_FIGURES = {f"fig{n}_{a.replace('-', '_')}": figures.noise_ratio(a, n) for a, n in figures.NR_PANELS}


@experiment(
    artifact="Figures 2-4",
    summary="Noise ratio of 1,000 LPB-calibrated mean queries: box plots per attribute, rho1 panel and rho2",
    keys=("attribute", "rho1", "rho2", "stat"),
    tolerances=MC_TOL,
    figures=NR_FIGURES,
    **CALIBRATION,
    params={**GRID, "claim_rho2": PROB, "claims": {"z_max": POS, "close_fraction": POS}},
    relations=(Subset("claim_rho2", of="rho2_grid"),),
    smoke=("n_queries=40",),
)
def fig2_4_noise_ratio(cfg, ctx):
    return lpb_noise_ratio(
        columns(cfg, ctx),
        panels=cfg.panels,
        rho2_grid=cfg.rho2_grid,
        calibration=calibration(cfg, ctx),
        n_queries=cfg.n_queries,
        seed_sequence=ctx.seed_sequence,
        map_fn=ctx.map,
    )


fig2_4_noise_ratio.judged_by(verdicts.fig2_4_noise_ratio, claim_rho2="claim_rho2", limits="claims")


@experiment(
    artifact="Figure 5",
    summary="Noise ratio of plain eps-DP mean queries across a grid of eps, per attribute",
    keys=("attribute", "epsilon", "stat"),
    tolerances=MC_TOL,
    figures={"fig5_dp_noise_ratio": figures.dp_noise_ratio},
    params={**ADULT, "n_queries": N_QUERIES, "epsilons": List(POS), "claims": {"identical_tol": POS}},
    smoke=("n_queries=40",),
)
def fig5_dp_noise_ratio(cfg, ctx):
    data = columns(cfg, ctx)
    return dp_noise_ratio(data, cfg.epsilons, cfg.n_queries, seed_sequence=ctx.seed_sequence, map_fn=ctx.map)


fig5_dp_noise_ratio.judged_by(verdicts.fig5_dp_noise_ratio, limits="claims")


@experiment(
    artifact="Figure 5 (statement)",
    summary="'LPB can achieve the same effect as eps-DP': eps-DP at LPB's eps gives LPB's noise, and eps-DP keeps "
    "(rho1, rho2)-privacy exactly below LPB's eps",
    keys=("attribute", "rho1", "rho2", "epsilon"),
    figures={"fig5_lpb_vs_dp": figures.lpb_vs_dp},
    **CALIBRATION,
    params={**GRID, "epsilons": List(POS), "target_index": TARGET_INDEX, "claims": {"scale_tol": POS}},
    smoke=("n_queries=40",),
)
def fig5_lpb_vs_dp(cfg, ctx):
    return lpb_vs_dp_grid(
        columns(cfg, ctx),
        panels=cfg.panels,
        rho2_grid=cfg.rho2_grid,
        epsilons=cfg.epsilons,
        target_index=cfg.target_index,
        n_queries=cfg.n_queries,
        calibration=calibration(cfg, ctx),
        seed_sequence=ctx.seed_sequence,
        map_fn=ctx.map,
    )


fig5_lpb_vs_dp.judged_by(verdicts.fig5_lpb_vs_dp, limits="claims")


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
        "priors": List(Choice(*PRIORS), unique=True),
        "eps_factors": List(POS),
        "target_index": TARGET_INDEX,
        "n_responses": Int(1, 10**9, limit="responses per setting"),
        "chunk": Int(1, 10**6, limit="responses held in memory"),
        "claims": {"posterior_tol": Real(0), "z_max": POS},
    },
    relations=(Ordered("panels", "rho2"),),
    smoke=("n_responses=200", "chunk=100"),
)
def breach_check(cfg, ctx):
    return breach_grid(
        columns(cfg, ctx),
        panels=cfg.panels,
        rho2=cfg.rho2,
        priors=cfg.priors,
        eps_factors=cfg.eps_factors,
        target_index=cfg.target_index,
        n_responses=cfg.n_responses,
        chunk=cfg.chunk,
        calibration=calibration(cfg, ctx),
        seed_sequence=ctx.seed_sequence,
        map_fn=ctx.map,
        log=ctx.log,
    )


breach_check.judged_by(verdicts.breach_check, rho2="rho2", limits="claims")
