"""The worked example, the formulas and the attributes: Table I, the displayed formulas, Table II,
Figure 1's lambda vs rho1, Section V's description of Adult, and the ACS twins of Table II and Figure 1."""

from __future__ import annotations

from privlab.lpb import derivations
from privlab.lpb.adversary import QUERIES
from privlab.lpb.calibration import lambda_table
from privlab.lpb.examples import attribute_table, data_facts, worked_example_table
from privlab.params import Choice, Int, List, Real, Str
from privlab.registry import experiment
from privlab.relations import Each, Ordered

from . import figures, verdicts
from ._common import ADULT, POS, PROB, columns


@experiment(
    artifact="Table I",
    summary="Worked example: posterior of the missing value given one noisy mean (eps = 2)",
    keys=("value",),
    figures={"table1_posteriors": figures.table1_posteriors},
    params={
        "universe": List(Real()),
        "known": List(Real(), min_len=0),
        "query": Choice(*QUERIES),
        "epsilon": POS,
        "response_candidates": List(Real()),
        "rho1": PROB,
        "rho2": PROB,
    },
    relations=(Ordered("rho1", "rho2"),),
)
def table1(cfg, ctx):
    return worked_example_table(
        cfg.universe, cfg.known, cfg.query, cfg.epsilon, cfg.response_candidates, printed=cfg.printed
    )


table1.judged_by(verdicts.table1, **{k: k for k in ("universe", "known", "query", "epsilon", "rho1", "rho2")})


@experiment(
    artifact="Sections I-V (formulas)",
    summary="Every displayed formula re-derived (sympy, or a grid against the defining probabilities) beside "
    "the printed one, and the in-text numbers recomputed from their stated inputs",
    keys=("key",),
    params={
        "gap_settings": List(List(PROB, min_len=2, max_len=2), min_len=2),
        "belief_instance": {"rho1": PROB, "rho2": PROB},
    },
    relations=(Each("gap_settings", Ordered("[0]", "[1]")), Ordered("belief_instance.rho1", "belief_instance.rho2")),
)
def formulas(cfg, ctx):
    return derivations.formula_table(cfg.printed.formulas, cfg.printed.numbers, map_fn=ctx.map)


formulas.judged_by(verdicts.formulas)


@experiment(
    artifact="Table II",
    summary="Max, min, sensitivity (max-min)/n and random-guess rate per numeric attribute, recomputed from Adult",
    keys=("attribute",),
    params=ADULT,
)
def table2(cfg, ctx):
    return attribute_table(columns(cfg, ctx), cfg.printed, cfg.stands_for)


table2.judged_by(verdicts.table2, panels="panels", stands_for="stands_for", data_name="dataset.name")


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
    relations=(Ordered("rho1_min", "rho1_max", "rho2"),),
    smoke=("rho1_points=4",),
)
def fig1_lambda(cfg, ctx):
    return lambda_table(columns(cfg, ctx), cfg.rho2, cfg.rho1_min, cfg.rho1_max, cfg.rho1_points)


fig1_lambda.judged_by(verdicts.fig1_lambda, stands_for="stands_for", data_name="dataset.name")


@experiment(
    artifact="Section V (data)",
    summary="The paper's description of Adult (records, attributes and their types, age's universe) against the data",
    keys=("fact",),
    params={**ADULT, "class_label": Str()},
)
def data_description(cfg, ctx):
    return data_facts(ctx.dataset(cfg.dataset), cfg.class_label, cfg.attributes)


data_description.judged_by(verdicts.data_description, class_label="class_label")


# real-data twins on ACS person records
table2.twin(
    "table2_acs",
    summary="Table II's rules on real ACS person records (AGEP, EDU, PINCP for age, education-num, hours-per-week)",
)
fig1_lambda.twin("fig1_lambda_acs", summary="Figure 1's lambda vs rho1 on real ACS person records (AGEP, EDU, PINCP)")
