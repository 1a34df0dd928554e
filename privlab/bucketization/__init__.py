"""F-privacy bucketization (Wang, Wang, Fu, Wong, "Inferential or Differential: Privacy Laws
Dictate", seed 000).

The mechanisms and the calls a user makes; everything else is imported from the module that defines
it: settings, validity, two_size, multi_size, ilp, assign, anatomy, mechanisms, checkers, metrics,
tables, inference, examples, derivations, utility, runtime. Every function is pure: arrays and a
seed in, arrays out.
"""

from .._lazy import forward
from .anatomy import anatomy
from .checkers import check_bucketization
from .mechanisms import (
    AnatomyBucketing,
    BucketingMechanism,
    MultiSizeBucketing,
    OptimalBucketing,
    OptimalTwoSizeBucketing,
    TwoSizeBucketing,
)
from .multi_size import multi_size
from .settings import BucketSetting
from .tables import Table, census_table
from .two_size import two_size  # the searches by the names of their modules, as before

__all__ = [
    "BucketingMechanism", "AnatomyBucketing", "TwoSizeBucketing", "MultiSizeBucketing", "OptimalBucketing",
    "OptimalTwoSizeBucketing", "BucketSetting", "Table", "census_table", "check_bucketization", "anatomy",
    "two_size", "multi_size",
]  # fmt: skip

# privlab.bucketization.<any public name>: the path of before, kept for one release
__getattr__ = forward(
    __name__, renamed={"FORMULA_CASES": "derivations.CASES", "smallest_size": "settings.smallest_size"}
)
