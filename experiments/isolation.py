"""Isolation paper (seed 002): the talk's results table and utility claims by simulation.

The talk has theorems and no experiments. Each experiment draws a real database RDB, lets
the sanitizers of ``conf/mechanism`` (kind ``sanitizer``) release it and their natural
adversaries output one point per target, and tabulates how often that point (c, T)-isolates
the target, beside the aux-only baseline. The science lives in `privlab.isolation`; the
talk's words and the claim thresholds in ``conf/experiment/isolation/``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from privlab import PrivlabError
from privlab import claims as cl
from privlab import isolation as iso
from privlab.isolation import figures
from privlab.params import Choice, Int, List, Optional, Real, Str
from privlab.registry import Paper, Tolerance, experiment

PAPER = Paper(
    "Chawla, Dwork, McSherry, Smith, Wee - Towards Privacy in Public Databases", seed="002_142f47f7580c4c95.txt"
)

N = Int(2, 10**6, limit="points of RDB held in memory")
M = Int(1, 10**6, limit="adversary outputs held in memory")
T_ = Int(1, 10**6, limit="a crowd of at most the points held")
C, DIM = Real(1), Int(1, 1000, limit="coordinates per point")
POS, PROB = Real(0, low_open=True), Real(0, 1)
ATTACK = {"n": N, "T": T_, "c": C, "m": M}  # the RDB size, the privacy parameters and the targets
RATE_TOL = {
    "rate": Tolerance(atol=0.003, se="rate_se", k=5),
    "rate_any": Tolerance(atol=0.003, se="rate_any_se", k=5),
    "successes": Tolerance(ignore=True),
    "successes_any": Tolerance(ignore=True),
    "wilson_upper": Tolerance(atol=0.003, rtol=0.5),
    "noise_ratio_mean": Tolerance(se="noise_ratio_se", k=5),
}


def _sanitizers(cfg, ctx) -> list[tuple[str, iso.Sanitizer]]:
    """The configured sanitizers as (label, sanitizer), in config order."""
    return [(m.label, m.impl) for m in ctx.mechanisms(cfg.mechanism, kind="sanitizer").values()]


def _seeds(ctx, sanitizers, *key) -> dict:
    return {name: ctx.seed_sequence(*key, name) for name in iso.seed_names(s for _, s in sanitizers)}


def _rows(task) -> list[dict]:
    """The worker of every experiment: a library engine's rows, with the cell's labels around them."""
    engine, head, kw, tail = task
    return [{**head, **r, **tail} for r in engine(**kw)]


def _about(subject, entry) -> dict:
    """A printed entry about one subject (a sanitizer's label, or a printed row of the talk's
    table, whose where and value it inherits): the subject's name in front of its claim."""
    base = {"claim": subject} if isinstance(subject, str) else dict(subject)
    return {**base, **entry, "claim": f"{base['claim']}: {entry.claim}"}


# --- the talk's table: isolation vs d ------------------------------------------------------
@experiment(
    artifact="Results table (slide 24), by simulation",
    summary="Isolation success rate vs dimension d for each sanitizer and its natural adversaries, beside "
    "the aux-only baseline; fitted exponential rate per sanitizer",
    keys=("d", "sanitizer", "adversary"),
    tolerances=RATE_TOL,
    figures={"isolation_vs_d": figures.isolation_vs_d},
    params={
        **ATTACK,
        "m_any": M,
        "dims": List(DIM, unique=True),
        "claims": {
            "negligible": PROB,
            "min_decay": Real(0),
            "talk_b": Real(0),
            "level": Real(0, 1, low_open=True, high_open=True),
            "z_max": POS,
            "noise_z_max": POS,
        },
    },
    smoke=("dims=[2,4]", "n=400", "m=40", "m_any=40"),
)
def isolation_vs_d(cfg, ctx):
    sans, dims = _sanitizers(cfg, ctx), list(cfg.dims)
    for d in dims:
        ctx.describe_data({"name": "uniform_cube", "n": cfg.n, "d": d})
    # one task per (d, sanitizer), the costliest (largest d) first so that the workers finish
    # together; each task redraws its d's RDB from the seed, so cells are independent
    cells = sorted(((d, i) for d in dims for i in range(len(sans))), key=lambda c: -c[0])
    kw = {"n": cfg.n, "T": cfg.T, "cs": [cfg.c], "m": cfg.m, "m_any": cfg.m_any}
    seeds = {d: _seeds(ctx, sans, "vs_d", d) for d in dims}
    tasks = [
        (
            iso.cube_attack,
            {"d": d, "n": cfg.n, "T": cfg.T},
            {**kw, "d": d, "seeds": seeds[d], "sanitizers": [sans[i]]},
            {"talk_bound": 2.0**-d},
        )
        for d, i in cells
    ]
    out = dict(zip(cells, ctx.map(_rows, tasks, desc="isolation vs d")))
    # per d: every adversary's row, then the best-of rows
    rows = [r for d in dims for r in iso.best_last([r for i in range(len(sans)) for r in out[(d, i)]])]
    return pd.DataFrame(rows).drop(columns=["c"])


def _decay(g, successes, trials, level):
    """The binomial ML fit of rate(d) = a 2^(-b d) to a sanitizer's rows, and how it reads."""
    fit = iso.fit_decay(g.d, g[successes], g[trials], level=level)
    zeros = f", {fit.zero_dims} of them with 0 successes" if fit.zero_dims else ""
    dof = fit.dims - 2
    gof = f" (deviance {fit.deviance:.3g} on {dof} df, p = {stats.chi2.sf(fit.deviance, dof):.2g})" if dof > 0 else ""
    return fit, f"rate ~ a 2^-(b d): {fit.describe()}, binomial ML over {fit.dims} d{zeros}{gof}"


@isolation_vs_d.claims
def _(df, cfg):
    p, k, out = cfg.printed, cfg.claims, []
    aux, dmax = df[df.sanitizer == "aux_only"].set_index("d").rate, df.d.max()
    any_trials = "trials_any" if "trials_any" in df else "trials"
    for san, row in p.talk_table.items():
        g = iso.natural_rows(df[df.sanitizer == san]).sort_values("d")
        if g.empty:
            continue
        top = g[g.d == dmax].iloc[0]
        fit, shown = _decay(g, "successes", "trials", k.level)
        shown += f"; {top.rate:.4g} at d = {dmax}"
        if top.successes == 0:
            upper = iso.exact_upper(0, int(top.trials), k.level)
            shown += f" (0 successes in {int(top.trials)}: exact one-sided {100 * k.level:g}% upper bound {upper:.3g})"
        # the interval widened by the dispersion: where the rates bend away from one exponential,
        # many trials pin the average slope far more tightly than the law deserves
        interval = f"the {100 * k.level:g}% interval for b (widened by the dispersion)"
        positive = f"lower end of {interval} > {k.min_decay:g}"
        out.append(cl.statement(_about(row, p.decay), fit.b_low_quasi > k.min_decay, reproduced=shown, rule=positive))
        rule = f"upper end of {interval} >= {k.talk_b:g} (the data allow b >= {k.talk_b:g})"
        item = _about(row, p.corollary_rate)
        out.append(cl.statement(item, fit.b_high_quasi >= k.talk_b, reproduced=fit.describe(), rule=rule))
        if san == "hist_perturb":  # the table's O(n 2^-Omega(d)) bounds isolating anyone
            fit, shown = _decay(g, "successes_any", any_trials, k.level)
            worst = g.loc[g.rate_any.idxmax()]
            shown += f"; {worst.rate_any:.4g} at worst (d = {worst.d}), {top.rate_any:.4g} at d = {dmax}"
            item = _about(row, p.someone)
            out.append(cl.statement(item, fit.b_low_quasi > k.min_decay, reproduced=shown, rule=positive))
        over = g[g.rate - k.z_max * g.rate_se > g.talk_bound]
        shown = "below at every d" if over.empty else f"above 2^-d at d = {over.d.tolist()} (c = {cfg.c})"
        rule = f"rate - {k.z_max:g} s.e. <= 2^-d at every d"
        out.append(cl.statement(_about(row, p.corollary), over.empty, reproduced=shown, rule=rule))
        if dmax in aux.index:
            gap = float(top.rate - aux[dmax])
            out.append(cl.at_most(_about(row, p.negligible), gap, k.negligible, reproduced=f"{gap:.4g} at d = {dmax}"))
    if "release_checked" in df:
        chk = df.release_checked.dropna()
        shown = f"{int((chk == 1).sum())} of {len(chk)} rows checked"
        out.append(cl.statement(p.checker, bool((chk == 1).all()), reproduced=shown, rule="the checker passes all"))
    if "noise_ratio_mean" in df:
        pert = df.dropna(subset=["noise_ratio_mean"])
        est, exact, se = pert.noise_ratio_mean, pert.noise_ratio_exact, pert.noise_ratio_se
        out.append(cl.within_se(p.noise_law, est, exact, se, k=k.noise_z_max))
    return out


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


# --- utility ---------------------------------------------------------------------------------
@experiment(
    artifact="Slides 10 and 15: utility of histograms and perturbation",
    summary="Column-mean error, k-means cost of SDB-learned centres on RDB over the RDB optimum, and "
    "box-count (density) error of each sanitizer on clustered data",
    keys=("d", "sanitizer"),
    tolerances={
        "mean_error_rms": Tolerance(rtol=0.5, atol=1e-3),
        "noise_mean_error_rms": Tolerance(rtol=0.5, atol=1e-3),
        "kmeans_cost_ratio": Tolerance(rtol=0.1),
        "box_query_mae": Tolerance(rtol=0.3, atol=2e-3),
    },
    figures={"utility": figures.utility},
    params={
        "dims": List(DIM, unique=True),
        "n": N,
        "T": Int(2, 10**6, limit="a crowd of at most the points held"),
        "k": Int(1, 1000, limit="k-means centres per run"),
        "sigma": Real(0),
        "n_init": Int(1, 1000, limit="k-means restarts per release"),
        "n_boxes": Int(1, 10**5, limit="box queries per d"),
        "box_dims": Int(1, 1000, limit="attributes a box restricts, at most the coordinates"),
        "claims": {"mean_tolerance": POS, "kmeans_tolerance": Real(1), "box_tolerance": POS, "noise_ratio_max": POS},
    },
    smoke=("dims=[2,3]", "n=300", "n_init=1", "n_boxes=20"),
)
def utility(cfg, ctx):
    sans = _sanitizers(cfg, ctx)
    for d in cfg.dims:
        ctx.describe_data({"name": "gaussian_mixture", "n": cfg.n, "d": d, "k": cfg.k, "sigma": cfg.sigma})
    kw = {k: cfg[k] for k in ("n", "T", "k", "sigma", "n_boxes", "box_dims", "n_init")} | {"sanitizers": sans}
    # the costliest (largest d) first so that the workers finish together; rows in config order
    dims = sorted(cfg.dims, reverse=True)
    tasks = [(iso.mixture_utility, {}, {**kw, "d": d, "seeds": _seeds(ctx, sans, "utility", d)}, {}) for d in dims]
    out = dict(zip(dims, ctx.map(_rows, tasks, desc="utility")))
    return pd.DataFrame([r for d in cfg.dims for r in out[d]])


@utility.claims
def _(df, cfg):
    p, k, out = cfg.printed, cfg.claims, []
    short = df[df.sanitizer == "hist_perturb_len_side"]
    for san, g in df[df.sanitizer != "hist_perturb_len_side"].groupby("sanitizer", sort=False):
        worst = g.mean_error_rms.max()
        shown = f"RMS column-mean error <= {worst:.2g} (cube side 2)"
        out.append(cl.at_most(_about(san, p.means), float(worst), k.mean_tolerance, reproduced=shown))
        exp = g.dropna(subset=["noise_mean_error_rms_expected"])
        if len(exp):
            ratio = exp.noise_mean_error_rms / exp.noise_mean_error_rms_expected
            shown = f"measured / expected RMS = {ratio.min():.2f}..{ratio.max():.2f}"
            out.append(cl.at_most(_about(san, p.noise), float(ratio.max()), k.noise_ratio_max, reproduced=shown))
        kr = g.kmeans_cost_ratio.max()
        shown = f"k-means cost of SDB centres on RDB / RDB optimum <= {kr:.3f} "
        shown += f"(worst at d = {int(g.loc[g.kmeans_cost_ratio.idxmax(), 'd'])})"
        why = ""
        if san == "hist_perturb":
            shown += f"; perturbation proper <= {df[df.sanitizer == 'perturbation'].kmeans_cost_ratio.max():.3f}"
            shown += f"; noise of length ~ the cell side <= {short.kmeans_cost_ratio.max():.3f}" if len(short) else ""
            why = p.hist_perturb_blur
        note = "" if san == "perturbation" else p.extended
        item = _about(san, p.kmeans)
        out.append(cl.at_most(item, float(kr), k.kmeans_tolerance, reproduced=shown, note=note, if_disagree=why))
    h = df[df.sanitizer == "histogram"]
    if len(h):
        shown = (
            f"mean |box count error| {h.box_query_mae.min():.3g}..{h.box_query_mae.max():.3g} "
            f"(boxes hold {h.box_query_mean_truth.mean():.2f} of the data on average)"
        )
        out.append(cl.at_most(p.density, float(h.box_query_mae.max()), k.box_tolerance, reproduced=shown))
    return out


# --- real data ---------------------------------------------------------------------------------
@experiment(
    artifact="Slide 21: moving towards real data",
    summary="Isolation rates of each sanitizer on Adult's numeric columns scaled to the cube (min-max and "
    "rank scaling, discrete values jittered), beside uniform data of the same n and d",
    keys=("data", "sanitizer", "adversary"),
    tolerances=RATE_TOL,
    figures={"real_data": figures.real_data},
    params={
        "columns": List(Str(), unique=True),
        "n_rows": Optional(Int(2, 10**7, limit="rows of the data set held")),
        "scalings": List(Choice(*iso.SCALINGS), unique=True),
        **{k: v for k, v in ATTACK.items() if k != "n"},
        "claims": {"scaling_slack": Real(0)},
    },
    smoke=("n_rows=1000", "m=100"),
)
def real_data(cfg, ctx):
    frame = ctx.dataset(cfg.dataset)
    missing = [col for col in cfg.columns if col not in frame.columns]
    if missing:
        raise PrivlabError(f"columns must be numeric columns of {cfg.dataset.name}; unknown: {missing}")
    raw = frame[list(cfg.columns)].to_numpy(dtype=float)
    if cfg.n_rows is not None:
        raw = raw[np.random.default_rng(ctx.seed_sequence("real", "rows")).permutation(raw.shape[0])[: cfg.n_rows]]
    sans = _sanitizers(cfg, ctx)
    X = {s: iso.scale_to_cube(raw, ctx.seed_sequence("real", "jitter", s), scaling=s) for s in cfg.scalings}
    ctx.describe_data({"name": "uniform_cube", "n": raw.shape[0], "d": raw.shape[1]})  # the reference rows
    X["uniform"] = iso.uniform_cube(*raw.shape, ctx.seed_sequence("real", "uniform"))
    kw = {"T": cfg.T, "c": cfg.c, "m": cfg.m, "sanitizers": sans}
    label = {s: "uniform_cube" if s == "uniform" else f"adult_{s}" for s in X}
    tasks = [
        (iso.holdout_attack, {"data": label[s]}, {**kw, "X": x, "seeds": _seeds(ctx, sans, "real", s)}, {})
        for s, x in X.items()
    ]
    rows = [r for chunk in ctx.map(_rows, tasks, desc="real data") for r in chunk]
    return pd.DataFrame(rows).drop(columns=["c"])


@real_data.claims
def _(df, cfg):
    p, nat, out = cfg.printed, iso.natural_rows(df), []
    piv = nat.pivot_table(index="sanitizer", columns="data", values="rate")
    adult = [col for col in piv.columns if col.startswith("adult")]
    for san in piv.index.drop("aux_only", errors="ignore"):
        row = piv.loc[san]
        shown = f"Adult {max(row[c] for c in adult):.4g} vs uniform {row['uniform_cube']:.4g}"
        out.append(cl.info(_about(san, p.real_vs_uniform), shown))
    if {"adult_rank", "adult_minmax"} <= set(piv.columns):
        gap = (piv.adult_rank - piv.adult_minmax).drop("aux_only", errors="ignore")
        shown = f"rank scaling's rate exceeds min-max scaling's by at most {gap.max():.4g} (over the sanitizers)"
        out.append(cl.at_most(p.scaling, float(gap.max()), cfg.claims.scaling_slack, reproduced=shown))
    return out
