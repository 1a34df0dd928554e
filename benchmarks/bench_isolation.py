"""Benchmark: the isolation experiments at quick and paper scale.

Goals (issue 12): the paper profile of isolation_vs_d (n = 100,000, d = 2..20, m = 300,000
adversary outputs per (d, sanitizer)) under 10 minutes on 2 cores, isolation/utility at the
paper profile under 60 s on 2 cores, never an n x m distance matrix.

The parameters are the profile's, from conf/experiment/isolation/*.yaml; the work is the
library's (`privlab.isolation.cube_attack` per (d, sanitizer) cell and
`privlab.isolation.mixture_utility` per d, as the experiments run them, the costliest first).
Times are wall clock and CPU seconds; other processes on the machine slow every wall time.

Run: python benchmarks/bench_isolation.py [--profile paper|quick] [--jobs 2] [--only steps|vs_d|utility]
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

from privlab import executors, mechanisms, runner  # noqa: E402
from privlab import isolation as iso  # noqa: E402
from privlab.context import seed_sequence  # noqa: E402


def _timed(fn, *args, **kwargs):
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - w, time.process_time() - c


def steps(cfg) -> None:
    """Each step of one cell at the smallest and largest d: what a cell's time is made of."""
    n, m, m_any, T, c = int(cfg.n), int(cfg.m), int(cfg.m_any), int(cfg.T), float(cfg.c)
    for d in (min(cfg.dims), max(cfg.dims)):
        db = iso.uniform_cube(n, d, 0)
        targets = np.random.default_rng(2).integers(n, size=m)
        index, wall, cpu = _timed(iso.distance_index, db)
        print(f"  d = {d:2d}: {'distance index of db':44s} {wall:7.2f} s wall {cpu:7.2f} s cpu")
        sans = (("histogram", iso.RecursiveHistogram()), ("perturbed_one", iso.Perturbation()))
        names = iso.seed_names(s for _, s in sans)
        seeds = {name: np.random.SeedSequence(5, spawn_key=(i,)) for i, name in enumerate(names)}
        rows = [("aux_only: distribution draw", iso.uniform_cube(m, d, 1))]
        for label, san in sans:
            run, wall, cpu = _timed(san.with_setting(T=T, index=index).attack, db, targets, seeds)
            print(f"  d = {d:2d}: {label + ' release':44s} {wall:7.2f} s wall {cpu:7.2f} s cpu")
            rows.append((f"{label}: {run.outputs[0].name}", run.outputs[0].queries))
        for name, q in rows:
            (mask, _), wall, cpu = _timed(iso.isolation_masks, q, targets, db, c, T, anyone=False, index=index)
            per = 1e6 * cpu / m
            print(
                f"  d = {d:2d}: {'isolation test, ' + name:44s} {wall:7.2f} s wall {cpu:7.2f} s cpu "
                f"({per:.1f} us per output, {m} outputs, rate {mask.mean():.2e})"
            )
            (_, anyone), wall, cpu = _timed(
                iso.isolation_masks, q, targets, db, c, T, targeted=False, m_any=m_any, index=index
            )
            print(
                f"  d = {d:2d}: {'isolates anyone, ' + name:44s} {wall:7.2f} s wall {cpu:7.2f} s cpu "
                f"({1e6 * cpu / m_any:.1f} us per output, {m_any} outputs, rate {anyone.mean():.2e})"
            )


def vs_d(cfg, jobs: int) -> float:
    """The whole isolation_vs_d work: one cell per (d, sanitizer), the largest d first."""
    sans = [(mech.label, mech.impl) for mech in mechanisms.build(cfg.mechanism, kind="sanitizer").values()]
    names = iso.seed_names(s for _, s in sans)
    cells = sorted(((int(d), i) for d in cfg.dims for i in range(len(sans))), key=lambda x: -x[0])
    n, m, m_any, T, c = int(cfg.n), int(cfg.m), int(cfg.m_any), int(cfg.T), float(cfg.c)

    def cell(d, i):
        seeds = {k: seed_sequence(cfg.seed, "vs_d", d, k) for k in names}
        start = time.process_time()
        rows = iso.cube_attack(n, d, T, [c], m, seeds, [sans[i]], m_any=m_any)
        return rows, time.process_time() - start

    start = time.perf_counter()
    out = Parallel(n_jobs=jobs)(delayed(cell)(d, i) for d, i in cells)
    wall = time.perf_counter() - start
    df = pd.DataFrame([{"d": d, **r} for (d, _), (rows, _) in zip(cells, out) for r in rows])
    cpu = pd.Series({f"d = {d:2d} {sans[i][0]}": t for (d, i), (_, t) in zip(cells, out)})
    print(
        f"isolation_vs_d (n = {n}, m = {m}, m_any = {m_any}, d = {df.d.min()}..{df.d.max()}, {len(df)} rows): "
        f"{wall:.1f} s wall, {cpu.sum():.1f} s cpu in the cells on {jobs} workers; "
        f"load average now {os.getloadavg()[0]:.2f}"
    )
    print("  costliest cells (cpu s): " + ", ".join(f"{k} {v:.1f}" for k, v in cpu.nlargest(6).items()))
    nat = iso.natural_rows(df)
    print(nat.pivot_table(index="d", columns="sanitizer", values="successes").to_string())
    for san, g in nat[nat.sanitizer != "aux_only"].groupby("sanitizer"):
        print(f"  {san}: {iso.fit_decay(g.d, g.successes, g.trials).describe()}")
    return wall


def utility(jobs: int, profile: str) -> float:
    """isolation/utility's work: one task per d, the largest first."""
    cfg = runner.compose("isolation/utility", [], profile=profile)
    sans = [(mech.label, mech.impl) for mech in mechanisms.build(cfg.mechanism, kind="sanitizer").values()]
    names = iso.seed_names(s for _, s in sans)
    kw = {k: cfg[k] for k in ("n", "T", "k", "sigma", "n_boxes", "box_dims", "n_init")}

    def task(d):
        start = time.process_time()
        seeds = {k: seed_sequence(cfg.seed, "utility", d, k) for k in names}
        iso.mixture_utility(d=d, sanitizers=sans, seeds=seeds, **kw)
        return time.process_time() - start

    dims = sorted(cfg.dims, reverse=True)
    start = time.perf_counter()
    cpu = Parallel(n_jobs=jobs)(delayed(task)(d) for d in dims)
    wall = time.perf_counter() - start
    print(
        f"utility (n = {cfg.n}, d = {list(cfg.dims)}, n_init = {cfg.n_init}): {wall:.1f} s wall on {jobs} workers; "
        "cpu per d: " + ", ".join(f"d = {d}: {t:.1f} s" for d, t in zip(dims, cpu))
    )
    return wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="paper", choices=["quick", "paper"])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", choices=["steps", "vs_d", "utility"])
    args = ap.parse_args()
    executors.one_line_warnings("bench_isolation")  # as privlab's command line: no library's raw warning
    cfg = runner.compose("isolation/isolation_vs_d", [], profile=args.profile)
    print(
        f"host cores: {os.cpu_count()}, workers: {args.jobs}, profile {args.profile}; load average at start "
        f"{os.getloadavg()[0]:.2f} (other processes slow every wall time below)"
    )
    if args.only in (None, "steps"):
        steps(cfg)
    if args.only in (None, "vs_d"):
        wall = vs_d(cfg, args.jobs)
        if args.profile == "paper":
            print(f"  goal: under 600 s on 2 cores -> {'met' if wall < 600 else 'missed'}")
    if args.only in (None, "utility"):
        wall = utility(args.jobs, args.profile)
        if args.profile == "paper":
            print(f"  goal: under 60 s on 2 cores -> {'met' if wall < 60 else 'missed'}")


if __name__ == "__main__":
    main()
