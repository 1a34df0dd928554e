"""``privlab new <paper>`` writes a working, installable paper (privlab.scaffold): the files a paper
needs in the shape of examples/warner, every one of them valid; end to end (slow), the new paper
passes check --update, check, the conformance harness with 2 workers and its own tests."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

from privlab import scaffold
from privlab.testing import run_cli

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


@pytest.mark.slow
def test_new_writes_an_installable_paper(tmp_path):
    done = run_cli("new", "demo", cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    root = tmp_path / "demo"
    assert "pip install -e ./demo" in done.stdout
    written = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    unit = "privlab_demo/experiments"
    assert written == sorted(
        [
            "README.md",
            "pyproject.toml",
            "privlab_demo/__init__.py",
            "privlab_demo/library.py",
            f"{unit}/__init__.py",
            f"{unit}/verdicts.py",
            f"{unit}/figures.py",
            f"{unit}/ledger.yaml",
            f"{unit}/conf/experiment/demo/exact.yaml",
            f"{unit}/conf/experiment/demo/monte_carlo.yaml",
            f"{unit}/conf/study/demo/n.yaml",
            "tests/test_demo.py",
        ]
    )
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["privlab.papers"] == {"demo": "privlab_demo.experiments"}
    data = project["tool"]["setuptools"]["package-data"]["privlab_demo.experiments"]
    assert {"conf/**/*.yaml", "ledger.yaml", "reference/**/*.csv"} <= set(data)
    for path in root.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")
    for path in root.rglob("*.yaml"):
        assert yaml.safe_load(path.read_text()), path
    assert 'conformance("demo", workers=2)' in (root / "tests" / "test_demo.py").read_text()


BAD_INPUT = [
    (["new", "Demo"], "paper must be a lower-case Python identifier (e.g. warner, my_paper); got 'Demo'"),
    (["new", "class"], "paper must be a lower-case Python identifier (e.g. warner, my_paper); got 'class'"),
    (["new", "demo", "--title", 'a "quoted" title'], "--title must not hold quotes, backslashes, braces"),
]


# each case starts privlab (~3 s): the first in the default tier, the others slow
@pytest.mark.parametrize(
    "argv,message", [pytest.param(*c, marks=[pytest.mark.slow] if i else []) for i, c in enumerate(BAD_INPUT)]
)
def test_new_refuses_bad_input_in_one_line(tmp_path, argv, message):
    done = run_cli(*argv, cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_new_never_writes_over_a_directory(tmp_path):
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "notes.txt").write_text("mine")
    with pytest.raises(Exception, match="demo already exists and is not an empty directory"):
        scaffold.write("demo", tmp_path / "demo")
    assert [p.name for p in (tmp_path / "demo").iterdir()] == ["notes.txt"]


@pytest.mark.slow  # five command-line processes, smoke runs with 1 and 2 workers, the paper's own tests (~1 min)
def test_a_new_paper_passes_check_conformance_and_its_tests(tmp_path):
    """As its author starts it (as a PRIVLAB_PATH project; .ci/run does the same after pip install -e)."""
    assert run_cli("new", "demo", cwd=tmp_path, timeout=120).returncode == 0
    root = tmp_path / "demo"
    env = {"PRIVLAB_PATH": str(root)}

    def privlab(*args: str):
        return run_cli(*args, env=env, cwd=tmp_path, results=tmp_path / "results", timeout=600)

    update = privlab("check", "--paper", "demo", "--update")
    assert update.returncode == 0, update.stdout + update.stderr
    assert (root / "privlab_demo" / "experiments" / "reference" / "quick" / "monte_carlo" / "result.csv").is_file()
    check = privlab("check", "--paper", "demo")
    assert check.returncode == 0 and check.stdout.count(" OK ") == 2, check.stdout + check.stderr
    conformance = privlab("check", "--conformance", "--paper", "demo")
    assert conformance.returncode == 0, conformance.stdout + conformance.stderr
    assert conformance.stdout.count("conforms (1 and 2 workers)") == 2
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(root / "tests")],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, **env},
        timeout=600,
    )
    assert tests.returncode == 0 and "3 passed" in tests.stdout, tests.stdout + tests.stderr
