"""The ILP ("Optimal"): both solvers against a brute-force oracle, the strengthened model (value
classes, fill limits), HiGHS's neighbourhood start, and an instance solved once across
Figures 4 and 5 (the run's memo)."""

from __future__ import annotations

import numpy as np
import pulp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privlab import bucketization as bk
from privlab import registry
from privlab._validation import PrivlabError
from privlab.bucketization import ilp
from privlab.bucketization.settings import caps, smallest_size
from privlab.bucketization.two_size import fill_limit
from privlab.context import DiskMemo
from privlab.runner import compose, make_context, run_table

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def partitions(n: int, largest: int):
    """Every multiset of bucket sizes (each <= largest) summing to n, as non-increasing tuples."""
    if n == 0:
        yield ()
        return
    for first in range(min(n, largest), 0, -1):
        for rest in partitions(n - first, first):
            yield (first, *rest)


def brute_optimum(o, F, M) -> int | None:
    """The least loss of a valid bucketization with buckets of at most M records (exact
    validity by max-flow, `is_valid`), or None when there is none."""
    n = int(o.sum())
    best = None
    for parts in partitions(n, M):
        sizes, counts = np.unique(parts, return_counts=True)
        setting = bk.BucketSetting(sizes.tolist(), counts.tolist())
        if (best is None or setting.loss < best) and bk.is_valid(o, F, setting):
            best = setting.loss
    return best


@st.composite
def small_tables(draw):
    """Up to 6 values with at most 14 records, counts and thresholds drawn from small sets so
    that interchangeable values (one class) are common."""
    m = draw(st.integers(1, 6))
    o = np.array(draw(st.lists(st.sampled_from([0, 1, 2, 3, 5]), min_size=m, max_size=m)))
    if o.sum() == 0:
        o[0] = 2
    while o.sum() > 14:
        o[int(np.argmax(o))] -= 1
    f = o / o.sum()
    theta = draw(st.sampled_from([1.0, 1.5, 2.0, 3.0]))
    offset = draw(st.sampled_from([0.0, 0.05, 0.2]))
    F = np.clip(np.maximum(theta * f + offset, f), 0.05, 1.0)
    return o, F, draw(st.integers(2, 8))


@pytest.mark.slow
@FAST
@given(small_tables())
def test_both_solvers_find_the_brute_force_optimum(table):
    o, F, M = table
    try:
        best = brute_optimum(o, F, M)
        results = {s: bk.optimal(o, F, M, time_limit=30, solver=s) for s in ilp.SOLVERS}
    except PrivlabError:  # no admissible size within M: refused before any solve
        return
    for solver, res in results.items():
        if best is None:
            assert res.status == "infeasible", solver
        else:
            assert res.status == "optimal" and res.loss == best, (solver, res)
            assert bk.is_valid(o, F, res.setting)


@FAST
@given(small_tables())
def test_two_size_ilp_equals_two_size_bucketing_with_both_solvers(table):
    o, F, M = table
    try:
        two = bk.two_size(o, F, M)
    except PrivlabError:
        return
    for solver in ilp.SOLVERS:
        res = bk.optimal_two_size(o, F, M, time_limit=30, solver=solver)
        assert (res.loss, res.status) == ((two.loss, "optimal") if two is not None else (None, "infeasible"))
        assert res.setting is None or len(res.setting.sizes) <= 2


def test_value_classes_merge_interchangeable_values_only():
    o = np.array([5, 3, 5, 5, 3])
    c = np.array([[1, 2], [1, 1], [1, 2], [2, 2], [1, 1]])
    counts, class_caps, mult = ilp.value_classes(o, c)
    assert counts.tolist() == [3, 5, 5] and class_caps.tolist() == [[1, 1], [1, 2], [2, 2]]
    assert mult.tolist() == [2, 2, 1]  # the value with other caps stays apart


def _real_instance(theta=8):
    """A skewed table like the experiments' (many values sharing small counts)."""
    rng = np.random.default_rng(3)
    p = np.geomspace(1, 0.002, 80)
    o = np.bincount(rng.choice(80, 4000, p=p / p.sum()), minlength=80)
    return o, bk.fprivacy(o / o.sum(), theta)


def test_the_model_keeps_only_fillable_sizes_and_bounds_b_by_the_fill_limit():
    o, F = _real_instance()
    o = o[o > 0]
    F = F[: o.size]
    model = ilp._model(o, F, 50, two_sizes=False)
    sizes = range(smallest_size(F, o), 51)
    c = caps(F, list(sizes))
    limits = {S: fill_limit(o, c[:, j], S) for j, S in enumerate(sizes)}
    assert model.sizes == [S for S in sizes if limits[S] > 0]
    assert all(model.b[S].upBound == limits[S] for S in model.sizes)
    classes = ilp.value_classes(o, caps(F, model.sizes))[0].size
    assert classes < o.size  # the table has interchangeable values: the model is smaller
    assert sum(1 for v in model.prob.variables() if v.name.startswith("x_")) <= classes * len(model.sizes)


def test_the_neighbourhood_start_is_optimal_here_and_leaves_the_model_as_it_was():
    o, F = _real_instance()
    keep = o > 0
    model = ilp._model(o[keep], F[keep], 50, two_sizes=False)
    solver = ilp._highs(60)
    model.prob.solve(solver)  # plain HiGHS: the reference optimum
    reference = pulp.value(model.prob.objective)
    h = model.prob.solverModel
    cols = [v.index for v in model.b.values()]
    before = (list(h.getLp().col_lower_), list(h.getLp().col_upper_), [h.getColIntegrality(j)[1] for j in cols])
    start = ilp._neighbourhood_start(h, cols, deadline=float("inf"))
    after = (list(h.getLp().col_lower_), list(h.getLp().col_upper_), [h.getColIntegrality(j)[1] for j in cols])
    assert start is not None and before == after
    nodes = h.getOptionValue("mip_max_nodes")
    assert (nodes[1] if isinstance(nodes, tuple) else nodes) == 2**31 - 1  # HiGHS's default again
    values = np.asarray(start.col_value)
    objective = sum((S - 1) * values[v.index] for S, v in model.b.items())
    assert np.isclose(objective, reference)  # the start is already an optimum: HiGHS only proves it
    res = bk.optimal(o, F, 50, time_limit=60)
    assert res.status == "optimal" and res.loss == round(reference)


def test_disk_memo_keeps_what_keep_accepts_and_pickles(tmp_path):
    import pickle

    memo = pickle.loads(pickle.dumps(DiskMemo(tmp_path)))
    CALLS.clear()
    assert memo(_square, 2) == 4 and memo(_square, 2) == 4 and CALLS == [2]
    assert memo(_square, 3, keep=lambda r: False) == 9 and memo(_square, 3) == 9 and CALLS == [2, 3, 3]
    assert memo(_square, 3) == 9 and CALLS == [2, 3, 3]  # kept the second time
    assert DiskMemo(None)(_square, 2) == 4 and CALLS == [2, 3, 3, 2]  # no directory: no memo


CALLS: list[int] = []


def _square(x):
    CALLS.append(x)
    return x * x


@pytest.mark.slow
def test_figures_4_and_5_solve_each_instance_once(monkeypatch, tmp_path):
    solves = []
    real = ilp._solve

    def counting(*args, **kw):
        solves.append(args[2:])
        return real(*args, **kw)

    monkeypatch.setattr(ilp, "_solve", counting)
    tables = {}
    for exp_id in ("bucketization/fig4_mse", "bucketization/fig5_re"):
        exp = registry.get(exp_id)
        cfg = compose(exp_id, [*exp.smoke, "thetas=[4]"])
        df = run_table(exp, cfg, make_context(cfg, results_dir=tmp_path, log=lambda m: None))
        tables[exp_id] = df[df.method == "Optimal"].set_index(["table", "theta"]).status
    assert len(solves) == 1  # fig5 found fig4's solve of EDU theta = 4 in the run's cache
    assert (tables["bucketization/fig4_mse"] == "optimal").all()
    assert tables["bucketization/fig4_mse"].equals(tables["bucketization/fig5_re"])
