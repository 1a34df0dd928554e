"""Figures 2 and 4: sampling, query restriction and noise addition against the intruder's SK, on
the PUMS-like data and Adult, and their real-data twins on ACS records (``<experiment>_acs``,
configured by ``conf/experiment/cae/_acs.yaml``); Table 2 and the appendix's description of the
data they run on."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import cae, mechanisms
from privlab import claims as cl
from privlab.cae import figures, trends
from privlab.cae.data import count_values
from privlab.params import Int, List, MapOf, Optional, Real, Str
from privlab.registry import experiment

from ._common import KEYS, MC_TOL, SDC, SMOKE, Coding, about, coded, role


def _sdc(artifact, summary, draw, **kw):
    """Register an SDC experiment: the shared keys, tolerances, contract and smoke overrides (``kw``
    replaces them), and its figure under its own name."""
    shared = {"keys": KEYS, "tolerances": MC_TOL, "params": SDC, "smoke": SMOKE}
    return lambda fn: experiment(artifact=artifact, summary=summary, figures={fn.__name__: draw}, **{**shared, **kw})(
        fn
    )


def _run_sdc(cfg, ctx):
    techniques = [(m.label, m.impl) for m in ctx.mechanisms(cfg.mechanism, kind="sdc_technique").values()]
    found = coded(cfg, ctx, sk_sizes=list(cfg.sk_sizes), max_sets=cfg.max_sets)
    table = cae.run_series(
        {ds: data for ds, (data, _, _) in found.items()},
        techniques,
        cfg.repetitions,
        seed_sequence=ctx.seed_sequence,
        map_fn=lambda fn, items: ctx.map(fn, items, desc="CAE per repetition"),
        lp_check_records=cfg.lp_check_records,
    )
    return table.assign(data=table.dataset.map({ds: tag for ds, (_, _, tag) in found.items()}))


def _techniques(cfg) -> dict:
    """The table's technique labels -> their `privlab.cae.SDCTechnique`."""
    return {m.label: m.impl for m in mechanisms.build(cfg.mechanism, kind="sdc_technique").values()}


def _technique_claims(label, g, tech, cfg):
    p, c, several = cfg.printed, cfg.claims, g.param.nunique() > 1
    v = g.artifact_violation
    note = tech.checked
    if tech.name == "query_restriction":
        note += p.artifacts.lp_note.format(n=cfg.lp_check_records)
    shown = f"max violation {v.max():g} over {len(v)} rows"
    out = [
        cl.at_most(about(p.artifacts, label, tech.name), float(v.max()), c.violation_max, reproduced=shown, note=note)
    ]
    d = g[g.H0_unique_exact.notna()]
    for m in ("H0", "area") if len(d) else ():
        r = cae.chi2_agreement(d[f"{m}_unique"], d[f"{m}_unique_exact"], d[f"{m}_unique_exact_se"])
        detail = f"{r['n']} rows: chi2 = {r['chi2']:.1f}, max |z| = {r['max_z']:.2f}"
        out.append(cl.gof(about(p.exact, f"{label} {m}"), r["p"], alpha=c.p_min, printed=p.exact.value, detail=detail))
        if r["n_exact"]:
            shown = f"{r['n_exact']} rows, largest difference {r['exact_max_diff']:.2g}"
            out.append(
                cl.at_most(about(p.exact_zero_se, f"{label} {m}"), r["exact_max_diff"], c.exact_tol, reproduced=shown)
            )
    for m in ("H0", "area") if several else ():
        bad, k = trends.rises_with_utility(g, m, tech.utility_sign, alpha=c.alpha_family, float_tol=c.float_tol)
        shown = f"violated at {', '.join(bad[:6])}" if bad else "yes"
        rule = f"within {k:.2f} s.e. (family-wise level {c.alpha_family:g})"
        out.append(cl.statement(about(p.rises, f"{label} {m}"), not bad, reproduced=shown, rule=rule))
    for ds, d in g.groupby("dataset", sort=False):
        who = f"{role(cfg, ds)}/{label}"
        ok = trends.declines_with_sk(d, k=c.se_k, float_tol=c.float_tol)
        rule = f"no rise beyond {c.se_k:g} s.e."
        out.append(cl.statement(about(p.declines, who), ok, reproduced="yes" if ok else "no", rule=rule))
        h0 = d.pivot(index="sk_size", columns="param", values="H0")
        lo, hi = (1 if 1 in h0.index[:-1] else h0.index[0]), h0.index[-1]  # from one known attribute on
        if several and lo < hi:
            drops = {q: trends.drop(h0[q], lo, hi, c.drop_decimals) for q in h0.columns}
            low, *_, high = sorted(drops, key=lambda q: tech.utility_sign * q)
            shown = "; ".join(f"{figures.legend(label, q)}: {drops[q]:.3f} bits" for q in (high, low))
            rule = f"H0 drop SK {lo}->{hi}: highest utility > lowest"
            out.append(cl.statement(about(p.sharp, who), drops[high] > drops[low], reproduced=shown, rule=rule))
    return out


def _sdc_claims(df, cfg):
    techniques, out = _techniques(cfg), []
    for label, g in df.groupby("technique", sort=False):
        out += _technique_claims(label, g, techniques[label], cfg)
    if "mapping" in cfg.printed:  # a twin on other data: how its columns stand for the paper's
        out.append(cl.info(cfg.printed.mapping, "; ".join(dict.fromkeys(df.data))))
    return out


@_sdc("Figure 2 (sampling)", "H0 and Area vs SK size, one line per sampling fraction", figures.sdc_vs_sk("Figure 2"))
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


@_sdc(
    "Figure 2 (query restriction)",
    "H0 and Area vs SK size, one line per query-set size, with the sampling fraction the paper compares it "
    "with as a reference",
    figures.sdc_vs_sk("Figure 2"),
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
        who, s0, s_hi = role(cfg, ds), qr.index.min(), qr.index.max()
        rel = abs(qr.H0[s0] - sa.H0[s0]) / max(qr.H0[s0], sa.H0[s0])
        shown = f"sampling {sa.H0[s0]:.3f} vs Q {qr.H0[s0]:.3f} bits ({rel:.0%} apart)"
        out.append(cl.at_most(about(p.similar, who), rel, c.similar_rel, reproduced=shown))
        d_sa, d_qr = (trends.drop(t.H0, s0, s_hi, c.drop_decimals) for t in (sa, qr))
        shown = f"H0 drop SK {s0}->{s_hi}: sampling {d_sa:.3f}, Q {d_qr:.3f}"
        out.append(cl.statement(about(p.faster, who), d_sa > d_qr, reproduced=shown, rule="sampling's drop > Q's"))
        flat = d_qr / qr.H0[s0]
        shown = f"Q {p.similar.set_size:g}: H0 {qr.H0[s0]:.3f} -> {qr.H0[s_hi]:.3f} bits ({flat:.1%} lower)"
        out.append(cl.at_most(about(p.flat, who), flat, c.flat_rel, reproduced=shown))
        a_sa, a_qr = sa.area[s0], qr.area[s0]
        z, gap = trends.difference_z(a_sa, a_qr, sa.area_se[s0], qr.area_se[s0])
        shown = f"SK {s0}: Area sampling {a_sa:.2f} vs Q {a_qr:.2f} ({gap:+.1%}, z = {z:+.1f})"
        rule = f"sampling's Area above Q's (within {c.se_k:g} s.e.), by at most {c.similar_rel:.0%}"
        slight = z >= -c.se_k and gap <= c.similar_rel
        out.append(cl.statement(about(p.area_slight, who), slight, reproduced=shown, rule=rule))
        d_sa, d_qr = (trends.drop(t.area, s0, s_hi, c.drop_decimals) for t in (sa, qr))
        shown = f"Area drop SK {s0}->{s_hi}: sampling {d_sa:.2f}, Q {d_qr:.2f}"
        rule = "sampling's Area drop > Q's"
        out.append(cl.statement(about(p.area_faster, who), d_sa > d_qr, reproduced=shown, rule=rule))
    return out


@_sdc("Figure 2 (noise addition)", "H0 and Area vs SK size, one line per noise level", figures.sdc_vs_sk("Figure 2"))
def fig2_noise(cfg, ctx):
    return _run_sdc(cfg, ctx)


@fig2_noise.claims
def _(df, cfg):
    return _sdc_claims(df, cfg)


@_sdc(
    "Figure 4",
    "Noise addition: H0 and Area vs SK size and vs noise amount (finer noise grid)",
    figures.noise_vs_sk_and_amount,
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
    found = coded(cfg, ctx, sk_sizes=[0])
    rows = []
    for attr, cols in cfg.table2.items():
        pr = cfg.printed.table2["values"][attr]
        row = {"attribute": attr, **{f"printed_{k}": v for k, v in pr.items()}}
        row["derived_values"] = count_values(pr["min"], pr["max"], pr["rounding"])
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


ON_ACS = "; on real ACS records (PINCP binned like Salary; AGEP, SEX, EDU, INDP_CAT known)"
for _original in (fig2_sampling, fig2_query_restriction, fig2_noise, fig4_noise):
    _original.twin(f"{_original.name}_acs", summary=_original.summary + ON_ACS)
