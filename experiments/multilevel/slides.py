"""The audit of the slides: every displayed formula re-derived, the worked HIV examples recomputed
by enumeration, and the distributions of X that Figures 5-6 simulate."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab import datasets
from privlab import multilevel as ml
from privlab.multilevel import figures
from privlab.params import Int, List, Real
from privlab.registry import experiment

from ._common import ON_ACS, POS, PRIORS, P, gap_claim, laws_of_x, mapping


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
    smoke=("grid.domain_sizes=[3,2]", "grid.random_orders=1", "lemma2.steps=[2,10]"),
)
def formulas(cfg, ctx):
    f, i, g, dv = cfg.printed.formulas, cfg.instance, cfg.grid, ml.derivations
    points = dv.grid(g.domain_sizes, g.orders, g.random_orders, g.max_copies, seed=g.seed)
    near = dv.neighbour_points(points)  # p_l > p > p_r and s from the grid
    at = {"p": i.p, "pl": i.pl, "pr": i.pr, "s": float(i.s)}
    pair = [{"pa": i.pa, "pb": i.pb, "s": float(i.s_derivation)}]
    pair += [{"pa": q["pr"], "pb": q["p"], "s": q["s"]} for q in near]
    laws, printed_uv = {**f.uni_pert, **f.lemma1, **f.lemma2}, dv.printed_uv(f.uv)  # the slides' u, v drive it
    cases = [
        *dv.uni_pert_cases(f.uni_pert, [{"p": i.p, "s": float(i.s)}] + [{"p": q["p"], "s": q["s"]} for q in near]),
        *dv.conditional_cases(f.conditional, pair),
        *dv.uv_cases(f.uv, [at, *near]),
        *dv.chain_cases(laws, points, printed_uv, tol=cfg.claims.tol),
        dv.index_case(f.theorem2_index.range, f.theorem2_index.symbol, f.symbols),
        *dv.lemma2_cases(laws, points, cfg.lemma2.cs, cfg.lemma2.steps, printed_uv),
        *dv.estimator_cases([q for q in points if q.s <= 5], printed_uv),
    ]
    return pd.DataFrame([{"key": c.case, **c.row()} for c in cases]).drop(columns="case")


@formulas.claims
def _(df, cfg):
    out = []
    for r in df.itertuples():
        values = f": printed {r.printed_value:.6g}, derived {r.derived_value:.6g}"
        shown = f"{r.derived}; {r.instance}{'' if math.isnan(r.printed_value) else values}"
        shown += f" ({r.detail})" if r.detail else ""
        out.append(cl.statement(cfg.printed[r.key], bool(r.match), reproduced=shown, rule="printed = derived"))
    return out


@experiment(
    artifact="Worked example (slides)",
    summary="the slides' HIV examples: every printed number of the multi-pert example and of the independent "
    "perturbation slide, recomputed by enumerating the algorithms' random choices",
    keys=("key",),
    params={
        "domain_size": Int(2, ml.MAX_ENUMERATED, limit="outcomes enumerated"),
        "retention": {"alice": P, "bob": P},
        "independent": {"domain_size": Int(2, ml.MAX_ENUMERATED), "retention": List(P, min_len=2, max_len=2)},
        "claims": {"exact_tol": POS, "high_confidence": P},
    },
)
def example(cfg, ctx):
    s, r, ind = cfg.domain_size, cfg.retention, cfg.independent
    found = ml.hiv_example(s, r.alice, r.bob) | {"requirement3": ml.hiv_requirement3(s, r.alice, r.bob)}
    found |= ml.independent_pair(ind.domain_size, *ind.retention)
    rows = [
        {"key": k, "expression": e.expression, "printed": e.value, "slide_arithmetic": ml.arithmetic(e.expression)}
        for k, e in cfg.printed.numbers.items()
    ]
    done = {row["key"] for row in rows}
    rows += [{"key": k, "expression": "", "printed": "", "slide_arithmetic": np.nan} for k in found if k not in done]
    return pd.DataFrame(rows).assign(enumerated=lambda d: d.key.map(found))


@example.claims
def _(df, cfg):
    p, c, t = cfg.printed, cfg.claims, df.set_index("key").enumerated
    out, off = [], []
    for r in df[df.printed != ""].itertuples():
        shown = f"{r.enumerated:.4f} (enumerated); the slide's expression gives {r.slide_arithmetic:.4f}"
        out.append(cl.printed_value(p.numbers[r.key], r.enumerated, reproduced=shown))
        if not cl.rounds_to(r.printed, r.slide_arithmetic):
            off.append(f"{r.key}: {r.expression} = {r.slide_arithmetic:.4g}")
    rule, shown = "each expression rounds to the printed number", "; ".join(off) or "every expression rounds to it"
    out.append(cl.statement(p.arithmetic, not off, reproduced=shown, rule=rule))
    given = f"{t.given_alice_hiv:.4f} given Alice's copy is HIV; {t.total:.4f} averaged over her copy"
    out.append(cl.printed_value(p.retained, t.given_alice_hiv, reproduced=given))
    out.append(gap_claim(p.requirement3, t.requirement3, c.exact_tol))
    out.append(
        cl.at_most(p.both_hiv, t.both_given_not, p.both_hiv.bound, strict=True, reproduced=f"{t.both_given_not:.4f}")
    )
    high = min(t.posterior_both - c.high_confidence, t.posterior_both - t.posterior_one)
    shown = f"Pr[X = HIV | both HIV] = {t.posterior_both:.3f}; one copy: {t.posterior_one:.3f}"
    out.append(cl.at_least(p.confidence, high, 0.0, strict=True, reproduced=shown))
    gap = abs(t.multi_posterior_both - t.posterior_one)
    shown = f"multi-pert, both HIV: {t.multi_posterior_both:.3f}; the best copy alone: {t.posterior_one:.3f}"
    return [*out, cl.at_most(p.multi, gap, c.exact_tol, reproduced=shown)]


@experiment(
    artifact="Distribution of sensitive values (slides)",
    summary="the laws of X that Figures 5-6 simulate (uniform, Gaussian, salary, occupation), drawn from the "
    "config's distributions, with the values Figures 5-6 print for each",
    keys=("distribution", "x"),
    figures={"priors": figures.priors},
    params={"domain_size": Int(2, 10**6, limit="values of a law held in memory"), "distributions": PRIORS},
    smoke=("distributions.occupation.dataset.n=20000",),
)
def priors(cfg, ctx):
    frames = []
    for name, prior in laws_of_x(cfg, ctx).items():
        spec = cfg.distributions[name]
        source = spec.dataset.name if "dataset" in spec else "-"
        x = np.arange(1, prior.size + 1)
        frame = pd.DataFrame({"distribution": name, "kind": spec.kind, "data": source, "x": x, "prior": prior})
        frames.append(frame.assign(s=prior.size, **ml.describe_prior(prior)))
    return pd.concat(frames, ignore_index=True)


@priors.claims
def _(df, cfg):
    p = cfg.printed
    out = [cl.equal(p.panels, list(cfg.distributions))]
    for name, g in df.groupby("distribution", sort=False):
        first = g.iloc[0]
        shown = list(p.cells["values"].get(name, []))
        item, fits = cl.each(p.cells, name, shown), bool(shown) and all(1 <= v <= first.s for v in shown)
        if first.s != cfg.domain_size:  # a law on another domain (a real attribute): the printed values do not apply
            why = p.cells.other_domain.format(s=first.s, paper_s=cfg.domain_size)
            out.append(cl.info(item, f"s = {first.s}; printed {shown}", note=why))
        else:
            out.append(cl.statement(item, fits, reproduced=f"s = {first.s}", rule="every value in 1..s"))
        real = first.data != "-" and not datasets.is_synthetic(first.data)
        source = p.shape.source.real if real else p.shape.source.get(first.kind, p.shape.source.other)
        shown = f"mean {first['mean']:.2f}, sd {first.sd:.2f}, skewness {first.skewness:.2f}, mode {first['mode']}"
        item = cl.each(p.shape, name, p.shape.value)
        out.append(cl.info(item, f"{shown}, largest {first.top:.3f}", note=p.shape.lost.format(source)))
    return out + mapping(cfg)


priors.twin("priors_acs", summary=priors.summary + ON_ACS, smoke=())  # ACS laws: no data-set size to shrink
