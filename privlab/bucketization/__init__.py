"""F-privacy bucketization (seed 000: Wang, Wang, Fu, Wong, "Inferential or Differential:
Privacy Laws Dictate").

=============  ===========================================================================
module         what
=============  ===========================================================================
settings       F-privacy thresholds, bucket settings (loss, MSE), input checks
validity       exact validity of a bucket setting for any number of sizes (and the naive
               per-size check that Example 5.32 refutes)
two_size       TwoSizeBucketing with its three search strategies (none / loss / full pruning)
multi_size     MultiSizeBucketing (recursive two-size splits)
ilp            the exact optimum by ILP (multi-size and two-size), with a time limit
assign         record partition and round-robin assignment: buckets from a setting
anatomy        Anatomy's l-diverse groups, the paper's baseline, and l-diversity eligibility
mechanisms     the mechanisms of kind ``bucketing`` (conf/mechanism/) and their checked release
checker        the independent F-privacy check of a released bucketization
metrics        MSE and the relative error of Anatomy's count-query workload
tables         sensitive attribute and quasi-identifiers of a table; Figure 7's domain scale-up
inference      Section 2.1 (noisy ratio of Laplace counts) and Section 6 (fake values
               against corruption), sampled beside exact
examples       the worked examples (Tables 1-2, Examples 4.20, 5.23, 5.32) and Remark
               3.12's count, recomputed; Figure 2's frequency table
derivations    the displayed formulas re-derived (sympy, or a grid against the defining
               conditions)
utility        Figures 4-5: every mechanism's release of a table vs theta, its MSE and the
               relative error of count queries
runtime        Figure 7: the searches' runtime vs n and vs the domain scale-up gamma
=============  ===========================================================================

Every function is pure: arrays and a seed in, arrays out.
"""

from .anatomy import (
    AnatomyResult,
    anatomy,
    l_diversity_eligible,
    l_needed,
    l_needed_table,
    max_eligible_l,
    required_l,
)
from .assign import bucketize, record_partition
from .checkers import CheckReport, check_bucketization
from .derivations import CASES as FORMULA_CASES
from .derivations import check_formula, formula_table
from .examples import (
    bucket_tables,
    capacity_table,
    count_query,
    count_settings,
    example1_table,
    example35_table,
    example420_table,
    frequency_table,
    frequency_tables,
    pair_list_table,
    partition_steps,
    search_setting_count,
    setting_count_table,
    stranded_records,
    table1,
    target_inference,
    uniform_sizes,
)
from .ilp import OptimalResult, optimal, optimal_two_size
from .inference import (
    add_fake_values,
    corruption_certainty,
    corruption_success,
    corruption_table,
    corruption_trial,
    noisy_ratio,
    prob_nonpositive,
    ratio_approximation,
    ratio_grid,
    ratio_summary,
    simulate_corruption,
)
from .mechanisms import (
    AnatomyBucketing,
    BucketingMechanism,
    MultiSizeBucketing,
    OptimalBucketing,
    OptimalTwoSizeBucketing,
    Plan,
    Release,
    TwoSizeBucketing,
    release_all,
    release_checked,
    timed_plan,
)
from .metrics import (
    QueryPool,
    make_query_pool,
    mse_of_buckets,
    pool_relative_errors,
    query_answers,
    relative_errors,
)
from .multi_size import multi_size
from .runtime import runtime_vs_n, runtime_vs_scaleup, timing_rows
from .settings import MAX_SIZE, BucketSetting, caps, check_codes, check_max_size, fprivacy, prepare, smallest_size
from .tables import Table, attribute_table, census_table, recode, scale_up, split_table
from .two_size import PRUNINGS, pair_list, two_size
from .utility import mse_table, re_table, release_grid
from .validity import is_valid, naive_check

__all__ = [
    "attribute_table",
    "census_table",
    "corruption_table",
    "example1_table",
    "example35_table",
    "example420_table",
    "formula_table",
    "frequency_tables",
    "l_needed_table",
    "mse_table",
    "ratio_grid",
    "re_table",
    "release_grid",
    "runtime_vs_n",
    "runtime_vs_scaleup",
    "setting_count_table",
    "timing_rows",
    "FORMULA_CASES",
    "capacity_table",
    "max_eligible_l",
    "pair_list_table",
    "MAX_SIZE",
    "bucket_tables",
    "check_codes",
    "check_formula",
    "check_max_size",
    "count_query",
    "count_settings",
    "frequency_table",
    "target_inference",
    "uniform_sizes",
    "partition_steps",
    "recode",
    "search_setting_count",
    "stranded_records",
    "table1",
    "AnatomyBucketing",
    "AnatomyResult",
    "BucketSetting",
    "BucketingMechanism",
    "CheckReport",
    "MultiSizeBucketing",
    "OptimalBucketing",
    "OptimalResult",
    "OptimalTwoSizeBucketing",
    "PRUNINGS",
    "Plan",
    "QueryPool",
    "Release",
    "Table",
    "TwoSizeBucketing",
    "add_fake_values",
    "anatomy",
    "bucketize",
    "caps",
    "check_bucketization",
    "corruption_certainty",
    "corruption_success",
    "corruption_trial",
    "fprivacy",
    "is_valid",
    "l_diversity_eligible",
    "l_needed",
    "make_query_pool",
    "mse_of_buckets",
    "multi_size",
    "naive_check",
    "noisy_ratio",
    "optimal",
    "optimal_two_size",
    "pair_list",
    "pool_relative_errors",
    "prepare",
    "prob_nonpositive",
    "query_answers",
    "ratio_approximation",
    "ratio_summary",
    "record_partition",
    "relative_errors",
    "release_all",
    "release_checked",
    "required_l",
    "scale_up",
    "simulate_corruption",
    "smallest_size",
    "split_table",
    "timed_plan",
    "two_size",
]
