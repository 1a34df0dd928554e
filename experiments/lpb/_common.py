"""What the LPB experiments share: parameter contracts and the attribute helpers."""

from __future__ import annotations

from privlab import PrivlabError, lpb
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
CALIBRATION = {"mechanism_kind": "noise_calibration", "one_mechanism": True}  # one rule of conf/mechanism/


def summaries(cfg, ctx, attributes) -> dict[str, dict]:
    """Table II's row (sensitivity, universe, range) of each attribute, from the configured data set."""
    data = ctx.dataset(cfg.dataset)
    for a in attributes:
        if a not in data.columns:
            raise PrivlabError(f"attributes must be columns of {cfg.dataset.name}; got {a!r}")
    # records without a value (ACS's "N", not applicable) are left out; Adult's numeric columns have none
    return {a: lpb.attribute_summary(data[a].dropna().to_numpy(dtype=float)) for a in attributes}


def paper_name(cfg, a: str) -> str:
    """The paper's name for attribute ``a`` (a twin's column stands in for an Adult attribute)."""
    return str(cfg.stands_for.get(a, a))


def stand_in(cfg, a: str) -> str:
    """The note of a twin's claim: which column stands in for which Adult attribute."""
    return f"{cfg.dataset.name} column {a} stands in for Adult's {cfg.stands_for[a]}" if a in cfg.stands_for else ""


def panels(cfg) -> dict:
    """The rho1 panels of the configured attributes, in the panels' order."""
    return {a: list(v) for a, v in cfg.panels.items() if a in cfg.attributes}


def calibration(cfg, ctx):
    """The one noise calibration the experiment runs (``mechanism=[...]``)."""
    (calib,) = ctx.mechanisms(cfg.mechanism, kind="noise_calibration").values()
    return calib.impl
