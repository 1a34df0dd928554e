"""CAE: Confidential Attribute Equivocation, an entropy measure of disclosure risk.

Alfalayleh and Brankovic, "Quantifying Privacy: A Novel Entropy-Based Measure of
Disclosure Risk" (seed 004).

An intruder ends with candidate values ``x_1 < ... < x_n`` of a confidential attribute
and their probabilities. ``H(eps)`` is the minimum entropy over coverings of the values by
windows of span at most ``eps``; CAE is the pair ``(H0, A)`` of the initial entropy and the
area under ``H``. The paper evaluates it for three statistical disclosure control (SDC)
techniques against an intruder with supplementary knowledge (SK).

==================  ======================================================================
module              what
==================  ======================================================================
derivations         the seed's displayed formulas re-derived (sympy, brute force)
examples            Section 3's two salary examples (Table 1, Figure 1), the appendix's H(eps)
measure             H(eps) by the paper's dynamic program, the exact step function, CAE,
                    batched over many distributions; the maximising reading and the
                    entropy of one given covering (for the appendix's claims)
data                attribute domains and codes, SK combinations, the coded data sets,
                    Table 2's domains beside them
intruder            intruder models: the sampling formula (and the seed's as printed),
                    Algorithms 2 and 3 (uniform over each record's bounds)
sampling            simple random sampling without replacement
query_restriction   overlapping range-sum queries and the structural bounds they imply
lp                  the paper's linear programs (HiGHS): the generic bounds
noise               binomial noise on domain codes
techniques          the three as mechanisms of kind sdc_technique (`SamplingTechnique`,
                    `QueryRestrictionTechnique`, `NoiseAdditionTechnique`)
exact               exact CAE moments of a uniquely identified record, and their variance
checkers            independent checkers of every released artifact
engine              the Monte Carlo of Figures 2 and 4: per repetition, then summarised
==================  ======================================================================

Every function is pure: arrays and a seed in, arrays out.
"""

from .checkers import check_bounds, check_noise, check_sample
from .data import (
    SKData,
    SKSet,
    attribute_domain,
    code_datasets,
    distinct_values,
    domain_table,
    encode,
    group_ids,
    prepare,
)
from .engine import cae_rows, labelled_rows, repetition_rows, run_series, summarise, unique_rows
from .exact import chi2_agreement, unique_noise, unique_noise_var, unique_sampling, unique_sampling_var
from .examples import salary_pair, salary_table
from .intruder import interval_probs, printed_formula_gap, sampling_probs, sampling_probs_as_printed
from .lp import lp_bounds
from .measure import (
    breakpoints,
    cae,
    cae_batch,
    covering_entropy,
    entropy_curve,
    entropy_curves,
    max_entropy,
    min_entropy,
)
from .noise import NoisyRelease, add_binomial_noise, binomial_noise_codes, noise_intervals, noise_max
from .query_restriction import BoundsRelease, QueryRestriction, bounds_to_indices
from .sampling import SampleRelease, sample, sample_records, sample_size
from .techniques import (
    NoiseAdditionTechnique,
    QueryRestrictionTechnique,
    Release,
    SamplingTechnique,
    SDCTechnique,
)

__all__ = [
    # the measure
    "min_entropy",
    "max_entropy",
    "covering_entropy",
    "breakpoints",
    "entropy_curve",
    "entropy_curves",
    "cae",
    "cae_batch",
    # data
    "attribute_domain",
    "encode",
    "group_ids",
    "SKData",
    "SKSet",
    "prepare",
    "code_datasets",
    "distinct_values",
    "domain_table",
    # Section 3's examples
    "salary_pair",
    "salary_table",
    # intruder models
    "sampling_probs",
    "sampling_probs_as_printed",
    "printed_formula_gap",
    "interval_probs",
    # techniques
    "Release",
    "SDCTechnique",
    "sample_size",
    "sample_records",
    "sample",
    "SampleRelease",
    "SamplingTechnique",
    "QueryRestriction",
    "lp_bounds",
    "bounds_to_indices",
    "BoundsRelease",
    "QueryRestrictionTechnique",
    "noise_max",
    "binomial_noise_codes",
    "add_binomial_noise",
    "noise_intervals",
    "NoisyRelease",
    "NoiseAdditionTechnique",
    # exact counterparts and checkers
    "unique_sampling",
    "unique_sampling_var",
    "unique_noise",
    "unique_noise_var",
    "chi2_agreement",
    "check_sample",
    "check_noise",
    "check_bounds",
    # the Monte Carlo
    "unique_rows",
    "cae_rows",
    "repetition_rows",
    "labelled_rows",
    "summarise",
    "run_series",
]
