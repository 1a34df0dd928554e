"""Figure 7: the runtime of TwoSizeBucketing's pruning modes and the two-size ILP, vs the
cardinality n and vs the domain scale-up gamma (OCC)."""

from __future__ import annotations

import numpy as np

from privlab.bucketization.runtime import runtime_vs_n, runtime_vs_scaleup
from privlab.params import Int, List, Str
from privlab.registry import experiment

from . import figures, verdicts
from ._common import POS, RUNTIME, RUNTIME_TOL, SMOKE_PRUNINGS, labels, mechanisms, table_of

TREND = {"min_points": Int(2, 100), "decide_with": Str()}  # how trends are judged (privlab.claims.trend)


@experiment(
    artifact="Figure 7 (cardinality)",
    summary="Runtime of No-, Loss-, Full-pruning TwoSizeBucketing and the two-size ILP vs n (OCC)",
    keys=("n", "method"),
    tolerances=RUNTIME_TOL,
    figures={"fig7a_runtime_n": figures.runtime_n},
    params={
        **RUNTIME,
        "ns": List(Int(1, 500_000, limit="rows the generator draws")),
        "claims": {"flat_factor": POS, **TREND},
    },
    smoke=("ns=[5000,10000]", *SMOKE_PRUNINGS),
)
def fig7a_runtime_n(cfg, ctx):
    counts = {n: np.bincount(table_of(cfg, ctx, cfg.table, {**cfg.dataset, "n": n}).sa) for n in cfg.ns}
    return runtime_vs_n(
        counts,
        mechanisms=mechanisms(cfg, ctx),
        theta=cfg.theta,
        offset=cfg.offset,
        max_size=cfg.max_size,
        repeats=cfg.repeats,
        timings=cfg.timings,
    )


@experiment(
    artifact="Figure 7 (domain size)",
    summary="Runtime vs domain scale-up factor gamma (OCC, n = 500K)",
    keys=("gamma", "method"),
    tolerances=RUNTIME_TOL,
    figures={"fig7b_runtime_scaleup": figures.runtime_scaleup},
    params={
        **RUNTIME,
        "gammas": List(Int(1, 1024, limit="domain size m * gamma")),
        "claims": {"grows_factor": POS, "little_factor": POS, **TREND},
    },
    smoke=("dataset.n=10000", "gammas=[2]", *SMOKE_PRUNINGS),
)
def fig7b_runtime_scaleup(cfg, ctx):
    sa = table_of(cfg, ctx, cfg.table).sa
    return runtime_vs_scaleup(
        sa,
        gammas=cfg.gammas,
        mechanisms=mechanisms(cfg, ctx),
        theta=cfg.theta,
        offset=cfg.offset,
        max_size=cfg.max_size,
        repeats=cfg.repeats,
        timings=cfg.timings,
        seed_sequence=ctx.seed_sequence,
    )


fig7a_runtime_n.judged_by(verdicts.fig7a_runtime_n, limits="claims", labels=labels, timings="timings")
fig7b_runtime_scaleup.judged_by(verdicts.fig7b_runtime_scaleup, limits="claims", labels=labels, timings="timings")
