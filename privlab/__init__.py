"""privlab: reproduce, sweep and regression-check the experiments of five privacy papers.

One library package per paper (pure: arrays and a seed in, arrays out; the mechanisms,
their exact twins, the artifact checkers, the adversaries and the Monte Carlo engines):
`privlab.bucketization`, `privlab.multilevel`, `privlab.isolation`, `privlab.lpb`,
`privlab.cae`; data sets in `privlab.datasets`. The core is paper-independent: the registry,
the parameter contract (`privlab.params`), verdicts (`privlab.claims`), statistics
(`privlab.stats`), the run context, runner, result store, check/compare, report, ledger,
sweeps and the command line.
"""

from .errors import PrivlabError

__version__ = "0.1.0"
__all__ = ["PrivlabError", "__version__"]
