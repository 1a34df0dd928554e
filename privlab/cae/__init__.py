"""CAE: Confidential Attribute Equivocation, an entropy measure of disclosure risk (Alfalayleh and
Brankovic, "Quantifying Privacy: A Novel Entropy-Based Measure of Disclosure Risk", seed 004).

The SDC techniques and the calls a user makes; everything else is imported from the module that
defines it: measure, data, intruder, sampling, query_restriction, lp, noise, techniques, exact,
checkers, engine, examples, derivations, trends. Every function is pure: arrays and a seed in,
arrays out.
"""

from .._lazy import forward
from .data import prepare
from .measure import cae, cae_batch
from .techniques import NoiseAdditionTechnique, QueryRestrictionTechnique, SamplingTechnique, SDCTechnique

__all__ = [
    "SDCTechnique", "SamplingTechnique", "QueryRestrictionTechnique", "NoiseAdditionTechnique",
    "cae", "cae_batch", "prepare",
]  # fmt: skip

__getattr__ = forward(__name__)  # privlab.cae.<any public name>: the path of before, kept for one release
