"""The worked examples and formulas: the appendix's H(eps) (Figure 3), Section 3's two salary
examples (Table 1, Figure 1) and every displayed formula of the seed re-derived."""

from privlab.cae import derivations as dv
from privlab.cae import examples
from privlab.cae.examples import salary_table
from privlab.params import Int, List, MapOf, Real, Str
from privlab.registry import experiment
from privlab.relations import Ordered

from . import figures, verdicts
from .sdc import POS

EXAMPLE = {"x": List(Real()), "p": List(Real(0, 1))}  # the appendix's values and their probabilities
SALARY = Int(0, 10**6, limit="salary in thousands")


@experiment(
    artifact="Appendix example, Figure 3",
    summary="H(eps) of the appendix's worked example: the DP at every integer eps, the exact step function "
    "and its area",
    keys=("eps",),
    figures={"fig3_example": figures.example},
    params={**EXAMPLE, "claims": {"equal_tol": Real(0)}},
)
def example(cfg, ctx):
    return examples.integer_steps(list(cfg.x), list(cfg.p), printed=cfg.printed.H["values"])


example.judged_by(verdicts.example, x="x", p="p", limits="claims")


@experiment(
    artifact="Table 1, Figure 1",
    summary="Section 3's two salary examples: the candidates Table 1's answers leave, their Shannon "
    "entropy and DR, the approximate compromise ranges, and H(eps) with its area (Figure 1)",
    keys=("example", "eps"),
    figures={"fig1_examples": figures.salary_examples},
    params={
        "examples": MapOf({"label": Str(), "group": Str(), "maximum": POS, "average": POS}),
        "unit": POS,
        "claims": {"much_larger": Real(1)},
    },
)
def table1_fig1(cfg, ctx):
    return salary_table(cfg.examples, unit=cfg.unit)


table1_fig1.judged_by(verdicts.table1_fig1, limits="claims")


@experiment(
    artifact="Displayed formulas",
    summary="every displayed formula re-derived: printed against derived (sympy, or a brute force over "
    "the defining objects on a seeded grid), with a numeric instance of each",
    keys=("key",),
    params={
        "example": EXAMPLE,
        "salary_domain": {"low": SALARY, "high": SALARY, "step": Int(1, 10**6, limit="salary in thousands")},
        "sampling_instance": MapOf(Real(0)),
        "grids": {
            "instances": Int(1, 10_000, limit="brute-forced distributions per check"),
            "n_values": List(Int(2, 400, limit="records of the query-rank matrix")),
            "q_values": List(Int(2, 400)),
            "noise_levels": List(Real(0, 100)),
            "domain_sizes": List(Int(1, 500, limit="enumerated noise outcomes")),
            "M_values": List(Int(0, 200, limit="enumerated noise outcomes")),
        },
    },
    relations=(Ordered("salary_domain.low", "salary_domain.high", strict=False),),
    smoke=("grids.instances=3",),
)
def formulas(cfg, ctx):
    grids = cfg.grids
    return dv.formula_table(
        {k: cfg.printed[k].value for k in dv.PRINTED_FORMULAS},
        values=cfg.example.x,
        probs=cfg.example.p,
        appendix=cfg.printed.maximised.appendix,
        salary=cfg.salary_domain,
        sampling_instance=cfg.sampling_instance,
        instances=grids.instances,
        n_values=grids.n_values,
        q_values=grids.q_values,
        noise_levels=grids.noise_levels,
        domain_sizes=grids.domain_sizes,
        M_values=grids.M_values,
        map_fn=ctx.map,
    )


formulas.judged_by(verdicts.formulas)
