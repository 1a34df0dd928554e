"""The inferences: Section 2.1's differential inference (the noisy ratio of Laplace counts) and
Section 6's fake values against the corruption attack."""

from __future__ import annotations

from privlab.bucketization.inference import corruption_table, ratio_grid
from privlab.params import Int, List, Real, Str
from privlab.registry import Tolerance, experiment

from . import figures, verdicts
from ._common import CENSUS, POOL, POS, table_of


@experiment(
    artifact="Section 2.1 (Theorem 2)",
    summary="Noisy ratio a2~/a1~ under Laplace(1/eps): Monte Carlo median, trimmed mean and "
    "Pr[a1~ <= 0] vs the delta-method approximation",
    keys=("a1", "ratio", "epsilon"),
    tolerances={
        "median": Tolerance(se="median_se", k=5),
        "trimmed_mean": Tolerance(se="trimmed_se", k=5),
        "p_nonpos": Tolerance(se="p_nonpos_se", k=5, atol=1e-9),
        "median_se": Tolerance(rtol=0.2),
        "trimmed_se": Tolerance(rtol=0.2),
        "p_nonpos_se": Tolerance(rtol=1.0, atol=1e-6),
    },
    figures={"diffinf": figures.diffinf},
    params={
        **{key: List(POS) for key in ("a1s", "ratios", "epsilons")},
        "samples": Int(1, 10**8, limit="samples held in memory"),
        "trim": Real(0, 0.5, high_open=True),
        "large_a1": POS,
        "claims": {"close_rel": POS, "z_trimmed": POS, "z_max": POS},
    },
    smoke=("samples=2000",),
)
def diffinf(cfg, ctx):
    return ratio_grid(
        a1s=cfg.a1s,
        ratios=cfg.ratios,
        epsilons=cfg.epsilons,
        samples=cfg.samples,
        trim=cfg.trim,
        seed_sequence=ctx.seed_sequence,
        map_fn=ctx.map,
    )


@experiment(
    artifact="Section 6",
    summary="Corruption attack on uniform-F bucketizations: adversary success vs corrupted records "
    "per bucket with 0/1/2 fake values (Monte Carlo vs exact), and the RE cost of fakes",
    keys=("l", "fakes", "corrupted"),
    tolerances={"success": Tolerance(se="success_se", k=5), "re": Tolerance(se="re_se", k=5)},
    figures={"corruption": figures.corruption},
    params={
        **CENSUS,
        **POOL,
        "table": Str(),
        "ls": List(Int(1, 1000, limit="the SA domain size"), unique=True),
        "fakes": List(Int(0, 1000, limit="the SA domain size"), unique=True),
        "claims": {"z_max": POS},
    },
    smoke=("dataset.n=3000", "n_queries=50", "ls=[4]"),
)
def corruption(cfg, ctx):
    return corruption_table(
        table_of(cfg, ctx, cfg.table),
        ls=cfg.ls,
        fakes=cfg.fakes,
        max_size=cfg.max_size,
        n_queries=cfg.n_queries,
        selectivity=cfg.selectivity,
        seed_sequence=ctx.seed_sequence,
        map_fn=ctx.map,
    )


diffinf.judged_by(verdicts.diffinf, limits="claims", large_a1="large_a1")
corruption.judged_by(verdicts.corruption, z_max="claims.z_max")
