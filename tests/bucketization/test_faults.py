"""Injected solver faults (issue 12): an ILP whose solver crashes, is missing or stops without
an answer is recorded as status "solver error" (like "timed out"), never raised; the
experiment goes on and the claims that need the missing values become info (no crash, no
false disagree). Both solvers (HiGHS, CBC) go through the same fault handling."""

from __future__ import annotations

import numpy as np
import pulp
import pytest

from privlab import registry
from privlab.bucketization import OptimalBucketing, fprivacy, ilp, optimal, optimal_two_size
from privlab.runner import compose, make_context, run_table


class _Raises:
    """A solver whose solve raises ``exc`` (as PuLP does when CBC crashes or cannot run)."""

    def __init__(self, exc):
        self.exc = exc

    def actualSolve(self, lp, **kwargs):  # noqa: N802 (PuLP's name)
        raise self.exc


class _GivesUp:
    """A solver that returns at once without a solution (numerical trouble)."""

    def actualSolve(self, lp, **kwargs):  # noqa: N802
        lp.assignStatus(pulp.LpStatusUndefined, pulp.LpSolutionNoSolutionFound)
        return pulp.LpStatusUndefined


FAULTS = {
    "crash": lambda: _Raises(pulp.PulpSolverError("Pulp: Error while trying to execute /x/cbc")),
    "missing binary": lambda: _Raises(FileNotFoundError(2, "No such file or directory", "/x/cbc")),
    "numerical trouble": _GivesUp,
}


def _break(monkeypatch, fault):
    """Every solver (HiGHS and CBC) replaced by ``fault``."""
    monkeypatch.setattr(ilp, "_solver", lambda name, time_limit, start_vars=(): FAULTS[fault]())


@pytest.fixture(params=sorted(FAULTS))
def broken_solver(request, monkeypatch):
    _break(monkeypatch, request.param)
    return request.param


def _instance():
    o = np.array([30, 20, 10, 5, 5])
    return o, fprivacy(o / o.sum(), 4)


@pytest.mark.parametrize("solver", ilp.SOLVERS)
def test_a_failing_solver_is_a_status_not_an_exception(broken_solver, solver):
    o, F = _instance()
    for solve in (optimal, optimal_two_size):
        res = solve(o, F, 20, time_limit=30, solver=solver)
        assert res.status == "solver error" and res.setting is None and res.loss is None
        assert res.message and "\n" not in res.message
    plan = OptimalBucketing(time_limit=30, solver=solver).plan(o, F, 20)
    assert plan.status == "solver error" and plan.loss is None and plan.text == res.message


def test_missing_highs_is_a_solver_error_naming_the_package(monkeypatch):
    monkeypatch.setattr(pulp.HiGHS, "available", lambda self: False)  # as when highspy cannot be imported
    o, F = _instance()
    for solve in (optimal, optimal_two_size):
        res = solve(o, F, 20, time_limit=30)
        assert res.status == "solver error" and res.setting is None
        assert "highspy" in res.message and "\n" not in res.message
    assert optimal(o, F, 20, time_limit=30, solver="cbc").status == "optimal"  # CBC still selectable


@pytest.mark.parametrize("solver", ilp.SOLVERS)
def test_the_real_solvers_still_solve(solver):
    o, F = _instance()
    assert optimal(o, F, 20, time_limit=30, solver=solver).status == "optimal"


def _run(exp_id, overrides, tmp_path):
    exp = registry.get(exp_id)
    cfg = compose(exp_id, [*overrides, "cache=false"])
    df = run_table(exp, cfg, make_context(cfg, results_dir=tmp_path, log=lambda m: None))
    return df, {c.claim.rsplit(" (", 1)[0]: c for c in exp.check_claims(df, cfg)}


@pytest.mark.slow
def test_fig4_and_fig5_record_the_status_and_leave_the_claims_undecided(monkeypatch, tmp_path):
    _break(monkeypatch, "crash")
    df, claims = _run("bucketization/fig4_mse", registry.get("bucketization/fig4_mse").smoke, tmp_path)
    ilp_rows = df[df.method == "Optimal"]
    assert (ilp_rows.status == "solver error").all() and ilp_rows.loss.isna().all()
    assert (df[df.method != "Optimal"].status != "solver error").all()  # the others ran
    for name in ("MultiSize only slightly above Optimal (MSE)", "Optimal (ILP) solves m = 50"):
        assert claims[name].verdict == "info" and "solver error" in claims[name].note
    assert claims["TwoSize only slightly above MultiSize (MSE)"].verdict in ("agree", "disagree")
    df, claims = _run("bucketization/fig5_re", registry.get("bucketization/fig5_re").smoke, tmp_path)
    assert (df[df.method == "Optimal"].status == "solver error").all()
    close = [c for name, c in claims.items() if name.startswith("RE of TwoSize, MultiSize, Optimal close")]
    assert close and all(c.verdict == "info" for c in close)


@pytest.mark.slow
def test_fig7_ilp_claims_are_undecided_not_false(monkeypatch, tmp_path):
    _break(monkeypatch, "missing binary")
    mechs = "mechanism=[two_size_none,two_size_loss,two_size_full,optimal_two_size]"
    df, claims = _run("bucketization/fig7a_runtime_n", ["ns=[3000,6000]", mechs], tmp_path)
    assert (df[df.method == "Optimal (two-size ILP)"].status == "solver error").all()
    assert claims["two-size ILP faster than No-pruning at m = 50"].verdict == "info"
    df, claims = _run("bucketization/fig7b_runtime_scaleup", ["dataset.n=5000", "gammas=[2,4]", mechs], tmp_path)
    assert claims["Optimal grows quickly with gamma"].verdict == "info"  # a failure is not a time-out
    assert "solver error" in claims["where the ILP stops being feasible"].reproduced
