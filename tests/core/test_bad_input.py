"""The bad-input suite, generated from every experiment's parameter contract.

For every declared parameter of every registered experiment the spec yields bad values (a
wrong type, each bound just outside, huge, NaN/inf, an empty list, a bad list element, an
unknown choice: `Spec.invalid`, from the same `privlab.constraints` declaration that checks
them) and good ones (each bound just inside: `Spec.valid`); every relation between parameters
(`privlab.relations`) yields settings that break it, each value allowed on its own. A bad value must be refused at
compose time with one line naming the parameter; a good one must compose. Every public entry point of the
library that declares its arguments (`privlab.validation.validate_params`) is called with each value its
constraints refuse. A sample also goes
through the command line: one line ``privlab: error: ...``, exit 2, nothing written.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import math
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from privlab import PrivlabError, multirun, params, registry, runner
from privlab.constraints import Constraint
from privlab.relations import Cost
from privlab.validation import declared

GLOBALS = {k: v for k, v in runner.global_schema().items() if k in ("seed", "cache", "profile")}


def _fmt(value) -> str:
    """``value`` in Hydra's override grammar."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            repr(value) if math.isfinite(value) else ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf"))
        )
    if isinstance(value, list):
        return "[" + ",".join(_fmt(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_fmt(v)}" for k, v in value.items()) + "}"
    if value is None:
        return "null"
    return str(value)


def _cases(schema: Mapping, prefix: str = "") -> Iterator[tuple[str, object]]:
    for key, spec in schema.items():
        if isinstance(spec, Mapping):
            yield from _cases(spec, f"{prefix}{key}.")
        elif isinstance(spec, (params.Free, params.MapOf, params.Str)):
            continue
        else:
            yield f"{prefix}{key}", spec


def _signature(spec) -> str:
    """The declaration's content (type and fields, nested specs and constraints included), not its identity."""
    if isinstance(spec, (params.Spec, Constraint)):
        fields = ", ".join(f"{k}={_signature(v)}" for k, v in sorted(vars(spec).items()))
        return f"{type(spec).__name__}({fields})"
    return repr(spec)


def _table(slow: bool):
    """Every case lands in exactly one tier. The default suite tries the first bad value of each
    distinct parameter declaration; the rest is slow."""
    rows, seen = [], set()
    for exp in registry.all_experiments():
        for name, spec in [*_cases(exp.params), *_cases(GLOBALS)]:
            # one check per contract: twins share their original's, and a parameter declared alike
            # in several experiments (globals, shared blocks) goes through the same code
            key = (name, _signature(spec))
            first = key not in seen
            seen.add(key)
            shared = exp.twin_of is not None or not first
            for i, (what, value) in enumerate(spec.invalid()):
                if slow == (i > 0 or shared):
                    rows.append(pytest.param(exp.id, name, value, id=f"{exp.id}:{name}={what}"))
    return rows


@functools.cache
def _composer(exp_id: str) -> multirun.Composer:
    """Composes a job as `runner.compose` does, one Hydra composition per experiment (the path every
    job of a sweep takes; tests/core/test_sweep_engine.py checks the two agree)."""
    return multirun.Composer(exp_id)


def _compose_refuses(exp_id: str, name: str, value) -> None:
    override = f"{name}={_fmt(value)}"
    with pytest.raises(PrivlabError) as err:
        _composer(exp_id).container([override])
    text = str(err.value)
    assert "\n" not in text and name.split(".")[-1] in text, f"{override}: {text}"


@pytest.mark.parametrize("exp_id, name, value", _table(slow=False))
def test_bad_value_refused(exp_id, name, value):
    _compose_refuses(exp_id, name, value)


@pytest.mark.slow
@pytest.mark.parametrize("exp_id, name, value", _table(slow=True))
def test_every_bad_value_refused(exp_id, name, value):
    _compose_refuses(exp_id, name, value)


@pytest.mark.slow
@pytest.mark.parametrize("exp_id", [e.id for e in registry.all_experiments()])
def test_values_just_inside_compose(exp_id):
    exp = registry.get(exp_id)
    for name, spec in _cases(exp.params):
        for what, value in spec.valid():
            try:
                runner.compose(exp_id, [f"{name}={_fmt(value)}"])
            except PrivlabError as exc:  # a cross-parameter constraint may still refuse it: then say which
                assert name.split(".")[-1] not in str(exc) or "must" in str(exc), f"{name}={what}: {exc}"


def _relation_table(slow: bool):
    """One case per relation of every experiment: twins share their original's (slow tier)."""
    return [
        pytest.param(exp.id, i, id=f"{exp.id}:{relation.describe()[:60]}")
        for exp in registry.all_experiments()
        for i, relation in enumerate(exp.relations)
        if slow == (exp.twin_of is not None)
    ]


def _violations_refused(exp_id: str, index: int) -> int:
    """Every setting the relation derives as breaking it is refused at compose time in one line
    naming one of its parameters; returns how many there were."""
    exp = registry.get(exp_id)
    relation = exp.relations[index]
    config = _composer(exp_id).container([])
    cases = list(relation.violations(config, exp.params))
    for what, change in cases:
        overrides = [f"{name}={_fmt(value)}" for name, value in change.items()]
        with pytest.raises(PrivlabError) as err:
            _composer(exp_id).container(overrides)
        text = str(err.value)
        named = [n.split(".")[-1].split("[")[0] for n in relation.names()]
        assert "\n" not in text and any(n in text for n in named), f"{what} {overrides}: {text}"
    return len(cases)


@pytest.mark.parametrize("exp_id, index", _relation_table(slow=False))
def test_relation_violations_refused(exp_id, index):
    relation = registry.get(exp_id).relations[index]
    n = _violations_refused(exp_id, index)
    # a resource bound may be out of reach of every single value on a large machine; the rest must be broken
    assert n > 0 or isinstance(relation, Cost), f"{relation.describe()} derives no violation"


@pytest.mark.slow
@pytest.mark.parametrize("exp_id, index", _relation_table(slow=True))
def test_twin_relation_violations_refused(exp_id, index):
    _violations_refused(exp_id, index)


def test_every_int_has_a_resource_limit():
    loose = [
        f"{e.id}:{name}"
        for e in registry.all_experiments()
        for name, spec in _cases(e.params)
        if isinstance(spec, params.Int) and spec.constraint.high is None
    ]
    assert loose == [], "declare the largest value each integer may take (high=..., limit=...)"


def test_suite_covers_every_parameter():
    n_params = sum(1 for e in registry.all_experiments() for _ in _cases(e.params))
    n_cases = len(_table(slow=False)) + len(_table(slow=True))
    assert n_params > 0 and n_cases >= 3 * n_params


ROOT = Path(__file__).resolve().parents[2]
CLI_CASES = [
    ["run", "lpb/fig1_lambda", "rho1_points=1e18"],
    ["run", "lpb/breach_check", "target_index=999999", "n_responses=10"],
    ["run", "lpb/fig1_lambda", "seed=abc"],
    ["run", "lpb/fig1_lambda", "+foo=1"],
    ["run", "lpb/fig1_lambda", "=0.3"],
    ["run", "lpb/fig1_lambda", "results_dir=/proc/x"],
    ["run", "lpb/fig1_lambda", "rho2=0.3,1.5", "--multirun"],
    ["reproduce", "--workers", "0", "--paper", "lpb"],
    ["reproduce", "--bogus"],
    ["check", "--reference", "/nonexistent", "lpb/table1"],
    ["sweep-report", "/nonexistent"],
]


# each case starts privlab (~3 s): the first in the default tier, the others slow
@pytest.mark.parametrize(
    "args",
    [pytest.param(a, id=" ".join(a), marks=[pytest.mark.slow] if i else []) for i, a in enumerate(CLI_CASES)],
)
def test_cli_bad_input_one_line_nothing_written(tmp_path, args):
    env = {**os.environ, "PRIVLAB_RESULTS": str(tmp_path / "results")}
    res = subprocess.run(
        [sys.executable, "-m", "privlab.cli", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300
    )
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2 and len(lines) == 1 and lines[0].startswith("privlab: error: "), res.stderr
    written = (
        [p for p in (tmp_path / "results").rglob("*") if ".cache" not in p.parts]
        if (tmp_path / "results").exists()
        else []
    )
    assert written == [], written


# --- the library's declared entry points (privlab.validation.validate_params) ---------------------
def _declared_table():
    for paper in registry.papers():  # every paper's library, so that its declarations are made
        if importlib.util.find_spec(f"privlab.{paper}"):
            importlib.import_module(f"privlab.{paper}")
    return [
        pytest.param(qualname, name, value, id=f"{qualname}:{name}={what}")
        for qualname, fn in sorted(declared().items())
        if not qualname.startswith("tests.")
        for name, constraint in fn.constraints.items()
        for what, value in constraint.invalid()
    ]


def test_entry_points_declare_their_constraints():
    assert len({q for q, *_ in (p.values for p in _declared_table())}) >= 5


@pytest.mark.parametrize("qualname, name, value", _declared_table())
def test_declared_entry_point_refuses_bad_argument(qualname, name, value):
    fn = declared()[qualname]
    with pytest.raises(PrivlabError) as err:
        fn(**{name: value})  # refused before the body runs, whatever else the call lacks
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{name} must"), text
