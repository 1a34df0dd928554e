"""What the multilevel modules share: parameter specs, Monte Carlo tolerances, the laws of X and claims from config."""

from __future__ import annotations

from privlab.multilevel.priors import PRIOR, make_priors
from privlab.params import MapOf, Optional, Real
from privlab.registry import Tolerance

P, POS = Real(0, 1, low_open=True), Real(0, low_open=True)
PRIORS = MapOf(Optional(PRIOR))  # the laws of X; null: switched off (a twin without real data for it)
ON_ACS = "; salary and occupation laws from real ACS records (PINCP in 5K bins; INDP_CAT, s = 20)"  # twins' summary


def mc_tol(**se_of: str) -> dict[str, Tolerance]:
    """Monte Carlo columns compared within 5 of their own standard errors by privlab check."""
    return {col: Tolerance(se=se, atol=1e-12) for col, se in se_of.items()}


def laws_of_x(cfg, ctx):
    """The switched-on laws of X, each on its own domain (its length is s); the run's data names
    every one of them (a law read from data through its data set, the others as generated laws)."""
    for spec in cfg.distributions.values():  # in the panels' order, before the data a law is read from
        if spec is not None and spec.kind in ("uniform", "gaussian", "lognormal"):
            kept = {k: spec[k] for k in ("mean", "sd", "median", "sigma", "bin_width") if k in spec}
            s = int(spec.get("domain_size", cfg.domain_size))
            ctx.describe_data({"name": "discrete_law", "kind": spec.kind, "s": s, **kept})
    return make_priors(cfg.distributions, cfg.domain_size, dataset=ctx.dataset)
