"""Random perturbation at multiple privacy levels (Xiao, Tao, Chen, VLDB 2009; seed 001).

The mechanisms and the calls a user makes; everything else is imported from the module that defines
it: perturbation, exact, priors, montecarlo, collusion, schemes, overhead, derivations, examples.
Values are integer codes 0..s-1 (the paper's 1..s shifted by one); every function is pure (arrays
and a seed in, arrays out) and refuses, in one line, an array of more than ``MAX_CELLS`` cells.
"""

from .._lazy import forward
from ._checks import MAX_CELLS
from .exact import exact_joint, posterior
from .montecarlo import collusion_counts
from .perturbation import MultiLevelPerturber, independent_copies, uni_pert
from .priors import make_prior
from .schemes import IndependentCopies, MultiPert, PerturbationScheme

__all__ = [
    "MultiLevelPerturber", "PerturbationScheme", "IndependentCopies", "MultiPert", "MAX_CELLS",
    "uni_pert", "independent_copies", "exact_joint", "posterior", "make_prior", "collusion_counts",
]  # fmt: skip

__getattr__ = forward(__name__)  # privlab.multilevel.<any public name>: the path of before, for one release
