"""Slide 21, moving towards real data: Adult, and its ACS twin."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlab import PrivlabError
from privlab import claims as cl
from privlab import isolation as iso
from privlab.isolation import figures
from privlab.params import Choice, Int, List, Optional, Real, Str
from privlab.registry import experiment

from ._common import ATTACK, RATE_TOL, _about, _rows, _sanitizers, _seeds


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
    raw = frame[list(cfg.columns)].dropna().to_numpy(dtype=float)  # records with every column present
    if cfg.n_rows is not None:
        raw = raw[np.random.default_rng(ctx.seed_sequence("real", "rows")).permutation(raw.shape[0])[: cfg.n_rows]]
    sans = _sanitizers(cfg, ctx)
    X = {s: iso.scale_to_cube(raw, ctx.seed_sequence("real", "jitter", s), scaling=s) for s in cfg.scalings}
    ctx.describe_data({"name": "uniform_cube", "n": raw.shape[0], "d": raw.shape[1]})  # the reference rows
    X["uniform"] = iso.uniform_cube(*raw.shape, ctx.seed_sequence("real", "uniform"))
    kw = {"T": cfg.T, "c": cfg.c, "m": cfg.m, "sanitizers": sans}
    label = {s: "uniform_cube" if s == "uniform" else f"{cfg.dataset.name}_{s}" for s in X}
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
    name = cfg.dataset.name  # adult, or acs in the twin
    real = [col for col in piv.columns if col.startswith(f"{name}_")]
    for san in piv.index.drop("aux_only", errors="ignore"):
        row = piv.loc[san]
        shown = f"{name} {max(row[c] for c in real):.4g} vs uniform {row['uniform_cube']:.4g}"
        out.append(cl.info(_about(san, p.real_vs_uniform), shown))
    if {f"{name}_rank", f"{name}_minmax"} <= set(piv.columns):
        gap = (piv[f"{name}_rank"] - piv[f"{name}_minmax"]).drop("aux_only", errors="ignore")
        shown = f"rank scaling's rate exceeds min-max scaling's by at most {gap.max():.4g} (over the sanitizers)"
        out.append(cl.at_most(p.scaling, float(gap.max()), cfg.claims.scaling_slack, reproduced=shown))
    if "mapping" in p:  # the twin states its mapping of the talk's real data onto ACS columns
        out.append(cl.info(p.mapping, f"{len(cfg.columns)} columns: {', '.join(cfg.columns)}"))
    return out


real_data.twin(
    "real_data_acs",
    summary="real_data on real ACS person records (2019, MA and TX): AGEP, PWGTP, EDU, PINCP, POVPIP and "
    "DENSITY in place of Adult's six numeric columns, scaled to the cube",
)
