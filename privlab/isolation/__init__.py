"""Isolation in public databases: recursive histograms, perturbation and the isolator.

Chawla, Dwork, McSherry, Smith, Wee, "Towards Privacy in Public Databases" (talk, seed 002).
The real database RDB is ``n`` points in R^d. An adversary sees a sanitized database SDB
and outputs a point ``q``; ``q`` (c, T)-isolates a real point ``x`` when the ball
``B(q, c * ||q - x||)`` holds fewer than ``T`` points of RDB other than ``x``.

===========  ===========================================================================
module       what
===========  ===========================================================================
metric       the isolation test (`isolates`, `isolation_rate`, masks) and the T-radius
distances    exact distance questions from blocked BLAS products (`DistanceIndex`)
histogram    the recursive histogram (`recursive_histogram`, `build_histogram`)
sanitizers   perturbation, histogram + perturbation, the bad sanitizer (release functions)
adversaries  each sanitizer's natural adversaries (a point of the cell, the column midpoint)
mechanisms   the sanitizers with their adversaries as mechanisms of kind ``sanitizer``
             (`AuxOnly`, `RecursiveHistogram`, `Perturbation`, `HistogramPlusPerturbation`,
             `BadSanitizer`)
simulation   Monte Carlo engines: `attack`, `cube_attack`, `holdout_attack`, `bad_sanitizer_rows`
sweeps       the experiments' grids of engine calls as tables (`results_table`, `c_T_table`,
             `bad_sanitizer_table`, `real_data_table`, `utility_table`), seeded per cell
rates        success-rate columns (binomial s.e., Wilson bound) and the fitted decay in d
             (`fit_decay`: binomial maximum likelihood, zeros included, profile interval)
checkers     independent checks of the releases (histogram, exact columns, noise lengths)
data         the uniform cube and Gaussian mixture (from `privlab.datasets.simulated`), `scale_to_cube`,
             `numeric_records`
utility      k-means, box counts, column means of a release (`utility_rows`, `mixture_utility`)
derivations  the talk's displayed formulas re-derived (`formula_table`)
===========  ===========================================================================

Every function is pure: arrays and a seed in, arrays out.
"""

from .adversaries import adversary_cell_centre, adversary_cell_uniform, adversary_column_midpoint, aux_only_queries
from .checkers import check_histogram_release, exact_columns, perturbation_noise_ratios
from .data import SCALINGS, gaussian_mixture, numeric_records, scale_to_cube, uniform_cube
from .distances import KDTREE_MAX_D, DistanceIndex
from .histogram import MAX_DEPTH, Histogram, Leaf, build_histogram, recursive_histogram
from .mechanisms import (
    AdversaryOutput,
    Attack,
    AuxOnly,
    BadSanitizer,
    HistogramPlusPerturbation,
    Perturbation,
    RecursiveHistogram,
    Sanitizer,
    UtilityView,
)
from .metric import (
    distance_index,
    isolates,
    isolates_anyone_mask,
    isolation_mask,
    isolation_masks,
    isolation_rate,
    t_radius,
)
from .rates import (
    BEST,
    DecayFit,
    best_last,
    decay_loglik,
    exact_upper,
    fit_decay,
    natural_rows,
    rate_columns,
    wilson_upper,
)
from .sanitizers import (
    HistPerturbRelease,
    bad_sanitizer,
    expected_noise_length_ratio,
    histogram_plus_perturbation,
    perturb,
    perturb_release,
)
from .simulation import SEED_NAMES, attack, bad_sanitizer_rows, cube_attack, holdout_attack, seed_names
from .sweeps import bad_sanitizer_table, c_T_table, real_data_table, results_table, stream_seeds, utility_table
from .utility import (
    box_fraction_histogram,
    box_fraction_points,
    column_range,
    kmeans,
    kmeans_cost,
    mixture_utility,
    noise_mean_error,
    random_boxes,
    utility_rows,
)

__all__ = [
    "KDTREE_MAX_D",
    "MAX_DEPTH",
    "BEST",
    "SCALINGS",
    "SEED_NAMES",
    # the isolation test
    "isolates",
    "isolation_mask",
    "isolation_masks",
    "isolation_rate",
    "isolates_anyone_mask",
    "t_radius",
    "distance_index",
    "DistanceIndex",
    # sanitizers
    "Leaf",
    "Histogram",
    "build_histogram",
    "recursive_histogram",
    "perturb",
    "perturb_release",
    "expected_noise_length_ratio",
    "HistPerturbRelease",
    "histogram_plus_perturbation",
    "bad_sanitizer",
    # adversaries and mechanisms
    "adversary_cell_uniform",
    "adversary_cell_centre",
    "adversary_column_midpoint",
    "aux_only_queries",
    "AdversaryOutput",
    "Attack",
    "UtilityView",
    "Sanitizer",
    "AuxOnly",
    "RecursiveHistogram",
    "Perturbation",
    "HistogramPlusPerturbation",
    "BadSanitizer",
    # engines and rates
    "attack",
    "cube_attack",
    "holdout_attack",
    "bad_sanitizer_rows",
    "seed_names",
    "stream_seeds",
    "results_table",
    "c_T_table",
    "bad_sanitizer_table",
    "real_data_table",
    "utility_table",
    "rate_columns",
    "wilson_upper",
    "exact_upper",
    "natural_rows",
    "DecayFit",
    "fit_decay",
    "decay_loglik",
    "best_last",
    # checkers
    "check_histogram_release",
    "exact_columns",
    "perturbation_noise_ratios",
    # data and utility
    "uniform_cube",
    "gaussian_mixture",
    "scale_to_cube",
    "numeric_records",
    "kmeans",
    "kmeans_cost",
    "box_fraction_histogram",
    "box_fraction_points",
    "column_range",
    "noise_mean_error",
    "random_boxes",
    "utility_rows",
    "mixture_utility",
]
