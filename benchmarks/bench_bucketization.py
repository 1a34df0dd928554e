"""Performance goals of the bucketization paper (run on demand, never as a test).

1. Full-pruning TwoSizeBucketing on OCC-500K vs No-pruning (goal >= 100x) and Full-pruning's
   time from 100K to 500K (goal: nearly flat; value counting excluded).
2. fig4_mse + fig5_re for both tables at n = 300K, all methods except Optimal: the
   experiments themselves at the paper profile with methods=[TwoSize,MultiSize] and
   n_jobs=2 (settings, bucketization, checker, Anatomy, the 5,000-query pool evaluated
   once per table for every theta and method): goal < 2 min on 2 cores.
3. Optimal (multi-size ILP) at m = 50 for every theta within its time limit.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privlab import bucketization as bk  # noqa: E402
from privlab.datasets import load  # noqa: E402

THETA, OFFSET, M = 8, 0.02, 50


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench_fig45(jobs):
    """The experiments themselves at the paper profile (n = 300K, 5,000 queries per table,
    theta in {2..32}, both tables), Optimal left out, with ``jobs`` worker processes."""
    import tempfile

    import experiments.bucketization  # noqa: F401  (registers the experiments)
    from privlab import registry
    from privlab.runner import compose, make_context, run_table

    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("fig4_mse", "fig5_re"):
            exp_id = f"bucketization/{name}"
            cfg = compose(exp_id, ["methods=[TwoSize,MultiSize]", f"n_jobs={jobs}", "cache=false"], profile="paper")
            ctx = make_context(cfg, results_dir=Path(tmp), log=lambda msg: None)
            t0 = time.perf_counter()
            df = run_table(registry.get(exp_id), cfg, ctx)
            times[name] = time.perf_counter() - t0
            assert len(df) and not (df["checker"] == "FAILED").any() if "checker" in df else df.re.notna().all()
    total = sum(times.values())
    print(
        "[2] fig4_mse + fig5_re at paper profile (n=300K, both tables, 5,000 queries, no Optimal): "
        + ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
        + f"; total {total:.1f} s with n_jobs={jobs} on a {os.cpu_count()}-core machine (goal < 120 s on 2 cores)"
    )


def bench_pruning():
    full_times = {}
    for n in (100_000, 300_000, 500_000):
        sa = load("census", n=n, seed=0)["occupation"].to_numpy()
        o = np.bincount(sa)
        F = bk.fprivacy(o / n, THETA, OFFSET)
        full_times[n] = best_of(lambda: bk.two_size(o, F, M, "full"), 5)
    none_t = best_of(lambda: bk.two_size(o, F, M, "none"), 1)
    loss_t = best_of(lambda: bk.two_size(o, F, M, "loss"), 1)
    print(
        f"[1] OCC-500K theta={THETA}: No-pruning {none_t:.3f} s, Loss-pruning {loss_t:.3f} s, "
        f"Full-pruning {full_times[500_000] * 1e3:.2f} ms -> ratio {none_t / full_times[500_000]:.0f}x (goal >= 100x)"
    )
    print(
        "    Full-pruning vs n: "
        + ", ".join(f"{n // 1000}K {t * 1e3:.2f} ms" for n, t in full_times.items())
        + f" (500K/100K = {full_times[500_000] / full_times[100_000]:.2f})"
    )


def bench_optimal(limit=120.0):
    o = np.bincount(load("census", n=300_000, seed=0)["occupation"].to_numpy())
    for theta in (2, 4, 8, 16, 32):
        F = bk.fprivacy(o / o.sum(), theta, OFFSET)
        res = bk.optimal(o, F, M, time_limit=limit)
        print(f"[3] Optimal OCC-300K theta={theta}: {res.status} in {res.seconds:.1f} s (limit {limit:g} s)")


def main():
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="1,2,3", help="which measurements to run, e.g. 2 or 1,2")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes for [2] (default 2)")
    args = ap.parse_args()
    parts = {int(p) for p in args.parts.split(",")}
    print(f"machine: {os.cpu_count()} cores")
    if 1 in parts:
        bench_pruning()
    if 2 in parts:
        bench_fig45(args.jobs)
    if 3 in parts:
        bench_optimal()


if __name__ == "__main__":
    main()
