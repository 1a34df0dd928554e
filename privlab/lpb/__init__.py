"""LPB: choosing the Laplace scale so that no (rho1, rho2) privacy breach occurs.

Ouyang, Yin, Liu, "Limiting Privacy Breaches in Differential Privacy" (seed 003).

=================  =======================================================================
module             what
=================  =======================================================================
calibration        LPB's rule and the rules it is compared with (mechanisms of kind
                   ``noise_calibration``: `LPBCalibration`, `DifferentialIdentifiability`,
                   `EpsilonDP`)
laplace            the Laplace mechanism's noise and its analytic twin
adversary          the informed adversary's exact posterior and its supremum over responses
breach             capped priors and the breach simulation (sampled beside exact)
noise_ratio        Figures 2-5: noise-ratio box-plot statistics, sampled and exact
example            Table I's worked example and Table II's attribute description
equivalence        Figure 5's "same effect as eps-DP", as two checkable statements
derivations        the displayed formulas re-derived (sympy, grids) beside the printed ones
advice             ``privlab epsilon``: LPB's rule applied to a user's own column
=================  =======================================================================

Every function is pure: arrays and a seed in, arrays out.
"""

from .adversary import QUERIES, max_posterior, posteriors, query_answers, sensitivity
from .advice import ADVICE_QUERIES, advise, lambda_curve, universe_of
from .breach import PRIORS, breach_simulation, capped_prior, two_point_breach_rate
from .calibration import (
    Calibration,
    DifferentialIdentifiability,
    EpsilonDP,
    LPBCalibration,
    amplification_bound,
    differential_identifiability_scale,
    laplace_scale,
    lpb_epsilon,
)
from .equivalence import lpb_vs_dp
from .example import attribute_summary, response_matches, worked_example
from .laplace import laplace_density, laplace_noise, laplace_quantile, laplace_variance
from .noise_ratio import NR_STATS, noise_ratio_stats

__all__ = [
    "ADVICE_QUERIES",
    "advise",
    "lambda_curve",
    "universe_of",
    "QUERIES",
    "PRIORS",
    "NR_STATS",
    "Calibration",
    "LPBCalibration",
    "DifferentialIdentifiability",
    "EpsilonDP",
    "amplification_bound",
    "lpb_epsilon",
    "laplace_scale",
    "differential_identifiability_scale",
    "query_answers",
    "sensitivity",
    "posteriors",
    "max_posterior",
    "laplace_density",
    "laplace_quantile",
    "laplace_noise",
    "laplace_variance",
    "capped_prior",
    "breach_simulation",
    "two_point_breach_rate",
    "noise_ratio_stats",
    "lpb_vs_dp",
    "worked_example",
    "response_matches",
    "attribute_summary",
]
