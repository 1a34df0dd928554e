"""The CAE experiments' claims: what each compares with the paper, computed from its result table.

One public function per experiment (``sdc`` for what Figures 2 and 4 share), each taking the
result table and the config blocks it reads (``printed``: the paper's printed values and
statements; ``limits``: the thresholds of the experiment's ``claims:`` block) as explicit
arguments, an OmegaConf node or a plain mapping alike, and returning `privlab.claims.Claim` rows
built through the helpers of `privlab.claims` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab._validation import PrivlabError, check_array, check_distribution, check_mapping, check_table
from privlab.cae import derivations as dv
from privlab.cae import trends
from privlab.cae._checks import check_instance
from privlab.cae.exact import chi2_agreement
from privlab.cae.intruder import printed_formula_gap
from privlab.cae.measure import covering_entropy, max_entropy, min_entropy
from privlab.cae.techniques import SDCTechnique
from privlab.claims import Claim
from privlab.formulas import table_rows

from . import figures

__all__ = [
    "example",
    "table1_fig1",
    "formulas",
    "sdc",
    "fig2_sampling",
    "fig2_query_restriction",
    "fig4_noise",
    "table2_data",
]

# the columns of the SDC tables the claims read (`privlab.cae.run_series` with labels)
SDC_COLUMNS = (
    *("dataset", "technique", "param", "sk_size", "data", "artifact_violation"),
    *("H0", "H0_se", "area", "area_se", "H0_unique", "area_unique"),
    *("H0_unique_exact", "area_unique_exact", "H0_unique_exact_se", "area_unique_exact_se"),
)


def _blocks(**blocks: Any) -> None:
    """Each config block must be a mapping (an OmegaConf node or a dict)."""
    for name, value in blocks.items():
        check_mapping(name, value)


def _about(entry: Mapping[str, Any], prefix: str, technique: str = "") -> dict[str, Any]:
    """A shared ``printed:`` entry, its claim prefixed with what it is about; a ``ledger`` given per
    technique (a mapping) resolved for ``technique``."""
    out = {**entry, "claim": f"{prefix}: {entry['claim']}"}
    if not isinstance(out.get("ledger", ""), str):
        out["ledger"] = out["ledger"].get(technique, "")
    return out


def _same(item: Any, a: float, b: float, shown: str) -> cl.Claim:
    """Two computed values equal up to floating point (numpy's isclose: |a - b| <= 1e-8 + 1e-5 |b|)."""
    bound, rule = 1e-8 + 1e-5 * abs(float(b)), "equal (|a - b| <= 1e-8 + 1e-5 |b|)"
    return cl.at_most(item, abs(float(a) - float(b)), bound, reproduced=shown, rule=rule)


def example(df: pd.DataFrame, *, printed: Mapping[str, Any], x: Any, p: Any, limits: Mapping[str, Any]) -> list[Claim]:
    """The appendix's worked example (Figure 3): every printed H(eps), the statements around it, the
    coverings it names and its area.

    Parameters
    ----------
    df : DataFrame
        The experiment's table (`privlab.cae.examples.integer_steps`): ``eps``, ``H``, ``H_curve``,
        ``breakpoint``, ``area``.
    printed : mapping
        The ``printed:`` block (``H``, ``no_better``, ``alternative``, ``maximised``, ``area``,
        ``step_function``, ``total``, ``merged``, ``windows``, ``options``).
    x, p : array_like
        The example's values and their probabilities.
    limits : mapping
        The ``claims:`` block: ``equal_tol``.
    """
    check_table(df, ("eps", "H", "H_curve", "breakpoint", "area"))
    _blocks(printed=printed, limits=limits)
    check_array("x", x)
    check_distribution("p", p)
    x, q = list(x), list(p)
    tol = limits["equal_tol"]
    H = dict(zip(df.eps, df.H))
    pH, better, alt_p = printed["H"], printed["no_better"], printed["alternative"]
    out = [cl.printed_value(cl.each(pH, f"eps = {e}", v), H[int(e)]) for e, v in pH["values"].items()]
    same = [abs(H[e] - H[better["than"]]) for e in better["eps"]]
    shown = ", ".join(f"H({e}) = {H[e]:.4f}" for e in (*better["eps"], better["than"]))
    out.append(cl.at_most(better, max(same), tol, reproduced=shown, rule=f"largest |difference| <= {tol:g}"))
    alt, span = covering_entropy(x, q, alt_p["windows"])
    shown = f"{alt:.4f} (widest window {span:g}; the minimum H({alt_p['eps']}) = {H[alt_p['eps']]:.4f})"
    out.append(cl.printed_value(alt_p, alt, reproduced=shown))
    by_max = [cl.rounds_to(v, max_entropy(x, q, int(e))) for e, v in pH["values"].items()]
    by_min = [cl.rounds_to(v, min_entropy(x, q, int(e))) for e, v in pH["values"].items()]
    shown = f"printed H(eps) = the maximum at {sum(by_max)} of {len(by_max)} eps, the minimum at {sum(by_min)}"
    rule = "every printed H(eps) is the maximum"
    out.append(cl.statement(printed["maximised"], all(by_max), reproduced=shown, rule=rule))
    where = ", ".join(f"{e:g}" for e in df.eps[df.breakpoint])
    out.append(cl.info(printed["area"], f"{df.area[0]:.4f}", note=f"{printed['area']['note']} {where}"))
    gap = float(np.abs(df.H - df.H_curve).max())
    out.append(cl.at_most(printed["step_function"], gap, tol, reproduced=f"largest difference {gap:.2g}"))
    out.append(cl.printed_value(printed["total"], sum(q)))
    merged = printed["merged"]
    values = [v for v in x if v in merged["values"]]
    out.append(cl.printed_value(cl.each(merged, "combined value", merged["value"]), float(np.mean(values))))
    mass = sum(w for v, w in zip(x, q) if v in merged["values"])
    out.append(cl.printed_value(cl.each(merged, "its probability", merged["probability"]), mass))
    for e, step in printed["windows"]["values"].items():
        _, span = covering_entropy(x, q, step["covering"])
        out.append(cl.printed_value(cl.each(printed["windows"], f"eps = {e}", step["length"]), span))
    found = dv.coverings(x, printed["options"]["eps"], maximal=True)
    shown = f"{len(found)}: " + "; ".join(str(c) for c in found)
    return [*out, cl.printed_value(printed["options"], len(found), reproduced=shown)]


def table1_fig1(df: pd.DataFrame, *, printed: Mapping[str, Any], limits: Mapping[str, Any]) -> list[Claim]:
    """Section 3's two salary examples (Table 1, Figure 1): the printed candidates, entropies and
    ranges, and that CAE tells apart what H0 and DR cannot.

    Parameters
    ----------
    df : DataFrame
        The experiment's table (`privlab.cae.examples.salary_table`), two examples at least.
    printed : mapping
        The ``printed:`` block (``other``, ``bits``, ``x0``, ``half``, ``range`` with ``values`` per
        example; ``same_h0``, ``larger_area``, ``dr_blind``, ``cae_tells``).
    limits : mapping
        The ``claims:`` block: ``much_larger`` (the least ratio of the two areas).
    """
    check_table(df, ("example", "other", "H0", "X0", "half_range", "range", "area", "DR"))
    _blocks(printed=printed, limits=limits)
    first = df.groupby("example", sort=False).first()
    if len(first) < 2:
        raise PrivlabError(f"df must hold two examples at least, got {len(first)}")
    out = []
    for col, key in (("other", "other"), ("H0", "bits"), ("X0", "x0"), ("half_range", "half"), ("range", "range")):
        entry = printed[key]
        out += [cl.printed_value(cl.each(entry, ex, v), first[col][ex]) for ex, v in entry["values"].items()]
    h0, area, dr = first.H0, first.area, first.DR
    a, b = first.index[:2]
    shown = ", ".join(f"{ex}: {h0[ex]:.4g} bits" for ex in (a, b))
    out.append(_same(printed["same_h0"], h0[a], h0[b], shown))
    ratio = area[a] / area[b]
    shown = f"{a}: {area[a]:g}, {b}: {area[b]:g} (ratio {ratio:.3g})"
    out.append(cl.at_least(printed["larger_area"], ratio, limits["much_larger"], reproduced=shown))
    shown = f"DR = {dr[a]:.4g} and {dr[b]:.4g}"
    out.append(_same(printed["dr_blind"], dr[a], dr[b], shown))
    tells = bool(np.isclose(h0[a], h0[b]) and not np.isclose(area[a], area[b]))
    shown = f"(H0, A) = ({h0[a]:.3g}, {area[a]:g}) vs ({h0[b]:.3g}, {area[b]:g})"
    return [*out, cl.statement(printed["cae_tells"], tells, reproduced=shown, rule="equal H0, different A")]


def formulas(df: pd.DataFrame, *, printed: Mapping[str, Any]) -> list[Claim]:
    """Every displayed formula: printed against derived, one claim per row of the table
    (`privlab.cae.derivations.formula_table`), and the seed's cross-references.

    Parameters
    ----------
    df : DataFrame
        The formulas table (`privlab.formulas.COLUMNS`).
    printed : mapping
        The ``printed:`` block: an entry per ``key`` and ``crossref`` (with ``refers``).
    """
    rows = table_rows(df)
    _blocks(printed=printed)
    out = []
    for r in rows:
        shown = f"{r.derived}; {r.instance}: printed {r.printed_value:.6g}, derived {r.derived_value:.6g}"
        shown += f" ({r.detail})" if r.detail else ""
        out.append(cl.statement(printed[str(r.key)], bool(r.match), reproduced=shown, rule="printed = derived"))
    refs = printed["crossref"]["refers"]
    return [*out, cl.equal(printed["crossref"], sorted(set(refs.values())))]


def _technique(
    label: str,
    g: pd.DataFrame,
    tech: SDCTechnique,
    printed: Mapping[str, Any],
    limits: Mapping[str, Any],
    roles: Mapping[str, str],
    lp_check_records: int,
) -> list[Claim]:
    """The claims on one technique's rows ``g`` (every data set)."""
    p, c, several = printed, limits, g.param.nunique() > 1
    v = g.artifact_violation
    note = tech.checked
    if tech.name == "query_restriction":
        note += p["artifacts"]["lp_note"].format(n=lp_check_records)
    shown = f"max violation {v.max():g} over {len(v)} rows"
    artifacts = _about(p["artifacts"], label, tech.name)
    out = [cl.at_most(artifacts, float(v.max()), c["violation_max"], reproduced=shown, note=note)]
    d = g[g.H0_unique_exact.notna()]
    for m in ("H0", "area") if len(d) else ():
        r = chi2_agreement(d[f"{m}_unique"], d[f"{m}_unique_exact"], d[f"{m}_unique_exact_se"])
        detail = f"{r['n']} rows: chi2 = {r['chi2']:.1f}, max |z| = {r['max_z']:.2f}"
        exact = _about(p["exact"], f"{label} {m}")
        out.append(cl.gof(exact, r["p"], alpha=c["p_min"], printed=p["exact"]["value"], detail=detail))
        if r["n_exact"]:
            shown = f"{r['n_exact']} rows, largest difference {r['exact_max_diff']:.2g}"
            zero_se = _about(p["exact_zero_se"], f"{label} {m}")
            out.append(cl.at_most(zero_se, r["exact_max_diff"], c["exact_tol"], reproduced=shown))
    for m in ("H0", "area") if several else ():
        bad, k = trends.rises_with_utility(g, m, tech.utility_sign, alpha=c["alpha_family"], float_tol=c["float_tol"])
        shown = f"violated at {', '.join(bad[:6])}" if bad else "yes"
        rule = f"within {k:.2f} s.e. (family-wise level {c['alpha_family']:g})"
        out.append(cl.statement(_about(p["rises"], f"{label} {m}"), not bad, reproduced=shown, rule=rule))
    for ds, d in g.groupby("dataset", sort=False):
        who = f"{roles[str(ds)]}/{label}"
        ok = trends.declines_with_sk(d, k=c["se_k"], float_tol=c["float_tol"])
        rule = f"no rise beyond {c['se_k']:g} s.e."
        out.append(cl.statement(_about(p["declines"], who), ok, reproduced="yes" if ok else "no", rule=rule))
        h0 = d.pivot(index="sk_size", columns="param", values="H0")
        lo, hi = (1 if 1 in h0.index[:-1] else h0.index[0]), h0.index[-1]  # from one known attribute on
        if several and lo < hi:
            drops = {q: trends.drop(h0[q], lo, hi, c["drop_decimals"]) for q in h0.columns}
            low, *_, high = sorted(drops, key=lambda q: tech.utility_sign * q)
            shown = "; ".join(f"{figures.legend(label, q)}: {drops[q]:.3f} bits" for q in (high, low))
            # "sharp ... gentle": the reading sharp_bits, the drop at the highest utility beyond the lowest's
            gap = drops[high] - drops[low]
            shown += f"; SK {lo}->{hi}, difference {gap:.3f} bits"
            item = _about(p["sharp"], who)
            out.append(cl.differ(item, gap, 0.0, margin=float(c["sharp_bits"]), reproduced=shown))
    return out


def _roles(df: pd.DataFrame, datasets: Mapping[str, Any]) -> dict[str, str]:
    """The paper's data set each of the table's data sets stands for (its block's ``role``)."""
    _blocks(datasets=datasets)
    unknown = [ds for ds in dict.fromkeys(df.dataset) if ds not in datasets or datasets[ds] is None]
    if unknown:
        raise PrivlabError(f"datasets must have a block with a role for every data set of df; missing {unknown}")
    return {ds: str(datasets[ds]["role"]) for ds in dict.fromkeys(df.dataset)}


def _kinds(df: pd.DataFrame, techniques: Mapping[str, SDCTechnique]) -> pd.Series:
    """The kind (`SDCTechnique.name`) of each row's technique."""
    return df.technique.map(lambda t: techniques[t].name)


def sdc(
    df: pd.DataFrame,
    *,
    printed: Mapping[str, Any],
    limits: Mapping[str, Any],
    techniques: Mapping[str, SDCTechnique],
    datasets: Mapping[str, Any],
    lp_check_records: int,
) -> list[Claim]:
    """What every SDC experiment (Figures 2 and 4, their ACS twins) claims, per technique: every
    released artifact passes its checker, the Monte Carlo agrees with the exact expectation of
    uniquely identified records, CAE rises as utility falls, privacy declines with SK and the
    decline is sharp at high utility; a twin (``printed`` has ``mapping``) also shows its data.

    Parameters
    ----------
    df : DataFrame
        The summary table of `privlab.cae.run_series` with its ``data`` label column.
    printed : mapping
        The ``printed:`` block: ``artifacts``, ``exact``, ``exact_zero_se``, ``rises``,
        ``declines``, ``sharp`` (and ``mapping`` for a twin).
    limits : mapping
        The ``claims:`` block: ``violation_max``, ``p_min``, ``exact_tol``, ``alpha_family``,
        ``float_tol``, ``se_k``, ``drop_decimals``.
    techniques : mapping
        Each ``technique`` label of the table -> its `SDCTechnique`.
    datasets : mapping
        The ``datasets:`` block: each data set of the table with its ``role``.
    lp_check_records : int
        Records per shuffle whose bounds query restriction's checker re-derived by LP (for its note).
    """
    check_table(df, SDC_COLUMNS)
    _blocks(printed=printed, limits=limits, techniques=techniques)
    roles = _roles(df, datasets)
    for label in dict.fromkeys(df.technique):
        check_instance(f"techniques[{label!r}]", techniques.get(label), SDCTechnique, "an SDCTechnique")
    out = []
    for label, g in df.groupby("technique", sort=False):
        out += _technique(str(label), g, techniques[str(label)], printed, limits, roles, lp_check_records)
    if "mapping" in printed:  # a twin on other data: how its columns stand for the paper's
        out.append(cl.info(printed["mapping"], "; ".join(dict.fromkeys(df.data))))
    return out


def fig2_sampling(
    df: pd.DataFrame,
    *,
    printed: Mapping[str, Any],
    limits: Mapping[str, Any],
    techniques: Mapping[str, SDCTechnique],
    **blocks: Any,
) -> list[Claim]:
    """`sdc` (``blocks``: its other arguments), and the sampling probability as printed
    (``printed.formula``: its ``records`` and ``domain_size``) against the exact one at every
    sampling level of the table."""
    out = sdc(df, printed=printed, limits=limits, techniques=techniques, **blocks)
    p = printed["formula"]
    levels = df.param[_kinds(df, techniques) == "sampling"].unique()
    gaps = [printed_formula_gap(p["records"], p["domain_size"], q) for q in levels]
    if gaps:
        worst, mass = max(g[0] for g in gaps), [g[1] for g in gaps]
        shown = f"max |printed p_i - exact p_i| = {worst:.3g}; printed p_i sum to {min(mass):.4g}..{max(mass):.4g}"
        out.append(cl.at_most(p, worst, limits["float_tol"], reproduced=shown))
    return out


def fig2_query_restriction(
    df: pd.DataFrame,
    *,
    printed: Mapping[str, Any],
    limits: Mapping[str, Any],
    datasets: Mapping[str, Any],
    **blocks: Any,
) -> list[Claim]:
    """`sdc` (``blocks``: its other arguments), and per data set how query restriction at
    ``printed.similar.set_size`` compares with sampling at ``printed.similar.sampling``: similar H0
    without SK, sampling's H0 and Area drop faster with SK, query restriction's H0 nearly flat,
    sampling's Area slightly above (``limits``: also ``similar_rel`` and ``flat_rel``)."""
    out = sdc(df, printed=printed, limits=limits, datasets=datasets, **blocks)
    p, c, roles, similar = printed, limits, _roles(df, datasets), printed["similar"]
    for ds, d in df.groupby("dataset", sort=False):
        kind = _kinds(d, blocks["techniques"])
        qr = d[(kind == "query_restriction") & (d.param == similar["set_size"])].set_index("sk_size")
        sa = d[(kind == "sampling") & (d.param == similar["sampling"])].set_index("sk_size")
        if qr.empty or sa.empty:
            continue
        who, s0, s_hi = roles[str(ds)], qr.index.min(), qr.index.max()
        rel = abs(qr.H0[s0] - sa.H0[s0]) / max(qr.H0[s0], sa.H0[s0])
        shown = f"sampling {sa.H0[s0]:.3f} vs Q {qr.H0[s0]:.3f} bits ({rel:.0%} apart)"
        out.append(cl.at_most(_about(similar, who), rel, c["similar_rel"], reproduced=shown))
        d_sa, d_qr = (trends.drop(t.H0, s0, s_hi, c["drop_decimals"]) for t in (sa, qr))
        shown = f"H0 drop SK {s0}->{s_hi}: sampling {d_sa:.3f}, Q {d_qr:.3f}"
        faster = _about(p["faster"], who)
        rule = "sampling's drop - Q's > 0"
        out.append(cl.at_least(faster, d_sa - d_qr, 0.0, strict=True, reproduced=shown, rule=rule))
        flat = d_qr / qr.H0[s0]
        shown = f"Q {similar['set_size']:g}: H0 {qr.H0[s0]:.3f} -> {qr.H0[s_hi]:.3f} bits ({flat:.1%} lower)"
        out.append(cl.at_most(_about(p["flat"], who), flat, c["flat_rel"], reproduced=shown))
        a_sa, a_qr = sa.area[s0], qr.area[s0]
        z, gap = trends.difference_z(a_sa, a_qr, sa.area_se[s0], qr.area_se[s0])
        shown = f"SK {s0}: Area sampling {a_sa:.2f} vs Q {a_qr:.2f} ({gap:+.1%}, z = {z:+.1f})"
        rule = f"sampling's Area above Q's (within {c['se_k']:g} s.e.), by at most {c['similar_rel']:.0%}"
        slight = z >= -c["se_k"] and gap <= c["similar_rel"]
        out.append(cl.statement(_about(p["area_slight"], who), slight, reproduced=shown, rule=rule))
        d_sa, d_qr = (trends.drop(t.area, s0, s_hi, c["drop_decimals"]) for t in (sa, qr))
        shown = f"Area drop SK {s0}->{s_hi}: sampling {d_sa:.2f}, Q {d_qr:.2f}"
        rule = "sampling's Area drop - Q's > 0"
        area_faster = _about(p["area_faster"], who)
        out.append(cl.at_least(area_faster, d_sa - d_qr, 0.0, strict=True, reproduced=shown, rule=rule))
    return out


def fig4_noise(df: pd.DataFrame, *, printed: Mapping[str, Any], **blocks: Any) -> list[Claim]:
    """`sdc` (``blocks``: its other arguments), and the largest CAE of a uniquely identified record
    without noise (``printed.zero_noise``, shown: it is 0 by construction)."""
    out = sdc(df, printed=printed, **blocks)
    zero = df[(df.param == 0) & df.H0_unique.notna()]
    if len(zero):
        top = float(np.nanmax(np.abs(zero[["H0_unique", "area_unique"]].to_numpy())))
        out.append(cl.info(printed["zero_noise"], f"max H0, A over such records: {top:.3g}"))
    return out


def table2_data(df: pd.DataFrame, *, printed: Mapping[str, Any]) -> list[Claim]:
    """Table 2 and the appendix's data description: each row's number of values from its min, max
    and rounding, the synthetic stand-in's domains and data labels (shown), and the real ACS
    records' distinct codes where they are coded as Table 2 counts them.

    Parameters
    ----------
    df : DataFrame
        The table of `privlab.cae.data.domain_table`.
    printed : mapping
        The ``printed:`` block: ``table2``, ``synthetic``, ``records``, ``attributes``, ``acs_real``,
        ``acs_info``.
    """
    check_table(df, ("attribute", "printed_values", "derived_values"))
    _blocks(printed=printed)
    p, out, t = printed, [], df.set_index("attribute")
    for attr in t.index:
        out.append(cl.equal(cl.each(p["table2"], attr, t.printed_values[attr]), int(t.derived_values[attr])))
    for attr in t.index if "pums_values" in t else ():
        got = f"{t.pums_min[attr]:g}..{t.pums_max[attr]:g}, {t.pums_values[attr]} values"
        out.append(cl.info(cl.each(p["synthetic"], attr, t.printed_values[attr]), got))
    labels = "; ".join(t[c].dropna().iloc[0] for c in ("pums_data", "acs_data") if c in t)
    out.append(cl.info(p["records"], labels))
    out.append(cl.info(p["attributes"], f"synthetic stand-in: {len(t)} columns" if "pums_values" in t else "-"))
    acs = t[t.acs_column.notna()] if "acs_column" in t else t.iloc[:0]
    for e in p["acs_real"].values():  # the ACS recodes these as Table 2 does: a real check
        r = acs[acs.acs_column == e["column"]]
        if len(r):
            out.append(cl.equal(e, int(r.acs_raw_distinct.iloc[0])))
    for e in p["acs_info"].values():
        r = acs[acs.acs_column == e["column"]]
        shown = (
            f"{e['column']}: {r.acs_min.iloc[0]:g}..{r.acs_max.iloc[0]:g}, {int(r.acs_values.iloc[0])} values"
            if len(r)
            else "-"
        )
        out.append(cl.info(e, shown))
    return out
