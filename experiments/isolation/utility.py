"""Utility of the sanitizers (slides 10 and 15)."""

from __future__ import annotations

import pandas as pd

from privlab import claims as cl
from privlab import isolation as iso
from privlab.isolation import figures
from privlab.params import Int, List, Real
from privlab.registry import Tolerance, experiment

from ._common import DIM, POS, N, _about, _rows, _sanitizers, _seeds


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
