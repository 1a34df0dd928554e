"""The bad-input suite, generated from every experiment's parameter contract.

For every declared parameter of every registered experiment the spec yields bad values (a
wrong type, each bound just outside, huge, NaN/inf, an empty list, a bad list element, an
unknown choice) and good ones (each bound just inside). A bad value must be refused at
compose time with one line naming the parameter; a good one must compose. A sample also goes
through the command line: one line ``privlab: error: ...``, exit 2, nothing written.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from privlab import PrivlabError, params, registry, runner

GLOBALS = {"seed": params.Int(0, 2**63 - 1), "cache": params.Bool(), "profile": params.Choice(*runner.PROFILES)}


def _fmt(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            repr(value) if math.isfinite(value) else ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf"))
        )
    if isinstance(value, list):
        return "[" + ",".join(_fmt(v) for v in value) + "]"
    return str(value)


def _bad(spec) -> Iterator[tuple[str, object]]:
    """(what, value) pairs the spec must refuse."""
    if isinstance(spec, params.Int):
        yield "a word", "abc"
        yield "a fraction", 2.5
        yield "NaN", math.nan
        if spec.low is not None:
            yield "just below", spec.low - 1
        if spec.high is not None:
            yield "just above", spec.high + 1
            yield "huge", 10**30
    elif isinstance(spec, params.Real):
        yield "a word", "abc"
        yield "NaN", math.nan
        yield "inf", math.inf
        if spec.low is not None:
            yield "at or below the bound", spec.low if spec.low_open else spec.low - 1
        if spec.high is not None:
            yield "at or above the bound", spec.high if spec.high_open else spec.high + 1
    elif isinstance(spec, params.Choice):
        yield "an unknown choice", "no_such_choice"
    elif isinstance(spec, params.Bool):
        yield "not a bool", "maybe"
    elif isinstance(spec, params.List):
        yield "a word", "abc"
        if spec.min_len >= 1:
            yield "an empty list", []
        inner = next((v for _, v in _bad(spec.of)), None) if isinstance(spec.of, params.Spec) else None
        if inner is not None and not isinstance(inner, list):
            yield "a bad element", [inner]
    elif isinstance(spec, params.Optional):
        yield from ((w, v) for w, v in _bad(spec.of) if v is not None)


def _good(spec) -> Iterator[tuple[str, object]]:
    """(what, value) pairs just inside the spec's bounds."""
    if isinstance(spec, params.Int):
        for bound in (spec.low, spec.high):
            if bound is not None and not (spec.nonzero and bound == 0) and abs(bound) < 10**7:
                yield f"the bound {bound}", bound
    elif isinstance(spec, params.Real):
        if spec.low is not None and not spec.low_open:
            yield f"the bound {spec.low:g}", float(spec.low)


def _cases(schema: Mapping, prefix: str = "") -> Iterator[tuple[str, object]]:
    for key, spec in schema.items():
        if isinstance(spec, Mapping):
            yield from _cases(spec, f"{prefix}{key}.")
        elif isinstance(spec, (params.Free, params.MapOf, params.Str)):
            continue
        else:
            yield f"{prefix}{key}", spec


def _signature(spec) -> str:
    """The declaration's content (type and fields, nested specs included), not its identity."""
    if isinstance(spec, params.Spec):
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
            for i, (what, value) in enumerate(_bad(spec)):
                if slow == (i > 0 or shared):
                    rows.append(pytest.param(exp.id, name, value, id=f"{exp.id}:{name}={what}"))
    return rows


def _compose_refuses(exp_id: str, name: str, value) -> None:
    override = f"{name}={_fmt(value)}"
    with pytest.raises(PrivlabError) as err:
        runner.compose(exp_id, [override])
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
        for what, value in _good(spec):
            try:
                runner.compose(exp_id, [f"{name}={_fmt(value)}"])
            except PrivlabError as exc:  # a cross-parameter constraint may still refuse it: then say which
                assert name.split(".")[-1] not in str(exc) or "must" in str(exc), f"{name}={what}: {exc}"


def test_every_int_has_a_resource_limit():
    loose = [
        f"{e.id}:{name}"
        for e in registry.all_experiments()
        for name, spec in _cases(e.params)
        if isinstance(spec, params.Int) and spec.high is None
    ]
    assert loose == [], "declare the largest value each integer may take (high=..., limit=...)"


def test_suite_covers_every_parameter():
    n_params = sum(1 for e in registry.all_experiments() for _ in _cases(e.params))
    n_cases = len(_table(slow=False)) + len(_table(slow=True))
    assert n_params > 0 and n_cases >= 3 * n_params


ROOT = Path(__file__).resolve().parents[1]
CLI_CASES = [
    ["run", "lpb/fig1_lambda", "rho1_points=1e18"],
    ["run", "lpb/breach_check", "target_index=999999", "n_responses=10"],
    ["run", "lpb/fig1_lambda", "seed=abc"],
    ["run", "lpb/fig1_lambda", "+foo=1"],
    ["run", "lpb/fig1_lambda", "=0.3"],
    ["run", "lpb/fig1_lambda", "results_dir=/proc/x"],
    ["run", "lpb/fig1_lambda", "rho2=0.3,1.5", "--multirun"],
    ["reproduce", "--jobs", "0", "--paper", "lpb"],
    ["reproduce", "--bogus"],
    ["check", "--reference", "/nonexistent", "lpb/table1"],
    ["sweep-report", "/nonexistent"],
]


@pytest.mark.parametrize("args", CLI_CASES, ids=[" ".join(a) for a in CLI_CASES])
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
