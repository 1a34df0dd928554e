"""The collusion Monte Carlo: sampling X, both kernels against the exact joint and against each
other, and the engine (counts sum to trials, identical for any number of workers and any map,
resumable after an interruption at any point, parts merged and cleaned up)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from joblib import Parallel, delayed
from scipy import stats

from privlab import multilevel as ml
from privlab._validation import PrivlabError
from privlab.context import RunContext
from privlab.multilevel import montecarlo
from privlab.stats import pooled_gof

S, PS = 4, [0.3, 0.1, 0.5]
PRIOR = np.array([0.4, 0.3, 0.2, 0.1])
WHAT = {"chunk": 3_000, "seed": np.random.SeedSequence(7, spawn_key=(1, 2)), "kernel": "stratified"}
TRIALS = 20_000  # 7 chunks, the last one short
ROOT = Path(__file__).resolve().parents[2]


class MemoryCheckpoint:
    """A checkpoint kept in memory, with parts: what ``ctx.checkpoint(...)`` does on disk."""

    def __init__(self, parts=None):
        self.saved, self.saves = None, 0
        self.parts = {} if parts is None else parts

    def load(self):
        return None if self.saved is None else {k: v.copy() for k, v in self.saved.items()}

    def save(self, **arrays):
        self.saved, self.saves = {k: np.array(v, copy=True) for k, v in arrays.items()}, self.saves + 1

    def part(self, name):
        return self.parts.setdefault(name, MemoryCheckpoint(self.parts))

    def discard(self):
        self.saved = None


class Interrupted(Exception):
    pass


def counts(**kw):
    return ml.collusion_counts(PRIOR, PS, S, TRIALS, **{**WHAT, **kw})


def threads(n):
    """An unordered map over ``n`` threads (completion order, like ctx.map_unordered)."""

    def run(fn, items):
        return Parallel(n_jobs=n, backend="threading", return_as="generator_unordered")(
            delayed(fn)(item) for item in items
        )

    return run


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


def test_reference_chunk_agrees_with_exact():
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


def test_release_plan_follows_multi_pert():
    """Which neighbours each request draws from, and the mechanism's own u/v thresholds."""
    plan = ml.release_plan([0.3, 0.1, 0.5, 0.3, 1.0, 0.05], 10)
    assert [(p.kind, p.left, p.right) for p in plan] == [
        ("from", -1, -1),  # 0.3 from X (p_l = 1)
        ("from", 0, -1),  # 0.1 from the 0.3 copy
        ("between", -1, 0),  # 0.5 between X and the 0.3 copy
        ("same", 0, -1),  # 0.3 again: the same copy
        ("x", -1, -1),  # 1.0: the original
        ("from", 1, -1),  # 0.05 below everything: from the 0.1 copy
    ]
    u_eq, v_eq, u_ne, v_ne = ml.uv(0.5, 1.0, 0.3, 10)
    assert plan[2].thresholds == tuple(round(q * 2**32) for q in (u_eq + v_eq, u_ne, u_ne + v_ne))
    assert plan[1].thresholds == (round(0.1 / 0.3 * 2**32),)


# the pooled G-test of the fast kernel's counts against the exact joint, over request orders
# with a copy between two others, a repeated p, p = 1 and a copy below all others
ORDERS = [PS, [0.5, 0.3, 0.3, 1.0], [0.2, 0.9, 0.6, 0.4], [1.0, 0.7], [0.8, 0.6]]


@pytest.mark.parametrize("ps", ORDERS)
def test_stratified_kernel_fits_the_exact_joint(ps):
    s, prior = 5, np.array([0.4, 0.25, 0.15, 0.12, 0.08])
    F = ml.collusion_chunk_stratified(prior, ps, s, 1_000_000, seed=5)
    assert F.dtype == np.uint32 and F.shape == (s, s ** len(ps)) and int(F.sum()) == 1_000_000
    joint = F.reshape((s,) * (1 + len(ps)))
    assert pooled_gof(joint, ml.exact_joint(prior, ps, s), 20.0)["g_p"] > 1e-4


def test_stratified_kernel_has_power_and_fits_at_the_paper_domain():
    s, prior = 5, np.array([0.4, 0.25, 0.15, 0.12, 0.08])
    F = ml.collusion_chunk_stratified(prior, PS, s, 1_000_000, seed=6).reshape((s,) * 4)
    assert pooled_gof(F, ml.exact_joint(prior, [0.3, 0.5, 0.1], s), 20.0)["g_p"] < 1e-10  # other order
    assert pooled_gof(F, ml.exact_joint(prior, [0.3, 0.1, 0.45], s), 20.0)["g_p"] < 1e-10  # other p_c
    # s = 50 (uint8 codes, 125,000 cells per x): the (X, Y_i) margins fit
    s50 = ml.gaussian_prior(50, 25.5, 8)
    F50 = ml.collusion_chunk_stratified(s50, PS, 50, 2_000_000, seed=7).reshape((50,) * 4)
    exact = ml.exact_joint(s50, PS, 50)
    for i in range(3):
        assert pooled_gof(ml.margin(F50, i), ml.margin(exact, i), 20.0)["g_p"] > 1e-4


def test_stratified_kernel_wide_codes():
    """s > 256 keeps codes in uint16: one copy, the (X, Y) table against uni-pert."""
    s = 300
    F = ml.collusion_chunk_stratified(np.full(s, 1 / s), [0.4], s, 600_000, seed=8)
    assert pooled_gof(F, ml.exact_joint(np.full(s, 1 / s), [0.4], s), 20.0)["g_p"] > 1e-4


def test_stratified_kernel_accumulates_in_place_and_is_reproducible():
    a = ml.collusion_chunk_stratified(PRIOR, PS, S, 10_000, seed=np.random.SeedSequence(3))
    b = ml.collusion_chunk_stratified(PRIOR, PS, S, 10_000, seed=np.random.SeedSequence(3))
    np.testing.assert_array_equal(a, b)
    out = a.copy()
    assert ml.collusion_chunk_stratified(PRIOR, PS, S, 10_000, seed=3, out=out) is out
    np.testing.assert_array_equal(out, 2 * a)
    with pytest.raises(PrivlabError, match="out must be a uint32 array"):
        ml.collusion_chunk_stratified(PRIOR, PS, S, 10, seed=3, out=np.zeros((S, S**3), dtype=np.int64))


def test_old_and_new_engines_agree():
    """The stratified kernel and the MultiLevelPerturber reference: same law (homogeneity test)."""
    s, prior = 5, np.array([0.4, 0.25, 0.15, 0.12, 0.08])
    what = {"chunk": 250_000, "seed": 11}
    new = ml.collusion_counts(prior, PS, s, 1_000_000, kernel="stratified", **what).ravel()
    old = ml.collusion_counts(prior, PS, s, 1_000_000, kernel="perturber", **what).ravel()
    keep = (new + old) >= 20  # cells expected >= 10 in each
    table = np.vstack([new[keep], old[keep]])
    if (~keep).any():  # the sparse cells pooled into one
        table = np.column_stack([table, [new[~keep].sum(), old[~keep].sum()]])
    assert stats.chi2_contingency(table)[1] > 1e-4
    assert pooled_gof(old.reshape((s,) * 4), ml.exact_joint(prior, PS, s), 20.0)["g_p"] > 1e-4


def test_engine_counts_sum_to_trials_and_fit_the_exact_joint():
    F = counts()
    assert F.shape == (S,) * 4 and F.dtype == np.int64
    assert int(F.sum()) == TRIALS
    assert pooled_gof(F, ml.exact_joint(PRIOR, PS, S), 5.0)["g_p"] > 1e-4
    # the engine is the sum of its chunks, chunk c seeded by the seed's child c
    fresh = np.random.SeedSequence(WHAT["seed"].entropy, spawn_key=WHAT["seed"].spawn_key)
    chunks = [
        ml.collusion_chunk_stratified(PRIOR, PS, S, min(3000, TRIALS - c * 3000), child).astype(np.int64)
        for c, child in enumerate(fresh.spawn(7))
    ]
    np.testing.assert_array_equal(F.ravel(), np.sum(chunks, axis=0).ravel())


def test_engine_widens_before_uint32_overflows(monkeypatch):
    """A task whose trials would overflow its uint32 table moves them into int64 first."""
    serial = counts()
    monkeypatch.setattr(montecarlo, "_U32_MAX", 6_500)  # 2 chunks of 3,000 fit, a third does not
    store = MemoryCheckpoint()
    np.testing.assert_array_equal(counts(checkpoint=store, checkpoint_seconds=0), serial)
    assert store.parts == {} or all(p.saved is None for p in store.parts.values())


@pytest.mark.parametrize("workers", [2, 3, 7, 12])
def test_engine_identical_for_any_number_of_workers(workers):
    serial = counts()
    np.testing.assert_array_equal(serial, counts(map_fn=threads(workers), workers=workers))
    ordered = RunContext(workers=1, progress=False)  # ctx.map (ordered) is accepted too
    np.testing.assert_array_equal(serial, counts(map_fn=ordered.map, workers=workers))


@pytest.mark.slow
def test_engine_identical_with_worker_processes(tmp_path):
    ctx = RunContext(workers=2, progress=False, scratch_dir=tmp_path)  # loky processes, as ctx runs them
    identity = ml.collusion_identity(PRIOR, PS, S, TRIALS, **WHAT)
    parallel = counts(map_fn=ctx.map_unordered, workers=3, checkpoint=ctx.checkpoint("mc", **identity))
    np.testing.assert_array_equal(counts(), parallel)


def test_engine_resumes_after_the_map_dies():
    """The parent dies after one task came back: the next run (another plan) redoes only the rest."""
    full = counts()
    store = MemoryCheckpoint()

    def dies_after_one(fn, items):
        yield fn(items[0])
        raise Interrupted

    with pytest.raises(Interrupted):
        counts(map_fn=dies_after_one, workers=2, checkpoint=store, checkpoint_seconds=0)
    assert store.saved["done"].tolist() == [True, False, True, False, True, False, True]  # task 0: chunks 0, 2, 4, 6
    log = []
    resumed = counts(checkpoint=store, workers=3, map_fn=threads(3), log=log.append)
    np.testing.assert_array_equal(resumed, full)
    assert "resuming with 4/7 chunks done" in log[0]
    assert store.saved["done"].all()
    assert all(part.saved is None for part in store.parts.values())  # parts discarded once merged
    # a finished state is reused without running a single task
    again = counts(map_fn=lambda fn, items: [] if not items else pytest.fail("ran a task"), checkpoint=store)
    np.testing.assert_array_equal(again, full)


def test_engine_resume_with_fewer_workers_drops_merged_parts():
    """Parts of the interrupted plan that the new plan does not reuse are removed once merged."""
    full, store = counts(), MemoryCheckpoint()

    def dies_after_two(fn, items):
        yield fn(items[0])
        yield fn(items[1])
        raise Interrupted

    with pytest.raises(Interrupted):
        counts(map_fn=dies_after_two, workers=3, checkpoint=store, checkpoint_seconds=1e9)
    assert store.saved["done"].sum() == 0  # the parent never saved (cadence), the parts did
    assert {n for n, p in store.parts.items() if p.saved is not None} == {"task0", "task1"}

    def check_then_run(fn, items):
        assert len(items) == 1 and store.saved["parts"].tolist() == ["task0"]
        assert store.parts["task1"].saved is None and store.parts["task2"].saved is None
        return [fn(item) for item in items]

    np.testing.assert_array_equal(counts(map_fn=check_then_run, workers=1, checkpoint=store), full)


def test_engine_resumes_from_a_worker_killed_mid_task(monkeypatch):
    """A worker dies after 2 of its chunks (its part saved): the rerun does not redo them."""
    full = counts()
    store = MemoryCheckpoint()
    kernel, calls = montecarlo.collusion_chunk_stratified, []

    def dies_on_third(*args, **kw):
        if len(calls) == 2:
            raise Interrupted
        calls.append(1)
        return kernel(*args, **kw)

    monkeypatch.setattr(montecarlo, "collusion_chunk_stratified", dies_on_third)
    with pytest.raises(Interrupted):
        counts(checkpoint=store, checkpoint_seconds=0)  # one task: chunks 0..6 in order
    assert store.saved["done"].sum() == 0 and store.saved["parts"].tolist() == ["task0"]
    assert store.parts["task0"].saved["done"].tolist() == [0, 1]

    def counting(*args, **kw):
        calls.append(1)
        return kernel(*args, **kw)

    calls.clear()
    monkeypatch.setattr(montecarlo, "collusion_chunk_stratified", counting)
    log = []
    np.testing.assert_array_equal(counts(checkpoint=store, workers=2, map_fn=threads(2), log=log.append), full)
    assert len(calls) == 5 and "resuming with 2/7 chunks done" in log[0]


def test_engine_merges_a_part_only_once():
    """A part already counted in the saved state (the parent saved after it came back) is skipped."""
    store = MemoryCheckpoint()
    full = counts(checkpoint=store, workers=2, map_fn=threads(2), checkpoint_seconds=0)
    # put back a finished part as if the parent died between its final save and the clean-up
    store.parts["task1"].saved = {"F": np.zeros(S**4, dtype=np.uint8), "done": np.array([1, 3, 5])}
    store.parts["task1"].saved["identity"] = store.saved["identity"]
    store.saved["parts"] = np.array(["task0", "task1"])
    np.testing.assert_array_equal(counts(checkpoint=store), full)


def test_engine_refuses_a_foreign_or_damaged_checkpoint():
    store = MemoryCheckpoint()
    counts(checkpoint=store)
    with pytest.raises(PrivlabError, match="another Monte Carlo run"):
        ml.collusion_counts(PRIOR, PS, S, TRIALS, chunk=3_000, seed=8, checkpoint=store)
    with pytest.raises(PrivlabError, match="another Monte Carlo run"):
        counts(checkpoint=store, kernel="perturber")  # the kernel is part of the identity
    store.saved["F"] = store.saved["F"].astype(np.int64)
    store.saved["F"][0] += 1
    with pytest.raises(PrivlabError, match="counts hold"):
        counts(checkpoint=store)
    # a part that overlaps the saved chunks without being inside them
    store = MemoryCheckpoint()
    counts(checkpoint=store)
    store.saved["done"][:] = [True, True, False, False, False, False, False]
    store.saved["F"] = np.zeros(S**4, dtype=np.int64)
    store.saved["F"][0] = 6000
    part = store.part("task0")
    part.saved = {"F": np.zeros(S**4, dtype=np.int64), "done": np.array([1, 2]), "identity": store.saved["identity"]}
    part.saved["F"][0] = 6000
    store.saved["parts"] = np.array(["task0"])
    with pytest.raises(PrivlabError, match="part task0 does not add up"):
        counts(checkpoint=store)


def test_engine_through_the_run_context_checkpoint(tmp_path):
    ctx = RunContext(seed=0, scratch_dir=tmp_path, progress=False)
    identity = ml.collusion_identity(PRIOR, PS, S, TRIALS, **WHAT)
    first = counts(checkpoint=ctx.checkpoint("multilevel_mc", **identity), workers=3, map_fn=threads(3))
    assert [p.name.count(".part-") for p in tmp_path.iterdir()] == [0]  # parts removed: one file left
    store = ctx.checkpoint("multilevel_mc", **identity)
    reused = counts(map_fn=lambda fn, items: [] if not items else pytest.fail("ran a task"), checkpoint=store)
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
        ({"kernel": "tape"}, "kernel must be one of"),
        ({"workers": 0}, "workers must be"),
        ({"chunk": 2**32}, "chunk must be"),
    ],
)
def test_engine_bad_input(kw, word):
    args = {"prior": np.full(kw.get("domain_size", S), 1 / kw.get("domain_size", S)), "ps": PS, "domain_size": S}
    args.update(trials=TRIALS, **WHAT)
    args.update(kw)
    with pytest.raises(PrivlabError, match=word):
        ml.collusion_counts(**args)


@pytest.mark.parametrize(
    "kw, word",
    [({"n": 0}, "n must be"), ({"prior": [0.5, 0.5]}, "prior must have"), ({"ps": [1.2]}, "ps\\[0\\] must be")],
)
def test_stratified_kernel_bad_input(kw, word):
    args = {"prior": PRIOR, "ps": PS, "domain_size": S, "n": 10, "seed": 0, **kw}
    with pytest.raises(PrivlabError, match=word):
        ml.collusion_chunk_stratified(**args)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_run_resumes_without_redoing_finished_chunks(tmp_path, sig):
    """``privlab run`` with two workers, interrupted (Ctrl-C, SIGKILL) once workers saved chunks:
    the rerun reports them done, runs only the rest, and gives the uninterrupted table.

    The per-trial kernel is chosen explicitly: its units are the 200 chunks of 10^6 trials (tens
    of seconds in all, time to interrupt), whereas the default multinomial kernel's units are the
    strata X = x, done in seconds whatever the trials (its resumption:
    `test_multinomial_engine_resumes_the_strata_not_yet_counted`)."""
    one = ["~distributions.gaussian", "~distributions.salary", "~distributions.occupation"]
    mc = ["mc.kernel=stratified", "mc.trials=200000000", "mc.chunk=1000000", "mc.checkpoint_seconds=0"]
    args = ["run", "multilevel/agreement", *one, *mc]

    def cli(results, *extra, **kw):
        env = {**os.environ, "PRIVLAB_RESULTS": str(results)}
        return subprocess.Popen(
            [sys.executable, "-m", "privlab.cli", *args, *extra], cwd=ROOT, env=env, text=True, **kw
        )

    run = cli(tmp_path / "cut", "workers=2", stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    scratch, deadline, saved = tmp_path / "cut" / ".scratch", time.monotonic() + 300, 0
    while saved < 5 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.2)
        saved = 0
        for part in scratch.glob("multilevel_mc-*.part-*.npz"):  # not the hidden temporary files
            with np.load(part) as arrays:  # saved atomically: complete or absent
                saved += arrays["done"].size
    assert run.poll() is None, "the run ended before it could be interrupted"
    os.killpg(run.pid, sig)
    run.communicate(timeout=60)
    resumed = cli(tmp_path / "cut", "workers=2", stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out, _ = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, out
    done = int(re.search(r"resuming with (\d+)/200 chunks done", out).group(1))
    assert done >= 5
    assert f"{(200 - done) * 10**6:,} trials in" in out  # only the chunks not saved ran
    left = [p.name for p in scratch.iterdir()]
    assert len(left) == 1 and ".part-" not in left[0] and "tmp" not in left[0], left
    whole = cli(tmp_path / "whole", "workers=1", stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert whole.communicate(timeout=600)[0] and whole.returncode == 0
    table = "multilevel/agreement/result.csv"
    assert (tmp_path / "cut" / table).read_bytes() == (tmp_path / "whole" / table).read_bytes()


def test_frequencies_estimate_a_law_from_counts():
    share, se, n = ml.frequencies(np.array([1, 0, 3]))
    assert n == 4 and share.tolist() == [0.25, 0.0, 0.75]
    q = np.array([2, 1, 4]) / 6  # Laplace-smoothed (count + 1) / (n + 2)
    assert np.allclose(se, np.sqrt(q * (1 - q) / 4))
    empty_share, empty_se, empty_n = ml.frequencies([0, 0])
    assert empty_n == 0 and np.isnan(empty_share).all() and np.isnan(empty_se).all()
    F = np.arange(8).reshape(2, 2, 2)  # F[X, Y_1, Y_2]: Y_1's law given X = 1 from its margin
    assert ml.frequencies(ml.margin(F, 0)[1])[0].tolist() == [(4 + 5) / 22, (6 + 7) / 22]
    with pytest.raises(PrivlabError, match="counts must be non-negative"):
        ml.frequencies([1, -1])


# ---------------------------------------------------------------------------------------
# the result tables of Figures 5-6 and the MC check (privlab.multilevel.collusion)
# ---------------------------------------------------------------------------------------
TABLE_PS = [0.2, 0.3, 0.5]  # p_c the largest: Theorem 1 conditions on the best copy
TABLE_PRIORS = {"uniform": np.full(4, 0.25), "skewed": np.array([0.4, 0.3, 0.2, 0.1])}


def _expected_counts(name, prior):
    """Counts as close to the exact joint as integers get: every estimate within rounding of its law."""
    return np.rint(ml.exact_joint(prior, TABLE_PS, prior.size) * 10**8).astype(np.int64)


def test_collusion_table_holds_theorem1_and_its_estimates_follow_the_counts():
    seen = []

    def counts(name, prior):
        seen.append(name)
        return _expected_counts(name, prior)

    cells = {"uniform": [1, 2, 3], "skewed": [4, 4, 4]}
    df = ml.collusion_table(TABLE_PRIORS, TABLE_PS, cells, counts)
    assert seen == ["uniform", "skewed"] and len(df) == 8
    assert list(df[df.distribution == "skewed"][["y_a", "y_b", "y_c"]].iloc[0]) == [4, 4, 4]
    np.testing.assert_allclose(df.exact_all, df.exact_c, atol=1e-12)  # Theorem 1
    np.testing.assert_allclose(df.mc_all, df.exact_all, atol=1e-4)
    np.testing.assert_allclose(df.mc_c, df.exact_c, atol=1e-4)
    for name, prior in TABLE_PRIORS.items():
        assert (df[df.distribution == name].trials == _expected_counts(name, prior).sum()).all()


def test_equivalence_table_gives_the_recipients_copy_law():
    panels = {"uniform": {"recipient": "Charlie", "x": 2}, "skewed": {"recipient": "Alice", "x": 1}}
    df = ml.equivalence_table(TABLE_PRIORS, TABLE_PS, panels, _expected_counts)
    assert list(df.groupby("distribution", sort=False).p.first()) == [0.5, 0.2]
    np.testing.assert_allclose(df.exact_chain, df.uni_pert, atol=1e-12)  # Theorem 2
    np.testing.assert_allclose(df.mc, df.uni_pert, atol=1e-4)
    with pytest.raises(PrivlabError, match="equivalence.uniform.recipient must be one of"):
        ml.equivalence_table(
            TABLE_PRIORS, TABLE_PS, {**panels, "uniform": {"recipient": "Eve", "x": 2}}, _expected_counts
        )


def test_agreement_table_accepts_the_joint_and_rejects_a_wrong_one():
    df = ml.agreement_table(TABLE_PRIORS, TABLE_PS, _expected_counts, 5.0)
    assert list(df.table[:4]) == ["X,Ya,Yb,Yc", "X,Y_Alice", "X,Y_Bob", "X,Y_Charlie"]
    assert list(df.cells[:4]) == [256, 16, 16, 16] and (df.g_p > 0.99).all()

    def swapped(name, prior):
        return _expected_counts(name, prior[::-1].copy())  # counts of another law of X

    assert (ml.agreement_table({"skewed": TABLE_PRIORS["skewed"]}, TABLE_PS, swapped, 5.0).g_p < 1e-6).all()


def test_multinomial_engine_resumes_the_strata_not_yet_counted():
    """The multinomial kernel's units are the strata X = x: a rerun counts only the missing ones."""
    full = ml.collusion_counts(PRIOR, PS, S, 10**8, chunk=1, seed=4)
    store = MemoryCheckpoint()

    def dies_after_one(fn, items):
        yield fn(items[0])
        raise Interrupted

    with pytest.raises(Interrupted):
        ml.collusion_counts(
            PRIOR,
            PS,
            S,
            10**8,
            chunk=1,
            seed=4,
            map_fn=dies_after_one,
            workers=2,
            checkpoint=store,
            checkpoint_seconds=0,
        )
    assert store.saved["done"].tolist() == [True, False, True, False]  # task 0: strata 0 and 2
    log = []
    resumed = ml.collusion_counts(PRIOR, PS, S, 10**8, chunk=1, seed=4, checkpoint=store, log=log.append)
    np.testing.assert_array_equal(resumed, full)
    assert "resuming with 2/4 chunks done" in log[0]
