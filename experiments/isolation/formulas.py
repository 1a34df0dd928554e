"""Every displayed formula of the talk, printed against an independent derivation (sympy from the
defining densities, volumes and counts, or the definition on a numeric instance)."""

from __future__ import annotations

import pandas as pd

from privlab import claims as cl
from privlab import isolation as iso
from privlab.isolation import derivations as dv
from privlab.params import Int, Real, Str
from privlab.registry import experiment

from ._common import DIM, POS


@experiment(
    artifact="Displayed formulas (slides 7, 12-13, 17-18, 24)",
    summary="every displayed formula re-derived: the noise law, the ball-volume ratio of the lemma, the "
    "histogram's split, the universe, Case 1's distance and count, the union bound and the T-radius",
    keys=("key",),
    params={
        "instance": {"d": DIM, "c": Real(1), "s": POS, "t": POS, "scale": Real(0), "n": Int(1, 10**9), "b": POS},
        "case1": {"T": Int(2, 64, limit="one point per sub-cube of [-1, 1]^d"), "d": Int(1, 6), "c": Real(1)},
        "t_radius": {"T": Int(1, 100), "n": Int(2, 500, limit="an n x n distance matrix"), "d": DIM},
        "n_of_d": Str(),
    },
)
def formulas(cfg, ctx):
    f, i, k1, tr = cfg.printed.formulas, dict(cfg.instance), cfg.case1, cfg.t_radius
    at = lambda *keys: {k: float(i[k]) for k in keys}  # noqa: E731
    cases = [
        *dv.noise_law_cases(f.noise_mean, f.noise_square, at("d", "scale", "t"), iso.expected_noise_length_ratio),
        dv.ball_ratio_case(f.ball_ratio, f.ball_bound, at("d", "c")),
        dv.cell_split_case(f.cell_split, at("d", "s")),
        dv.universe_case(f.universe, "d", at("d", "n")),
        dv.case1_distance_case(f.case1_distance, at("c", "d", "s")),
        dv.case1_count_case(f.case1_count, k1.T, k1.d, k1.c),
        dv.union_bound_case(f.union_bound, f.per_point, cfg.n_of_d, at("n", "b", "d")),
        dv.t_radius_case(tr.T, tr.n, tr.d, iso.t_radius),
    ]
    return pd.DataFrame([{"key": c.case, **c.row()} for c in cases]).drop(columns="case")


@formulas.claims
def _(df, cfg):
    out = []
    for r in df.itertuples():
        shown = f"{r.derived}; at {r.instance}: printed {r.printed_value:.6g}, derived {r.derived_value:.6g}"
        shown += f" ({r.detail})" if isinstance(r.detail, str) and r.detail else ""
        out.append(cl.statement(cfg.printed[r.key], bool(r.match), reproduced=shown, rule="printed = derived"))
    return out
