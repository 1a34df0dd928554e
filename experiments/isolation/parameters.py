"""The privacy parameters c and T, and the bad sanitizer that passes (slide 9)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import claims as cl
from privlab import isolation as iso
from privlab.isolation import figures
from privlab.params import Int, List, Real
from privlab.registry import experiment

from ._common import ATTACK, DIM, POS, PROB, RATE_TOL, T_, C, M, N, _rows, _sanitizers, _seeds


# --- the privacy parameters c and T --------------------------------------------------------
@experiment(
    artifact="Results table, privacy parameters c and T",
    summary="Isolation success rate vs c and T at fixed d for each sanitizer (one RDB for all settings)",
    keys=("c", "T", "sanitizer", "adversary"),
    tolerances=RATE_TOL,
    figures={"isolation_vs_c_T": figures.isolation_vs_c_T},
    params={"d": DIM, "n": N, "cs": List(C), "Ts": List(T_), "m": M, "talk_c": C, "claims": {"rate_slack": Real(0)}},
    smoke=("n=400", "m=40", "Ts=[1,5]", "cs=[1,4]"),
)
def isolation_vs_c_T(cfg, ctx):
    sans = _sanitizers(cfg, ctx)
    ctx.describe_data({"name": "uniform_cube", "n": cfg.n, "d": cfg.d})
    kw = {"n": cfg.n, "d": cfg.d, "cs": list(cfg.cs), "m": cfg.m, "seeds": _seeds(ctx, sans, "c_T"), "sanitizers": sans}
    tasks = [(iso.cube_attack, {"T": T}, {**kw, "T": T}, {}) for T in cfg.Ts]
    df = pd.DataFrame([r for chunk in ctx.map(_rows, tasks, desc="isolation vs c, T") for r in chunk])
    df.insert(0, "d", cfg.d)
    return df


@isolation_vs_c_T.claims
def _(df, cfg):
    p, slack, nat = cfg.printed, cfg.claims.rate_slack, iso.natural_rows(df)
    # the largest step of the rate up as c grows (any T, adversary), and down as T grows (aux-only)
    up_c = max(np.diff(g.sort_values("c").rate).max(initial=0) for _, g in nat.groupby(["T", "sanitizer", "adversary"]))
    out = [cl.at_most(p.larger_c, float(up_c), slack, reproduced=f"largest rise of a rate with c: {up_c:.3g}")]
    aux = nat[nat.sanitizer == "aux_only"].groupby("c")
    if len(aux):
        down_T = max(-np.diff(g.sort_values("T").rate).min(initial=0) for _, g in aux)
        out.append(cl.at_most(p.larger_T, float(down_T), slack, reproduced=f"largest fall with T: {down_T:.3g}"))
    p1 = nat[(nat.sanitizer == "perturbed_one") & (nat["T"] == 1)]
    if len(p1):
        shown = f"released point isolates its source at rate {p1.rate.min():.3g}..{p1.rate.max():.3g}"
        out.append(cl.at_least(p.t1, float(p1.rate.min()), 1 - slack, reproduced=shown))
    talk = nat[(nat.c == cfg.talk_c) & (nat["T"] >= 2) & (nat.sanitizer != "aux_only")]
    if len(talk):
        worst = talk.sort_values("rate").iloc[-1]
        shown = f"c = {cfg.talk_c:g}, d = {int(df.d.iloc[0])}: worst rate {worst.rate:.4g} "
        shown += f"({worst.sanitizer}, T = {int(worst['T'])})"
        out.append(cl.info(p.example, shown))
    return out


# --- the bad sanitizer ----------------------------------------------------------------------
@experiment(
    artifact="Slide 9: a bad sanitizer that passes",
    summary="Isolation rate vs the number of attributes released exactly (the rest replaced by noise), "
    "for disguised attributes of growing scale",
    keys=("stretch", "disclosed", "adversary"),
    tolerances=RATE_TOL,
    figures={"bad_sanitizer": figures.bad_sanitizer},
    params={
        **ATTACK,
        "d": Int(2, 1000, limit="coordinates per point"),
        "stretches": List(POS),
        "claims": {"negligible": PROB},
    },
    smoke=("n=400", "m=40", "d=3", "stretches=[1,1000]"),
)
def bad_sanitizer(cfg, ctx):
    ctx.describe_data({"name": "uniform_cube", "n": cfg.n, "d": cfg.d})
    kw = {"n": cfg.n, "d": cfg.d, "T": cfg.T, "c": cfg.c, "m": cfg.m}
    tasks = [
        (iso.bad_sanitizer_rows, {}, {**kw, "stretch": s, "disclosed": k, "seeds": _seeds(ctx, [], "bad", s, k)}, {})
        for s in map(float, cfg.stretches)
        for k in range(cfg.d)
    ]
    df = pd.DataFrame([r for chunk in ctx.map(_rows, tasks, desc="bad sanitizer") for r in chunk])
    df.insert(0, "d", cfg.d)
    return df


@bad_sanitizer.claims
def _(df, cfg):
    p, d = cfg.printed, int(df.d.iloc[0])
    match = df.exact_columns == df.exact_columns_expected
    shown = f"exact columns match in {int(match.sum())} of {len(df)} rows"
    out = [cl.statement(p.exact, bool(match.all()), reproduced=shown, rule="exact columns = disclosed, every row")]
    top = df[df.disclosed == d - 1]
    by_stretch = ", ".join(f"{s:g}: {g.rate.max():.3g}" for s, g in top.groupby("stretch"))
    big, small = (top[top.stretch == f(top.stretch)] for f in (np.max, np.min))
    shown = f"best rate {big.rate.max():.4g} with {d - 1} of {d} attributes exact, stretch {big.stretch.iloc[0]:g} "
    shown += f"(best rate by stretch {by_stretch})"
    out.append(cl.at_most(p.nobody, float(big.rate.max()), cfg.claims.negligible, reproduced=shown))
    shown = f"best rate {small.rate.max():.4g} at stretch {small.stretch.iloc[0]:g}"
    out.append(cl.at_least(p.distance, float(small.rate.max()), cfg.claims.negligible, strict=True, reproduced=shown))
    return out
