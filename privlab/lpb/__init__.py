"""LPB: choosing the Laplace scale so that no (rho1, rho2) privacy breach occurs (Ouyang, Yin, Liu,
"Limiting Privacy Breaches in Differential Privacy", seed 003).

The rules and the calls a user makes; everything else is imported from the module that defines it:
calibration, laplace, adversary, breach, noise_ratio, examples, equivalence, derivations, advice.
Every function is pure: arrays and a seed in, arrays out.
"""

from .._lazy import forward
from .advice import advise
from .calibration import Calibration, DifferentialIdentifiability, EpsilonDP, LPBCalibration, laplace_scale, lpb_epsilon
from .laplace import laplace_noise

__all__ = [
    "Calibration", "LPBCalibration", "DifferentialIdentifiability", "EpsilonDP",
    "laplace_scale", "lpb_epsilon", "laplace_noise", "advise",
]  # fmt: skip

__getattr__ = forward(__name__)  # privlab.lpb.<any public name>: the path of before, kept for one release
