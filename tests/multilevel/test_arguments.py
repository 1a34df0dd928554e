"""Bad arguments to every public function of privlab.multilevel (issue 11): one PrivlabError, one
line naming the parameter, and sizes that would exhaust memory refused before anything is allocated."""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError
from privlab import multilevel as ml
from privlab.experiments.multilevel import verdicts
from privlab.multilevel import derivations as dv
from privlab.multilevel import multinomial as mm

SS = np.random.SeedSequence
PRIOR = np.full(4, 0.25)
GRID = dv.grid([2], [[0.3, 0.1, 0.5]], 0, 3)
F = np.ones((3, 3, 3), dtype=np.int64)
HUGE = 10**9
LONG = np.broadcast_to(np.int8(0), (HUGE // 8,))  # 125 million tuples, no memory (a stride-0 view)
MARGINAL = {"kind": "marginal", "column": "x", "dataset": {"name": "census"}}
PRIOR_OF, PS3 = {"x": PRIOR}, [0.3, 0.1, 0.5]
REFERENCE = Path(__file__).resolve().parents[2] / "experiments" / "multilevel" / "reference" / "quick"


def _f(name, prior):
    return np.ones((prior.size,) * 4, dtype=np.int64)


def _verdict(name: str):
    """A verdict given its reference table and a printed block that is not a mapping."""
    df = pd.read_csv(REFERENCE / name / "result.csv", dtype={"printed": str}).fillna({"printed": "", "detail": ""})
    blocks = {arg: {} for arg in inspect.signature(getattr(verdicts, name)).parameters if arg != "df"}
    return getattr(verdicts, name)(df, **{**blocks, "printed": ["not", "a", "mapping"]})


# (function name, call, words the one-line message holds)
CASES = [
    ("uni_pert_matrix", lambda: ml.uni_pert_matrix(0.5, HUGE), "exceed the"),
    ("uni_pert_matrix", lambda: ml.uni_pert_matrix(1.5, 3), "p must be in [0, 1]"),
    ("exact_joint", lambda: ml.exact_joint(np.full(50, 0.02), [0.1] * 5, 50), "exact_joint: domain_size 50"),
    ("exact_joint", lambda: ml.exact_joint([1.0], [0.3], 1), "domain_size must be"),
    ("posterior", lambda: ml.posterior(PRIOR, [0.3], 4, [1]), "observed must be a mapping"),
    ("posterior", lambda: ml.posterior(PRIOR, [0.3], 4, {3: 0}), "observed copy index"),
    ("copy_given_x", lambda: ml.copy_given_x(PRIOR, [0.3], 4, 2), "i must be an integer in [0, 0]"),
    ("best_copy_posterior", lambda: ml.best_copy_posterior([0.5, 0.5], 0.3, 4, 0), "prior must have domain_size"),
    ("best_copy_posterior", lambda: ml.best_copy_posterior(PRIOR, 0.3, 4, 4), "y must be an integer"),
    ("expected_confidence_independent", lambda: ml.expected_confidence_independent([0.3] * 11, 3), "at most 10"),
    ("expected_confidence_single", lambda: ml.expected_confidence_single(0.0, 3), "p must be in (0, 1]"),
    ("expected_change_points", lambda: ml.expected_change_points([], 3), "ps must hold at least 1"),
    ("uv", lambda: ml.uv(0.5, 0.4, 0.1, 10), "uv needs p_r < p < p_l"),
    ("uv", lambda: ml.uv(0.3, 0.5, 0.1, 1), "domain_size must be"),
    ("uv", lambda: ml.uv(float("nan"), 0.5, 0.1, 10), "p must be a finite number"),
    ("uni_pert", lambda: ml.uni_pert([0, 1], 0.3, 2, seed=-1), "seed must be"),
    ("independent_copies", lambda: ml.independent_copies(LONG, [0.3] * 8, 3), "exceed the"),
    ("release_in_order", lambda: ml.release_in_order(LONG, [0.3] * 8, 3), "exceed the"),
    ("release_in_order", lambda: ml.release_in_order([0, 1], [], 3), "ps must hold at least 1"),
    ("MultiLevelPerturber", lambda: ml.MultiLevelPerturber([0, 1], 3, max_bytes=-1), "max_bytes must be"),
    ("MultiLevelPerturber", lambda: ml.MultiLevelPerturber([0, 1], 3, store="dense", max_bytes=7).release(0.5), "= 7"),
    ("gaussian_prior", lambda: ml.gaussian_prior(HUGE, 1.0, 1.0), "exceed the"),
    ("gaussian_prior", lambda: ml.gaussian_prior(5, 1.0, 0.0), "sd must be in (0, inf)"),
    ("lognormal_prior", lambda: ml.lognormal_prior(5, 10, 0.5, -1), "bin_width must be"),
    ("marginal_prior", lambda: ml.marginal_prior(["a", "b"], 3), "2 distinct values, domain_size is 3"),
    ("binned_prior", lambda: ml.binned_prior([1.0, np.nan], 3, 0), "bin_width must be"),
    ("binned_prior", lambda: ml.binned_prior([np.nan], 3, 5), "values must hold at least 1"),
    ("binned_prior", lambda: ml.binned_prior([1.0], HUGE, 5), "exceed the"),
    ("prior_domain", lambda: ml.prior_domain({"kind": "uniform", "domain_size": 1}, 5), "domain_size must be"),
    ("make_prior", lambda: ml.make_prior({"kind": "uniform", "domain_size": HUGE}, 5), "domain_size must be at most"),
    ("make_prior", lambda: ml.make_prior({"kind": "binned", "column": "x", "bin_width": 1, "dataset": {}}, 3), "name"),
    ("describe_prior", lambda: ml.describe_prior([0.5, 0.6]), "prior must sum to 1"),
    ("prior_counts", lambda: mm.prior_counts(np.array([0.5, 0.6]), 10, 0), "prior must sum to 1"),
    ("prior_counts", lambda: mm.prior_counts(np.array([0.5, 0.5]), -1, 0), "trials must be an integer in"),
    ("stratum_counts", lambda: mm.stratum_counts(5, 10, [], 2, 0), "x must be an integer in"),
    ("stratum_counts", lambda: mm.stratum_counts(0, -1, [], 2, 0), "n must be an integer in"),
    (
        "collusion_counts_multinomial",
        lambda: mm.collusion_counts_multinomial(PRIOR, [1.5], 4, 10, 0),
        "ps[0] must be in",
    ),
    ("collusion_counts_multinomial", lambda: mm.collusion_counts_multinomial(PRIOR, [0.5], 4, -3, 0), "trials must be"),
    ("PriorSpec", lambda: ml.PRIOR.check("prior", {**MARGINAL, "missing": 0, "extra": 1}), "parameter prior.'extra'"),
    ("alias_table", lambda: ml.alias_table([0.5, -0.5, 1.0]), "prior must be non-negative"),
    ("sample_prior", lambda: ml.sample_prior(PRIOR, HUGE), "sample_prior: 1,000,000,000 draws"),
    ("collusion_counts_chunk", lambda: ml.collusion_counts_chunk(np.full(50, 0.02), [0.1] * 4, 50, 10, 0), "F:"),
    ("collusion_counts_chunk", lambda: ml.collusion_counts_chunk(PRIOR, [0.3], 4, HUGE, 0), "tuples = "),
    (
        "collusion_chunk_stratified",
        lambda: ml.collusion_chunk_stratified(np.full(50, 0.02), [0.1] * 4, 50, 10, 0),
        "F: domain_size 50",
    ),
    ("collusion_chunk_stratified", lambda: ml.collusion_chunk_stratified(PRIOR, [0.3], 4, 10, 0, out=F), "out must"),
    ("release_plan", lambda: ml.release_plan([0.3, "x"], 3), "ps[1] must be a real number"),
    ("collusion_identity", lambda: ml.collusion_identity(PRIOR, [0.3], 4, 10, chunk=0, seed=0), "chunk must be"),
    (
        "collusion_counts",
        lambda: ml.collusion_counts(PRIOR, [0.3], 4, 10**12, chunk=1, seed=0, kernel="stratified"),
        "raise chunk",
    ),
    (
        "collusion_counts",
        lambda: ml.collusion_counts(PRIOR, [0.3], 4, 10, chunk=2**28, seed=0, kernel="perturber"),
        "perturber kernel",
    ),
    ("margin", lambda: ml.margin(np.ones((3, 4)), 0), "every axis of the same length"),
    ("margin", lambda: ml.margin(-F, 0), "non-negative"),
    ("margin", lambda: ml.margin(F, 2), "i must be an integer in [0, 1]"),
    ("counts_given", lambda: ml.counts_given(F, [0]), "observed must be a mapping"),
    ("counts_given", lambda: ml.counts_given(np.array(["a"]), {}), "numeric array"),
    ("frequencies", lambda: ml.frequencies([1, -1]), "counts must be non-negative"),
    ("frequencies", lambda: ml.frequencies(np.ones((2, 2))), "counts must be 1-dimensional"),
    ("independent_all_other", lambda: ml.independent_all_other([0.4, 0.0], 10), "ps[1] must be in (0, 1]"),
    ("independent_all_other", lambda: ml.independent_all_other([0.4], 1), "domain_size"),
    ("check_trials", lambda: ml.check_trials(-1), "trials must be"),
    (
        "IndependentCopies",
        lambda: ml.IndependentCopies().pooled_confidence([0, 1], [[0, 1]], [0.3, 0.2], 3),
        "copies must have shape",
    ),
    ("MultiPert", lambda: ml.MultiPert(store="tape"), "store must be one of"),
    ("MultiPert", lambda: ml.MultiPert().pooled_confidence([0, 1], [[0, 5]], [0.3], 3), "copies must hold codes"),
    ("confidence_chunk", lambda: ml.confidence_chunk(([], [0.3], 3, HUGE, 0)), "likelihoods = "),
    (
        "confidence_curves",
        lambda: ml.confidence_curves([ml.MultiPert()], [0.3], 3, 10**12, chunk=1, seed=0),
        "raise chunk",
    ),
    ("confidence_curves", lambda: ml.confidence_curves([], [0.3], 3, 10, chunk=5, seed=0), "at least one"),
    ("measure_overhead", lambda: ml.measure_overhead(10, HUGE, 3, 0.5, 1, 0, seed=0), "m = 1,000,000,000 releases"),
    ("measure_overhead", lambda: ml.measure_overhead(HUGE, 5, 3, 0.5, 1, 0, seed=0), "n = 1,000,000,000 tuples"),
    ("change_points_se", lambda: ml.change_points_se([0.5], [0]), "n > 0"),
    ("hiv_example", lambda: ml.hiv_example(10**4, 0.4, 0.2), "domain_size must be an integer in [-inf, 1,000]"),
    ("hiv_requirement3", lambda: ml.hiv_requirement3(3, 0.4, 0.2, prior=[0.5, 0.5]), "prior must have"),
    ("independent_pair", lambda: ml.independent_pair(10, 0.4, 1.5), "p_second must be in (0, 1]"),
    ("arithmetic", lambda: ml.arithmetic("import os"), "arithmetic on numbers"),
    # the formula audit
    ("grid", lambda: dv.grid([2], [[0.3]], 0, 7), "max_copies must be"),
    ("grid", lambda: dv.grid([50], [[0.3, 0.2, 0.1, 0.05, 0.01]], 0, 5), "grid: domain_size 50"),
    ("neighbour_points", lambda: dv.neighbour_points([{"p": 0.3}]), "GridPoint"),
    ("uni_pert_cases", lambda: dv.uni_pert_cases({"same": "p"}, [{"p": 0.3, "s": 3}]), "lacks the key(s) other"),
    ("uni_pert_cases", lambda: dv.uni_pert_cases({"same": "p", "other": "1"}, []), "non-empty list"),
    ("conditional_cases", lambda: dv.conditional_cases({}, [{"pa": 0.3, "pb": 0.5, "s": 3}]), "lacks the key(s)"),
    ("uv_cases", lambda: dv.uv_cases({"u_eq": "p"}, [{"p": 0.3}]), "printed lacks the key(s)"),
    ("printed_uv", lambda: dv.printed_uv({"u_eq": "p"}), "printed lacks the key(s)"),
    ("algorithm_joint", lambda: dv.algorithm_joint(np.full(50, 0.02), [0.3] * 5, 50), "algorithm_joint: domain_size"),
    ("chain_cases", lambda: dv.chain_cases({"same": "p"}, GRID), "printed lacks the key(s)"),
    (
        "chain_cases",
        lambda: dv.chain_cases({"same": "p", "other": "1", "step_same": "1", "step_other": "1"}, []),
        "non-empty list of GridPoint",
    ),
    ("lemma2_cases", lambda: dv.lemma2_cases({"bound": "c", "step_same": "1"}, GRID, [0.1], [HUGE]), "steps"),
    ("estimator_cases", lambda: dv.estimator_cases("grid"), "GridPoint"),
    ("uni_pert_cases", lambda: dv.uni_pert_cases({"same": "p", "other": "p"}, []), "non-empty list"),
    ("index_case", lambda: dv.index_case("1 <= i <= n", "n", ["n"]), "symbols must be a mapping"),
    ("formula_table", lambda: dv.formula_table({"uni_pert": {}}, {}, {}, {}, tol=1e-9), "formulas lacks the key"),
    # the experiments' tables
    ("collusion_table", lambda: ml.collusion_table(PRIOR_OF, [0.3, 0.1], {}, _f), "ps must hold p_a, p_b, p_c"),
    ("collusion_table", lambda: ml.collusion_table(PRIOR_OF, PS3, {"y": [1, 2, 3]}, _f), "cells must have an entry"),
    ("collusion_table", lambda: ml.collusion_table(PRIOR_OF, PS3, {"x": [1, 2, 9]}, _f), "cells.x must lie in 1..4"),
    ("collusion_table", lambda: ml.collusion_table(PRIOR_OF, PS3, {"x": [1, 2, 3]}, F), "counts must be a function"),
    ("equivalence_table", lambda: ml.equivalence_table(PRIOR_OF, PS3, {"x": {"x": 1}}, _f), "lacks the key(s) rec"),
    ("agreement_table", lambda: ml.agreement_table({}, PS3, _f, 5), "priors must hold at least one law"),
    ("agreement_table", lambda: ml.agreement_table(PRIOR_OF, PS3, _f, 0), "min_expected must be in (0, inf)"),
    (
        "confidence_table",
        lambda: ml.confidence_table({"m": ml.MultiPert()}, [], 3, 10, chunk=5, seed_sequence=SS),
        "ps must",
    ),
    ("overhead_table", lambda: ml.overhead_table([], 5, 3, 0.5, 1, 0, seed_sequence=int), "table_sizes must be"),
    ("overhead_table", lambda: ml.overhead_table([10], 5, 3, 0.5, 1, 0, seed_sequence=3), "seed_sequence must be a"),
    ("make_priors", lambda: ml.make_priors([{"kind": "uniform"}], 3), "distributions must be a mapping"),
    ("prior_table", lambda: ml.prior_table(PRIOR_OF, {"x": {"mean": 1}}), "specs['x'] lacks the key(s) kind"),
    ("example_table", lambda: ml.example_table({}, 10, 0.4, 0.2, 10, [0.4]), "independent_ps must be the slide's two"),
    ("example_table", lambda: ml.example_table({"ratio": {"value": "1"}}, 10, 0.4, 0.2, 10, [0.4, 0.4]), "expression"),
    # the claims (each also refuses a table without its columns: tests/multilevel/test_verdicts.py)
    *[(f"verdicts.{name}", lambda name=name: _verdict(name), "printed must be a mapping") for name in verdicts.__all__],
]


@pytest.mark.parametrize("name, call, words", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_bad_argument_is_one_line(name, call, words):
    with pytest.raises(PrivlabError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and len(message) < 300
    assert words is None or words in message, message


def _public_callables():
    found = set()
    library = [importlib.import_module(f"privlab.multilevel.{m.name}") for m in pkgutil.iter_modules(ml.__path__)]
    for module, names, prefix in (
        *((m, getattr(m, "__all__", ()), "") for m in library if not m.__name__.endswith("._checks")),
        (verdicts, verdicts.__all__, "verdicts."),
    ):
        for name in names:
            obj = getattr(module, name)
            ours = getattr(obj, "__module__", "").startswith("privlab")
            if ours and (inspect.isfunction(obj) or (inspect.isclass(obj) and name not in ("Case", "GridPoint"))):
                found.add(prefix + name)
    found -= {"PerturbationScheme", "Step"}  # a Protocol; a frozen record of release_plan (no checks of its own)
    found -= {"uni_pert_law", "chain_kernel"}  # symbolic: sympy expressions in, no sizes or ranges to check
    return found


def test_every_public_function_has_a_bad_argument_case():
    covered = {name for name, _, _ in CASES} | {"uni_pert"}  # uni_pert: tests/multilevel/test_mechanism.py
    assert _public_callables() - covered == set()


def test_dense_store_refuses_the_release_that_would_overflow_it():
    store = ml.MultiLevelPerturber(np.zeros(4, int), 3, store="dense", max_bytes=40)
    for p in (0.9, 0.8):
        store.release(p)  # 2 copies x 4 tuples x 4 bytes = 32 bytes
    assert store.release(0.9).size == 4  # an earlier p: no new copy
    with pytest.raises(PrivlabError, match="48 bytes of copies"):
        store.release(0.7)
    assert ml.MultiLevelPerturber(np.zeros(4, int), 3, max_bytes=0).release(0.5).size == 4  # history: no limit


BAD_P = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).filter(lambda v: not 0 < v <= 1 or math.isnan(v)),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
)


@settings(max_examples=60, deadline=None)
@given(BAD_P)
def test_any_bad_retention_probability_is_refused(p):
    for call in (
        lambda: ml.uni_pert([0, 1], p, 3),
        lambda: ml.release_in_order([0, 1], [0.3, p], 3),
        lambda: ml.exact_joint(np.full(3, 1 / 3), [p], 3),
        lambda: ml.expected_change_points([p], 3),
        lambda: ml.uv(p, 0.9, 0.1, 5),
        lambda: ml.hiv_example(10, 0.4, p),
    ):
        with pytest.raises(PrivlabError) as info:
            call()
        assert "\n" not in str(info.value)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 10**12), st.integers(1, 6))
def test_any_size_is_checked_before_allocating(s, k):
    """Every call either fits in MAX_CELLS or is refused in one line, never a MemoryError."""
    for cells, call in (
        (s * s, lambda: ml.uni_pert_matrix(0.5, s)),
        (s ** (1 + k), lambda: ml.exact_joint(np.full(s, 1 / s) if s <= 10**5 else [1.0], [0.5] * k, s)),
        (s, lambda: ml.gaussian_prior(s, 1.0, 1.0)),
    ):
        if cells <= min(ml.MAX_CELLS, 10**5):  # small enough to run here
            call()
        elif cells > ml.MAX_CELLS:  # refused by size, or beyond int32 codes
            with pytest.raises(PrivlabError, match="exceed the|domain_size must be an integer in"):
                call()
