"""Section 6's collusion Monte Carlo: Figure 5 (collusion is useless), Figure 6 (every copy is a
uni-pert copy) and the whole MC table against the exact joint. The three share the counts
F[X, Y_a, Y_b, Y_c] (`privlab.multilevel.collusion_counts`) through one checkpoint."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from privlab import PrivlabError
from privlab import claims as cl
from privlab import multilevel as ml
from privlab.multilevel import figures
from privlab.params import Choice, Int, List, MapOf, Real
from privlab.registry import Tolerance, experiment
from privlab.stats import pooled_gof

from ._common import ON_ACS, POS, PRIORS, P, gap_claim, laws_of_x, mapping, max_z, mc_tol

RECIPIENTS = ("Alice", "Bob", "Charlie")  # the requesters of p_a, p_b, p_c
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


def retention(cfg) -> list[float]:
    return [float(cfg.retention[r]) for r in "abc"]


def entry(block, name: str, key: str):
    if name not in block:
        raise PrivlabError(f"{key} must have an entry for every distribution; {name!r} has none")
    return block[name]


def codes(values, s: int, key: str) -> list[int]:
    """The paper's values 1..s as codes 0..s-1."""
    if not all(1 <= int(v) <= s for v in values):
        raise PrivlabError(f"{key} must lie in 1..{s}; got {list(values)}")
    return [int(v) - 1 for v in values]


def counts(cfg, ctx, name: str, prior: np.ndarray) -> np.ndarray:
    """F[X, Y_a, Y_b, Y_c] for the X distribution ``name``: resumable, shared by fig5, fig6 and agreement."""
    mc = cfg.mc
    what = {"prior": prior, "ps": retention(cfg), "domain_size": prior.size, "trials": mc.trials, "chunk": mc.chunk}
    what.update(seed=ctx.seed_sequence("mc", name), kernel=mc.kernel)
    how = {"map": ctx.map_unordered, "workers": ctx.n_jobs, "checkpoint_seconds": mc.checkpoint_seconds}
    how.update(log=lambda m: ctx.log(f"{name}: {m}"), progress=ctx.progress)
    checkpoint = ctx.checkpoint("multilevel_mc", **ml.collusion_identity(**what))
    return ml.collusion_counts(**what, **how, checkpoint=checkpoint)


@experiment(
    artifact="Figure 5",
    summary="Pr[X=x | Y_a,Y_b,Y_c] vs Pr[X=x | Y_c] at the paper's four cells, MC (10^7 quick / 10^10 "
    "paper trials) and exact",
    keys=("distribution", "x"),
    tolerances=mc_tol(mc_all="mc_all_se", mc_c="mc_c_se"),
    figures={"fig5_collusion": figures.collusion},
    params={**MC, "cells": MapOf(List(Int(1), min_len=3, max_len=3)), "claims": {"exact_tol": POS, "z_max": POS}},
    smoke=MC_SMOKE,
)
def fig5_collusion(cfg, ctx):
    ps, frames = retention(cfg), []
    for name, prior in laws_of_x(cfg, ctx).items():
        s = prior.size
        ya, yb, yc = codes(entry(cfg.cells, name, "cells"), s, f"cells.{name}")
        F, all3, only_c = counts(cfg, ctx, name, prior), {0: ya, 1: yb, 2: yc}, {2: yc}
        mc_all, mc_all_se, n_all = ml.frequencies(ml.counts_given(F, all3))
        mc_c, mc_c_se, n_c = ml.frequencies(ml.counts_given(F, only_c))
        cell = {"distribution": name, "x": np.arange(1, s + 1), "y_a": ya + 1, "y_b": yb + 1, "y_c": yc + 1}
        mc = {"mc_all": mc_all, "mc_all_se": mc_all_se, "mc_c": mc_c, "mc_c_se": mc_c_se}
        exact = {"exact_all": ml.posterior(prior, ps, s, all3), "exact_c": ml.posterior(prior, ps, s, only_c)}
        n = {"count_all": n_all, "count_c": n_c, "trials": int(F.sum())}
        frames.append(pd.DataFrame({**cell, "prior": prior, **mc, **exact, **n}))
    return pd.concat(frames, ignore_index=True)


@fig5_collusion.claims
def _(df, cfg):
    p, c = cfg.printed, cfg.claims
    out = [gap_claim(p.theorem1, float((df.exact_all - df.exact_c).abs().max()), c.exact_tol)]
    for name, g in df.groupby("distribution", sort=False):
        first = g.iloc[0]
        item = cl.each(p.bars, f"{name}, cell {first.y_a},{first.y_b},{first.y_c}", p.bars.value)
        trials = f"{first.count_all:,} trials in the cell of {first.trials:,}"
        if first.count_all == 0:
            out.append(cl.info(item, trials, note=p.bars.no_trials))
            continue
        detail = f"{trials}; MC given all three vs exact: max z = {max_z(g.mc_all, g.exact_all, g.mc_all_se):.2f}"
        note = p.bars.few_trials.format(int(p.trials.value)) if first.trials < p.trials.value else ""
        se = np.hypot(g.mc_all_se, g.mc_c_se)
        out.append(cl.within_se(item, g.mc_all, g.mc_c, se, k=c.z_max, printed=p.bars.value, detail=detail, note=note))
    return out + mapping(cfg)


@experiment(
    artifact="Figure 6",
    summary="Pr[Y_i = y | X = x] for all y, MC from F vs the uni-pert formula and the exact chain law",
    keys=("distribution", "y"),
    tolerances=mc_tol(mc="mc_se"),
    figures={"fig6_equivalence": figures.equivalence},
    params={
        **MC,
        "equivalence": MapOf({"recipient": Choice(*RECIPIENTS), "x": Int(1)}),
        "claims": {"exact_tol": POS, "alpha": P},
    },
    smoke=MC_SMOKE,
)
def fig6_equivalence(cfg, ctx):
    ps, frames = retention(cfg), []
    for name, prior in laws_of_x(cfg, ctx).items():
        s = prior.size
        spec = entry(cfg.equivalence, name, "equivalence")
        i = RECIPIENTS.index(spec.recipient)
        (x,) = codes([spec.x], s, f"equivalence.{name}.x")
        F = counts(cfg, ctx, name, prior)
        mc, mc_se, n = ml.frequencies(ml.margin(F, i)[x])
        panel = {"distribution": name, "recipient": spec.recipient, "p": ps[i], "x": x + 1, "y": np.arange(1, s + 1)}
        laws = {"uni_pert": ml.uni_pert_matrix(ps[i], s)[x], "exact_chain": ml.copy_given_x(prior, ps, s, i)[x]}
        frames.append(pd.DataFrame({**panel, "mc": mc, "mc_se": mc_se, **laws, "count_x": n, "trials": int(F.sum())}))
    return pd.concat(frames, ignore_index=True)


@fig6_equivalence.claims
def _(df, cfg):
    p, c, ex = cfg.printed, cfg.claims, cfg.printed.worked_example
    s_ex = int(ex.domain_size)
    law = ml.copy_given_x(np.full(s_ex, 1 / s_ex), list(ex.retention), s_ex, len(ex.retention) - 1)
    gap = float((df.exact_chain - df.uni_pert).abs().max())
    out = [gap_claim(p.theorem2, gap, c.exact_tol, what="chain - formula"), cl.printed_value(ex, law[0, 0])]
    for name, g in df.groupby("distribution", sort=False):
        first = g.iloc[0]
        _, pval = stats.chisquare(g.mc * g.count_x, g.uni_pert * g.count_x)
        item = cl.each(p.bars, f"{name}, {first.recipient} at p={first.p:g}, x={first.x}", p.bars.value)
        z = max_z(g.mc, g.uni_pert, g.mc_se)
        detail = f"max |MC - formula| / SE = {z:.2f} over {first.count_x:,} trials with that x"
        out.append(cl.gof(item, float(pval), alpha=c.alpha, printed=p.bars.value, detail=detail))
    return out + mapping(cfg)


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
    ps, rows = retention(cfg), []
    for name, prior in laws_of_x(cfg, ctx).items():
        F = counts(cfg, ctx, name, prior)
        exact = ml.exact_joint(prior, ps, prior.size)
        tables = {"X,Ya,Yb,Yc": (F, exact)}
        tables.update({f"X,Y_{r}": (ml.margin(F, i), ml.margin(exact, i)) for i, r in enumerate(RECIPIENTS)})
        for label, (table, probs) in tables.items():
            row = {"distribution": name, "table": label, "trials": int(F.sum()), "cells": int(table.size)}
            rows.append({**row, **pooled_gof(table, probs, cfg.min_expected)})
    return pd.DataFrame(rows)


@agreement.claims
def _(df, cfg):
    p, alpha, tests = cfg.printed, cfg.claims.alpha, len(df)
    out = []
    for r in df.itertuples():
        item = cl.each(p.follows, f"{r.table} ({r.distribution})", p.follows.value)
        detail = f"G = {r.g:.1f}, G p = {r.g_p:.3f}; chi2 p = {r.chi2_p:.3f}; {r.groups:,} groups; {r.trials:,} trials"
        why = p.follows.rejected.format(alpha=alpha, tests=tests)
        out.append(cl.gof(item, min(r.g_p, r.chi2_p), alpha=alpha / tests, detail=detail, if_disagree=why))
    return out + mapping(cfg)


for _original in (fig5_collusion, fig6_equivalence, agreement):  # the twins on ACS laws (_acs.yaml)
    _original.twin(f"{_original.name}_acs", summary=_original.summary + ON_ACS, smoke=MC_SMOKE[:2])
