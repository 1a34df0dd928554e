"""The paper's figures: the collusion Monte Carlo (Figures 5-6 and the whole MC table against the exact joint,
sharing the counts F[X, Y_a, Y_b, Y_c] through one checkpoint), pooling (Figure 7) and the history store (Figure 8)."""

from __future__ import annotations

import math
from functools import partial

from privlab.context import effective_workers
from privlab.multilevel._checks import MAX_CELLS
from privlab.multilevel.collusion import RECIPIENTS, agreement_table, collusion_table, equivalence_table
from privlab.multilevel.exact import MAX_EXACT_COPIES
from privlab.multilevel.montecarlo import KERNELS, collusion_counts, collusion_identity
from privlab.multilevel.overhead import overhead_table
from privlab.multilevel.schemes import confidence_table
from privlab.params import Bool, Choice, Int, List, MapOf, Real, Str
from privlab.registry import IGNORE, Tolerance, experiment
from privlab.relations import Cost, Ordered, Product, memory_budget

from . import figures as plots
from . import verdicts
from ._common import ON_ACS, POS, PRIORS, P, laws_of_x, mc_tol

MC = {
    "domain_size": Int(2, math.isqrt(math.isqrt(MAX_CELLS)), limit="F holds s^4 int64 cells, at most 2^27 (1 GiB)"),
    "retention": {"a": P, "b": P, "c": P},
    "distributions": PRIORS,
    "mc": {
        "trials": Int(1, 10**13, limit="trials per distribution"),
        # counted in uint32 cells (2^32 - 1 at most); a chunk is the unit of resumption, seconds each
        "chunk": Int(1, 10**8, limit="trials per chunk, the unit of resumption, a few seconds each"),
        "kernel": Choice(*KERNELS),
        "checkpoint_seconds": Real(0),
    },
}
# F[X, Y_a, Y_b, Y_c]: s^4 int64 counts held by each worker and by the run that adds them up
F_MEMORY = Cost(
    "the counts F: domain_size^4 x 8 bytes x (workers + 1)",
    lambda s, workers: s**4 * 8 * (effective_workers(workers) + 1),
    "domain_size",
    "workers",
    high=memory_budget(),
    limit="half of this machine's memory",
)
MC_SMOKE = ("mc.trials=200000", "mc.chunk=50000", "distributions.occupation.dataset.n=20000")
GOF_SMOKE = ("mc.trials=200000", "mc.chunk=50000", "domain_size=20", "~distributions.occupation")


def retention(cfg) -> list[float]:
    return [float(cfg.retention[r]) for r in "abc"]


def counts(cfg, ctx, name: str, prior):
    """F[X, Y_a, Y_b, Y_c] for the X distribution ``name``: resumable, shared by fig5, fig6 and agreement."""
    mc, ps, seed = cfg.mc, retention(cfg), ctx.seed_sequence("mc", name)
    identity = collusion_identity(
        prior, ps, domain_size=prior.size, trials=mc.trials, chunk=mc.chunk, seed=seed, kernel=mc.kernel
    )
    return collusion_counts(
        prior,
        ps,
        domain_size=prior.size,
        trials=mc.trials,
        chunk=mc.chunk,
        seed=seed,
        kernel=mc.kernel,
        map_fn=ctx.map_unordered,
        workers=ctx.workers,
        checkpoint=ctx.checkpoint("multilevel_mc", **identity),
        checkpoint_seconds=mc.checkpoint_seconds,
        log=lambda m: ctx.log(f"{name}: {m}"),
        progress=ctx.progress,
    )


@experiment(
    artifact="Figure 5",
    summary="Pr[X=x | Y_a,Y_b,Y_c] vs Pr[X=x | Y_c] at the paper's four cells, MC (10^7 quick / 10^10 "
    "paper trials) and exact",
    keys=("distribution", "x"),
    tolerances=mc_tol(mc_all="mc_all_se", mc_c="mc_c_se"),
    figures={"fig5_collusion": plots.collusion},
    params={
        **MC,
        "cells": MapOf(List(Int(1), min_len=3, max_len=3)),
        "claims": {
            "exact_tol": POS,
            "margin": POS,
            "alpha": Real(0, 0.5, low_open=True, high_open=True),
            "decide_with": Str(),
        },
    },
    relations=(Ordered("cells", "domain_size", strict=False), F_MEMORY),
    smoke=MC_SMOKE,
)
def fig5_collusion(cfg, ctx):
    return collusion_table(laws_of_x(cfg, ctx), retention(cfg), cfg.cells, partial(counts, cfg, ctx))


@experiment(
    artifact="Figure 6",
    summary="Pr[Y_i = y | X = x] for all y, MC from F vs the uni-pert formula and the exact chain law",
    keys=("distribution", "y"),
    tolerances=mc_tol(mc="mc_se"),
    figures={"fig6_equivalence": plots.equivalence},
    params={
        **MC,
        "equivalence": MapOf({"recipient": Choice(*RECIPIENTS), "x": Int(1)}),
        "claims": {"exact_tol": POS, "alpha": P},
    },
    relations=(Ordered("equivalence", "domain_size", strict=False), F_MEMORY),
    smoke=MC_SMOKE,
)
def fig6_equivalence(cfg, ctx):
    return equivalence_table(laws_of_x(cfg, ctx), retention(cfg), cfg.equivalence, partial(counts, cfg, ctx))


@experiment(
    artifact="Experiments (MC check)",
    summary="Chi-square and G-test of every MC table F[X,Ya,Yb,Yc] (and its (X, Y_i) margins) against the exact joint",
    keys=("distribution", "table"),
    tolerances={c: Tolerance(rtol=1e-6, atol=1e-12) for c in ("chi2", "chi2_p", "g", "g_p")},
    figures={"agreement": plots.agreement},
    params={**MC, "min_expected": POS, "claims": {"alpha": P, "margin": Real(0, 1, low_open=True)}},
    relations=(F_MEMORY,),
    smoke=GOF_SMOKE,
)
def agreement(cfg, ctx):
    return agreement_table(laws_of_x(cfg, ctx), retention(cfg), partial(counts, cfg, ctx), cfg.min_expected)


@experiment(
    artifact="Figure 7",
    summary="Adversary's expected confidence in the true value vs number of pooled copies, for every configured "
    "scheme (independent uni-pert copies vs multi-pert copies at the same p's), exact and MC",
    keys=("scheme", "k"),
    tolerances=mc_tol(mc="mc_se"),
    figures={"fig7_independent": plots.independent},
    params={
        "domain_size": Int(2, 10**4, limit="chunk x s likelihoods held in memory"),
        "pooled_ps": List(Real(0, 1, low_open=True, high_open=True), max_len=MAX_EXACT_COPIES),
        "mc": {
            "trials": Int(1, 10**10, limit="simulated tuples"),
            "chunk": Int(1, 10**6, limit="tuples per chunk held in memory"),
        },
        "claims": {"min_gain": Real(0), "z_max": POS},
    },
    relations=(Product("mc.chunk", "domain_size", high=MAX_CELLS, limit="likelihoods held in memory"),),
    smoke=("mc.trials=20000", "mc.chunk=5000"),
)
def fig7_independent(cfg, ctx):
    mechs = {m.label: m.impl for m in ctx.mechanisms(cfg.mechanism, kind="perturbation").values()}  # label: scheme
    mc = cfg.mc
    return confidence_table(
        mechs,
        cfg.pooled_ps,
        cfg.domain_size,
        mc.trials,
        chunk=mc.chunk,
        seed_sequence=ctx.seed_sequence,
        map_fn=ctx.map,
    )


@experiment(
    artifact="Figure 8",
    summary="multi-pert's time per release and stored size vs number of releases m and table size n, "
    "against the naive store of all m copies",
    keys=("n", "m"),
    tolerances={"history_ms_per_release": IGNORE, "naive_ms_per_release": IGNORE},
    figures={"fig8_overhead": plots.overhead},
    params={
        "domain_size": Int(2, 2**31 - 1, limit="codes are int32"),
        "table_sizes": List(Int(1, 10**8, limit="tuples held in memory by both stores")),
        "m_max": Int(1, 10**5, limit="releases per table"),
        "m_step": Int(1, 10**5, limit="releases per timing step"),
        "c": Real(0, 1, low_open=True, high_open=True),
        "naive_max_bytes": Int(0, 2**40, limit="bytes the naive store may take"),
        "timings": Bool(),
        "claims": {"z_max": POS, "space_ratio": POS, "time_ratio": POS},
    },
    relations=(
        Ordered("m_step", "m_max", strict=False),
        # each release touches every tuple (the quick profile 2.2e6, the paper's 1.1e9): bounded before it runs
        Cost(
            "tuple releases: sum(table_sizes) x m_max",
            lambda n, m: sum(n) * m,
            "table_sizes",
            "m_max",
            high=10**10,
            limit="about half an hour of one core",
        ),
        Cost(
            "terms of the exact expectations: m_max^2 / m_step",
            lambda m, step: m * m // step,
            "m_max",
            "m_step",
            high=10**9,
            limit="seconds of one core",
        ),
    ),  # fmt: skip
    smoke=("table_sizes=[2000]", "m_max=20", "m_step=10", "timings=false"),
)
def fig8_overhead(cfg, ctx):
    serial = partial(ctx.map, desc="fig8", workers=1)  # timings: one table size at a time (no memory-bandwidth race)
    return overhead_table(
        table_sizes=cfg.table_sizes,
        m=cfg.m_max,
        domain_size=cfg.domain_size,
        c=cfg.c,
        step=cfg.m_step,
        naive_max_bytes=cfg.naive_max_bytes,
        seed_sequence=partial(ctx.seed_sequence, "fig8"),
        timed=cfg.timings,
        map_fn=serial,
    )


fig7_independent.judged_by(verdicts.fig7_independent, limits="claims", mechanism="mechanism", domain_size="domain_size")
fig8_overhead.judged_by(verdicts.fig8_overhead, limits="claims", c="c", m_step="m_step", timings="timings")
for _original in (fig5_collusion, fig6_equivalence, agreement):  # their claims; the twins on ACS laws (_acs.yaml)
    _original.judged_by(
        getattr(verdicts, _original.name), limits="claims", distributions="distributions", domain_size="domain_size"
    )
    _original.twin(f"{_original.name}_acs", summary=_original.summary + ON_ACS, smoke=MC_SMOKE[:2])
