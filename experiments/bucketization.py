"""Bucketization paper (seed 000): F-privacy with buckets of several sizes on CENSUS-like OCC and
EDU tables (Figures 2-5, 7, Table 5) and their real-data twins on ACS, the worked examples
(Tables 1-2, Examples 4.20, 5.23, 5.32, Remark 3.12), the displayed formulas re-derived,
Section 2.1's differential inference and Section 6's fake values against corruption.

The science lives in `privlab.bucketization`, the mechanisms compared in ``conf/mechanism/``
(kind ``bucketing``), the paper's printed values and statements in the ``printed:`` blocks of
``conf/experiment/bucketization/``. Tables name a mechanism by its label (``TwoSize``), claims
by its config name (``two_size``), and skip what a run without that mechanism cannot check.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

from privlab import PrivlabError
from privlab import bucketization as bk
from privlab import claims as cl
from privlab.bucketization import figures
from privlab.datasets import is_synthetic
from privlab.datasets.census import SIZES
from privlab.params import Bool, Choice, Int, List, MapOf, Optional, Real, Str
from privlab.registry import IGNORE, Paper, Tolerance, experiment
from privlab.stats import mean_se

PAPER = Paper(
    "Wang, Wang, Fu, Wong - Inferential or Differential: Privacy Laws Dictate", seed="000_b477ba34304addb4.txt"
)

POS = Real(0, low_open=True)
CENSUS = {
    "sa_columns": MapOf(Str()),
    "columns": Optional(MapOf(Str())),
    "offset": Real(0),
    "max_size": Int(1, 1000, limit="size pairs scanned"),
}
GRID = {**CENSUS, "tables": List(Str(), unique=True), "thetas": List(POS)}
POOL = {"n_queries": Int(1, 10**6, limit="queries held in memory"), "selectivity": Real(0, 1, low_open=True)}
RUNTIME = {**CENSUS, "table": Str(), "theta": POS, "repeats": Int(1, 1000, limit="runs per point"), "timings": Bool()}
# wall-clock; whether the ILP proves optimality within its time limit depends on the machine's load
RUNTIME_TOL = {"seconds": IGNORE, "status": IGNORE, "loss": IGNORE}
# smoke runs leave the two-size ILP out: a solve takes 5-20 s at any n
SMOKE_PRUNINGS = ("timings=false", "mechanism=[two_size_none,two_size_loss,two_size_full]")


def _call(task):
    """ctx.map hands a worker one item: (library function, its arguments)."""
    fn, args = task
    return fn(*args)


def _table(cfg, ctx, table: str, dataset=None) -> bk.Table:
    """Table ``table`` (a key of sa_columns) of the configured data set (or of ``dataset``):
    CENSUS's coded columns as they are, or the ``columns`` a real-data twin maps, recoded."""
    if table not in cfg.sa_columns:
        raise PrivlabError(f"table must be one of {', '.join(cfg.sa_columns)}; got {table!r}")
    frame = ctx.dataset(cfg.dataset if dataset is None else dataset)
    frame, domains = (frame, SIZES) if cfg.columns is None else bk.recode(frame, cfg.columns)
    return bk.split_table(frame, cfg.sa_columns[table], domains)


def _data_kind(cfg) -> str:
    """ "synthetic" (the CENSUS-like generator), "paper" (a real CENSUS extract) or "other"
    (real data that is not the paper's: the ACS twins)."""
    if is_synthetic(**cfg.dataset):
        return "synthetic"
    return "paper" if cfg.dataset.name == "census" else "other"


NOT_PAPER_DATA = {
    "synthetic": "true by construction: the synthetic CENSUS-like generator is built to these published values",
    "other": "real ACS records, not the paper's CENSUS: the printed value describes CENSUS; shown side by side",
}


def _printed(cfg):
    """The printed entries the claims compare with. A real-data twin compares the paper's words
    with other data: its claims carry no ledger id (the ledger counts checks of what the paper
    printed about its own data; the twins are set beside them in the report's Synthetic vs real)."""
    if cfg.columns is None:
        return cfg.printed

    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "ledger"}
        return [strip(v) for v in node] if isinstance(node, list) else node

    return OmegaConf.create(strip(OmegaConf.to_container(cfg.printed)))


def _mapping(cfg) -> list:
    """The real-data twin's mapping of the paper's attributes to its columns, as an info row."""
    if cfg.columns is None or "mapping" not in cfg.printed:
        return []
    shown = ", ".join(f"{a} -> {c}" for a, c in cfg.columns.items())
    return [cl.info(cfg.printed.mapping, shown, note="the closest honest mapping, stated in the config")]


def _solver_errors(df, cfg, name: str, keys=("table", "theta")) -> str:
    """Where mechanism ``name`` (an ILP) failed to solve: "" or "table=OCC theta=8, ..."."""
    label = _label(cfg, name)
    bad = df[(df.method == label) & (df.status == "solver error")] if label else df.iloc[:0]
    return ", ".join(" ".join(f"{k}={r[k]}" for k in keys) for _, r in bad.iterrows())


SOLVER_NOTE = "the ILP failed to solve (solver error) at {}: this claim needs its values, so it is not decided"


def _label(cfg, name: str) -> str | None:
    spec = cfg.mechanism.get(name)
    return None if spec is None else spec.get("label", name)


def _wide(df, cfg, values: str, index=("table", "theta")) -> pd.DataFrame:
    """Column ``values`` by ``index``, one column per mechanism name."""
    names = {_label(cfg, name): name for name in cfg.mechanism}
    return df.pivot_table(index=list(index), columns="method", values=values).rename(columns=names)


# --- Figure 3: l needed for each theta ----------------------------------------------------
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
        sa = _table(cfg, ctx, table).sa
        rows += [{"table": table, **r} for r in bk.l_needed(np.bincount(sa) / sa.size, cfg.thetas, cfg.offset)]
    return pd.DataFrame(rows)


@fig3_l_vs_theta.claims
def _(df, cfg):
    out, kind, printed = _mapping(cfg), _data_kind(cfg), _printed(cfg)
    for table, g in df.groupby("table", sort=False):
        p, f = printed.get(table), (g.f_min.iloc[0], g.f_max.iloc[0])
        if p is None:
            continue
        if kind != "paper":
            why = NOT_PAPER_DATA[kind].replace("values", "frequencies")
            out.append(cl.info(p.frequencies, f"{f[0]:.4f} / {f[1]:.4f}", note=why))
        else:
            pairs = zip(("min", "max"), p.frequencies.value, f)
            out += [cl.printed_value(cl.each(p.frequencies, which, v), x) for which, v, x in pairs]
        out.append(cl.equal(p.eligible, sorted(g[g.eligible].theta.tolist())))
    return out


# --- Figures 4 and 5: MSE and RE ----------------------------------------------------------
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
    releases = [r for rs in ctx.map(_call, tasks, desc="releases") for r in rs]
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
    tables = {table: _table(cfg, ctx, table) for table in cfg.tables}
    return pd.DataFrame(
        {"table": table, "theta": theta, "method": label, **r.summary(tables[table].sa.size, cfg.timings)}
        for table, theta, label, r in _releases(cfg, ctx, tables, keep_ids=False)
    )


def _slightly_above(item, w, hi: str, lo: str, bound: float, tol: float):
    """``hi`` at most slightly above ``lo``: 0 <= hi - lo < bound wherever both are known."""
    d = (w[hi] - w[lo]).dropna()
    holds = bool(len(d) and (d >= -tol).all() and d.max() < bound)
    shown = f"{hi} - {lo} = {d.min():.4f}..{d.max():.4f} ({len(d)} of {len(w)} known)"
    return cl.statement(item, holds, reproduced=shown, rule=f"0 <= difference < {bound:g} everywhere")


@fig4_mse.claims
def _(df, cfg):
    p, c, w, out = _printed(cfg), cfg.claims, _wide(df, cfg, "mse"), _mapping(cfg)
    failed = _solver_errors(df, cfg, "optimal_multi_size")
    if {"anatomy", "two_size", "multi_size"} <= set(w):
        ratio = w.anatomy / w[["two_size", "multi_size"]].max(axis=1)
        shown = f"Anatomy / max(TwoSize, MultiSize) = {ratio.min():.2f}..{ratio.max():.2f}"
        out.append(cl.at_least(p.anatomy_higher, ratio.min(), c.anatomy_ratio, strict=True, reproduced=shown))
    if {"two_size", "multi_size"} <= set(w):
        out.append(_slightly_above(p.two_multi, w, "two_size", "multi_size", c.two_multi_gap, c.float_tol))
    if failed and _label(cfg, "multi_size"):
        out.append(cl.info(p.multi_opt, "not decided", note=SOLVER_NOTE.format(failed)))
    elif {"multi_size", "optimal_multi_size"} <= set(w):
        out.append(_slightly_above(p.multi_opt, w, "multi_size", "optimal_multi_size", c.multi_opt_gap, c.float_tol))
    if label := _label(cfg, "optimal_multi_size"):
        # the statement covers the paper's small domains: the tables it names (all when unnamed)
        ilp = df[(df.method == label) & df.table.isin(p.optimal_solves.get("tables") or df.table.unique())]
        timed = ilp[ilp.status != "optimal"]
        shown = ", ".join(f"{r.table} theta={r.theta}: {r.status}" for r in timed.itertuples()) or "all solved"
        if failed:
            out.append(cl.info(p.optimal_solves, shown, note=SOLVER_NOTE.format(failed)))
        else:
            out.append(
                cl.statement(p.optimal_solves, timed.empty, reproduced=shown, rule="every solve proves optimality")
            )
        if len(ilp) < len(df[df.method == label]):
            rest = df[(df.method == label) & ~df.index.isin(ilp.index)]
            shown = ", ".join(f"{r.table} theta={r.theta}: {r.status}" for r in rest.itertuples())
            out.append(
                cl.info(
                    p.optimal_large, shown, note="a domain larger than the paper's: its statement does not cover it"
                )
            )
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
    tables = {table: _table(cfg, ctx, table) for table in cfg.tables}
    # one pool per table, shared by every theta and method
    pool_args = [(t.qi, t.qi_sizes, t.sa, t.sa_size, cfg.n_queries, cfg.selectivity) for t in tables.values()]
    seeds = [ctx.seed_sequence(table, "pool") for table in tables]
    tasks = [(bk.make_query_pool, (*a, s)) for a, s in zip(pool_args, seeds)]
    pools = dict(zip(tables, ctx.map(_call, tasks, desc="query pools")))
    released = _releases(cfg, ctx, tables, keep_ids=True)
    # every release of a table is evaluated in one pass over its pool, in fixed-size chunks of
    # queries (so the work splits over workers without changing any number)
    starts, chunks = range(0, cfg.n_queries, cfg.query_chunk), {}
    for table, t in tables.items():
        ids = [r.bucket_ids for tb, *_, r in released if tb == table and r.bucket_ids is not None]
        for s in starts:
            chunks[table, s] = (bk.pool_relative_errors, (t.qi, t.sa, ids, pools[table].part(s, s + cfg.query_chunk)))
    parts = dict(zip(chunks, ctx.map(_call, list(chunks.values()), desc="queries")))
    errors = {tb: iter(map(np.concatenate, zip(*(parts[tb, s] for s in starts)))) for tb in tables}
    rows = []
    for table, theta, label, r in released:
        if r.checked is False:
            raise PrivlabError(f"{table} theta={theta} {label}: the release fails the F-privacy checker")
        e = next(errors[table]) if r.bucket_ids is not None else None
        stats = (np.nan,) * 3 if e is None else (e.mean(), mean_se(e), np.median(e))
        rows.append({"table": table, "theta": theta, "method": label, "status": r.plan.status})
        rows[-1].update(zip(("re", "re_se", "re_median"), map(float, stats)))
        rows[-1].update(queries=cfg.n_queries, redrawn=pools[table].redrawn)
    return pd.DataFrame(rows)


@fig5_re.claims
def _(df, cfg):
    p, c, w, out = _printed(cfg), cfg.claims, _wide(df, cfg, "re"), _mapping(cfg)
    if cols := [n for n in ("two_size", "multi_size") if n in w]:
        bound, frac = p.re_below.bound, float((w[cols] <= p.re_below.bound).mean().mean())
        shown = f"{frac:.0%} of (table, theta, method) cells <= {bound:.0%}; max {w.max().max():.3f}"
        out.append(cl.at_least(p.re_below, frac, c.most, reproduced=shown))
    if len(cols) < 2:
        return out
    for table, g in w.groupby(level="table"):
        item = cl.each(p.close, table, p.close["values"].get(table, "-"))
        if failed := _solver_errors(df[df.table == table], cfg, "optimal_multi_size"):
            out.append(cl.info(item, "not decided", note=SOLVER_NOTE.format(failed)))
            continue
        d1 = (g.two_size - g.multi_size).mean()
        d2 = (g.multi_size - g.optimal_multi_size).mean() if "optimal_multi_size" in g else np.nan
        holds = bool(abs(d1) < c.re_gap and (np.isnan(d2) or abs(d2) < c.re_gap))
        shown = f"mean TwoSize-MultiSize = {d1:+.3f}, MultiSize-Optimal = {d2:+.3f}"
        out.append(cl.statement(item, holds, reproduced=shown, rule=f"|mean differences| < {c.re_gap:g}"))
    return out


# --- Figure 7: scalability ----------------------------------------------------------------
def _timings(cfg, ctx, counts: np.ndarray) -> list[dict]:
    F = bk.fprivacy(counts / counts.sum(), cfg.theta, cfg.offset)
    rows = []
    for m in ctx.mechanisms(cfg.mechanism, kind="bucketing").values():
        p = bk.timed_plan(m.impl, counts, F, cfg.max_size, cfg.repeats)
        rows.append({"method": m.label, "seconds": p.seconds if cfg.timings else np.nan, "status": p.status})
        rows[-1]["loss"] = np.nan if p.loss is None else p.loss
    return rows


@experiment(
    artifact="Figure 7 (cardinality)",
    summary="Runtime of No-, Loss-, Full-pruning TwoSizeBucketing and the two-size ILP vs n (OCC)",
    keys=("n", "method"),
    tolerances=RUNTIME_TOL,
    figures={"fig7a_runtime_n": figures.runtime("n", "Figure 7: runtime vs n (OCC)")},
    params={**RUNTIME, "ns": List(Int(1, 500_000, limit="rows the generator draws")), "claims": {"flat_factor": POS}},
    smoke=("ns=[5000,10000]", *SMOKE_PRUNINGS),
)
def fig7a_runtime_n(cfg, ctx):
    rows = []
    for n in ctx.progress(cfg.ns, desc="n"):
        sa = _table(cfg, ctx, cfg.table, {**cfg.dataset, "n": n}).sa
        rows += [{"n": n, **r} for r in _timings(cfg, ctx, np.bincount(sa))]
    return pd.DataFrame(rows)


@experiment(
    artifact="Figure 7 (domain size)",
    summary="Runtime vs domain scale-up factor gamma (OCC, n = 500K)",
    keys=("gamma", "method"),
    tolerances=RUNTIME_TOL,
    figures={"fig7b_runtime_scaleup": figures.runtime("gamma", "Figure 7: runtime vs scale-up gamma (OCC)")},
    params={
        **RUNTIME,
        "gammas": List(Int(1, 1024, limit="domain size m * gamma")),
        "claims": {"grows_factor": POS, "little_factor": POS},
    },
    smoke=("dataset.n=10000", "gammas=[2]", *SMOKE_PRUNINGS),
)
def fig7b_runtime_scaleup(cfg, ctx):
    sa, rows = _table(cfg, ctx, cfg.table).sa, []
    for gamma in ctx.progress(cfg.gammas, desc="gamma"):
        o = np.bincount(bk.scale_up(sa, gamma, ctx.seed_sequence("scaleup", gamma)))
        rows += [{"gamma": gamma, "m": int(np.count_nonzero(o)), **r} for r in _timings(cfg, ctx, o)]
    return pd.DataFrame(rows)


def _trend(item, s: pd.Series, up: bool):
    """The last point's seconds above (``up``) or below the first's."""
    shown = f"{s.iloc[0]:.3f} s -> {s.iloc[-1]:.3f} s"
    holds = bool(s.iloc[-1] > s.iloc[0]) if up else bool(s.iloc[-1] < s.iloc[0])
    return cl.statement(item, holds, reproduced=shown, rule=f"{'slower' if up else 'faster'} at the last point")


def _runtime_claims(df, cfg, x: str) -> tuple[list, pd.DataFrame]:
    p, w = cfg.printed, _wide(df, cfg, "seconds", index=(x,))
    solved = df[df.status == "optimal"].groupby(x).loss.nunique()
    shown = f"distinct optimal losses per {x}: {sorted(set(solved))}"
    out = [cl.statement(p.same_optimum, bool((solved == 1).all()), reproduced=shown, rule=f"one loss per {x}")]
    if not cfg.timings:  # no seconds: the claims about them are left out
        out.append(cl.info("wall-clock claims", "not measured (timings=false)", note="timings=false: no times taken"))
    if {"two_size_none", "two_size_loss", "two_size_full"} <= set(w):
        full, ratio = w.two_size_full, w.two_size_none / w.two_size_full
        fastest = bool((full <= w[["two_size_none", "two_size_loss"]].min(axis=1)).all())
        shown = f"Full {full.max() * 1e3:.1f} ms max; No-pruning / Full = {ratio.min():.0f}x..{ratio.max():.0f}x"
        out.append(cl.statement(p.full_fastest, fastest, reproduced=shown, rule=f"fastest pruning mode at every {x}"))
    return out, w


@fig7a_runtime_n.claims
def _(df, cfg):
    (out, w), p = _runtime_claims(df, cfg, "n"), cfg.printed
    if "two_size_full" in w:
        full = w.two_size_full
        shown = f"{full.iloc[0] * 1e3:.1f} ms -> {full.iloc[-1] * 1e3:.1f} ms"
        ratio, k = full.iloc[-1] / full.iloc[0], cfg.claims.flat_factor
        out.append(cl.at_most(p.full_flat, ratio, k, strict=True, reproduced=shown))
    if "two_size_loss" in w:
        out.append(_trend(p.loss_grows, w.two_size_loss, up=True))
    if {"two_size_none", "two_size_loss", "two_size_full"} <= set(w):
        others = w[["two_size_loss", "two_size_full"]].max(axis=1)
        ratio = w.two_size_none / others
        shown = f"No-pruning / the slower of Loss- and Full-pruning = {ratio.min():.1f}x..{ratio.max():.1f}x"
        out.append(
            cl.statement(
                p.none_most,
                bool((w.two_size_none >= others).all()),
                reproduced=shown,
                rule="slowest pruning mode at every n",
            )
        )
    if (failed := _solver_errors(df, cfg, "optimal_two_size", ("n",))) and cfg.timings and "two_size_none" in w:
        out.append(cl.info(p.ilp_faster, "not decided", note=SOLVER_NOTE.format(failed)))
    elif {"optimal_two_size", "two_size_none"} <= set(w):
        ilp, none = w.optimal_two_size, w.two_size_none
        shown = f"ILP {ilp.min():.1f}..{ilp.max():.1f} s vs No-pruning {none.min():.2f}..{none.max():.2f} s"
        out.append(cl.statement(p.ilp_faster, bool((ilp < none).all()), reproduced=shown, rule="faster at every n"))
    return out


@fig7b_runtime_scaleup.claims
def _(df, cfg):
    (out, w), p, k = _runtime_claims(df, cfg, "gamma"), cfg.printed, cfg.claims.grows_factor
    ilp = df[df.method == _label(cfg, "optimal_two_size")].set_index("gamma")
    failed = _solver_errors(df, cfg, "optimal_two_size", ("gamma",))
    if len(ilp) and cfg.timings and failed:
        out.append(cl.info(p.ilp_grows, "not decided", note=SOLVER_NOTE.format(failed)))
    elif len(ilp) and cfg.timings:
        grows = bool(ilp.seconds.iloc[-1] > k * ilp.seconds.iloc[0] or (ilp.status == "timed out").any())
        shown = ", ".join(f"gamma={g}: {r.seconds:.1f} s ({r.status})" for g, r in ilp.iterrows())
        out.append(cl.statement(p.ilp_grows, grows, reproduced=shown, rule=f"last > {k:g}x first, or a time-out"))
    if "two_size_none" in w:
        out.append(_trend(p.none_faster, w.two_size_none, up=False))
    if cfg.timings and {"two_size_loss", "two_size_full"} <= set(w):
        ratio = float(
            (w[["two_size_loss", "two_size_full"]].iloc[-1] / w[["two_size_loss", "two_size_full"]].iloc[0]).max()
        )
        shown = f"last / first gamma: Loss-pruning {w.two_size_loss.iloc[-1] / w.two_size_loss.iloc[0]:.1f}x, "
        shown += f"Full-pruning {w.two_size_full.iloc[-1] / w.two_size_full.iloc[0]:.1f}x"
        out.append(cl.at_most(p.others_little, ratio, cfg.claims.little_factor, reproduced=shown))
    if len(ilp):
        first = ilp.index[ilp.status == "timed out"]
        shown = f"first time-out at gamma = {first[0]}" if len(first) else "never in this grid"
        out.append(cl.info(p.ilp_limit, shown + (f"; solver error at {failed}" if failed else "")))
    return out


# --- Section 2.1: differential inference --------------------------------------------------
@experiment(
    artifact="Section 2.1 (Theorem 2)",
    summary="Noisy ratio a2~/a1~ under Laplace(1/eps): Monte Carlo median, trimmed mean and "
    "Pr[a1~ <= 0] vs the delta-method approximation",
    keys=("a1", "ratio", "epsilon"),
    tolerances={
        "median": Tolerance(se="median_se", k=5),
        "trimmed_mean": Tolerance(se="trimmed_se", k=5),
        "p_nonpos": Tolerance(se="p_nonpos_se", k=5, atol=1e-9),
        "median_se": Tolerance(rtol=0.2),
        "trimmed_se": Tolerance(rtol=0.2),
        "p_nonpos_se": Tolerance(rtol=1.0, atol=1e-6),
    },
    figures={"diffinf": figures.diffinf},
    params={
        **{key: List(POS) for key in ("a1s", "ratios", "epsilons")},
        "samples": Int(1, 10**8, limit="samples held in memory"),
        "trim": Real(0, 0.5, high_open=True),
        "large_a1": POS,
        "claims": {"close_rel": POS, "z_trimmed": POS, "z_max": POS},
    },
    smoke=("samples=2000",),
)
def diffinf(cfg, ctx):
    grid = [(a1, r, e) for a1 in cfg.a1s for r in cfg.ratios for e in cfg.epsilons]
    args = [(float(a1), float(r), float(e), cfg.samples, cfg.trim, ctx.seed_sequence(a1, r, e)) for a1, r, e in grid]
    return pd.DataFrame(ctx.map(_call, [(bk.ratio_summary, a) for a in args], desc="diffinf"))


@diffinf.claims
def _(df, cfg):
    p, c, f, out = cfg.printed, cfg.claims, cfg.printed.factors, []
    for a1, printed in f["values"].items():
        row = df[(df.a1 == float(a1)) & np.isclose(df.epsilon, f.epsilon)]
        if len(row):
            out.append(cl.printed_value(cl.each(f, f"a1 = {a1}", printed), row.factor.iloc[0]))
    if len(big := df[df.a1 >= cfg.large_a1]):
        rel = float(((big["median"] - big.ratio).abs() / big.ratio).max())
        shown = f"a1 >= {cfg.large_a1:g}: max |median - a2/a1| / (a2/a1) = {rel:.4f}"
        out.append(cl.at_most(p.close, rel, c.close_rel, strict=True, reproduced=shown))
        out.append(cl.within_se(p.trimmed, big.trimmed_mean, big.approx_mean, big.trimmed_se, k=c.z_trimmed))
    return [*out, cl.within_se(p.nonpositive, df.p_nonpos, df.p_nonpos_exact, df.p_nonpos_se, k=c.z_max)]


# --- Section 6: fake values against corruption -------------------------------------------
@experiment(
    artifact="Section 6",
    summary="Corruption attack on uniform-F bucketizations: adversary success vs corrupted records "
    "per bucket with 0/1/2 fake values (Monte Carlo vs exact), and the RE cost of fakes",
    keys=("l", "fakes", "corrupted"),
    tolerances={"success": Tolerance(se="success_se", k=5), "re": Tolerance(se="re_se", k=5)},
    figures={"corruption": figures.corruption},
    params={
        **CENSUS,
        **POOL,
        "table": Str(),
        "ls": List(Int(1, 1000, limit="the SA domain size"), unique=True),
        "fakes": List(Int(0, 1000, limit="the SA domain size"), unique=True),
        "claims": {"z_max": POS},
    },
    smoke=("dataset.n=3000", "n_queries=50", "ls=[4]"),
)
def corruption(cfg, ctx):
    t, rows = _table(cfg, ctx, cfg.table), []
    pool = bk.make_query_pool(
        t.qi, t.qi_sizes, t.sa, t.sa_size, cfg.n_queries, cfg.selectivity, ctx.seed_sequence("pool")
    )
    for l in cfg.ls:
        F = np.full(t.sa_size, 1.0 / l)
        s = bk.two_size(np.bincount(t.sa, minlength=t.sa_size), F, cfg.max_size)
        if s is None:
            raise PrivlabError(f"ls: no bucket setting with sizes <= max_size = {cfg.max_size} is {l}-diverse")
        bid = bk.bucketize(t.sa, F, s, seed=ctx.seed_sequence("bucketize", l))
        if not bk.check_bucketization(t.sa, bid, F).ok:
            raise PrivlabError(f"l={l}: the bucketization fails the F-privacy checker")
        sts = {k: bk.add_fake_values(t.sa, bid, k, t.sa_size, seed=ctx.seed_sequence("fakes", l, k)) for k in cfg.fakes}
        errors = bk.pool_relative_errors(t.qi, t.sa, [(bid, b, v) for b, v, _ in sts.values()], pool)
        for (k, (st_bucket, st_value, _)), err in zip(sts.items(), errors):
            for c in range(l):
                seed = ctx.seed_sequence("attack", l, k, c)
                rows.append({"l": l, "setting": str(s), "fakes": k, "corrupted": c})
                rows[-1].update(bk.corruption_trial(t.sa, bid, st_bucket, st_value, c, k, seed=seed))
                rows[-1].update(formula_l=bk.corruption_certainty(l, c, k), re=float(err.mean()), re_se=mean_se(err))
    return pd.DataFrame(rows)


@corruption.claims
def _(df, cfg):
    p, z = cfg.printed, cfg.claims.z_max
    out = [cl.within_se(p.success, df.success, df.exact, df.success_se, k=z, printed=p.success.value)]
    sizes = {l: {int(x) for x in re.findall(r"\((\d+), \d+\)", g.setting.iloc[0])} for l, g in df.groupby("l")}
    shown = "; ".join(f"l = {l}: sizes {sorted(v)}" for l, v in sizes.items())
    holds = all(v <= {l, l + 1} for l, v in sizes.items())
    out.append(cl.statement(p.sizes, holds, reproduced=shown, rule="every bucket size is l or l + 1"))
    found = {l: bk.uniform_sizes(l, l * l) for l in sizes}  # tables too small for sizes l, l+1 alone
    shown = "; ".join(f"l = {l}: {f[0]} distinct values -> {f[1]}" if f else f"l = {l}: none" for l, f in found.items())
    rule = "no l-eligible table of n <= l^2 records gets another size"
    out.append(cl.statement(p.sizes_all, all(f is None for f in found.values()), reproduced=shown, rule=rule))
    for l, g in df.groupby("l"):
        last, errors = g[g.corrupted == l - 1], g.groupby("fakes").re.first()
        shown = ", ".join(f"k={r.fakes}: {r.success:.3f}" for r in last.itertuples())
        item = cl.each(p.last, f"l = {l}", p.last.value)
        out.append(
            cl.within_se(item, last.success, 1 / (1 + last.fakes), last.success_se, k=z, printed=None, detail=shown)
        )
        shown = ", ".join(f"k={k}: {v:.3f}" for k, v in errors.items())
        out.append(cl.monotone(cl.each(p.cost, f"l = {l}", p.cost.value), errors.to_numpy(), reproduced=shown))
    return out


# --- Figure 2 and Table 5: the data -------------------------------------------------------
@experiment(
    artifact="Figure 2",
    summary="Frequency of every sensitive value of the OCC and EDU tables, most frequent first",
    keys=("table", "rank"),
    figures={"fig2_sa_frequencies": figures.sa_frequencies},
    params={**CENSUS, "tables": List(Str(), unique=True), "claims": {"skew_ratio": POS}},
    smoke=("tables=[EDU]",),
)
def fig2_sa_frequencies(cfg, ctx):
    frames = [bk.frequency_table(_table(cfg, ctx, table).sa).assign(table=table) for table in cfg.tables]
    return pd.concat(frames, ignore_index=True)[["table", "rank", "value", "count", "frequency"]]


@fig2_sa_frequencies.claims
def _(df, cfg):
    out, kind, printed = _mapping(cfg), _data_kind(cfg), _printed(cfg)
    for table, g in df.groupby("table", sort=False):
        if (p := printed.get(table)) is None:
            continue
        f = (g.frequency.min(), g.frequency.max())
        for which, v, x in zip(("min", "max"), p.frequencies.value, f):
            item = cl.each(p.frequencies, which, v)
            out.append(
                cl.printed_value(item, x) if kind == "paper" else cl.info(item, f"{x:.4f}", note=NOT_PAPER_DATA[kind])
            )
        shown = f"max / min frequency = {f[1] / f[0]:.1f} over {len(g)} values of {int(g['count'].sum()):,} records"
        skew = cl.at_least(p.skewed, f[1] / f[0], cfg.claims.skew_ratio, reproduced=shown)
        out.append(skew if kind != "synthetic" else cl.info(p.skewed, shown, note=NOT_PAPER_DATA[kind]))
        if "max_l" in p:  # Section 1.2: the largest eligible l is floor(1 / f_max)
            out.append(cl.info(p.max_l, f"l = {int(np.floor(1 / f[1] + 1e-12))}", note=p.max_l.note))
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
    p, kind, out = _printed(cfg), _data_kind(cfg), _mapping(cfg)
    pairs = [
        (cl.each(p.domains, r.attribute, p.domains["values"].get(r.attribute, "-")), r.domain) for r in df.itertuples()
    ]
    for item, x in [*pairs, (p.attributes, len(df)), (p.records, int(df.records.iloc[0]))]:
        out.append(cl.equal(item, x) if kind == "paper" else cl.info(item, x, note=NOT_PAPER_DATA[kind]))
    return out


# --- worked examples ----------------------------------------------------------------------
TARGET = {"target": MapOf(Str())}  # the adversary's target, by its QI values
INSTANCE = {  # a worked example's table (per-value counts and F) and its bucket setting
    "counts": List(Int(0, 10**6, limit="records of a worked example")),
    "F": List(Real(0, 1, low_open=True)),
    "setting": {"sizes": List(Int(1, 1000)), "counts": List(Int(0, 10**6))},
}


def _instance(cfg) -> tuple[np.ndarray, np.ndarray, bk.BucketSetting]:
    if len(cfg.counts) != len(cfg.F):
        raise PrivlabError(f"counts and F must have one entry per value, got {len(cfg.counts)} and {len(cfg.F)}")
    return (
        np.asarray(cfg.counts),
        np.asarray(cfg.F, dtype=float),
        bk.BucketSetting(cfg.setting.sizes, cfg.setting.counts),
    )


@experiment(
    artifact="Table 1 (Example 1)",
    summary="Table 1's records and Example 1's count queries q1 (the target's QI) and q2 (and its disease)",
    keys=("row",),
    params={**TARGET, "sensitive": MapOf(Str())},
)
def table1_example1(cfg, ctx):
    t = bk.table1()
    queries = {"q1": dict(cfg.target), "q2": {**cfg.target, **cfg.sensitive}}
    rows = t.assign(row=np.arange(1, len(t) + 1))
    for name, where in queries.items():
        rows[name] = [bk.count_query(t.iloc[[i]], where) for i in range(len(t))]
    return rows[["row", *t.columns, *queries]]


@table1_example1.claims
def _(df, cfg):
    p, x, y = cfg.printed, int(df.q1.sum()), int(df.q2.sum())
    shown = f"{x} visible record(s) match the target's QI"
    out = [cl.statement(p.alice, x >= 1, reproduced=shown, rule="at least one record matches")]
    return [*out, cl.info(p.answers, f"x = {x}, y = {y} on the visible rows: y/x = {y / x:g}", note=p.answers.note)]


@experiment(
    artifact="Table 2 (Example 3.5)",
    summary="Table 2's QIT and ST from Table 1 and the printed bucket ids, and Example 3.5's inference",
    keys=("BID", "Disease"),
    params=TARGET,
)
def table2_example35(cfg, ctx):
    qit, st = bk.bucket_tables(bk.table1(), "Disease", [row[2] for row in cfg.printed.qit.value])
    pr = bk.target_inference(qit, st, dict(cfg.target)).rename(columns={"value": "Disease", "pr": "pr_target"})
    shown = {b: "; ".join(f"{r.Gender} {r.Zipcode}" for r in g.itertuples()) for b, g in qit.groupby("BID")}
    out = st.merge(pr, on=["BID", "Disease"], how="left")
    return out.assign(qit=out.BID.map(shown))


@table2_example35.claims
def _(df, cfg):
    p, t = cfg.printed, bk.table1()
    ours = [f"{g} {z} {row[2]}" for g, z, row in zip(t.Gender, t.Zipcode, p.qit.value)]
    out = [cl.equal(p.qit, ours, printed=[" ".join(map(str, row)) for row in p.qit.value])]
    target = df[df.pr_target.notna()]
    out.append(cl.equal(p.bucket_values, {r.Disease: int(r.Count) for r in target.itertuples()}))
    shown = ", ".join(f"Pr({r.Disease}) = {r.pr_target:g} in bucket {r.BID}" for r in target.itertuples())
    return [*out, cl.info(p.pr, shown, note=p.pr.note)]


@experiment(
    artifact="Remark 3.12",
    summary="Feasible two-size bucket settings for Table 4's cardinalities, and the (n, sizes) nearest 2,077,869",
    keys=("kind", "n", "low", "high"),
    params={
        "ns": List(Int(1, 10**7, limit="records")),
        "ranges": List(List(Int(1, 300), min_len=2, max_len=2)),
        "search_high": Int(2, 300, limit="size pairs enumerated per n"),
    },
    smoke=("ns=[100000,300000]", "search_high=20"),
)
def remark312_count(cfg, ctx):
    target = int(cfg.printed.count.value)
    rows = [
        {"n": n, "low": lo, "high": hi, "count": bk.count_settings(n, lo, hi)} for n in cfg.ns for lo, hi in cfg.ranges
    ]
    near = bk.search_setting_count(target, cfg.ns, cfg.search_high).drop(columns="diff").assign(kind="nearest")
    out = pd.concat([pd.DataFrame(rows).assign(kind="candidate"), near], ignore_index=True)
    return out[["kind", "n", "low", "high", "count"]].assign(diff=out["count"] - target)


@remark312_count.claims
def _(df, cfg):
    p, near, cand = cfg.printed, df[df.kind == "nearest"], df[df.kind == "candidate"]
    best = near.iloc[0]
    shown = f"nearest: n = {best.n:,}, sizes {best.low}..{best.high}: {best['count']:,} ({best['diff']:+,})"
    grid = f"n in {sorted(set(near.n))}, 1 <= low < high <= {cfg.search_high}"
    out = [
        cl.statement(p.count, bool((near["diff"] == 0).any()), reproduced=shown, rule=f"some (n, range) with {grid}")
    ]
    for (lo, hi), g in cand.groupby(["low", "high"], sort=False):
        item = cl.each(p.larger, f"sizes {lo}..{hi}, n = {', '.join(f'{n:,}' for n in g.n)}", p.larger.value)
        out.append(cl.monotone(item, g["count"].to_numpy()))
    d = p.default
    hit = cand[(cand.n == d.n) & (cand.low == d.low) & (cand.high == d.high)]
    return [*out, *(cl.info(d, f"{int(c):,}", note=d.note) for c in hit["count"])]


@experiment(
    artifact="Example 4.20 (Figure 1)",
    summary="Record partition and round-robin assignment of Example 4.20 (instance rebuilt: the seed lost its numbers)",
    keys=("value",),
    figures={"fig1_record_assignment": figures.record_assignment},
    params=INSTANCE,
)
def example420_partition(cfg, ctx):
    o, F, s = _instance(cfg)
    x = bk.record_partition(o, F, s)  # the algorithm the experiments use, beside the paper's steps
    sa = np.repeat(np.arange(o.size), o)
    report = bk.check_bucketization(sa, bk.bucketize(sa, F, s, seed=ctx.seed_sequence("example420")), F)
    sizes = "; ".join(f"{v} x {k}" for k, v in report.size_histogram.items())
    setting = dict(S1=s.sizes[0], b1=s.counts[0], S2=s.sizes[1], b2=s.counts[1])
    return bk.partition_steps(o, F, s).assign(t1_algorithm=x[:, 0], **setting, checker=report.ok, bucket_sizes=sizes)


@example420_partition.claims
def _(df, cfg):
    p, r = cfg.printed, df.iloc[0]
    n, cap1, cap2 = int(df.o.sum()), int(r.S1 * r.b1), int(r.S2 * r.b2)
    rules = {"PC": bool((df.o <= df.u1 + df.u2).all()), "FC": bool(df.l1.sum() >= cap1 and df.l2.sum() >= cap2)}
    rules["CC"] = n == cap1 + cap2
    moved = ", ".join(f"{v}: {m}" for v, m in zip(df.value, df.moved) if m)
    out = [cl.equal(p.records, n), cl.equal(p.t1_initial, int(df.t1_initial.sum())), cl.equal(p.capacity, cap1)]
    out.append(cl.equal(p.moved, int(df.moved.sum())))
    out.append(cl.statement(p.one_each, bool(df.moved.max() == 1), reproduced=moved, rule="one record per value moves"))
    shown = ", ".join(f"{k} {'holds' if v else 'fails'}" for k, v in rules.items())
    out.append(cl.statement(p.valid, all(rules.values()), reproduced=shown, rule="PC, FC and CC hold"))
    shown = f"T1 per value: the paper's steps {df.t1.tolist()}, record_partition {df.t1_algorithm.tolist()}"
    out.append(cl.statement(p.algorithm, bool((df.t1 == df.t1_algorithm).all()), reproduced=shown, rule="equal"))
    shown = f"checker {'passed' if r.checker else 'FAILED'}; buckets: {r.bucket_sizes}"
    return [*out, cl.statement(p.rra, bool(r.checker), reproduced=shown, rule="F-privacy holds in every bucket")]


@experiment(
    artifact="Example 5.23",
    summary="The list L of feasible (b1, b2) of a size pair, from its closed form and by enumeration",
    keys=("k",),
    params={"n": Int(1, 10**6, limit="pairs listed"), "sizes": List(Int(1, 1000), min_len=2, max_len=2)},
)
def example523_pair_list(cfg, ctx):
    (s1, s2), n = cfg.sizes, cfg.n
    b1, b2, K, step1, step2 = bk.pair_list(n, s1, s2)
    df = pd.DataFrame({"k": range(K + 1), "b1": [b1 - k * step1 for k in range(K + 1)]})
    df["b2"] = [b2 + k * step2 for k in range(K + 1)]
    by_search = [f"({a}, {(n - a * s1) // s2})" for a in range(n // s1, -1, -1) if (n - a * s1) % s2 == 0]
    return df.assign(loss=n - df.b1 - df.b2, enumerated=by_search + [""] * (len(df) - len(by_search)))


@example523_pair_list.claims
def _(df, cfg):
    p = cfg.printed
    out = [cl.equal(p.list, [f"({a}, {b})" for a, b in zip(df.b1, df.b2)])]
    out.append(cl.equal(p.enumerated, [e for e in df.enumerated if e], printed=p.list.value))
    return [*out, cl.monotone(p.loss_grows, df.loss.to_numpy())]


@experiment(
    artifact="Example 5.32",
    summary="A three-size setting that passes the per-size extension of Theorem 4.17 yet has no valid assignment "
    "(instance rebuilt: the seed lost its numbers)",
    keys=("value",),
    params=INSTANCE,
)
def example532_three_sizes(cfg, ctx):
    o, F, s = _instance(cfg)
    u = bk.caps(F, s.sizes) * np.asarray(s.counts)
    df = pd.DataFrame({"value": [f"x{i + 1}" for i in range(o.size)], "o": o, "F": F})
    df[[f"u{j + 1}" for j in range(len(s.sizes))]] = u
    stranded, capacity, values = bk.stranded_records(o, F, s)
    checks = dict(naive=bk.naive_check(o, F, s), exact=bk.is_valid(o, F, s))
    return df.assign(setting=str(s), stranded=stranded, capacity=capacity, stranded_values=values, **checks)


@example532_three_sizes.claims
def _(df, cfg):
    p, r = cfg.printed, df.iloc[0]
    out = [cl.equal(p.n_values, len(df)), cl.equal(p.stranded, [int(r.stranded), int(r.capacity)])]
    shown = f"{r.setting}: the per-size PC, FC and CC {'hold' if r.naive else 'fail'}"
    out.append(cl.statement(p.extended, bool(r.naive), reproduced=shown, rule="all hold"))
    shown = f"exact check (cut conditions): {'valid' if r.exact else 'no valid assignment'}; "
    shown += f"{r.stranded_values} fit only the largest size"
    return [*out, cl.statement(p.invalid, not bool(r.exact), reproduced=shown, rule="no valid assignment exists")]


# --- the displayed formulas ---------------------------------------------------------------
@experiment(
    artifact="Formulas",
    summary="Every displayed formula (printed, or reconstructed where the seed lost it) against an independent "
    "derivation: sympy, or a grid against the defining conditions",
    keys=("case",),
    params={"cases": List(Choice(*bk.FORMULA_CASES), unique=True)},
    smoke=("cases=[theorem2_mean,lemma413_cond4]",),
)
def formulas(cfg, ctx):
    missing = [case for case in cfg.cases if case not in cfg.printed.formulas]
    if missing:
        raise PrivlabError(f"cases: no printed formula under printed.formulas for {', '.join(missing)}")
    return pd.DataFrame([vars(bk.check_formula(c, str(cfg.printed.formulas[c].value))) for c in cfg.cases])


@formulas.claims
def _(df, cfg):
    out = []
    for r in df.itertuples():
        shown, rule = f"{r.derived}; {r.instance}", f"the same formula ({r.method})"
        out.append(cl.statement(cfg.printed.formulas[r.case], bool(r.match), reproduced=shown, rule=rule))
    return out


# --- real-data twins on ACS (the mapping: conf/experiment/bucketization/*_acs.yaml) ---------
fig2_sa_frequencies.twin("fig2_sa_frequencies_acs")
table5_attributes.twin("table5_attributes_acs")
fig3_l_vs_theta.twin("fig3_l_vs_theta_acs")
fig4_mse.twin("fig4_mse_acs")
fig5_re.twin("fig5_re_acs")
