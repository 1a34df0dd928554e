"""CAE paper (seed 004): the appendix worked example and Figures 2 and 4 (sampling, query
restriction and noise addition vs the intruder's supplementary knowledge) on PUMS-like
data and on UCI Adult.

The science lives in `privlab.cae`; the techniques are mechanisms of kind ``sdc_technique``
(``conf/mechanism/sdc_*.yaml``); the paper's printed values and statements are in the
``printed:`` blocks of ``conf/experiment/cae/``. This module joins them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from privlab import cae, datasets, mechanisms
from privlab import claims as cl
from privlab.cae import figures
from privlab.params import Int, List, MapOf, Optional, Real, Spec, Str
from privlab.registry import Paper, Tolerance, experiment

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
CLAIMS = {"se_k": POS, "float_tol": Real(0), "p_min": Real(0, 1), "exact_tol": Real(0), "violation_max": Real(0)}
SDC = {
    "repetitions": Int(1, 10_000, limit="released artifacts per level and data set"),
    "sk_sizes": List(Int(0, 64), unique=True),
    "max_sets": Optional(Int(1)),
    "lp_check_records": Int(0, 10_000, limit="pairs of linear programs per shuffle"),
    "datasets": MapOf(
        {
            "dataset": DatasetBlock(),
            "confidential": Str(),
            "sk": List(Str(), unique=True),
            "round_to": Optional(Int(1)),
            "n_records": Optional(Int(1, 10**6, limit="records per data set")),
            "subsample_seed": Int(0),
        }
    ),
    "claims": {**CLAIMS, "drop_decimals": Int(0, 15)},
}
SMOKE = ("repetitions=2", "sk_sizes=[0,1]", "~datasets.adult")
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


def _for(entry: Any, prefix: str) -> dict:
    """A shared ``printed:`` entry, its claim prefixed with what it is about."""
    return {**entry, "claim": f"{prefix}: {entry['claim']}"}


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
    return [*out, cl.at_most(p.step_function, gap, tol, reproduced=f"largest difference {gap:.2g}")]


# --- Figures 2 and 4: the SDC techniques -----------------------------------------------
def _tag(spec) -> str:
    """The table's short data label: name, whether generated (`privlab.datasets.is_synthetic`), size."""
    kind = "SYNTHETIC" if datasets.is_synthetic(**spec.dataset) else "real"
    return f"{spec.dataset.name} ({kind}, n={spec.n_records or 'all'}, confidential={spec.confidential})"


def _run_sdc(cfg, ctx):
    techniques = [(m.label, m.impl) for m in ctx.mechanisms(cfg.mechanism, kind="sdc_technique").values()]
    data, tags = {}, {}
    for ds, spec in cfg.datasets.items():
        coding = {k: v for k, v in spec.items() if k != "dataset"}  # confidential, sk, round_to, ...
        data[ds] = cae.prepare(ctx.dataset(spec.dataset), sk_sizes=list(cfg.sk_sizes), max_sets=cfg.max_sets, **coding)
        tags[ds] = _tag(spec)
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


def _against_utility(g, measure, sign, c) -> list[str]:
    """Where the measure rises with utility by more than ``se_k`` combined standard errors."""
    bad = []
    for (ds, s), h in g.groupby(["dataset", "sk_size"]):
        h = h.sort_values("param", ascending=sign > 0)  # low utility first
        v, se = h[measure].to_numpy(), h[f"{measure}_se"].to_numpy()
        if not (np.diff(v) <= c.se_k * np.hypot(se[1:], se[:-1]) + c.float_tol).all():
            bad.append(f"{ds} SK={s}")
    return bad


def _technique_claims(label, g, tech, cfg):
    p, c, several = cfg.printed, cfg.claims, g.param.nunique() > 1
    v, lp = g.artifact_violation, f"; LP on {cfg.lp_check_records} seeded records per shuffle"
    note = tech.checked + (lp if tech.name == "query_restriction" else "")
    shown = f"max violation {v.max():g} over {len(v)} rows"
    out = [cl.at_most(_for(p.artifacts, label), float(v.max()), c.violation_max, reproduced=shown, note=note)]
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
        bad = _against_utility(g, m, tech.utility_sign, c)
        shown, rule = (f"violated at {', '.join(bad[:6])}" if bad else "yes"), f"within {c.se_k:g} s.e."
        out.append(cl.statement(_for(p.rises, f"{label} {m}"), not bad, reproduced=shown, rule=rule))
    for ds, d in g.groupby("dataset", sort=False):
        by_param = [h.sort_values("sk_size") for _, h in d.groupby("param")]
        ok = all((np.diff(h.H0) <= c.se_k * h.H0_se.max() + c.float_tol).all() for h in by_param)
        rule = f"no rise beyond {c.se_k:g} s.e."
        out.append(cl.statement(_for(p.declines, f"{ds}/{label}"), ok, reproduced="yes" if ok else "no", rule=rule))
        h0 = d.pivot(index="sk_size", columns="param", values="H0")
        lo, hi = (1 if 1 in h0.index[:-1] else h0.index[0]), h0.index[-1]  # from one known attribute on
        if several and lo < hi:
            drops = {q: _drop(h0[q], lo, hi, c) for q in h0.columns}
            low, *_, high = sorted(drops, key=lambda q: tech.utility_sign * q)
            shown = "; ".join(f"{figures.legend(label, q)}: {drops[q]:.3f} bits" for q in (high, low))
            rule = f"H0 drop SK {lo}->{hi}: highest utility > lowest"
            out.append(
                cl.statement(_for(p.sharp, f"{ds}/{label}"), drops[high] > drops[low], reproduced=shown, rule=rule)
            )
    return out


def _sdc_claims(df, cfg):
    techniques, out = _techniques(cfg), []
    for label, g in df.groupby("technique", sort=False):
        out += _technique_claims(label, g, techniques[label], cfg)
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
    params={**SDC, "claims": {**SDC["claims"], "similar_rel": Real(0, 1)}},
    smoke=(*SMOKE, "mechanism.sdc_query_restriction.levels=[8,32]", "lp_check_records=1"),
)
def fig2_query_restriction(cfg, ctx):
    return _run_sdc(cfg, ctx)


@fig2_query_restriction.claims
def _(df, cfg):
    p, c, out, kinds = cfg.printed, cfg.claims, _sdc_claims(df, cfg), _techniques(cfg)
    for ds, d in df.groupby("dataset", sort=False):
        kind = d.technique.map(lambda t: kinds[t].name)
        qr = d[(kind == "query_restriction") & (d.param == p.similar.set_size)].set_index("sk_size").H0
        sa = d[(kind == "sampling") & (d.param == p.similar.sampling)].set_index("sk_size").H0
        if qr.empty or sa.empty:
            continue
        s0, s_hi = qr.index.min(), qr.index.max()
        rel = abs(qr[s0] - sa[s0]) / max(qr[s0], sa[s0])
        shown = f"sampling {sa[s0]:.3f} vs Q {qr[s0]:.3f} bits ({rel:.0%} apart)"
        out.append(cl.at_most(_for(p.similar, ds), rel, c.similar_rel, reproduced=shown))
        d_sa, d_qr = _drop(sa, s0, s_hi, c), _drop(qr, s0, s_hi, c)
        shown = f"H0 drop SK {s0}->{s_hi}: sampling {d_sa:.3f}, Q {d_qr:.3f}"
        out.append(cl.statement(_for(p.faster, ds), d_sa > d_qr, reproduced=shown, rule="sampling's drop > Q's"))
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
