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
example            Table I's worked example, Table II's attribute description, Section V's data
equivalence        Figure 5's "same effect as eps-DP", as two checkable statements
derivations        the displayed formulas re-derived (sympy, grids) beside the printed ones
advice             ``privlab epsilon``: LPB's rule applied to a user's own column
=================  =======================================================================

Every function is pure: arrays and a seed in, arrays out. The grid runners (`lpb_noise_ratio`,
`breach_grid`, ...) take a ``seed_sequence`` callable and an optional ``map_fn`` for parallelism.
"""

from .adversary import QUERIES, max_posterior, posteriors, query_answers, sensitivity
from .advice import ADVICE_QUERIES, advise, lambda_curve, universe_of
from .breach import PRIORS, breach_grid, breach_simulation, capped_prior, informed_adversary, two_point_breach_rate
from .calibration import (
    Calibration,
    DifferentialIdentifiability,
    EpsilonDP,
    LPBCalibration,
    amplification_bound,
    differential_identifiability_scale,
    lambda_table,
    laplace_scale,
    lpb_epsilon,
)
from .equivalence import lpb_vs_dp, lpb_vs_dp_grid
from .examples import (
    attribute_columns,
    attribute_summary,
    attribute_table,
    data_facts,
    response_matches,
    worked_example,
    worked_example_table,
)
from .laplace import laplace_density, laplace_noise, laplace_quantile, laplace_variance
from .noise_ratio import NR_STATS, dp_noise_ratio, lpb_noise_ratio, noise_ratio_stats, panel_settings

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
    "lambda_table",
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
    "breach_grid",
    "informed_adversary",
    "two_point_breach_rate",
    "noise_ratio_stats",
    "panel_settings",
    "lpb_noise_ratio",
    "dp_noise_ratio",
    "lpb_vs_dp",
    "lpb_vs_dp_grid",
    "worked_example",
    "worked_example_table",
    "response_matches",
    "attribute_summary",
    "attribute_columns",
    "attribute_table",
    "data_facts",
]
