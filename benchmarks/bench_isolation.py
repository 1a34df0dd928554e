"""Benchmark: isolation_vs_d at the paper's scale (n = 100,000 points, d = 2..20).

Goal (issue 6): under 3 minutes on 2 cores, no O(n^2) distance matrix.
Run: python benchmarks/bench_isolation.py [--n 100000] [--m 2000] [--jobs 2]  (m: the paper profile's targets per d)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from privlab import isolation as iso  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--m", type=int, default=2000)
    ap.add_argument("--T", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    print(
        f"host cores: {os.cpu_count()}, workers: {args.jobs}, n = {args.n}, m = {args.m}, T = {args.T}; "
        f"load average at start {os.getloadavg()[0]:.2f} (other processes slow every timing below)"
    )

    # per-step timing at d = 20 (the hardest dimension)
    db = iso.uniform_cube(args.n, 20, 0)
    q = iso.uniform_cube(args.m, 20, 1)
    t = np.random.default_rng(2).integers(args.n, size=args.m)
    for name, fn in (
        ("recursive histogram", lambda: iso.build_histogram(db, args.T)),
        (f"isolation_rate, {args.m} queries", lambda: iso.isolation_rate(q, t, db, 4, args.T)),
        ("targeted + anyone masks, one pass", lambda: iso.isolation_masks(q, t, db, 4, args.T)),
        (f"T-radius of {args.m} points", lambda: iso.t_radius(db, args.T, t)),
        ("histogram + perturbation", lambda: iso.histogram_plus_perturbation(db, args.T, 3)),
    ):
        start = time.perf_counter()
        fn()
        print(f"  d = 20: {name:34s} {time.perf_counter() - start:7.2f} s")

    # the whole experiment at the paper profile, through the runner
    from privlab import registry, runner

    cfg = runner.compose(
        "isolation/isolation_vs_d",
        [f"n={args.n}", f"m={args.m}", f"T={args.T}", f"n_jobs={args.jobs}", "cache=false"],
        profile="paper",
    )
    exp = registry.get("isolation/isolation_vs_d")
    ctx = runner.make_context(cfg, log=lambda msg: None)
    start = time.perf_counter()
    df = runner.run_table(exp, cfg, ctx)
    wall = time.perf_counter() - start
    print(
        f"isolation_vs_d (d = {df.d.min()}..{df.d.max()}, {len(df)} rows): {wall:.1f} s "
        f"({'meets' if wall < 180 else 'misses'} the 180 s goal) on {os.cpu_count()} cores, {args.jobs} workers; "
        f"load average now {os.getloadavg()[0]:.2f}"
    )
    nat = df[
        df.adversary.isin(["distribution_draw", "cell_uniform", "perturbed_point", "cell_uniform_or_perturbed_point"])
    ]
    print(nat.pivot_table(index="d", columns="sanitizer", values="rate").to_string())


if __name__ == "__main__":
    main()
