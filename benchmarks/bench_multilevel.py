"""Throughput and parallel scaling of the multilevel collusion Monte Carlo; cost of multi-pert releases.

Run: python benchmarks/bench_multilevel.py [--per-worker 2e8] [--workers 1,2,4]   (from the repository root)

Prints

- the trials per second of the kernels at 10^8, 10^10 and 10^12 trials (``--trials``) on one
  core, from CPU time: the multinomial kernel (``kernel="multinomial"``, the experiments'
  default: the counts drawn stage by stage, a cost independent of the trials) measured at every
  count; the per-trial kernel (``kernel="stratified"``) measured up to ``--per-trial-max``
  (10^8) and extrapolated linearly beyond (its cost is proportional to the trials), each line
  saying which;
- the single-core throughput of the per-trial kernel (``kernel="stratified"``) against the
  reference kernel (a `MultiLevelPerturber` per chunk, the engine before issue 12), measured in
  the same run, and against the 9.2M trials/s the old engine did on the 2-core development machine;
- the engine's trials/s (per-trial kernel) in total and per worker for 1, 2, 4, 8, 16 workers
  (those the machine has), each worker given the same number of trials (weak scaling), and the
  parallel efficiency: trials/s per worker relative to 1 worker;
- the projected time of the paper profile's Monte Carlo (four X distributions at its trials
  each) with the per-trial kernel, and as measured with the multinomial kernel;
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


def kernel_rate(kernel: str, trials: int, repeat: int = 1) -> float:
    """Single-core trials/s of one kernel through the engine (serial, no checkpoint), from the
    CPU time of the best of ``repeat`` runs (the machine may be shared)."""
    ml.collusion_counts(PRIOR, PS, S, 100_000, chunk=50_000, seed=1, kernel=kernel)  # warm up
    best = float("inf")
    for r in range(repeat):
        t = time.process_time()
        ml.collusion_counts(PRIOR, PS, S, trials, chunk=int(CFG.mc.chunk), seed=2 + r, kernel=kernel)
        best = min(best, time.process_time() - t)
    return trials / best


def kernels(counts: list[int], per_trial_max: int, repeat: int) -> None:
    """Trials/s of the multinomial and the per-trial kernel at each trial count (one core)."""
    measured = {n: kernel_rate("stratified", n) for n in counts if n <= per_trial_max}
    if not measured:
        measured[per_trial_max] = kernel_rate("stratified", per_trial_max)
    top = max(measured)
    for n in counts:
        fast = kernel_rate("multinomial", n, repeat)
        slow = measured.get(n, measured[top])
        how = "measured" if n in measured else f"extrapolated from {top:.0e} (cost proportional to trials)"
        print(
            f"{n:.0e} trials, one core: multinomial {fast:.3g} trials/s ({n / fast:.2f} s CPU); "
            f"per-trial (stratified) {slow:.3g} trials/s ({n / slow:,.0f} s CPU, {how}): {fast / slow:,.0f}x"
        )


def engine(trials: int, n_jobs: int, scratch=None, kernel: str = "stratified") -> tuple[float, np.ndarray]:
    ctx = RunContext(seed=0, workers=n_jobs, scratch_dir=scratch, progress=False)
    what = {"chunk": int(CFG.mc.chunk), "seed": ctx.seed_sequence("mc", "uniform"), "kernel": kernel}
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
    ap.add_argument("--trials", default="1e8,1e10,1e12", help="trial counts of the kernel comparison")
    ap.add_argument("--per-trial-max", type=float, default=1e8, help="largest trial count run per trial")
    ap.add_argument("--kernels-only", action="store_true", help="only the kernel comparison")
    args = ap.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {cores} cores, load average {load}; s = {S}, p = {PS}, chunk = {CFG.mc.chunk:,}")
    kernels([int(float(v)) for v in args.trials.split(",")], int(args.per_trial_max), args.repeat)
    if args.kernels_only:
        return

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
            f"projected paper profile, per-trial kernel on {w} workers: {paper:.0e} trials per distribution in "
            f"{paper / rate / 60:.1f} min, {n_dist} distributions in {total / 60:.1f} min"
        )
    secs, _ = engine(paper, 1, kernel="multinomial")
    print(f"paper profile, multinomial kernel on 1 worker: {n_dist} distributions in {n_dist * secs:.1f} s (wall)")

    top = max(rates)
    for kernel in ("stratified", "multinomial"):
        _, F1 = engine(16 * int(CFG.mc.chunk), 1, kernel=kernel)
        _, Fn = engine(16 * int(CFG.mc.chunk), top, kernel=kernel)
        print(f"{kernel}: identical counts with 1 and {top} workers: {F1.tobytes() == Fn.tobytes()}")
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
