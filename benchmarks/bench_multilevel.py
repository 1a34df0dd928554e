"""Throughput of the multilevel collusion Monte Carlo and cost of multi-pert releases.

Run: python benchmarks/bench_multilevel.py [--trials N]   (from the repository root)

Prints trials/s per core of the MC kernel (dense and history stores), the parallel
engine's trials/s on all cores, the projected time of the paper profile (its trials per
X distribution, four distributions), that counts do not depend on the worker count, and
the per-release time and stored size of multi-pert at n = 10^6. The paper's parameters
(s, p_a, p_b, p_c, the MC chunking, the paper profile's trials) come from the composed
config of multilevel/fig5_collusion.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from privlab import multilevel as ml
from privlab import runner
from privlab.context import RunContext

CFG = runner.compose("multilevel/fig5_collusion", profile="paper")
CFG_OVERHEAD = runner.compose("multilevel/fig8_overhead", profile="paper")
PS = [float(CFG.retention[r]) for r in "abc"]
S = int(CFG.domain_size)
PRIOR = np.full(S, 1 / S)


def kernel(store: str, n: int, reps: int) -> float:
    ml.collusion_counts_chunk(PRIOR, PS, S, 10_000, 0, store=store)  # warm up
    t = time.perf_counter()
    for r in range(reps):
        ml.collusion_counts_chunk(PRIOR, PS, S, n, r, store=store)
    return n * reps / (time.perf_counter() - t)


def engine(trials: int, n_jobs: int, scratch=None) -> tuple[float, np.ndarray]:
    ctx = RunContext(seed=0, n_jobs=n_jobs, scratch_dir=scratch, progress=False)
    what = {"chunk": CFG.mc.chunk, "seed": ctx.seed_sequence("mc", "uniform")}
    how = {"block_chunks": CFG.mc.block_chunks, "store": CFG.mc.store, "map": ctx.map, "workers": ctx.n_jobs}
    checkpoint = ctx.checkpoint("multilevel_mc", **ml.collusion_identity(PRIOR, PS, S, trials, **what))
    t = time.perf_counter()
    F = ml.collusion_counts(PRIOR, PS, S, trials, **what, **how, checkpoint=checkpoint)
    return time.perf_counter() - t, F


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=float, default=2e8, help="trials for the parallel engine run")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    print(f"machine: {cores} cores; s = {S}, p = {PS} (conf/experiment/multilevel)")
    for store in ("dense", "history"):
        rate = kernel(store, int(CFG.mc.chunk), 3)
        print(f"MC kernel, store={store:7s}: {rate / 1e6:6.2f} M trials/s on one core")
    trials = int(args.trials)
    engine(8_000_000, cores)  # start the worker pool
    secs, F = engine(trials, cores)
    rate = trials / secs
    print(
        f"MC engine, {cores} workers, {trials:.2g} trials: {secs:.1f} s = {rate / 1e6:.2f} M trials/s "
        f"= {rate / cores / 1e6:.2f} M trials/s per core"
    )
    paper, n_dist = int(CFG.mc.trials), len(CFG.distributions)
    per_dist = paper / rate
    print(
        f"projected paper profile: {paper:.0e} trials per distribution {per_dist / 60:.1f} min on {cores} cores; "
        f"{n_dist} distributions {n_dist * per_dist / 60:.1f} min (goal: 10^10 in < 15 min on 2 cores)"
    )
    _, F1 = engine(16_000_000, 1)
    _, F2 = engine(16_000_000, cores)
    print(f"same counts with 1 and {cores} workers: {np.array_equal(F1, F2)}")
    with tempfile.TemporaryDirectory() as tmp:  # resume: a finished state is reused, not recomputed
        t1, Fa = engine(16_000_000, cores, tmp)
        t2, Fb = engine(16_000_000, cores, tmp)
        print(f"resumable state: first run {t1:.2f} s, rerun {t2:.2f} s, equal counts {np.array_equal(Fa, Fb)}")
    n, m = 1_000_000, 100
    rng = np.random.default_rng(1)
    x = rng.integers(0, S, n)
    for store in ("history", "dense"):
        pert = ml.MultiLevelPerturber(x, S, 2, store=store)
        t = time.perf_counter()
        for p in rng.uniform(float(CFG_OVERHEAD.c), 1.0, m):
            pert.release(p)
        dt = (time.perf_counter() - t) / m
        print(
            f"multi-pert n={n:,}, m={m}, store={store:7s}: {1000 * dt:.1f} ms/release, "
            f"stored {pert.stored_bytes() / 2**20:.1f} MiB"
        )


if __name__ == "__main__":
    main()
