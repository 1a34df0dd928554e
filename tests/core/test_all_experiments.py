"""Conformance: privlab's own papers pass the harness every paper gets, `privlab.testing.conformance`.

Each experiment composes at both profiles, declares its parameter contract, has a config at its id's
path, resolves every ledger id it names and has a committed reference that, read back, decides its
claims and draws figures the audit finds faithful; with its smoke overrides it runs to a table whose
key columns are unique, whose figures draw, whose claims decide, and which is byte-identical with 1
and 2 workers. No experiment module writes a verdict by hand.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

from privlab import registry, testing

# privlab's own papers (an installed paper, e.g. examples/warner, runs the harness in its own tests)
EXPERIMENTS = [e for e in registry.all_experiments() if registry.paper_of(e).distribution == "privlab"]


# the default tier checks one experiment of each paper (each with a figure, a claim and a
# 1- vs 2-worker run); every other experiment, and the paper-profile references of all, are in the
# slow tier, which CI runs (`privlab check` also reruns all 63 at the quick profile there)
DEFAULT_TIER = {
    "bucketization/fig3_l_vs_theta",
    "cae/example",
    "isolation/bad_sanitizer",
    "lpb/fig1_lambda",
    "multilevel/example",
}


def _case(exp: registry.Experiment):
    # a twin's quick run is with 1 worker only (its original's code on other data)
    quick = [pytest.mark.slow] if exp.id not in DEFAULT_TIER else []
    full = pytest.param(exp.id, 2, ("quick", "paper"), id=f"{exp.id}-full", marks=pytest.mark.slow)
    return [pytest.param(exp.id, 1 if exp.twin_of else 2, ("quick",), id=exp.id, marks=quick), full]


def test_the_default_tier_names_experiments_that_exist():
    assert DEFAULT_TIER <= {e.id for e in EXPERIMENTS}
    assert {e.split("/")[0] for e in DEFAULT_TIER} == {e.paper for e in EXPERIMENTS}


@pytest.mark.parametrize("exp_id,workers,profiles", [case for exp in EXPERIMENTS for case in _case(exp)])
def test_conformance(exp_id, workers, profiles, tmp_path):
    assert testing.check_experiment(exp_id, workers=workers, results=tmp_path, profiles=profiles) == []


HELPERS = {
    "printed_value",
    "equal",
    "within_se",
    "gof",
    "at_most",
    "at_least",
    "between",
    "monotone",
    "statement",
    "info",
    "coincide",
    "differ",
    "inconclusive",
    "trend",
    "fits",
    "below_everywhere",
    "all_of",
}


def _literal_verdicts(path: Path) -> list[str]:
    """Calls of a claims helper whose comparison is a literal True/False, or a Claim built by hand."""
    bad = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name == "Claim":
            bad.append(f"{path.name}:{node.lineno} builds a Claim by hand")
        if name == "statement":
            holds = (
                node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "holds"), None)
            )
            if isinstance(holds, ast.Constant):
                bad.append(f"{path.name}:{node.lineno} statement with a literal verdict")
        if name in HELPERS:
            for kw in node.keywords:
                if kw.arg in ("verdict", "agree") and isinstance(kw.value, ast.Constant):
                    bad.append(f"{path.name}:{node.lineno} literal {kw.arg}")
    return bad


@pytest.mark.parametrize("paper", sorted({e.paper for e in EXPERIMENTS}))
def test_no_literal_verdicts(paper):
    module = importlib.import_module(registry.papers()[paper].module)
    where = Path(module.__file__ or "")
    files = sorted(where.parent.rglob("*.py")) if where.name == "__init__.py" else [where]
    # the comparisons behind the claims live in the paper's library, privlab/<paper>/verdicts.py
    spec = importlib.util.find_spec(f"privlab.{paper}")
    if spec is not None and spec.submodule_search_locations:
        files += sorted(Path(spec.submodule_search_locations[0]).glob("*.py"))
    assert files and [bad for f in files for bad in _literal_verdicts(f)] == []


def test_literal_verdict_finder_finds_them(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("cl.statement('x', True, reproduced='y', rule='r')\nClaim('a', 'b', 'c', 'agree')\n")
    assert len(_literal_verdicts(bad)) == 2
