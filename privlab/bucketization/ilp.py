"""The exact optimum by integer linear programming (PuLP + CBC), the paper's "Optimal".

Multi-size model (every size S in [S_min, M]):
    minimise   sum_S (S - 1) b_S
    subject to sum_S x_iS = o_i                      (every record placed)
               x_iS <= floor(F_i S) b_S              (Lemma 4.13 inside size S)
               sum_i x_iS = S b_S                    (size S filled)
               b_S integer >= 0, x_iS >= 0 continuous.
For fixed b the x-polytope is a transportation polytope with integral vertices, so only the
b_S need to be integer; the returned setting is re-validated exactly.

Two-size model (the scalability figure's "Optimal"): the same with size-choice binaries
y_S, sum_S y_S <= 2 and b_S <= (n // S) y_S: one ILP instead of one per size pair.

A solve that stops at its time limit is reported as ``status="timed out"`` with no setting,
never as an optimum. A solve that fails (the solver raises: a crash, a missing or
unrunnable CBC binary; or it stops early without an answer: numerical trouble) is reported
as ``status="solver error"`` with the reason in ``message``, never raised: every failure of
the solver is caught in one place, `_run_solver`, so an experiment records the status in
its table and goes on.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privlab._validation import check_real

from .settings import BucketSetting, caps, check_max_size, prepare, smallest_size
from .validity import is_valid

#: the longest time limit accepted (seconds): a day
TIME_LIMIT_MAX = 86_400.0
#: the statuses an ILP solve ends with
STATUSES = ("optimal", "timed out", "infeasible", "solver error")


@dataclass(frozen=True)
class OptimalResult:
    """Outcome of an ILP solve: ``status`` one of `STATUSES`; ``message`` says why a
    "solver error" happened (empty otherwise)."""

    status: str
    setting: BucketSetting | None
    seconds: float
    time_limit: float
    n_sizes_allowed: int | None = None
    message: str = ""

    @property
    def loss(self) -> int | None:
        return None if self.setting is None else self.setting.loss


def _cbc(time_limit):
    """CBC through COIN_CMD pointed at the CBC binary bundled with PuLP (PuLP 3.3 deprecates
    PULP_CBC_CMD, the older spelling of the same thing); PULP_CBC_CMD where that is missing.
    The loss takes integer values only, so an absolute gap below 1 proves optimality: CBC
    otherwise spends minutes closing a fractional gap that integrality already closes."""
    import pulp
    from pulp.apis import coin_api

    opts = dict(msg=False, timeLimit=time_limit, threads=1, gapAbs=1 - 1e-6)
    path = getattr(coin_api, "pulp_cbc_path", None)
    if path and hasattr(pulp, "COIN_CMD") and pulp.COIN_CMD(path=path).available():
        return pulp.COIN_CMD(path=path, **opts)
    return pulp.PULP_CBC_CMD(**opts)


def _solver_exceptions() -> tuple[type[BaseException], ...]:
    """What a failing PuLP solve raises: PulpSolverError (CBC exited non-zero or wrote no
    solution: a crash, or a binary that cannot run), OSError (the binary is missing, not
    executable or of the wrong architecture), subprocess errors, and the ArithmeticError /
    ValueError of a solution file PuLP cannot read."""
    import pulp

    return (pulp.PulpSolverError, OSError, subprocess.SubprocessError, ArithmeticError, ValueError)


def _run_solver(prob, time_limit: float) -> str:
    """Solve ``prob`` with CBC; "" on success, else the one-line reason it failed.

    The one place where solver failures are caught (see the module docstring).
    """
    try:
        prob.solve(_cbc(time_limit))
    except _solver_exceptions() as exc:
        text = " ".join(str(exc).split()) or "no message"
        return f"{type(exc).__name__}: {text}"[:300]
    return ""


def _var(prob, name, **kw):
    """prob.add_variable where PuLP has it (3.3+: the LpVariable constructor is deprecated)."""
    import pulp

    if hasattr(prob, "add_variable"):
        return prob.add_variable(name, **kw)
    return pulp.LpVariable(name, **kw)


def _solve(o, F, max_size, time_limit, two_sizes: bool) -> OptimalResult:
    try:
        import pulp
    except ImportError as exc:  # PuLP itself missing: the same outcome as a missing solver
        return OptimalResult("solver error", None, 0.0, time_limit, message=f"ImportError: {exc}")

    t0 = time.perf_counter()
    present = o > 0
    o, F = o[present], F[present]
    n = int(o.sum())
    smin = smallest_size(F, o)
    sizes = list(range(smin, min(max_size, n) + 1))  # no bucket holds more than the n records
    c = caps(F, sizes)
    prob = pulp.LpProblem("optimal_bucketing", pulp.LpMinimize)
    b = {S: _var(prob, f"b_{S}", lowBound=0, upBound=n // S, cat="Integer") for S in sizes}
    x: dict[tuple[int, int], Any] = {}
    for j, S in enumerate(sizes):
        for i in map(int, np.flatnonzero(c[:, j] > 0)):
            x[i, S] = _var(prob, f"x_{i}_{S}", lowBound=0, upBound=int(o[i]))
    prob += pulp.lpSum((S - 1) * b[S] for S in sizes)
    by_value: dict[int, list[Any]] = {i: [] for i in range(o.size)}
    by_size: dict[int, list[Any]] = {S: [] for S in sizes}
    for (i, S), var in x.items():
        by_value[i].append(var)
        by_size[S].append(var)
        prob += var <= int(c[i, S - smin]) * b[S]
    for i in range(o.size):
        prob += pulp.lpSum(by_value[i]) == int(o[i])
    for S in sizes:
        prob += pulp.lpSum(by_size[S]) == S * b[S]
    if two_sizes:
        y = {S: _var(prob, f"y_{S}", cat="Binary") for S in sizes}
        for S in sizes:
            prob += b[S] <= (n // S) * y[S]
        prob += pulp.lpSum(y.values()) <= 2
    t_solve = time.perf_counter()
    failed = _run_solver(prob, time_limit)
    seconds = time.perf_counter() - t0
    if failed:
        return OptimalResult("solver error", None, seconds, time_limit, message=failed)
    # sol_status: 1 optimal, 2 feasible but stopped (time limit), 0 not solved, -1 infeasible
    if prob.sol_status == pulp.LpSolutionInfeasible or prob.status == pulp.LpStatusInfeasible:
        return OptimalResult("infeasible", None, seconds, time_limit)
    if prob.sol_status != pulp.LpSolutionOptimal or seconds > time_limit + 1.0:
        if time.perf_counter() - t_solve < time_limit:  # stopped before its limit: not a time-out
            why = f"CBC stopped after {seconds:.1f} s (limit {time_limit:g} s) with status {pulp.LpStatus[prob.status]}"
            return OptimalResult("solver error", None, seconds, time_limit, message=why)
        return OptimalResult("timed out", None, seconds, time_limit)
    try:
        counts = [int(round(b[S].value() or 0)) for S in sizes]
        setting = BucketSetting(sizes, counts)
    except (TypeError, ValueError) as exc:  # a solution PuLP could not read back (NaN, None)
        return OptimalResult("solver error", None, seconds, time_limit, message=f"unreadable solution: {exc}")
    if not is_valid(o, F, setting):
        why = f"the solver's setting {setting} is not valid (re-validated exactly)"
        return OptimalResult("solver error", None, seconds, time_limit, message=why)
    return OptimalResult("optimal", setting, seconds, time_limit)


def optimal(counts: ArrayLike, F: ArrayLike, max_size: int = 50, time_limit: float = 60.0) -> OptimalResult:
    """The exact optimal multi-size bucket setting (Definition 3.10) by ILP with CBC.

    Parameters
    ----------
    counts : array of int
        Per-value record counts o_i.
    F : array of float
        Thresholds F_i in (0, 1].
    max_size : int
        Largest bucket size M.
    time_limit : float
        CBC's time limit in seconds; hitting it gives ``status == "timed out"``.

    Returns
    -------
    OptimalResult with ``status`` and, when "optimal", the ``setting``; a failing solver
    gives ``status == "solver error"`` (never an exception) with the reason in ``message``.
    """
    max_size = check_max_size(max_size)
    time_limit = check_real("time_limit", time_limit, low=0, low_open=True, high=TIME_LIMIT_MAX)
    o, F = prepare(counts, F, max_size)
    return _solve(o, F, max_size, time_limit, two_sizes=False)


def optimal_two_size(counts: ArrayLike, F: ArrayLike, max_size: int = 50, time_limit: float = 60.0) -> OptimalResult:
    """The optimal setting with at most two sizes by one ILP with size-choice binaries
    (parameters and result as `optimal`)."""
    max_size = check_max_size(max_size)
    time_limit = check_real("time_limit", time_limit, low=0, low_open=True, high=TIME_LIMIT_MAX)
    o, F = prepare(counts, F, max_size)
    return _solve(o, F, max_size, time_limit, two_sizes=True)
