"""Figure 7 (pooling independent copies leaks, multi-pert's do not) and Figure 8 (the overhead of
multi-pert's history store against the naive store of all copies)."""

from __future__ import annotations

import math

import pandas as pd

from privlab import claims as cl
from privlab import multilevel as ml
from privlab.multilevel import figures
from privlab.params import Bool, Int, List, Real
from privlab.registry import IGNORE, experiment

from ._common import POS, max_z, mc_tol


@experiment(
    artifact="Figure 7",
    summary="Adversary's expected confidence in the true value vs number of pooled copies, for every configured "
    "scheme (independent uni-pert copies vs multi-pert copies at the same p's), exact and MC",
    keys=("scheme", "k"),
    tolerances=mc_tol(mc="mc_se"),
    figures={"fig7_independent": figures.independent},
    params={
        "domain_size": Int(2, 10**4, limit="chunk x s likelihoods held in memory"),
        "pooled_ps": List(Real(0, 1, low_open=True, high_open=True), max_len=ml.MAX_EXACT_COPIES),
        "trials": Int(1, 10**10, limit="simulated tuples"),
        "chunk": Int(1, 10**6, limit="tuples per chunk held in memory"),
        "claims": {"min_gain": Real(0), "z_max": POS},
    },
    smoke=("trials=20000", "chunk=5000"),
)
def fig7_independent(cfg, ctx):
    mechs = ctx.mechanisms(cfg.mechanism, kind="perturbation")
    ps, s, trials = [float(p) for p in cfg.pooled_ps], cfg.domain_size, cfg.trials
    schemes = [m.impl for m in mechs.values()]
    seed = ctx.seed_sequence("fig7")  # chunk c: its child c; X from the chunk's child 0, scheme j from 1 + j
    mean, se = ml.confidence_curves(schemes, ps, s, trials, chunk=cfg.chunk, seed=seed, map=ctx.map)
    rows = []
    for j, m in enumerate(mechs.values()):
        for k in range(1, len(ps) + 1):
            exact = m.impl.expected_confidence(ps[:k], s)
            rows.append({"scheme": m.label, "k": k, "p_k": ps[k - 1], "best_p": max(ps[:k]), "exact": exact})
            rows[-1].update(mc=mean[j, k - 1], mc_se=se[j, k - 1], trials=trials)
    return pd.DataFrame(rows)


@fig7_independent.claims
def _(df, cfg):
    p, c, hiv = cfg.printed, cfg.claims, cfg.printed.hiv
    kmax, out = int(df.k.max()), []
    by = {label: g.set_index("k") for label, g in df.groupby("scheme", sort=False)}
    label = {name: m.label for name, m in cfg.mechanism.items()}  # the statements name mechanisms
    if label.get(p.leaks.mechanism) in by:
        g = by[label[p.leaks.mechanism]]
        best = ml.expected_confidence_single(g.best_p[kmax], cfg.domain_size)
        shown = f"k={kmax}: {g.exact[kmax]:.3f} vs best copy {best:.3f}"
        out.append(cl.at_least(p.leaks, g.exact[kmax] - best, c.min_gain, strict=True, reproduced=shown))
    if label.get(p.no_gain.mechanism) in by:
        g = by[label[p.no_gain.mechanism]]
        z = max_z(g.mc, g.exact, g.mc_se)
        out.append(cl.info(p.no_gain, f"MC within {z:.2f} SE of the best copy's exact value at every k"))
    both = ml.independent_all_other(hiv.retention, hiv.domain_size)
    out.append(cl.at_most(hiv, both, hiv.bound, strict=True, reproduced=f"{both:.4f}"))
    out.append(cl.within_se(p.matches, df.mc, df.exact, df.mc_se, k=c.z_max, printed=p.matches.value))
    return out


def _overhead(args: tuple) -> list[dict]:
    return ml.measure_overhead(*args)


@experiment(
    artifact="Figure 8",
    summary="multi-pert's time per release and stored size vs number of releases m and table size n, "
    "against the naive store of all m copies",
    keys=("n", "m"),
    tolerances={"history_ms_per_release": IGNORE, "naive_ms_per_release": IGNORE},
    figures={"fig8_overhead": figures.overhead},
    params={
        "domain_size": Int(2, 2**31 - 1, limit="codes are int32"),
        "table_sizes": List(Int(1, 10**8, limit="tuples held in memory by both stores")),
        "m_max": Int(1, 10**5, limit="releases per table"),
        "m_step": Int(1, 10**5, limit="releases per timing step"),
        "c": Real(0, 1, low_open=True, high_open=True),
        "naive_max_bytes": Int(0, 2**40, limit="bytes the naive store may take"),
        "timings": Bool(),
        "claims": {"z_max": POS, "space_ratio": POS, "time_ratio": POS},
    },
    smoke=("table_sizes=[2000]", "m_max=20", "m_step=10", "timings=false"),
)
def fig8_overhead(cfg, ctx):
    shared = (cfg.m_max, cfg.domain_size, cfg.c, cfg.m_step, cfg.naive_max_bytes)
    items = [(n, *shared, ctx.seed_sequence("fig8", n), cfg.timings) for n in cfg.table_sizes]
    # timings: one table size at a time so that workers do not compete for memory bandwidth
    return pd.DataFrame([r for part in ctx.map(_overhead, items, desc="fig8", n_jobs=1) for r in part])


@fig8_overhead.claims
def _(df, cfg):
    p, c = cfg.printed, cfg.claims
    last = df[df.m == df.m.max()]
    big, g = last.iloc[-1], df[df.n == last.n.iloc[-1]]
    flat = float(g.history_ms_per_release.iloc[-1] / g.history_ms_per_release.iloc[0])
    below = bool((df.change_points_per_tuple < df.lemma2_bound).all())
    seen = f"max {df.change_points_per_tuple.max():.3f}; ln(1/c) = {math.log(1 / cfg.c):.3f}"
    se = ml.change_points_se(df.expected_change_points, df.n)
    space = f"n={int(big.n):,}, m={int(big.m)}: history {big.history_bytes / 2**20:.1f} MiB"
    space += f" vs naive {big.naive_bytes / 2**20:.1f} MiB"
    per_n = "; ".join(f"n={int(r.n):,}: {r.history_ms_per_release:.1f} ms" for r in last.itertuples())
    times = f"{per_n}; at n={int(big.n):,} the last {cfg.m_step} releases took {flat:.2f}x the first {cfg.m_step}"
    return [
        cl.statement(p.lemma2, below, reproduced=seen, rule="measured < ln(1/min p) at every (n, m)"),
        cl.within_se(p.expected, df.change_points_per_tuple, df.expected_change_points, se, k=c.z_max),
        cl.at_most(p.space, big.history_bytes / big.naive_bytes, c.space_ratio, strict=True, reproduced=space),
        cl.at_most(p.time, flat, c.time_ratio, strict=True, reproduced=times)
        if cfg.timings
        else cl.info(p.time, p.time.untimed, note=p.time.untimed_note),
    ]
