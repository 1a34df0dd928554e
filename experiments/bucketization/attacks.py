"""The inferences: Section 2.1's differential inference (the noisy ratio of Laplace counts) and
Section 6's fake values against the corruption attack."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from privlab import PrivlabError
from privlab import bucketization as bk
from privlab import claims as cl
from privlab.bucketization import figures
from privlab.params import Int, List, Real, Str
from privlab.registry import Tolerance, experiment
from privlab.stats import mean_se

from ._common import CENSUS, POOL, POS, call, table_of


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
    return pd.DataFrame(ctx.map(call, [(bk.ratio_summary, a) for a in args], desc="diffinf"))


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
    t, rows = table_of(cfg, ctx, cfg.table), []
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
