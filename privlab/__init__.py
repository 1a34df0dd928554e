"""privlab: reproduce, sweep and regression-check the experiments of five privacy papers.

Library modules (pure: arrays and a seed in, arrays out): `privlab.lpb`,
`privlab.bucketization`, `privlab.multilevel`, `privlab.isolation`, `privlab.cae`,
`privlab.sdc`; data sets in `privlab.datasets`. The runner (`privlab.runner`,
`privlab.cli`) owns configs, files, progress bars and parallelism.
"""

from ._validation import PrivlabError

__version__ = "0.1.0"
__all__ = ["PrivlabError", "__version__"]
