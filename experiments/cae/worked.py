"""The worked examples and formulas: the appendix's H(eps) (Figure 3), Section 3's two salary
examples (Table 1, Figure 1) and every displayed formula of the seed re-derived."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import cae
from privlab import claims as cl
from privlab.cae import derivations as dv
from privlab.cae import figures
from privlab.cae.examples import integer_steps
from privlab.params import Int, List, MapOf, Real, Str
from privlab.registry import experiment

from ._common import POS

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
    table = integer_steps(list(cfg.x), list(cfg.p))
    printed = {int(e): float(v) for e, v in cfg.printed.H["values"].items()}
    table.insert(table.columns.get_loc("H0"), "printed_H", table.eps.map(printed))
    return table


@example.claims
def _(df, cfg):
    p, x, q, tol = cfg.printed, list(cfg.x), list(cfg.p), cfg.claims.equal_tol
    H = dict(zip(df.eps, df.H))
    out = [cl.printed_value(cl.each(p.H, f"eps = {e}", v), H[int(e)]) for e, v in p.H["values"].items()]
    same = [abs(H[e] - H[p.no_better.than]) for e in p.no_better.eps]
    shown = ", ".join(f"H({e}) = {H[e]:.4f}" for e in (*p.no_better.eps, p.no_better.than))
    out.append(cl.statement(p.no_better, max(same) <= tol, reproduced=shown, rule=f"equal within {tol:g}"))
    alt, span = cae.covering_entropy(x, q, p.alternative.windows)
    shown = f"{alt:.4f} (widest window {span:g}; the minimum H({p.alternative.eps}) = {H[p.alternative.eps]:.4f})"
    out.append(cl.printed_value(p.alternative, alt, reproduced=shown))
    by_max = [cl.rounds_to(v, cae.max_entropy(x, q, int(e))) for e, v in p.H["values"].items()]
    by_min = [cl.rounds_to(v, cae.min_entropy(x, q, int(e))) for e, v in p.H["values"].items()]
    shown = f"printed H(eps) = the maximum at {sum(by_max)} of {len(by_max)} eps, the minimum at {sum(by_min)}"
    out.append(cl.statement(p.maximised, all(by_max), reproduced=shown, rule="every printed H(eps) is the maximum"))
    where = ", ".join(f"{e:g}" for e in df.eps[df.breakpoint])
    out.append(cl.info(p.area, f"{df.area[0]:.4f}", note=f"{p.area.note} {where}"))
    gap = float(np.abs(df.H - df.H_curve).max())
    out.append(cl.at_most(p.step_function, gap, tol, reproduced=f"largest difference {gap:.2g}"))
    out.append(cl.printed_value(p.total, sum(q)))
    merged = [v for v in x if v in p.merged["values"]]
    out.append(cl.printed_value(cl.each(p.merged, "combined value", p.merged.value), float(np.mean(merged))))
    mass = sum(w for v, w in zip(x, q) if v in p.merged["values"])
    out.append(cl.printed_value(cl.each(p.merged, "its probability", p.merged.probability), mass))
    for e, step in p.windows["values"].items():
        _, span = cae.covering_entropy(x, q, step.covering)
        out.append(cl.printed_value(cl.each(p.windows, f"eps = {e}", step.length), span))
    found = dv.coverings(x, p.options.eps, maximal=True)
    shown = f"{len(found)}: " + "; ".join(str(c) for c in found)
    return [*out, cl.printed_value(p.options, len(found), reproduced=shown)]


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
    rows = []
    for ex, e in cfg.examples.items():
        r = cae.salary_pair(e.maximum, e.average, unit=cfg.unit)
        low, high = r["candidates"]
        keep = {k: r[k] for k in ("other", "H0", "DR", "X0", "half_range", "range", "area")}
        for eps, h in zip(r["eps"], r["H"]):
            rows.append(
                {"example": ex, "label": e.label, "group": e.group, "eps": eps, "H": h, "low": low, "high": high}
            )
            rows[-1].update(maximum=e.maximum / cfg.unit, average=e.average / cfg.unit, **keep)
    return pd.DataFrame(rows)


@table1_fig1.claims
def _(df, cfg):
    p, out = cfg.printed, []
    first = df.groupby("example", sort=False).first()
    for col, key in (("other", "other"), ("H0", "bits"), ("X0", "x0"), ("half_range", "half"), ("range", "range")):
        out += [cl.printed_value(cl.each(p[key], ex, v), first[col][ex]) for ex, v in p[key]["values"].items()]
    h0, area, dr = first.H0, first.area, first.DR
    a, b = first.index[:2]
    shown = ", ".join(f"{ex}: {h0[ex]:.4g} bits" for ex in (a, b))
    out.append(cl.statement(p.same_h0, bool(np.isclose(h0[a], h0[b])), reproduced=shown, rule="equal"))
    ratio = area[a] / area[b]
    shown = f"{a}: {area[a]:g}, {b}: {area[b]:g} (ratio {ratio:.3g})"
    out.append(cl.at_least(p.larger_area, ratio, cfg.claims.much_larger, reproduced=shown))
    shown = f"DR = {dr[a]:.4g} and {dr[b]:.4g}"
    out.append(cl.statement(p.dr_blind, bool(np.isclose(dr[a], dr[b])), reproduced=shown, rule="equal"))
    tells = bool(np.isclose(h0[a], h0[b]) and not np.isclose(area[a], area[b]))
    shown = f"(H0, A) = ({h0[a]:.3g}, {area[a]:g}) vs ({h0[b]:.3g}, {area[b]:g})"
    return [*out, cl.statement(p.cae_tells, tells, reproduced=shown, rule="equal H0, different A")]


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
    smoke=("grids.instances=3",),
)
def formulas(cfg, ctx):
    p, g, ex = cfg.printed, cfg.grids, cfg.example
    x, q = list(ex.x), list(ex.p)
    s = cfg.salary_domain
    salary = list(range(s.low, s.high + 1, s.step))
    appendix = {float(e): float(v) for e, v in cfg.printed.maximised.appendix.items()}
    cases = {
        "H0": dv.shannon_h0(p.H0.value, q),
        "maximised": dv.problem_statement(x, q, appendix),
        "eps_max": dv.eps_max_statement(x, q),
        "area": dv.area_integral(lambda a, b: cae.cae(a, b)[1], instances=g.instances),
        "recurrence": dv.recurrence(instances=g.instances),
        "base_cases": dv.base_case_order(x, q),
        "algorithm1": dv.algorithm1(instances=g.instances),
        "sampling": dv.sampling_probability(p.sampling.value, dict(cfg.sampling_instance)),
        "sampling_total": dv.sampling_total(p.sampling.value, dict(cfg.sampling_instance)),
        "query_count": dv.query_count(p.query_count.value, list(g.n_values), list(g.q_values)),
        "query_rank": dv.query_rank(list(g.n_values), list(g.q_values)),
        "bounds_order": dv.reversed_bounds(salary),
        "interval": dv.interval_probability(p.interval.value, salary),
        "interval_index": dv.interval_probability(p.interval.value, list(range(1, len(salary) + 1))),
        "noise_max": dv.noise_max_rule(cae.noise_max, list(g.noise_levels), list(g.domain_sizes)),
        "noise_support": dv.noise_support(list(g.M_values)),
        "noise_interval": dv.noise_interval(list(g.domain_sizes), list(g.M_values)),
    }
    return pd.DataFrame([{"key": k, **c.row()} for k, c in cases.items()])


@formulas.claims
def _(df, cfg):
    out = []
    for r in df.itertuples():
        shown = f"{r.derived}; {r.instance}: printed {r.printed_value:.6g}, derived {r.derived_value:.6g}"
        shown += f" ({r.detail})" if r.detail else ""
        out.append(cl.statement(cfg.printed[r.key], bool(r.match), reproduced=shown, rule="printed = derived"))
    refs = cfg.printed.crossref.refers
    return [*out, cl.equal(cfg.printed.crossref, sorted(set(refs.values())))]
