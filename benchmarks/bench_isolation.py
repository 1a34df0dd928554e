"""Benchmark: isolation_vs_d at the paper's scale (n = 100,000 points, d = 2..20).

Goal (issue 6): under 3 minutes on 2 cores, no O(n^2) distance matrix.
The parameters (n, m, T, c, dims, the sanitizers) are the paper profile of
conf/experiment/isolation/isolation_vs_d.yaml; the work is the library's
(`privlab.isolation.cube_attack`, one cell per (d, sanitizer), as the experiment runs it).
Run: python benchmarks/bench_isolation.py [--n 100000] [--m 2000] [--T 100] [--jobs 2]  (defaults: the config's)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402

from privlab import isolation as iso  # noqa: E402
from privlab import mechanisms, runner  # noqa: E402
from privlab.context import seed_sequence  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, help="points of RDB (default: the paper profile's)")
    ap.add_argument("--m", type=int, help="targets per d and sanitizer (default: the paper profile's)")
    ap.add_argument("--T", type=int, help="privacy parameter T (default: the paper profile's)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    overrides = [f"{k}={v}" for k, v in (("n", args.n), ("m", args.m), ("T", args.T)) if v is not None]
    cfg = runner.compose("isolation/isolation_vs_d", overrides, profile="paper")
    n, m, T, c = int(cfg.n), int(cfg.m), int(cfg.T), float(cfg.c)
    print(
        f"host cores: {os.cpu_count()}, workers: {args.jobs}, n = {n}, m = {m}, T = {T}; "
        f"load average at start {os.getloadavg()[0]:.2f} (other processes slow every timing below)"
    )

    # per-step timing at d = 20 (the hardest dimension)
    db = iso.uniform_cube(n, 20, 0)
    q = iso.uniform_cube(m, 20, 1)
    t = np.random.default_rng(2).integers(n, size=m)
    for name, fn in (
        ("recursive histogram", lambda: iso.build_histogram(db, T)),
        (f"isolation_rate, {m} queries", lambda: iso.isolation_rate(q, t, db, c, T)),
        ("targeted + anyone masks, one pass", lambda: iso.isolation_masks(q, t, db, c, T)),
        (f"T-radius of {m} points", lambda: iso.t_radius(db, T, t)),
        ("histogram + perturbation", lambda: iso.histogram_plus_perturbation(db, T, 3)),
    ):
        start = time.perf_counter()
        fn()
        print(f"  d = 20: {name:34s} {time.perf_counter() - start:7.2f} s")

    # the whole experiment's work at the paper profile: one cell per (d, sanitizer), largest d first
    sans = [(mech.label, mech.impl) for mech in mechanisms.build(cfg.mechanism, kind="sanitizer").values()]
    names = iso.seed_names(s for _, s in sans)
    cells = sorted(((int(d), i) for d in cfg.dims for i in range(len(sans))), key=lambda x: -x[0])
    start = time.perf_counter()
    chunks = Parallel(n_jobs=args.jobs)(
        delayed(iso.cube_attack)(n, d, T, [c], m, {k: seed_sequence(cfg.seed, "vs_d", d, k) for k in names}, [sans[i]])
        for d, i in cells
    )
    wall = time.perf_counter() - start
    df = pd.DataFrame([{"d": d, **r} for (d, _), rows in zip(cells, chunks) for r in rows])
    print(
        f"isolation_vs_d (d = {df.d.min()}..{df.d.max()}, {len(df)} rows): {wall:.1f} s "
        f"({'meets' if wall < 180 else 'misses'} the 180 s goal) on {os.cpu_count()} cores, {args.jobs} workers; "
        f"load average now {os.getloadavg()[0]:.2f}"
    )
    print(iso.natural_rows(df).pivot_table(index="d", columns="sanitizer", values="rate").to_string())


if __name__ == "__main__":
    main()
