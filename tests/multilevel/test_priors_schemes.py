"""Priors from config blocks, and the perturbation schemes with the pooling adversary (Figure 7)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from joblib import Parallel, delayed
from scipy import stats

from privlab import multilevel as ml
from privlab._validation import PrivlabError
from privlab.context import RunContext


# ---------------------------------------------------------------------------------------
# priors
# ---------------------------------------------------------------------------------------
def test_priors_by_hand():
    np.testing.assert_allclose(ml.make_prior({"kind": "uniform"}, 4), [0.25] * 4)
    g = ml.make_prior({"kind": "gaussian", "mean": 2.5, "sd": 1.0}, 4)
    raw = stats.norm.cdf([1.5, 2.5, 3.5, 4.5], 2.5, 1) - stats.norm.cdf([0.5, 1.5, 2.5, 3.5], 2.5, 1)
    np.testing.assert_allclose(g, raw / raw.sum())
    np.testing.assert_allclose(g, g[::-1])  # symmetric about the mean
    sal = ml.make_prior({"kind": "lognormal", "median": 10, "sigma": 0.5, "bin_width": 5}, 4)
    law = stats.lognorm(s=0.5, scale=10)
    np.testing.assert_allclose(sal, [law.cdf(5), law.cdf(10) - law.cdf(5), law.cdf(15) - law.cdf(10), law.sf(15)])
    assert sal[1] > sal[0]  # the median's bin [5, 10) holds more than [0, 5)


def test_marginal_prior_through_a_dataset_loader():
    frame = pd.DataFrame({"job": ["b", "a", "c", "a", "b", "a"]})
    asked = []

    def load(spec):
        asked.append(spec)
        return frame

    spec = {"kind": "marginal", "column": "job", "dataset": {"name": "census", "n": 6, "seed": 0}}
    np.testing.assert_allclose(ml.make_prior(spec, 3, dataset=load), [3 / 6, 2 / 6, 1 / 6])
    assert asked == [{"name": "census", "n": 6, "seed": 0}]
    with pytest.raises(PrivlabError, match="3 distinct values, domain_size is 4"):
        ml.make_prior(spec, 4, dataset=load)
    with pytest.raises(PrivlabError, match="needs a dataset loader"):
        ml.make_prior(spec, 3)


def test_census_occupation_prior_and_its_label():
    ctx = RunContext(progress=False)
    spec = {"kind": "marginal", "column": "occupation", "dataset": {"name": "census", "n": 20000, "seed": 0}}
    prior = ml.make_prior(spec, 50, dataset=ctx.dataset)
    assert prior.size == 50 and prior.min() > 0
    assert len(ctx.data_used) == 1 and "synthetic" in ctx.data_used[0]


@pytest.mark.parametrize(
    "block, word",
    [
        ({"kind": "zipf"}, "prior.kind must be one of uniform, gaussian, lognormal, marginal"),
        ({"kind": "gaussian", "mean": 3}, "parameter prior.sd is missing"),
        ({"kind": "gaussian", "mean": 3, "sd": -1}, "prior.sd must be"),
        ({"kind": "uniform", "sd": 1}, "unknown parameter prior.'sd'"),
        ({"kind": "marginal", "column": "x", "dataset": {"name": "nope"}}, "prior.dataset.name must be one of"),
        ({"mean": 1}, "prior must be a mapping with kind"),
    ],
)
def test_prior_contract(block, word):
    with pytest.raises(PrivlabError) as info:
        ml.PRIOR.check("prior", block)
    assert word in str(info.value)


# ---------------------------------------------------------------------------------------
# schemes and the pooling adversary
# ---------------------------------------------------------------------------------------
SCHEMES = [ml.IndependentCopies(), ml.MultiPert()]
PS = [0.3, 0.1, 0.5, 0.2]


def test_pooled_confidence_against_the_exact_posterior():
    s, n = 5, 300
    x = np.random.default_rng(0).integers(0, s, n)
    for scheme in SCHEMES:
        copies = scheme.release(x, PS, s, 4)
        conf = scheme.pooled_confidence(x, copies, PS, s)
        for k in (1, 3, 4):
            for t in range(0, n, 37):
                if isinstance(scheme, ml.MultiPert):
                    post = ml.posterior(np.full(s, 1 / s), PS[:k], s, {i: int(copies[i, t]) for i in range(k)})
                else:
                    like = np.prod([ml.uni_pert_matrix(p, s)[:, copies[i, t]] for i, p in enumerate(PS[:k])], axis=0)
                    post = like / like.sum()
                assert conf[k - 1][t] == pytest.approx(post[x[t]], rel=1e-12)


def _pooled_by_table(x, copies, ps, s):
    """Independent copies' pooled posterior as the whole n x s table gives it (the oracle)."""
    rows, loglik, out = np.arange(x.size), np.zeros((x.size, s)), []
    for p, y in zip(ps, copies):
        loglik[rows, y] += np.log((p + (1 - p) / s) / ((1 - p) / s))
        post = np.exp(loglik - loglik.max(axis=1, keepdims=True))
        out.append(post[rows, x] / post.sum(axis=1))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_independent_pooled_confidence_is_the_tables_bit_for_bit(seed):
    """Only the cells some copy named get their own exp: the posterior is, bit for bit, the one the
    whole table of log-likelihoods gives (repeated values, one value, every value named)."""
    rng = np.random.default_rng(seed)
    s = int(rng.integers(2, 12))
    n = int(rng.integers(1, 400))
    ps = list(rng.uniform(0.01, 0.95, int(rng.integers(1, 3 * s))))
    x = rng.integers(0, s, n)
    copies = ml.IndependentCopies().release(x, ps, s, seed)
    got = ml.IndependentCopies().pooled_confidence(x, copies, ps, s)
    want = _pooled_by_table(x, copies, ps, s)
    assert all(np.array_equal(a, b) for a, b in zip(got, want))


def test_confidence_curves_match_the_exact_expectation_and_ignore_workers():
    s, trials, seed = 10, 40_000, np.random.SeedSequence(5)
    mean, se = ml.confidence_curves(SCHEMES, PS, s, trials, chunk=7_000, seed=seed)
    exact = np.array([[scheme.expected_confidence(PS[:k], s) for k in range(1, 5)] for scheme in SCHEMES])
    assert np.all(np.abs(mean - exact) <= 5 * se)
    assert exact[0, -1] > exact[1, -1] + 0.05  # pooled independent copies leak, multi-pert's do not

    def threads(fn, items):
        return Parallel(n_jobs=2, backend="threading")(delayed(fn)(item) for item in items)

    mean2, se2 = ml.confidence_curves(SCHEMES, PS, s, trials, chunk=7_000, seed=seed, map_fn=threads)
    np.testing.assert_array_equal(mean, mean2)
    np.testing.assert_array_equal(se, se2)


def test_scheme_stream_follows_its_position():
    """Scheme j draws from the chunk seed's child 1 + j, X from child 0."""
    s, seed = 6, np.random.SeedSequence(11)
    both = ml.confidence_chunk((SCHEMES, PS, s, 500, seed))
    alone = ml.confidence_chunk((SCHEMES[:1], PS, s, 500, seed))
    np.testing.assert_array_equal(both[:1], alone)


def test_scheme_bad_input():
    with pytest.raises(PrivlabError, match="store must be one of"):
        ml.MultiPert(store="tape")
    with pytest.raises(PrivlabError, match="p = 1 releases the original"):
        ml.IndependentCopies().pooled_confidence([0], np.zeros((1, 1), int), [1.0], 3)


def test_confidence_table_lists_every_scheme_and_k_with_its_exact_value():
    s, trials, seed = 10, 20_000, np.random.SeedSequence(5)
    schemes = {"independent": SCHEMES[0], "multi-pert": SCHEMES[1]}
    df = ml.confidence_table(schemes, PS, s, trials, chunk=7_000, seed_sequence=lambda *key: seed)
    mean, se = ml.confidence_curves(SCHEMES, PS, s, trials, chunk=7_000, seed=seed)
    assert list(df.scheme) == ["independent"] * 4 + ["multi-pert"] * 4 and list(df.k) == [1, 2, 3, 4] * 2
    np.testing.assert_array_equal(df.mc, mean.ravel())
    np.testing.assert_array_equal(df.mc_se, se.ravel())
    assert list(df.best_p[:4]) == [max(PS[:k]) for k in range(1, 5)]
    assert df.exact[3] == SCHEMES[0].expected_confidence(PS, s)
    with pytest.raises(PrivlabError, match="schemes must be a mapping"):
        ml.confidence_table(list(schemes.values()), PS, s, trials, chunk=7_000, seed_sequence=lambda *key: seed)


def test_make_priors_leaves_out_switched_off_laws_and_prior_table_describes_each():
    specs = {"uniform": {"kind": "uniform"}, "off": None, "gaussian": {"kind": "gaussian", "mean": 3, "sd": 1}}
    laws = ml.make_priors(specs, 6)
    assert list(laws) == ["uniform", "gaussian"]
    df = ml.prior_table(laws, specs)
    assert len(df) == 12 and set(df.data) == {"-"} and list(df.s.unique()) == [6]
    uniform = df[df.distribution == "uniform"].iloc[0]
    assert uniform["mean"] == pytest.approx(3.5) and uniform.kind == "uniform"
    assert df[df.distribution == "gaussian"]["mode"].iloc[0] == 3
    with pytest.raises(PrivlabError, match="specs lacks the key"):
        ml.prior_table(laws, {"uniform": specs["uniform"]})
