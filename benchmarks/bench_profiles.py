"""Every experiment's time at the quick and the paper profile (run on demand, never as a test).

Runs the experiments as `privlab reproduce` does (the same order, the same runner, one results
directory per profile so that what one experiment caches, e.g. Figure 4's ILP solves for
Figure 5, the next one finds), in this process, and reports for each its wall-clock seconds
and its CPU seconds (this process and its worker processes: the figure that does not depend
on the machine's load), then the per-paper table of README ("wall time", "longest") and the
total. The load average is printed at the start and the end: compare wall times only from runs
at the same load, or compare CPU seconds.

    python benchmarks/bench_profiles.py                              # quick profile, every experiment
    python benchmarks/bench_profiles.py --profile paper --jobs 2     # README's paper-profile table
    python benchmarks/bench_profiles.py --profile both --only bucketization
    python benchmarks/bench_profiles.py --only bucketization/fig4_mse --csv times.csv

``privlab reproduce --profile paper --workers 2`` on a quiet machine is the measurement README's
table quotes; this script gives the same numbers per experiment, with their CPU time beside. As
reproduce does with ``--workers``, each experiment's figures are drawn and its files written by a
writer process while the next experiment computes: a row's time runs from its turn until its table
and claims are done, and the total is measured end to end (the last writes included).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privlab import executors, registry, reproduce_pool, runner  # noqa: E402


def _cpu_seconds() -> float:
    """CPU seconds of this process, the children it reaped and its live descendants (workers)."""
    try:
        import psutil
    except ImportError:  # without psutil: this process and reaped children only
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system
    me = psutil.Process()
    t = me.cpu_times()
    total = t.user + t.system + t.children_user + t.children_system
    for child in me.children(recursive=True):
        try:
            c = child.cpu_times()
            total += c.user + c.system
        except psutil.Error:  # ended meanwhile
            pass
    return total


def _load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def run_profile(profile: str, ids: list[str], jobs: int | None, results: Path) -> list[dict]:
    """Run every experiment of ``ids`` at ``profile``; one row per experiment."""
    extra = [f"results_dir={runner.quote_override_value(str(results))}"]
    extra += [f"workers={jobs}"] if jobs is not None else []
    papers = registry.papers()
    exps = [e for e in registry.select() if not ids or e.id in ids or e.paper in ids]
    unknown = [i for i in ids if i not in papers and i not in {e.id for e in exps}]
    if unknown:
        raise SystemExit(f"bench_profiles: unknown experiment or paper: {', '.join(unknown)}")
    configs = [(exp, runner.compose(exp.id, extra, profile=profile)) for exp in exps]
    rows: list[dict] = []
    by_id: dict[str, dict] = {}

    def settle(outcomes: list) -> None:  # a write that failed makes its experiment's row an error
        for outcome in outcomes:
            if not outcome.ok:
                by_id[outcome.exp_id]["status"] = f"error: {outcome.error}"
                print(f"{profile:<6} {outcome.exp_id:<44} its files: error: {outcome.error}", flush=True)

    cpu_start, start = _cpu_seconds(), time.perf_counter()
    # as `privlab reproduce --workers N`: one experiment after another, each one's figures drawn and files
    # written by the writer's process while the next computes (an experiment that times itself waits for
    # every write first). A row's time: from its turn (waiting included) until its table and claims are
    # done; the writer's CPU time falls into the rows it ran beside, the last writes into the total.
    with reproduce_pool.DeferredWriter(results) as writer:
        for exp, cfg in configs:
            cpu0, t0 = _cpu_seconds(), time.perf_counter()
            settle(writer.finished(wait_all=reproduce_pool.timed(cfg)))
            failed = reproduce_pool.run_one(exp.id, cfg, str(results), writer=writer)  # a fault: a row
            status = "ok" if failed is None else f"error: {failed.error}"
            wall, cpu = time.perf_counter() - t0, _cpu_seconds() - cpu0
            by_id[exp.id] = {"profile": profile, "experiment": exp.id, "wall_s": wall, "cpu_s": cpu, "status": status}
            rows.append(by_id[exp.id])
            print(f"{profile:<6} {exp.id:<44} {wall:8.1f} s wall {cpu:8.1f} s CPU  {status}", flush=True)
        t_last = time.perf_counter()
        settle(writer.finished(wait_all=True))
        print(f"{profile:<6} {'(the writes left after the last run)':<44} {time.perf_counter() - t_last:8.1f} s wall")
    end_to_end = {"wall_s": time.perf_counter() - start, "cpu_s": _cpu_seconds() - cpu_start}
    return rows + [{"profile": profile, "experiment": "all (end to end)", **end_to_end, "status": ""}]


def paper_table(rows: list[dict]) -> str:
    """README's per-paper table (experiments, wall time, longest) with CPU time beside; the total
    is the end-to-end row's (the last writes included) where there is one."""
    lines = ["| paper | experiments | wall time | CPU time | longest |", "|---|---|---|---|---|"]
    ends = [r for r in rows if "/" not in r["experiment"]]
    rows = [r for r in rows if "/" in r["experiment"]]
    papers: dict[str, list[dict]] = {}
    for r in rows:
        papers.setdefault(r["experiment"].split("/")[0], []).append(r)
    for paper, rs in sorted(papers.items()):
        top = max(rs, key=lambda r: r["wall_s"])
        wall, cpu = sum(r["wall_s"] for r in rs), sum(r["cpu_s"] for r in rs)
        longest = f"{top['experiment'].split('/')[1]} {top['wall_s']:.0f} s"
        lines.append(f"| {paper} | {len(rs)} | {wall / 60:.1f} min | {cpu / 60:.1f} min | {longest} |")
    wall, cpu = sum(r["wall_s"] for r in rows), sum(r["cpu_s"] for r in rows)
    if ends:
        wall, cpu = ends[-1]["wall_s"], ends[-1]["cpu_s"]
    lines.append(f"| **all** | **{len(rows)}** | **{wall / 60:.1f} min** | {cpu / 60:.1f} min | |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="quick", choices=("quick", "paper", "both"))
    ap.add_argument("--jobs", type=int, default=None, help="workers of every experiment (reproduce's --workers)")
    ap.add_argument("--only", nargs="*", default=[], help="experiment ids or papers (default: all)")
    ap.add_argument("--results", default=None, help="results directory (default: a fresh temporary one)")
    ap.add_argument("--csv", default=None, help="also write the rows to this CSV file")
    args = ap.parse_args()
    executors.one_line_warnings("bench_profiles")  # as privlab's command line: no library's raw warning
    profiles = ("quick", "paper") if args.profile == "both" else (args.profile,)
    print(f"machine: {os.cpu_count()} cores, load average {_load():.1f} at the start; jobs {args.jobs or 1}")
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="privlab-bench-") as tmp:
        for profile in profiles:
            results = Path(args.results or tmp) / profile
            rows += run_profile(profile, args.only, args.jobs, results)
    print(f"load average {_load():.1f} at the end")
    for profile in profiles:
        print(f"\n{profile} profile:\n" + paper_table([r for r in rows if r["profile"] == profile]))
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
