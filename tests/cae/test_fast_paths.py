"""The fast paths of privlab.cae against the straightforward ones they replace, bit for bit: the
batched dynamic program, the interval model, and the per-data-set plan and exact moments that
run_series makes once for every repetition."""

import math
import struct

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import cae
from privlab.cae import engine, intruder, measure


def _bits(a):
    return np.ascontiguousarray(a, dtype=float).view(np.uint64)


def _random_batch(rng, m, B, zeros=0.5):
    P = rng.dirichlet(np.ones(m), size=B)
    P[rng.random(P.shape) < zeros] = 0.0
    if B:
        P[P.sum(1) == 0, rng.integers(0, m)] = 1.0
    return P / P.sum(axis=1, keepdims=True) if B else P


def test_neg_plogp_is_minus_plogp_bit_for_bit():
    rng = np.random.default_rng(0)
    edges = [0.0, 1e-320, 1e-300, 2e-300, 0.5, 1.0 - 1e-12, 1.0 - 2e-12, 1.0, 1.0 + 1e-15, -1e-17]
    q = np.concatenate([edges, rng.random(1000), rng.random(100) ** 40])
    assert np.array_equal(_bits(measure._neg_plogp(q.copy())), _bits(0.0 - measure._plogp(q)))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.booleans())
def test_entropy_curves_equal_the_dynamic_program_of_each_row(seed, m, even):
    """Every H(eps) of the batch is the paper's dynamic program (`_dp`) of its row, to the bit."""
    rng = np.random.default_rng(seed)
    grid = np.arange(m) * 10.0 if even else np.sort(rng.choice(200, size=m, replace=False)) * 0.3
    P = _random_batch(rng, m, 7)
    eps, H = cae.entropy_curves(grid, P, chunk=int(rng.integers(1, 9)))
    tol = measure._slack(grid)
    for b in range(P.shape[0]):
        ref = [measure._dp(grid, P[b], e + tol) for e in eps]
        assert np.array_equal(_bits(H[b]), _bits(ref))


@pytest.mark.slow  # ~2.6 s: chunk = 1 runs the program row by row over 2,000+ rows
def test_entropy_curves_do_not_depend_on_the_blocks():
    rng = np.random.default_rng(1)
    grid = np.arange(25) * 10.0
    P = _random_batch(rng, 25, 2 * measure._CACHE_ROWS + 37)  # several cache-sized blocks
    _, H = cae.entropy_curves(grid, P)
    for chunk in (1, 5, 700):
        assert np.array_equal(_bits(cae.entropy_curves(grid, P, chunk=chunk)[1]), _bits(H))
    _, H3 = cae.entropy_curves(grid, P[3:4])
    assert np.array_equal(_bits(H3), _bits(H[3:4]))


def test_cae_batches_equal_cae_batch_of_each_batch():
    rng = np.random.default_rng(2)
    grid = np.sort(rng.choice(300, size=20, replace=False)).astype(float)
    batches = [_random_batch(rng, 20, B) for B in (1, 300, 0, 1111, 5)]
    for (h0, area), P in zip(cae.cae_batches(grid, batches), batches):
        ref = cae.cae_batch(grid, P)
        assert np.array_equal(_bits(h0), _bits(ref[0])) and np.array_equal(_bits(area), _bits(ref[1]))
    assert cae.cae_batches(grid, []) == []


def _interval_probs_per_value(groups, lo, hi, G, m):
    """Algorithms 2 and 3 one domain value at a time (the reference: each cell's shares in record order)."""
    m_o = np.bincount(groups, minlength=G).astype(float)
    share = 1.0 / ((hi - lo + 1) * m_o[groups])
    p = np.zeros((G, m))
    for d in range(m):
        inside = (lo <= d) & (hi >= d)
        p[:, d] = np.bincount(groups[inside], weights=share[inside], minlength=G)
    return p


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_interval_probs_equal_the_loop_over_values(seed):
    rng = np.random.default_rng(seed)
    # n >= 1: interval_probs refuses a table of no records
    m, n, G = int(rng.integers(1, 30)), int(rng.integers(1, 400)), int(rng.integers(1, 40))
    groups = rng.integers(0, G, n)
    lo = rng.integers(0, m, n)
    hi = np.minimum(m - 1, lo + rng.integers(0, m, n))
    got = intruder.interval_probs(groups, lo, hi, G, m)
    assert np.array_equal(_bits(got), _bits(_interval_probs_per_value(groups, lo, hi, G, m)))


def _data(n=150, seed=4):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "salary": rng.integers(1, 26, n) * 10,
            "sex": rng.integers(1, 3, n),
            "edu": rng.integers(1, 5, n),
            "age": rng.integers(20, 40, n),
        }
    )
    return cae.prepare(df, "salary", ["sex", "edu", "age"], [0, 1, 2, 3])


TECHNIQUES = [cae.SamplingTechnique([20]), cae.QueryRestrictionTechnique([4]), cae.NoiseAdditionTechnique([50])]


@pytest.mark.parametrize("technique", TECHNIQUES, ids=lambda t: t.name)
def test_plan_rows_are_each_sets_own_distributions(technique):
    """The plan's distinct record sets, expanded, are every set's shared combinations as that set's
    own `Release.probs` gives them."""
    data = _data()
    release = technique.release(data, technique.levels[0], np.random.SeedSequence(3))
    plan = engine._make_plan(data)
    rows = np.concatenate([release.probs(g, G, r) for g, r, G in plan.calls])[plan.shared]
    blocks = []
    for entries in data.sets.values():
        for entry in entries:
            sizes = np.bincount(entry.groups, minlength=entry.n_groups)
            multi = sizes > 1
            recs = np.flatnonzero(multi[entry.groups])
            if recs.size:
                new_id = np.cumsum(multi) - 1
                blocks.append(release.probs(new_id[entry.groups[recs]], int(multi.sum()), recs))
    assert np.array_equal(_bits(rows), _bits(np.concatenate(blocks)))
    assert len(plan.alone) == len(data.sets)


def _reference_rows(data, technique, level, rep, seed, lp_check_records):
    """`repetition_rows` as first written: one `cae_rows` per block of combinations."""
    grid, n, codes = data.grid, data.n, data.codes[:, 0]
    release = technique.release(data, level, seed)
    violation = technique.check(data, release, level, seed, lp_check_records)
    moments = technique.exact_unique(level, n, grid)
    everyone = np.arange(n)
    rec_h0, rec_area, _ = cae.cae_rows([release.probs(everyone, n, everyone)], grid)
    blocks, owners = [], []
    for size, entries in data.sets.items():
        for entry in entries:
            groups, G = entry.groups, entry.n_groups
            sizes = np.bincount(groups, minlength=G)
            multi = sizes > 1
            recs = np.flatnonzero(multi[groups])
            if recs.size:
                blocks.append(release.probs((np.cumsum(multi) - 1)[groups[recs]], int(multi.sum()), recs))
            owners.append((size, groups, G, sizes))
    h0m, aream, n_distinct = cae.cae_rows(blocks, grid) if blocks else (np.zeros(0), np.zeros(0), 0)
    by_size, start = {}, 0
    for size, groups, G, sizes in owners:
        rec_of_group = np.empty(G, dtype=np.int64)
        rec_of_group[groups] = everyone
        single, multi_ids = np.flatnonzero(sizes == 1), np.flatnonzero(sizes > 1)
        h0, area = np.empty(G), np.empty(G)
        h0[single], area[single] = rec_h0[rec_of_group[single]], rec_area[rec_of_group[single]]
        h0[multi_ids], area[multi_ids] = h0m[start : start + multi_ids.size], aream[start : start + multi_ids.size]
        start += multi_ids.size
        c1 = codes[rec_of_group[single]]
        by_size.setdefault(size, []).append(
            (h0.mean(), area.mean(), G, h0[single], area[single], moments[0][c1], moments[1][c1], rec_of_group[single])
        )
    rows = []
    for size, vals in by_size.items():
        u = [np.concatenate([v[k] for v in vals]) for k in (3, 4, 5, 6, 7)]
        nu = u[0].size
        var = technique.exact_unique_var(level, n, u[4], codes, moments) if nu else (np.nan, np.nan)
        rows.append(
            {
                "sk_size": size,
                "rep": rep,
                "H0": float(np.mean([v[0] for v in vals])),
                "area": float(np.mean([v[1] for v in vals])),
                "n_sets": len(vals),
                "n_combinations": int(sum(v[2] for v in vals)),
                "n_distinct_shared": n_distinct,
                "n_unique": nu,
                "H0_unique": float(u[0].mean()) if nu else np.nan,
                "area_unique": float(u[1].mean()) if nu else np.nan,
                "H0_unique_exact": float(u[2].mean()) if nu else np.nan,
                "area_unique_exact": float(u[3].mean()) if nu else np.nan,
                "H0_unique_exact_var": float(var[0]),
                "area_unique_exact_var": float(var[1]),
                "artifact_violation": violation,
            }
        )
    return rows


def _same(a, b):
    """Equal values of one type; floats to the bit (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or struct.pack("d", a) == struct.pack("d", b)
    return a == b


@pytest.mark.parametrize("technique", TECHNIQUES, ids=lambda t: t.name)
def test_repetition_rows_equal_the_loop_over_sets(technique):
    data = _data(200, 9)
    for rep in range(2):
        seed = np.random.SeedSequence([8, rep])
        got = cae.repetition_rows(data, technique, technique.levels[0], rep, seed, 1)
        want = _reference_rows(data, technique, technique.levels[0], rep, seed, 1)
        assert [r.keys() for r in got] == [r.keys() for r in want]
        assert all(_same(g[c], w[c]) for g, w in zip(got, want) for c in g), (got, want)


@pytest.mark.parametrize("technique", TECHNIQUES, ids=["sampling", "query_restriction", "noise"])
def test_rows_from_the_series_moments_and_plan_equal_repetition_rows(technique):
    # run_series makes a level's exact moments and a data set's plan once for every repetition
    data, level, seed = _data(), technique.levels[0], np.random.SeedSequence([9, 1])
    moments, plan = technique.exact_unique(level, data.n, data.grid), engine._make_plan(data)
    got = engine._repetition_rows(data, technique, level, 1, seed, 1, moments, plan)
    want = cae.repetition_rows(data, technique, level, 1, seed, 1)
    assert got and len(got) == len(want)
    assert all(_same(g[c], w[c]) for g, w in zip(got, want) for c in g)
