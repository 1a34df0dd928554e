"""The audit of the slides: every displayed formula re-derived, the worked HIV examples recomputed
by enumeration, and the distributions of X that Figures 5-6 simulate."""

from __future__ import annotations

from privlab.multilevel import derivations
from privlab.multilevel.examples import example_table
from privlab.multilevel.priors import prior_table
from privlab.params import Int, List, Real
from privlab.registry import experiment
from privlab.relations import Ordered

from . import figures as plots
from . import verdicts
from ._common import ON_ACS, POS, PRIORS, P, laws_of_x

# the worked examples enumerate s^3 outcomes: the library allows s up to privlab.multilevel.examples.MAX_ENUMERATED,
# a run stays short
ENUMERATED = 100


@experiment(
    artifact="Displayed formulas",
    summary="every displayed formula re-derived: printed (as the slides give it) against derived (sympy from "
    "the definitions, or the exact law of multi-pert followed step by step on a seeded grid)",
    keys=("key",),
    params={
        "instance": {"p": P, "pl": P, "pr": P, "pa": P, "pb": P, "s": Int(2, 10**6), "s_derivation": Int(2, 10**6)},
        "grid": {
            "domain_sizes": List(Int(2, 12, limit="s^(1 + copies) cells per exact law")),
            "orders": List(List(P, min_len=2, max_len=4), min_len=0),
            "random_orders": Int(0, 100, limit="random request orders per domain size"),
            "max_copies": Int(2, 4),
            "seed": Int(0, 2**32 - 1, limit="a numpy seed"),
        },
        "lemma2": {"cs": List(Real(0, 1, low_open=True, high_open=True)), "steps": List(Int(2, 10**5))},
        "claims": {"tol": POS},
    },
    relations=(Ordered("instance.pr", "instance.p", "instance.pl"),),
    smoke=("grid.domain_sizes=[3,2]", "grid.random_orders=1", "lemma2.steps=[2,10]"),
)
def formulas(cfg, ctx):
    p, tol = cfg.printed.formulas, cfg.claims.tol
    return derivations.formula_table(p, cfg.instance, cfg.grid, cfg.lemma2, tol=tol, map_fn=ctx.map)


@experiment(
    artifact="Worked example (slides)",
    summary="the slides' HIV examples: every printed number of the multi-pert example and of the independent "
    "perturbation slide, recomputed by enumerating the algorithms' random choices",
    keys=("key",),
    params={
        "domain_size": Int(2, ENUMERATED, limit="s^3 outcomes enumerated, about half a minute at s = 100"),
        "retention": {"alice": P, "bob": P},
        "independent": {
            "domain_size": Int(2, ENUMERATED, limit="s^3 outcomes enumerated, about half a minute at s = 100"),
            "retention": List(P, min_len=2, max_len=2),
        },
        "claims": {"exact_tol": POS, "high_confidence": P},
    },
)
def example(cfg, ctx):
    r, ind = cfg.retention, cfg.independent
    return example_table(cfg.printed.numbers, cfg.domain_size, r.alice, r.bob, ind.domain_size, ind.retention)


@experiment(
    artifact="Distribution of sensitive values (slides)",
    summary="the laws of X that Figures 5-6 simulate (uniform, Gaussian, salary, occupation), drawn from the "
    "config's distributions, with the values Figures 5-6 print for each",
    keys=("distribution", "x"),
    figures={"priors": plots.priors},
    params={"domain_size": Int(2, 10**6, limit="values of a law held in memory"), "distributions": PRIORS},
    smoke=("distributions.occupation.dataset.n=20000",),
)
def priors(cfg, ctx):
    return prior_table(laws_of_x(cfg, ctx), cfg.distributions)


formulas.judged_by(verdicts.formulas)
example.judged_by(verdicts.example, limits="claims")
priors.judged_by(verdicts.priors, distributions="distributions", domain_size="domain_size")
priors.twin("priors_acs", summary=priors.summary + ON_ACS, smoke=())  # ACS laws: no data-set size to shrink
