"""Isolation in public databases: recursive histograms, perturbation and the isolator.

Chawla, Dwork, McSherry, Smith, Wee, "Towards Privacy in Public Databases" (talk, seed 002).

The sanitizers and the calls a user makes; everything else is imported from the module that defines
it: metric, distances, histogram, sanitizers, adversaries, mechanisms, simulation, sweeps, rates,
checkers, data, utility, derivations. Every function is pure: arrays and a seed in, arrays out.
"""

from .._lazy import forward
from .histogram import Histogram, recursive_histogram
from .mechanisms import AuxOnly, BadSanitizer, HistogramPlusPerturbation, Perturbation, RecursiveHistogram, Sanitizer
from .metric import isolates, isolation_rate

__all__ = [
    "Sanitizer", "AuxOnly", "RecursiveHistogram", "Perturbation", "HistogramPlusPerturbation", "BadSanitizer",
    "Histogram", "recursive_histogram", "isolates", "isolation_rate",
]  # fmt: skip

__getattr__ = forward(__name__)  # privlab.isolation.<any public name>: the path of before, for one release
