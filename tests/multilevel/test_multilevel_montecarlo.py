"""The collusion Monte Carlo: sampling X, one chunk against the exact joint, and the engine
(counts sum to trials, identical for any number of workers, resumable after an interruption)."""

from __future__ import annotations

import numpy as np
import pytest
from joblib import Parallel, delayed
from scipy import stats

from privlab import multilevel as ml
from privlab._validation import PrivlabError
from privlab.context import RunContext
from privlab.stats import pooled_gof

S, PS = 4, [0.3, 0.1, 0.5]
PRIOR = np.array([0.4, 0.3, 0.2, 0.1])
WHAT = {"chunk": 3_000, "seed": np.random.SeedSequence(7, spawn_key=(1, 2))}
HOW = {"block_chunks": 2, "store": "dense"}
TRIALS = 20_000  # 7 chunks (the last one short) in 4 blocks (the last one short)


class MemoryCheckpoint:
    """A checkpoint kept in memory: what ``ctx.checkpoint(...)`` does on disk."""

    def __init__(self):
        self.saved, self.saves = None, 0

    def load(self):
        return None if self.saved is None else {k: v.copy() for k, v in self.saved.items()}

    def save(self, **arrays):
        self.saved, self.saves = {k: np.array(v, copy=True) for k, v in arrays.items()}, self.saves + 1


class Interrupted(Exception):
    pass


def failing_map(after: int):
    """A serial map that dies after ``after`` calls, like a killed run."""
    calls = []

    def run(fn, items):
        if len(calls) == after:
            raise Interrupted
        calls.append(len(items))
        return [fn(item) for item in items]

    return run


def counts(**kw):
    return ml.collusion_counts(PRIOR, PS, S, TRIALS, **WHAT, **{**HOW, **kw})


def test_alias_table_is_exact_and_sampler_fits():
    prior = np.random.default_rng(0).dirichlet(np.ones(7))
    thresholds, alias = ml.alias_table(prior)
    accept = thresholds.astype(float) / 2**32
    implied = accept.copy()
    np.add.at(implied, alias, 1 - accept)
    np.testing.assert_allclose(implied / prior.size, prior, atol=1e-9)
    draws = ml.sample_prior(prior, 200_000, seed=1)
    _, pval = stats.chisquare(np.bincount(draws, minlength=7), prior * draws.size)
    assert pval > 1e-4


def test_mc_chunk_agrees_with_exact():
    chunk = ml.collusion_counts_chunk(PRIOR, PS, S, 300_000, seed=9)
    assert chunk.sum() == 300_000
    expected = ml.exact_joint(PRIOR, PS, S).ravel() * chunk.sum()
    _, pval = stats.chisquare(chunk, expected)
    assert pval > 1e-4
    # a different order has a different joint: the test has power
    wrong = ml.exact_joint(PRIOR, [0.3, 0.5, 0.1], S).ravel() * chunk.sum()
    assert stats.chisquare(chunk, wrong)[1] < 1e-10
    np.testing.assert_array_equal(chunk, ml.collusion_counts_chunk(PRIOR, PS, S, 300_000, seed=9, store="dense"))
    # a SeedSequence is read, not consumed: the same one gives the same chunk again
    ss = np.random.SeedSequence(3)
    np.testing.assert_array_equal(
        ml.collusion_counts_chunk(PRIOR, PS, S, 1000, ss), ml.collusion_counts_chunk(PRIOR, PS, S, 1000, ss)
    )


def test_engine_counts_sum_to_trials_and_fit_the_exact_joint():
    F = counts()
    assert F.shape == (S,) * 4 and F.dtype == np.int64
    assert int(F.sum()) == TRIALS
    assert pooled_gof(F, ml.exact_joint(PRIOR, PS, S), 5.0)["g_p"] > 1e-4
    # the engine is the sum of its chunks, chunk c seeded by the seed's child c
    fresh = np.random.SeedSequence(WHAT["seed"].entropy, spawn_key=WHAT["seed"].spawn_key)
    chunks = [
        ml.collusion_counts_chunk(PRIOR, PS, S, min(3000, TRIALS - c * 3000), child)
        for c, child in enumerate(fresh.spawn(7))
    ]
    np.testing.assert_array_equal(F.ravel(), np.sum(chunks, axis=0))


def joblib_map(backend: str):
    def run(fn, items):
        return Parallel(n_jobs=2, backend=backend)(delayed(fn)(item) for item in items)

    return run


@pytest.mark.parametrize("workers", [2, 3])
def test_engine_identical_for_any_number_of_workers(workers):
    serial = counts()
    np.testing.assert_array_equal(serial, counts(map=joblib_map("threading"), workers=workers))


@pytest.mark.slow
def test_engine_identical_with_worker_processes():
    parallel = RunContext(n_jobs=2, progress=False)  # joblib processes, as ctx.map runs them
    np.testing.assert_array_equal(counts(), counts(map=parallel.map, workers=parallel.n_jobs))


def test_engine_resumes_after_an_interruption():
    full = counts()
    store = MemoryCheckpoint()
    with pytest.raises(Interrupted):
        counts(map=failing_map(after=2), checkpoint=store, checkpoint_seconds=0)
    assert store.saves == 2 and store.saved["done"].sum() == 4  # two rounds of one 2-chunk block saved
    log = []
    resumed = counts(checkpoint=store, workers=2, block_chunks=3, log=log.append)  # another run plan
    np.testing.assert_array_equal(resumed, full)
    assert "resuming with 4/7 chunks done" in log[0]
    assert store.saved["done"].all()
    # a finished state is reused without running a single chunk
    again = counts(map=failing_map(after=0), checkpoint=store)
    np.testing.assert_array_equal(again, full)


def test_engine_refuses_a_foreign_or_damaged_checkpoint():
    store = MemoryCheckpoint()
    counts(checkpoint=store)
    with pytest.raises(PrivlabError, match="another Monte Carlo run"):
        ml.collusion_counts(PRIOR, PS, S, TRIALS, chunk=3_000, seed=8, checkpoint=store)
    store.saved["F"][0] += 1
    with pytest.raises(PrivlabError, match="counts hold"):
        counts(checkpoint=store)


def test_engine_through_the_run_context_checkpoint(tmp_path):
    ctx = RunContext(seed=0, scratch_dir=tmp_path, progress=False)
    identity = ml.collusion_identity(PRIOR, PS, S, TRIALS, **WHAT)
    first = counts(checkpoint=ctx.checkpoint("multilevel_mc", **identity))
    assert len(list(tmp_path.glob("multilevel_mc-*.npz"))) == 1
    reused = counts(map=failing_map(after=0), checkpoint=ctx.checkpoint("multilevel_mc", **identity))
    np.testing.assert_array_equal(first, reused)


def test_reading_F():
    F = counts()
    np.testing.assert_array_equal(ml.margin(F, 1), F.sum(axis=(1, 3)))
    np.testing.assert_array_equal(ml.counts_given(F, {0: 1, 1: 2, 2: 3}), F[:, 1, 2, 3])
    np.testing.assert_array_equal(ml.counts_given(F, {2: 3}), F[:, :, :, 3].sum(axis=(1, 2)))
    assert ml.counts_given(F, {}).sum() == TRIALS


@pytest.mark.parametrize(
    "kw, word",
    [
        ({"domain_size": 108}, "cells of F"),
        ({"trials": 0}, "trials must be"),
        ({"store": "tape"}, "store must be one of"),
        ({"workers": 0}, "workers must be"),
    ],
)
def test_engine_bad_input(kw, word):
    args = {"prior": np.full(kw.get("domain_size", S), 1 / kw.get("domain_size", S)), "ps": PS, "domain_size": S}
    args.update(trials=TRIALS, **WHAT, **HOW)
    args.update(kw)
    with pytest.raises(PrivlabError, match=word):
        ml.collusion_counts(**args)
