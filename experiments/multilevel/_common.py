"""What the multilevel modules share: parameter specs, the laws of X from config, claim helpers."""

from __future__ import annotations

import numpy as np

from privlab import claims as cl
from privlab import multilevel as ml
from privlab.params import MapOf, Optional, Real
from privlab.registry import Tolerance
from privlab.stats import zscores

P, POS = Real(0, 1, low_open=True), Real(0, low_open=True)
PRIORS = MapOf(Optional(ml.PRIOR))  # the laws of X; null: switched off (a twin without real data for it)
ON_ACS = "; salary and occupation laws from real ACS records (PINCP in 5K bins; INDP_CAT, s = 20)"  # twins' summary


def mc_tol(**se_of: str) -> dict[str, Tolerance]:
    """Monte Carlo columns compared within 5 of their own standard errors by privlab check."""
    return {col: Tolerance(se=se, atol=1e-12) for col, se in se_of.items()}


def laws_of_x(cfg, ctx) -> dict[str, np.ndarray]:
    """The switched-on laws of X, each on its own domain (its length is s)."""
    specs = {n: spec for n, spec in cfg.distributions.items() if spec is not None}
    return {n: ml.make_prior(spec, cfg.domain_size, dataset=ctx.dataset) for n, spec in specs.items()}


def max_z(estimate, exact, se) -> float:
    return float(np.nanmax(zscores(estimate, exact, se)))


def gap_claim(item, gap: float, tol: float, what: str = "difference"):
    """An exact equality, checked as its largest gap against the floating-point slack ``tol``."""
    return cl.at_most(item, gap, tol, reproduced=f"max |{what}| = {gap:.2e}")


def mapping(cfg) -> list:
    """A real-data twin's mapping to the paper's data, as an info row (none elsewhere)."""
    if "mapping" not in cfg.printed:
        return []
    used = [(n, d) for n, d in cfg.distributions.items() if d is not None]
    laws = "; ".join(
        f"{n}: {d.kind} {d.column} of {d.dataset.name}, s = {ml.prior_domain(d, cfg.domain_size)}"
        for n, d in used
        if "dataset" in d
    )
    return [cl.info(cfg.printed.mapping, laws or "-")]
