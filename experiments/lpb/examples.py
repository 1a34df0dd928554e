"""Table I's worked example and the displayed formulas, recomputed beside the printed ones."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab import lpb
from privlab.lpb import derivations, figures
from privlab.params import Choice, List, Real
from privlab.registry import experiment

from ._common import POS, PROB


@experiment(
    artifact="Table I",
    summary="Worked example: posterior of the missing value given one noisy mean (eps = 2)",
    keys=("value",),
    figures={"table1_posteriors": figures.table1_posteriors},
    params={
        "universe": List(Real()),
        "known": List(Real(), min_len=0),
        "query": Choice(*lpb.QUERIES),
        "epsilon": POS,
        "response_candidates": List(Real()),
        "rho1": PROB,
        "rho2": PROB,
    },
)
def table1(cfg, ctx):
    p, universe, known = cfg.printed, np.asarray(cfg.universe, float), np.asarray(cfg.known, float)
    answers = lpb.query_answers(universe, known, cfg.query)
    # the text prints the response twice, differently: the noise column tells which one the table used
    matches = lpb.response_matches(p.noise["values"], answers, list(cfg.response_candidates))
    response = max(matches, key=lambda r: (matches[r], -list(matches).index(r)))
    ex = lpb.worked_example(universe, known, response, cfg.epsilon, cfg.query)
    table = pd.DataFrame(
        {"value": universe.astype(int), "data_set": [",".join(f"{v:g}" for v in (*known, u)) for u in universe]}
    )
    table = table.assign(response=response, true_mean=ex["answers"], noise=ex["noise"], density=ex["density"])
    table = table.assign(
        posterior=ex["posterior"],
        **{f"printed_{c}": [float(v) for v in p[c]["values"]] for c in ("noise", "density", "posterior")},
    )
    return table.assign(noise_matches_per_candidate=";".join(f"{r}:{m}" for r, m in matches.items()))


def _per_value(check, item, values, got) -> list[cl.Claim]:
    """``check`` of each element of a printed column (an entry with ``values``) against its recomputation."""
    return [check(cl.each(item, f"value {v}", pv), g) for v, pv, g in zip(values, item["values"], got)]


@table1.claims
def _(df, cfg):
    p, eps = cfg.printed, cfg.epsilon
    delta = lpb.sensitivity(np.asarray(cfg.universe, float), np.asarray(cfg.known, float), cfg.query)
    matched = f"noises reproduced: {df.noise_matches_per_candidate[0]}"
    out = [cl.equal(p.response_header, f"{df.response[0]:g}", note=matched)]
    out += [cl.printed_value(p.sensitivity, delta), cl.printed_value(p["lambda"], delta / eps)]
    for c in ("noise", "density", "posterior"):
        out += _per_value(cl.printed_value, p[c], df.value, df[c])
    out += _per_value(cl.equal, p.data_set, df.value, df.data_set)
    dens = [int(str(pv).split("/")[1]) for pv in p.true_mean["values"]]  # shown over the printed denominator: 8/4
    out += _per_value(cl.equal, p.true_mean, df.value, [f"{m * d:g}/{d}" for m, d in zip(df.true_mean, dens)])
    out.append(cl.equal(p.uniform_prior, f"1/{len(df)}"))
    out += [cl.printed_value(p.mean10, df.true_mean.iloc[-1]), cl.printed_value(p.noise10, df.noise.iloc[-1])]
    out.append(cl.printed_value(p.posterior10, df.posterior.iloc[-1]))
    density = lpb.laplace_density(np.asarray(df.printed_noise, float), delta / eps)
    ok = all(cl.rounds_to(a, b) for a, b in zip(p.density["values"], density))
    rule = "Laplace density of each printed noise"
    out.append(cl.statement(p.densities_follow, ok, reproduced="yes" if ok else "no", rule=rule))
    rounded = np.asarray(df.printed_density, float)
    ok = all(cl.rounds_to(a, b) for a, b in zip(p.posterior["values"], rounded / rounded.sum()))
    rule = "printed densities / their sum"
    out.append(cl.statement(p.posteriors_normalised, ok, reproduced="yes" if ok else "no", rule=rule))
    out.append(cl.at_least(p.not_private, float(df.posterior.max()), cfg.rho2, reproduced=f"{df.posterior.max():.4f}"))
    out.append(cl.at_most(p.lpb_below, lpb.lpb_epsilon(cfg.rho1, cfg.rho2), eps, strict=True))
    return out


def _formula_row(task):
    key, check, expr, options = task
    return {"case": key, **derivations.check(check, expr, case=key, **options).row()}


@experiment(
    artifact="Sections I-V (formulas)",
    summary="Every displayed formula re-derived (sympy, or a grid against the defining probabilities) beside "
    "the printed one, and the in-text numbers recomputed from their stated inputs",
    keys=("case",),
    params={
        "gap_settings": List(List(PROB, min_len=2, max_len=2), min_len=2),
        "belief_instance": {"rho1": PROB, "rho2": PROB},
    },
)
def formulas(cfg, ctx):
    p = cfg.printed
    tasks = [(k, e.check, e.expr, dict(e.get("options") or {})) for k, e in p.formulas.items()]
    rows = ctx.map(_formula_row, tasks, desc="formulas")
    rows += [derivations.arithmetic(k, e.expr, e.value).row() for k, e in p.numbers.items()]  # in-text numbers
    return pd.DataFrame(rows)


@formulas.claims
def _(df, cfg):
    p, out = cfg.printed, []
    for r in df.itertuples():
        if r.case in p.numbers:
            out.append(cl.printed_value(p.numbers[r.case], r.derived_at))
            continue
        at = f"at {r.instance}: printed {r.printed_at:.4g}, derived {r.derived_at:.4g}"
        out.append(cl.statement(p.formulas[r.case], bool(r.match), reproduced=f"{r.derived} ({at})", rule=r.method))
    return out
