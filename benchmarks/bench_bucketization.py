"""Performance goals of the bucketization paper (run on demand, never as a test).

1. Full-pruning TwoSizeBucketing on OCC-500K vs No-pruning (goal >= 100x) and Full-pruning's
   time from 100K to 500K (goal: nearly flat; value counting excluded).
2. fig4_mse + fig5_re work for both tables at n = 300K, all methods except Optimal
   (settings, bucketization, checker, 5,000-query pool evaluated once per table): goal < 2 min.
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
from privlab.datasets.census import COLUMNS, SIZES  # noqa: E402

THETA, OFFSET, M = 8, 0.02, 50


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    print(f"machine: {os.cpu_count()} cores")
    full_times = {}
    for n in (100_000, 300_000, 500_000):
        sa = load("census", n=n, seed=0)["occupation"].to_numpy()
        o = np.bincount(sa)
        F = bk.fprivacy(o / n, THETA, OFFSET)
        full_times[n] = best_of(lambda: bk.two_size(o, F, M, "full"), 5)
    none_t = best_of(lambda: bk.two_size(o, F, M, "none"), 1)
    loss_t = best_of(lambda: bk.two_size(o, F, M, "loss"), 1)
    print(f"[1] OCC-500K theta={THETA}: No-pruning {none_t:.3f} s, Loss-pruning {loss_t:.3f} s, "
          f"Full-pruning {full_times[500_000] * 1e3:.2f} ms -> ratio {none_t / full_times[500_000]:.0f}x (goal >= 100x)")
    print("    Full-pruning vs n: " + ", ".join(f"{n // 1000}K {t * 1e3:.2f} ms" for n, t in full_times.items())
          + f" (500K/100K = {full_times[500_000] / full_times[100_000]:.2f})")

    t0 = time.perf_counter()
    data = load("census", n=300_000, seed=0)
    for sa_name in ("occupation", "education"):
        sa = data[sa_name].to_numpy(np.int64)
        qi_cols = [c for c in COLUMNS if c != sa_name]
        qi = data[qi_cols].to_numpy(np.int64)
        o = np.bincount(sa)
        pool = bk.make_query_pool(qi, [SIZES[c] for c in qi_cols], sa, SIZES[sa_name], 5000, 0.01, seed=1)
        for theta in (2, 4, 8, 16, 32):
            F = bk.fprivacy(o / o.sum(), theta, OFFSET)
            settings = [bk.two_size(o, F, M), bk.multi_size(o, F, M)]
            bids = [bk.bucketize(sa, F, s, seed=2) for s in settings]
            assert all(bk.check_bucketization(sa, b, F).ok for b in bids)
            bk.anatomy(sa, bk.required_l(F), seed=3)
            bk.query_answers(qi, sa, bids, pool)
    print(f"[2] fig4+fig5 work, both tables, n=300K, 5,000 queries, no Optimal: "
          f"{time.perf_counter() - t0:.1f} s on 1 process (goal < 120 s on 2 cores)")

    o = np.bincount(data["occupation"].to_numpy())
    for theta in (2, 4, 8, 16, 32):
        F = bk.fprivacy(o / o.sum(), theta, OFFSET)
        res = bk.optimal(o, F, M, time_limit=120)
        print(f"[3] Optimal OCC-300K theta={theta}: {res.status} in {res.seconds:.1f} s (limit 120 s)")


if __name__ == "__main__":
    main()
