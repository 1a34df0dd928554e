"""What the LPB experiments share: parameter contracts, the configured columns and the calibration."""

from __future__ import annotations

from typing import Any

from privlab.lpb.examples import attribute_columns
from privlab.params import Int, List, MapOf, Real, Str
from privlab.registry import Tolerance

PROB, POS = Real(0, 1, low_open=True, high_open=True), Real(0, low_open=True)
# stands_for: on a real-data twin, the data set's column -> the paper's Adult attribute it stands in for
ADULT = {"attributes": List(Str(), unique=True), "panels": MapOf(List(PROB)), "stands_for": MapOf(Str(), min_len=0)}
N_QUERIES = Int(4, 10**8, limit="noise draws held in memory")
TARGET_INDEX = Int(-(10**7), 10**7, limit="a row of the data set (negative: from the end)")
MC_TOL = {"mc": Tolerance(se="mc_se", k=5)}
# the noise experiments over the (rho1 panel, rho2) grid of Figures 2-4
GRID = {**ADULT, "n_queries": N_QUERIES, "rho2_grid": List(PROB)}
CALIBRATION: dict[str, Any] = {
    "mechanism_kind": "noise_calibration",
    "one_mechanism": True,
}  # one rule of conf/mechanism/


def columns(cfg, ctx) -> dict:
    """The configured attributes' columns of the configured data set (records without a value left out)."""
    return attribute_columns(ctx.dataset(cfg.dataset), cfg.attributes, cfg.dataset.name)


def calibration(cfg, ctx):
    """The one noise calibration the experiment runs (``mechanism=[...]``)."""
    (calib,) = ctx.mechanisms(cfg.mechanism, kind="noise_calibration").values()
    return calib.impl
