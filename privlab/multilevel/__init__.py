"""Random perturbation at multiple privacy levels (Xiao, Tao, Chen, VLDB 2009; seed 001).

=============  ==========================================================================
module         what
=============  ==========================================================================
perturbation   the mechanisms: `uni_pert`, `independent_copies`, `MultiLevelPerturber`
               (multi-pert with the O(n + m) history store), `release_in_order`
exact          the exact chain law (Lemma 1): `exact_joint`, posteriors, each copy's law
               given X, the adversary's expected confidence, expected change points
priors         the laws of X the experiments simulate, from config blocks
montecarlo     the collusion Monte Carlo: F[X, Y_1, ..., Y_k], resumable and
               independent of the number of workers (`collusion_counts`)
collusion      Figures 5-6 and the MC check as tables, from the counts F of each law of X
schemes        perturbation schemes as mechanisms (kind ``perturbation``:
               `IndependentCopies`, `MultiPert`) and the pooling adversary's Monte Carlo
overhead       Figure 8's measurements of the history store against the naive store
derivations    the formula audit: every displayed formula re-derived (sympy, and the exact
               law of the algorithm followed step by step on a grid), printed vs derived
examples       the slides' HIV examples by enumerating the algorithms' random choices
=============  ==========================================================================

Sizes: every function that allocates an array whose size follows from its arguments (an
s x s matrix, s^k cells, n x m copies, trials, chunks) refuses, in one line, one of more
than `MAX_CELLS` cells (`MAX_CHUNKS` chunks) before allocating it.

Values are integer codes 0..s-1 (the paper's 1..s shifted by one). Every function is
pure: arrays and a seed in, arrays out; the exact analysis shares no code with the
mechanism, so their agreement checks multi-pert's u/v formulas.
"""

from . import derivations
from ._checks import CODE_DTYPE, MAX_CHUNKS, check_trials
from .collusion import RECIPIENTS, agreement_table, collusion_table, equivalence_table
from .exact import (
    MAX_EXACT_COPIES,
    best_copy_posterior,
    copy_given_x,
    exact_joint,
    expected_change_points,
    expected_confidence_independent,
    expected_confidence_single,
    independent_all_other,
    posterior,
    uni_pert_matrix,
)
from .examples import MAX_ENUMERATED, arithmetic, example_table, hiv_example, hiv_requirement3, independent_pair
from .montecarlo import (
    KERNELS,
    MAX_CELLS,
    MC_VERSION,
    alias_table,
    collusion_counts,
    collusion_counts_chunk,
    collusion_identity,
    counts_given,
    frequencies,
    margin,
    sample_prior,
)
from .overhead import change_points_se, measure_overhead, overhead_table
from .perturbation import MultiLevelPerturber, independent_copies, release_in_order, uni_pert, uv
from .priors import (
    PRIOR,
    PRIOR_KINDS,
    PriorSpec,
    binned_prior,
    describe_prior,
    gaussian_prior,
    lognormal_prior,
    make_prior,
    make_priors,
    marginal_prior,
    prior_domain,
    prior_table,
)
from .schemes import (
    IndependentCopies,
    MultiPert,
    PerturbationScheme,
    confidence_chunk,
    confidence_curves,
    confidence_table,
)
from .stratified import collusion_chunk_stratified, release_plan

__all__ = [
    "CODE_DTYPE",
    "KERNELS",
    "MAX_CELLS",
    "MAX_CHUNKS",
    "MAX_ENUMERATED",
    "MAX_EXACT_COPIES",
    "MC_VERSION",
    "PRIOR",
    "PRIOR_KINDS",
    "PriorSpec",
    "RECIPIENTS",
    "uv",
    "uni_pert",
    "independent_copies",
    "MultiLevelPerturber",
    "release_in_order",
    "uni_pert_matrix",
    "exact_joint",
    "posterior",
    "copy_given_x",
    "best_copy_posterior",
    "expected_confidence_independent",
    "expected_confidence_single",
    "independent_all_other",
    "expected_change_points",
    "gaussian_prior",
    "lognormal_prior",
    "marginal_prior",
    "binned_prior",
    "prior_domain",
    "make_prior",
    "make_priors",
    "describe_prior",
    "prior_table",
    "alias_table",
    "sample_prior",
    "collusion_counts_chunk",
    "collusion_chunk_stratified",
    "release_plan",
    "collusion_identity",
    "collusion_counts",
    "margin",
    "counts_given",
    "frequencies",
    "collusion_table",
    "equivalence_table",
    "agreement_table",
    "check_trials",
    "PerturbationScheme",
    "IndependentCopies",
    "MultiPert",
    "confidence_chunk",
    "confidence_curves",
    "confidence_table",
    "measure_overhead",
    "overhead_table",
    "change_points_se",
    "derivations",
    "hiv_example",
    "hiv_requirement3",
    "independent_pair",
    "arithmetic",
    "example_table",
]
