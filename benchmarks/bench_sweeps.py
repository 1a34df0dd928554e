"""Sweep benchmark: the overhead of a sweep per job, and the wall time of a 1,000-job sweep.

Run on demand (from the repository root):

    python benchmarks/bench_sweeps.py                 # both parts (about 5 min on 2 cores)
    python benchmarks/bench_sweeps.py --part overhead # or --part large

overhead
    Jobs of about 1 s: multilevel/fig7_independent with its Monte Carlo trials set so that the
    library call (`privlab.multilevel.confidence_table`) takes about 1 s. In this process, library
    calls and whole jobs of a sweep (`privlab.multirun.run_job`: the experiment, its claims, its
    files, its Parquet part) alternate, so both see the same load; the overhead per job is the
    median difference plus the job's share of composing the sweep, as a fraction of the library
    call (goal: <= 10 %). Then the same from the command line (one worker): the slope over sweeps
    of N1 and N2 jobs, which leaves the fixed start-up (Python, privlab) out; the start-up is printed.
large
    A 1,000-job sweep of lpb/fig1_lambda (rho2 x rho1_points, every job a complete result with its
    claims) on every core, then ``sweep-report`` over it: wall times, the largest resident memory of
    any process of the sweep, and the same sweep resumed (every job skipped).

Each part prints the machine's core count and its load average before and after, since other
work on the machine slows every number down.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OVERHEAD_EXP = "multilevel/fig7_independent"
LARGE_EXP = "lpb/fig1_lambda"
# 40 x 25 = 1,000 jobs: rho1_points 3..42 by rho2 0.15..0.87 (every rho2 above rho1_max = 0.1)
LARGE_SWEEP = ["rho1_points=range(3,43)", "rho2=" + ",".join(f"{0.15 + 0.03 * i:.2f}" for i in range(25))]


def load() -> str:
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def privlab(args: list[str], results: Path) -> tuple[float, subprocess.CompletedProcess]:
    """``privlab ARGS``: wall time and the finished process (see `peak_run`)."""
    wall, _, done = peak_run(args, results)
    return wall, done


def _library_call(trials: int, seed: int):
    """The experiment's library function with a job's arguments, ready to call."""
    from privlab import multilevel as ml
    from privlab import runner
    from privlab.context import RunContext

    cfg = runner.compose(OVERHEAD_EXP, [f"mc.trials={trials}", f"seed={seed}"])
    ctx = RunContext(seed=seed, progress=False)
    mechs = {m.label: m.impl for m in ctx.mechanisms(cfg.mechanism, kind="perturbation").values()}
    args = (mechs, cfg.pooled_ps, cfg.domain_size, cfg.mc.trials)
    return lambda: ml.confidence_table(*args, chunk=cfg.mc.chunk, seed_sequence=ctx.seed_sequence)


def _seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def overhead(n: int, n_cli: tuple[int, int]) -> None:
    """Per job, interleaved in this process (the same load for both): a job of the sweep (its
    composition, the run, the claims, the files, its Parquet part) against the library call alone;
    then the same from the command line, the start-up left out by the slope over two sweep sizes."""
    from privlab import multirun
    from privlab.launch import sweep_jobs

    cores = os.cpu_count()
    print(f"overhead per job: {OVERHEAD_EXP}, one worker, {cores} cores, {load()}")
    trials = 50_000
    t = min(_seconds(_library_call(trials, 0)) for _ in range(3))
    trials = max(10_000, int(trials * 1.0 / t) // 10_000 * 10_000)  # about 1 s per call
    jobs = sweep_jobs([f"mc.trials={trials}", f"seed=range(0,{n})"])
    start = time.perf_counter()
    configs = multirun.compose_jobs(OVERHEAD_EXP, jobs)
    compose = (time.perf_counter() - start) / n
    lib, job = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for num in range(n):
            lib.append(_seconds(_library_call(trials, num)))
            start = time.perf_counter()
            multirun.run_job(OVERHEAD_EXP, num, jobs[num], configs[num], tmp)
            job.append(time.perf_counter() - start)
    extra = sorted(j - li for j, li in zip(job, lib))
    per_job = extra[len(extra) // 2] + compose  # median of the pairs
    t_lib = sorted(lib)[len(lib) // 2]
    print(
        f"  in-process, {n} interleaved pairs: library call ({trials:,} trials) median {t_lib:.3f} s; a sweep's job "
        f"adds {per_job * 1000:.0f} ms (composition {compose * 1000:.0f} ms) = {100 * per_job / t_lib:.1f} % "
        f"(goal <= 10 %); {load()}"
    )
    n1, n2 = n_cli
    with tempfile.TemporaryDirectory() as tmp:
        walls = {}
        for size in (n1, n2):
            sweep = ["run", OVERHEAD_EXP, f"mc.trials={trials}", f"seed=range(0,{size})", "--multirun"]
            walls[size], out = privlab([*sweep, "hydra.launcher.workers=1"], Path(tmp) / f"r{size}")
            assert out.stdout.count("rows in") == size, out.stdout
    slope = (walls[n2] - walls[n1]) / (n2 - n1) - t_lib
    start_up = walls[n1] - n1 * (t_lib + slope)
    print(
        f"  command line: sweeps of {n1} and {n2} jobs in {walls[n1]:.1f} s and {walls[n2]:.1f} s: "
        f"{slope * 1000:.0f} ms per job over the library call ({100 * slope / t_lib:.1f} %), "
        f"start-up {start_up:.1f} s; {load()}"
    )


def peak_run(args: list[str], results: Path) -> tuple[float, int, subprocess.CompletedProcess]:
    """``privlab ARGS`` in a fresh wrapper process: wall time and the largest resident memory (MB) of
    any process of the run (the command's own and its workers')."""
    wrapper = (
        "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(done.returncode)"
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", wrapper, sys.executable, "-m", "privlab.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PRIVLAB_RESULTS": str(results)},
    )
    if done.returncode != 0:
        sys.exit(done.stderr)
    peak_kb = int(done.stderr.strip().splitlines()[-1])
    return time.perf_counter() - start, peak_kb // 1024, done


def large() -> None:
    cores = os.cpu_count()
    print(f"1,000-job sweep: {LARGE_EXP} {' '.join(LARGE_SWEEP)} on {cores} cores, {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp)
        small = [LARGE_SWEEP[0].replace("range(3,43)", "range(3,7)"), LARGE_SWEEP[1]]  # 4 x 25 = 100 jobs
        wall_small, peak_small, _ = peak_run(["run", LARGE_EXP, *small, "--multirun"], results / "small")
        wall, peak, out = peak_run(["run", LARGE_EXP, *LARGE_SWEEP, "--multirun"], results)
        jobs = out.stdout.count("rows in")
        sweep = Path(out.stdout.splitlines()[0].split("sweep directory: ")[1].split(" (")[0])
        print(f"  {jobs} jobs in {wall:.1f} s ({1000 * wall / jobs:.0f} ms per job on {cores} workers); {load()}")
        print(
            f"  largest resident memory of any process of the sweep: {peak} MB "
            f"(a 100-job sweep of the same experiment: {peak_small} MB in {wall_small:.1f} s)"
        )
        wall_report, peak_report, rep = peak_run(["sweep-report", str(sweep), "--metric", "lambda"], results)
        print(f"  sweep-report: {wall_report:.1f} s, {peak_report} MB ({rep.stdout.splitlines()[0][:60]}...)")
        wall_again, _, again = peak_run(["run", LARGE_EXP, *LARGE_SWEEP, "--multirun"], results)
        print(f"  resumed: {again.stdout.count('skipped')} jobs skipped in {wall_again:.1f} s; {load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=("overhead", "large", "both"), default="both")
    parser.add_argument("--pairs", type=int, default=12, help="interleaved library calls and jobs")
    parser.add_argument("--jobs", type=int, nargs=2, default=(4, 16), metavar=("N1", "N2"))
    args = parser.parse_args()
    if args.part in ("overhead", "both"):
        overhead(args.pairs, tuple(args.jobs))
    if args.part in ("large", "both"):
        large()


if __name__ == "__main__":
    main()
