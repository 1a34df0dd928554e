"""The exact optimum by integer linear programming (PuLP + HiGHS, or CBC), the paper's "Optimal".

Multi-size model (every size S in [S_min, M] that a bucket can fill, see below):
    minimise   sum_S (S - 1) b_S
    subject to sum_S x_kS = m_k o_k                  (every record placed)
               x_kS <= m_k floor(F_k S) b_S           (Lemma 4.13 inside size S)
               sum_k x_kS = S b_S                     (size S filled)
               0 <= b_S <= b*_S integer, x_kS >= 0 continuous.
For fixed b the x-polytope of the values one by one is a transportation polytope with
integral vertices, so only the b_S need to be integer; the returned setting is re-validated
exactly (`is_valid`). Two strengthenings keep the model small and tight without changing
its optimum:

- values with the same count o_i and the same caps floor(F_i S) at every size are one class
  k of m_k values (x_kS their records together): a feasible class split is the values'
  split divided by m_k, so the classes' model has the same feasible b. Interchangeable
  values are symmetric solutions the solver would otherwise branch over;
- b_S <= b*_S, the largest b with sum_i min(o_i, b floor(F_i S)) >= b S (`fill_limits`):
  beyond it no b buckets of size S can be filled within the per-value caps. Sizes with
  b*_S = 0 leave the model.

Two-size model (the scalability figure's "Optimal"): the same with size-choice binaries
y_S, sum_S y_S <= 2 and b_S <= b*_S y_S: one ILP instead of one per size pair.

Solvers (``solver``): "highs" (HiGHS in this process through PuLP's HiGHS interface, the
``highspy`` package; the default) or "cbc" (the CBC binary bundled with PuLP). Both stop
when the gap to the bound is below 1 (the loss is an integer). The multi-size model's LP
relaxation is within a few buckets of the optimum, so what takes a solver long is finding
an optimal setting, not the bound; HiGHS is therefore started from the best setting in a
neighbourhood of the relaxation's b (`_neighbourhood_start`: each b_S within r of the
relaxed value, r = 0 then 1, node-limited so that it does not depend on the machine's
speed), and then proves (or improves) it on the whole model. The two-size ILP is solved as
it stands: Figure 7 times it against TwoSizeBucketing.

A solve that stops at its time limit is reported as ``status="timed out"`` with no setting,
never as an optimum. A solve that fails (the solver raises: a crash, a missing or
unrunnable solver; or it stops early without an answer: numerical trouble) is reported as
``status="solver error"`` with the reason in ``message``, never raised: every failure of
the solver is caught in one place, `_run_solver`, so an experiment records the status in
its table and goes on.
"""

from __future__ import annotations

import functools
import math
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privlab._validation import check_choice, check_real

from .._highs import quiet_highs_class
from .settings import BucketSetting, caps, check_max_size, prepare, smallest_size
from .two_size import fill_limits
from .validity import is_valid

#: the longest time limit accepted (seconds): a day
TIME_LIMIT_MAX = 86_400.0
#: the statuses an ILP solve ends with
STATUSES = ("optimal", "timed out", "infeasible", "solver error")
#: the MIP solvers (the first is the default)
SOLVERS = ("highs", "cbc")
#: the integer loss: a gap below 1 proves optimality (solvers otherwise spend minutes
#: closing a fractional gap that integrality already closes)
_GAP_ABS = 1 - 1e-6
#: the neighbourhood search: radii tried in turn, and the branch-and-bound nodes each may use
_RADII = (0, 1)
_NEIGHBOURHOOD_NODES = 500


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


def _cbc(time_limit: float):
    """CBC through COIN_CMD pointed at the CBC binary bundled with PuLP (PuLP 3.3 deprecates
    PULP_CBC_CMD, the older spelling of the same thing); PULP_CBC_CMD where that is missing."""
    # PuLP and HiGHS: the ILP solvers load only when an ILP is solved
    import pulp
    from pulp.apis import coin_api

    opts = dict(msg=False, timeLimit=time_limit, threads=1, gapAbs=_GAP_ABS)
    path = getattr(coin_api, "pulp_cbc_path", None)
    if path and hasattr(pulp, "COIN_CMD") and pulp.COIN_CMD(path=path).available():
        return pulp.COIN_CMD(path=path, **opts)
    return pulp.PULP_CBC_CMD(**opts)


def _highs(time_limit: float, start_vars: Sequence[Any] = ()):
    """HiGHS through PuLP's HiGHS interface (in this process, one thread, no relative gap:
    HiGHS's default 1e-4 would call a setting 0.01 % above the bound optimal). With
    ``start_vars`` (the integer variables b_S) it first searches the relaxation's
    neighbourhood for a starting setting (`_neighbourhood_start`)."""
    # PuLP and HiGHS: the ILP solvers load only when an ILP is solved
    import pulp

    if not hasattr(pulp, "HiGHS") or not pulp.HiGHS().available():
        raise pulp.PulpSolverError(
            f"HiGHS is not available: PuLP {pulp.__version__} cannot import highspy (pip install highspy)"
        )
    return _highs_class()(list(start_vars), msg=False, timeLimit=time_limit, threads=1, gapAbs=_GAP_ABS, gapRel=0.0)


@functools.cache
def _highs_class() -> type:
    """PuLP's HiGHS, silent (`privlab._highs.quiet_highs_class`) and solving from
    `_neighbourhood_start` when given start variables. A class made on first use: PuLP and
    highspy are imported only when an ILP is solved."""
    # PuLP: the ILP solvers load only when an ILP is solved
    import pulp

    QuietHighs = quiet_highs_class()

    class PrivlabHiGHS(pulp.HiGHS):
        def __init__(self, start_vars: list[Any], **opts: Any):
            super().__init__(**opts)
            self.start_vars = start_vars

        def createAndConfigureSolver(self, lp):  # noqa: N802 (PuLP's name)
            lp.solverModel = h = QuietHighs()
            h.setOptionValue("output_flag", bool(self.msg))
            for option, value in (
                ("mip_rel_gap", self.gapRel),
                ("mip_abs_gap", self.gapAbs),
                ("threads", self.threads),
                ("time_limit", None if self.timeLimit is None else float(self.timeLimit)),
                *self.optionsDict.items(),
            ):
                if value is not None:
                    h.setOptionValue(option, value)

        def callSolver(self, lp):  # noqa: N802
            h = lp.solverModel
            deadline = time.perf_counter() + float(self.timeLimit)
            if self.start_vars:
                start = _neighbourhood_start(h, [v.index for v in self.start_vars], deadline)
                if start is not None:
                    h.setSolution(start)
            h.setOptionValue("time_limit", max(deadline - time.perf_counter(), 1e-3))
            h.run()

    return PrivlabHiGHS


def _neighbourhood_start(h: Any, cols: list[int], deadline: float) -> Any:
    """The best solution of the MIP in ``h`` with every integer column of ``cols`` within r
    of its value in the LP relaxation (r in `_RADII`, each search `_NEIGHBOURHOOD_NODES`
    nodes at most), or None. Stops at the first solution that meets the relaxation's bound
    rounded up (then it is optimal). ``h`` is left with its bounds, integrality and
    options as it came."""
    # PuLP and HiGHS: the ILP solvers load only when an ILP is solved
    import highspy

    idx = np.asarray(cols, dtype=np.int32)
    lp = h.getLp()
    lower = np.asarray(lp.col_lower_)[idx]
    upper = np.asarray(lp.col_upper_)[idx]
    kinds = highspy.HighsVarType
    nodes = h.getOptionValue("mip_max_nodes")
    nodes = nodes[1] if isinstance(nodes, tuple) else nodes  # highspy returns (status, value) in some versions

    def run(seconds_left: float) -> bool:
        if seconds_left <= 0:
            return False
        h.setOptionValue("time_limit", seconds_left)
        h.run()
        return True

    best = None
    try:
        h.changeColsIntegrality(idx.size, idx, np.full(idx.size, kinds.kContinuous))
        if not run(deadline - time.perf_counter()) or h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        relaxed = np.asarray(h.getSolution().col_value)[idx]
        target = math.ceil(h.getInfo().objective_function_value - 1e-6)  # no integer solution does better
        h.changeColsIntegrality(idx.size, idx, np.full(idx.size, kinds.kInteger))  # (resets the model status)
        h.setOptionValue("mip_max_nodes", _NEIGHBOURHOOD_NODES)
        for r in _RADII:
            lo = np.maximum(lower, np.floor(relaxed + 1e-9) - r)
            hi = np.minimum(upper, np.ceil(relaxed - 1e-9) + r)
            h.changeColsBounds(idx.size, idx, lo, hi)
            if best is not None:  # the smaller neighbourhood's solution lies in this one
                h.setSolution(best)
            if not run(deadline - time.perf_counter()):
                break
            if h.getInfo().primal_solution_status == 2:  # kSolutionStatusFeasible
                best = h.getSolution()
                if h.getInfo().objective_function_value <= target + 0.5:
                    break
    finally:
        h.changeColsIntegrality(idx.size, idx, np.full(idx.size, kinds.kInteger))
        h.changeColsBounds(idx.size, idx, lower, upper)
        h.setOptionValue("mip_max_nodes", nodes)
    return best


def _solver_exceptions() -> tuple[type[BaseException], ...]:
    """What a failing PuLP solve raises: PulpSolverError (CBC exited non-zero or wrote no
    solution: a crash, or a binary that cannot run; HiGHS not available), OSError (the
    binary is missing, not executable or of the wrong architecture), subprocess errors, and
    the ArithmeticError / ValueError / RuntimeError of a solution PuLP cannot read or a
    solver library that fails."""
    # PuLP and HiGHS: the ILP solvers load only when an ILP is solved
    import pulp

    return (pulp.PulpSolverError, OSError, subprocess.SubprocessError, ArithmeticError, ValueError, RuntimeError)


def _solver(name: str, time_limit: float, start_vars: Sequence[Any] = ()):
    """The PuLP solver object of solver ``name`` (see `SOLVERS`)."""
    return _cbc(time_limit) if name == "cbc" else _highs(time_limit, start_vars)


def _run_solver(prob, solver: str, time_limit: float, start_vars: Sequence[Any] = ()) -> str:
    """Solve ``prob`` with ``solver``; "" on success, else the one-line reason it failed.

    The one place where solver failures are caught (see the module docstring).
    """
    try:
        prob.solve(_solver(solver, time_limit, start_vars))
    except _solver_exceptions() as exc:
        text = " ".join(str(exc).split()) or "no message"
        return f"{type(exc).__name__}: {text}"[:300]
    return ""


def _var(prob, name, **kw):
    """prob.add_variable where PuLP has it (3.3+: the LpVariable constructor is deprecated)."""
    # PuLP and HiGHS: the ILP solvers load only when an ILP is solved
    import pulp

    if hasattr(prob, "add_variable"):
        return prob.add_variable(name, **kw)
    return pulp.LpVariable(name, **kw)


def value_classes(o: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The values grouped by (count, caps at every size): interchangeable in the ILP.

    Parameters
    ----------
    o : array of int, shape (m,)
        Per-value record counts.
    c : array of int, shape (m, k)
        Per-value caps floor(F_i S) at each of k sizes.

    Returns
    -------
    (counts, caps, multiplicity): one row per class, in lexicographic order.
    """
    rows, mult = np.unique(np.column_stack([o, c]), axis=0, return_counts=True)
    return rows[:, 0], rows[:, 1:], mult


@dataclass(frozen=True)
class _Model:
    """A built ILP: the PuLP problem, its b_S variables by size, and the sizes it kept."""

    prob: Any
    b: dict[int, Any]
    sizes: list[int]


def _model(o: np.ndarray, F: np.ndarray, max_size: int, two_sizes: bool) -> _Model | None:
    """The multi-size (or two-size) ILP of present values ``o`` > 0 with thresholds ``F``
    (module docstring); None when no size can be filled (no valid setting)."""
    # PuLP and HiGHS: the ILP solvers load only when an ILP is solved
    import pulp

    n = int(o.sum())
    smin = smallest_size(F, o)
    all_sizes = range(smin, min(max_size, n) + 1)  # no bucket holds more than the n records
    c_all = caps(F, list(all_sizes))
    limits = fill_limits(o, c_all, np.asarray(all_sizes)).tolist()  # b*_S of every size, in one search
    keep = [j for j, lim in enumerate(limits) if lim > 0]
    if not keep:
        return None
    sizes = [all_sizes[j] for j in keep]
    oc, c, mult = value_classes(o, c_all[:, keep])
    prob = pulp.LpProblem("optimal_bucketing", pulp.LpMinimize)
    b = {S: _var(prob, f"b_{S}", lowBound=0, upBound=limits[j], cat="Integer") for S, j in zip(sizes, keep)}
    x: dict[tuple[int, int], Any] = {}
    for j, S in enumerate(sizes):
        for k in map(int, np.flatnonzero(c[:, j] > 0)):
            x[k, S] = _var(prob, f"x_{k}_{S}", lowBound=0, upBound=int(mult[k] * min(oc[k], c[k, j] * b[S].upBound)))
    prob += pulp.lpSum((S - 1) * b[S] for S in sizes)
    by_class: dict[int, list[Any]] = {k: [] for k in range(oc.size)}
    by_size: dict[int, list[Any]] = {S: [] for S in sizes}
    column = {S: j for j, S in enumerate(sizes)}
    for (k, S), var in x.items():
        by_class[k].append(var)
        by_size[S].append(var)
        prob += var <= int(mult[k] * c[k, column[S]]) * b[S]
    for k in range(oc.size):
        prob += pulp.lpSum(by_class[k]) == int(mult[k] * oc[k])
    for S in sizes:
        prob += pulp.lpSum(by_size[S]) == S * b[S]
    if two_sizes:
        y = {S: _var(prob, f"y_{S}", cat="Binary") for S in sizes}
        for S in sizes:
            prob += b[S] <= b[S].upBound * y[S]
        prob += pulp.lpSum(y.values()) <= 2
    return _Model(prob, b, sizes)


def _solve(o, F, max_size, time_limit, two_sizes: bool, solver: str) -> OptimalResult:
    try:
        # PuLP and HiGHS: the ILP solvers load only when an ILP is solved
        import pulp
    except ImportError as exc:  # PuLP itself missing: the same outcome as a missing solver
        return OptimalResult("solver error", None, 0.0, time_limit, message=f"ImportError: {exc}")

    t0 = time.perf_counter()
    present = o > 0
    o, F = o[present], F[present]
    model = _model(o, F, max_size, two_sizes)
    if model is None:  # no size can be filled: no valid setting
        return OptimalResult("infeasible", None, time.perf_counter() - t0, time_limit)
    prob, b, sizes = model.prob, model.b, model.sizes
    t_solve = time.perf_counter()
    failed = _run_solver(prob, solver, time_limit, () if two_sizes else list(b.values()))
    seconds = time.perf_counter() - t0
    if failed:
        return OptimalResult("solver error", None, seconds, time_limit, message=failed)
    # sol_status: 1 optimal, 2 feasible but stopped (time limit), 0 not solved, -1 infeasible
    if prob.sol_status == pulp.LpSolutionInfeasible or prob.status == pulp.LpStatusInfeasible:
        return OptimalResult("infeasible", None, seconds, time_limit)
    if prob.sol_status != pulp.LpSolutionOptimal or seconds > time_limit + 1.0:
        if time.perf_counter() - t_solve < time_limit:  # stopped before its limit: not a time-out
            why = (
                f"{solver.upper()} stopped after {seconds:.1f} s (limit {time_limit:g} s) "
                f"with status {pulp.LpStatus[prob.status]}"
            )
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


def _checked(max_size, time_limit, solver) -> tuple[int, float, str]:
    max_size = check_max_size(max_size)
    time_limit = check_real("time_limit", time_limit, low=0, low_open=True, high=TIME_LIMIT_MAX)
    return max_size, time_limit, check_choice("solver", solver, SOLVERS)


def optimal(
    counts: ArrayLike, F: ArrayLike, max_size: int = 50, time_limit: float = 60.0, *, solver: str = "highs"
) -> OptimalResult:
    """The exact optimal multi-size bucket setting (Definition 3.10) by ILP.

    Parameters
    ----------
    counts : array of int
        Per-value record counts o_i.
    F : array of float
        Thresholds F_i in (0, 1].
    max_size : int
        Largest bucket size M.
    time_limit : float
        The solve's time limit in seconds; hitting it gives ``status == "timed out"``.
    solver : {"highs", "cbc"}
        The MIP solver (HiGHS through ``highspy``, or PuLP's bundled CBC).

    Returns
    -------
    OptimalResult with ``status`` and, when "optimal", the ``setting``; a failing solver
    gives ``status == "solver error"`` (never an exception) with the reason in ``message``.
    """
    max_size, time_limit, solver = _checked(max_size, time_limit, solver)
    o, F = prepare(counts, F, max_size)
    return _solve(o, F, max_size, time_limit, two_sizes=False, solver=solver)


def optimal_two_size(
    counts: ArrayLike, F: ArrayLike, max_size: int = 50, time_limit: float = 60.0, *, solver: str = "highs"
) -> OptimalResult:
    """The optimal setting with at most two sizes by one ILP with size-choice binaries
    (parameters and result as `optimal`)."""
    max_size, time_limit, solver = _checked(max_size, time_limit, solver)
    o, F = prepare(counts, F, max_size)
    return _solve(o, F, max_size, time_limit, two_sizes=True, solver=solver)
