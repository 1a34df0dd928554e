"""Bucketization paper (seed 000): F-privacy with buckets of several sizes on CENSUS-like OCC and
EDU tables (Figures 3-5, 7), Section 2.1's differential inference and Section 6's fake values
against corruption.

The science lives in `privlab.bucketization`, the mechanisms compared in ``conf/mechanism/``
(kind ``bucketing``), the paper's printed values and statements in the ``printed:`` blocks of
``conf/experiment/bucketization/``. Tables name a mechanism by its label (``TwoSize``), claims
by its config name (``two_size``), and skip what a run without that mechanism cannot check.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import PrivlabError
from privlab import bucketization as bk
from privlab import claims as cl
from privlab.bucketization import figures
from privlab.datasets import is_synthetic
from privlab.datasets.census import SIZES
from privlab.params import Bool, Int, List, MapOf, Real, Str
from privlab.registry import IGNORE, Paper, Tolerance, experiment
from privlab.stats import mean_se

PAPER = Paper(
    "Wang, Wang, Fu, Wong - Inferential or Differential: Privacy Laws Dictate", seed="000_b477ba34304addb4.txt"
)

POS = Real(0, low_open=True)
CENSUS = {"sa_columns": MapOf(Str()), "offset": Real(0), "max_size": Int(1, 1000, limit="size pairs scanned")}
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
    """Table ``table`` (a key of sa_columns) of the configured data set (or of ``dataset``)."""
    if table not in cfg.sa_columns:
        raise PrivlabError(f"table must be one of {', '.join(cfg.sa_columns)}; got {table!r}")
    return bk.split_table(ctx.dataset(cfg.dataset if dataset is None else dataset), cfg.sa_columns[table], SIZES)


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
    smoke=("dataset.n=20000",),
)
def fig3_l_vs_theta(cfg, ctx):
    rows = []
    for table in cfg.tables:
        sa = _table(cfg, ctx, table).sa
        rows += [{"table": table, **r} for r in bk.l_needed(np.bincount(sa) / sa.size, cfg.thetas, cfg.offset)]
    return pd.DataFrame(rows)


@fig3_l_vs_theta.claims
def _(df, cfg):
    out, synthetic = [], is_synthetic(**cfg.dataset)
    for table, g in df.groupby("table", sort=False):
        p, f = cfg.printed.get(table), (g.f_min.iloc[0], g.f_max.iloc[0])
        if p is None:
            continue
        if synthetic:
            why = "true by construction: the synthetic CENSUS-like generator is built to these published frequencies"
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
    smoke=("dataset.n=3000", "thetas=[4,32]", "timings=false"),
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
    p, c, w, out = cfg.printed, cfg.claims, _wide(df, cfg, "mse"), []
    if {"anatomy", "two_size", "multi_size"} <= set(w):
        ratio = w.anatomy / w[["two_size", "multi_size"]].max(axis=1)
        shown = f"Anatomy / max(TwoSize, MultiSize) = {ratio.min():.2f}..{ratio.max():.2f}"
        out.append(cl.at_least(p.anatomy_higher, ratio.min(), c.anatomy_ratio, strict=True, reproduced=shown))
    if {"two_size", "multi_size"} <= set(w):
        out.append(_slightly_above(p.two_multi, w, "two_size", "multi_size", c.two_multi_gap, c.float_tol))
    if {"multi_size", "optimal_multi_size"} <= set(w):
        out.append(_slightly_above(p.multi_opt, w, "multi_size", "optimal_multi_size", c.multi_opt_gap, c.float_tol))
    if _label(cfg, "optimal_multi_size"):
        timed = df[(df.method == _label(cfg, "optimal_multi_size")) & (df.status != "optimal")]
        shown = ", ".join(f"{r.table} theta={r.theta}: {r.status}" for r in timed.itertuples()) or "all solved"
        out.append(cl.statement(p.optimal_solves, timed.empty, reproduced=shown, rule="every solve proves optimality"))
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
    smoke=("dataset.n=3000", "thetas=[4]", "n_queries=200", "query_chunk=100"),
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
    p, c, w, out = cfg.printed, cfg.claims, _wide(df, cfg, "re"), []
    if cols := [n for n in ("two_size", "multi_size") if n in w]:
        bound, frac = p.re_below.bound, float((w[cols] <= p.re_below.bound).mean().mean())
        shown = f"{frac:.0%} of (table, theta, method) cells <= {bound:.0%}; max {w.max().max():.3f}"
        out.append(cl.at_least(p.re_below, frac, c.most, reproduced=shown))
    if len(cols) < 2:
        return out
    for table, g in w.groupby(level="table"):
        d1 = (g.two_size - g.multi_size).mean()
        d2 = (g.multi_size - g.optimal_multi_size).mean() if "optimal_multi_size" in g else np.nan
        holds = bool(abs(d1) < c.re_gap and (np.isnan(d2) or abs(d2) < c.re_gap))
        shown = f"mean TwoSize-MultiSize = {d1:+.3f}, MultiSize-Optimal = {d2:+.3f}"
        item = cl.each(p.close, table, p.close["values"].get(table, "-"))
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
    params={**RUNTIME, "gammas": List(Int(1, 1024, limit="domain size m * gamma")), "claims": {"grows_factor": POS}},
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
    if {"optimal_two_size", "two_size_none"} <= set(w):
        ilp, none = w.optimal_two_size, w.two_size_none
        shown = f"ILP {ilp.min():.1f}..{ilp.max():.1f} s vs No-pruning {none.min():.2f}..{none.max():.2f} s"
        out.append(cl.statement(p.ilp_faster, bool((ilp < none).all()), reproduced=shown, rule="faster at every n"))
    return out


@fig7b_runtime_scaleup.claims
def _(df, cfg):
    (out, w), p, k = _runtime_claims(df, cfg, "gamma"), cfg.printed, cfg.claims.grows_factor
    ilp = df[df.method == _label(cfg, "optimal_two_size")].set_index("gamma")
    if len(ilp) and cfg.timings:
        grows = bool(ilp.seconds.iloc[-1] > k * ilp.seconds.iloc[0] or (ilp.status != "optimal").any())
        shown = ", ".join(f"gamma={g}: {r.seconds:.1f} s ({r.status})" for g, r in ilp.iterrows())
        out.append(cl.statement(p.ilp_grows, grows, reproduced=shown, rule=f"last > {k:g}x first, or a time-out"))
    if "two_size_none" in w:
        out.append(_trend(p.none_faster, w.two_size_none, up=False))
    if len(ilp):
        first = ilp.index[ilp.status != "optimal"]
        out.append(
            cl.info(p.ilp_limit, f"first time-out at gamma = {first[0]}" if len(first) else "never in this grid")
        )
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
        for (k, (st_bucket, st_value, _)), re in zip(sts.items(), errors):
            for c in range(l):
                seed = ctx.seed_sequence("attack", l, k, c)
                rows.append({"l": l, "setting": str(s), "fakes": k, "corrupted": c})
                rows[-1].update(bk.corruption_trial(t.sa, bid, st_bucket, st_value, c, k, seed=seed))
                rows[-1].update(formula_l=bk.corruption_certainty(l, c, k), re=float(re.mean()), re_se=mean_se(re))
    return pd.DataFrame(rows)


@corruption.claims
def _(df, cfg):
    p, z = cfg.printed, cfg.claims.z_max
    out = [cl.within_se(p.success, df.success, df.exact, df.success_se, k=z, printed=p.success.value)]
    for l, g in df.groupby("l"):
        last, re = g[g.corrupted == l - 1], g.groupby("fakes").re.first()
        shown = ", ".join(f"k={r.fakes}: {r.success:.3f}" for r in last.itertuples())
        item = cl.each(p.last, f"l = {l}", p.last.value)
        out.append(
            cl.within_se(item, last.success, 1 / (1 + last.fakes), last.success_se, k=z, printed=None, detail=shown)
        )
        shown = ", ".join(f"k={k}: {v:.3f}" for k, v in re.items())
        out.append(cl.monotone(cl.each(p.cost, f"l = {l}", p.cost.value), re.to_numpy(), reproduced=shown))
    return out
