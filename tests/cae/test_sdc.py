"""privlab.cae techniques and intruder models: sampling, query-restriction bounds (structural vs LP vs
brute force), binomial noise, Algorithms 2 and 3, the coded data set and the technique mechanisms."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import cae, stats
from privlab._validation import PrivlabError


def _frame(n, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"salary": rng.integers(1, 26, n) * 10, "sex": rng.integers(1, 3, n), "edu": rng.integers(1, 5, n)}
    )


def test_sample_size_and_without_replacement():
    df = _frame(200)
    s = cae.sample(df, 0.1, 3)
    assert len(s) == 20 and s.index.is_unique and s.index.is_monotonic_increasing
    pd.testing.assert_frame_equal(s, df.loc[s.index])
    pd.testing.assert_frame_equal(cae.sample(df, 0.1, 3), s)  # seeded
    assert len(cae.sample(df, 1.0, 0)) == 200


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.05, 0.2, 0.5, 1.0]))
def test_sampling_probs_sum_to_one_and_match_formula(seed, fraction):
    df = _frame(60, seed)
    dom = cae.attribute_domain(df.salary)
    codes = cae.encode(df.salary, dom)
    groups, G = cae.group_ids(df, ["sex", "edu"])
    released = cae.sample(df, fraction, seed)
    in_sample = df.index.isin(released.index)
    P = cae.sampling_probs(groups, codes, in_sample, G, dom.size)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    g = int(groups[0])  # recompute one group's p_d by the (typo-corrected) formula
    members = groups == g
    Mo, Ms = members.sum(), (members & in_sample).sum()
    f = np.array([np.sum(members & in_sample & (codes == d)) for d in range(dom.size)])
    expected = (f / Ms if Ms else 0.0) * (Ms / Mo) + (Mo - Ms) / Mo / dom.size
    np.testing.assert_allclose(P[g], expected, atol=1e-15)


def test_attribute_domain_and_noise_max():
    np.testing.assert_array_equal(cae.attribute_domain(pd.Series([10, 250, 40, 20])), np.arange(10, 251, 10))
    assert [cae.noise_max(k, 25) for k in (0, 10, 20, 25, 50, 100)] == [0, 2, 4, 6, 12, 24]
    assert cae.noise_max(10, 69) == 6  # 6.8 -> nearest even 6


def test_binomial_noise_stays_in_domain_and_bounded():
    df = _frame(3000, 1)
    noisy = cae.add_binomial_noise(df, 50, 7)
    dom = cae.attribute_domain(df.salary)
    M = cae.noise_max(50, dom.size)
    c, c2 = cae.encode(df.salary, dom), cae.encode(noisy.salary, dom)
    assert np.abs(c2 - c).max() <= M // 2
    lo, hi = cae.noise_intervals(c2, M, dom.size)
    assert np.all((lo <= c) & (c <= hi))  # the intruder's interval always holds the truth
    # interior records: noise is Binomial(M, 1/2) - M/2, mean 0 and variance M/4
    interior = (c >= M // 2) & (c <= dom.size - 1 - M // 2)
    d = (c2 - c)[interior]
    assert abs(d.mean()) < 5 * np.sqrt(M / 4 / d.size)
    assert d.var() == pytest.approx(M / 4, rel=0.15)
    assert (cae.add_binomial_noise(df, 0, 7) == df).all().all()


def _brute_bounds(values, Q, order, d_min, d_max, domain):
    """Bounds by enumerating every assignment of domain values (tiny n only)."""
    n = len(values)
    l, k = Q // 2, 2 * n // Q - 1
    answers = [sum(values[order[p]] for p in range(t * l, t * l + 2 * l)) for t in range(k)]
    L, U = np.full(n, np.inf), np.full(n, -np.inf)
    for r in itertools.product(domain, repeat=n):
        if all(sum(r[order[p]] for p in range(t * l, t * l + 2 * l)) == answers[t] for t in range(k)):
            L, U = np.minimum(L, r), np.maximum(U, r)
    return L, U


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 30), st.sampled_from([2, 4, 6, 8]))
def test_structural_bounds_equal_lp(seed, n, Q):
    if Q > n:
        Q = 2
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 6, n).astype(float)
    qr = cae.QueryRestriction(values, Q, seed, domain=np.arange(6))
    L, U = qr.bounds()
    L2, U2 = qr.bounds(method="lp")
    np.testing.assert_allclose(L, L2, atol=1e-7)
    np.testing.assert_allclose(U, U2, atol=1e-7)
    assert np.all((L <= values) & (values <= U))
    assert qr.n_queries == 2 * n // Q - 1
    uncovered = qr.order[(qr.n_queries + 1) * (Q // 2) :]
    assert np.all(L[uncovered] == 0) and np.all(U[uncovered] == 5)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(4, 2), (5, 2), (6, 2), (4, 4), (6, 4)]))
def test_structural_bounds_equal_integer_brute_force(seed, nq):
    n, Q = nq
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, n)
    qr = cae.QueryRestriction(values, Q, seed, domain=np.arange(4))
    L, U = qr.bounds()
    bL, bU = _brute_bounds(list(values), Q, qr.order, 0, 3, range(4))
    # LP bounds relax integrality; on these tiny systems the vertices are integral
    np.testing.assert_allclose(L, bL)
    np.testing.assert_allclose(U, bU)


def test_interval_probs_algorithm_2():
    groups = np.array([0, 0, 1])
    lo, hi = np.array([0, 2, 1]), np.array([1, 2, 3])
    P = cae.interval_probs(groups, lo, hi, 2, 4)
    np.testing.assert_allclose(P, [[0.25, 0.25, 0.5, 0], [0, 1 / 3, 1 / 3, 1 / 3]])
    np.testing.assert_allclose(P.sum(1), 1)


def test_group_ids():
    df = pd.DataFrame({"a": [1, 2, 1, 2], "b": ["x", "x", "x", "y"]})
    g, G = cae.group_ids(df, ["a", "b"])
    assert G == 3 and g[0] == g[2] and len({g[1], g[3], g[0]}) == 3


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: cae.sample(_frame(10), 0, 1), "fraction must be in"),
        (lambda: cae.sample(_frame(10), 1.5, 1), "fraction must be in"),
        (lambda: cae.QueryRestriction(np.arange(10.0), 3, 0), "even"),
        (lambda: cae.QueryRestriction(np.arange(10.0), 0, 0), "set_size"),
        (lambda: cae.QueryRestriction(np.arange(10.0), 12, 0), "set_size"),
        (lambda: cae.add_binomial_noise(_frame(10), 101, 0), "level must be in"),
        (lambda: cae.add_binomial_noise(_frame(10), -1, 0), "level must be in"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(PrivlabError, match=match):
        call()


def test_sampling_formula_as_printed_is_not_a_distribution():
    groups, codes = np.zeros(4, dtype=int), np.array([0, 1, 1, 2])
    in_sample = np.array([True, True, False, False])
    ours = cae.sampling_probs(groups, codes, in_sample, 1, 5)
    printed = cae.sampling_probs_as_printed(groups, codes, in_sample, 1, 5)
    # |M_o| = 4, |M_s| = 2: sampled values 1/4 each, the unsampled half spread as 1/2 * 1/5 (ours) or 1/2 * 5
    np.testing.assert_allclose(ours[0], [0.35, 0.35, 0.1, 0.1, 0.1])
    np.testing.assert_allclose(printed[0], [2.75, 2.75, 2.5, 2.5, 2.5])
    # fully sampled: the two agree
    full = np.ones(4, dtype=bool)
    np.testing.assert_allclose(
        cae.sampling_probs_as_printed(groups, codes, full, 1, 5), cae.sampling_probs(groups, codes, full, 1, 5)
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 10, 50, 100]))
def test_noise_on_codes_equals_noise_on_values(seed, level):
    df = _frame(300, seed)
    doms = [cae.attribute_domain(df[c]) for c in df.columns]
    codes = np.stack([cae.encode(df[c], d) for c, d in zip(df.columns, doms)], axis=1)
    noisy = cae.binomial_noise_codes(codes, [d.size for d in doms], level, seed)
    frame = cae.add_binomial_noise(df, level, seed)
    for j, (c, d) in enumerate(zip(df.columns, doms)):
        np.testing.assert_array_equal(d[noisy[:, j]], frame[c].to_numpy())
    assert cae.check_noise(codes, noisy, [d.size for d in doms], level) == 0


def test_prepare_codes_rounds_and_groups():
    df = pd.DataFrame(
        {"pay": [12, 27, 31, 8, 49, 21], "sex": [1, 2, 1, 2, 1, 1], "job": ["a", None, "b", "a", "b", "a"]}
    )
    data = cae.prepare(df, "pay", ["sex", "job"], [0, 1, 2], round_to=10)
    np.testing.assert_array_equal(data.domains[0], [10, 20, 30, 40, 50])  # 8 -> at least one step
    np.testing.assert_array_equal(data.confidential_values, [10, 30, 30, 10, 50, 20])
    assert data.columns == ("pay", "sex", "job") and data.n == 6
    assert list(data.domains[2]) == ["?", "a", "b"]  # a missing category is a value of its own
    assert [len(data.sets[s]) for s in (0, 1, 2)] == [1, 2, 1]
    assert data.sets[0][0].n_groups == 1 and data.sets[2][0].n_groups == 4
    sub = cae.prepare(df, "pay", ["sex", "job"], [1], n_records=4, subsample_seed=3)
    assert sub.n == 4
    with pytest.raises(PrivlabError, match="columns of the data"):
        cae.prepare(df, "pay", ["nope"], [1])
    with pytest.raises(PrivlabError, match="sk_sizes"):
        cae.prepare(df, "pay", ["sex"], [2])


def _coding(**kw):
    block = {"dataset": {"name": "pums", "n": 60, "seed": 0}, "role": "PUMS", "confidential": "salary"}
    block.update(sk=["sex", "age"], round_to=None, unit=None, top_code=None, drop_missing=False)
    return {**block, "n_records": None, "subsample_seed": 0, **kw}


def test_code_datasets_loads_codes_and_labels_each_data_set_switched_on():
    frame = _frame(60).rename(columns={"edu": "age"})
    loaded = []

    def load(block):
        loaded.append(dict(block))
        return frame

    found = cae.code_datasets({"pums": _coding(), "off": None}, load, sk_sizes=[0, 1])
    assert list(found) == ["pums"] and loaded == [{"name": "pums", "n": 60, "seed": 0}]
    data, raw, label = found["pums"]
    assert raw is frame and data.n == 60 and data.columns == ("salary", "sex", "age")
    assert label == "pums (SYNTHETIC, n=all, confidential=salary)"
    real = cae.code_datasets({"a": _coding(dataset={"name": "adult"}, n_records=40)}, load, sk_sizes=[0])
    assert real["a"][2] == "adult (real, n=40, confidential=salary)" and real["a"][0].n == 40
    with pytest.raises(PrivlabError, match="switch on at least one data set"):
        cae.code_datasets({"pums": None}, load, sk_sizes=[0])
    with pytest.raises(PrivlabError, match="load must be a function"):
        cae.code_datasets({"pums": _coding()}, frame, sk_sizes=[0])


def test_domain_table_sets_table_2_beside_each_data_sets_domain():
    frame = _frame(60)
    data = cae.prepare(frame, "salary", ["sex", "edu"], [0])
    rows = {"salary": {"pums": "salary", "acs": None}, "sex": {"pums": "sex", "acs": "sex", "acs_exclude": [2]}}
    printed = {
        "salary": {"min": 10, "max": 250, "rounding": 10, "values": 25},
        "sex": {"min": 1, "max": 2, "rounding": None, "values": 2},
    }
    t = cae.domain_table(rows, printed, {"pums": (data, frame, "P"), "acs": (data, frame, "A")})
    assert list(t.attribute) == ["salary", "sex"] and list(t.derived_values) == [25, 2]
    assert t.printed_rounding[0] == 10 and t.pums_values[1] == 2 and t.pums_data[0] == "P"
    assert t.pums_min[0] == frame.salary.min() and t.pums_max[0] == frame.salary.max()
    assert t.pums_raw_distinct[1] == 2 and t.acs_raw_distinct[1] == 1  # code 2 not counted
    assert pd.isna(t.acs_column[0]) and t.acs_column[1] == "sex"
    only = cae.domain_table(rows, printed, {"pums": (data, frame, "P")})
    assert not any(c.startswith("acs_") for c in only.columns)
    with pytest.raises(PrivlabError, match="printed must have an entry"):
        cae.domain_table(rows, {"salary": printed["salary"]}, {})
    with pytest.raises(PrivlabError, match="must be a coded column"):
        cae.domain_table({"sex": {"pums": "age"}}, printed, {"pums": (data, frame, "P")})


def test_run_series_labels_each_data_set_in_a_last_column():
    data = cae.prepare(_frame(30), "salary", ["sex"], [0, 1])
    tech = [("sampling", cae.SamplingTechnique(levels=[50]))]

    def seeds(*key):
        return np.random.SeedSequence(1)

    plain = cae.run_series({"d": data}, tech, 2, seed_sequence=seeds)
    labelled = cae.run_series({"d": data}, tech, 2, seed_sequence=seeds, labels={"d": "the data"})
    pd.testing.assert_frame_equal(labelled.drop(columns="data"), plain)
    assert labelled.columns[-1] == "data" and set(labelled.data) == {"the data"}
    with pytest.raises(PrivlabError, match="labels must map every data set"):
        cae.run_series({"d": data}, tech, 2, seed_sequence=seeds, labels={"e": "x"})


def test_techniques_as_mechanisms():
    from privlab import mechanisms

    built = mechanisms.build(
        {
            "s": {
                "_target_": "privlab.cae.SamplingTechnique",
                "label": "sampling",
                "kind": "sdc_technique",
                "levels": [5, 50],
            },
            "q": {"_target_": "privlab.cae.QueryRestrictionTechnique", "kind": "sdc_technique", "levels": [8]},
        },
        kind="sdc_technique",
    )
    assert built["s"].impl.levels == (5.0, 50.0) and built["s"].impl.utility_sign == 1
    assert built["q"].impl.name == "query_restriction" and built["q"].impl.utility_sign == -1
    with pytest.raises(PrivlabError, match="even"):
        cae.QueryRestrictionTechnique(levels=[3])
    with pytest.raises(PrivlabError, match="percentages"):
        cae.SamplingTechnique(levels=[0])
    with pytest.raises(PrivlabError, match="levels"):
        cae.NoiseAdditionTechnique(levels=[101])
    with pytest.raises(PrivlabError, match="repeat"):
        cae.NoiseAdditionTechnique(levels=[10, 10])


@pytest.mark.parametrize(
    "technique",
    [cae.SamplingTechnique([20]), cae.QueryRestrictionTechnique([4]), cae.NoiseAdditionTechnique([50])],
    ids=lambda t: t.name,
)
def test_releases_pass_their_checkers_and_give_distributions(technique):
    data = cae.prepare(_frame(120, 5), "salary", ["sex", "edu"], [0, 1, 2])
    seed = np.random.SeedSequence(11)
    release = technique.release(data, technique.levels[0], seed)
    assert technique.check(data, release, technique.levels[0], seed, 3) == 0
    for sets in data.sets.values():
        for s in sets:
            P = release.probs(s.groups, s.n_groups, np.arange(data.n))
            np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    rows = cae.repetition_rows(data, technique, technique.levels[0], 0, seed, 2)
    assert [r["sk_size"] for r in rows] == [0, 1, 2]
    assert rows[0]["n_combinations"] == 1 and rows[0]["n_unique"] == 0
    assert all(0 <= r["H0"] <= np.log2(data.domain_sizes[0]) + 1e-12 for r in rows)


def test_summarise_standard_errors_are_those_of_privlab_stats():
    rng = np.random.default_rng(3)
    long = pd.DataFrame(
        {
            "dataset": "d",
            "technique": "t",
            "param": np.repeat([1.0, 2.0], 5),
            "sk_size": 0,
            "rep": np.tile(np.arange(5), 2),
            **{c: rng.random(10) for c in ("H0", "area", "H0_unique", "area_unique")},
            **{c: 0.5 for c in ("H0_unique_exact", "area_unique_exact", "artifact_violation")},
            **{c: 0.04 for c in ("H0_unique_exact_var", "area_unique_exact_var")},
            **{c: 3 for c in ("n_sets", "n_combinations", "n_distinct_shared", "n_unique")},
        }
    )
    out = cae.summarise(long, 5)
    for k, (_, g) in enumerate(long.groupby("param")):
        for m in ("H0", "area", "H0_unique", "area_unique"):
            assert out[m][k] == pytest.approx(g[m].mean())
            assert out[f"{m}_se"][k] == pytest.approx(stats.mean_se(g[m].to_numpy()), rel=1e-12)
        assert out.H0_unique_exact_se[k] == pytest.approx(np.sqrt(0.04 / 5))
    assert list(out.columns[:4]) == ["dataset", "technique", "param", "sk_size"] and (out.repetitions == 5).all()
