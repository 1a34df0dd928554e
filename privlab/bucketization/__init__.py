"""F-privacy bucketization (seed 000: Wang, Wang, Fu, Wong, "Inferential or Differential:
Privacy Laws Dictate"): validity of bucket settings, TwoSizeBucketing, MultiSizeBucketing,
the ILP optimum, bucket assignment, Anatomy, an independent checker and utility metrics."""

from .anatomy import AnatomyResult, anatomy, required_l
from .assign import bucketize, record_partition
from .checker import CheckReport, check_bucketization
from .ilp import OptimalResult, optimal, optimal_two_size
from .inference import add_fake_values, corruption_certainty, noisy_ratio, ratio_approximation, simulate_corruption
from .metrics import QueryPool, make_query_pool, mse_of_buckets, query_answers, relative_errors
from .multi_size import multi_size
from .settings import BucketSetting, caps, fprivacy, prepare, smallest_size
from .two_size import PRUNINGS, pair_list, two_size
from .validity import is_valid, naive_check

__all__ = [
    "AnatomyResult",
    "BucketSetting",
    "CheckReport",
    "OptimalResult",
    "PRUNINGS",
    "QueryPool",
    "add_fake_values",
    "anatomy",
    "bucketize",
    "caps",
    "check_bucketization",
    "corruption_certainty",
    "fprivacy",
    "is_valid",
    "make_query_pool",
    "mse_of_buckets",
    "multi_size",
    "naive_check",
    "noisy_ratio",
    "optimal",
    "optimal_two_size",
    "pair_list",
    "prepare",
    "query_answers",
    "ratio_approximation",
    "record_partition",
    "relative_errors",
    "required_l",
    "simulate_corruption",
    "smallest_size",
    "two_size",
]
