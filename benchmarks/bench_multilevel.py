"""Throughput and parallel scaling of the multilevel collusion Monte Carlo; cost of multi-pert releases.

Run: python benchmarks/bench_multilevel.py [--per-worker 2e8] [--workers 1,2,4]   (from the repository root)

Prints

- the single-core throughput of the fast kernel (``kernel="stratified"``) against the reference
  kernel (a `MultiLevelPerturber` per chunk, the engine before issue 12), measured in the same
  run, and against the 9.2M trials/s the old engine did on the 2-core development machine;
- the engine's trials/s in total and per worker for 1, 2, 4, 8, 16 workers (those the machine
  has), each worker given the same number of trials (weak scaling), and the parallel
  efficiency: trials/s per worker relative to 1 worker;
- the projected time of the paper profile (four X distributions at its trials each);
- that the counts are identical for 1 and for every worker count, and that a finished
  checkpoint is reused;
- the per-release time and stored size of multi-pert at n = 10^6.

Timings are wall-clock: on a machine shared with other work, read the ratios (new vs old kernel
in the same run, n vs 1 workers) rather than the absolute rates. The load average is printed.
The paper's parameters (s, p_a, p_b, p_c, the chunking, the paper profile's trials) come from
the composed config of multilevel/fig5_collusion.
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
OLD_ENGINE = 9.2e6  # trials/s per core of the engine before issue 12 (2-core machine, benchmarks/README.md)


def kernel_rate(kernel: str, trials: int) -> float:
    """Single-core trials/s of one kernel through the engine (serial, no checkpoint)."""
    ml.collusion_counts(PRIOR, PS, S, 100_000, chunk=50_000, seed=1, kernel=kernel)  # warm up
    t = time.perf_counter()
    ml.collusion_counts(PRIOR, PS, S, trials, chunk=int(CFG.mc.chunk), seed=2, kernel=kernel)
    return trials / (time.perf_counter() - t)


def engine(trials: int, n_jobs: int, scratch=None) -> tuple[float, np.ndarray]:
    ctx = RunContext(seed=0, workers=n_jobs, scratch_dir=scratch, progress=False)
    what = {"chunk": int(CFG.mc.chunk), "seed": ctx.seed_sequence("mc", "uniform"), "kernel": CFG.mc.kernel}
    checkpoint = ctx.checkpoint("multilevel_mc", **ml.collusion_identity(PRIOR, PS, S, trials, **what))
    how = {"map_fn": ctx.map_unordered, "workers": ctx.workers, "checkpoint": checkpoint}
    t = time.perf_counter()
    F = ml.collusion_counts(PRIOR, PS, S, trials, **what, **how, checkpoint_seconds=float(CFG.mc.checkpoint_seconds))
    return time.perf_counter() - t, F


def main():
    cores = os.cpu_count() or 1
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-worker", type=float, default=2e8, help="trials per worker in the scaling runs")
    ap.add_argument("--workers", default=",".join(str(w) for w in (1, 2, 4, 8, 16) if w <= cores))
    ap.add_argument("--old-trials", type=float, default=1e7, help="trials for the reference kernel")
    ap.add_argument("--repeat", type=int, default=3, help="runs per worker count, interleaved; the best is kept")
    args = ap.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {cores} cores, load average {load}; s = {S}, p = {PS}, chunk = {CFG.mc.chunk:,}")

    old = kernel_rate("perturber", int(args.old_trials))
    new = kernel_rate("stratified", int(10 * args.old_trials))
    print(
        f"one core: stratified kernel {new / 1e6:.1f}M trials/s, reference kernel (old engine) {old / 1e6:.1f}M "
        f"trials/s in the same run: {new / old:.1f}x; {new / OLD_ENGINE:.1f}x the old engine's 9.2M trials/s "
        f"(goal >= 2x)"
    )

    per_worker, counts = int(args.per_worker), [int(v) for v in args.workers.split(",")]
    best = dict.fromkeys(counts, float("inf"))
    for _ in range(args.repeat):  # interleaved, so that a burst of load elsewhere hits every count alike
        for w in counts:
            engine(w * int(CFG.mc.chunk), w)  # start the worker pool
            best[w] = min(best[w], engine(w * per_worker, w)[0])
    rates = {}
    for w, secs in best.items():
        rates[w] = w * per_worker / secs
        eff = rates[w] / (w * rates[min(rates)]) if min(rates) == 1 else float("nan")
        print(
            f"engine, {w:2d} workers, {w * per_worker:.2g} trials (best of {args.repeat}): {secs:6.1f} s "
            f"= {rates[w] / 1e6:7.1f}M trials/s "
            f"= {rates[w] / w / 1e6:5.1f}M per worker; efficiency vs 1 worker {100 * eff:5.1f}% (goal >= 80%)"
        )

    paper, n_dist = int(CFG.mc.trials), len(CFG.distributions)
    for w, rate in rates.items():
        total = n_dist * paper / rate
        print(
            f"projected paper profile on {w} workers: {paper:.0e} trials per distribution in {paper / rate / 60:.1f} "
            f"min, {n_dist} distributions in {total / 60:.1f} min" + (" (goal: < 15 min on 2 cores)" if w == 2 else "")
        )

    top = max(rates)
    _, F1 = engine(16 * int(CFG.mc.chunk), 1)
    _, Fn = engine(16 * int(CFG.mc.chunk), top)
    print(f"identical counts with 1 and {top} workers: {F1.tobytes() == Fn.tobytes()}")
    with tempfile.TemporaryDirectory() as tmp:  # resume: a finished state is reused, not recomputed
        t1, Fa = engine(16 * int(CFG.mc.chunk), top, tmp)
        t2, Fb = engine(16 * int(CFG.mc.chunk), top, tmp)
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
