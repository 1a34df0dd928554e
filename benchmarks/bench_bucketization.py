"""Performance goals of the bucketization paper (run on demand, never as a test).

1. Full-pruning TwoSizeBucketing on OCC-500K vs No-pruning (goal >= 100x) and Full-pruning's
   time from 100K to 500K (goal: nearly flat; value counting excluded).
2. Figures 4 and 5's work at the paper profile, Optimal left out (n = 300K, both tables, every
   theta): TwoSize and MultiSize settings, their bucketization and independent check, Anatomy,
   and the 5,000-query pool evaluated once per table for every release, with ``--jobs``
   worker processes: goal < 2 min on 2 cores.
3. Optimal (multi-size ILP) at m = 50 for every theta within its time limit.

Only the library runs here; the paper's parameters (theta grid, offset, M, n, pool size and
chunking, mechanisms) come from the experiments' configs at the paper profile
(`privlab.runner.compose`).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privlab import bucketization as bk  # noqa: E402
from privlab.context import RunContext  # noqa: E402
from privlab.datasets import load  # noqa: E402
from privlab.datasets.census import SIZES  # noqa: E402
from privlab.mechanisms import build  # noqa: E402
from privlab.runner import compose  # noqa: E402


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _table(cfg, table, **data):
    return bk.split_table(load(**{**cfg.dataset, **data}), cfg.sa_columns[table], SIZES)


def _call(task):
    fn, args = task
    return fn(*args)


def bench_pruning():
    cfg = compose("bucketization/fig7a_runtime_n", profile="paper")
    full_times = {}
    for n in (min(cfg.ns), max(cfg.ns)):
        o = np.bincount(_table(cfg, cfg.table, n=n).sa)
        F = bk.fprivacy(o / n, cfg.theta, cfg.offset)
        full_times[n] = best_of(lambda o=o, F=F: bk.two_size(o, F, cfg.max_size, "full"), 5)
    none_t = best_of(lambda: bk.two_size(o, F, cfg.max_size, "none"), 1)
    loss_t = best_of(lambda: bk.two_size(o, F, cfg.max_size, "loss"), 1)
    big, small = max(cfg.ns), min(cfg.ns)
    print(
        f"[1] {cfg.table}-{big // 1000}K theta={cfg.theta}: No-pruning {none_t:.3f} s, Loss-pruning {loss_t:.3f} s, "
        f"Full-pruning {full_times[big] * 1e3:.2f} ms -> ratio {none_t / full_times[big]:.0f}x (goal >= 100x)"
    )
    print(
        f"    Full-pruning: {small // 1000}K {full_times[small] * 1e3:.2f} ms, {big // 1000}K "
        f"{full_times[big] * 1e3:.2f} ms ({big // 1000}K/{small // 1000}K = {full_times[big] / full_times[small]:.2f})"
    )


def _releases(cfg, ctx, tables, keep_ids):
    mechs = list(build(cfg.mechanism, kind="bucketing").values())
    tasks = []
    for table, t in tables.items():
        f = np.bincount(t.sa) / t.sa.size
        for theta in cfg.thetas:
            seeds = [ctx.seed_sequence(table, theta, m.label) for m in mechs]
            args = (t.sa, bk.fprivacy(f, theta, cfg.offset), [m.impl for m in mechs], cfg.max_size, seeds, keep_ids)
            tasks.append((table, (bk.release_all, args)))
    return [(table, r) for (table, _), rs in zip(tasks, ctx.map(_call, [t for _, t in tasks])) for r in rs]


def bench_fig45(jobs):
    """Figures 4 and 5 at the paper profile without Optimal, with ``jobs`` worker processes."""
    cfg4 = compose("bucketization/fig4_mse", ["mechanism=[two_size,multi_size,anatomy]"], profile="paper")
    cfg5 = compose("bucketization/fig5_re", ["mechanism=[two_size,multi_size]"], profile="paper")
    ctx = RunContext(seed=cfg5.seed, workers=jobs)
    tables = {table: _table(cfg5, table) for table in cfg5.tables}
    t0 = time.perf_counter()
    released = _releases(cfg4, ctx, tables, keep_ids=False)
    assert all(r.checked is not False for _, r in released)
    t4 = time.perf_counter() - t0
    t0 = time.perf_counter()
    pool_tasks = [
        (bk.make_query_pool, (t.qi, t.qi_sizes, t.sa, t.sa_size, cfg5.n_queries, cfg5.selectivity, 0))
        for t in tables.values()
    ]
    pools = dict(zip(tables, ctx.map(_call, pool_tasks)))
    released = _releases(cfg5, ctx, tables, keep_ids=True)
    chunks = []
    for table, t in tables.items():
        ids = [r.bucket_ids for tb, r in released if tb == table]
        for s in range(0, cfg5.n_queries, cfg5.query_chunk):
            chunks.append((bk.pool_relative_errors, (t.qi, t.sa, ids, pools[table].part(s, s + cfg5.query_chunk))))
    errors = ctx.map(_call, chunks)
    assert all(np.isfinite(e).all() for part in errors for e in part)
    t5 = time.perf_counter() - t0
    print(
        f"[2] Figures 4 + 5 at the paper profile (n={cfg5.dataset.n // 1000}K, both tables, {cfg5.n_queries:,} "
        f"queries, no Optimal): fig4 {t4:.1f} s, fig5 {t5:.1f} s; total {t4 + t5:.1f} s with {jobs} worker(s) "
        f"on a {os.cpu_count()}-core machine (goal < 120 s on 2 cores)"
    )


def bench_optimal(limit):
    cfg = compose("bucketization/fig4_mse", profile="paper")
    table = cfg.tables[0]
    o = np.bincount(_table(cfg, table).sa)
    for theta in cfg.thetas:
        F = bk.fprivacy(o / o.sum(), theta, cfg.offset)
        res = bk.optimal(o, F, cfg.max_size, time_limit=limit)
        n = cfg.dataset.n // 1000
        print(f"[3] Optimal {table}-{n}K theta={theta}: {res.status} in {res.seconds:.1f} s (limit {limit:g} s)")


def main():
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="1,2,3", help="which measurements to run, e.g. 2 or 1,2")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes for [2] (default 2)")
    ap.add_argument("--ilp-limit", type=float, default=120.0, help="the ILP solver's time limit for [3] (paper: 600 s)")
    args = ap.parse_args()
    parts = {int(p) for p in args.parts.split(",")}
    print(f"machine: {os.cpu_count()} cores")
    if 1 in parts:
        bench_pruning()
    if 2 in parts:
        bench_fig45(args.jobs)
    if 3 in parts:
        bench_optimal(args.ilp_limit)


if __name__ == "__main__":
    main()
