"""Multi-level perturbation paper (seed 001): Figures 5-8, the MC-vs-exact agreement, the audit of
the slides (every displayed formula, the worked HIV example, the distributions of X) and the
real-data twins on ACS records (``<experiment>_acs``).

The science lives in `privlab.multilevel`; the paper's setting, printed values and statements in
``conf/experiment/multilevel/``. fig5, fig6 and agreement share the collusion Monte Carlo's counts
F[X, Y_a, Y_b, Y_c] (`privlab.multilevel.collusion_counts`) through one checkpoint.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from privlab import PrivlabError, datasets
from privlab import claims as cl
from privlab import multilevel as ml
from privlab.multilevel import figures
from privlab.params import Bool, Choice, Int, List, MapOf, Optional, Real
from privlab.registry import Paper, Tolerance, experiment
from privlab.stats import pooled_gof, proportion_se, zscores

PAPER = Paper(
    "Xiao, Tao, Chen - Optimal Random Perturbation at Multiple Privacy Levels", seed="001_c5de60d83f81c6f0.txt"
)

RECIPIENTS = ("Alice", "Bob", "Charlie")  # the requesters of p_a, p_b, p_c
P, POS = Real(0, 1, low_open=True), Real(0, low_open=True)
PRIORS = MapOf(Optional(ml.PRIOR))  # the laws of X; null: switched off (a twin without real data for it)
MC = {
    "domain_size": Int(2, math.isqrt(math.isqrt(ml.MAX_CELLS)), limit="F holds s^4 int64 cells, at most 2^27 (1 GiB)"),
    "retention": {"a": P, "b": P, "c": P},
    "distributions": PRIORS,
    "mc": {
        "trials": Int(1, 10**12, limit="trials per distribution"),
        "chunk": Int(1, 2**32 - 1, limit="trials per chunk, counted in uint32 cells"),
        "kernel": Choice(*ml.KERNELS),
        "checkpoint_seconds": Real(0),
    },
}
MC_SMOKE = ("mc.trials=200000", "mc.chunk=50000", "distributions.occupation.dataset.n=20000")
GOF_SMOKE = ("mc.trials=200000", "mc.chunk=50000", "domain_size=20", "~distributions.occupation")


def _mc_tol(**se_of: str) -> dict[str, Tolerance]:
    """Monte Carlo columns compared within 5 of their own standard errors by privlab check."""
    return {col: Tolerance(se=se, atol=1e-12) for col, se in se_of.items()}


def _ps(cfg) -> list[float]:
    return [float(cfg.retention[r]) for r in "abc"]


def _priors(cfg, ctx) -> dict[str, np.ndarray]:
    """The switched-on laws of X, each on its own domain (its length is s)."""
    specs = {n: spec for n, spec in cfg.distributions.items() if spec is not None}
    return {n: ml.make_prior(spec, cfg.domain_size, dataset=ctx.dataset) for n, spec in specs.items()}


def _mapping(cfg) -> list:
    """A real-data twin's mapping to the paper's data, as an info row (none elsewhere)."""
    if "mapping" not in cfg.printed:
        return []
    used = [(n, d) for n, d in cfg.distributions.items() if d is not None]
    laws = "; ".join(
        f"{n}: {d.kind} {d.column} of {d.dataset.name}, s = {ml.prior_domain(d, cfg.domain_size)}"
        for n, d in used
        if "dataset" in d
    )
    return [cl.info(cfg.printed.mapping, laws or "-")]


def _entry(block, name: str, key: str):
    if name not in block:
        raise PrivlabError(f"{key} must have an entry for every distribution; {name!r} has none")
    return block[name]


def _codes(values, s: int, key: str) -> list[int]:
    """The paper's values 1..s as codes 0..s-1."""
    if not all(1 <= int(v) <= s for v in values):
        raise PrivlabError(f"{key} must lie in 1..{s}; got {list(values)}")
    return [int(v) - 1 for v in values]


def _se(counts: np.ndarray, n: float) -> list[float]:
    return [proportion_se(k, n) for k in counts]


def _counts(cfg, ctx, name: str, prior: np.ndarray) -> np.ndarray:
    """F[X, Y_a, Y_b, Y_c] for the X distribution ``name``: resumable, shared by fig5, fig6 and agreement."""
    mc = cfg.mc
    what = {"prior": prior, "ps": _ps(cfg), "domain_size": prior.size, "trials": mc.trials, "chunk": mc.chunk}
    what.update(seed=ctx.seed_sequence("mc", name), kernel=mc.kernel)
    how = {"map": ctx.map_unordered, "workers": ctx.n_jobs, "checkpoint_seconds": mc.checkpoint_seconds}
    how.update(log=lambda m: ctx.log(f"{name}: {m}"), progress=ctx.progress)
    checkpoint = ctx.checkpoint("multilevel_mc", **ml.collusion_identity(**what))
    return ml.collusion_counts(**what, **how, checkpoint=checkpoint)


# --- Figure 5: collusion is useless -------------------------------------------------------
@experiment(
    artifact="Figure 5",
    summary="Pr[X=x | Y_a,Y_b,Y_c] vs Pr[X=x | Y_c] at the paper's four cells, MC (10^7 quick / 10^10 "
    "paper trials) and exact",
    keys=("distribution", "x"),
    tolerances=_mc_tol(mc_all="mc_all_se", mc_c="mc_c_se"),
    figures={"fig5_collusion": figures.collusion},
    params={**MC, "cells": MapOf(List(Int(1), min_len=3, max_len=3)), "claims": {"exact_tol": POS, "z_max": POS}},
    smoke=MC_SMOKE,
)
def fig5_collusion(cfg, ctx):
    ps, frames = _ps(cfg), []
    for name, prior in _priors(cfg, ctx).items():
        s = prior.size
        ya, yb, yc = _codes(_entry(cfg.cells, name, "cells"), s, f"cells.{name}")
        F, all3, only_c = _counts(cfg, ctx, name, prior), {0: ya, 1: yb, 2: yc}, {2: yc}
        c_all, c_c = (ml.counts_given(F, obs).astype(float) for obs in (all3, only_c))
        n_all, n_c = c_all.sum(), c_c.sum()
        cell = {"distribution": name, "x": np.arange(1, s + 1), "y_a": ya + 1, "y_b": yb + 1, "y_c": yc + 1}
        mc_all = {"mc_all": c_all / n_all if n_all else np.nan, "mc_all_se": _se(c_all, n_all)}
        mc_c = {"mc_c": c_c / n_c, "mc_c_se": _se(c_c, n_c)}
        exact = {"exact_all": ml.posterior(prior, ps, s, all3), "exact_c": ml.posterior(prior, ps, s, only_c)}
        n = {"count_all": int(n_all), "count_c": int(n_c), "trials": int(F.sum())}
        frames.append(pd.DataFrame({**cell, "prior": prior, **mc_all, **mc_c, **exact, **n}))
    return pd.concat(frames, ignore_index=True)


@fig5_collusion.claims
def _(df, cfg):
    p, c = cfg.printed, cfg.claims
    gap = float((df.exact_all - df.exact_c).abs().max())
    out = [cl.at_most(p.theorem1, gap, c.exact_tol, reproduced=f"max |difference| = {gap:.2e}")]
    for name, g in df.groupby("distribution", sort=False):
        first = g.iloc[0]
        item = cl.each(p.bars, f"{name}, cell {first.y_a},{first.y_b},{first.y_c}", p.bars.value)
        trials = f"{first.count_all:,} trials in the cell of {first.trials:,}"
        if first.count_all == 0:
            out.append(cl.info(item, trials, note="no trial hit the cell: nothing to compare"))
            continue
        z = float(np.nanmax(zscores(g.mc_all, g.exact_all, g.mc_all_se)))
        detail = f"{trials}; MC given all three vs exact: max z = {z:.2f}"
        few = f"fewer trials than the paper's {int(p.trials.value):,}: the bars scatter more"
        se, note = np.hypot(g.mc_all_se, g.mc_c_se), few if first.trials < p.trials.value else ""
        out.append(cl.within_se(item, g.mc_all, g.mc_c, se, k=c.z_max, printed=p.bars.value, detail=detail, note=note))
    return out + _mapping(cfg)


# --- Figure 6: every copy is a uni-pert copy ----------------------------------------------
@experiment(
    artifact="Figure 6",
    summary="Pr[Y_i = y | X = x] for all y, MC from F vs the uni-pert formula and the exact chain law",
    keys=("distribution", "y"),
    tolerances=_mc_tol(mc="mc_se"),
    figures={"fig6_equivalence": figures.equivalence},
    params={
        **MC,
        "equivalence": MapOf({"recipient": Choice(*RECIPIENTS), "x": Int(1)}),
        "claims": {"exact_tol": POS, "alpha": P},
    },
    smoke=MC_SMOKE,
)
def fig6_equivalence(cfg, ctx):
    ps, frames = _ps(cfg), []
    for name, prior in _priors(cfg, ctx).items():
        s = prior.size
        spec = _entry(cfg.equivalence, name, "equivalence")
        i = RECIPIENTS.index(spec.recipient)
        (x,) = _codes([spec.x], s, f"equivalence.{name}.x")
        F = _counts(cfg, ctx, name, prior)
        col = ml.margin(F, i)[x].astype(float)
        n = col.sum()
        panel = {"distribution": name, "recipient": spec.recipient, "p": ps[i], "x": x + 1, "y": np.arange(1, s + 1)}
        laws = {"uni_pert": ml.uni_pert_matrix(ps[i], s)[x], "exact_chain": ml.copy_given_x(prior, ps, s, i)[x]}
        frames.append(pd.DataFrame({**panel, "mc": col / n, "mc_se": _se(col, n), **laws, "count_x": int(n)}))
        frames[-1]["trials"] = int(F.sum())
    return pd.concat(frames, ignore_index=True)


@fig6_equivalence.claims
def _(df, cfg):
    p, c, ex = cfg.printed, cfg.claims, cfg.printed.worked_example
    gap = float((df.exact_chain - df.uni_pert).abs().max())
    s_ex = int(ex.domain_size)
    law = ml.copy_given_x(np.full(s_ex, 1 / s_ex), list(ex.retention), s_ex, len(ex.retention) - 1)
    out = [
        cl.at_most(p.theorem2, gap, c.exact_tol, reproduced=f"max |chain - formula| = {gap:.2e}"),
        cl.printed_value(ex, law[0, 0]),
    ]
    for name, g in df.groupby("distribution", sort=False):
        first = g.iloc[0]
        z = float(np.nanmax(zscores(g.mc, g.uni_pert, g.mc_se)))
        _, pval = stats.chisquare(g.mc * g.count_x, g.uni_pert * g.count_x)
        item = cl.each(p.bars, f"{name}, {first.recipient} at p={first.p:g}, x={first.x}", p.bars.value)
        detail = f"max |MC - formula| / SE = {z:.2f} over {first.count_x:,} trials with that x"
        out.append(cl.gof(item, float(pval), alpha=c.alpha, printed=p.bars.value, detail=detail))
    return out + _mapping(cfg)


# --- the whole MC table against the exact joint -------------------------------------------
@experiment(
    artifact="Section 6 (MC check)",
    summary="Chi-square and G-test of every MC table F[X,Ya,Yb,Yc] (and its (X, Y_i) margins) against the exact joint",
    keys=("distribution", "table"),
    tolerances={c: Tolerance(rtol=1e-6, atol=1e-12) for c in ("chi2", "chi2_p", "g", "g_p")},
    figures={"agreement": figures.agreement},
    params={**MC, "min_expected": POS, "claims": {"alpha": P}},
    smoke=GOF_SMOKE,
)
def agreement(cfg, ctx):
    ps, rows = _ps(cfg), []
    for name, prior in _priors(cfg, ctx).items():
        F = _counts(cfg, ctx, name, prior)
        exact = ml.exact_joint(prior, ps, prior.size)
        tables = {"X,Ya,Yb,Yc": (F, exact)}
        tables.update({f"X,Y_{r}": (ml.margin(F, i), ml.margin(exact, i)) for i, r in enumerate(RECIPIENTS)})
        for label, (counts, probs) in tables.items():
            row = {"distribution": name, "table": label, "trials": int(F.sum()), "cells": int(counts.size)}
            rows.append({**row, **pooled_gof(counts, probs, cfg.min_expected)})
    return pd.DataFrame(rows)


@agreement.claims
def _(df, cfg):
    p, alpha, tests = cfg.printed, cfg.claims.alpha, len(df)
    out = []
    for r in df.itertuples():
        item = cl.each(p.follows, f"{r.table} ({r.distribution})", p.follows.value)
        detail = f"G = {r.g:.1f}, G p = {r.g_p:.3f}; chi2 p = {r.chi2_p:.3f}; {r.groups:,} groups; {r.trials:,} trials"
        why = f"rejected at Bonferroni level {alpha:g}/{tests}"
        out.append(cl.gof(item, min(r.g_p, r.chi2_p), alpha=alpha / tests, detail=detail, if_disagree=why))
    return out + _mapping(cfg)


# --- Figure 7: independent perturbation fails ---------------------------------------------
@experiment(
    artifact="Figure 7",
    summary="Adversary's expected confidence in the true value vs number of pooled copies, for every configured "
    "scheme (independent uni-pert copies vs multi-pert copies at the same p's), exact and MC",
    keys=("scheme", "k"),
    tolerances=_mc_tol(mc="mc_se"),
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
        z = float(np.nanmax(zscores(g.mc, g.exact, g.mc_se)))
        out.append(cl.info(p.no_gain, f"MC within {z:.2f} SE of the best copy's exact value at every k"))
    both = np.prod([ml.uni_pert_matrix(r, hiv.domain_size)[0, 1] for r in hiv.retention])
    out.append(cl.at_most(hiv, float(both), hiv.bound, strict=True, reproduced=f"{both:.4f}"))
    out.append(cl.within_se(p.matches, df.mc, df.exact, df.mc_se, k=c.z_max, printed=p.matches.value))
    return out


# --- Figure 8: overhead of multi-pert ------------------------------------------------------
def _overhead(args: tuple) -> list[dict]:
    return ml.measure_overhead(*args)


@experiment(
    artifact="Figure 8",
    summary="multi-pert's time per release and stored size vs number of releases m and table size n, "
    "against the naive store of all m copies",
    keys=("n", "m"),
    tolerances={"history_ms_per_release": Tolerance(ignore=True), "naive_ms_per_release": Tolerance(ignore=True)},
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
    items = [
        (
            n,
            cfg.m_max,
            cfg.domain_size,
            cfg.c,
            cfg.m_step,
            cfg.naive_max_bytes,
            ctx.seed_sequence("fig8", n),
            cfg.timings,
        )
        for n in cfg.table_sizes
    ]
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
        else cl.info(p.time, "not measured (timings=false)", note="timings=false: no wall-clock times taken"),
    ]


# --- the audit of the slides: formulas, the worked HIV example, the distributions of X ------------
@experiment(
    artifact="Displayed formulas",
    summary="every displayed formula re-derived: printed (as the slides give it) against derived (sympy from "
    "the definitions, or the exact law of multi-pert followed step by step on a seeded grid)",
    keys=("key",),
    params={
        "instance": {"p": P, "pl": P, "pr": P, "pa": P, "pb": P, "s": Int(2, 10**6), "s_derivation": Int(2, 10**6)},
        "grid": {
            "domain_sizes": List(Int(2, 12, limit="s^(1 + copies) cells per exact law")),
            "orders": List(List(P, min_len=2, max_len=4), min_len=0),
            "random_orders": Int(0, 100, limit="random request orders per domain size"),
            "max_copies": Int(2, 4),
            "seed": Int(0, 2**32 - 1, limit="a numpy seed"),
        },
        "lemma2": {"cs": List(Real(0, 1, low_open=True, high_open=True)), "steps": List(Int(2, 10**5))},
        "claims": {"tol": POS},
    },
    smoke=("grid.domain_sizes=[3,2]", "grid.random_orders=1", "lemma2.steps=[2,10]"),
)
def formulas(cfg, ctx):
    f, i, g = cfg.printed.formulas, cfg.instance, cfg.grid
    dv = ml.derivations
    points = dv.grid(g.domain_sizes, g.orders, g.random_orders, g.max_copies, seed=g.seed)
    near = dv.neighbour_points(points)  # p_l > p > p_r and s from the grid
    at = {"p": i.p, "pl": i.pl, "pr": i.pr, "s": float(i.s)}
    pair = [{"pa": i.pa, "pb": i.pb, "s": float(i.s_derivation)}] + [
        {"pa": q["pr"], "pb": q["p"], "s": q["s"]} for q in near
    ]
    laws, printed_uv = (
        {**f.uni_pert, **f.lemma1, **f.lemma2},
        dv.printed_uv(f.uv),
    )  # the slides' u, v drive the algorithm
    cases = [
        *dv.uni_pert_cases(f.uni_pert, [{"p": i.p, "s": float(i.s)}] + [{"p": q["p"], "s": q["s"]} for q in near]),
        *dv.conditional_cases(f.conditional, pair),
        *dv.uv_cases(f.uv, [at, *near]),
        *dv.chain_cases(laws, points, printed_uv, tol=cfg.claims.tol),
        dv.index_case(f.theorem2_index.range, f.theorem2_index.symbol, f.symbols),
        *dv.lemma2_cases(laws, points, cfg.lemma2.cs, cfg.lemma2.steps, printed_uv),
        *dv.estimator_cases([q for q in points if q.s <= 5], printed_uv),
    ]
    return pd.DataFrame([{"key": c.case, **c.row()} for c in cases]).drop(columns="case")


@formulas.claims
def _(df, cfg):
    out = []
    for r in df.itertuples():
        values = (
            "" if math.isnan(r.printed_value) else f": printed {r.printed_value:.6g}, derived {r.derived_value:.6g}"
        )
        shown = f"{r.derived}; {r.instance}{values}" + (f" ({r.detail})" if r.detail else "")
        out.append(cl.statement(cfg.printed[r.key], bool(r.match), reproduced=shown, rule="printed = derived"))
    return out


@experiment(
    artifact="Worked example (slides)",
    summary="the slides' HIV examples: every printed number of the multi-pert example and of the independent "
    "perturbation slide, recomputed by enumerating the algorithms' random choices",
    keys=("key",),
    params={
        "domain_size": Int(2, ml.MAX_ENUMERATED, limit="outcomes enumerated"),
        "retention": {"alice": P, "bob": P},
        "independent": {"domain_size": Int(2, ml.MAX_ENUMERATED), "retention": List(P, min_len=2, max_len=2)},
        "claims": {"exact_tol": POS, "high_confidence": P},
    },
)
def example(cfg, ctx):
    s, r, ind = cfg.domain_size, cfg.retention, cfg.independent
    found = ml.hiv_example(s, r.alice, r.bob) | {"requirement3": ml.hiv_requirement3(s, r.alice, r.bob)}
    found |= ml.independent_pair(ind.domain_size, *ind.retention)
    rows = [
        {"key": k, "expression": e.expression, "printed": e.value, "slide_arithmetic": ml.arithmetic(e.expression)}
        for k, e in cfg.printed.numbers.items()
    ]
    done = {row["key"] for row in rows}
    rows += [{"key": k, "expression": "", "printed": "", "slide_arithmetic": np.nan} for k in found if k not in done]
    return pd.DataFrame(rows).assign(enumerated=lambda d: d.key.map(found))


@example.claims
def _(df, cfg):
    p, c, t = cfg.printed, cfg.claims, df.set_index("key").enumerated
    out, off = [], []
    for r in df[df.printed != ""].itertuples():
        shown = f"{r.enumerated:.4f} (enumerated); the slide's expression gives {r.slide_arithmetic:.4f}"
        out.append(cl.printed_value(p.numbers[r.key], r.enumerated, reproduced=shown))
        if not cl.rounds_to(r.printed, r.slide_arithmetic):
            off.append(f"{r.key}: {r.expression} = {r.slide_arithmetic:.4g}")
    rule, shown = "each expression rounds to the printed number", "; ".join(off) or "every expression rounds to it"
    out.append(cl.statement(p.arithmetic, not off, reproduced=shown, rule=rule))
    given = f"{t.given_alice_hiv:.4f} given Alice's copy is HIV; {t.total:.4f} averaged over her copy"
    out.append(cl.printed_value(p.retained, t.given_alice_hiv, reproduced=given))
    out.append(
        cl.at_most(p.requirement3, t.requirement3, c.exact_tol, reproduced=f"max |difference| = {t.requirement3:.2e}")
    )
    out.append(
        cl.at_most(p.both_hiv, t.both_given_not, p.both_hiv.bound, strict=True, reproduced=f"{t.both_given_not:.4f}")
    )
    high = min(t.posterior_both - c.high_confidence, t.posterior_both - t.posterior_one)
    shown = f"Pr[X = HIV | both HIV] = {t.posterior_both:.3f}; one copy: {t.posterior_one:.3f}"
    out.append(cl.at_least(p.confidence, high, 0.0, strict=True, reproduced=shown))
    gap = abs(t.multi_posterior_both - t.posterior_one)
    shown = f"multi-pert, both HIV: {t.multi_posterior_both:.3f}; the best copy alone: {t.posterior_one:.3f}"
    return [*out, cl.at_most(p.multi, gap, c.exact_tol, reproduced=shown)]


@experiment(
    artifact="Distribution of sensitive values (slides)",
    summary="the laws of X that Figures 5-6 simulate (uniform, Gaussian, salary, occupation), drawn from the "
    "config's distributions, with the values Figures 5-6 print for each",
    keys=("distribution", "x"),
    figures={"priors": figures.priors},
    params={"domain_size": Int(2, 10**6, limit="values of a law held in memory"), "distributions": PRIORS},
    smoke=("distributions.occupation.dataset.n=20000",),
)
def priors(cfg, ctx):
    frames = []
    for name, prior in _priors(cfg, ctx).items():
        spec = cfg.distributions[name]
        source = spec.dataset.name if "dataset" in spec else "-"
        frame = pd.DataFrame(
            {"distribution": name, "kind": spec.kind, "data": source, "x": np.arange(1, prior.size + 1)}
        )
        frames.append(frame.assign(prior=prior, s=prior.size, **ml.describe_prior(prior)))
    return pd.concat(frames, ignore_index=True)


HOW = {
    "uniform": "by construction",
    "gaussian": "[reconstructed] mean, sd",
    "lognormal": "[reconstructed] median, sigma",
}


@priors.claims
def _(df, cfg):
    p = cfg.printed
    out = [cl.equal(p.panels, list(cfg.distributions))]
    for name, g in df.groupby("distribution", sort=False):
        first = g.iloc[0]
        shown = list(p.cells["values"].get(name, []))
        item, fits = cl.each(p.cells, name, shown), bool(shown) and all(1 <= v <= first.s for v in shown)
        if first.s != cfg.domain_size:  # a law on another domain (a real attribute): the printed values do not apply
            why = (
                f"this law lives on 1..{first.s}, not the paper's 1..{cfg.domain_size}; Figures 5-6's twins adapt them"
            )
            out.append(cl.info(item, f"s = {first.s}; printed {shown}", note=why))
        else:
            out.append(cl.statement(item, fits, reproduced=f"s = {first.s}", rule="every value in 1..s"))
        real = first.data != "-" and not datasets.is_synthetic(first.data)
        note = "real records" if real else HOW.get(first.kind, "synthetic stand-in")
        shown = f"mean {first['mean']:.2f}, sd {first.sd:.2f}, skewness {first.skewness:.2f}, mode {first['mode']}"
        item = cl.each(p.shape, name, p.shape.value)
        out.append(cl.info(item, f"{shown}, largest {first.top:.3f}", note=f"nothing printed (figure lost); {note}"))
    return out + _mapping(cfg)


# --- real-data twins: the salary and occupation laws of X from ACS records (conf/experiment/multilevel/_acs.yaml)
ON_ACS = "; salary and occupation laws from real ACS records (PINCP in 5K bins; INDP_CAT, s = 20)"
for _original in (fig5_collusion, fig6_equivalence, agreement, priors):
    _original.twin(  # ACS laws: no data-set size to shrink in the smoke run
        f"{_original.name}_acs",
        summary=_original.summary + ON_ACS,
        smoke=MC_SMOKE[:2] if "mc" in _original.params else (),
    )
