"""HiGHS against CBC on every ILP of Figures 4, 5 and 7 (run on demand, never as a test).

The instances are the experiments' own, composed from their configs at the chosen profile:
Figure 4's Optimal (multi-size ILP) on OCC and EDU at every theta, its ACS twin, and Figure 7's
two-size ILP at every n and every gamma. Figure 5 releases the same settings as Figure 4 (the
run solves each instance once, `RunContext.memo`), so its ILPs are Figure 4's.

Each instance is solved with each solver in this one process, one after the other, so both see
the same machine load; the table gives wall-clock and CPU seconds (CPU: this process and the
solver processes it waited for, the figure that does not depend on the load) and the ratio
CBC / HiGHS. A solve that hits its limit prints ">" before its time.

    python benchmarks/bench_ilp.py                      # paper profile, the mechanisms' limits (600 s)
    python benchmarks/bench_ilp.py --profile quick
    python benchmarks/bench_ilp.py --time-limit 120     # cap each solve (CBC's time-outs cost the cap)
    python benchmarks/bench_ilp.py --only acs --solvers highs
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privlab import bucketization as bk  # noqa: E402
from privlab.bucketization.ilp import SOLVERS  # noqa: E402
from privlab.context import seed_sequence  # noqa: E402
from privlab.datasets import load  # noqa: E402
from privlab.runner import compose  # noqa: E402


def _table(cfg, table, **data):
    return bk.census_table(load(**{**cfg.dataset, **data}), table, cfg.sa_columns, cfg.columns)


def instances(profile: str):
    """(figure, label, counts, F, M, two_sizes, time limit) of every ILP the figures solve."""
    for exp in ("fig4_mse", "fig4_mse_acs"):
        cfg = compose(f"bucketization/{exp}", profile=profile)
        limit = float(cfg.mechanism.optimal_multi_size.time_limit)
        for table in cfg.tables:
            o = np.bincount(_table(cfg, table).sa)
            for theta in cfg.thetas:
                F = bk.fprivacy(o / o.sum(), theta, cfg.offset)
                yield exp, f"{table} theta={theta:g}", o, F, cfg.max_size, False, limit
    cfg = compose("bucketization/fig7a_runtime_n", profile=profile)
    limit = float(cfg.mechanism.optimal_two_size.time_limit)
    for n in cfg.ns:
        o = np.bincount(_table(cfg, cfg.table, n=n).sa)
        yield "fig7a_runtime_n", f"n={n}", o, bk.fprivacy(o / o.sum(), cfg.theta, cfg.offset), cfg.max_size, True, limit
    cfg = compose("bucketization/fig7b_runtime_scaleup", profile=profile)
    limit = float(cfg.mechanism.optimal_two_size.time_limit)
    sa = _table(cfg, cfg.table).sa
    for gamma in cfg.gammas:
        o = np.bincount(bk.scale_up(sa, gamma, seed_sequence(cfg.seed, "scaleup", gamma)))
        F = bk.fprivacy(o / o.sum(), cfg.theta, cfg.offset)
        yield "fig7b_runtime_scaleup", f"gamma={gamma}", o, F, cfg.max_size, True, limit


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def solve(o, F, M, two_sizes, limit, solver):
    """(result, wall seconds, CPU seconds) of one solve."""
    fn = bk.optimal_two_size if two_sizes else bk.optimal
    c0, t0 = _cpu(), time.perf_counter()
    res = fn(o, F, M, time_limit=limit, solver=solver)
    return res, time.perf_counter() - t0, _cpu() - c0


def _cell(res, seconds):
    return f"{'>' if res.status == 'timed out' else ' '}{seconds:7.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="paper", choices=("quick", "paper"))
    ap.add_argument("--time-limit", type=float, default=None, help="seconds per solve (default: the mechanism's)")
    ap.add_argument("--solvers", default=",".join(SOLVERS), help="comma-separated, of: " + ", ".join(SOLVERS))
    ap.add_argument("--only", default="", help="only instances whose figure or label contains this text")
    args = ap.parse_args()
    solvers = [s for s in args.solvers.split(",") if s]
    load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cores, load average {load_avg:.1f}; profile {args.profile}")
    head = f"{'figure':<22} {'instance':<14} {'m':>5} {'loss':>7}"
    for s in solvers:
        head += f" | {s + ' status':<12} {'wall s':>8} {'cpu s':>8}"
    print(head + (" | CBC/HiGHS wall  cpu" if len(solvers) == 2 else ""))
    totals = {s: [0.0, 0.0] for s in solvers}
    for fig, label, o, F, M, two, limit in instances(args.profile):
        if args.only and args.only not in fig and args.only not in label:
            continue
        limit = args.time_limit or limit
        line, runs = f"{fig:<22} {label:<14} {int(np.count_nonzero(o)):>5}", {}
        for s in solvers:
            runs[s] = solve(o, F, M, two, limit, s)
            totals[s][0] += runs[s][1]
            totals[s][1] += runs[s][2]
        losses = {r.loss for r, _, _ in runs.values() if r.loss is not None}
        line += f" {'/'.join(map(str, sorted(losses))) or '-':>7}"
        for s in solvers:
            res, wall, cpu = runs[s]
            line += f" | {res.status:<12} {_cell(res, wall)} {_cell(res, cpu)}"
        if len(solvers) == 2 and set(solvers) == set(SOLVERS):
            (rc, wc, cc), (_, wh, ch) = runs["cbc"], runs["highs"]
            mark = ">" if rc.status == "timed out" else " "
            line += f" | {mark}{wc / wh:7.1f}x {mark}{cc / max(ch, 1e-3):6.1f}x"
        print(line, flush=True)
    print("total: " + ", ".join(f"{s} {w:.1f} s wall, {c:.1f} s CPU" for s, (w, c) in totals.items()))


if __name__ == "__main__":
    main()
