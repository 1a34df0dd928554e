"""The benchmark scripts still run against the library (they are run on demand, never as tests,
so an API change would otherwise break them unseen): each at its smallest setting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES = {
    # script, arguments, a line its report must hold
    "isolation_steps": (
        "bench_isolation.py",
        ["--profile", "quick", "--jobs", "1", "--only", "steps"],
        "perturbed_one release",
    ),
    "profiles_one_experiment": ("bench_profiles.py", ["--only", "lpb/table1"], "| **all** | **1** |"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_benchmark_runs_at_its_smallest_setting(case, tmp_path):
    script, args, expect = CASES[case]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert expect in done.stdout
    assert "Traceback" not in done.stderr and "UserWarning" not in done.stderr
