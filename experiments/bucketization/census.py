"""The experiments on the CENSUS-like OCC and EDU tables and their real-data twins on ACS: the
data (Figure 2's sensitive-value frequencies, Table 5's attributes, Figure 3's l needed for
each theta) and the utility of each mechanism's release vs theta (Figure 4's MSE, Figure 5's
relative error of count queries)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import PrivlabError
from privlab import bucketization as bk
from privlab import claims as cl
from privlab.bucketization import figures
from privlab.datasets.census import SIZES
from privlab.params import Bool, Int, List, Real, Str
from privlab.registry import IGNORE, Tolerance, experiment
from privlab.stats import mean_se

from ._common import (
    CENSUS,
    GRID,
    POOL,
    POS,
    call,
    data_kind,
    label,
    mapping,
    on_data,
    printed,
    solver_errors,
    table_of,
    undecided,
    wide,
)


@experiment(
    artifact="Figure 2",
    summary="Frequency of every sensitive value of the OCC and EDU tables, most frequent first",
    keys=("table", "rank"),
    figures={"fig2_sa_frequencies": figures.sa_frequencies},
    params={**CENSUS, "tables": List(Str(), unique=True), "claims": {"skew_ratio": POS}},
    smoke=("tables=[EDU]",),
)
def fig2_sa_frequencies(cfg, ctx):
    frames = [bk.frequency_table(table_of(cfg, ctx, table).sa).assign(table=table) for table in cfg.tables]
    return pd.concat(frames, ignore_index=True)[["table", "rank", "value", "count", "frequency"]]


@fig2_sa_frequencies.claims
def _(df, cfg):
    out, entries = mapping(cfg), printed(cfg)
    for table, g in df.groupby("table", sort=False):
        if (p := entries.get(table)) is None:
            continue
        f = (g.frequency.min(), g.frequency.max())
        for which, v, x in zip(("min", "max"), p.frequencies.value, f):
            item = cl.each(p.frequencies, which, v)
            out.append(on_data(cfg, cl.printed_value(item, x), item, f"{x:.4f}"))
        shown = f"max / min frequency = {f[1] / f[0]:.1f} over {len(g)} values of {int(g['count'].sum()):,} records"
        skew = cl.at_least(p.skewed, f[1] / f[0], cfg.claims.skew_ratio, reproduced=shown)
        out.append(on_data(cfg, skew, p.skewed, shown, checked_on=("paper", "other")))
        if "max_l" in p:  # Section 1.2: the largest eligible l is floor(1 / f_max)
            out.append(cl.info(p.max_l, f"l = {bk.max_eligible_l(f[1])}"))
    return out


@experiment(
    artifact="Table 5",
    summary="The CENSUS attributes and their domain sizes against the data the experiments run on",
    keys=("attribute",),
    params=CENSUS,
)
def table5_attributes(cfg, ctx):
    frame = ctx.dataset(cfg.dataset)
    coded, domains = (frame, SIZES) if cfg.columns is None else bk.recode(frame, cfg.columns)
    columns = dict(cfg.columns) if cfg.columns is not None else {a: a for a in SIZES}
    rows = [
        {"attribute": a, "column": c, "domain": domains[c], "distinct": coded[c].nunique()} for a, c in columns.items()
    ]
    return pd.DataFrame(rows).assign(records=len(coded))


@table5_attributes.claims
def _(df, cfg):
    p, out = printed(cfg), mapping(cfg)
    pairs = [
        (cl.each(p.domains, r.attribute, p.domains["values"].get(r.attribute, "-")), r.domain) for r in df.itertuples()
    ]
    for item, x in [*pairs, (p.attributes, len(df)), (p.records, int(df.records.iloc[0]))]:
        out.append(on_data(cfg, cl.equal(item, x), item, x))
    return out


@experiment(
    artifact="Figure 3",
    summary="l = ceil(1/min F_i) needed to model F-privacy by l-diversity, and its eligibility",
    keys=("table", "theta"),
    figures={"fig3_l_vs_theta": figures.l_vs_theta},
    params=GRID,
    smoke=("thetas=[2,32]",),  # no dataset.n: the ACS twin has none
)
def fig3_l_vs_theta(cfg, ctx):
    rows = []
    for table in cfg.tables:
        sa = table_of(cfg, ctx, table).sa
        rows += [{"table": table, **r} for r in bk.l_needed(np.bincount(sa) / sa.size, cfg.thetas, cfg.offset)]
    return pd.DataFrame(rows)


@fig3_l_vs_theta.claims
def _(df, cfg):
    out, kind, entries = mapping(cfg), data_kind(cfg), printed(cfg)
    for table, g in df.groupby("table", sort=False):
        p, f = entries.get(table), (g.f_min.iloc[0], g.f_max.iloc[0])
        if p is None:
            continue
        if kind != "paper":
            out.append(cl.info(p.frequencies, f"{f[0]:.4f} / {f[1]:.4f}", note=cfg.printed.notes[kind]))
        else:
            pairs = zip(("min", "max"), p.frequencies.value, f)
            out += [cl.printed_value(cl.each(p.frequencies, which, v), x) for which, v, x in pairs]
        out.append(cl.equal(p.eligible, sorted(g[g.eligible].theta.tolist())))
    return out


def _releases(cfg, ctx, tables: dict, keep_ids: bool) -> list:
    """Every mechanism's checked release of every (table, theta): [(table, theta, label, Release)]."""
    mechs, keys, tasks = ctx.mechanisms(cfg.mechanism, kind="bucketing").values(), [], []
    for table, t in tables.items():
        f = np.bincount(t.sa) / t.sa.size
        for theta in cfg.thetas:
            seeds = [ctx.seed_sequence(table, theta, m.label) for m in mechs]
            F, impls = bk.fprivacy(f, theta, cfg.offset), [m.impl for m in mechs]
            keys += [(table, theta, m.label) for m in mechs]
            tasks.append((bk.release_all, (t.sa, F, impls, cfg.max_size, seeds, keep_ids)))
    releases = [r for rs in ctx.map(call, tasks, desc="releases") for r in rs]
    return [(*k, r) for k, r in zip(keys, releases)]


@experiment(
    artifact="Figure 4",
    summary="MSE of TwoSize, MultiSize, Optimal (ILP) and Anatomy vs theta on OCC and EDU",
    keys=("table", "theta", "method"),
    # the ILP may return another optimal setting with the same loss (alternative optima)
    tolerances={"seconds": IGNORE, "setting": IGNORE, "n_sizes": IGNORE},
    figures={"fig4_mse": figures.mse_vs_theta},
    params={
        **GRID,
        "timings": Bool(),
        "claims": {"anatomy_ratio": POS, "two_multi_gap": POS, "multi_opt_gap": POS, "float_tol": Real(0)},
    },
    smoke=("tables=[EDU]", "thetas=[4,32]", "timings=false"),  # EDU: a small ILP on CENSUS-like and ACS data
)
def fig4_mse(cfg, ctx):
    tables = {table: table_of(cfg, ctx, table) for table in cfg.tables}
    return pd.DataFrame(
        {"table": table, "theta": theta, "method": method, **r.summary(tables[table].sa.size, cfg.timings)}
        for table, theta, method, r in _releases(cfg, ctx, tables, keep_ids=False)
    )


def _slightly_above(item, w, hi: str, lo: str, bound: float, tol: float):
    """``hi`` at most slightly above ``lo``: 0 <= hi - lo < bound wherever both are known."""
    d = (w[hi] - w[lo]).dropna()
    holds = bool(len(d) and (d >= -tol).all() and d.max() < bound)
    shown = f"{hi} - {lo} = {d.min():.4f}..{d.max():.4f} ({len(d)} of {len(w)} known)"
    return cl.statement(item, holds, reproduced=shown, rule=f"0 <= difference < {bound:g} everywhere")


def _statuses(rows) -> str:
    return ", ".join(f"{r.table} theta={r.theta}: {r.status}" for r in rows.itertuples())


@fig4_mse.claims
def _(df, cfg):
    p, c, w, out = printed(cfg), cfg.claims, wide(df, cfg, "mse"), mapping(cfg)
    failed = solver_errors(df, cfg, "optimal_multi_size")
    if {"anatomy", "two_size", "multi_size"} <= set(w):
        ratio = w.anatomy / w[["two_size", "multi_size"]].max(axis=1)
        shown = f"Anatomy / max(TwoSize, MultiSize) = {ratio.min():.2f}..{ratio.max():.2f}"
        out.append(cl.at_least(p.anatomy_higher, ratio.min(), c.anatomy_ratio, strict=True, reproduced=shown))
    if {"two_size", "multi_size"} <= set(w):
        out.append(_slightly_above(p.two_multi, w, "two_size", "multi_size", c.two_multi_gap, c.float_tol))
    if failed and label(cfg, "multi_size"):
        out.append(undecided(cfg, p.multi_opt, failed))
    elif {"multi_size", "optimal_multi_size"} <= set(w):
        out.append(_slightly_above(p.multi_opt, w, "multi_size", "optimal_multi_size", c.multi_opt_gap, c.float_tol))
    if ilp_label := label(cfg, "optimal_multi_size"):
        # the statement covers the paper's small domains: the tables it names (all when unnamed)
        ilp = df[(df.method == ilp_label) & df.table.isin(p.optimal_solves.get("tables") or df.table.unique())]
        timed = ilp[ilp.status != "optimal"]
        shown = _statuses(timed) or "all solved"
        if failed:
            out.append(undecided(cfg, p.optimal_solves, failed, shown))
        else:
            rule = "every solve proves optimality"
            out.append(cl.statement(p.optimal_solves, timed.empty, reproduced=shown, rule=rule))
        if len(ilp) < len(df[df.method == ilp_label]):
            out.append(cl.info(p.optimal_large, _statuses(df[(df.method == ilp_label) & ~df.index.isin(ilp.index)])))
    bad = df[df.checker == "FAILED"]
    shown = f"{int((df.checker == 'passed').sum())} passed, {len(bad)} failed"
    return [*out, cl.statement(p.checker, bad.empty, reproduced=shown, rule="no release fails the checker")]


@experiment(
    artifact="Figure 5",
    summary="Mean relative error of count queries (pool of selectivity 1%) vs theta",
    keys=("table", "theta", "method"),
    tolerances={"re": Tolerance(se="re_se", k=5)},
    figures={"fig5_re": figures.re_vs_theta},
    params={
        **GRID,
        **POOL,
        "query_chunk": Int(1, 10**6, limit="queries per work item"),
        "claims": {"most": Real(0, 1), "re_gap": POS},
    },
    smoke=("tables=[EDU]", "thetas=[4]", "n_queries=200", "query_chunk=100"),
)
def fig5_re(cfg, ctx):
    tables = {table: table_of(cfg, ctx, table) for table in cfg.tables}
    # one pool per table, shared by every theta and method
    pool_args = [(t.qi, t.qi_sizes, t.sa, t.sa_size, cfg.n_queries, cfg.selectivity) for t in tables.values()]
    seeds = [ctx.seed_sequence(table, "pool") for table in tables]
    tasks = [(bk.make_query_pool, (*a, s)) for a, s in zip(pool_args, seeds)]
    pools = dict(zip(tables, ctx.map(call, tasks, desc="query pools")))
    released = _releases(cfg, ctx, tables, keep_ids=True)
    # every release of a table is evaluated in one pass over its pool, in fixed-size chunks of
    # queries (so the work splits over workers without changing any number)
    starts, chunks = range(0, cfg.n_queries, cfg.query_chunk), {}
    for table, t in tables.items():
        ids = [r.bucket_ids for tb, *_, r in released if tb == table and r.bucket_ids is not None]
        for s in starts:
            chunks[table, s] = (bk.pool_relative_errors, (t.qi, t.sa, ids, pools[table].part(s, s + cfg.query_chunk)))
    parts = dict(zip(chunks, ctx.map(call, list(chunks.values()), desc="queries")))
    errors = {tb: iter(map(np.concatenate, zip(*(parts[tb, s] for s in starts)))) for tb in tables}
    rows = []
    for table, theta, method, r in released:
        if r.checked is False:
            raise PrivlabError(f"{table} theta={theta} {method}: the release fails the F-privacy checker")
        e = next(errors[table]) if r.bucket_ids is not None else None
        stats = (np.nan,) * 3 if e is None else (e.mean(), mean_se(e), np.median(e))
        rows.append({"table": table, "theta": theta, "method": method, "status": r.plan.status})
        rows[-1].update(zip(("re", "re_se", "re_median"), map(float, stats)))
        rows[-1].update(queries=cfg.n_queries, redrawn=pools[table].redrawn)
    return pd.DataFrame(rows)


@fig5_re.claims
def _(df, cfg):
    p, c, w, out = printed(cfg), cfg.claims, wide(df, cfg, "re"), mapping(cfg)
    if cols := [n for n in ("two_size", "multi_size") if n in w]:
        bound, frac = p.re_below.bound, float((w[cols] <= p.re_below.bound).mean().mean())
        shown = f"{frac:.0%} of (table, theta, method) cells <= {bound:.0%}; max {w.max().max():.3f}"
        out.append(cl.at_least(p.re_below, frac, c.most, reproduced=shown))
    if len(cols) < 2:
        return out
    for table, g in w.groupby(level="table"):
        item = cl.each(p.close, table, p.close["values"].get(table, "-"))
        if failed := solver_errors(df[df.table == table], cfg, "optimal_multi_size"):
            out.append(undecided(cfg, item, failed))
            continue
        d1 = (g.two_size - g.multi_size).mean()
        d2 = (g.multi_size - g.optimal_multi_size).mean() if "optimal_multi_size" in g else np.nan
        holds = bool(abs(d1) < c.re_gap and (np.isnan(d2) or abs(d2) < c.re_gap))
        shown = f"mean TwoSize-MultiSize = {d1:+.3f}, MultiSize-Optimal = {d2:+.3f}"
        out.append(cl.statement(item, holds, reproduced=shown, rule=f"|mean differences| < {c.re_gap:g}"))
    return out


# real-data twins on ACS (the mapping: conf/experiment/bucketization/_acs.yaml)
fig2_sa_frequencies.twin("fig2_sa_frequencies_acs")
table5_attributes.twin("table5_attributes_acs")
fig3_l_vs_theta.twin("fig3_l_vs_theta_acs")
fig4_mse.twin("fig4_mse_acs")
fig5_re.twin("fig5_re_acs")
