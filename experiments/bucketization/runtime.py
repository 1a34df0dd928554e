"""Figure 7: the runtime of TwoSizeBucketing's pruning modes and the two-size ILP, vs the
cardinality n and vs the domain scale-up gamma (OCC)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import bucketization as bk
from privlab import claims as cl
from privlab.bucketization import figures
from privlab.params import Int, List
from privlab.registry import experiment

from ._common import POS, RUNTIME, RUNTIME_TOL, SMOKE_PRUNINGS, label, solver_errors, table_of, undecided, wide

PRUNINGS = {"two_size_none", "two_size_loss", "two_size_full"}


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
        sa = table_of(cfg, ctx, cfg.table, {**cfg.dataset, "n": n}).sa
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
    sa, rows = table_of(cfg, ctx, cfg.table).sa, []
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
    p, w = cfg.printed, wide(df, cfg, "seconds", index=(x,))
    solved = df[df.status == "optimal"].groupby(x).loss.nunique()
    shown = f"distinct optimal losses per {x}: {sorted(set(solved))}"
    out = [cl.statement(p.same_optimum, bool((solved == 1).all()), reproduced=shown, rule=f"one loss per {x}")]
    if not cfg.timings:  # no seconds: the claims about them are left out
        out.append(cl.info(p.no_timings, "not measured (timings=false)"))
    if PRUNINGS <= set(w):
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
    if PRUNINGS <= set(w):
        others = w[["two_size_loss", "two_size_full"]].max(axis=1)
        ratio, slowest = w.two_size_none / others, bool((w.two_size_none >= others).all())
        shown = f"No-pruning / the slower of Loss- and Full-pruning = {ratio.min():.1f}x..{ratio.max():.1f}x"
        out.append(cl.statement(p.none_most, slowest, reproduced=shown, rule="slowest pruning mode at every n"))
    if (failed := solver_errors(df, cfg, "optimal_two_size", ("n",))) and cfg.timings and "two_size_none" in w:
        out.append(undecided(cfg, p.ilp_faster, failed))
    elif {"optimal_two_size", "two_size_none"} <= set(w):
        ilp, none = w.optimal_two_size, w.two_size_none
        shown = f"ILP {ilp.min():.1f}..{ilp.max():.1f} s vs No-pruning {none.min():.2f}..{none.max():.2f} s"
        out.append(cl.statement(p.ilp_faster, bool((ilp < none).all()), reproduced=shown, rule="faster at every n"))
    return out


@fig7b_runtime_scaleup.claims
def _(df, cfg):
    (out, w), p, k = _runtime_claims(df, cfg, "gamma"), cfg.printed, cfg.claims.grows_factor
    ilp = df[df.method == label(cfg, "optimal_two_size")].set_index("gamma")
    failed = solver_errors(df, cfg, "optimal_two_size", ("gamma",))
    if len(ilp) and cfg.timings and failed:
        out.append(undecided(cfg, p.ilp_grows, failed))
    elif len(ilp) and cfg.timings:
        grows = bool(ilp.seconds.iloc[-1] > k * ilp.seconds.iloc[0] or (ilp.status == "timed out").any())
        shown = ", ".join(f"gamma={g}: {r.seconds:.1f} s ({r.status})" for g, r in ilp.iterrows())
        out.append(cl.statement(p.ilp_grows, grows, reproduced=shown, rule=f"last > {k:g}x first, or a time-out"))
    if "two_size_none" in w:
        out.append(_trend(p.none_faster, w.two_size_none, up=False))
    if cfg.timings and {"two_size_loss", "two_size_full"} <= set(w):
        pair = w[["two_size_loss", "two_size_full"]]
        growth = pair.iloc[-1] / pair.iloc[0]
        shown = (
            f"last / first gamma: Loss-pruning {growth.two_size_loss:.1f}x, Full-pruning {growth.two_size_full:.1f}x"
        )
        out.append(cl.at_most(p.others_little, float(growth.max()), cfg.claims.little_factor, reproduced=shown))
    if len(ilp):
        first = ilp.index[ilp.status == "timed out"]
        shown = f"first time-out at gamma = {first[0]}" if len(first) else "never in this grid"
        out.append(cl.info(p.ilp_limit, shown + (f"; solver error at {failed}" if failed else "")))
    return out
