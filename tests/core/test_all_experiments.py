"""Conformance: one generic test over every registered experiment.

Each experiment composes at both profiles, declares its parameter contract, has a config at
its id's path and a committed reference; with its smoke overrides it runs to a table whose
key columns are unique, whose figures render, whose claims all carry a valid verdict, and
which is byte-identical with 1 and 2 workers. No experiment module writes a verdict by hand.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

from privlab import check, claims, figures, registry, runner

EXPERIMENTS = registry.all_experiments()
IDS = [e.id for e in EXPERIMENTS]


@pytest.mark.parametrize("exp_id", IDS)
def test_composes_and_declares(exp_id):
    exp = registry.get(exp_id)
    conf = registry.paper_of(exp).conf_dir
    assert conf is not None and (conf / "experiment" / exp.paper / f"{exp.name}.yaml").is_file()
    assert exp.params, f"{exp_id} declares no parameter contract"
    cfgs = {profile: runner.compose(exp_id, profile=profile) for profile in runner.PROFILES}
    for profile, cfg in cfgs.items():
        assert cfg.id == exp_id and cfg.profile == profile
    assert check.reference_path(exp).is_file(), "no committed reference"
    # the docs pages, check and the report read claims off a table read back from CSV (which loses
    # dtypes: "0.50" becomes 0.5, "" becomes NaN): every verdict must still decide from it
    reference = check.read_reference(exp, check.reference_path(exp))
    verdicts = exp.check_claims(reference, cfgs["quick"])
    assert all(c.verdict in ("agree", "disagree", "info") for c in verdicts)


def _run(exp, jobs: int, tmp: Path):
    cfg = runner.compose(exp.id, [*exp.smoke, f"workers={jobs}", "cache=false"])
    ctx = runner.make_context(cfg, tmp / f"jobs{jobs}", log=lambda m: None)
    return cfg, runner.run_table(exp, cfg, ctx)


# a twin runs its original's code on other data: its 1- vs 2-worker run is in the slow tier
SMOKE_IDS = [pytest.param(e.id, marks=pytest.mark.slow) if e.twin_of else e.id for e in EXPERIMENTS]


@pytest.mark.parametrize("exp_id", SMOKE_IDS)
def test_smoke_run(exp_id, tmp_path):
    import matplotlib.pyplot as plt

    exp = registry.get(exp_id)
    cfg, table = _run(exp, 1, tmp_path)
    assert len(table) > 0
    if exp.keys:
        assert not table.duplicated(list(exp.keys)).any()
    for name, draw in exp.figures.items():
        fig = figures.draw(draw, table, cfg)  # as the runner draws it, with the run's config
        assert fig.axes, f"figure {name} has no axes"
        plt.close(fig)
    found = exp.check_claims(table, cfg)
    assert all(c.verdict in claims.VERDICTS for c in found)
    assert all(c.note for c in found if c.verdict == "info")
    _, parallel = _run(exp, 2, tmp_path)
    timed = [c for c in table.columns if exp.tolerance(c).ignore]  # wall-clock columns: never comparable
    one, two = (runner.table_to_csv(t.drop(columns=timed)) for t in (table, parallel))
    assert one == two, "tables differ with 1 and 2 workers"


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


@pytest.mark.parametrize("paper", sorted(registry.papers()))
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
