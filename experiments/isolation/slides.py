"""The talk's results by simulation and its displayed formulas, one experiment per artifact: the results
table vs d (slide 24), the privacy parameters c and T, the bad sanitizer that passes (slide 9), real data
(slide 21: Adult, and its ACS twin), utility (slides 10 and 15) and every displayed formula re-derived."""

from __future__ import annotations

from functools import partial

from privlab.context import effective_workers
from privlab.isolation import derivations
from privlab.isolation.data import SCALINGS, numeric_records
from privlab.isolation.mechanisms import Sanitizer
from privlab.isolation.sweeps import bad_sanitizer_table, c_T_table, real_data_table, results_table, utility_table
from privlab.params import Choice, Int, List, Optional, Real, Str
from privlab.registry import Tolerance, experiment
from privlab.relations import Cost, Ordered, memory_budget

from . import figures, verdicts

N = Int(2, 10**6, limit="points of RDB held in memory")
M = Int(1, 10**6, limit="adversary outputs held in memory")
T_ = Int(1, 10**6, limit="a crowd of at most the points held")
C, DIM = Real(1), Int(1, 1000, limit="coordinates per point")
POS, PROB = Real(0, low_open=True), Real(0, 1)
ATTACK = {"n": N, "T": T_, "c": C, "m": M}  # the RDB size, the privacy parameters and the targets
# a worker holds, per cell (d, sanitizer), RDB and its sanitized copy (n x d) and the outputs (m x d), float64
POINTS_MEMORY = Cost(
    "points held: (2 n + m + m_any) x max(dims) x 8 bytes x workers",
    lambda n, m, m_any, dims, workers: (2 * n + m + m_any) * max(dims) * 8 * effective_workers(workers),
    "n", "m", "m_any", "dims", "workers",
    high=memory_budget(),
    limit="half of this machine's memory",
)  # fmt: skip
RATE_TOL = {
    "rate": Tolerance(atol=0.003, se="rate_se", k=5),
    "rate_any": Tolerance(atol=0.003, se="rate_any_se", k=5),
    "successes": Tolerance(ignore=True),
    "successes_any": Tolerance(ignore=True),
    "wilson_upper": Tolerance(atol=0.003, rtol=0.5),
    "noise_ratio_mean": Tolerance(se="noise_ratio_se", k=5),
}


def _sanitizers(cfg, ctx) -> list[tuple[str, Sanitizer]]:
    """The configured sanitizers as (label, sanitizer), in config order."""
    return [(m.label, m.impl) for m in ctx.mechanisms(cfg.mechanism, kind="sanitizer").values()]


@experiment(
    artifact="Results table (slide 24), by simulation",
    summary="Isolation success rate vs dimension d for each sanitizer and its natural adversaries, beside "
    "the aux-only baseline; fitted exponential rate per sanitizer",
    keys=("d", "sanitizer", "adversary"),
    tolerances=RATE_TOL,
    figures={"isolation_vs_d": figures.isolation_vs_d},
    params={
        **ATTACK,
        "m_any": M,
        "dims": List(DIM, unique=True),
        "claims": {
            "negligible": PROB,
            "min_decay": Real(0),
            "talk_b": Real(0),
            "level": Real(0, 1, low_open=True, high_open=True),
            "decide_with": Str(),
            "noise_z_max": POS,
        },
    },
    relations=(Ordered("T", "n", strict=False), POINTS_MEMORY),
    smoke=("dims=[2,4]", "n=400", "m=40", "m_any=40"),
)
def isolation_vs_d(cfg, ctx):
    for d in cfg.dims:
        ctx.describe_data({"name": "uniform_cube", "n": cfg.n, "d": d})
    sans, run = _sanitizers(cfg, ctx), partial(ctx.map, desc="isolation vs d")
    return results_table(cfg.n, cfg.dims, cfg.T, cfg.c, cfg.m, sans, ctx.seed_sequence, m_any=cfg.m_any, map_fn=run)


isolation_vs_d.judged_by(verdicts.isolation_vs_d, limits="claims", c="c")


@experiment(
    artifact="Results table, privacy parameters c and T",
    summary="Isolation success rate vs c and T at fixed d for each sanitizer (one RDB for all settings)",
    keys=("c", "T", "sanitizer", "adversary"),
    tolerances=RATE_TOL,
    figures={"isolation_vs_c_T": figures.isolation_vs_c_T},
    params={"d": DIM, "n": N, "cs": List(C), "Ts": List(T_), "m": M, "talk_c": C, "claims": {"rate_slack": Real(0)}},
    relations=(Ordered("Ts", "n", strict=False),),
    smoke=("n=400", "m=40", "Ts=[1,5]", "cs=[1,4]"),
)
def isolation_vs_c_T(cfg, ctx):
    ctx.describe_data({"name": "uniform_cube", "n": cfg.n, "d": cfg.d})
    sans, run = _sanitizers(cfg, ctx), partial(ctx.map, desc="isolation vs c, T")
    return c_T_table(cfg.n, cfg.d, cfg.cs, cfg.Ts, cfg.m, sans, ctx.seed_sequence, map_fn=run)


isolation_vs_c_T.judged_by(verdicts.isolation_vs_c_T, limits="claims", talk_c="talk_c")


@experiment(
    artifact="Slide 9: a bad sanitizer that passes",
    summary="Isolation rate vs the number of attributes released exactly (the rest replaced by noise), "
    "for disguised attributes of growing scale",
    keys=("stretch", "disclosed", "adversary"),
    tolerances=RATE_TOL,
    figures={"bad_sanitizer": figures.bad_sanitizer},
    params={
        **ATTACK,
        "d": Int(2, 1000, limit="coordinates per point"),
        "stretches": List(POS),
        "claims": {"negligible": PROB, "decide_with": Str()},
    },
    relations=(Ordered("T", "n", strict=False),),
    smoke=("n=400", "m=40", "d=3", "stretches=[1,1000]"),
)
def bad_sanitizer(cfg, ctx):
    ctx.describe_data({"name": "uniform_cube", "n": cfg.n, "d": cfg.d})
    run = partial(ctx.map, desc="bad sanitizer")
    return bad_sanitizer_table(cfg.n, cfg.d, cfg.T, cfg.c, cfg.m, cfg.stretches, ctx.seed_sequence, map_fn=run)


bad_sanitizer.judged_by(verdicts.bad_sanitizer, limits="claims")


@experiment(
    artifact="Slide 21: moving towards real data",
    summary="Isolation rates of each sanitizer on Adult's numeric columns scaled to the cube (min-max and "
    "rank scaling, discrete values jittered), beside uniform data of the same n and d",
    keys=("data", "sanitizer", "adversary"),
    tolerances=RATE_TOL,
    figures={"real_data": figures.real_data},
    params={
        "columns": List(Str(), unique=True),
        "n_rows": Optional(Int(2, 10**7, limit="rows of the data set held")),
        "scalings": List(Choice(*SCALINGS), unique=True),
        **{k: v for k, v in ATTACK.items() if k != "n"},
        "claims": {"scaling_slack": Real(0)},
    },
    smoke=("n_rows=1000", "m=100"),
)
def real_data(cfg, ctx):
    name, frame = cfg.dataset.name, ctx.dataset(cfg.dataset)
    records = numeric_records(frame, cfg.columns, cfg.n_rows, ctx.seed_sequence("real", "rows"), name=name)
    if cfg.n_rows is not None and cfg.n_rows > records.shape[0]:  # the documented cap, said where it applies
        ctx.log(f"n_rows {cfg.n_rows:,} is above the {records.shape[0]:,} complete rows of {name}: all are used")
    ctx.describe_data({"name": "uniform_cube", "n": records.shape[0], "d": records.shape[1]})  # the reference rows
    sans, run = _sanitizers(cfg, ctx), partial(ctx.map, desc="real data")
    return real_data_table(records, cfg.scalings, cfg.T, cfg.c, cfg.m, sans, ctx.seed_sequence, data=name, map_fn=run)


real_data.judged_by(verdicts.real_data, limits="claims", dataset="dataset.name", columns="columns")  # adult or acs


real_data.twin(
    "real_data_acs",
    summary="real_data on real ACS person records (2019, MA and TX): AGEP, PWGTP, EDU, PINCP, POVPIP and "
    "DENSITY in place of Adult's six numeric columns, scaled to the cube",
)


@experiment(
    artifact="Slides 10 and 15: utility of histograms and perturbation",
    summary="Column-mean error, k-means cost of SDB-learned centres on RDB over the RDB optimum, and "
    "box-count (density) error of each sanitizer on clustered data",
    keys=("d", "sanitizer"),
    tolerances={
        "mean_error_rms": Tolerance(rtol=0.5, atol=1e-3),
        "noise_mean_error_rms": Tolerance(rtol=0.5, atol=1e-3),
        "kmeans_cost_ratio": Tolerance(rtol=0.1),
        "box_query_mae": Tolerance(rtol=0.3, atol=2e-3),
    },
    figures={"utility": figures.utility},
    params={
        "dims": List(DIM, unique=True),
        "n": N,
        "T": Int(2, 10**6, limit="a crowd of at most the points held"),
        "k": Int(1, 1000, limit="k-means centres per run"),
        "sigma": Real(0),
        "n_init": Int(1, 1000, limit="k-means restarts per release"),
        "n_boxes": Int(1, 10**5, limit="box queries per d"),
        "box_dims": Int(1, 1000, limit="attributes a box restricts, at most the coordinates"),
        "claims": {"mean_tolerance": POS, "kmeans_tolerance": Real(1), "box_tolerance": POS, "noise_ratio_max": POS},
    },
    relations=(Ordered("T", "n", strict=False), Ordered("box_dims", "dims", strict=False)),
    smoke=("dims=[2,3]", "n=300", "n_init=1", "n_boxes=20"),
)
def utility(cfg, ctx):
    for d in cfg.dims:
        ctx.describe_data({"name": "gaussian_mixture", "n": cfg.n, "d": d, "k": cfg.k, "sigma": cfg.sigma})
    kw = {k: cfg[k] for k in ("k", "sigma", "n_boxes", "box_dims", "n_init")}
    sans, run = _sanitizers(cfg, ctx), partial(ctx.map, desc="utility")
    return utility_table(cfg.dims, cfg.n, cfg.T, sans, ctx.seed_sequence, **kw, map_fn=run)


utility.judged_by(verdicts.utility, limits="claims")


@experiment(
    artifact="Displayed formulas (slides 7, 12-13, 17-18, 24)",
    summary="every displayed formula re-derived: the noise law, the ball-volume ratio of the lemma, the "
    "histogram's split, the universe, Case 1's distance and count, the union bound and the T-radius",
    keys=("key",),
    params={
        "instance": {"d": DIM, "c": Real(1), "s": POS, "t": POS, "scale": Real(0), "n": Int(1, 10**9), "b": POS},
        "case1": {"T": Int(2, 64, limit="one point per sub-cube of [-1, 1]^d"), "d": Int(1, 6), "c": Real(1)},
        "t_radius": {"T": Int(1, 100), "n": Int(2, 500, limit="an n x n distance matrix"), "d": DIM},
        "n_of_d": Str(),
    },
    relations=(Ordered("t_radius.T", "t_radius.n", strict=False),),
)
def formulas(cfg, ctx):
    p = cfg.printed.formulas
    return derivations.formula_table(p, cfg.instance, cfg.case1, cfg.t_radius, cfg.n_of_d, map_fn=ctx.map)


formulas.judged_by(verdicts.formulas)
