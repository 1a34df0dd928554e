"""CAE paper (seed 004): the appendix worked example, Figures 2 and 4 (sampling, query
restriction and noise addition vs the intruder's supplementary knowledge) on PUMS-like data and
on UCI Adult, and their real-data twins on ACS records (``<experiment>_acs``); the audit of the
seed: every displayed formula re-derived (``formulas``), Section 3's examples (``table1_fig1``)
and Table 2 with the data description (``table2_data``). The inventory of what the seed prints
and what checks it is ``experiments/cae.ledger.yaml``.

The science lives in `privlab.cae`; the techniques are mechanisms of kind ``sdc_technique``
(``conf/mechanism/sdc_*.yaml``); the paper's printed values and statements are in the
``printed:`` blocks of ``conf/experiment/cae/``. This module joins them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from privlab import PrivlabError, cae, datasets, mechanisms
from privlab import claims as cl
from privlab.cae import derivations as dv
from privlab.cae import figures
from privlab.params import Bool, Int, List, MapOf, Optional, Real, Spec, Str, validate
from privlab.registry import Paper, Tolerance, experiment
from privlab.stats import family_z

PAPER = Paper(
    "Alfalayleh, Brankovic - Quantifying Privacy: A Novel Entropy-Based Measure of Disclosure Risk",
    seed="004_b36d4829993efdbd.txt",
)


class DatasetBlock(Spec):
    """A nested ``dataset`` block (a name and its loader's parameters, or ``path=``)."""

    def allowed(self) -> str:
        return "a dataset block: a name and its loader's parameters"

    def check(self, name: str, value: Any) -> Any:
        datasets.check_spec(value, name=name)
        return value


POS = Real(0, low_open=True)
SALARY = Int(0, 10**6, limit="salary in thousands")
CODING = {  # how CAE codes one data set (`privlab.cae.prepare`)
    "dataset": DatasetBlock(),
    "role": Str(),  # the paper's data set these records stand for; claims are named by it
    "confidential": Str(),
    "sk": List(Str(), unique=True),
    "round_to": Optional(Int(1)),  # null: no rounding (0 is refused: it would silently mean none)
    "unit": Optional(POS),
    "top_code": Optional(Int(1)),
    "drop_missing": Bool(),
    "n_records": Optional(Int(1, 10**6, limit="records per data set")),
    "subsample_seed": Int(0),
}


class Coding(Spec):
    """A data set's coding block, or null: the data set is switched off (a twin on other data)."""

    def allowed(self) -> str:
        return "null (switched off) or a data set's coding block"

    def check(self, name: str, value: Any) -> Any:
        return None if value is None else validate(CODING, value, prefix=f"{name}.")


CLAIMS = {
    "se_k": POS,
    "alpha_family": Real(0, 1, low_open=True, high_open=True),
    "float_tol": Real(0),
    "p_min": Real(0, 1),
    "exact_tol": Real(0),
    "violation_max": Real(0),
}
SDC = {
    "repetitions": Int(1, 10_000, limit="released artifacts per level and data set"),
    "sk_sizes": List(Int(0, 64), unique=True),
    "max_sets": Optional(Int(1)),
    "lp_check_records": Int(0, 10_000, limit="pairs of linear programs per shuffle"),
    "datasets": MapOf(Coding()),
    "claims": {**CLAIMS, "drop_decimals": Int(0, 15)},
}
SMOKE = ("repetitions=2", "sk_sizes=[0,1]", "datasets.adult=null")
MC_TOL = {  # Monte Carlo means within 5 s.e. of the reference; their s.e. loosely; exact s.e. exactly
    **{m: Tolerance(se=f"{m}_se", k=5, atol=1e-9) for m in ("H0", "area", "H0_unique", "area_unique")},
    **{
        f"{m}_se": Tolerance(rtol=1.0, atol=a)
        for m, a in (("H0", 0.05), ("area", 5.0), ("H0_unique", 0.05), ("area_unique", 5.0))
    },
    **{f"{m}_unique_exact_se": Tolerance(rtol=1e-9, atol=1e-12) for m in ("H0", "area")},
    "artifact_violation": Tolerance(atol=1e-6),
}
KEYS = ("dataset", "technique", "param", "sk_size")


def _for(entry: Any, prefix: str, technique: str = "") -> dict:
    """A shared ``printed:`` entry, its claim prefixed with what it is about; a ``ledger`` given per
    technique (a mapping) resolved for ``technique``."""
    out = {**entry, "claim": f"{prefix}: {entry['claim']}"}
    if not isinstance(out.get("ledger", ""), str):
        out["ledger"] = out["ledger"].get(technique, "")
    return out


# --- the appendix worked example -------------------------------------------------------
@experiment(
    artifact="Appendix example, Figure 3",
    summary="H(eps) of the appendix's worked example: the DP at every integer eps, the exact step function "
    "and its area",
    keys=("eps",),
    figures={"fig3_example": figures.example},
    params={"x": List(Real()), "p": List(Real(0, 1)), "claims": {"equal_tol": Real(0)}},
)
def example(cfg, ctx):
    x, p = list(cfg.x), list(cfg.p)
    steps, h_steps = cae.entropy_curve(x, p)
    H0, area = cae.cae(x, p)
    printed = {int(e): float(v) for e, v in cfg.printed.H["values"].items()}
    rows = []
    for e in range(int(math.ceil(steps[-1])) + 1):
        k = int(np.searchsorted(steps, e, side="right") - 1)
        rows.append({"eps": e, "H": cae.min_entropy(x, p, float(e)), "H_curve": float(h_steps[k])})
        rows[-1].update(breakpoint=bool(np.isclose(steps, e).any()), printed_H=printed.get(e, np.nan), H0=H0, area=area)
    return pd.DataFrame(rows)


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
    out.append(cl.info(p.area, f"{df.area[0]:.4f}", note=f"not printed; the exact sum over the breakpoints {where}"))
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


# --- Figures 2 and 4: the SDC techniques -----------------------------------------------
def _tag(spec, frame) -> str:
    """The table's short data label: name, whether generated (`privlab.datasets.is_synthetic`), size
    (and, where records without a confidential value are dropped, how many have one)."""
    kind = "SYNTHETIC" if datasets.is_synthetic(**spec.dataset) else "real"
    n = f"n={spec.n_records or 'all'}"
    if spec.drop_missing:
        n += f" of {int(frame[spec.confidential].notna().sum())} with {spec.confidential}"
    return f"{spec.dataset.name} ({kind}, {n}, confidential={spec.confidential})"


def _role(cfg, ds: str) -> str:
    """The paper's data set the table's data set ``ds`` stands for (a twin's real records: PUMS)."""
    return str(cfg.datasets[ds].role)


def _active(cfg) -> dict:
    """The data sets switched on (a null block is off)."""
    found = {ds: spec for ds, spec in cfg.datasets.items() if spec is not None}
    if not found:
        raise PrivlabError("datasets must switch on at least one data set (a block that is not null)")
    return found


def _run_sdc(cfg, ctx):
    techniques = [(m.label, m.impl) for m in ctx.mechanisms(cfg.mechanism, kind="sdc_technique").values()]
    data, tags = {}, {}
    for ds, spec in _active(cfg).items():
        coding = {k: v for k, v in spec.items() if k not in ("dataset", "role")}  # confidential, sk, ...
        frame = ctx.dataset(spec.dataset)
        data[ds] = cae.prepare(frame, sk_sizes=list(cfg.sk_sizes), max_sets=cfg.max_sets, **coding)
        tags[ds] = _tag(spec, frame)
    table = cae.run_series(
        data,
        techniques,
        cfg.repetitions,
        seed_sequence=ctx.seed_sequence,
        map_fn=lambda fn, items: ctx.map(fn, items, desc="CAE per repetition"),
        lp_check_records=cfg.lp_check_records,
    )
    return table.assign(data=table.dataset.map(tags))


def _techniques(cfg) -> dict:
    """The table's technique labels -> their `privlab.cae.SDCTechnique`."""
    return {m.label: m.impl for m in mechanisms.build(cfg.mechanism, kind="sdc_technique").values()}


def _drop(h0, lo, hi, c) -> float:
    """H0 at SK size ``lo`` minus at ``hi`` (a Series by SK size), rounded to ``drop_decimals``."""
    return round(float(h0[lo] - h0[hi]), c.drop_decimals) + 0.0


def _against_utility(g, measure, sign, c) -> tuple[list[str], float]:
    """Where the measure rises with utility beyond the family-wise limit, and that limit in s.e.

    Neighbouring levels can be the same release (two noise amounts with one M): their means
    tie and differ by sampling noise only, so the limit covers every comparison at once."""
    groups = [h.sort_values("param", ascending=sign > 0) for _, h in g.groupby(["dataset", "sk_size"])]
    k = family_z(c.alpha_family, max(1, sum(len(h) - 1 for h in groups)))
    bad = []
    for h in groups:  # low utility first
        v, se = h[measure].to_numpy(), h[f"{measure}_se"].to_numpy()
        if not (np.diff(v) <= k * np.hypot(se[1:], se[:-1]) + c.float_tol).all():
            bad.append(f"{h.dataset.iloc[0]} SK={h.sk_size.iloc[0]}")
    return bad, k


def _technique_claims(label, g, tech, cfg):
    p, c, several = cfg.printed, cfg.claims, g.param.nunique() > 1
    v, lp = g.artifact_violation, f"; LP on {cfg.lp_check_records} seeded records per shuffle"
    note = tech.checked + (lp if tech.name == "query_restriction" else "")
    shown = f"max violation {v.max():g} over {len(v)} rows"
    item = _for(p.artifacts, label, tech.name)
    out = [cl.at_most(item, float(v.max()), c.violation_max, reproduced=shown, note=note)]
    d = g[g.H0_unique_exact.notna()]
    for m in ("H0", "area") if len(d) else ():
        r = cae.chi2_agreement(d[f"{m}_unique"], d[f"{m}_unique_exact"], d[f"{m}_unique_exact_se"])
        detail = f"{r['n']} rows: chi2 = {r['chi2']:.1f}, max |z| = {r['max_z']:.2f}"
        out.append(cl.gof(_for(p.exact, f"{label} {m}"), r["p"], alpha=c.p_min, printed=p.exact.value, detail=detail))
        if r["n_exact"]:
            shown = f"{r['n_exact']} rows, largest difference {r['exact_max_diff']:.2g}"
            item = _for(p.exact_zero_se, f"{label} {m}")
            out.append(cl.at_most(item, r["exact_max_diff"], c.exact_tol, reproduced=shown))
    for m in ("H0", "area") if several else ():
        bad, k = _against_utility(g, m, tech.utility_sign, c)
        shown = f"violated at {', '.join(bad[:6])}" if bad else "yes"
        rule = f"within {k:.2f} s.e. (family-wise level {c.alpha_family:g})"
        out.append(cl.statement(_for(p.rises, f"{label} {m}"), not bad, reproduced=shown, rule=rule))
    for ds, d in g.groupby("dataset", sort=False):
        by_param = [h.sort_values("sk_size") for _, h in d.groupby("param")]
        ok = all((np.diff(h.H0) <= c.se_k * h.H0_se.max() + c.float_tol).all() for h in by_param)
        rule = f"no rise beyond {c.se_k:g} s.e."
        out.append(
            cl.statement(_for(p.declines, f"{_role(cfg, ds)}/{label}"), ok, reproduced="yes" if ok else "no", rule=rule)
        )
        h0 = d.pivot(index="sk_size", columns="param", values="H0")
        lo, hi = (1 if 1 in h0.index[:-1] else h0.index[0]), h0.index[-1]  # from one known attribute on
        if several and lo < hi:
            drops = {q: _drop(h0[q], lo, hi, c) for q in h0.columns}
            low, *_, high = sorted(drops, key=lambda q: tech.utility_sign * q)
            shown = "; ".join(f"{figures.legend(label, q)}: {drops[q]:.3f} bits" for q in (high, low))
            rule = f"H0 drop SK {lo}->{hi}: highest utility > lowest"
            out.append(
                cl.statement(
                    _for(p.sharp, f"{_role(cfg, ds)}/{label}"), drops[high] > drops[low], reproduced=shown, rule=rule
                )
            )
    return out


def _sdc_claims(df, cfg):
    techniques, out = _techniques(cfg), []
    for label, g in df.groupby("technique", sort=False):
        out += _technique_claims(label, g, techniques[label], cfg)
    if "mapping" in cfg.printed:  # a twin on other data: how its columns stand for the paper's
        out.append(cl.info(cfg.printed.mapping, "; ".join(dict.fromkeys(df.data))))
    return out


@experiment(
    artifact="Figure 2 (sampling)",
    summary="H0 and Area vs SK size, one line per sampling fraction",
    keys=KEYS,
    tolerances=MC_TOL,
    figures={"fig2_sampling": figures.sdc_vs_sk("Figure 2")},
    params=SDC,
    smoke=SMOKE,
)
def fig2_sampling(cfg, ctx):
    return _run_sdc(cfg, ctx)


@fig2_sampling.claims
def _(df, cfg):
    p, out, kinds = cfg.printed.formula, _sdc_claims(df, cfg), _techniques(cfg)
    levels = df.param[df.technique.map(lambda t: kinds[t].name) == "sampling"].unique()
    gaps = [cae.printed_formula_gap(p.records, p.domain_size, q) for q in levels]
    if gaps:
        worst, mass = max(g[0] for g in gaps), [g[1] for g in gaps]
        shown = f"max |printed p_i - exact p_i| = {worst:.3g}; printed p_i sum to {min(mass):.4g}..{max(mass):.4g}"
        out.append(cl.at_most(p, worst, cfg.claims.float_tol, reproduced=shown))
    return out


@experiment(
    artifact="Figure 2 (query restriction)",
    summary="H0 and Area vs SK size, one line per query-set size, with the sampling fraction the paper "
    "compares it with as a reference",
    keys=KEYS,
    tolerances=MC_TOL,
    figures={"fig2_query_restriction": figures.sdc_vs_sk("Figure 2")},
    params={**SDC, "claims": {**SDC["claims"], "similar_rel": Real(0, 1), "flat_rel": Real(0, 1)}},
    smoke=(*SMOKE, "mechanism.sdc_query_restriction.levels=[8,32]", "lp_check_records=1"),
)
def fig2_query_restriction(cfg, ctx):
    return _run_sdc(cfg, ctx)


@fig2_query_restriction.claims
def _(df, cfg):
    p, c, out, kinds = cfg.printed, cfg.claims, _sdc_claims(df, cfg), _techniques(cfg)
    for ds, d in df.groupby("dataset", sort=False):
        kind = d.technique.map(lambda t: kinds[t].name)
        qr = d[(kind == "query_restriction") & (d.param == p.similar.set_size)].set_index("sk_size")
        sa = d[(kind == "sampling") & (d.param == p.similar.sampling)].set_index("sk_size")
        if qr.empty or sa.empty:
            continue
        s0, s_hi = qr.index.min(), qr.index.max()
        rel = abs(qr.H0[s0] - sa.H0[s0]) / max(qr.H0[s0], sa.H0[s0])
        shown = f"sampling {sa.H0[s0]:.3f} vs Q {qr.H0[s0]:.3f} bits ({rel:.0%} apart)"
        out.append(cl.at_most(_for(p.similar, _role(cfg, ds)), rel, c.similar_rel, reproduced=shown))
        d_sa, d_qr = _drop(sa.H0, s0, s_hi, c), _drop(qr.H0, s0, s_hi, c)
        shown = f"H0 drop SK {s0}->{s_hi}: sampling {d_sa:.3f}, Q {d_qr:.3f}"
        out.append(
            cl.statement(_for(p.faster, _role(cfg, ds)), d_sa > d_qr, reproduced=shown, rule="sampling's drop > Q's")
        )
        flat = d_qr / qr.H0[s0]
        shown = f"Q {p.similar.set_size:g}: H0 {qr.H0[s0]:.3f} -> {qr.H0[s_hi]:.3f} bits ({flat:.1%} lower)"
        out.append(cl.at_most(_for(p.flat, _role(cfg, ds)), flat, c.flat_rel, reproduced=shown))
        a_sa, a_qr = sa.area[s0], qr.area[s0]
        se = float(np.hypot(sa.area_se[s0], qr.area_se[s0]))
        z = (a_sa - a_qr) / se if se > 0 else math.copysign(math.inf, a_sa - a_qr) if a_sa != a_qr else 0.0
        gap = (a_sa - a_qr) / max(a_sa, a_qr)
        shown = f"SK {s0}: Area sampling {a_sa:.2f} vs Q {a_qr:.2f} ({gap:+.1%}, z = {z:+.1f})"
        rule = f"sampling's Area above Q's (within {c.se_k:g} s.e.), by at most {c.similar_rel:.0%}"
        slight = z >= -c.se_k and gap <= c.similar_rel
        out.append(cl.statement(_for(p.area_slight, _role(cfg, ds)), slight, reproduced=shown, rule=rule))
        d_sa, d_qr = _drop(sa.area, s0, s_hi, c), _drop(qr.area, s0, s_hi, c)
        shown = f"Area drop SK {s0}->{s_hi}: sampling {d_sa:.2f}, Q {d_qr:.2f}"
        rule = "sampling's Area drop > Q's"
        out.append(cl.statement(_for(p.area_faster, _role(cfg, ds)), d_sa > d_qr, reproduced=shown, rule=rule))
    return out


@experiment(
    artifact="Figure 2 (noise addition)",
    summary="H0 and Area vs SK size, one line per noise level",
    keys=KEYS,
    tolerances=MC_TOL,
    figures={"fig2_noise": figures.sdc_vs_sk("Figure 2")},
    params=SDC,
    smoke=SMOKE,
)
def fig2_noise(cfg, ctx):
    return _run_sdc(cfg, ctx)


@fig2_noise.claims
def _(df, cfg):
    return _sdc_claims(df, cfg)


@experiment(
    artifact="Figure 4",
    summary="Noise addition: H0 and Area vs SK size and vs noise amount (finer noise grid)",
    keys=KEYS,
    tolerances=MC_TOL,
    figures={"fig4_noise": figures.noise_vs_sk_and_amount},
    params=SDC,
    smoke=(*SMOKE, "mechanism.sdc_noise_fine.levels=[0,50]"),
)
def fig4_noise(cfg, ctx):
    return _run_sdc(cfg, ctx)


@fig4_noise.claims
def _(df, cfg):
    out, zero = _sdc_claims(df, cfg), df[(df.param == 0) & df.H0_unique.notna()]
    if len(zero):
        top = float(np.nanmax(np.abs(zero[["H0_unique", "area_unique"]].to_numpy())))
        out.append(cl.info(cfg.printed.zero_noise, f"max H0, A over such records: {top:.3g}"))
    return out


# --- the audit: displayed formulas, Section 3's examples, Table 2 and the data ---------
@experiment(
    artifact="Displayed formulas",
    summary="every displayed formula re-derived: printed against derived (sympy, or a brute force over "
    "the defining objects on a seeded grid), with a numeric instance of each",
    keys=("key",),
    params={
        "example": {"x": List(Real()), "p": List(Real(0, 1))},
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
    artifact="Table 2, Appendix (PUMS data set)",
    summary="Table 2's attribute domains: each row's number of values from its min, max and rounding; "
    "the synthetic PUMS stand-in and the real ACS records (as the ACS twins code them) beside it",
    keys=("attribute",),
    params={
        "datasets": MapOf(Coding()),
        "table2": MapOf({"pums": Str(), "acs": Optional(Str()), "acs_exclude": List(Int(), min_len=0)}),
    },
)
def table2_data(cfg, ctx):
    found = {}
    for ds, spec in _active(cfg).items():
        coding = {k: v for k, v in spec.items() if k not in ("dataset", "role")}
        frame = ctx.dataset(spec.dataset)
        found[ds] = (cae.prepare(frame, sk_sizes=[0], **coding), frame, _tag(spec, frame))
    rows = []
    for attr, cols in cfg.table2.items():
        pr = cfg.printed.table2["values"][attr]
        row = {"attribute": attr, **{f"printed_{k}": v for k, v in pr.items()}}
        row["derived_values"] = (pr["max"] - pr["min"]) // (pr["rounding"] or 1) + 1
        for ds, col in (("pums", cols.pums), ("acs", cols.acs)):
            if ds in found and col is not None:
                data, frame, tag = found[ds]
                dom = data.domains[data.columns.index(col)]
                row.update({f"{ds}_column": col, f"{ds}_min": dom[0], f"{ds}_max": dom[-1], f"{ds}_values": dom.size})
                row.update({f"{ds}_records": data.n, f"{ds}_data": tag})
                exclude = list(cols.acs_exclude) if ds == "acs" else []
                row[f"{ds}_raw_distinct"] = cae.distinct_values(frame[col], exclude=exclude)
        rows.append(row)
    return pd.DataFrame(rows)


@table2_data.claims
def _(df, cfg):
    p, out, t = cfg.printed, [], df.set_index("attribute")
    for attr in t.index:
        out.append(cl.equal(cl.each(p.table2, attr, t.printed_values[attr]), int(t.derived_values[attr])))
    for attr in t.index if "pums_values" in t else ():
        got = f"{t.pums_min[attr]:g}..{t.pums_max[attr]:g}, {t.pums_values[attr]} values"
        out.append(cl.info(cl.each(p.synthetic, attr, t.printed_values[attr]), got))
    labels = "; ".join(t[c].dropna().iloc[0] for c in ("pums_data", "acs_data") if c in t)
    out.append(cl.info(p.records, labels))
    out.append(cl.info(p.attributes, f"synthetic stand-in: {len(t)} columns" if "pums_values" in t else "-"))
    acs = t[t.acs_column.notna()] if "acs_column" in t else t.iloc[:0]
    for e in p.acs_real.values():  # the ACS recodes these as Table 2 does: a real check
        r = acs[acs.acs_column == e.column]
        if len(r):
            out.append(cl.equal(e, int(r.acs_raw_distinct.iloc[0])))
    for e in p.acs_info.values():
        r = acs[acs.acs_column == e.column]
        shown = (
            f"{e.column}: {r.acs_min.iloc[0]:g}..{r.acs_max.iloc[0]:g}, {int(r.acs_values.iloc[0])} values"
            if len(r)
            else "-"
        )
        out.append(cl.info(e, shown))
    return out


# --- real-data twins: the SDC experiments on real ACS records (conf/experiment/cae/_acs.yaml) ----
ON_ACS = "; on real ACS records (PINCP binned like Salary; AGEP, SEX, EDU, INDP_CAT known)"
for _original in (fig2_sampling, fig2_query_restriction, fig2_noise, fig4_noise):
    _original.twin(f"{_original.name}_acs", summary=_original.summary + ON_ACS)
