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
never as an optimum.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from privlab._validation import check_int, check_real

from .settings import BucketSetting, caps, prepare, smallest_size
from .validity import is_valid


@dataclass(frozen=True)
class OptimalResult:
    """Outcome of an ILP solve: status "optimal" | "timed out" | "infeasible" | "solver error"."""

    status: str
    setting: BucketSetting | None
    seconds: float
    time_limit: float
    n_sizes_allowed: int | None = None

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


def _var(prob, name, **kw):
    """prob.add_variable where PuLP has it (3.3+: the LpVariable constructor is deprecated)."""
    import pulp

    if hasattr(prob, "add_variable"):
        return prob.add_variable(name, **kw)
    return pulp.LpVariable(name, **kw)


def _solve(o, F, max_size, time_limit, two_sizes: bool) -> OptimalResult:
    import pulp

    t0 = time.perf_counter()
    present = o > 0
    o, F = o[present], F[present]
    n = int(o.sum())
    smin = smallest_size(F, o)
    sizes = list(range(smin, max_size + 1))
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
    prob.solve(_cbc(time_limit))
    seconds = time.perf_counter() - t0
    # sol_status: 1 optimal, 2 feasible but stopped (time limit), 0 not solved, -1 infeasible
    if prob.sol_status == pulp.LpSolutionInfeasible or prob.status == pulp.LpStatusInfeasible:
        return OptimalResult("infeasible", None, seconds, time_limit)
    if prob.sol_status != pulp.LpSolutionOptimal or seconds > time_limit + 1.0:
        return OptimalResult("timed out", None, seconds, time_limit)
    counts = [int(round(b[S].value() or 0)) for S in sizes]
    setting = BucketSetting(sizes, counts)
    if not is_valid(o, F, setting):
        return OptimalResult("solver error", None, seconds, time_limit)
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
    OptimalResult with ``status`` and, when "optimal", the ``setting``.
    """
    max_size = check_int("max_size", max_size, low=1)
    time_limit = check_real("time_limit", time_limit, low=0, low_open=True)
    o, F = prepare(counts, F, max_size)
    return _solve(o, F, max_size, time_limit, two_sizes=False)


def optimal_two_size(counts: ArrayLike, F: ArrayLike, max_size: int = 50, time_limit: float = 60.0) -> OptimalResult:
    """The optimal setting with at most two sizes by one ILP with size-choice binaries."""
    max_size = check_int("max_size", max_size, low=1)
    time_limit = check_real("time_limit", time_limit, low=0, low_open=True)
    o, F = prepare(counts, F, max_size)
    return _solve(o, F, max_size, time_limit, two_sizes=True)
