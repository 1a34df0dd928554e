"""Every public function of privlab.cae refuses bad arguments in one line naming the argument,
sizes that would exhaust memory included (issue 11, the Python API)."""

import numpy as np
import pandas as pd
import pytest

from privlab import PrivlabError, cae, registry
from privlab.cae import derivations as dv
from privlab.cae import query_restriction
from privlab.cae.examples import integer_steps
from privlab.experiments.cae import verdicts
from privlab.runner import compose, make_context, run_table

X, P = [1, 3, 8, 9], [0.15, 0.10, 0.70, 0.05]
RNG = np.random.default_rng(0)
DF = pd.DataFrame({"c": RNG.integers(1, 6, 30), "a": RNG.integers(0, 3, 30), "b": RNG.integers(0, 2, 30)})
DATA = cae.prepare(DF, "c", ["a", "b"], [0, 1])
UNIFORM = [0.5, 0.5]
MOMENTS = cae.unique_noise(20, np.arange(5.0))
GRIDS = {"instances": 1, "n_values": [4], "q_values": [2], "noise_levels": [10], "domain_sizes": [5], "M_values": [2]}
FORMULAS = dict.fromkeys(dv.PRINTED_FORMULAS, "p")
STEPS = integer_steps(X, P)
PAIRS = cae.salary_table({"a": {"label": "A", "group": "g", "maximum": 107, "average": 78.5}})
SDC_TABLE = cae.run_series(
    {"d": DATA}, [("s", cae.SamplingTechnique([50]))], 2, seed_sequence=lambda *k: 0, labels={"d": "D"}
)
SDC_BLOCKS = {"printed": {}, "limits": {}, "techniques": {}, "datasets": {"d": {"role": "D"}}, "lp_check_records": 0}


def _acs_like(n=20, missing=True):
    v = np.linspace(-1000.0, 300_000.0, n)
    return pd.DataFrame(
        {
            "PINCP": pd.array(np.where(np.arange(n) % 5 == 0, np.nan, v) if missing else v, dtype="Float64"),
            "AGEP": pd.array(np.arange(n) % 50 + 15, dtype="Int64"),
            "INDP_CAT": pd.array([None if i % 3 == 0 else i % 18 for i in range(n)], dtype="Int64"),
        }
    )


CASES = [
    # the measure
    (lambda: cae.min_entropy(X, P, -1), "eps must be in"),
    (lambda: cae.min_entropy(np.arange(30_000.0), np.full(30_000, 1 / 30_000), 1), "values must hold at most 20,000"),
    (lambda: cae.cae(np.arange(3000.0), np.full(3000, 1 / 3000)), "values must hold at most 2,000"),
    (lambda: cae.breakpoints(np.arange(3000.0)), "values must hold at most 2,000"),
    (lambda: cae.entropy_curves([1, 2], [UNIFORM], chunk=0), "chunk must be"),
    (lambda: cae.entropy_curves(np.sort(RNG.random(1500)), np.full((1, 1500), 1 / 1500)), "GiB"),
    (lambda: cae.covering_entropy(X, P, "abc"), "windows must be a list"),
    (lambda: cae.covering_entropy(X, P, [[1], [3], [8], [9, 10]]), "windows must split"),
    (lambda: cae.covering_entropy(X, P, [[1], [3], ["a"], [9]]), "windows must hold numbers"),
    # data
    (lambda: cae.attribute_domain(pd.Series([0, 1, 10**9], name="x")), "more than 1,000,000"),
    (lambda: cae.encode([1], [2, 1]), "domain must be sorted"),
    (lambda: cae.group_ids("df", ["a"]), "df must be a pandas DataFrame"),
    (lambda: cae.group_ids(DF, "a"), "attributes must be a list"),
    (lambda: cae.distinct_values([1, 2], exclude=3), "exclude must be a list"),
    (lambda: cae.domain_table("rows", {}, {}), "rows must be a mapping"),
    (lambda: cae.domain_table({"a": {"d": "c"}}, {}, {}), "printed must have an entry for every attribute"),
    (lambda: cae.code_datasets(["pums"], lambda b: DF), "codings must be a mapping"),
    (lambda: cae.code_datasets({"d": {"role": "x"}}, lambda b: DF), r"codings\['d'\] must be a coding block"),
    (lambda: cae.code_datasets({"d": None}, "load"), "load must be a function"),
    (lambda: cae.prepare(DF, "c", ["a"], [0, 1], round_to=0), r"round_to must be an integer in \[1"),
    (lambda: cae.prepare(DF, "c", ["a"], [0, 1], n_records=0), r"n_records must be an integer in \[1"),
    (lambda: cae.prepare(DF, "c", ["a"], [0, 1], n_records=10**7), "n_records must be"),
    (lambda: cae.prepare(DF, "c", ["a"], []), "sk_sizes must be a non-empty list"),
    (lambda: cae.prepare(DF, "c", ["a"], [0, 0]), "must not repeat"),
    (lambda: cae.prepare(DF, "c", "a", [0]), "sk must be a list"),
    (lambda: cae.prepare(DF, "c", ["a"], [0], unit=0), "unit must be in"),
    (lambda: cae.prepare(DF, "c", ["a"], [0], drop_missing="yes"), "drop_missing must be true or false"),
    (lambda: cae.prepare(DF.assign(c=np.arange(30) * 100 + np.arange(30) % 2), "c", ["a"], [0]), "more than 1,000"),
    (lambda: cae.prepare(_acs_like(), "PINCP", ["AGEP"], [0], round_to=10, unit=1000), "set drop_missing"),
    (lambda: cae.prepare(_acs_like(missing=False), "PINCP", ["AGEP"], [0]), "must be integer-valued"),
    (lambda: cae.prepare("df", "c", ["a"], [0]), "df must be a pandas DataFrame"),
    # Section 3's examples
    (lambda: cae.salary_pair(100, 200), "average must be in"),
    (lambda: cae.salary_pair(100, 100), "must differ"),
    (lambda: cae.salary_pair(100, 50, unit=0), "unit must be in"),
    (lambda: cae.salary_table({}), "examples must be a non-empty mapping"),
    (lambda: cae.salary_table({"a": {"maximum": 2, "average": 1}}), r"examples\['a'\] must have label"),
    (lambda: integer_steps(X, P, printed=[1.3]), "printed must be a mapping"),
    # intruder models
    (lambda: cae.sampling_probs([0], [0], [True], 10**6, 1000), "GiB"),
    (lambda: cae.sampling_probs([0, 1], [0], [True, False], 2, 3), "same length"),
    (lambda: cae.interval_probs([0, 1], [0], [0], 2, 3), "same length"),
    (lambda: cae.interval_probs([0, 5], [0, 0], [1, 1], 2, 3), r"groups must be in \[0, 1\]"),
    (lambda: cae.interval_probs(np.zeros(10**6, int), np.zeros(10**6, int), np.zeros(10**6, int), 1, 200), "GiB"),
    (lambda: cae.printed_formula_gap(10**8, 25, 50), "n_records must be"),
    # techniques
    (lambda: cae.sample_size(0.5, 10**8), "n must be an integer"),
    (lambda: cae.sample_records(10, 1.5, 0), "fraction must be in"),
    (lambda: cae.sample("df", 0.5, 0), "df must be a pandas DataFrame"),
    (lambda: cae.QueryRestriction([1, 2, 3, 4], 3, 0), "even"),
    (lambda: cae.QueryRestriction([1, 2, 3, 4], 2, 0).bounds(method="simplex"), "method must be one of"),
    (lambda: cae.QueryRestriction([1, 2, 3, 4], 2, 0).bounds(records=[4]), "records must be indices"),
    (lambda: cae.lp_bounds("A", [1], 0, 1, [0]), "A must be"),
    (lambda: cae.lp_bounds(np.ones((2, 3)), [1], 0, 1, [0]), "b must have one entry per row"),
    (lambda: cae.lp_bounds(np.ones((1, 3)), [1], 1, 0, [0]), "d_max must be in"),
    (lambda: cae.bounds_to_indices([0], [1, 2], [0, 1, 2]), "L and U must have the same length"),
    (lambda: cae.bounds_to_indices([0], [1], [0, 2, 1]), "domain must be strictly increasing"),
    (lambda: cae.noise_max(150, 25), "level must be in"),
    (lambda: cae.binomial_noise_codes([[0, 5]], [3, 3], 10, 0), r"codes\[:, 1\] must be domain codes"),
    (lambda: cae.binomial_noise_codes([[0, 1]], [3], 10, 0), "one entry per column"),
    (lambda: cae.add_binomial_noise("df", 10, 0), "df must be a pandas DataFrame"),
    (lambda: cae.add_binomial_noise(DF, 10, 0, domains=[1]), "domains must map"),
    (lambda: cae.noise_intervals([0, 30], 2, 25), "released_codes must be domain codes"),
    (lambda: cae.SamplingTechnique(levels=[10]).release("data", 10, 0), "data must be an SKData"),
    (lambda: cae.SamplingTechnique(levels=[10]).release(DATA, 0, 0), "percentages in"),
    (lambda: cae.NoiseAdditionTechnique(levels=[10]).release(DATA, 150, 0), "level must be in"),
    (lambda: cae.QueryRestrictionTechnique(levels=[2]).release(DATA, 3, 0), "even integers"),
    (lambda: cae.SamplingTechnique(levels=[]), "levels must be a non-empty list"),
    # exact counterparts and checkers
    (lambda: cae.unique_noise(100, np.arange(600.0)), "GiB"),
    (lambda: cae.unique_sampling(0, 10, np.arange(5.0)), "percent must be in"),
    (lambda: cae.unique_sampling_var(50, 10, [0, 1], (1, 2)), "moments must be the four arrays"),
    (lambda: cae.unique_noise_var([0, 5], [0, 1], MOMENTS), "recs must be record indices"),
    (lambda: cae.unique_noise_var([0, 1], [0, 9], MOMENTS), "codes must be domain codes"),
    (lambda: cae.chi2_agreement([1, 2], [1], [1, 1]), "same shape"),
    (lambda: cae.chi2_agreement([1], [1], [-1]), "se must be non-negative"),
    (lambda: cae.check_bounds([1, 2], np.ones((1, 3)), [3], [1, 2], [1, 2], 0, 5, 0, 0), "A must have one row"),
    (lambda: cae.check_noise([[0]], [[0]], [1], 120), "percent must be in"),
    # the Monte Carlo
    (lambda: cae.unique_rows(np.zeros(3)), "P must be 2-dimensional"),
    (lambda: cae.cae_rows([], np.arange(3.0)), "blocks must be a non-empty list"),
    (lambda: cae.cae_rows([np.zeros((1, 2))], np.arange(3.0)), "one column per grid value"),
    (lambda: cae.repetition_rows("data", cae.SamplingTechnique([10]), 10, 0, 0), "data must be an SKData"),
    (lambda: cae.repetition_rows(DATA, "sampling", 10, 0, 0), "technique must be an SDCTechnique"),
    (lambda: cae.repetition_rows(DATA, cae.SamplingTechnique([10]), 10, -1, 0), "rep must be"),
    (lambda: cae.summarise("long", 3), "long must be a DataFrame"),
    (lambda: cae.labelled_rows(("label", ())), "task must be a pair"),
    (lambda: cae.run_series({"d": DATA}, [("s", "x")], 1, seed_sequence=lambda *k: 0), "techniques must be"),
    (lambda: cae.run_series({"d": DATA}, [], 1, seed_sequence=3), "seed_sequence must be a function"),
    (lambda: cae.run_series({"d": "x"}, [], 1, seed_sequence=lambda *k: 0), r"data\['d'\] must be an SKData"),
    (lambda: cae.run_series({"d": DATA}, [], 10**5, seed_sequence=lambda *k: 0), "repetitions must be"),
    (lambda: cae.run_series({"d": DATA}, [], 1, seed_sequence=lambda *k: 0, labels={}), "labels must map every"),
    # the derivations
    (lambda: dv.sampling_probability("f/", {"f": 1, "Ms": 1, "Mo": 2, "D": 3}), "not a formula sympy can read"),
    (lambda: dv.query_count("floor(2*n/Q) - 1 + x", [4], [2]), "unknown symbol"),
    (lambda: dv.brute_force_entropy(np.arange(20.0), np.full(20, 0.05), 1), "at most 14 values"),
    (lambda: dv.coverings(np.arange(20.0), 1), "at most 14 values"),
    (lambda: dv.area_integral(lambda x, p: 0.0, step=0.3), "step must divide 1"),
    (lambda: dv.recurrence(instances=0), "instances must be"),
    (lambda: dv.noise_support([3]), "M_values must be even"),
    (lambda: dv.query_rank([1000], [2]), "n_values"),
    (lambda: dv.formula_table("H0", X, P, {}, {}, {}, **GRIDS), "printed must be a mapping"),
    (lambda: dv.formula_table({"H0": "p"}, X, P, {}, {}, {}, **GRIDS), r"printed lacks the key\(s\) sampling"),
    (lambda: dv.formula_table(FORMULAS, X, P, {}, {"low": 1}, {}, **GRIDS), "salary must be a mapping with low"),
    (lambda: dv.formula_table(FORMULAS, X, P, {}, {"low": 1, "high": 5, "step": 0}, {}, **GRIDS), "salary.step"),
    # the verdicts
    (lambda: verdicts.example("df", printed={}, x=X, p=P, limits={}), "df must be a result table \\(a DataFrame\\)"),
    (lambda: verdicts.example(STEPS, printed={}, x=X, p=[0.5, 0.6], limits={}), "p must sum to 1"),
    (lambda: verdicts.table1_fig1(STEPS, printed={}, limits={}), "df lacks the column\\(s\\) example"),
    (lambda: verdicts.table1_fig1(PAIRS.iloc[:1], printed={}, limits={}), "df must hold two examples"),
    (lambda: verdicts.formulas(STEPS, printed={}), "df lacks the column\\(s\\) key"),
    (lambda: verdicts.sdc(STEPS, **SDC_BLOCKS), "df lacks the column\\(s\\) dataset"),
    (lambda: verdicts.fig2_sampling(SDC_TABLE, **{**SDC_BLOCKS, "limits": 3}), "limits must be a mapping"),
    (lambda: verdicts.fig2_query_restriction(SDC_TABLE, **{**SDC_BLOCKS, "datasets": {}}), "datasets must have a"),
    (lambda: verdicts.fig4_noise(SDC_TABLE, **{**SDC_BLOCKS, "techniques": {"s": 1}}), r"techniques\['s'\] must"),
    (lambda: verdicts.table2_data(STEPS, printed={}), "df lacks the column\\(s\\) attribute"),
]


@pytest.mark.parametrize("call, message", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_bad_arguments_fail_in_one_line(call, message):
    with pytest.raises(PrivlabError, match=message) as err:
        call()
    assert "\n" not in str(err.value)


def test_lp_limit_and_record_limit(monkeypatch):
    monkeypatch.setattr(query_restriction, "MAX_RECORDS", 10)
    with pytest.raises(PrivlabError, match="at most 10 records"):
        cae.QueryRestriction(np.arange(12.0), 2, 0)
    monkeypatch.setattr(query_restriction, "MAX_LP_RECORDS", 2)
    with pytest.raises(PrivlabError, match="method='lp' bounds at most 2 records"):
        cae.QueryRestriction(np.arange(8.0), 2, 0).bounds(method="lp")


def test_acs_coding_drops_missing_income_and_codes_missing_industry():
    data = cae.prepare(_acs_like(), "PINCP", ["AGEP", "INDP_CAT"], [0, 1], round_to=10, unit=1000, top_code=250,
                       drop_missing=True)  # fmt: skip
    assert data.n == 16  # 4 of the 20 have no income
    assert data.domains[0][0] == 10 and data.domains[0][-1] == 250  # bottom- and top-coded, by 10
    assert data.domains[2][-1] == 18  # N/A industry: one above the largest code (17 here)


def test_round_to_zero_is_refused_in_config_and_a_twin_without_data_fails_in_one_line(tmp_path):
    with pytest.raises(PrivlabError, match=r"datasets.adult.round_to must be an integer in \[1"):
        compose("cae/fig2_noise", ["datasets.adult.round_to=0"])
    exp = registry.get("cae/fig2_noise_acs")
    cfg = compose(exp.id, ["datasets.acs=null", "cache=false"])
    with pytest.raises(PrivlabError, match="switch on at least one data set"):
        run_table(exp, cfg, make_context(cfg, results_dir=tmp_path, log=lambda m: None))
