"""Performance goals of the CAE paper (issue 5), measured on this machine.

    python benchmarks/bench_cae.py [--lp-records N] [--skip-suite] [--n-jobs J]

1. Batched curves: H(eps) curves per second over the 25-value PUMS salary grid.
2. Query restriction on n = 2,500: the structural bounds of all records vs the HiGHS LP
   path (two LPs per record, timed on --lp-records records and projected to all 2,500;
   the goal is a ratio >= 100), and the largest difference between the two.
3. The whole fig2 + fig4 suite at the paper profile (30 repetitions, all SK sets and
   values, PUMS-like and Adult); the goal is < 5 minutes on 2 cores.

Parameters come from the experiments' configs (``runner.compose``); the work is done by the
library (`privlab.cae`) exactly as the experiments do it, without importing them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privlab import cae, datasets, mechanisms  # noqa: E402
from privlab.context import RunContext  # noqa: E402
from privlab.runner import compose  # noqa: E402

SUITE = ("cae/fig2_sampling", "cae/fig2_query_restriction", "cae/fig2_noise", "cae/fig4_noise")


def bench_curves():
    grid = np.arange(10, 251, 10, dtype=float)
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.full(grid.size, 0.3), size=50_000)
    P[rng.random(P.shape) < 0.5] = 0.0
    P[P.sum(1) == 0, 0] = 1.0
    P /= P.sum(1, keepdims=True)
    t = time.perf_counter()
    cae.cae_batch(grid, P)
    dt = time.perf_counter() - t
    print(
        f"batched curves: {P.shape[0]:,} distributions over {grid.size} values in {dt:.2f} s "
        f"= {P.shape[0] / dt:,.0f} curves/s (one core)"
    )


def bench_query_restriction(lp_records: int):
    cfg = compose("cae/fig2_query_restriction")
    spec = cfg.datasets.pums
    df = datasets.load(**spec.dataset)
    values = df[spec.confidential].to_numpy()
    dom = cae.attribute_domain(df[spec.confidential])
    rng = np.random.default_rng(1)
    for Q in (2, 8, 32):
        qr = cae.QueryRestriction(values, Q, 7, domain=dom)
        t = time.perf_counter()
        reps = 20
        for _ in range(reps):
            L, U = qr.bounds()
        t_struct = (time.perf_counter() - t) / reps
        recs = np.sort(rng.choice(qr.n, size=min(lp_records, qr.n), replace=False))
        t = time.perf_counter()
        L2, U2 = qr.bounds(recs, method="lp")
        t_lp = (time.perf_counter() - t) * qr.n / recs.size
        diff = max(np.abs(L[recs] - L2).max(), np.abs(U[recs] - U2).max())
        print(
            f"query restriction Q={Q:2d}, n={qr.n:,}: structural {t_struct * 1e3:.2f} ms for all records; "
            f"LP {t_lp:.1f} s projected from {recs.size} records; ratio {t_lp / t_struct:,.0f}x; "
            f"max |bound difference| {diff:.2e}"
        )


def bench_suite(n_jobs: int):
    total, loaded = 0.0, {}
    for exp_id in SUITE:
        cfg = compose(exp_id, [f"workers={n_jobs}", "cache=false"], profile="paper")
        ctx = RunContext(seed=cfg.seed, workers=n_jobs)
        t = time.perf_counter()
        data = {}
        for ds, spec in cfg.datasets.items():
            key = repr(sorted(spec.dataset.items()))
            loaded.setdefault(key, datasets.load(**spec.dataset))  # loading is not what is measured
            coding = {k: v for k, v in spec.items() if k != "dataset"}
            data[ds] = cae.prepare(loaded[key], sk_sizes=list(cfg.sk_sizes), max_sets=cfg.max_sets, **coding)
        techniques = [(m.label, m.impl) for m in mechanisms.build(cfg.mechanism, kind="sdc_technique").values()]
        df = cae.run_series(
            data,
            techniques,
            cfg.repetitions,
            seed_sequence=ctx.seed_sequence,
            map_fn=ctx.map,
            lp_check_records=cfg.lp_check_records,
        )
        dt = time.perf_counter() - t
        total += dt
        print(f"{exp_id} (paper profile, {cfg.repetitions} repetitions): {len(df)} rows in {dt:.1f} s")
    print(f"whole fig2 + fig4 suite at paper scale: {total:.1f} s with workers={n_jobs} (goal < 300 s on 2 cores)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lp-records", type=int, default=40)
    ap.add_argument("--skip-suite", action="store_true")
    ap.add_argument("--n-jobs", type=int, default=os.cpu_count())
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores")
    bench_curves()
    bench_query_restriction(args.lp_records)
    if not args.skip_suite:
        bench_suite(args.n_jobs)


if __name__ == "__main__":
    main()
