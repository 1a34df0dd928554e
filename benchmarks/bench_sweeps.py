"""Sweep benchmark: a 20-job sweep, serial vs parallel, then interrupted and resumed.

Run on demand:  python benchmarks/bench_sweeps.py [--jobs 20]
Prints the speed-up of the parallel (joblib launcher) sweep over the serial one, and how
many jobs a resumed sweep skipped after an interruption, with the machine's core count.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = "lpb/breach_check"


def sweep_args(n_jobs: int) -> list[str]:
    return ["run", EXPERIMENT, f"seed=range(0,{n_jobs})", "n_responses=20000", "--multirun"]


def run(args, results: Path, launcher: str | None = None) -> tuple[float, str]:
    extra = [f"hydra/launcher={launcher}"] if launcher else []
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "privlab.cli", *args, *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PRIVLAB_RESULTS": str(results)},
    )
    if out.returncode != 0:
        sys.exit(out.stderr)
    return time.perf_counter() - start, out.stdout


def completed(results: Path) -> int:
    return len(list((results / "sweeps").rglob("result.csv")))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=20)
    args = parser.parse_args()
    cores = os.cpu_count()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t_serial, _ = run(sweep_args(args.jobs), tmp / "serial", launcher="basic")
        t_par, _ = run(sweep_args(args.jobs), tmp / "parallel")
        print(
            f"{args.jobs}-job sweep of {EXPERIMENT} on {cores} cores: serial {t_serial:.1f} s, "
            f"parallel {t_par:.1f} s, speed-up {t_serial / t_par:.2f}x"
        )
        same = all(
            (tmp / "serial").rglob(f"*/{i}/result.csv").__next__().read_bytes()
            == (tmp / "parallel").rglob(f"*/{i}/result.csv").__next__().read_bytes()
            for i in range(args.jobs)
        )
        print(f"serial and parallel result tables identical: {same}")

        # interrupt a sweep after about 40% of its jobs, then resume it
        resumed = tmp / "resumed"
        proc = subprocess.Popen(
            [sys.executable, "-m", "privlab.cli", *sweep_args(args.jobs)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, "PRIVLAB_RESULTS": str(resumed)},
        )
        while completed(resumed) < int(0.4 * args.jobs) and proc.poll() is None:
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait()
        done = completed(resumed)
        t_resume, out = run(sweep_args(args.jobs), resumed)
        skipped = out.count("skipped")
        print(
            f"interrupted after {done} of {args.jobs} jobs; the resumed sweep skipped {skipped}, ran "
            f"{out.count('rows in')} in {t_resume:.1f} s (a full parallel sweep: {t_par:.1f} s)"
        )
        report = subprocess.run(
            [
                sys.executable,
                "-m",
                "privlab.cli",
                "sweep-report",
                str(next((resumed / "sweeps").rglob("multirun.yaml")).parent),
                "--metric",
                "mc_breach_rate",
                "--where",
                "prior=two_point",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        print(report.stdout.strip() or report.stderr.strip())


if __name__ == "__main__":
    main()
