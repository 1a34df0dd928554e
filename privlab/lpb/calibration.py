"""Noise calibration rules: LPB's (rho1, rho2) rule and the two it is compared with.

LPB (Theorem 2 of the paper, after Evfimievski et al.): a Laplace scale
``lam = delta / ln(gamma)`` with ``gamma = rho2 (1 - rho1) / (rho1 (1 - rho2))`` keeps every
posterior of a value whose prior is at most rho1 at or below rho2. Differential
identifiability (Lee and Clifton) is the special case rho1 = 1/|U|; plain epsilon-DP fixes
epsilon directly. The three are mechanisms of the ``conf/mechanism`` group (kind
``noise_calibration``) with one interface, `Calibration.calibrate`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..constraints import Int, Real
from ..relations import Ordered
from ..validation import PrivlabError, check_int, check_real, validate_params
from .examples import attribute_summary

__all__ = [
    "amplification_bound",
    "lpb_epsilon",
    "laplace_scale",
    "differential_identifiability_scale",
    "lambda_table",
    "Calibration",
    "LPBCalibration",
    "DifferentialIdentifiability",
    "EpsilonDP",
]


RHO = Real(0, 1, low_open=True, high_open=True)  # a prior or posterior threshold
DELTA = Real(0, low_open=True)  # a query's global sensitivity


def check_rhos(rho1: float, rho2: float) -> tuple[float, float]:
    """Validate 0 < rho1 < rho2 < 1."""
    r1 = check_real("rho1", rho1, low=0, high=1, low_open=True, high_open=True)
    r2 = check_real("rho2", rho2, low=0, high=1, low_open=True, high_open=True)
    if r1 >= r2:
        raise PrivlabError(f"rho1 must be smaller than rho2, got rho1={r1:g} >= rho2={r2:g}")
    return r1, r2


@validate_params(Ordered("rho1", "rho2"), rho1=RHO, rho2=RHO)
def amplification_bound(rho1: float, rho2: float) -> float:
    """gamma = rho2 (1 - rho1) / (rho1 (1 - rho2)): the largest amplification that
    still guarantees (rho1, rho2)-privacy (Evfimievski et al., Theorem 2 of the paper)."""
    return rho2 * (1 - rho1) / (rho1 * (1 - rho2))


def lpb_epsilon(rho1: float, rho2: float) -> float:
    """The epsilon LPB assigns to (rho1, rho2): ln gamma (for the informed adversary)."""
    return float(np.log(amplification_bound(rho1, rho2)))


@validate_params(delta=DELTA)
def laplace_scale(delta: float, rho1: float, rho2: float) -> float:
    """LPB's Laplace scale ``lam = delta / ln(rho2 (1 - rho1) / (rho1 (1 - rho2)))``.

    Parameters
    ----------
    delta : float
        Global sensitivity of the query (> 0).
    rho1, rho2 : float
        Prior and posterior thresholds, 0 < rho1 < rho2 < 1.

    Returns
    -------
    float
        The scale lambda of the Laplace noise.
    """
    return delta / lpb_epsilon(rho1, rho2)


@validate_params(universe_size=Int(2))
def differential_identifiability_scale(delta: float, universe_size: int, rho: float) -> float:
    """Lee and Clifton's rule, LPB's special case rho1 = 1/|U|: ``delta / ln((m - 1) rho / (1 - rho))``."""
    return laplace_scale(delta, 1.0 / universe_size, rho)


@validate_params(rho1_min=RHO, rho1_max=RHO, points=Int(2, 10**6))
def lambda_table(
    columns: Mapping[str, np.ndarray], rho2: float, rho1_min: float, rho1_max: float, points: int
) -> pd.DataFrame:
    """Figure 1: LPB's Laplace scale at each rho1 of an even grid, per attribute, beside
    differential identifiability's (rho1 = 1/|U|).

    Parameters
    ----------
    columns : mapping
        Attribute -> its column; its sensitivity (max - min) / n and universe min..max
        (`attribute_summary`) set the scales.
    rho2 : float
        The posterior threshold.
    rho1_min, rho1_max : float
        The grid's ends, each below ``rho2``.
    points : int
        Grid points (2 .. 10**6).

    Returns
    -------
    DataFrame
        One row per (attribute, rho1): ``rho2``, ``delta``, ``epsilon``, ``lambda``,
        ``universe_size`` and ``lambda_di``.
    """
    if not isinstance(columns, Mapping) or not columns:
        raise PrivlabError("columns must be a non-empty mapping of attribute names to columns")
    rows = []
    for a, column in columns.items():
        s = attribute_summary(column)
        d, m = float(s["sensitivity"]), int(s["universe_size"])
        lam_di = differential_identifiability_scale(d, m, rho2)
        for r1 in np.linspace(rho1_min, rho1_max, points):
            eps, lam = lpb_epsilon(r1, rho2), laplace_scale(d, r1, rho2)
            rows.append({"attribute": a, "rho1": round(float(r1), 10), "rho2": rho2, "delta": d, "epsilon": eps})
            rows[-1].update({"lambda": lam, "universe_size": m, "lambda_di": lam_di})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Calibration:
    """A rule turning a query's sensitivity and the privacy targets into (epsilon, lambda)."""

    def epsilon(self, universe_size: int, rho1: float, rho2: float) -> float:
        raise NotImplementedError

    def calibrate(self, delta: float, universe_size: int, rho1: float, rho2: float) -> tuple[float, float]:
        """``(epsilon, lambda)`` for a query of sensitivity ``delta`` over a universe of
        ``universe_size`` values, against (rho1, rho2) breaches (rules that ignore them do)."""
        d = check_real("delta", delta, low=0, low_open=True)
        check_int("universe_size", universe_size, low=2)
        eps = self.epsilon(universe_size, rho1, rho2)
        return eps, d / eps


@dataclass(frozen=True)
class LPBCalibration(Calibration):
    """LPB: epsilon = ln(rho2 (1 - rho1) / (rho1 (1 - rho2)))."""

    def epsilon(self, universe_size: int, rho1: float, rho2: float) -> float:
        return lpb_epsilon(rho1, rho2)


@dataclass(frozen=True)
class DifferentialIdentifiability(Calibration):
    """Lee and Clifton: LPB with rho1 = 1/|U| whatever the adversary's prior."""

    def epsilon(self, universe_size: int, rho1: float, rho2: float) -> float:
        m = check_int("universe_size", universe_size, low=2)
        return lpb_epsilon(1.0 / m, rho2)


@dataclass(frozen=True)
class EpsilonDP(Calibration):
    """Plain epsilon-differential privacy: a fixed epsilon, blind to (rho1, rho2)."""

    eps: float = 1.0

    def __post_init__(self) -> None:
        check_real("eps", self.eps, low=0, low_open=True)

    def epsilon(self, universe_size: int, rho1: float, rho2: float) -> float:
        return float(self.eps)
