"""The experiments on the CENSUS-like OCC and EDU tables and their real-data twins on ACS: the
data (Figure 2's sensitive-value frequencies, Table 5's attributes, Figure 3's l needed for
each theta) and the utility of each mechanism's release vs theta (Figure 4's MSE, Figure 5's
relative error of count queries)."""

from __future__ import annotations

from typing import Any

from privlab.bucketization.anatomy import l_needed_table
from privlab.bucketization.examples import frequency_tables
from privlab.bucketization.metrics import MSE_DEFINITIONS
from privlab.bucketization.tables import attribute_table
from privlab.bucketization.utility import mse_table, re_table
from privlab.params import Bool, Choice, Int, List, Real, Str
from privlab.registry import IGNORE, Tolerance, experiment

from . import figures, verdicts
from ._common import CENSUS, GRID, POOL, POS, data_kind, labels, mechanisms, tables_of


@experiment(
    artifact="Figure 2",
    summary="Frequency of every sensitive value of the OCC and EDU tables, most frequent first",
    keys=("table", "rank"),
    figures={"fig2_sa_frequencies": figures.sa_frequencies},
    params={**CENSUS, "tables": List(Str(), unique=True), "claims": {"skew_ratio": POS}},
    smoke=("tables=[EDU]",),
)
def fig2_sa_frequencies(cfg, ctx):
    return frequency_tables(tables_of(cfg, ctx))


@experiment(
    artifact="Table 5",
    summary="The CENSUS attributes and their domain sizes against the data the experiments run on",
    keys=("attribute",),
    params=CENSUS,
)
def table5_attributes(cfg, ctx):
    return attribute_table(ctx.dataset(cfg.dataset), cfg.columns)


@experiment(
    artifact="Figure 3",
    summary="l = ceil(1/min F_i) needed to model F-privacy by l-diversity, and its eligibility",
    keys=("table", "theta"),
    figures={"fig3_l_vs_theta": figures.l_vs_theta},
    params=GRID,
    smoke=("thetas=[2,32]",),  # no dataset.n: the ACS twin has none
)
def fig3_l_vs_theta(cfg, ctx):
    return l_needed_table(tables_of(cfg, ctx), cfg.thetas, cfg.offset)


@experiment(
    artifact="Figure 4",
    summary="MSE of TwoSize, MultiSize, Optimal (ILP) and Anatomy vs theta on OCC and EDU",
    keys=("table", "theta", "method"),
    # the ILP may return another optimal setting with the same loss (alternative optima)
    tolerances={"seconds": IGNORE, "setting": IGNORE, "n_sizes": IGNORE},
    figures={"fig4_mse": figures.mse_vs_theta},
    params={
        **GRID,
        "timings": Bool(),
        "mse_definition": Choice(*MSE_DEFINITIONS),
        "claims": {"slightly": POS, "significantly": POS, "float_tol": Real(0)},
    },
    smoke=("tables=[EDU]", "thetas=[4,32]", "timings=false"),  # EDU: a small ILP on CENSUS-like and ACS data
)
def fig4_mse(cfg, ctx):
    grid = (tables_of(cfg, ctx), cfg.thetas, mechanisms(cfg, ctx, memo=True), cfg.offset, cfg.max_size)
    return mse_table(
        *grid, cfg.timings, seed_sequence=ctx.seed_sequence, map_fn=ctx.map, mse_definition=cfg.mse_definition
    )


@experiment(
    artifact="Figure 5",
    summary="Mean relative error of count queries (pool of selectivity 1%) vs theta",
    keys=("table", "theta", "method"),
    # the ILP may release another optimal setting (alternative optima, as in fig4_mse): the pool's
    # RE on it moves within the pool's own sampling error
    tolerances={
        "re": Tolerance(se="re_se", k=5),
        "re_se": Tolerance(rtol=0.2),
        "re_median": Tolerance(se="re_se", k=5),
    },
    figures={"fig5_re": figures.re_vs_theta},
    params={
        **GRID,
        **POOL,
        "query_chunk": Int(1, 10**6, limit="queries per work item"),
        "claims": {"most": Real(0, 1), "re_gap": POS},
    },
    smoke=("tables=[EDU]", "thetas=[4]", "n_queries=200", "query_chunk=100"),
)
def fig5_re(cfg, ctx):
    return re_table(
        tables_of(cfg, ctx),
        thetas=cfg.thetas,
        mechanisms=mechanisms(cfg, ctx, memo=True),
        offset=cfg.offset,
        max_size=cfg.max_size,
        n_queries=cfg.n_queries,
        selectivity=cfg.selectivity,
        query_chunk=cfg.query_chunk,
        seed_sequence=ctx.seed_sequence,
        map_fn=ctx.map,
    )


DATA: dict[str, Any] = {"kind": data_kind, "columns": "columns"}  # what the data can check
fig2_sa_frequencies.judged_by(verdicts.fig2_sa_frequencies, limits="claims", **DATA)
table5_attributes.judged_by(verdicts.table5_attributes, **DATA)
fig3_l_vs_theta.judged_by(verdicts.fig3_l_vs_theta, **DATA)
fig4_mse.judged_by(verdicts.fig4_mse, limits="claims", labels=labels, columns="columns")
fig5_re.judged_by(verdicts.fig5_re, limits="claims", labels=labels, columns="columns")

# real-data twins on ACS (the mapping: conf/experiment/bucketization/_acs.yaml)
fig2_sa_frequencies.twin("fig2_sa_frequencies_acs")
table5_attributes.twin("table5_attributes_acs")
fig3_l_vs_theta.twin("fig3_l_vs_theta_acs")
fig4_mse.twin("fig4_mse_acs")
fig5_re.twin("fig5_re_acs")
