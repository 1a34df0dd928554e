"""The Adult attributes: Table II, Figure 1's lambda vs rho1, Section V's description of the data,
and the real-data twins of Table II and Figure 1 on ACS person records."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab import lpb
from privlab.lpb import figures
from privlab.params import Int, Str
from privlab.registry import experiment

from ._common import ADULT, PROB, paper_name, stand_in, summaries


@experiment(
    artifact="Table II",
    summary="Max, min, sensitivity (max-min)/n and random-guess rate per numeric attribute, recomputed from Adult",
    keys=("attribute",),
    params=ADULT,
)
def table2(cfg, ctx):
    rows = []
    for a, s in summaries(cfg, ctx, cfg.attributes).items():
        p = cfg.printed[paper_name(cfg, a)]  # a twin's column shows the printed row of the attribute it stands for
        s.pop("range")
        rows.append({"attribute": a, **s, "printed_max": p.max, "printed_min": p.min})
        rows[-1].update(printed_sensitivity=float(p.sensitivity), printed_rg=float(p.rg))
    return pd.DataFrame(rows)


def _items(cfg, name: str, n: int | None) -> dict:
    """Table II's claims of one attribute (and of panel (a) of its Figure ``n``), from the config's entries."""
    p = cfg.printed
    items = {c: {**e, "claim": f"{name} {e.claim}"} for c, e in p.columns.items()}
    panel = {**p.panel, "claim": p.panel.claim.format(n=n, name=name), "ledger": f"fig{n}.panel_a"}
    return {**items, "panel": panel}


@table2.claims
def _(df, cfg):
    p, out, figure_of = cfg.printed, [], dict(figures.NR_PANELS)
    rate_of = {int(r.universe_size): r.attribute for r in df.itertuples()}
    for r in df.itertuples():
        a, name = r.attribute, paper_name(cfg, r.attribute)
        printed, n = p[name], figure_of.get(name)
        item = _items(cfg, name, n)
        rg = f"{r.rg:.3g} (1/{r.universe_size})"
        if a in cfg.stands_for:  # a real-data twin: the printed values describe Adult, not this data set
            note = f"{stand_in(cfg, a)}; {p.not_comparable}"
            shown = {"max": f"{r.max:g}", "min": f"{r.min:g}", "sensitivity": f"{r.sensitivity:.3g}", "rg": rg}
            out += [cl.info(item[c], shown[c], printed=f"{printed[c]}", note=note) for c in p.columns]
            if n is not None:
                out.append(cl.info(item["panel"], rg, printed=f"{cfg.panels[name][0]:g}", note=note))
            continue
        out += [cl.equal(item[c], f"{getattr(r, c):g}", printed=f"{printed[c]:g}") for c in ("max", "min")]
        tenfold = cl.rounds_to(float(printed.sensitivity) / 10, r.sensitivity, cl.decimals_of(printed.sensitivity) + 1)
        why = p.columns.sensitivity.tenfold if tenfold else ""
        out.append(cl.printed_value(item["sensitivity"], r.sensitivity, printed=printed.sensitivity, if_disagree=why))
        k = round(1 / float(printed.rg))
        if rate_of.get(k, a) != a:
            why = p.columns.rg.swapped.format(k=k, other=rate_of[k])
        elif k == r.universe_size - 1:
            why = p.columns.rg.max_minus_min.format(k=k, size=r.universe_size, lo=r.min, hi=r.max)
        else:
            why = ""
        shown = f"{r.rg:.4f} (1/{r.universe_size})"
        out.append(cl.printed_value(item["rg"], r.rg, printed=printed.rg, reproduced=shown, if_disagree=why))
        if n is not None:  # the first panel of Figures 2-4 sits at the attribute's random-guess rate
            pv = f"{cfg.panels[a][0]:g}"
            k = round(1 / float(pv))
            why = p.panel.max_minus_min.format(k=k) if k == r.universe_size - 1 else ""
            out.append(cl.printed_value(item["panel"], r.rg, printed=pv, reproduced=shown, if_disagree=why))
    return out


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
    smoke=("rho1_points=4",),
)
def fig1_lambda(cfg, ctx):
    rows, rho2 = [], cfg.rho2
    for a, s in summaries(cfg, ctx, cfg.attributes).items():
        d, m = s["sensitivity"], s["universe_size"]
        lam_di = lpb.differential_identifiability_scale(d, m, rho2)
        for r1 in np.linspace(cfg.rho1_min, cfg.rho1_max, int(cfg.rho1_points)):
            eps, lam = lpb.lpb_epsilon(r1, rho2), lpb.laplace_scale(d, r1, rho2)
            rows.append({"attribute": a, "rho1": round(float(r1), 10), "rho2": rho2, "delta": d, "epsilon": eps})
            rows[-1].update({"lambda": lam, "universe_size": m, "lambda_di": lam_di})
    return pd.DataFrame(rows)


@fig1_lambda.claims
def _(df, cfg):
    out, p = [], cfg.printed
    for a, g in df.groupby("attribute", sort=False):
        above, name, note = g[g.rho1 > 1.0 / g.universe_size.iloc[0]]["lambda"], paper_name(cfg, a), stand_in(cfg, a)
        out.append(cl.monotone(cl.each(p.increases, name, p.increases.value), g["lambda"], note=note))
        shown = f"lambda_DI = {g.lambda_di.iloc[0]:.3g}, LPB's {above.min():.3g}.." if len(above) else "no rho1 > 1/|U|"
        di_note = "; ".join(x for x in (p.di_less.note, note) if x)
        out.append(cl.info(cl.each(p.di_less, name, p.di_less.value), shown, note=di_note))
    lo, hi = p.caption.text_rho1
    return [*out, cl.equal(p.caption, f"{lo:g}..{hi:g}", printed=f"{p.caption.value:g}")]


@experiment(
    artifact="Section V (data)",
    summary="The paper's description of Adult (records, attributes and their types, age's universe) against the data",
    keys=("fact",),
    params={**ADULT, "class_label": Str()},
)
def data_description(cfg, ctx):
    data = ctx.dataset(cfg.dataset)
    attrs = [c for c in data.columns if c != cfg.class_label]
    numeric = [c for c in attrs if pd.api.types.is_numeric_dtype(data[c])]
    facts = {"records": f"{len(data):,}", "attributes": len(attrs), "numerical": len(numeric)}
    facts |= {"categorical": len(attrs) - len(numeric), "numerical_names": ", ".join(numeric)}
    facts |= {f"{a}_range": f"{data[a].min():g}~{data[a].max():g}" for a in cfg.attributes}
    return pd.DataFrame({"fact": list(facts), "value": [str(v) for v in facts.values()]})


@data_description.claims
def _(df, cfg):
    p, fact = cfg.printed, dict(zip(df.fact, df.value))
    named = p.counted.format(names=fact["numerical_names"], label=cfg.class_label)
    out = [cl.equal(p.records, fact["records"])]
    out += [cl.equal(p[k], fact[k], note=named) for k in ("attributes", "categorical", "numerical")]
    return [*out, cl.equal(p.age_universe, fact["age_range"])]


# --- Real-data twins on ACS person records -----------------------------------------------------
table2.twin(
    "table2_acs",
    summary="Table II's rules on real ACS person records (AGEP, EDU, PINCP for age, education-num, hours-per-week)",
)
fig1_lambda.twin("fig1_lambda_acs", summary="Figure 1's lambda vs rho1 on real ACS person records (AGEP, EDU, PINCP)")
